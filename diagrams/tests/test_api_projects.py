"""Projects over /v1: create, list, read, update, delete and duplicate, as API keys and
members see them; tenancy, permissions, plan limits and the query budget of the list."""

import logging
import re
from datetime import datetime, timedelta

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from accounts.services import api_key_revoke
from diagrams.models import Project
from diagrams.tests.helpers import assert_project_not_found, same_answer

TIMESTAMP_RE = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$")
PROJECT_FIELDS = {
    "id",
    "name",
    "description",
    "archived",
    "pinned",
    "serviceCount",
    "isOwner",
    "createdBy",
    "createdByType",
    "updatedBy",
    "updatedByType",
    "createdAt",
    "updatedAt",
}
PAGE_FIELDS = {"data", "page", "size", "total", "totalPages", "first", "last"}
MISSING_ID = "nothing-here-abcd1234"
MALFORMED_IDS = ["UPPER-case-id1", "a", "x" * 61, "bad_id!", "-leading-hyphen", "trailing-"]
JSON = "application/json"


@pytest.fixture
def roomy_plan(settings):
    """Enough projects on the free plan for tests that need more than three."""
    settings.PLANS = {**settings.PLANS, "free": {"max_projects": 50, "ai_credits": 50}}


# -- helpers ---------------------------------------------------------------------------


def create(
    client: Client, name: str = "Checkout Platform", description: str = "", expected: int = 200
) -> dict:
    response = client.post(
        "/v1/projects", {"name": name, "description": description}, content_type=JSON
    )
    assert response.status_code == expected, response.content
    return response.json()


def put(client: Client, project_id: str, body):
    return client.put(f"/v1/projects/{project_id}", body, content_type=JSON)


def get(client: Client, project_id: str) -> dict:
    response = client.get(f"/v1/projects/{project_id}")
    assert response.status_code == 200, response.content
    return response.json()


def listing(client: Client, query: str = "") -> dict:
    response = client.get(f"/v1/projects{'?' + query if query else ''}")
    assert response.status_code == 200, response.content
    body = response.json()
    assert set(body) == PAGE_FIELDS
    return body


def ids(page: dict) -> list[str]:
    return [project["id"] for project in page["data"]]


def pin(client: Client, project_id: str):
    return client.post("/v1/pinned", {"projectId": project_id}, content_type=JSON)


def duplicate(client: Client, project_id: str):
    """POST .../duplicate with no body at all (the test client's post() would send a
    multipart terminator)."""
    return client.generic("POST", f"/v1/projects/{project_id}/duplicate")


def limits(client: Client) -> dict:
    response = client.get("/v1/limits")
    assert response.status_code == 200
    return response.json()


def member_api(factory, org, email: str, role: str = "member") -> Client:
    """A logged-in member's client that sends the CSRF token on every request."""
    client = factory.member_client(factory.member(org, email=email, role=role))
    assert client.get("/").status_code == 200
    client.defaults["HTTP_X_CSRFTOKEN"] = client.cookies["csrftoken"].value
    return client


def assert_validation(response, fields: list[str]):
    assert response.status_code == 400, response.content
    body = response.json()
    assert body["status"] == 400
    assert body["code"] == "validation_failed"
    assert isinstance(body["message"], str) and body["message"]
    assert sorted(v["field"] for v in body["violations"]) == sorted(fields)
    assert all(isinstance(v["message"], str) and v["message"] for v in body["violations"])


def assert_bad_body(response):
    """Malformed JSON: 400 bad_request with a violation on the body."""
    assert response.status_code == 400, response.content
    body = response.json()
    assert body["status"] == 400
    assert body["code"] == "bad_request"
    assert [v["field"] for v in body["violations"]] == ["body"]


def assert_forbidden(response):
    assert response.status_code == 403, response.content
    body = response.json()
    assert body["status"] == 403 and body["code"] == "forbidden"


def assert_id_shape(project_id: str, slug: str):
    assert re.fullmatch(rf"{re.escape(slug)}-[a-z0-9]{{8}}", project_id), project_id
    assert 8 <= len(project_id) <= 60
    assert re.fullmatch(r"[a-z0-9][a-z0-9-]*[a-z0-9]", project_id)


# -- create ----------------------------------------------------------------------------


def test_create_by_api_key_returns_every_project_field(api):
    project = create(api, "Checkout Platform", "Payments and carts")
    assert set(project) == PROJECT_FIELDS
    assert_id_shape(project["id"], "checkout-platform")
    assert TIMESTAMP_RE.match(project["createdAt"])
    assert project["updatedAt"] == project["createdAt"]
    assert project == {
        "id": project["id"],
        "name": "Checkout Platform",
        "description": "Payments and carts",
        "archived": False,
        "pinned": False,
        "serviceCount": 0,
        "isOwner": True,
        "createdBy": "ci",
        "createdByType": "API_KEY",
        "updatedBy": "ci",
        "updatedByType": "API_KEY",
        "createdAt": project["createdAt"],
        "updatedAt": project["createdAt"],
    }


def test_created_at_is_now_in_utc(api):
    before = timezone.now()
    project = create(api)
    after = timezone.now()
    created = project["createdAt"].replace("Z", "+00:00")
    assert before - timedelta(seconds=1) <= datetime.fromisoformat(created) <= after


def test_create_by_member_records_the_member_email(factory, org):
    client = member_api(factory, org, "ada@example.com")
    project = create(client, "Order Flow", "")
    assert project["createdBy"] == "ada@example.com"
    assert project["createdByType"] == "MEMBER"
    assert project["updatedBy"] == "ada@example.com"
    assert project["updatedByType"] == "MEMBER"
    assert project["isOwner"] is True
    assert TIMESTAMP_RE.match(project["createdAt"]) and TIMESTAMP_RE.match(project["updatedAt"])


def test_created_project_reads_back_identically(api):
    project = create(api, "Inventory", "Stock levels")
    assert get(api, project["id"]) == project


def test_empty_description_is_kept(api):
    project = create(api, "No Description", "")
    assert project["description"] == ""
    assert get(api, project["id"])["description"] == ""


