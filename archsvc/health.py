"""`/healthz` for load balancers: 200 while this server can serve, 503 when it cannot (the
database does not answer). The shared cache is reported too, but a server without it still
serves (renders uncached, rate limits not counted: docs/operations.md), so a Redis outage
alone is 200 "degraded": taking every server out of rotation for it would turn a degraded
service into no service. No authentication, no rate limit, never cached."""

import uuid

from django.core.cache import cache
from django.http import JsonResponse
from django.views.decorators.cache import never_cache

from archsvc.hotpath import Columns, fetch_row, reconnecting

_ONE = Columns([None])


@never_cache
def healthz(request):
    checks = {}
    try:
        reconnecting(lambda: fetch_row("SELECT 1", [], _ONE))
        checks["database"] = "ok"
    except Exception:  # noqa: BLE001 - any failure is "down"
        checks["database"] = "unavailable"
    try:
        probe = uuid.uuid4().hex
        cache.set("healthz", probe, 10)
        checks["cache"] = "ok" if cache.get("healthz") == probe else "unavailable"
    except Exception:  # noqa: BLE001
        checks["cache"] = "unavailable"
    if checks["database"] != "ok":
        return JsonResponse({"status": "unavailable", **checks}, status=503)
    status = "ok" if checks["cache"] == "ok" else "degraded"
    return JsonResponse({"status": status, **checks}, status=200)
