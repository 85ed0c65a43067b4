"""Reads kept whole in the render cache (the three renderings, services, entities) carry an
ETag; a client that sends it back in If-None-Match gets 304 Not Modified without the body
while the project is unchanged, and the new body with a new tag once it has changed."""

import gzip

import pytest
from django.core.cache import cache
from django.db import connection
from django.test.utils import CaptureQueriesContext

from diagrams.render_cache import local_renders
from diagrams.tests.helpers import put, topic_ring_project

ENDPOINTS = ["graph", "graph/svg", "graph/mermaid", "services", "entities"]


@pytest.fixture
def project(api):
    return topic_ring_project(api, "Conditional", 4)


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
    for header in (
        tag,
        strong,
        f'"other", {tag}',
        f'W/"a",W/"b" , {strong}',
        f'W/"a,b", {tag}',  # a comma inside quotes is the tag's, not the list's
        "*",
    ):
        assert api.get(url, HTTP_IF_NONE_MATCH=header).status_code == 304, header
    oversized = ", ".join([f'W/"{i:040d}"' for i in range(100)] + [tag])  # 4,500 characters
    for header in ('"other"', 'W/"other"', "garbage", tag[:-2] + '"', ",", oversized):
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


def test_rate_limits_come_before_304(api, project, settings):
    url = f"/v1/projects/{project}/graph"
    tag = api.get(url)["ETag"]
    settings.RATE_LIMIT_READ = "2/h"
    assert api.get(url, HTTP_IF_NONE_MATCH=tag).status_code == 304
    assert api.get(url, HTTP_IF_NONE_MATCH=tag).status_code == 304
    assert api.get(url, HTTP_IF_NONE_MATCH=tag).status_code == 429


def test_head_answers_like_get(api, project):
    url = f"/v1/projects/{project}/graph/svg"
    tag = api.get(url)["ETag"]
    head = api.head(url)
    assert head.status_code == 200 and head["ETag"] == tag and head.content == b""
    assert api.head(url, HTTP_IF_NONE_MATCH=tag).status_code == 304


def test_a_future_time_is_current_until_it_comes(api, project):
    """A render `at` a future time is the current state ("Current state" in the SVG's
    header) until that time passes; then it is "As of", with a new tag."""
    import time
    from datetime import UTC, datetime, timedelta

    at = (datetime.now(UTC) + timedelta(seconds=1.5)).strftime("%Y-%m-%dT%H:%M:%S.%fZ")
    url = f"/v1/projects/{project}/graph/svg?at={at}"
    before = api.get(url)
    assert b"Current state" in before.content
    time.sleep(2)
    after = api.get(url, HTTP_IF_NONE_MATCH=before["ETag"])
    assert after.status_code == 200 and after["ETag"] != before["ETag"]
    assert b"As of" in after.content


def test_filtered_ids_echo_in_the_order_asked(api, project):
    base = f"/v1/projects/{project}/graph?filteredIds="
    one = api.get(base + "service--service-1,service--service-2")
    two = api.get(base + "service--service-2,service--service-1")
    assert one.json()["filteredIds"] == ["service--service-1", "service--service-2"]
    assert two.json()["filteredIds"] == ["service--service-2", "service--service-1"]
    assert one["ETag"] != two["ETag"]


def test_an_operator_rename_in_admin_changes_the_tag(api, project, operator):
    url = f"/v1/projects/{project}/graph/svg"
    before = api.get(url)
    renamed = operator.post(
        f"/admin/diagrams/project/{project}/change/",
        {"name": "Renamed by an operator", "description": ""},
    )
    assert renamed.status_code == 302
    after = api.get(url, HTTP_IF_NONE_MATCH=before["ETag"])
    assert after.status_code == 200 and b"Renamed by an operator" in after.content