@pytest.mark.parametrize(
    ("name", "slug"),
    [
        ("Checkout Platform", "checkout-platform"),
        ("  Café   Ünïcode!! ", "cafe-unicode"),
        ("API v2 -- (beta)", "api-v2-beta"),
        ("abc", "abc"),
        ("!!!", "project"),
        ("€€€", "project"),
        ("日本語", "project"),
    ],
)
def test_project_id_is_the_slug_of_the_name_and_a_random_suffix(api, name, slug):
    assert_id_shape(create(api, name)["id"], slug)


@pytest.mark.parametrize(
    "name",
    [
        "a" * 60,
        "word " * 11 + "words",
        "a" * 50 + " " + "b" * 9,
        "Z" * 51 + "!" * 9,
    ],
)
def test_sixty_character_name_keeps_the_id_within_sixty(api, name):
    assert len(name) == 60
    project = create(api, name)
    assert project["name"] == name
    assert len(project["id"]) <= 60
    assert re.fullmatch(r"[a-z0-9][a-z0-9-]*-[a-z0-9]{8}", project["id"])
    assert "--" not in project["id"]
    assert get(api, project["id"])["name"] == name


def test_same_name_twice_gives_two_distinct_ids(api):
    first, second = create(api, "Twin"), create(api, "Twin")
    assert first["id"] != second["id"]
    assert listing(api)["total"] == 2


def test_another_key_sees_the_project_but_is_not_its_owner(api, factory, org):
    project = create(api)
    other = factory.key_client(org, "other-key")
    seen = get(other, project["id"])
    assert seen["isOwner"] is False
    assert seen["createdBy"] == "ci" and seen["createdByType"] == "API_KEY"
    assert listing(other)["data"][0]["isOwner"] is False
    assert listing(api)["data"][0]["isOwner"] is True


def test_a_member_is_not_owner_of_a_key_project_and_vice_versa(api, factory, org):
    member = member_api(factory, org, "ada@example.com")
    by_key, by_member = create(api, "By Key"), create(member, "By Member")
    assert get(member, by_key["id"])["isOwner"] is False
    assert get(member, by_member["id"])["isOwner"] is True
    assert get(api, by_member["id"])["isOwner"] is False


# -- create: bad input -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("body", "fields"),
    [
        ({"name": "ab", "description": ""}, ["name"]),
        ({"name": "x" * 61, "description": ""}, ["name"]),
        ({"name": "   ", "description": ""}, ["name"]),
        ({"name": "Fine", "description": "d" * 201}, ["description"]),
        ({"name": "Fine", "description": "", "color": "red"}, ["color"]),
        ({"description": ""}, ["name"]),
        ({"name": "Fine"}, ["description"]),
        ({"name": 123, "description": ""}, ["name"]),
        ({"name": None, "description": ""}, ["name"]),
        ({"name": "Nul\x00Name", "description": ""}, ["name"]),
        ({"name": "Fine", "description": 5}, ["description"]),
        ({"name": "ab", "description": "d" * 201, "extra": 1}, ["name", "description", "extra"]),
        ({}, ["name", "description"]),
    ],
)
def test_create_with_bad_body_is_400_and_creates_nothing(api, body, fields):
    response = api.post("/v1/projects", body, content_type=JSON)
    assert_validation(response, fields)
    assert limits(api)["currentProjects"] == 0
    assert listing(api)["total"] == 0


def test_create_violation_carries_the_rejected_value(api):
    response = api.post("/v1/projects", {"name": "ab", "description": ""}, content_type=JSON)
    assert_validation(response, ["name"])
    assert response.json()["violations"][0]["rejectedValue"] == "ab"


def test_create_boundaries_are_accepted(api):
    project = create(api, "abc", "d" * 200)
    assert project["name"] == "abc" and project["description"] == "d" * 200


def test_create_without_body_is_a_validation_error(api):
    response = api.post("/v1/projects", "", content_type=JSON)
    assert_validation(response, ["name", "description"])
    assert limits(api)["currentProjects"] == 0


@pytest.mark.parametrize("raw", ['{"name": "abc",', "not json", '{"name": "abc"}}'])
def test_create_with_malformed_json_is_bad_request(api, raw):
    assert_bad_body(api.post("/v1/projects", raw, content_type=JSON))
    assert limits(api)["currentProjects"] == 0


@pytest.mark.parametrize(
    "raw, kind",
    [("[]", "an array"), ("null", "null"), ('"text"', "a string"), ("42", "a number")],
)
def test_create_with_a_non_object_body_is_a_violation_on_body(api, raw, kind):
    response = api.post("/v1/projects", raw, content_type=JSON)
    assert_validation(response, ["body"])
    # in JSON's words, not Python's ("Expected a dictionary, but got list.")
    message = response.json()["violations"][0]["message"]
    assert message == f"A JSON object is required, not {kind}."
    assert limits(api)["currentProjects"] == 0


# -- list: query errors ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("query", "param"),
    [
        ("page=-1", "page"),
        ("page=abc", "page"),
        ("page=1.5", "page"),
        ("size=0", "size"),
        ("size=101", "size"),
        ("size=abc", "size"),
        ("pinned=maybe", "pinned"),
        ("archived=x", "archived"),
    ],
)
def test_list_with_invalid_query_parameter_is_bad_request(api, query, param):
    create(api)
    response = api.get(f"/v1/projects?{query}")
    assert response.status_code == 400
    body = response.json()
    assert body["status"] == 400 and body["code"] == "bad_request"
    assert param in body["message"]


def test_list_size_bounds_are_accepted(api):
    create(api)
    assert listing(api, "size=1")["size"] == 1
    assert listing(api, "size=100")["size"] == 100


# -- list: order and paging ------------------------------------------------------------


def test_empty_list_envelope(api):
    assert listing(api) == {
        "data": [],
        "page": 0,
        "size": 20,
        "total": 0,
        "totalPages": 0,
        "first": True,
        "last": True,
    }


