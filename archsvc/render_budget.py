"""The render budget: how much rendering time a caller's new drawings may take a minute
(RENDER_BUDGET_SECONDS); callers say whom renders are charged to, the render cache charges."""

import contextlib
import contextvars
import logging
import time

from django.conf import settings
from django.core.cache import cache
from rest_framework.exceptions import Throttled

logger = logging.getLogger("archsvc.render_cache")

# Every distinct query is its own key (each `at`, each focus), so a caller could make every
# read a new render, seconds of CPU each on a big project. Who is charged for the renders a
# request causes: its caller's organization (members and API keys), or its client IP on a
# share link; None (no budget) outside such requests. Set by the API's throttle and the
# share views, cleared for every request by RenderBudgetMiddleware.
_charged_to: contextvars.ContextVar[str | None] = contextvars.ContextVar(
    "render_budget", default=None
)
# Set while reading something a spent budget does not refuse (CachedRead's `refusable`).
_unrefused: contextvars.ContextVar[bool] = contextvars.ContextVar("unrefused", default=False)
BUDGET_WINDOW = 60


class RenderBudgetSpent(Throttled):
    """The caller's renders this minute took RENDER_BUDGET_SECONDS already: to the API a
    429 like any rate limit, which says it was the drawings' budget (archsvc/api/errors.py)."""

    def __init__(self, retry_after: int):
        super().__init__(wait=retry_after)
        self.retry_after = retry_after


def charge_renders_to(who: str | None) -> None:
    """The budget this request's renders count against ("org:<id>", "ip:<address>")."""
    _charged_to.set(who)


class RenderBudgetMiddleware:
    """A request starts charged to no one (a worker thread serves request after request)."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        token = _charged_to.set(None)
        try:
            return self.get_response(request)
        finally:
            _charged_to.reset(token)


def _budget_key(who: str) -> tuple[str, int]:
    now = time.time()
    window = int(now // BUDGET_WINDOW)
    left = max(1, int((window + 1) * BUDGET_WINDOW - now + 0.999))
    return f"render-budget:{who}:{window}", left


def budget_check() -> None:
    """Refuse a render when its caller spent this minute's budget (a render that starts
    within the budget finishes, whatever it costs). A cache that cannot count lets it be."""
    who = _charged_to.get()
    if who is None or not settings.RENDER_BUDGET_SECONDS or _unrefused.get():
        return
    key, left = _budget_key(who)
    try:
        spent_ms = cache.get(key) or 0
    except Exception:  # noqa: BLE001
        return
    if spent_ms >= settings.RENDER_BUDGET_SECONDS * 1000:
        logger.warning("render budget spent by %s: %d ms this minute", who, spent_ms)
        raise RenderBudgetSpent(left)


def budget_charge(seconds: float) -> None:
    who = _charged_to.get()
    if who is None or not settings.RENDER_BUDGET_SECONDS:
        return
    key, _ = _budget_key(who)
    try:
        cache.add(key, 0, BUDGET_WINDOW * 2)
        cache.incr(key, max(1, int(seconds * 1000)))
    except Exception:  # noqa: BLE001 - expired between add and incr, or unreachable
        logger.debug("render budget not counted", exc_info=True)


@contextlib.contextmanager
def refusal_waived(waived: bool):
    """A block whose renders a spent budget does not refuse when `waived` (still charged)."""
    token = _unrefused.set(waived)
    try:
        yield
    finally:
        _unrefused.reset(token)
