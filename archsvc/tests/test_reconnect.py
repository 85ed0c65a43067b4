"""A kept database connection that died since the last request (the server restarted or
failed over) is replaced by the first query of the next request: no 503 for the request
that finds out, and no health-check round trip on every request to find out earlier."""

import psycopg
import pytest
from django.db import connection
from django.test import Client

from archsvc.tests.servers import database_url
from conftest import requires_postgres
from diagrams.tests.helpers import new_project, new_service


def kill_our_connection() -> None:
    pid = connection.connection.info.backend_pid
    with psycopg.connect(
        database_url().replace("postgres://", "postgresql://"), autocommit=True
    ) as admin:
        admin.execute("SELECT pg_terminate_backend(%s)", [pid])
    assert connection.connection is not None  # Django does not know yet


@requires_postgres
@pytest.mark.django_db(transaction=True)
def test_the_first_query_of_a_request_reconnects(factory, org):
    assert not connection.settings_dict["CONN_HEALTH_CHECKS"]
    api = factory.key_client(org, "m", ["projects:manage"])
    project = new_project(api)
    new_service(api, project, {"name": "Alpha"})
    token = api.post(f"/v1/projects/{project}/public-share-token").json()["token"]
    member = factory.member_client(factory.member(org, "ada@example.com"))

    checks = [
        lambda: api.get(f"/v1/projects/{project}/services"),  # the API key lookup
        lambda: member.get("/"),  # the session lookup
        lambda: Client().get(f"/share/{token}/graph.svg"),  # the share token lookup
        lambda: Client().get("/healthz"),
    ]
    for check in checks:
        assert check().status_code == 200
        kill_our_connection()
        response = check()
        assert response.status_code == 200, response.content[:300]


@requires_postgres
@pytest.mark.django_db(transaction=True)
def test_a_database_that_stays_down_is_still_a_503(factory, org, monkeypatch):
    api = factory.key_client(org)
    assert api.get("/v1/limits").status_code == 200
    kill_our_connection()
    monkeypatch.setitem(connection.settings_dict, "PORT", "1")  # nothing listens there
    response = api.get("/v1/limits")
    assert response.status_code == 503 and response.json()["code"] == "internal_error"