def test_list_is_most_recently_updated_first(api):
    a, b, c = create(api, "Alpha"), create(api, "Bravo"), create(api, "Charlie")
    assert ids(listing(api)) == [c["id"], b["id"], a["id"]]
    assert put(api, a["id"], {"description": "touched"}).status_code == 200
    assert ids(listing(api)) == [a["id"], c["id"], b["id"]]


def test_list_orders_equal_update_times_by_id(api, roomy_plan):
    made = [create(api, name)["id"] for name in ("Zulu", "Alpha", "Mike", "Bravo")]
    Project.objects.update(updated_at=timezone.now())
    assert ids(listing(api)) == sorted(made)


def test_list_items_have_the_project_shape_and_no_services(api):
    project = create(api, "Shape", "desc")
    page = listing(api)
    assert page["data"] == [project]
    assert set(page["data"][0]) == PROJECT_FIELDS


def test_list_paging_envelope(api, roomy_plan):
    made = [create(api, f"Project {n}")["id"] for n in range(5)]
    newest_first = list(reversed(made))

    page0 = listing(api, "size=2")
    assert {k: v for k, v in page0.items() if k != "data"} == {
        "page": 0,
        "size": 2,
        "total": 5,
        "totalPages": 3,
        "first": True,
        "last": False,
    }
    assert ids(page0) == newest_first[:2]

    page1 = listing(api, "size=2&page=1")
    assert (page1["page"], page1["first"], page1["last"]) == (1, False, False)
    assert ids(page1) == newest_first[2:4]

    page2 = listing(api, "size=2&page=2")
    assert (page2["page"], page2["first"], page2["last"], page2["totalPages"]) == (
        2,
        False,
        True,
        3,
    )
    assert ids(page2) == newest_first[4:]


def test_page_past_the_end_is_empty_and_last(api):
    create(api), create(api)
    page = listing(api, "page=5&size=2")
    assert page == {
        "data": [],
        "page": 5,
        "size": 2,
        "total": 2,
        "totalPages": 1,
        "first": False,
        "last": True,
    }


def test_exact_multiple_of_size_has_no_extra_page(api, roomy_plan):
    for n in range(4):
        create(api, f"Project {n}")
    assert listing(api, "size=2")["totalPages"] == 2
    assert listing(api, "size=2&page=1")["last"] is True
    assert listing(api, "size=4") | {"data": []} == {
        "data": [],
        "page": 0,
        "size": 4,
        "total": 4,
        "totalPages": 1,
        "first": True,
        "last": True,
    }


def test_walking_with_size_one_visits_every_project_once_in_order(api, roomy_plan):
    for n in range(4):
        create(api, f"Walk {n}")
    expected = ids(listing(api))
    seen = []
    for page_number in range(4):
        page = listing(api, f"size=1&page={page_number}")
        assert page["total"] == 4 and page["totalPages"] == 4
        assert page["first"] is (page_number == 0)
        assert page["last"] is (page_number == 3)
        assert len(page["data"]) == 1
        seen += ids(page)
    assert seen == expected
    assert len(set(seen)) == 4


def test_default_page_size_is_twenty(api, roomy_plan):
    for n in range(21):
        create(api, f"Many {n}")
    page = listing(api)
    assert (page["size"], len(page["data"]), page["total"], page["totalPages"], page["last"]) == (
        20,
        20,
        21,
        2,
        False,
    )
    assert len(listing(api, "page=1")["data"]) == 1


# -- list: filters ---------------------------------------------------------------------


def test_archived_filter(api, roomy_plan):
    live, old = create(api, "Live"), create(api, "Old")
    put(api, old["id"], {"archived": True})
    assert ids(listing(api, "archived=true")) == [old["id"]]
    assert ids(listing(api, "archived=false")) == [live["id"]]
    assert listing(api, "archived=true")["total"] == 1
    assert listing(api)["total"] == 2


def test_pinned_filter_is_for_the_caller(api, factory, org):
    a, b = create(api, "Pinned One"), create(api, "Loose One")
    assert pin(api, a["id"]).status_code == 200
    page = listing(api, "pinned=true")
    assert ids(page) == [a["id"]] and page["total"] == 1
    assert page["data"][0]["pinned"] is True
    assert ids(listing(api, "pinned=false")) == [b["id"]]
    assert get(api, a["id"])["pinned"] is True and get(api, b["id"])["pinned"] is False

    other = factory.key_client(org, "other")
    assert listing(other, "pinned=true")["total"] == 0
    assert get(other, a["id"])["pinned"] is False
    assert set(ids(listing(other, "pinned=false"))) == {a["id"], b["id"]}


def test_member_pins_are_their_own(api, factory, org):
    project = create(api)
    member = member_api(factory, org, "ada@example.com")
    assert pin(member, project["id"]).status_code == 200
    assert listing(member, "pinned=true")["data"][0]["pinned"] is True
    assert listing(api, "pinned=true")["total"] == 0


def test_created_by_filter_matches_member_email_and_key_name(api, factory, org):
    member = member_api(factory, org, "ada@example.com")
    by_key, by_member = create(api, "By Key"), create(member, "By Member")
    assert ids(listing(api, "createdBy=ci")) == [by_key["id"]]
    assert ids(listing(api, "createdBy=ada@example.com")) == [by_member["id"]]
    assert ids(listing(member, "createdBy=ada%40example.com")) == [by_member["id"]]
    assert listing(api, "createdBy=nobody@example.com")["total"] == 0
    # empty, as `?createdBy=$AUTHOR` sends it with the variable unset: no filter, as an empty
    # query is (it had matched nothing, and a script saw an organization without projects)
    assert set(ids(listing(api, "createdBy="))) == {by_key["id"], by_member["id"]}


def test_query_filter_is_a_case_insensitive_partial_match_on_the_name(api, roomy_plan):
    checkout = create(api, "Checkout Platform", "")
    create(api, "Inventory", "platform in the description only")
    plat = create(api, "platform tools", "")
    assert set(ids(listing(api, "query=PLAT"))) == {checkout["id"], plat["id"]}
    assert ids(listing(api, "query=kout%20p")) == [checkout["id"]]
    assert listing(api, "query=plat")["total"] == 2
    assert listing(api, "query=nothing-like-it")["total"] == 0


