"""Every /v1 route that names a project, walked with a second organization's credentials
(an admin key with every permission) against the first organization's resources: each
answers exactly as for a missing project, and nothing changes."""

import json

from django.urls import get_resolver

from diagrams.models import Project, ServiceSnapshot
from diagrams.tests.helpers import new_project, new_service

METHODS = ("get", "post", "put", "delete")


def v1_project_routes() -> list[str]:
    """The /v1 path templates that carry a project id, read from the URL configuration."""
    routes = []
    v1 = next(p for p in get_resolver().url_patterns if str(p.pattern) == "v1/")
    for include in v1.url_patterns:
        for pattern in getattr(include, "url_patterns", [include]):
            route = str(pattern.pattern)
            if "<str:project_id>" in route:
                routes.append("/v1/" + route)
    return sorted(set(routes))


def test_every_project_route_is_walked():
    routes = v1_project_routes()
    assert len(routes) >= 13
    assert "/v1/projects/<str:project_id>/ai/chat" in routes


def test_another_organization_gets_the_missing_project_404_everywhere(factory, org, api):
    owner = factory.key_client(org, "owner", ["projects:manage", "billing:manage"])
    project = new_project(owner, "Private")
    new_service(owner, project, {"name": "Secret", "produces": [{"name": "hidden.topic"}]})
    owner.post(f"/v1/projects/{project}/public-share-token")
    snapshot = str(ServiceSnapshot.objects.get(project_id=project).pk)
    before = json.dumps(owner.get(f"/v1/projects/{project}/services").json(), sort_keys=True)

    stranger = factory.key_client(
        factory.org("stranger"), "intruder", ["projects:manage", "billing:manage"]
    )
    missing = stranger.get("/v1/projects/missing-abcdefgh").json()
    assert missing["code"] == "project_not_found"
    checked = 0
    for template in v1_project_routes():
        path = (
            template.replace("<str:project_id>", project)
            .replace("<str:slug>", "secret")
            .replace("<str:snapshot_id>", snapshot)
        )
        for method in METHODS:
            body = json.dumps({"name": "Pwned", "message": "hi", "description": "x"})
            response = (
                stranger.get(path)
                if method == "get"
                else getattr(stranger, method)(path, body, content_type="application/json")
            )
            if response.status_code == 405:
                continue  # that method is not on this route for anyone
            checked += 1
            assert response.status_code == 404, (method, path, response.status_code)
            # the same body, but for the id asked for, which is said back
            said = json.loads(response.content.decode().replace(project, "missing-abcdefgh"))
            assert said == missing, (method, path)
            assert b"Secret" not in response.content and b"hidden" not in response.content
    assert checked >= 20
    after = json.dumps(owner.get(f"/v1/projects/{project}/services").json(), sort_keys=True)
    assert after == before
    assert Project.objects.filter(pk=project, name="Private").exists()
    assert owner.get(f"/v1/projects/{project}/public-share-token").status_code == 200
    assert stranger.get("/v1/projects").json()["total"] == 0
    assert stranger.get("/v1/pinned").json() == []
