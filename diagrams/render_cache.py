"""Graph renders (JSON, Mermaid, SVG) cached per worker and in the shared cache, keyed by the
code's version, the project's state and the query, so a stale entry is never found again."""

import contextlib
import contextvars
import gc
import gzip
import hashlib
import json
import logging
import pickle
import threading
import time
import zlib
from collections import OrderedDict
from datetime import timedelta
from pathlib import Path

from django.conf import settings
from django.core.cache import cache
from django.utils import timezone

from archsvc.api.params import iso
from archsvc.logging import Every
from archsvc.render_budget import budget_charge, budget_check, refusal_waived
from diagrams.history import is_current
from diagrams.rendering.layout import DEFAULT_ASPECT, layout_layered

logger = logging.getLogger("archsvc.render_cache")
# the cache unreachable: once every 10 s with the reason (a traceback at every read, twice
# a read, was 3 KB a line for as long as Redis was away)
_cache_down = Every(
    logger,
    10,
    "render cache unavailable; rendering without it (%d times in this process "
    "since the last such warning): %s",
)

# Every module whose code decides the bytes of a cached read: the renderers and the
# entities, the selectors and drawings that build the graph and its header (`_when_label`), the
# history the whole project's drawing follows (drawing_history), the wire
# form of services (service_views.service_json), timestamps (params.iso), entity ids
# (slugs), and this module, which decides what a cached value is. A deploy that changes
# any of them changes every key and every ETag (diagrams/tests/test_render_cache.py checks
# the functions involved live here).
_PACKAGE = Path(__file__).resolve().parent
_SOURCES = sorted((_PACKAGE / "rendering").glob("*.py")) + [
    _PACKAGE / "entities.py",
    _PACKAGE / "selectors.py",
    _PACKAGE / "drawings.py",
    _PACKAGE / "drawing_history.py",
    _PACKAGE / "history.py",
    _PACKAGE / "slugs.py",
    _PACKAGE / "api" / "service_views.py",
    _PACKAGE.parent / "archsvc" / "api" / "params.py",
    Path(__file__).resolve(),
]
RENDER_VERSION = hashlib.sha256(b"".join(p.read_bytes() for p in _SOURCES)).hexdigest()[:12]


# How far in the past a moment must be for no write to reach it: a write's snapshots begin
# at its server's clock (or a microsecond after the snapshot they follow), so only a server
# whose clock runs this far behind another's could still write before such a moment.
SETTLED_SECONDS = 60
# The reads whose bytes are the state as of `at` and nothing else. Not the service list: it
# carries each snapshot's `validUntil`, which a later write sets on the snapshot that was
# current then.
SETTLED_KINDS = frozenset({"json", "svg", "mermaid", "entities"})


# Callers check share tokens before reading the cache: a revoked token is 404 whatever is cached.
def render_key(
    *, project, at, filtered_ids: list[str], depth: int | None, kind: str, aspect=None
) -> str:
    """The key of a read of `project` as of `at`: the state it shows (`updated_at`, or a settled
    past moment itself), the query, and whether `at` is still in the future."""
    # writes only begin snapshots from now on, so a settled moment's services never change and
    # only the project's name (in the header) can change what a drawing of it shows: writes
    # then leave time travel's renders and ETags alone
    settled = (
        kind in SETTLED_KINDS
        and at is not None
        and at < timezone.now() - timedelta(seconds=SETTLED_SECONDS)
    )
    query = json.dumps(
        [
            project.id,
            ["as of", project.name] if settled else iso(project.updated_at),
            iso(at),
            is_current(at),
            list(filtered_ids),
            depth if filtered_ids else None,
            kind,
            *([aspect] if aspect is not None else []),  # the keys of the default shape stay
        ]
    )
    return f"render:{RENDER_VERSION}:{hashlib.sha256(query.encode()).hexdigest()}"


