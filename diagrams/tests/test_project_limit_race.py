"""The plan's project limit holds when requests race for the last slot (PostgreSQL)."""

import threading
from concurrent.futures import ThreadPoolExecutor

import pytest
from django.db import connection
from django.test import Client

from conftest import requires_postgres
from diagrams.models import Project


def _race(clients: list[Client], path: str, body: dict, headers=None) -> list[int]:
    barrier = threading.Barrier(len(clients))

    def post(client: Client) -> int:
        try:
            barrier.wait(timeout=10)
            return client.post(
                path, body, content_type="application/json", headers=headers
            ).status_code
        finally:
            connection.close()

    with ThreadPoolExecutor(max_workers=len(clients)) as pool:
        return list(pool.map(post, clients))


@requires_postgres
@pytest.mark.django_db(transaction=True)
def test_parallel_creates_at_the_last_slot_leave_exactly_the_limit(factory):
    org = factory.org("racers")
    seed = factory.key_client(org, "seed")
    for name in ("One", "Two"):
        assert (
            seed.post(
                "/v1/projects", {"name": name, "description": ""}, content_type="application/json"
            ).status_code
            == 200
        )
    clients = [factory.key_client(org, f"k{i}") for i in range(8)]
    statuses = _race(clients, "/v1/projects", {"name": "Racer", "description": ""})
    assert sorted(statuses) == [200] + [402] * 7
    assert Project.objects.filter(organization=org).count() == 3


@requires_postgres
@pytest.mark.django_db(transaction=True)
def test_parallel_duplicates_at_the_last_slot_leave_exactly_the_limit(factory):
    org = factory.org("dupes")
    seed = factory.key_client(org, "seed")
    source = seed.post(
        "/v1/projects", {"name": "Source", "description": ""}, content_type="application/json"
    ).json()["id"]
    clients = [factory.key_client(org, f"k{i}") for i in range(6)]
    statuses = _race(clients, f"/v1/projects/{source}/duplicate", {})
    assert sorted(statuses) == [200, 200] + [402] * 4
    assert Project.objects.filter(organization=org).count() == 3


@requires_postgres
@pytest.mark.django_db(transaction=True)
def test_parallel_retries_with_one_idempotency_key_make_one_project(factory, settings):
    """The shared cache's add() decides which request makes the project: the others are
    told the first is still being answered (409), or, once it is, answered with it."""
    settings.PLANS = {**settings.PLANS, "free": {"max_projects": 50, "ai_credits": 50}}
    org = factory.org("retries")
    clients = [factory.key_client(org, f"k{i}") for i in range(6)]
    statuses = _race(
        clients,
        "/v1/projects",
        {"name": "Nightly", "description": ""},
        headers={"Idempotency-Key": "nightly-2026-11-29"},
    )
    assert 200 in statuses and set(statuses) <= {200, 409}, statuses
    assert Project.objects.filter(organization=org).count() == 1