def test_query_ignores_case_beyond_ascii(api, roomy_plan):
    """SQLite's LIKE folded ASCII letters only: "ünï" missed "Ünïcödé Prøject"."""
    project = create(api, "Ünïcödé Prøject", "")
    create(api, "Plain", "")
    for query in ("ünï", "ÜNÏ", "prøject", "PRØJECT", "cödé%20p"):
        assert ids(listing(api, f"query={query}")) == [project["id"]], query
    assert listing(api, "query=ünïx")["total"] == 0


@pytest.mark.parametrize(
    ("query", "names"),
    [
        ("%25", ["100% Uptime"]),
        ("_", []),
        ("%25%25", []),
    ],
)
def test_query_wildcard_characters_match_literally(api, query, names):
    create(api, "Plain Name")
    create(api, "100% Uptime")
    assert [p["name"] for p in listing(api, f"query={query}")["data"]] == names


def test_filters_combine(api, factory, org, roomy_plan):
    member = member_api(factory, org, "ada@example.com")
    match = create(api, "Billing Core")
    archived = create(api, "Billing Legacy")
    put(api, archived["id"], {"archived": True})
    create(member, "Billing By Ada")
    create(api, "Search")
    pinned = create(api, "Billing Pinned")
    pin(api, pinned["id"])

    page = listing(api, "query=billing&archived=false&createdBy=ci")
    assert set(ids(page)) == {match["id"], pinned["id"]} and page["total"] == 2
    page = listing(api, "query=billing&archived=false&createdBy=ci&pinned=false")
    assert ids(page) == [match["id"]] and page["total"] == 1
    page = listing(api, "query=BILLING&archived=true&createdBy=ci")
    assert ids(page) == [archived["id"]]
    assert listing(api, "query=billing&createdBy=ada@example.com&archived=true")["total"] == 0
    page = listing(api, "query=billing&size=1&page=1")
    assert page["total"] == 4 and page["totalPages"] == 4 and len(page["data"]) == 1


# -- get -------------------------------------------------------------------------------


def test_get_missing_project_is_404(api):
    assert_project_not_found(api.get(f"/v1/projects/{MISSING_ID}"))


# -- update ----------------------------------------------------------------------------


def test_partial_update_leaves_omitted_fields_unchanged(api):
    project = create(api, "Original", "Keep me")
    response = put(api, project["id"], {"name": "Renamed"})
    assert response.status_code == 200
    updated = response.json()
    assert updated["name"] == "Renamed"
    assert updated["id"] == project["id"]
    assert updated["description"] == "Keep me" and updated["archived"] is False
    assert get(api, project["id"]) == updated

    updated = put(api, project["id"], {"description": ""}).json()
    assert (updated["name"], updated["description"]) == ("Renamed", "")


def test_archive_then_unarchive(api):
    project = create(api, "Cycle", "desc")
    archived = put(api, project["id"], {"archived": True}).json()
    assert archived["archived"] is True
    assert get(api, project["id"])["archived"] is True
    assert (archived["name"], archived["description"]) == ("Cycle", "desc")
    restored = put(api, project["id"], {"archived": False}).json()
    assert restored["archived"] is False
    assert restored["updatedAt"] > archived["updatedAt"]
    assert get(api, project["id"])["archived"] is False


def test_update_moves_updated_at_and_records_the_updater(api, factory, org):
    project = create(api, "Tracked")
    admin = member_api(factory, org, "boss@example.com", role="admin")
    updated = put(admin, project["id"], {"archived": True}).json()
    assert TIMESTAMP_RE.match(updated["updatedAt"])
    assert updated["updatedAt"] > project["updatedAt"]
    assert updated["createdAt"] == project["createdAt"]
    assert (updated["updatedBy"], updated["updatedByType"]) == ("boss@example.com", "MEMBER")
    assert (updated["createdBy"], updated["createdByType"]) == ("ci", "API_KEY")
    assert updated["isOwner"] is False

    manager = factory.key_client(org, "manager", ["projects:manage"])
    again = put(manager, project["id"], {"name": "Tracked Again"}).json()
    assert (again["updatedBy"], again["updatedByType"]) == ("manager", "API_KEY")
    assert again["updatedAt"] > updated["updatedAt"]


@pytest.mark.parametrize(
    "body",
    [
        {},
        {"name": "Steady"},
        {"description": "same"},
        {"archived": False},
        {"name": "Steady", "description": "same", "archived": False},
    ],
)
def test_update_that_changes_nothing_keeps_updated_at_and_updater(api, factory, org, body):
    project = create(api, "Steady", "same")
    manager = factory.key_client(org, "manager", ["projects:manage"])
    response = put(manager, project["id"], body)
    assert response.status_code == 200
    unchanged = response.json()
    assert unchanged["updatedAt"] == project["updatedAt"]
    assert (unchanged["updatedBy"], unchanged["updatedByType"]) == ("ci", "API_KEY")
    assert get(api, project["id"]) == project


def test_update_of_missing_project_is_404(api):
    assert_project_not_found(put(api, MISSING_ID, {"name": "Whatever"}))


# -- update: bad input -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("body", "fields"),
    [
        ({"name": "ab"}, ["name"]),
        ({"name": "x" * 61}, ["name"]),
        ({"name": 123}, ["name"]),
        ({"name": None}, ["name"]),
        ({"description": "d" * 201}, ["description"]),
        ({"archived": "yes"}, ["archived"]),
        ({"archived": 1}, ["archived"]),
        ({"archived": None}, ["archived"]),
        ({"owner": "me"}, ["owner"]),
        ({"id": "other-id-12345678"}, ["id"]),
        ({"name": "Good Name", "archived": "true"}, ["archived"]),
        (
            {"name": "ab", "description": "d" * 201, "archived": "no"},
            ["name", "description", "archived"],
        ),
    ],
)
def test_update_with_bad_body_is_400_and_changes_nothing(api, body, fields):
    project = create(api, "Untouched", "as is")
    assert_validation(put(api, project["id"], body), fields)
    assert get(api, project["id"]) == project


