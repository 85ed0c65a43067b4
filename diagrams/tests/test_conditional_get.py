"""Reads kept whole in the render cache (the three renderings, services, entities) carry an
ETag; a client that sends it back in If-None-Match gets 304 Not Modified without the body
while the project is unchanged, and the new body with a new tag once it has changed."""

import gzip

import pytest
from django.core.cache import cache
from django.db import connection
from django.test.utils import CaptureQueriesContext

from diagrams.render_cache import local_renders
from diagrams.tests.helpers import new_project, new_service, put

ENDPOINTS = ["graph", "graph/svg", "graph/mermaid", "services", "entities"]


@pytest.fixture
def project(api):
    project = new_project(api, "Conditional")
    for i in range(4):
        new_service(
            api,
            project,
            {
                "name": f"Service {i}",
                "produces": [{"name": f"t{i}"}],
                "consumes": [{"name": f"t{(i + 1) % 4}"}],
            },
        )
    return project


@pytest.mark.parametrize("endpoint", ENDPOINTS)
def test_unchanged_is_304_without_a_body(api, project, endpoint):
    url = f"/v1/projects/{project}/{endpoint}"
    first = api.get(url)
    assert first.status_code == 200
    tag = first["ETag"]
    assert tag.startswith('W/"') and tag.endswith('"')
    assert first["Cache-Control"] == "private, no-cache"

    again = api.get(url, HTTP_IF_NONE_MATCH=tag)
    assert again.status_code == 304
    assert again.content == b""
    assert again["ETag"] == tag
    assert "Accept-Encoding" in again["Vary"]
    assert again["Cache-Control"] == "private, no-cache"


@pytest.mark.parametrize("endpoint", ENDPOINTS)
def test_a_write_changes_the_tag_and_the_body(api, project, endpoint):
    url = f"/v1/projects/{project}/{endpoint}"
    before = api.get(url)
    response = put(api, f"/v1/projects/{project}/services/service-0", {"name": "Renamed"})
    assert response.status_code == 200
    after = api.get(url, HTTP_IF_NONE_MATCH=before["ETag"])
    assert after.status_code == 200
    assert after["ETag"] != before["ETag"]
    assert b"renamed" in after.content.lower() and b"renamed" not in before.content.lower()
    assert api.get(url, HTTP_IF_NONE_MATCH=after["ETag"]).status_code == 304


def test_the_query_is_part_of_the_tag(api, project):
    base = f"/v1/projects/{project}/graph"
    tags = {
        api.get(url)["ETag"]
        for url in (
            base,
            f"{base}?filteredIds=service--service-1",
            f"{base}?filteredIds=service--service-1&depth=2",
            f"{base}?at=2020-01-01T00:00:00Z",
            f"{base}/svg",
        )
    }
    assert len(tags) == 5
    focused = api.get(f"{base}?filteredIds=service--service-1")["ETag"]
    assert api.get(base, HTTP_IF_NONE_MATCH=focused).status_code == 200


def test_gzip_is_another_representation_with_its_own_tag(api, project):
    url = f"/v1/projects/{project}/graph/svg"
    plain = api.get(url)
    packed = api.get(url, HTTP_ACCEPT_ENCODING="gzip")
    assert packed["Content-Encoding"] == "gzip"
    assert packed["ETag"] != plain["ETag"]
    assert gzip.decompress(packed.content) == plain.content
    # Each tag only validates its own representation.
    assert (
        api.get(url, HTTP_ACCEPT_ENCODING="gzip", HTTP_IF_NONE_MATCH=plain["ETag"]).status_code
        == 200
    )
    assert api.get(url, HTTP_IF_NONE_MATCH=packed["ETag"]).status_code == 200
    not_modified = api.get(url, HTTP_ACCEPT_ENCODING="gzip", HTTP_IF_NONE_MATCH=packed["ETag"])
    assert not_modified.status_code == 304 and "Content-Encoding" not in not_modified


def test_if_none_match_forms(api, project):
    url = f"/v1/projects/{project}/services"
    tag = api.get(url)["ETag"]
    strong = tag.removeprefix("W/")
    for header in (tag, strong, f'"other", {tag}', f'W/"a",W/"b" , {strong}', "*"):
        assert api.get(url, HTTP_IF_NONE_MATCH=header).status_code == 304, header
    for header in ('"other"', 'W/"other"', "garbage", tag[:-2] + '"', ",", tag + "x" * 5000):
        response = api.get(url, HTTP_IF_NONE_MATCH=header)
        assert response.status_code == 200, header
        assert response.json()[0]["name"].startswith("Service")


def test_authentication_and_tenancy_come_first(api, project, factory):
    url = f"/v1/projects/{project}/graph"
    tag = api.get(url)["ETag"]
    from django.test import Client

    assert Client().get(url, HTTP_IF_NONE_MATCH=tag).status_code == 401
    bad = Client(HTTP_AUTHORIZATION="Bearer not-a-token")
    assert bad.get(url, HTTP_IF_NONE_MATCH=tag).status_code == 401
    other = factory.key_client(factory.org("other"), "k")
    assert other.get(url, HTTP_IF_NONE_MATCH=tag).status_code == 404
    assert api.get(f"{url}?depth=9", HTTP_IF_NONE_MATCH=tag).status_code == 400


def test_a_deploy_of_new_rendering_code_changes_the_tag(api, project, monkeypatch):
    url = f"/v1/projects/{project}/graph/svg"
    tag = api.get(url)["ETag"]
    monkeypatch.setattr("diagrams.render_cache.RENDER_VERSION", "0123456789ab")
    response = api.get(url, HTTP_IF_NONE_MATCH=tag)
    assert response.status_code == 200 and response["ETag"] != tag


def test_304_is_one_query_and_needs_no_cache(api, project):
    """A client that holds the current bytes costs the key + project statement alone: the
    tag comes from the render key, so neither the cache nor the renderer is asked."""
    url = f"/v1/projects/{project}/graph/svg"
    tag = api.get(url)["ETag"]
    local_renders.clear()
    cache.clear()
    with CaptureQueriesContext(connection) as captured:
        response = api.get(url, HTTP_IF_NONE_MATCH=tag)
    assert response.status_code == 304
    assert len(captured) == 1
    assert len(local_renders._entries) == 0  # nothing was rendered or fetched