class LocalRenders:
    """A bounded least-recently-used map of immutable values private to a worker, sized by `size`
    against `setting`; a value over `largest` of the bound is not kept, lest it flush the rest."""

    def __init__(
        self, setting: str = "RENDER_LOCAL_CACHE_BYTES", size=len, largest: float = 0.25
    ) -> None:
        self._entries: OrderedDict = OrderedDict()
        self._sizes: dict = {}
        self._size = 0
        self._setting = setting
        self._measure = size
        self._largest = largest
        self._lock = threading.Lock()

    def get(self, key):
        with self._lock:
            value = self._entries.get(key)
            if value is not None:
                self._entries.move_to_end(key)
            return value

    def put(self, key, value) -> None:
        limit = getattr(settings, self._setting)
        size = self._measure(value)
        if size > limit * self._largest:
            return
        with self._lock:
            if key in self._entries:
                return
            self._entries[key] = value
            self._sizes[key] = size
            self._size += size
            while self._size > limit:
                old, _ = self._entries.popitem(last=False)
                self._size -= self._sizes.pop(old)

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()
            self._sizes.clear()
            self._size = 0


# In front of the shared cache, never stale: a key names one state forever, and a write moves
# `updated_at`, so the next request asks for a key no worker has.
local_renders = LocalRenders()


_UNREACHABLE = object()


def _shared_get(key: str):
    """The shared cache's value (None when missing), or _UNREACHABLE."""
    try:
        return cache.get(key)
    except Exception as exc:  # noqa: BLE001 - an unreachable cache must not fail the request
        _cache_down(exc)
        return _UNREACHABLE


def _shared_set(key: str, value) -> None:
    try:
        cache.set(key, value, settings.RENDER_CACHE_SECONDS)
    except Exception as exc:  # noqa: BLE001
        _cache_down(exc)


def _lock(key: str) -> bool | None:
    """Take the render lock of `key`: True when taken, False when another worker holds it,
    None when the cache cannot be asked (then nobody can coordinate: render)."""
    try:
        return cache.add(f"{key}:lock", 1, settings.RENDER_LOCK_SECONDS)
    except Exception as exc:  # noqa: BLE001
        _cache_down(exc)
        return None


def _unlock(key: str) -> None:
    try:
        cache.delete(f"{key}:lock")
    except Exception as exc:  # noqa: BLE001 - the lock expires by itself
        _cache_down(exc)


# Set while a render runs: a render inside another is charged once, with the outer one.
_rendering: contextvars.ContextVar[bool] = contextvars.ContextVar("rendering", default=False)


@contextlib.contextmanager
def gc_paused():
    """Python's cyclic garbage collector off for a block making many objects that live until it
    ends (a render, a big decoding), whose passes over them would find nothing to free."""
    paused = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        # threads of one process share the switch: only the block that turned it off turns
        # it on again
        if paused:
            gc.enable()


def _render(key: str, compute, label: str, *, store: bool = True):
    """`compute()`, stored in the shared cache and logged for operators; charged to the caller's
    render budget (a render nested in another only once)."""
    outermost = not _rendering.get()
    if outermost:
        budget_check()
    started = time.perf_counter()
    token = _rendering.set(True)
    try:
        with gc_paused():
            value = compute()
    finally:
        _rendering.reset(token)
        if outermost:
            budget_charge(time.perf_counter() - started)
    logger.info(
        "render computed: %s in %.0f ms, %d bytes (%s)",
        label,
        (time.perf_counter() - started) * 1000,
        len(value),
        key,
    )
    if store:
        _shared_set(key, value)
    return value


# When a read's waits for other workers' renders end: one deadline for the read, however
# its renders nest (a gzip render inside it the plain bytes, inside those
# the layout, each with a lock of its own). Each had waited its own RENDER_LOCK_WAIT_SECONDS:
# after a worker died holding all three, a waiter gave up on the first after 20 s, then
# polled the second until its lock expired (25 s), past gunicorn's 30 s on a big project.
_wait_until: contextvars.ContextVar[float | None] = contextvars.ContextVar(
    "render_wait_until", default=None
)


def _render_once(key: str, compute, label: str):
    """The value of `key` rendered by one worker at a time: take the lock and render, or poll for
    what its holder stores, until the request's deadline (`_wait_until`), then render here."""
    deadline = time.monotonic() + settings.RENDER_LOCK_WAIT_SECONDS
    outer = _wait_until.get()
    if outer is not None:
        deadline = min(deadline, outer)
    token = _wait_until.set(deadline)
    try:
        return _render_once_until(key, compute, label, deadline)
    finally:
        _wait_until.reset(token)