def test_update_without_body_is_a_violation_on_body(api):
    project = create(api, "Untouched")
    response = api.put(f"/v1/projects/{project['id']}")
    assert_validation(response, ["body"])
    assert_validation(api.put(f"/v1/projects/{project['id']}", "", content_type=JSON), ["body"])
    assert get(api, project["id"]) == project


@pytest.mark.parametrize("raw", ["[]", "null"])
def test_update_with_non_object_body_is_a_violation_on_body(api, raw):
    project = create(api, "Untouched")
    assert_validation(api.put(f"/v1/projects/{project['id']}", raw, content_type=JSON), ["body"])
    assert get(api, project["id"]) == project


def test_update_with_malformed_json_is_bad_request(api):
    project = create(api, "Untouched")
    assert_bad_body(api.put(f"/v1/projects/{project['id']}", '{"name": "New', content_type=JSON))
    assert get(api, project["id"]) == project


# -- permissions -----------------------------------------------------------------------


def test_member_cannot_update_or_delete_a_project_created_by_someone_else(api, factory, org):
    by_key = create(api, "Key Project")
    colleague = member_api(factory, org, "colleague@example.com")
    by_colleague = create(colleague, "Colleague Project")
    member = member_api(factory, org, "ada@example.com")
    for project in (by_key, by_colleague):
        before = get(api, project["id"])
        assert_forbidden(put(member, project["id"], {"name": "Hijacked"}))
        # a body the member may not send anyway is refused for who sends it, not for what
        assert_forbidden(put(member, project["id"], {"name": "", "bogus": 1}))
        assert_forbidden(member.delete(f"/v1/projects/{project['id']}"))
        assert get(api, project["id"]) == before
    assert limits(api)["currentProjects"] == 2


def test_member_can_update_and_delete_their_own_project(factory, org):
    member = member_api(factory, org, "ada@example.com")
    project = create(member, "Mine")
    response = put(member, project["id"], {"name": "Still Mine", "archived": True})
    assert response.status_code == 200
    assert response.json()["name"] == "Still Mine" and response.json()["archived"] is True
    assert member.delete(f"/v1/projects/{project['id']}").status_code == 204
    assert_project_not_found(member.get(f"/v1/projects/{project['id']}"))


def test_admin_member_can_update_and_delete_anyones_project(api, factory, org):
    by_key = create(api, "Key Project")
    by_member = create(member_api(factory, org, "colleague@example.com"), "Member Project")
    admin = member_api(factory, org, "boss@example.com", role="admin")
    for project in (by_key, by_member):
        response = put(admin, project["id"], {"description": "reviewed"})
        assert response.status_code == 200
        assert response.json()["description"] == "reviewed"
        assert admin.delete(f"/v1/projects/{project['id']}").status_code == 204
        assert_project_not_found(api.get(f"/v1/projects/{project['id']}"))


def test_key_without_manage_permission_cannot_change_another_actors_project(api, factory, org):
    by_key = create(api, "Key Project")
    by_member = create(member_api(factory, org, "ada@example.com"), "Member Project")
    plain = factory.key_client(org, "plain")
    for project in (by_key, by_member):
        before = get(api, project["id"])
        assert_forbidden(put(plain, project["id"], {"archived": True}))
        assert_forbidden(plain.delete(f"/v1/projects/{project['id']}"))
        assert get(api, project["id"]) == before


def test_key_without_manage_permission_can_change_its_own_project(api):
    project = create(api, "Own Project")
    assert put(api, project["id"], {"archived": True}).json()["archived"] is True
    assert api.delete(f"/v1/projects/{project['id']}").status_code == 204
    assert limits(api)["currentProjects"] == 0


def test_key_with_manage_permission_can_change_any_project(api, factory, org):
    by_key = create(api, "Key Project")
    by_member = create(member_api(factory, org, "ada@example.com"), "Member Project")
    manager = factory.key_client(org, "manager", ["projects:manage"])
    for project in (by_key, by_member):
        response = put(manager, project["id"], {"name": "Managed"})
        assert response.status_code == 200 and response.json()["name"] == "Managed"
        assert manager.delete(f"/v1/projects/{project['id']}").status_code == 204
    assert limits(api)["currentProjects"] == 0


def test_key_with_only_billing_permission_cannot_change_another_actors_project(api, factory, org):
    project = create(api)
    billing = factory.key_client(org, "billing", ["billing:manage"])
    assert_forbidden(put(billing, project["id"], {"name": "Nope"}))
    assert_forbidden(billing.delete(f"/v1/projects/{project['id']}"))


def test_new_key_reusing_a_revoked_keys_name_does_not_own_its_projects(api, factory, org):
    project = create(api, "Legacy")
    assert api_key_revoke(organization=org, name="ci") == 1
    successor = factory.key_client(org, "ci")
    seen = get(successor, project["id"])
    assert seen["isOwner"] is False and seen["createdBy"] == "ci"
    assert_forbidden(put(successor, project["id"], {"name": "Mine Now"}))
    assert_forbidden(successor.delete(f"/v1/projects/{project['id']}"))
    assert get(successor, project["id"])["name"] == "Legacy"


def test_member_may_read_duplicate_and_pin_anyones_project(api, factory, org):
    project = create(api, "Shared")
    member = member_api(factory, org, "ada@example.com")
    assert get(member, project["id"])["name"] == "Shared"
    assert pin(member, project["id"]).status_code == 200
    copy = duplicate(member, project["id"])
    assert copy.status_code == 200
    assert copy.json()["createdBy"] == "ada@example.com" and copy.json()["isOwner"] is True


def test_member_write_without_csrf_token_is_forbidden(api, factory, org):
    member = factory.member_client(factory.member(org, email="ada@example.com"))
    response = member.post("/v1/projects", {"name": "Sneaky", "description": ""}, content_type=JSON)
    assert_forbidden(response)
    own = create(member_api(factory, org, "bob@example.com"), "Bob's")
    assert_forbidden(member.delete(f"/v1/projects/{own['id']}"))
    assert limits(api)["currentProjects"] == 1


# -- tenancy ---------------------------------------------------------------------------


