"""`/healthz` for load balancers: the database and the shared cache answer, or 503 saying
which does not. No authentication, no rate limit, never cached."""

import uuid

from django.core.cache import cache
from django.db import connection
from django.http import JsonResponse
from django.views.decorators.cache import never_cache


@never_cache
def healthz(request):
    checks = {}
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
            cursor.fetchone()
        checks["database"] = "ok"
    except Exception:  # noqa: BLE001 - any failure is "down"
        checks["database"] = "unavailable"
    try:
        probe = uuid.uuid4().hex
        cache.set("healthz", probe, 10)
        checks["cache"] = "ok" if cache.get("healthz") == probe else "unavailable"
    except Exception:  # noqa: BLE001
        checks["cache"] = "unavailable"
    healthy = all(value == "ok" for value in checks.values())
    return JsonResponse({"status": "ok" if healthy else "unavailable", **checks},
                        status=200 if healthy else 503)
