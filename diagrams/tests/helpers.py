"""Small helpers for the diagrams tests: JSON calls through a Django test client."""

import re

from django.test import Client


def post(client: Client, path: str, body=None):
    return client.post(path, body if body is not None else {}, content_type="application/json")


def put(client: Client, path: str, body):
    return client.put(path, body, content_type="application/json")


def new_project(client: Client, name: str = "Shop") -> str:
    response = post(client, "/v1/projects", {"name": name, "description": ""})
    assert response.status_code == 200, response.content
    return response.json()["id"]


def new_service(client: Client, project: str, body: dict) -> dict:
    response = post(client, f"/v1/projects/{project}/services", body)
    assert response.status_code == 200, response.content
    return response.json()


def signed_in(browser, membership, url: str, **options):
    """A browser context (Playwright) with the member's session cookie for the live server
    at `url`; `options` go to new_context (a viewport, say)."""
    from accounts.services import session_start

    context = browser.new_context(**options)
    cookie = session_start(membership=membership)
    context.add_cookies([{"name": "__session", "value": cookie, "url": url}])
    return context


def topic_ring_project(client: Client, name: str, size: int) -> str:
    """A project of `size` services, "Service 0" to "Service {size-1}", each producing its
    own topic and consuming the next one's."""
    project = new_project(client, name)
    for i in range(size):
        new_service(
            client,
            project,
            {
                "name": f"Service {i}",
                "produces": [{"name": f"t{i}"}],
                "consumes": [{"name": f"t{(i + 1) % size}"}],
            },
        )
    return project


def assert_project_not_found(response):
    """The same 404 for a project that does not exist and another organization's."""
    assert response.status_code == 404, response.content
    body = response.json()
    assert set(body) == {"status", "code", "message"}
    assert (body["status"], body["code"]) == (404, "project_not_found")
    # the id asked for is said back when it was in the path (not for a body's projectId)
    assert body["message"] == "Project not found." or re.fullmatch(
        r"No project '[^']*' in this organization \(GET /v1/projects lists the ids\)\.",
        body["message"],
    )


def same_answer(one, other, one_id: str, other_id: str) -> bool:
    """Two 404 bodies alike but for the id each asked for."""
    return one.content.decode().replace(one_id, "<id>") == other.content.decode().replace(
        other_id, "<id>"
    )


def write_services(membership, project_id: str, bodies) -> None:
    """Each body (a ServiceCreate) written into the project as the member, directly through
    service_create: the API's write rate limit would stop a test seeding hundreds."""
    from accounts.actors import actor_for_membership
    from diagrams.service_writes import service_create

    actor = actor_for_membership(membership)
    for body in bodies:
        service_create(actor=actor, project_id=project_id, data=body)
