"""Rate limits (interface §11), counted by django-ratelimit in the shared cache so that every
worker agrees. Per actor when authenticated, per client IP otherwise."""

import logging
import re

from django.conf import settings
from django.http import HttpRequest
from django_ratelimit.core import get_usage
from rest_framework.throttling import BaseThrottle

from archsvc.logging import Every
from archsvc.render_budget import charge_renders_to

logger = logging.getLogger("archsvc.ratelimit")

SAFE_METHODS = ("GET", "HEAD", "OPTIONS")

# django-ratelimit's rate syntax: "600/m", "10/5m", "100/h", "5/s" ("5/" is per second)
_RATE = re.compile(r"(\d+)/(\d*)([smhd])?")
_PERIOD_SECONDS = {"s": 1, "m": 60, "h": 3600, "d": 86400}


def rate_window(rate: str) -> int:
    """The seconds of a rate's window ("600/m": 60, "10/5m": 300), as django-ratelimit reads it."""
    _count, multiple, period = _RATE.match(rate).groups()
    return _PERIOD_SECONDS[period or "s"] * int(multiple or 1)


def client_ip(request: HttpRequest) -> str:
    """The caller's address: REMOTE_ADDR, or the hop TRUSTED_PROXY_COUNT proxies back in
    X-Forwarded-For when the app runs behind a load balancer."""
    hops = settings.TRUSTED_PROXY_COUNT
    if hops:
        forwarded = [p.strip() for p in request.META.get("HTTP_X_FORWARDED_FOR", "").split(",")]
        forwarded = [p for p in forwarded if p]
        if len(forwarded) >= hops:
            return forwarded[-hops]
    return request.META.get("REMOTE_ADDR", "") or "unknown"


CACHE_DOWN_WARNING_SECONDS = 10
# once per request, with its traceback, it was 3.7 KB a request for as long as Redis was away
_cache_down = Every(
    logger,
    CACHE_DOWN_WARNING_SECONDS,
    "rate limit cache unavailable; request allowed (%d uncounted in this process since the "
    "last such warning): %s",
)


def rate_limit_hit(request: HttpRequest, *, group: str, key: str, rate: str) -> int | None:
    """Count one request against `rate` for (group, key): None when allowed, else the seconds
    until the window frees. An unreachable cache lets it through (fail open)."""
    if not settings.RATE_LIMIT_ENABLED:
        return None
    try:
        usage = get_usage(request, group=group, key=lambda _g, _r: key, rate=rate, increment=True)
    except Exception as exc:  # noqa: BLE001 - any cache failure means "cannot count"
        _cache_down(exc)
        return None
    if usage is None:
        return None
    # django-ratelimit's window W holds the whole second W: it frees at W + 1, while its
    # time_left is W - int(now), up to a second short. A client that waited exactly that
    # long met another 429 (a script's review).
    frees_in = usage["time_left"] + 1
    if usage["limit"] > 0:  # 0: the cache could not count (django-ratelimit fails closed)
        # Said on the response (RateLimitHeadersMiddleware), so a script can pace itself.
        # Set on Django's request under DRF's wrapper: the middleware sees that one.
        getattr(request, "_request", request).rate_limit_state = (
            usage["limit"],
            max(0, usage["limit"] - usage["count"]),
            frees_in,
            rate_window(rate),
        )
    if not usage["should_limit"]:
        return None
    return frees_in


def login_rate_limit_hit(request: HttpRequest) -> int | None:
    """Count a log-in attempt against its IP's RATE_LIMIT_LOGIN budget, one for the app's log-in,
    sign-up and Django admin's log-in; the seconds to wait, or None."""
    return rate_limit_hit(
        request, group="login", key=f"ip:{client_ip(request)}", rate=settings.RATE_LIMIT_LOGIN
    )


def actor_key(request) -> str:
    actor = getattr(request, "user", None)
    if actor is not None and getattr(actor, "is_authenticated", False):
        return actor.rate_key
    return f"ip:{client_ip(request)}"


def _budget(request, view) -> tuple[str, str]:
    """The group and rate a request counts against: reads (GET) at RATE_LIMIT_READ, writes
    at RATE_LIMIT_WRITE; a view may set `rate_limit_group = "ai"` (RATE_LIMIT_AI)."""
    if getattr(view, "rate_limit_group", None) == "ai":
        return "api-ai", settings.RATE_LIMIT_AI
    if request.method in SAFE_METHODS:
        return "api-read", settings.RATE_LIMIT_READ
    return "api-write", settings.RATE_LIMIT_WRITE


class ActorRateThrottle(BaseThrottle):
    """Every /v1 endpoint, per actor (`actor_key`)."""

    def allow_request(self, request, view) -> bool:
        actor = getattr(request, "user", None)
        organization_id = getattr(actor, "organization_id", None)
        charge_renders_to(
            f"org:{organization_id}" if organization_id else f"ip:{client_ip(request)}"
        )
        group, rate = _budget(request, view)
        self._wait = rate_limit_hit(request, group=group, key=actor_key(request), rate=rate)
        return self._wait is None

    def wait(self):
        return self._wait


def refused_rate_limit_hit(request, view) -> int | None:
    """Count a request refused as unauthenticated against its IP (DRF authenticates before it
    throttles): guessing tokens is not free. The seconds to wait, or None."""
    group, rate = _budget(request, view)
    return rate_limit_hit(request, group=group, key=f"ip:{client_ip(request)}", rate=rate)


class RateLimitHeadersMiddleware:
    """Says where the counted budget stands: `RateLimit-Limit`, `-Remaining`, `-Reset` and
    `-Policy` (`600;w=60`), the IETF draft's -06 fields."""

    # a 429 says Remaining 0 and Reset equal to its Retry-After, a spent render budget's too

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        response = self.get_response(request)
        state = getattr(request, "rate_limit_state", None)
        if state is not None:
            limit, remaining, reset, window = state
            response["RateLimit-Limit"] = str(limit)
            response["RateLimit-Remaining"] = str(remaining)
            response["RateLimit-Reset"] = str(reset)
            response["RateLimit-Policy"] = f"{limit};w={window}"
        return response


def seconds_text(seconds: int) -> str:
    """ "1 second", "30 seconds": for the pages' "try again in ..." messages."""
    return f"{seconds} second{'' if seconds == 1 else 's'}"