@pytest.fixture
def foreign_project(factory) -> dict:
    other = factory.org("globex")
    return create(
        factory.key_client(other, "globex-ci", ["projects:manage"]), "Globex Secret", "theirs"
    )


def _attempt(client: Client, action: str, project_id: str):
    if action == "get":
        return client.get(f"/v1/projects/{project_id}")
    if action == "put":
        return put(client, project_id, {"name": "Taken Over"})
    if action == "delete":
        return client.delete(f"/v1/projects/{project_id}")
    if action == "duplicate":
        return duplicate(client, project_id)
    return pin(client, project_id)


@pytest.mark.parametrize("action", ["get", "put", "delete", "duplicate", "pin"])
def test_another_organizations_project_is_indistinguishable_from_a_missing_one(
    factory, org, foreign_project, action
):
    manager = factory.key_client(org, "manager", ["projects:manage"])
    foreign = _attempt(manager, action, foreign_project["id"])
    missing = _attempt(manager, action, MISSING_ID)
    assert_project_not_found(foreign)
    assert same_answer(foreign, missing, foreign_project["id"], MISSING_ID)
    assert limits(manager)["currentProjects"] == 0
    assert manager.get("/v1/pinned").json() == []


def test_foreign_project_is_untouched_by_attempts(factory, org, foreign_project):
    admin = member_api(factory, org, "boss@example.com", role="admin")
    manager = factory.key_client(org, "manager", ["projects:manage"])
    for client in (admin, manager):
        for action in ("put", "delete", "duplicate", "pin"):
            assert_project_not_found(_attempt(client, action, foreign_project["id"]))
    globex = Project.objects.get(pk=foreign_project["id"]).organization
    theirs = factory.key_client(globex, "globex-reader")
    seen = get(theirs, foreign_project["id"])
    assert {k: seen[k] for k in ("name", "description", "archived", "updatedAt")} == {
        "name": "Globex Secret",
        "description": "theirs",
        "archived": False,
        "updatedAt": foreign_project["updatedAt"],
    }
    assert limits(theirs)["currentProjects"] == 1


def test_list_shows_only_the_callers_organization(api, foreign_project):
    mine = create(api, "Mine")
    page = listing(api)
    assert ids(page) == [mine["id"]] and page["total"] == 1
    assert listing(api, "query=globex")["total"] == 0
    assert listing(api, "createdBy=globex-ci")["total"] == 0


def test_member_write_on_a_foreign_project_is_404_not_403(factory, org, foreign_project):
    member = member_api(factory, org, "ada@example.com")
    assert_project_not_found(put(member, foreign_project["id"], {"name": "Mine Now"}))
    assert_project_not_found(member.delete(f"/v1/projects/{foreign_project['id']}"))
    plain = factory.key_client(org, "plain")
    assert_project_not_found(put(plain, foreign_project["id"], {"archived": True}))
    assert_project_not_found(plain.delete(f"/v1/projects/{foreign_project['id']}"))


def test_missing_project_is_404_before_the_body_is_validated(api, foreign_project):
    assert_project_not_found(put(api, foreign_project["id"], {"name": "ab"}))
    assert_project_not_found(api.put(f"/v1/projects/{MISSING_ID}"))
    assert_project_not_found(
        api.post(f"/v1/projects/{MISSING_ID}/duplicate", {"name": "x"}, content_type=JSON)
    )


@pytest.mark.parametrize("project_id", MALFORMED_IDS)
@pytest.mark.parametrize("action", ["get", "put", "delete", "duplicate"])
def test_malformed_project_id_is_project_not_found(factory, org, action, project_id):
    manager = factory.key_client(org, "manager", ["projects:manage"])
    assert_project_not_found(_attempt(manager, action, project_id))


# -- delete ----------------------------------------------------------------------------


def test_delete_is_204_with_empty_body_and_the_project_is_gone(api):
    keep, doomed = create(api, "Keep"), create(api, "Doomed")
    assert pin(api, doomed["id"]).status_code == 200
    assert pin(api, keep["id"]).status_code == 200
    assert limits(api)["currentProjects"] == 2

    response = api.delete(f"/v1/projects/{doomed['id']}")
    assert response.status_code == 204
    assert response.content == b""

    assert_project_not_found(api.get(f"/v1/projects/{doomed['id']}"))
    assert [p["projectId"] for p in api.get("/v1/pinned").json()] == [keep["id"]]
    assert limits(api)["currentProjects"] == 1
    assert ids(listing(api)) == [keep["id"]]
    assert_project_not_found(api.delete(f"/v1/projects/{doomed['id']}"))


def test_a_deleted_project_leaves_a_line_saying_who_deleted_what(api, caplog):
    """Nothing of a deleted project is left to look at: support's "who deleted it, and
    when?" is answered from the log."""
    doomed = create(api, "Doomed")
    for name in ("Checkout", "Billing"):
        api.post(
            f"/v1/projects/{doomed['id']}/services", {"name": name}, content_type="application/json"
        )
    with caplog.at_level(logging.INFO, logger="archsvc.projects"):
        assert api.delete(f"/v1/projects/{doomed['id']}").status_code == 204
    [line] = [r.getMessage() for r in caplog.records if r.name == "archsvc.projects"]
    assert line.startswith(f"project deleted: {doomed['id']} ('Doomed') of ")
    assert "2 services, 2 changes in its history, by " in line and "(key:" in line


def test_delete_removes_every_actors_pins(api, factory, org):
    project = create(api)
    member = member_api(factory, org, "ada@example.com")
    assert pin(member, project["id"]).status_code == 200
    assert api.delete(f"/v1/projects/{project['id']}").status_code == 204
    assert member.get("/v1/pinned").json() == []
    assert listing(member, "pinned=true")["total"] == 0


def test_deleting_a_missing_project_is_404(api):
    assert_project_not_found(api.delete(f"/v1/projects/{MISSING_ID}"))


# -- plan limit ------------------------------------------------------------------------


def assert_limit_reached(response):
    assert response.status_code == 402, response.content
    body = response.json()
    assert body["status"] == 402 and body["code"] == "project_limit_reached"
    assert body["message"] == "The free plan allows 3 projects."
    # what a script can do: archiving frees nothing (interface §4)
    assert body["details"] == (
        "This organization has 3 (archived ones count too): delete one it no longer needs, "
        "or move to a bigger plan. GET /v1/limits gives the numbers."
    )


