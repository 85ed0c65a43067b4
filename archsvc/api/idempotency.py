"""`Idempotency-Key` on the POSTs that make a project (create, duplicate): an extension, as
If-Match is (a request without the header is unchanged). A CI job that retries after a
timeout cannot tell whether its first request landed; with the same key the retry answers
the project the first one made, instead of making a second (a third of the free plan's
projects). The IETF draft "The Idempotency-Key HTTP Header Field" is the model.

A key is remembered in the shared cache (so every app server knows it) for
IDEMPOTENCY_SECONDS, per organization, with a fingerprint of the request it came with:
- the same key and request again: the first answer's project, now, with
  `Idempotent-Replayed: true` (404 if it has been deleted since);
- the same key with another request (another body or path): 400 naming the header;
- while the first is still being answered: 409 `conflict`, retry;
- a first request that fails (400, 402, ...) leaves no trace: a retry is tried anew.
An unreachable cache answers as if no key had been sent (logged), as the render cache and
the rate limits do: a retry may then make a second project, as without the header.
"""

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
    """(the key's slot, the project id a first request with this key made) for a request
    with a key; (None, None) without one. Raises for a key reused on another request, or
    one whose first request is still being answered. A first use is marked pending."""
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