def _render_once_until(key: str, compute, label: str, deadline: float):
    outer_expired = deadline <= time.monotonic()  # a nested lock met after the request's wait
    waited_from = None
    delay = 0.005
    while True:
        taken = _lock(key)
        if taken is None:
            return _render(key, compute, label, store=False)
        if taken:
            try:
                # Another worker may have stored it between our last look and the lock.
                value = _shared_get(key) if waited_from is not None else None
                if value is None or value is _UNREACHABLE:
                    value = _render(key, compute, label)
                return value
            finally:
                _unlock(key)
        if waited_from is None:
            waited_from = time.monotonic()
        if time.monotonic() + delay > deadline:
            _wait_until.set(time.monotonic())  # what it renders inside waits no more
            if delay == 0.005 and outer_expired:  # nested, after the read's wait: no wait
                logger.info("render lock held elsewhere: rendering %s here too (%s)", label, key)
            else:
                logger.warning(
                    "render lock wait over %s s: rendering %s here too (%s)",
                    settings.RENDER_LOCK_WAIT_SECONDS,
                    label,
                    key,
                )
            return _render(key, compute, label)
        time.sleep(delay)
        delay = min(delay * 2, 0.1)
        value = _shared_get(key)
        if value is _UNREACHABLE:
            return _render(key, compute, label, store=False)
        if value is not None:
            logger.info(
                "render awaited: %s, made by another worker in %.0f ms of waiting (%s)",
                label,
                (time.monotonic() - waited_from) * 1000,
                key,
            )
            return value


def cached(key: str, compute, label: str = "render"):
    """The cached value, or `compute()` stored for next time: this worker's memory, the shared
    cache, then one render for all workers that miss together (an unreachable cache costs it)."""
    if not settings.RENDER_CACHE_SECONDS:
        return _render(key, compute, label, store=False)
    value = local_renders.get(key)
    if value is not None:
        return value
    value = _shared_get(key)
    if value is _UNREACHABLE:  # no lock and no store: each would wait out the same timeout
        value = _render(key, compute, label, store=False)
    elif value is None:
        if settings.RENDER_LOCK_WAIT_SECONDS > 0:
            value = _render_once(key, compute, label)
        else:
            value = _render(key, compute, label)
    local_renders.put(key, value)
    return value


def cached_encoded(key: str, compute, *, gzipped: bool, label: str = "render") -> bytes:
    """As `cached`, kept as UTF-8 bytes so a response is the cached bytes themselves; `gzipped`:
    compressed once, deterministically (no timestamp), under their own key."""

    def encode() -> bytes:
        value = compute()
        return value.encode() if isinstance(value, str) else value

    if not gzipped:
        return cached(key, encode, label)

    def compress() -> bytes:
        return gzip.compress(cached(key, encode, label), compresslevel=6, mtime=0)

    return cached(f"{key}:gzip", compress, f"{label}, gzip")


class CachedRead:
    """A read kept in the render cache: its validator, known from the key alone, and its bytes,
    fetched or computed only when asked for (a 304 needs neither a lookup nor a render)."""

    __slots__ = ("key", "gzipped", "label", "refusable", "_compute")

    def __init__(
        self, key: str, compute, *, gzipped: bool, label: str = "render", refusable: bool = True
    ) -> None:
        self.key = key
        self.gzipped = gzipped
        self.label = label  # what the logs call it: "svg of <project id>"...
        # False: made even when the caller's render budget is spent (still charged to it)
        self.refusable = refusable
        self._compute = compute

    @property
    def etag(self) -> str:
        """A weak entity tag (RFC 9110 8.8.3): the key names code, state and query, so equal tags
        mean the same representation; the gzip bytes, another representation, get their own."""
        _, version, digest = self.key.split(":")
        return f'W/"{version}-{digest[:24]}{"-gzip" if self.gzipped else ""}"'

    def body(self) -> bytes:
        with refusal_waived(not self.refusable):
            return cached_encoded(self.key, self._compute, gzipped=self.gzipped, label=self.label)


def json_value(body: bytes):
    """JSON from our own cache (`json_bytes`), decoded with the cyclic garbage collector paused:
    a JSON document holds no cycles, and a big one would set off costly full collections."""
    with gc_paused():
        return json.loads(body)


