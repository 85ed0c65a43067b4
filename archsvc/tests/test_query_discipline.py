"""Every endpoint runs a number of SQL queries that does not grow with the size of the page
or of the project."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from diagrams.tests.helpers import new_project, new_service, put


def queries(client, method: str, path: str, body=None) -> int:
    with CaptureQueriesContext(connection) as captured:
        response = (
            getattr(client, method)(path, body, content_type="application/json")
            if body is not None
            else getattr(client, method)(path)
        )
    assert response.status_code < 400, (path, response.status_code, response.content[:200])
    return len(captured)


def build(client, services: int) -> str:
    project = new_project(client, f"Size {services}")
    for i in range(services):
        new_service(
            client,
            project,
            {
                "name": f"S{i}",
                "owner": f"team-{i % 3}",
                "produces": [{"name": f"t{i}"}],
                "consumes": [{"name": f"t{(i + 1) % services}"}],
            },
        )
        put(client, f"/v1/projects/{project}/services/s{i}", {"description": "changed"})
    client.post("/v1/pinned", {"projectId": project}, content_type="application/json")
    client.post(f"/v1/projects/{project}/public-share-token")
    return project


ENDPOINTS = [
    "/v1/projects",
    "/v1/projects?size=100",
    "/v1/projects/{p}",
    "/v1/pinned",
    "/v1/limits",
    "/v1/projects/{p}/services",
    "/v1/projects/{p}/services/s1",
    "/v1/projects/{p}/services/s1/raw",
    "/v1/projects/{p}/entities",
    "/v1/projects/{p}/history?size=100",
    "/v1/projects/{p}/graph",
    "/v1/projects/{p}/graph/svg",
    "/v1/projects/{p}/graph/mermaid",
    "/v1/projects/{p}/public-share-token",
    "/v1/billing/subscription",
    "/v1/billing/ai-credits",
]


@pytest.mark.parametrize("endpoint", ENDPOINTS)
def test_reads_do_not_grow_with_the_project(factory, org, settings, endpoint):
    settings.PLANS = {**settings.PLANS, "free": {"max_projects": 50, "ai_credits": 50}}
    client = factory.key_client(org, "k", ["projects:manage"])
    small, big = build(client, 2), build(client, 14)
    for _ in range(2):  # warm: credits rows, caches
        queries(client, "get", endpoint.format(p=small))
        queries(client, "get", endpoint.format(p=big))
    from django.core.cache import cache

    cache.clear()  # renders computed again: the cold path must not grow either
    assert queries(client, "get", endpoint.format(p=small)) == queries(
        client, "get", endpoint.format(p=big)
    )


def test_writes_and_chat_do_not_grow_with_the_project(factory, org, settings):
    settings.PLANS = {**settings.PLANS, "free": {"max_projects": 50, "ai_credits": 50}}
    client = factory.key_client(org, "k", ["projects:manage"])
    small, big = build(client, 2), build(client, 14)
    client.get("/v1/billing/ai-credits")  # the organization's credits row exists already
    counts = {}
    for name, project in (("small", small), ("big", big)):
        counts[name] = [
            queries(client, "put", f"/v1/projects/{project}/services/s1", {"owner": "x"}),
            queries(client, "post", f"/v1/projects/{project}/services", {"name": "New"}),
            queries(client, "post", f"/v1/projects/{project}/ai/chat", {"message": "summary"}),
            queries(client, "put", f"/v1/projects/{project}", {"description": "d"}),
        ]
    assert counts["small"] == counts["big"]


@pytest.mark.parametrize(
    "endpoint",
    [
        "/v1/projects/{p}",
        "/v1/projects/{p}/services",
        "/v1/projects/{p}/entities",
        "/v1/projects/{p}/graph",
        "/v1/projects/{p}/graph/svg",
        "/v1/projects/{p}/graph/mermaid",
    ],
)
def test_warm_reads_of_a_project_are_one_query(factory, org, endpoint):
    """With a bearer key, the key, its organization, the project and the caller's pin are one
    statement; a warm render, service list or entity list then comes from the cache."""
    client = factory.key_client(org, "k", ["projects:manage"])
    project = build(client, 3)
    queries(client, "get", endpoint.format(p=project))  # warm: rendered and cached
    assert queries(client, "get", endpoint.format(p=project)) == 1


def test_project_list_is_one_query(factory, org):
    """With a bearer key, the key and the page with its total are one statement, whatever
    the page size or filters. A page past the end (no row comes back, not even the key's)
    reads the key, the page and the total on their own after that."""
    client = factory.key_client(org, "k", ["projects:manage"])
    build(client, 2)
    for path in (
        "/v1/projects",
        "/v1/projects?size=100&pinned=true&query=size",
        "/v1/projects?archived=false&createdBy=k",
    ):
        assert queries(client, "get", path) == 1
    assert queries(client, "get", "/v1/projects?page=5") == 4
