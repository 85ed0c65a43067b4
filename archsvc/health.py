"""`/healthz` for load balancers: 200 while this server can serve, 503 when it cannot (the
database does not answer). The shared cache is reported too, but a server without it still
serves (renders uncached, rate limits not counted: docs/operations.md), so a Redis outage
alone is 200 "degraded": taking every server out of rotation for it would turn a degraded
service into no service. No authentication, no rate limit, never cached, and any Host:
a load balancer or a container's health check asks by address (`HealthzMiddleware`)."""

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
    """Answers `/healthz` before Django validates the Host header against ALLOWED_HOSTS:
    a load balancer's check and the Dockerfile's HEALTHCHECK ask by address
    (`Host: 10.0.3.7:8000`, `127.0.0.1:8000`), which production's ALLOWED_HOSTS does not
    list, and the check was a 400 (with a DisallowedHost error logged every 10 s) that
    marked every healthy server down. Nothing in the answer depends on the host."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        if request.path_info == "/healthz":
            response = healthz(request)
            response["X-Content-Type-Options"] = "nosniff"
            response["X-Frame-Options"] = "DENY"
            return response
        return self.get_response(request)