def test_members_browsers_store_nothing(factory, org, project):
    member = factory.member_client(factory.member(org))
    response = member.get(f"/v1/projects/{project}/graph/svg")
    assert response.status_code == 200
    assert response["Cache-Control"] == "private, no-store"
    assert (
        member.get(
            f"/v1/projects/{project}/graph/svg", HTTP_IF_NONE_MATCH=response["ETag"]
        ).status_code
        == 304
    )


@pytest.mark.parametrize("endpoint", [e for e in ENDPOINTS if e != "services"])
def test_a_settled_past_moment_keeps_its_render_and_tag_through_writes(
    api, project, endpoint, monkeypatch
):
    """Time travel on a big project: the services as of a moment long past never change
    (writes begin snapshots from now on), so a write leaves that moment's render, and a
    poller's 304, alone. Only a new project name, drawn in the SVG's header, changes it."""
    from django.utils import timezone

    from diagrams import render_cache

    monkeypatch.setattr(render_cache, "SETTLED_SECONDS", 0)
    moment = timezone.now().strftime("%Y-%m-%dT%H:%M:%S.%fZ")
    url = f"/v1/projects/{project}/{endpoint}?at={moment}"
    before = api.get(url)
    renamed = put(api, f"/v1/projects/{project}/services/service-0", {"name": "Renamed"})
    assert renamed.status_code == 200
    assert b"renamed" not in before.content.lower()
    kept = api.get(url, HTTP_IF_NONE_MATCH=before["ETag"])
    assert kept.status_code == 304
    assert api.get(url).content == before.content
    assert put(api, f"/v1/projects/{project}", {"name": "Conditional Two"}).status_code == 200
    after = api.get(url, HTTP_IF_NONE_MATCH=before["ETag"])
    if endpoint == "graph/svg":
        assert after.status_code == 200 and b"Conditional Two" in after.content
    assert b"renamed" not in api.get(url).content.lower()


def test_a_moment_a_write_could_still_reach_is_keyed_by_the_state(api, project):
    """Within SETTLED_SECONDS of now a server whose clock runs behind could still write
    before the moment: its render is keyed like the current state's, by every write."""
    from django.utils import timezone

    moment = timezone.now().strftime("%Y-%m-%dT%H:%M:%S.%fZ")
    url = f"/v1/projects/{project}/graph/svg?at={moment}"
    before = api.get(url)
    put(api, f"/v1/projects/{project}/services/service-0", {"description": "x"})
    assert api.get(url, HTTP_IF_NONE_MATCH=before["ETag"]).status_code == 200


def test_a_past_service_list_follows_writes_since_it_says_when_each_state_ended(
    api, project, monkeypatch
):
    """The service list of a moment long past is not keyed by the moment alone: each
    service carries its snapshot's `validUntil`, which a later write sets."""
    from django.utils import timezone

    from diagrams import render_cache

    monkeypatch.setattr(render_cache, "SETTLED_SECONDS", 0)
    moment = timezone.now().strftime("%Y-%m-%dT%H:%M:%S.%fZ")
    url = f"/v1/projects/{project}/services?at={moment}"
    before = api.get(url)
    assert {s["validUntil"] for s in before.json()} == {None}
    put(api, f"/v1/projects/{project}/services/service-0", {"description": "later"})
    after = api.get(url, HTTP_IF_NONE_MATCH=before["ETag"])
    assert after.status_code == 200
    ended = {s["slug"]: s["validUntil"] for s in after.json()}
    assert ended["service-0"] is not None and ended["service-1"] is None


def test_every_time_to_come_is_one_current_read_of_services_and_entities(api, project):
    """A future `at` is the current state (interface §7): services and entities, which do not
    echo `at`, share the current state's key, so distinct future times are not each a
    computation (they are read even when the render budget is spent)."""
    base = f"/v1/projects/{project}"
    for endpoint in ("services", "entities"):
        now = api.get(f"{base}/{endpoint}")
        for year in (2100, 2200):
            later = api.get(f"{base}/{endpoint}?at={year}-01-01T00:00:00Z")
            assert later["ETag"] == now["ETag"]
