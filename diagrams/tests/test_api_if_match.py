"""A script's read-change-write of one service: the ETag of what it read, sent back in
If-Match, makes the PUT or DELETE write only over that state. A change made by someone else
in between is never undone: the write is 409 `conflict` and changes nothing."""

import pytest

from diagrams.tests.helpers import new_project, new_service

JSON = "application/json"


@pytest.fixture
def pid(api):
    project = new_project(api)
    new_service(api, project, {"name": "Orders", "owner": "Team A"})
    return project


def url(pid, slug="orders"):
    return f"/v1/projects/{pid}/services/{slug}"


def put(client, pid, body, slug="orders", **headers):
    return client.put(url(pid, slug), body, content_type=JSON, **headers)


def history_total(client, pid):
    return client.get(f"/v1/projects/{pid}/history").json()["total"]


def test_every_read_and_write_of_a_service_carries_its_state_as_an_etag(api, pid):
    read = api.get(url(pid))
    raw = api.get(url(pid) + "/raw").json()
    assert read["ETag"] == f'"{raw["serviceId"]}-{raw["version"]}"'
    written = put(api, pid, {"owner": "Team B"}, HTTP_IF_MATCH=read["ETag"])
    assert written.status_code == 200
    assert written["ETag"] != read["ETag"]
    assert api.get(url(pid))["ETag"] == written["ETag"]
    created = api.post(f"/v1/projects/{pid}/services", {"name": "B"}, content_type=JSON)
    assert created["ETag"] == api.get(url(pid, "b"))["ETag"]
    # a past state has its own tag: the one it had then
    past = api.get(url(pid), {"at": read.json()["validFrom"]})
    assert past["ETag"] == read["ETag"]


def test_a_put_over_a_state_changed_since_the_read_is_409_and_writes_nothing(api, pid):
    read = api.get(url(pid))
    assert put(api, pid, {"owner": "Team B"}).status_code == 200  # a colleague
    events = history_total(api, pid)
    stale = put(api, pid, {"owner": "Team C"}, HTTP_IF_MATCH=read["ETag"])
    assert stale.status_code == 409
    body = stale.json()
    assert body["code"] == "conflict"
    assert "changed since it was read" in body["message"]
    now = api.get(url(pid))
    assert now["ETag"] in body["details"] and "version 2" in body["details"]
    assert now.json()["owner"] == "Team B"
    assert history_total(api, pid) == events
    # read again, then retry: it goes through
    again = put(api, pid, {"owner": "Team C"}, HTTP_IF_MATCH=now["ETag"])
    assert again.status_code == 200 and again.json()["owner"] == "Team C"


@pytest.mark.parametrize(
    "header, status",
    [
        ("*", 200),
        ("{stale}, {current}", 200),
        ('"elsewhere", {current}', 200),
        ("{stale}", 409),
        ("W/{current}", 409),  # If-Match compares strongly (RFC 9110 13.1.1)
        ('"3f1c-1"', 409),  # a tag of another form matches nothing
        ("orders-2", 400),  # not an entity tag: the quotes are part of it
        ('W/"a,b"', 409),  # a comma inside the quotes is the tag's (RFC 9110 8.8.3)
        ('"a,b", {current}', 200),
    ],
)
def test_if_match_forms(api, pid, header, status):
    stale = api.get(url(pid))["ETag"]
    put(api, pid, {"owner": "Team B"})
    current = api.get(url(pid))["ETag"]
    value = header.format(stale=stale, current=current)
    events = history_total(api, pid)
    response = put(api, pid, {"description": "x"}, HTTP_IF_MATCH=value)
    assert response.status_code == status, response.content
    assert history_total(api, pid) == events + (status == 200)
    if status == 400:
        assert response.json()["code"] == "bad_request"
        assert "If-Match" in response.json()["message"]


def test_no_if_match_writes_over_any_state_as_before(api, pid):
    put(api, pid, {"owner": "Team B"})
    assert put(api, pid, {"owner": "Team C"}).status_code == 200
    assert put(api, pid, {"owner": "Team D"}, HTTP_IF_MATCH="").status_code == 200


def test_a_service_deleted_and_added_again_under_the_name_is_another(api, pid):
    old = api.get(url(pid))["ETag"]
    assert api.delete(url(pid)).status_code == 204
    api.post(f"/v1/projects/{pid}/services", {"name": "Orders"}, content_type=JSON)
    assert put(api, pid, {"owner": "Team Z"}, HTTP_IF_MATCH=old).status_code == 409
    assert "owner" not in api.get(url(pid)).json()


def test_a_delete_with_if_match_deletes_only_the_state_read(api, pid):
    read = api.get(url(pid))["ETag"]
    put(api, pid, {"owner": "Team B"})
    refused = api.delete(url(pid), HTTP_IF_MATCH=read)
    assert refused.status_code == 409 and refused.json()["code"] == "conflict"
    assert api.get(url(pid)).status_code == 200
    current = api.get(url(pid))["ETag"]
    assert api.delete(url(pid), HTTP_IF_MATCH=current).status_code == 204
    assert api.get(url(pid)).status_code == 404


def test_after_a_rename_the_old_address_is_404_whatever_the_tag(api, pid):
    read = api.get(url(pid))["ETag"]
    put(api, pid, {"name": "Order Desk"})
    assert put(api, pid, {"owner": "X"}, HTTP_IF_MATCH=read).status_code == 404
    moved = api.get(url(pid, "order-desk"))
    renamed = put(api, pid, {"owner": "X"}, "order-desk", HTTP_IF_MATCH=moved["ETag"])
    assert renamed.status_code == 200


def test_a_missing_project_is_404_before_a_bad_if_match(api):
    for method in ("put", "delete"):
        response = getattr(api, method)(
            "/v1/projects/nothere-abcdefgh/services/x",
            {"description": "x"},
            content_type=JSON,
            HTTP_IF_MATCH="garbage",
        )
        assert response.status_code == 404, (method, response.content)
