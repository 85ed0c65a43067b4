"""/healthz for load balancers."""

from django.test import Client

from conftest import requires_redis


def test_healthz_reports_database_and_cache(db):
    response = Client().get("/healthz")
    assert response.status_code == 200
    assert response.json() == {"status": "ok", "database": "ok", "cache": "ok"}
    assert "no-cache" in response["Cache-Control"]
    # answered before the security middleware, it still says what every answer says
    assert response["X-Content-Type-Options"] == "nosniff"
    assert response["X-Frame-Options"] == "DENY"


def test_healthz_answers_a_check_by_address_that_allowed_hosts_does_not_list(db, settings):
    """A load balancer's check and the Dockerfile's HEALTHCHECK send the server's address
    as its Host; production's ALLOWED_HOSTS names the site only."""
    settings.ALLOWED_HOSTS = ["archsvc.example.com"]
    for host in ("127.0.0.1:8000", "10.0.3.7"):
        response = Client().get("/healthz", HTTP_HOST=host)
        assert response.status_code == 200, response.content
        assert response.json()["status"] == "ok"
    # everything else still refuses a host it does not serve
    assert Client().get("/v1/limits", HTTP_HOST="10.0.3.7").status_code == 400
    assert Client().get("/healthz/", HTTP_HOST="10.0.3.7").status_code == 400


@requires_redis
def test_checks_at_the_same_moment_do_not_report_a_working_cache_as_down(db):
    """Workers and servers behind one load balancer are checked at the same moment; each
    probe reads back what it wrote, not another's. (On the in-process cache the checks
    never overlapped enough to show it: Redis's round trip is where one probe's write
    lands between another's write and read.)"""
    from concurrent.futures import ThreadPoolExecutor

    from django.db import connections

    def checks(_):
        try:
            return [Client().get("/healthz").json()["cache"] for _ in range(25)]
        finally:
            connections.close_all()

    with ThreadPoolExecutor(8) as pool:
        answers = [cache for batch in pool.map(checks, range(8)) for cache in batch]
    assert answers.count("ok") == len(answers) == 200