def test_over_the_limit_the_refusal_counts_what_to_delete_and_the_biggest_plan_no_bigger(
    api, org, settings
):
    """After a move to a smaller plan one deletion is not enough; on the biggest plan there
    is no bigger plan to move to."""
    settings.PLANS = {**settings.PLANS, "free": {**settings.PLANS["free"], "max_projects": 9}}
    for index in range(5):
        create(api, f"Project {index}")
    settings.PLANS = {**settings.PLANS, "free": {**settings.PLANS["free"], "max_projects": 3}}
    body = api.post(
        "/v1/projects", {"name": "More", "description": ""}, content_type="application/json"
    ).json()
    assert body["details"].startswith(
        "This organization has 5 (archived ones count too): delete 3 it no longer needs, "
        "or move to a bigger plan."
    )
    settings.PLANS = {
        name: {**limits, "max_projects": 5} for name, limits in settings.PLANS.items()
    }
    body = api.post(
        "/v1/projects", {"name": "More", "description": ""}, content_type="application/json"
    ).json()
    assert body["details"] == (
        "This organization has 5 (archived ones count too): delete one it no longer needs. "
        "GET /v1/limits gives the numbers."
    )


def test_fourth_project_on_the_free_plan_is_402_and_creates_nothing(api):
    assert limits(api) == {"currentProjects": 0, "maxProjects": 3}
    for n in range(3):
        create(api, f"Project {n}")
    assert limits(api) == {"currentProjects": 3, "maxProjects": 3}
    response = api.post(
        "/v1/projects", {"name": "One Too Many", "description": ""}, content_type=JSON
    )
    assert_limit_reached(response)
    assert limits(api) == {"currentProjects": 3, "maxProjects": 3}
    assert listing(api, "query=too%20many")["total"] == 0
    assert listing(api)["total"] == 3


def test_archived_projects_count_towards_the_limit(api):
    made = [create(api, f"Project {n}") for n in range(3)]
    for project in made:
        assert put(api, project["id"], {"archived": True}).status_code == 200
    assert limits(api)["currentProjects"] == 3
    assert_limit_reached(
        api.post("/v1/projects", {"name": "More", "description": ""}, content_type=JSON)
    )


def test_duplicate_past_the_limit_is_402_and_creates_nothing(api):
    source = [create(api, f"Project {n}") for n in range(3)][0]
    assert_limit_reached(duplicate(api, source["id"]))
    assert_limit_reached(
        api.post(f"/v1/projects/{source['id']}/duplicate", {"name": "Copy"}, content_type=JSON)
    )
    assert limits(api)["currentProjects"] == 3
    assert listing(api)["total"] == 3


def test_deleting_frees_a_slot(api):
    made = [create(api, f"Project {n}") for n in range(3)]
    assert api.delete(f"/v1/projects/{made[0]['id']}").status_code == 204
    create(api, "Fits Again")
    assert limits(api)["currentProjects"] == 3


def test_limit_counts_projects_of_every_actor_in_the_organization(api, factory, org):
    create(api, "By Key")
    create(member_api(factory, org, "ada@example.com"), "By Ada")
    create(factory.key_client(org, "other"), "By Other")
    assert_limit_reached(
        api.post("/v1/projects", {"name": "Fourth", "description": ""}, content_type=JSON)
    )


def test_limit_is_per_organization(api, factory):
    other = factory.key_client(factory.org("globex"), "globex-ci")
    for n in range(3):
        create(other, f"Theirs {n}")
    create(api, "Mine")
    assert limits(api) == {"currentProjects": 1, "maxProjects": 3}


def test_plan_limit_follows_settings(api, roomy_plan):
    for n in range(4):
        create(api, f"Project {n}")
    assert limits(api) == {"currentProjects": 4, "maxProjects": 50}


# -- duplicate -------------------------------------------------------------------------


def test_duplicate_without_body_copies_name_and_description(api, factory, org):
    source = create(api, "Original", "the description")
    caller = factory.key_client(org, "copier")
    response = duplicate(caller, source["id"])
    assert response.status_code == 200
    copy = response.json()
    assert set(copy) == PROJECT_FIELDS
    assert copy["id"] != source["id"]
    assert_id_shape(copy["id"], "original")
    assert copy["name"] == "Original" and copy["description"] == "the description"
    assert copy["isOwner"] is True
    assert (copy["createdBy"], copy["createdByType"]) == ("copier", "API_KEY")
    assert (copy["updatedBy"], copy["updatedByType"]) == ("copier", "API_KEY")
    assert copy["archived"] is False and copy["pinned"] is False
    assert copy["serviceCount"] == 0
    assert TIMESTAMP_RE.match(copy["createdAt"]) and copy["createdAt"] > source["createdAt"]
    assert get(caller, copy["id"]) == copy
    assert get(api, source["id"]) == source | {"isOwner": True}
    assert ids(listing(api))[0] == copy["id"]
    assert limits(api)["currentProjects"] == 2


def test_duplicate_with_empty_json_body_or_empty_object_keeps_the_name(api, roomy_plan):
    source = create(api, "Original")
    for body in ("", "{}"):
        response = api.post(f"/v1/projects/{source['id']}/duplicate", body, content_type=JSON)
        assert response.status_code == 200, response.content
        assert response.json()["name"] == "Original"


def test_duplicate_with_a_name(api):
    source = create(api, "Original", "desc")
    response = api.post(
        f"/v1/projects/{source['id']}/duplicate", {"name": "Copy"}, content_type=JSON
    )
    assert response.status_code == 200
    copy = response.json()
    assert copy["name"] == "Copy"
    assert_id_shape(copy["id"], "copy")
    assert get(api, source["id"])["name"] == "Original"


