"""`Idempotency-Key` on the POSTs that make a project: a retry with the same key answers the
first's project instead of making another; kept per organization in the shared cache."""

import hashlib
import json
import logging

from django.conf import settings
from django.core.cache import cache

from archsvc.exceptions import BadRequest, Conflict

HEADER = "Idempotency-Key"
KEY_MAX = 255
PENDING_SECONDS = 60  # how long a first request may take before a retry runs it again

logger = logging.getLogger("archsvc.idempotency")


def _cache_key(organization_id, key: str) -> str:
    digest = hashlib.sha256(key.encode()).hexdigest()
    return f"idempotency:{organization_id}:{digest}"


def request_key(request) -> str | None:
    """The request's Idempotency-Key, or None without one; 400 for one that is no key."""
    key = request.headers.get(HEADER)
    if key is None:
        return None
    key = key.strip()
    if not key or len(key) > KEY_MAX or not (key.isascii() and key.isprintable()):
        raise BadRequest(
            f"{HEADER} must be 1 to {KEY_MAX} printable ASCII characters (a UUID, say)."
        )
    return key


def _fingerprint(request) -> str:
    body = request.body or b""
    try:  # the same JSON with other spacing or key order is the same request
        body = json.dumps(json.loads(body or b"{}"), sort_keys=True).encode()
    except ValueError:
        pass
    return hashlib.sha256(
        request.method.encode() + request.path.encode() + b"\0" + body
    ).hexdigest()


Slot = tuple[str, str]  # the cache key, and the fingerprint of the request it was taken for


def begin(request, organization_id) -> tuple[Slot | None, str | None]:
    """(the key's slot, the project a first request with it made), (None, None) without a key;
    raises for a key reused on another request or still pending; marks a first use pending."""
    key = request_key(request)
    if key is None:
        return None, None
    slot = (_cache_key(organization_id, key), _fingerprint(request))
    pending = {"fingerprint": slot[1], "project": None}
    try:
        if cache.add(slot[0], pending, PENDING_SECONDS):
            return slot, None
        seen = cache.get(slot[0])
        if seen is None:  # expired between the two reads: a first use after all
            cache.set(slot[0], pending, PENDING_SECONDS)
            return slot, None
    except Exception:  # noqa: BLE001 - an unreachable cache must not fail the request
        # answered as if no key was sent: a retry may then make a second project
        logger.warning("idempotency: the cache is unreachable; %s not applied", HEADER)
        return None, None
    if seen["fingerprint"] != slot[1]:
        raise BadRequest(
            f"{HEADER} '{key[:100]}' was used for another request (another body or path): "
            "use a new key for a new request."
        )
    if seen["project"] is None:
        raise Conflict(
            f"The first request with this {HEADER} is still being answered: retry in a moment."
        )
    return slot, seen["project"]


def done(slot: Slot | None, project_id: str) -> None:
    """The first request with the key made this project: its retries answer it."""
    if slot is None:
        return
    try:
        cache.set(
            slot[0], {"fingerprint": slot[1], "project": project_id}, settings.IDEMPOTENCY_SECONDS
        )
    except Exception:  # noqa: BLE001
        logger.warning("idempotency: the cache is unreachable; a retry may repeat the request")


def failed(slot: Slot | None) -> None:
    """The first request with the key failed: a retry is tried anew."""
    if slot is None:
        return
    try:
        cache.delete(slot[0])
    except Exception:  # noqa: BLE001
        logger.warning("idempotency: the cache is unreachable")
