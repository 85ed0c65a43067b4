"""/healthz for load balancers."""

from django.test import Client


def test_healthz_reports_database_and_cache(db):
    response = Client().get("/healthz")
    assert response.status_code == 200
    assert response.json() == {"status": "ok", "database": "ok", "cache": "ok"}
    assert "no-cache" in response["Cache-Control"]