def test_duplicate_by_member_is_owned_by_the_member(api, factory, org):
    source = create(api)
    member = member_api(factory, org, "ada@example.com")
    copy = duplicate(member, source["id"]).json()
    assert (copy["createdBy"], copy["createdByType"], copy["isOwner"]) == (
        "ada@example.com",
        "MEMBER",
        True,
    )
    assert put(member, copy["id"], {"name": "Ada's Copy"}).status_code == 200


def test_copy_of_an_archived_pinned_project_is_neither(api):
    source = create(api, "Old Favourite")
    put(api, source["id"], {"archived": True})
    assert pin(api, source["id"]).status_code == 200
    copy = duplicate(api, source["id"]).json()
    assert copy["archived"] is False and copy["pinned"] is False
    assert get(api, copy["id"])["pinned"] is False
    assert [p["projectId"] for p in api.get("/v1/pinned").json()] == [source["id"]]
    still = get(api, source["id"])
    assert still["archived"] is True and still["pinned"] is True


@pytest.mark.parametrize(
    ("body", "fields"),
    [
        ({"name": "ab"}, ["name"]),
        ({"name": "x" * 61}, ["name"]),
        ({"name": 123}, ["name"]),
        ({"description": "copied"}, ["description"]),
        ({"name": "Fine", "archived": True}, ["archived"]),
    ],
)
def test_duplicate_with_bad_body_is_400_and_creates_nothing(api, body, fields):
    source = create(api)
    assert_validation(
        api.post(f"/v1/projects/{source['id']}/duplicate", body, content_type=JSON), fields
    )
    assert limits(api)["currentProjects"] == 1


def test_duplicate_with_malformed_json_is_bad_request(api):
    source = create(api)
    assert_bad_body(api.post(f"/v1/projects/{source['id']}/duplicate", "{nope", content_type=JSON))
    assert limits(api)["currentProjects"] == 1


# -- query budget ----------------------------------------------------------------------


def _list_queries(client: Client) -> tuple[int, dict]:
    with CaptureQueriesContext(connection) as captured:
        page = listing(client, "size=100")
    return len(captured), page


def test_list_runs_a_constant_number_of_queries(
    api, factory, org, roomy_plan, django_assert_max_num_queries
):
    for n in range(3):
        pin(api, create(api, f"Small {n}")["id"])
    with django_assert_max_num_queries(4):
        few, page = _list_queries(api)
    assert page["total"] == 3

    for n in range(17):
        project = create(
            member_api(factory, org, f"m{n}@example.com") if n < 2 else api, f"Large {n}"
        )
        pin(api, project["id"])
    with django_assert_max_num_queries(4):
        many, page = _list_queries(api)
    assert page["total"] == 20 and all(p["pinned"] for p in page["data"])
    assert many == few


def test_get_one_project_runs_few_queries(api, django_assert_max_num_queries):
    project = create(api)
    pin(api, project["id"])
    with django_assert_max_num_queries(3):
        assert get(api, project["id"])["pinned"] is True


# -- Idempotency-Key (an extension: archsvc/api/idempotency.py) ------------------------------


def keyed(client: Client, path: str, key: str, body: dict | None = None):
    return client.post(path, body or {}, content_type=JSON, headers={"Idempotency-Key": key})


def test_a_retried_create_with_its_key_answers_the_first_project(api, factory, org):
    """A CI job that retries after a timeout made a second project, a third of the free
    plan's, and could not tell; with the same key it gets the first one back."""
    body = {"name": "Nightly sync", "description": "from CI"}
    first = keyed(api, "/v1/projects", "run-4711", body)
    assert first.status_code == 200 and "Idempotent-Replayed" not in first
    again = keyed(
        api, "/v1/projects", "run-4711", {"description": "from CI", "name": "Nightly sync"}
    )
    assert again.status_code == 200 and again["Idempotent-Replayed"] == "true"
    assert again.json()["id"] == first.json()["id"]
    assert Project.objects.count() == 1 and limits(api)["currentProjects"] == 1
    # the same key for another request is a mistake, said; a new key is a new project
    other = keyed(api, "/v1/projects", "run-4711", {"name": "Other", "description": ""})
    assert other.status_code == 400 and "Idempotency-Key" in other.json()["message"]
    assert keyed(api, "/v1/projects", "run-4712", body).json()["id"] != first.json()["id"]
    # keys are the organization's: another one's same key makes its own project
    elsewhere = factory.key_client(factory.org("globex"), "ci")
    theirs = keyed(elsewhere, "/v1/projects", "run-4711", body)
    assert theirs.status_code == 200 and theirs.json()["id"] != first.json()["id"]
    # without the header nothing changes: each POST is a project
    create(api, "Nightly sync")
    assert Project.objects.filter(organization=org).count() == 3


def test_a_keyed_request_that_failed_is_tried_anew_and_a_deleted_one_is_404(api):
    refused = keyed(api, "/v1/projects", "k1", {"name": "x", "description": ""})
    assert refused.status_code == 400  # too short a name: no trace kept
    made = keyed(api, "/v1/projects", "k1", {"name": "xyz", "description": ""})
    assert made.status_code == 200 and "Idempotent-Replayed" not in made
    api.delete(f"/v1/projects/{made.json()['id']}")
    gone = keyed(api, "/v1/projects", "k1", {"name": "xyz", "description": ""})
    assert gone.status_code == 404 and Project.objects.count() == 0


def test_a_retried_duplicate_with_its_key_answers_the_first_copy(api):
    source = create(api, "Source")["id"]
    path = f"/v1/projects/{source}/duplicate"
    first = keyed(api, path, "dup-1")
    again = keyed(api, path, "dup-1")
    assert first.status_code == again.status_code == 200
    assert again.json()["id"] == first.json()["id"] and Project.objects.count() == 2


@pytest.mark.parametrize("key", ["", " ", "x" * 256, "naïve", "a\tb"])
def test_an_idempotency_key_that_is_no_key_is_400_and_makes_nothing(api, key):
    response = api.post(
        "/v1/projects",
        {"name": "Keyed", "description": ""},
        content_type=JSON,
        headers={"Idempotency-Key": key},
    )
    assert response.status_code == 400
    assert response.json()["message"].startswith("Idempotency-Key must be 1 to 255")
    assert Project.objects.count() == 0
