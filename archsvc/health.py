"""`/healthz` for load balancers: 503 when the database does not answer; a cache outage alone is
200 "degraded", as a server still serves without it and pulling every server would be worse."""

import logging
import uuid

from django.core.cache import cache
from django.db import connections
from django.http import JsonResponse
from django.views.decorators.cache import never_cache

from archsvc.hotpath import DB, Columns, fetch_row, reconnecting
from archsvc.logging import one_line, reason_logged

logger = logging.getLogger("archsvc.health")

_ONE = Columns([None])


def _probe() -> list | None:
    return fetch_row("SELECT 1", [], _ONE)


@never_cache
def healthz(request):
    checks = {}
    try:
        # a kept connection may have died since the last check: once more on a new one. With
        # none open there is nothing to replace, and a second try would only double the
        # wait for a server that does not answer (DB_CONNECT_TIMEOUT).
        if connections[DB].connection is not None:
            reconnecting(_probe)
        else:
            _probe()
        checks["database"] = "ok"
    except Exception as exc:  # noqa: BLE001 - any failure is "down"
        checks["database"] = "unavailable"
        # the reason, in one line: the 503 is expected while the database is away
        logger.warning("healthz: database unavailable: %s", one_line(exc))
        reason_logged(request)
    try:
        # a key of its own: with one shared key, probes of other workers and servers at the
        # same moment overwrote each other's value and read as a cache that was down
        probe = uuid.uuid4().hex
        key = f"healthz:{probe}"
        cache.set(key, probe, 10)
        checks["cache"] = "ok" if cache.get(key) == probe else "unavailable"
        cache.delete(key)
    except Exception:  # noqa: BLE001
        checks["cache"] = "unavailable"
    if checks["database"] != "ok":
        return JsonResponse({"status": "unavailable", **checks}, status=503)
    status = "ok" if checks["cache"] == "ok" else "degraded"
    return JsonResponse({"status": status, **checks}, status=200)


class HealthzMiddleware:
    """Answers `/healthz` before the Host header is checked against ALLOWED_HOSTS, as health
    checks ask by address; safe, as nothing in the answer depends on the host."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        if request.path_info == "/healthz":
            response = healthz(request)
            response["X-Content-Type-Options"] = "nosniff"
            response["X-Frame-Options"] = "DENY"
            return response
        return self.get_response(request)
