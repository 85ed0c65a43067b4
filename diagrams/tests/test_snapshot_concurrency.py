"""Concurrent writers to one service (PostgreSQL): the snapshot chain stays gapless and
non-overlapping with exactly one current snapshot; every request is 200 or 409."""

import threading
from concurrent.futures import ThreadPoolExecutor

import pytest
from django.db import connection

from conftest import requires_postgres
from diagrams.models import ServiceSnapshot
from diagrams.tests.helpers import new_project, new_service


def assert_chain_is_sound(service_id):
    chain = list(ServiceSnapshot.objects.filter(service_id=service_id).order_by("version"))
    assert [s.version for s in chain] == list(range(1, len(chain) + 1))
    assert sum(1 for s in chain if s.valid_until is None) == 1
    assert chain[-1].valid_until is None
    for earlier, later in zip(chain, chain[1:], strict=False):
        assert earlier.valid_until == later.valid_from  # no gap, no overlap
        assert earlier.valid_from < later.valid_from
    return chain


def parallel_puts(clients, url: str, **headers) -> list[int]:
    """Each client PUTs a description of its own to `url`, all released at once; their
    statuses in client order."""
    barrier = threading.Barrier(len(clients))

    def write(index):
        try:
            barrier.wait(timeout=10)
            body = {"description": f"writer {index}"}
            return (
                clients[index].put(url, body, content_type="application/json", **headers)
            ).status_code
        finally:
            connection.close()

    with ThreadPoolExecutor(max_workers=len(clients)) as pool:
        return list(pool.map(write, range(len(clients))))


@requires_postgres
@pytest.mark.django_db(transaction=True)
def test_twenty_parallel_puts_leave_a_sound_chain(factory):
    org = factory.org("busy")
    clients = [factory.key_client(org, f"writer-{i}") for i in range(20)]
    project = new_project(clients[0])
    new_service(clients[0], project, {"name": "Hot"})
    statuses = parallel_puts(clients, f"/v1/projects/{project}/services/hot")
    assert set(statuses) <= {200, 409}, statuses
    service_id = ServiceSnapshot.objects.get(slug="hot", version=1).service_id
    chain = assert_chain_is_sound(service_id)
    assert len(chain) == 1 + statuses.count(200)
    current = clients[0].get(f"/v1/projects/{project}/services/hot").json()
    assert current["description"] == chain[-1].description


@requires_postgres
@pytest.mark.django_db(transaction=True)
def test_parallel_creates_of_one_name_make_one_service(factory):
    org = factory.org("racy")
    clients = [factory.key_client(org, f"writer-{i}") for i in range(10)]
    project = new_project(clients[0])
    barrier = threading.Barrier(10)

    def create(index):
        try:
            barrier.wait(timeout=10)
            return (
                clients[index]
                .post(
                    f"/v1/projects/{project}/services",
                    {"name": "Same Name"},
                    content_type="application/json",
                )
                .status_code
            )
        finally:
            connection.close()

    with ThreadPoolExecutor(max_workers=10) as pool:
        statuses = list(pool.map(create, range(10)))
    assert sorted(statuses) == [200] + [409] * 9
    assert ServiceSnapshot.objects.filter(project_id=project).count() == 1
    assert clients[0].get(f"/v1/projects/{project}").json()["serviceCount"] == 1


@requires_postgres
@pytest.mark.django_db(transaction=True)
def test_parallel_puts_with_one_if_match_let_exactly_one_through(factory):
    """Ten scripts read the same state and write at once, each with its ETag: the tag is
    checked under the row lock the write takes, so one writes and nine are 409."""
    org = factory.org("tagged")
    clients = [factory.key_client(org, f"writer-{i}") for i in range(10)]
    project = new_project(clients[0])
    new_service(clients[0], project, {"name": "Hot"})
    url = f"/v1/projects/{project}/services/hot"
    statuses = parallel_puts(clients, url, HTTP_IF_MATCH=clients[0].get(url)["ETag"])
    assert sorted(statuses) == [200] + [409] * 9, statuses
    service_id = ServiceSnapshot.objects.get(slug="hot", version=1).service_id
    assert len(assert_chain_is_sound(service_id)) == 2
