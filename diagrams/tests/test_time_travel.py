"""Time travel (interface §7): any past state reads back by `at`, slugs resolve as of `at`."""

from urllib.parse import quote

import pytest

from diagrams.tests.helpers import new_project, new_service, put


@pytest.fixture
def project(api):
    return new_project(api)


def get(api, path, at=None):
    return api.get(path + (f"?at={quote(at)}" if at else ""))


def test_every_past_state_reads_back_by_its_valid_from(api, project):
    base = f"/v1/projects/{project}/services"
    states = [new_service(api, project, {"name": "Billing", "description": "v1"})]
    for version in range(2, 7):
        states.append(put(api, f"{base}/billing", {"description": f"v{version}"}).json())
    for state in states:
        got = get(api, f"{base}/billing", state["validFrom"]).json()
        assert got["description"] == state["description"]
        assert got["validFrom"] == state["validFrom"]
    # each earlier snapshot ends exactly where the next begins
    for earlier, later in zip(states, states[1:], strict=False):
        got = get(api, f"{base}/billing", earlier["validFrom"]).json()
        assert got["validUntil"] == later["validFrom"]
    assert get(api, f"{base}/billing").json()["validUntil"] is None
    raw = get(api, f"{base}/billing/raw", states[2]["validFrom"]).json()
    assert raw["version"] == 3 and raw["description"] == "v3"


def test_list_at_a_past_time_shows_that_time(api, project):
    base = f"/v1/projects/{project}/services"
    first = new_service(api, project, {"name": "Alpha"})
    new_service(api, project, {"name": "Beta"})
    put(api, f"{base}/alpha", {"owner": "team-x"})
    at_first = [s["name"] for s in get(api, base, first["validFrom"]).json()]
    assert at_first == ["Alpha"]
    now = get(api, base).json()
    assert [s["name"] for s in now] == ["Alpha", "Beta"]
    assert now[0]["owner"] == "team-x"
    assert "owner" not in get(api, base, first["validFrom"]).json()[0]


def test_before_a_service_existed_it_is_404(api, project):
    first = new_service(api, project, {"name": "Alpha"})
    later = new_service(api, project, {"name": "Beta"})
    response = get(api, f"/v1/projects/{project}/services/beta", first["validFrom"])
    assert response.status_code == 404 and response.json()["code"] == "service_not_found"
    assert get(api, f"/v1/projects/{project}/services/beta", later["validFrom"]).status_code == 200


def test_old_slug_resolves_only_before_the_rename(api, project):
    base = f"/v1/projects/{project}/services"
    created = new_service(api, project, {"name": "Order API"})
    renamed = put(api, f"{base}/order-api", {"name": "Order Service"}).json()
    assert renamed["slug"] == "order-service"
    assert get(api, f"{base}/order-api", created["validFrom"]).json()["name"] == "Order API"
    assert get(api, f"{base}/order-api", renamed["validFrom"]).status_code == 404
    assert get(api, f"{base}/order-api").status_code == 404
    assert get(api, f"{base}/order-service", created["validFrom"]).status_code == 404
    assert get(api, f"{base}/order-service").json()["name"] == "Order Service"


def test_deleted_service_reads_back_before_its_deletion(api, project):
    base = f"/v1/projects/{project}/services"
    created = new_service(api, project, {"name": "Legacy", "owner": "old-team"})
    assert api.delete(f"{base}/legacy").status_code == 204
    assert get(api, f"{base}/legacy").status_code == 404
    before = get(api, f"{base}/legacy", created["validFrom"]).json()
    assert before["owner"] == "old-team" and before["validUntil"] is not None
    assert get(api, f"{base}/legacy", before["validUntil"]).status_code == 404
    assert [s["name"] for s in get(api, base, created["validFrom"]).json()] == ["Legacy"]
    assert get(api, base).json() == []


def test_reused_name_has_its_own_history(api, project):
    base = f"/v1/projects/{project}/services"
    old = new_service(api, project, {"name": "Cache", "description": "old"})
    old_raw = get(api, f"{base}/cache/raw").json()
    api.delete(f"{base}/cache")
    new = new_service(api, project, {"name": "Cache", "description": "new"})
    new_raw = get(api, f"{base}/cache/raw").json()
    assert new_raw["serviceId"] != old_raw["serviceId"] and new_raw["version"] == 1
    assert get(api, f"{base}/cache", old["validFrom"]).json()["description"] == "old"
    assert get(api, f"{base}/cache", new["validFrom"]).json()["description"] == "new"


