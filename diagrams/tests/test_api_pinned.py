"""Pinned projects: per actor, most recently pinned first, idempotent pin, 404 unpin."""

import time
from datetime import UTC, datetime, timedelta

import pytest
from django.test import Client


def create(client: Client, name: str = "Payments") -> str:
    response = client.post(
        "/v1/projects", {"name": name, "description": ""}, content_type="application/json"
    )
    assert response.status_code == 200, response.content
    return response.json()["id"]


def pin(client: Client, project_id: str, **extra):
    return client.post(
        "/v1/pinned", {"projectId": project_id, **extra}, content_type="application/json"
    )


def test_pin_list_and_unpin(api):
    first, second = create(api, "First"), create(api, "Second")
    response = pin(api, first)
    assert response.status_code == 200
    assert response.json()["projectId"] == first
    assert response.json()["pinnedAt"].endswith("Z")
    time.sleep(0.01)
    pin(api, second)
    assert [p["projectId"] for p in api.get("/v1/pinned").json()] == [second, first]
    assert api.get(f"/v1/projects/{first}").json()["pinned"] is True
    response = api.delete(f"/v1/pinned/{first}")
    assert response.status_code == 204 and response.content == b""
    assert [p["projectId"] for p in api.get("/v1/pinned").json()] == [second]
    assert api.get(f"/v1/projects/{first}").json()["pinned"] is False


def test_pinning_again_keeps_the_first_pinned_at_and_ignores_a_sent_one(api):
    project = create(api)
    first = pin(api, project).json()["pinnedAt"]
    again = pin(api, project, pinnedAt="2001-01-01T00:00:00Z")
    assert again.status_code == 200
    assert again.json()["pinnedAt"] == first
    assert len(api.get("/v1/pinned").json()) == 1


@pytest.mark.parametrize("sent", ["garbage", 123, {"a": 1}, None, "2024-01-01"])
def test_a_sent_pinned_at_is_ignored_whatever_it_holds(api, sent):
    """The contract: "a `pinnedAt` sent by the client is ignored"; it had been read as a time,
    and a body a client built with a placeholder there was refused."""
    project = create(api)
    response = pin(api, project, pinnedAt=sent)
    assert response.status_code == 200, response.content
    pinned_at = datetime.fromisoformat(response.json()["pinnedAt"].replace("Z", "+00:00"))
    assert abs(datetime.now(UTC) - pinned_at) < timedelta(minutes=1)  # the server's clock
    assert api.get("/v1/pinned").json() == [response.json()]


def test_pins_belong_to_the_actor(factory, org, api):
    project = create(api)
    other_key = factory.key_client(org, "other")
    pin(api, project)
    assert other_key.get("/v1/pinned").json() == []
    assert other_key.get(f"/v1/projects/{project}").json()["pinned"] is False
    listed = other_key.get("/v1/projects?pinned=true").json()
    assert listed["total"] == 0


def test_pin_of_missing_or_foreign_project_is_404(factory, api):
    foreign = create(factory.key_client(factory.org("other")))
    for project_id in (foreign, "missing-abcdefgh"):
        response = pin(api, project_id)
        assert response.status_code == 404
        assert response.json()["code"] == "project_not_found"
    assert api.get("/v1/pinned").json() == []


def test_pin_with_bad_body_is_400(api):
    for body in (
        {},
        {"projectId": 12345678},
        {"projectId": "Not An Id!"},
        {"projectId": "abc-defghijk", "extra": 1},
    ):
        response = api.post("/v1/pinned", body, content_type="application/json")
        assert response.status_code == 400
        assert response.json()["code"] == "validation_failed"
    response = api.post("/v1/pinned", "", content_type="application/json")
    assert response.status_code == 400
    assert response.json()["violations"][0]["field"] == "body"


def test_unpin_not_pinned_is_not_found_and_unknown_project_is_project_not_found(factory, api):
    project = create(api)
    response = api.delete(f"/v1/pinned/{project}")
    assert response.status_code == 404 and response.json()["code"] == "not_found"
    response = api.delete("/v1/pinned/missing-abcdefgh")
    assert response.status_code == 404 and response.json()["code"] == "project_not_found"
    foreign = create(factory.key_client(factory.org("other")))
    response = api.delete(f"/v1/pinned/{foreign}")
    assert response.json()["code"] == "project_not_found"


def test_member_pins_need_csrf(factory, org):
    client = factory.member_client(factory.member(org))
    client.get("/")
    csrf = client.cookies["csrftoken"].value
    response = client.post(
        "/v1/projects",
        {"name": "Mine", "description": ""},
        content_type="application/json",
        HTTP_X_CSRFTOKEN=csrf,
    )
    project = response.json()["id"]
    assert pin(client, project).status_code == 403
    assert (
        client.post(
            "/v1/pinned",
            {"projectId": project},
            content_type="application/json",
            HTTP_X_CSRFTOKEN=csrf,
        ).status_code
        == 200
    )
