"""Small helpers for the diagrams tests: JSON calls through a Django test client."""

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