def test_at_without_offset_is_utc_and_offsets_are_honoured(api, project):
    base = f"/v1/projects/{project}/services"
    created = new_service(api, project, {"name": "Alpha"})
    put(api, f"{base}/alpha", {"description": "later"})
    naive = created["validFrom"].rstrip("Z")
    assert get(api, f"{base}/alpha", naive).json()["validFrom"] == created["validFrom"]
    hh, mm = created["validFrom"][11:13], created["validFrom"][14:16]
    shifted_hour = (int(hh) + 2) % 24
    if int(hh) + 2 < 24:  # same calendar day: write the same instant at +02:00
        local = (
            created["validFrom"][:11]
            + f"{shifted_hour:02d}:{mm}"
            + created["validFrom"][16:-1]
            + "+02:00"
        )
        assert get(api, f"{base}/alpha", local).json()["validFrom"] == created["validFrom"]


def test_at_in_the_future_is_the_current_state(api, project):
    new_service(api, project, {"name": "Alpha", "description": "now"})
    got = get(api, f"/v1/projects/{project}/services/alpha", "2999-01-01T00:00:00Z").json()
    assert got["description"] == "now" and got["validUntil"] is None


def test_at_reads_rfc_3339_lower_case_and_an_offset_whose_plus_became_a_space(api, project):
    base = f"/v1/projects/{project}/services"
    created = new_service(api, project, {"name": "Alpha", "description": "first"})
    put(api, f"{base}/alpha", {"description": "later"})
    day, time = created["validFrom"][:10], created["validFrom"][11:-1]  # UTC
    forms = [
        f"{day}t{time}z",  # RFC 3339 5.6: "T" and "Z" may be lower case
        f"{day}T{time}z",
        f"{day} {time}Z",
    ]
    if time[:2] < "22":  # the same instant at +02:00, on the same day
        local = f"{int(time[:2]) + 2:02d}{time[2:]}"
        # an address that did not escape its "+": the query string reads it as a space
        forms += [f"{day}T{local} 02:00", f"{day} {local} 02:00", f"{day} {local} 0200"]
    for at in forms:
        got = get(api, f"{base}/alpha", at)
        assert got.status_code == 200, at
        assert got.json()["validFrom"] == created["validFrom"], at
    # a date and a time with no offset is still UTC, not a time read as an offset
    assert get(api, f"{base}/alpha", f"{day} {time}").json()["description"] == "first"


def test_at_past_either_end_of_the_calendar_is_the_current_state_or_before_any(api, project):
    """9999-12-31 at -14:00 is after the last moment a date-time holds: still a future `at`,
    so the current state (interface §7); 0001-01-01 at +14:00 is before the first: nothing."""
    base = f"/v1/projects/{project}"
    new_service(api, project, {"name": "Alpha", "description": "now"})
    latest, earliest = "9999-12-31T23:59:59-14:00", "0001-01-01T00:00:00+14:00"
    got = get(api, f"{base}/services/alpha", latest)
    assert got.status_code == 200 and got.json()["description"] == "now"
    assert [s["slug"] for s in get(api, f"{base}/services", latest).json()] == ["alpha"]
    assert get(api, f"{base}/services/alpha", earliest).status_code == 404
    assert get(api, f"{base}/services", earliest).json() == []
    for path in ("graph", "graph/mermaid", "entities"):
        assert get(api, f"{base}/{path}", latest).status_code == 200, path
    assert len(get(api, f"{base}/graph", latest).json()["nodes"]) == 1
    assert get(api, f"{base}/graph", earliest).json()["nodes"] == []
    svg = get(api, f"{base}/graph/svg", earliest)
    assert svg.status_code == 200
    # the year 1 in four digits, as in every date-time of a response
    assert "As of 0001-01-01 00:00:00 UTC" in svg.content.decode()


@pytest.mark.parametrize("at", ["garbage", "2024-13-45T00:00:00Z", "", "99999-01-01"])
def test_unparsable_at_is_400(api, project, at):
    new_service(api, project, {"name": "Alpha"})
    for path in ("services", "services/alpha", "services/alpha/raw", "entities"):
        response = api.get(f"/v1/projects/{project}/{path}?at={quote(at)}")
        assert response.status_code == 400, path
        assert response.json()["code"] == "bad_request"


def test_past_state_costs_the_same_queries_as_current(api, project, django_assert_max_num_queries):
    base = f"/v1/projects/{project}/services"
    first = new_service(api, project, {"name": "S0"})
    for i in range(1, 12):
        new_service(api, project, {"name": f"S{i}"})
        put(api, f"{base}/s{i}", {"description": "x"})
    with django_assert_max_num_queries(3):
        assert len(api.get(base).json()) == 12
    with django_assert_max_num_queries(3):
        assert len(get(api, base, first["validFrom"]).json()) == 1
