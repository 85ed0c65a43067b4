"""History (newest first, paged) and field-level diffs of each snapshot."""

import uuid

import pytest

from diagrams.tests.helpers import new_project, new_service, put


@pytest.fixture
def project(api):
    return new_project(api)


def history(api, project, **params):
    query = "&".join(f"{k}={v}" for k, v in params.items())
    return api.get(f"/v1/projects/{project}/history?{query}")


def diff(api, project, snapshot_id):
    return api.get(f"/v1/projects/{project}/history/{snapshot_id}/diff")


def test_history_lists_each_action_newest_first(factory, org, api, project):
    base = f"/v1/projects/{project}/services"
    new_service(api, project, {"name": "Orders"})
    other = factory.key_client(org, "deployer")
    put(other, f"{base}/orders", {"owner": "team-a"})
    put(api, f"{base}/orders", {"name": "Order Service"})
    api.delete(f"{base}/order-service")
    body = history(api, project).json()
    assert [e["action"] for e in body["data"]] == ["deleted", "renamed", "updated", "created"]
    assert [e["actor"] for e in body["data"]] == ["ci", "ci", "deployer", "ci"]
    assert [e["serviceSlug"] for e in body["data"]] == [
        "order-service",
        "order-service",
        "orders",
        "orders",
    ]
    assert len({e["serviceId"] for e in body["data"]}) == 1
    assert all(e["actorType"] == "API_KEY" and e["at"].endswith("Z") for e in body["data"])
    times = [e["at"] for e in body["data"]]
    assert times == sorted(times, reverse=True)
    assert body["total"] == 4 and body["size"] == 50 and body["page"] == 0


def test_history_paging(api, project):
    for i in range(5):
        new_service(api, project, {"name": f"S{i}"})
    page0 = history(api, project, size=2).json()
    assert page0["total"] == 5 and page0["totalPages"] == 3
    assert page0["first"] and not page0["last"]
    last = history(api, project, size=2, page=2).json()
    assert len(last["data"]) == 1 and last["last"]
    beyond = history(api, project, size=2, page=9).json()
    assert beyond["data"] == [] and beyond["last"]
    names = [
        e["serviceName"]
        for p in range(3)
        for e in history(api, project, size=2, page=p).json()["data"]
    ]
    assert names == ["S4", "S3", "S2", "S1", "S0"]


@pytest.mark.parametrize("params", [{"size": 0}, {"size": 101}, {"page": -1}, {"page": "x"}])
def test_history_bad_paging_is_400(api, project, params):
    response = history(api, project, **params)
    assert response.status_code == 400 and response.json()["code"] == "bad_request"


def test_diff_of_first_snapshot_lists_what_it_sets(api, project):
    new_service(
        api,
        project,
        {
            "name": "Orders",
            "category": "core",
            "flows": ["checkout"],
            "produces": [{"name": "orders"}],
            "extras": {"repo": "git/x"},
        },
    )
    event = history(api, project).json()["data"][0]
    body = diff(api, project, event["snapshotId"]).json()
    assert body["previousSnapshotId"] is None and body["action"] == "created"
    assert body["serviceSlug"] == "orders"
    changes = {c["field"]: c for c in body["changes"]}
    assert set(changes) == {"name", "category", "flows", "produces", "extras.repo"}
    assert all(c["before"] is None for c in body["changes"])
    assert changes["category"]["after"] == "core"
    assert changes["extras.repo"]["after"] == "git/x"
    assert changes["produces"]["after"][0]["name"] == "orders"


def test_diff_of_update_lists_each_kind_of_field(api, project):
    base = f"/v1/projects/{project}/services"
    new_service(
        api,
        project,
        {
            "name": "Orders",
            "description": "d1",
            "owner": "a",
            "flows": ["f1"],
            "extras": {"keep": "1", "drop": "2", "edit": "3"},
        },
    )
    put(
        api,
        f"{base}/orders",
        {
            "description": None,
            "owner": "b",
            "flows": ["f1", "f2"],
            "consumes": [{"name": "payments"}],
            "extras": {"keep": "1", "edit": "30", "add": "4"},
        },
    )
    events = history(api, project).json()["data"]
    body = diff(api, project, events[0]["snapshotId"]).json()
    assert body["action"] == "updated"
    assert body["previousSnapshotId"] == events[1]["snapshotId"]
    changes = {c["field"]: (c["before"], c["after"]) for c in body["changes"]}
    assert changes["description"] == ("d1", None)
    assert changes["owner"] == ("a", "b")
    assert changes["flows"] == (["f1"], ["f1", "f2"])
    assert changes["consumes"][0] == [] and changes["consumes"][1][0]["name"] == "payments"
    assert changes["extras.drop"] == ("2", None)
    assert changes["extras.edit"] == ("3", "30")
    assert changes["extras.add"] == (None, "4")
    assert "extras.keep" not in changes and "name" not in changes
    assert not any(c["field"] in ("updatedAt", "slug", "version") for c in body["changes"])


