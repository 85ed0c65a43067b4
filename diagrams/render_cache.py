"""Graph renders (JSON, Mermaid, SVG) kept in the shared cache. The key holds the version of
the rendering code (a hash of its source: a deploy of new code misses at once), the
project's state (its `updated_at`, which every write to the project or its services moves,
read from the database on every request) and the query. A stale entry is never found again;
it just ages out. Share tokens are checked before the cache is read, so a revoked token is
404 whatever is cached."""

import hashlib
import json
import logging
from pathlib import Path

from django.conf import settings
from django.core.cache import cache

from archsvc.api.params import iso

logger = logging.getLogger("archsvc.render_cache")

_SOURCES = sorted((Path(__file__).resolve().parent / "rendering").glob("*.py")) + [
    Path(__file__).resolve().parent / "entities.py"]
RENDER_VERSION = hashlib.sha256(b"".join(p.read_bytes() for p in _SOURCES)).hexdigest()[:12]


def render_key(*, project, at, filtered_ids: list[str], depth: int | None, kind: str) -> str:
    query = json.dumps([project.id, iso(project.updated_at), iso(at), sorted(filtered_ids),
                        depth if filtered_ids else None, kind])
    return f"render:{RENDER_VERSION}:{hashlib.sha256(query.encode()).hexdigest()}"


def cached(key: str, compute):
    """The cached value, or `compute()` stored for next time. A cache that cannot be reached
    only costs the render."""
    if not settings.RENDER_CACHE_SECONDS:
        return compute()
    try:
        value = cache.get(key)
    except Exception:  # noqa: BLE001 - an unreachable cache must not fail the request
        logger.warning("render cache unavailable", exc_info=True)
        return compute()
    if value is not None:
        return value
    value = compute()
    try:
        cache.set(key, value, settings.RENDER_CACHE_SECONDS)
    except Exception:  # noqa: BLE001
        logger.warning("render cache unavailable", exc_info=True)
    return value


def json_bytes(value) -> bytes:
    """JSON as DRF's renderer writes it (compact, UTF-8)."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode()