def json_bytes(value) -> bytes:
    """JSON as DRF's renderer writes it (compact, UTF-8)."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode()


# --- layouts ------------------------------------------------------------------------------
# A layout depends on the graph's shape alone: each node's id, label and kind, each edge and
# its kind. A write that changes none of them (an owner, a category, a description, the
# extras) changes the drawing's colours and tooltips but not where anything goes, and the
# JSON and the SVG of one state share it; so on a big graph the layout (two thirds of a
# 3,000-service render) is kept in the shared cache under its shape, compressed, and found
# again by any worker and any kind of render.
LAYOUT_MIN_NODES = 500  # smaller graphs lay out in tens of milliseconds: not worth keeping


def layout_key(graph, origin: tuple[float, float], aspect: float = DEFAULT_ASPECT) -> str:
    shape = repr(
        (
            origin,
            *([aspect] if aspect != DEFAULT_ASPECT else []),
            sorted(
                (n, d.get("label", n), d.get("type", "service")) for n, d in graph.nodes(data=True)
            ),
            sorted((s, t, d.get("kind", "produces")) for s, t, d in graph.edges(data=True)),
        )
    )
    return f"layout:{RENDER_VERSION}:{hashlib.sha256(shape.encode()).hexdigest()}"


def layout_cached(graph, *, origin: tuple[float, float], aspect: float = DEFAULT_ASPECT):
    """`layout_layered(graph, origin=origin)`, from the shared cache when this code laid out a
    graph of this shape before; a new shape is laid out by one worker while others wait."""
    if graph.number_of_nodes() < LAYOUT_MIN_NODES or not settings.RENDER_CACHE_SECONDS:
        return layout_layered(graph, origin=origin, aspect=aspect)
    key = layout_key(graph, origin, aspect)
    made = {}

    def lay_out() -> bytes:
        made["layout"] = layout_layered(graph, origin=origin, aspect=aspect)
        return _layout_bytes(made["layout"])

    label = f"layout of {graph.number_of_nodes()} nodes"
    stored = _shared_get(key)
    if stored is _UNREACHABLE:
        return layout_layered(graph, origin=origin, aspect=aspect)
    if stored is None:
        if settings.RENDER_LOCK_WAIT_SECONDS > 0:
            stored = _render_once(key, lay_out, label)
        else:
            stored = _render(key, lay_out, label)
    if "layout" in made:
        return made["layout"]
    layout = _layout_from(stored, key)
    if layout is None:  # a damaged entry is laid out again, and stored again, readable
        _render(key, lay_out, label)
        return made["layout"]
    return layout


def _layout_bytes(layout) -> bytes:
    return zlib.compress(pickle.dumps(layout, protocol=5), 1)


def _layout_from(stored: bytes, key: str):
    """A layout kept by _layout_bytes, or None when the entry is damaged."""
    try:
        # our own cache's bytes: as trusted as the pickles Django's cache backends read back
        # for every value
        return pickle.loads(zlib.decompress(stored))  # noqa: S301
    except Exception:  # noqa: BLE001
        logger.warning("layout in the cache unreadable: %s", key, exc_info=True)
        return None


# --- drawings that follow each other -------------------------------------------------------
# The drawing of a moment follows the drawing of the moment before (diagrams/drawing_history.py):
# each is kept in the shared cache under the project, the moment and the shape asked for, so a
# render after a write places only what the write changed. It is a function of the history up
# to that moment, so whichever worker makes it makes the same, and a lost entry is made again.


def followed_key(project_id, moment, aspect: float, origin: tuple[float, float]) -> str:
    where = json.dumps([str(project_id), iso(moment), aspect, list(origin)])
    return f"followed:{RENDER_VERSION}:{hashlib.sha256(where.encode()).hexdigest()}"


def followed_get(key: str):
    """A kept drawing of a moment, or None."""
    if not settings.RENDER_CACHE_SECONDS:
        return None
    stored = _shared_get(key)
    if stored is None or stored is _UNREACHABLE:
        return None
    return _layout_from(stored, key)  # None when damaged: it is made again


def followed_set(key: str, layout) -> None:
    if settings.RENDER_CACHE_SECONDS:
        _shared_set(key, _layout_bytes(layout))