def test_a_service_put_back_as_read_changes_nothing_in_its_diff(api, project):
    """A service read shows an unset list as [] (interface §7): sending that back, or null
    for it, is no change, as `extras` {} for none is not."""
    base = f"/v1/projects/{project}/services"
    new_service(api, project, {"name": "Orders", "produces": [{"name": "orders"}]})
    read = api.get(f"{base}/orders").json()
    assert read["flows"] == [] and read["consumes"] == [] and read["extras"] == {}
    body = {k: read[k] for k in ("name", "flows", "consumes", "produces", "extras")}
    for sent in (body, {"flows": None, "extras": None}):
        put(api, f"{base}/orders", sent)
        events = history(api, project).json()["data"]
        got = diff(api, project, events[0]["snapshotId"]).json()
        assert got["action"] == "updated"
        assert got["changes"] == [], sent


def test_diff_of_rename_is_renamed_and_of_tombstone_ends_every_field(api, project):
    base = f"/v1/projects/{project}/services"
    new_service(api, project, {"name": "Orders", "owner": "a"})
    put(api, f"{base}/orders", {"name": "Order Service", "owner": "b"})
    api.delete(f"{base}/order-service")
    deleted, renamed = history(api, project).json()["data"][:2]
    body = diff(api, project, renamed["snapshotId"]).json()
    assert body["action"] == "renamed"
    assert {c["field"] for c in body["changes"]} == {"name", "owner"}
    body = diff(api, project, deleted["snapshotId"]).json()
    assert body["action"] == "deleted"
    assert {c["field"]: c["after"] for c in body["changes"]} == {"name": None, "owner": None}
    assert {c["field"]: c["before"] for c in body["changes"]} == {
        "name": "Order Service",
        "owner": "b",
    }


def test_diff_of_unknown_foreign_or_malformed_snapshot(factory, api, project):
    response = diff(api, project, uuid.uuid4())
    assert response.status_code == 404 and response.json()["code"] == "not_found"
    other = factory.key_client(factory.org("other"))
    foreign_project = new_project(other)
    new_service(other, foreign_project, {"name": "Secret"})
    foreign_event = history(other, foreign_project).json()["data"][0]
    response = diff(api, project, foreign_event["snapshotId"])
    assert response.status_code == 404
    response = diff(api, foreign_project, foreign_event["snapshotId"])
    assert response.json()["code"] == "project_not_found"
    for malformed in ("not-a-uuid", "1", "%00", "x" * 300):
        response = diff(api, project, malformed)
        assert response.status_code == 404 and response.json()["code"] == "not_found"


def test_history_of_foreign_project_is_404(factory, api):
    other = factory.key_client(factory.org("other"))
    foreign = new_project(other)
    response = history(api, foreign)
    assert response.status_code == 404 and response.json()["code"] == "project_not_found"


def test_history_query_count_does_not_grow(api, project, django_assert_max_num_queries):
    for i in range(10):
        new_service(api, project, {"name": f"S{i}"})
    with django_assert_max_num_queries(4):
        assert len(history(api, project, size=100).json()["data"]) == 10


def test_a_topics_flows_with_a_comma_read_as_one_flow_each():
    """ "flows: checkout, EU, returns" read as three flows."""
    from diagrams.history import topic_line

    assert topic_line({"name": "t", "flows": ["checkout, EU", "returns"]}) == (
        "t (flows: “checkout, EU”, “returns”)"
    )
    assert topic_line({"name": "t", "flows": ["a", "b"]}) == "t (flows: a, b)"
