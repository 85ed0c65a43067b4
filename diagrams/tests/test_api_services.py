"""Services over /v1: create, list, read, partial update, rename, delete and raw reads, as an
API key sees them; slugs and name conflicts, tenancy, the project's bookkeeping, duplicates,
every input limit at its edge and past it, and the query budget of the reads.
(Time travel, history, diffs, entities and concurrency are tested elsewhere.)"""

import hashlib
import re
import uuid

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

from diagrams.tests.helpers import assert_project_not_found, same_answer

JSON = "application/json"
TIMESTAMP_RE = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$")
MISSING_ID = "nothing-here-abcd1234"
MALFORMED_IDS = ["UPPER-case-id1", "bad_id!", "short", "trailing-hyphen-"]
SERVICE_FIELDS_ALWAYS = {
    "slug",
    "name",
    "flows",
    "consumes",
    "produces",
    "extras",
    "createdBy",
    "createdByType",
    "createdAt",
    "updatedBy",
    "updatedByType",
    "updatedAt",
    "validFrom",
    "validUntil",
}
RAW_FIELDS = {
    "snapshotId",
    "serviceId",
    "projectId",
    "version",
    "deleted",
    "slug",
    "name",
    "description",
    "category",
    "owner",
    "flows",
    "consumes",
    "produces",
    "extras",
    "createdBy",
    "createdByType",
    "createdAt",
    "updatedBy",
    "updatedByType",
    "validFrom",
    "validUntil",
}
# What a snapshot carries about the service itself, not who wrote it or when.
CONTENT_FIELDS = (
    "slug",
    "name",
    "description",
    "category",
    "owner",
    "flows",
    "consumes",
    "produces",
    "extras",
)


# -- helpers ---------------------------------------------------------------------------


def new_project(client: Client, name: str = "Checkout Platform") -> str:
    response = client.post("/v1/projects", {"name": name, "description": ""}, content_type=JSON)
    assert response.status_code == 200, response.content
    return response.json()["id"]


def services_url(project_id: str) -> str:
    return f"/v1/projects/{project_id}/services"


def service_url(project_id: str, slug: str) -> str:
    return f"/v1/projects/{project_id}/services/{slug}"


def post_service(client: Client, project_id: str, body):
    return client.post(services_url(project_id), body, content_type=JSON)


def create_service(client: Client, project_id: str, body) -> dict:
    if isinstance(body, str):
        body = {"name": body}
    response = post_service(client, project_id, body)
    assert response.status_code == 200, response.content
    return response.json()


def put_service(client: Client, project_id: str, slug: str, body):
    return client.put(service_url(project_id, slug), body, content_type=JSON)


def get_service(client: Client, project_id: str, slug: str) -> dict:
    response = client.get(service_url(project_id, slug))
    assert response.status_code == 200, response.content
    return response.json()


def list_services(client: Client, project_id: str) -> list[dict]:
    response = client.get(services_url(project_id))
    assert response.status_code == 200, response.content
    body = response.json()
    assert isinstance(body, list)
    return body


def raw_service(client: Client, project_id: str, slug: str) -> dict:
    response = client.get(f"{service_url(project_id, slug)}/raw")
    assert response.status_code == 200, response.content
    return response.json()


def get_project(client: Client, project_id: str) -> dict:
    response = client.get(f"/v1/projects/{project_id}")
    assert response.status_code == 200, response.content
    return response.json()


def history_total(client: Client, project_id: str) -> int:
    response = client.get(f"/v1/projects/{project_id}/history")
    assert response.status_code == 200, response.content
    return response.json()["total"]


def slugs(services: list[dict]) -> list[str]:
    return [service["slug"] for service in services]


def content(service: dict) -> dict:
    return {key: service.get(key) for key in CONTENT_FIELDS}


def sha1_8(name: str) -> str:
    return hashlib.sha1(name.encode()).hexdigest()[:8]


def assert_validation(response, fields: list[str]):
    assert response.status_code == 400, response.content
    body = response.json()
    assert body["status"] == 400
    assert body["code"] == "validation_failed"
    assert isinstance(body["message"], str) and body["message"]
    assert sorted(v["field"] for v in body["violations"]) == sorted(fields), body
    assert all(isinstance(v["message"], str) and v["message"] for v in body["violations"])


def assert_bad_body(response):
    assert response.status_code == 400, response.content
    body = response.json()
    assert body["status"] == 400
    assert body["code"] == "bad_request"
    assert [v["field"] for v in body["violations"]] == ["body"]


def assert_bad_query(response):
    assert response.status_code == 400, response.content
    body = response.json()
    assert body["status"] == 400
    assert body["code"] == "bad_request"
    assert isinstance(body["message"], str) and body["message"]


def assert_service_not_found(response):
    assert response.status_code == 404, response.content
    body = response.json()
    assert body["status"] == 404
    assert body["code"] == "service_not_found"
    assert isinstance(body["message"], str) and body["message"]


def assert_name_conflict(response):
    assert response.status_code == 409, response.content
    body = response.json()
    assert body["status"] == 409
    assert body["code"] == "service_name_conflict"
    assert isinstance(body["message"], str) and body["message"]


@pytest.fixture
def pid(api) -> str:
    """A project of the `api` key's organization."""
    return new_project(api)


@pytest.fixture
def deployer(factory, org) -> Client:
    """A second API key of the same organization, with another name."""
    return factory.key_client(org, "deployer")


FULL_BODY = {
    "name": "Order API",
    "description": "Takes orders from the storefront",
    "category": "Core",
    "owner": "Team Checkout",
    "flows": ["Checkout", "Refunds"],
    "consumes": [
        {"name": "payments.settled"},
        {
            "name": "carts.closed",
            "category": "Events",
            "owner": "Team Cart",
            "flows": ["Checkout"],
            "extras": {"retention": "7d"},
        },
    ],
    "produces": [{"name": "orders.created", "owner": "Team Checkout"}],
    "extras": {"repo": "github.com/acme/orders", "tier": "1"},
}


# -- create ----------------------------------------------------------------------------


def test_create_with_only_a_name_returns_the_minimal_service(api, pid):
    service = create_service(api, pid, "Order API")
    assert set(service) == SERVICE_FIELDS_ALWAYS
    for key in ("createdAt", "updatedAt", "validFrom"):
        assert TIMESTAMP_RE.match(service[key]), service[key]
    assert service == {
        "slug": "order-api",
        "name": "Order API",
        "flows": [],
        "consumes": [],
        "produces": [],
        "extras": {},
        "createdBy": "ci",
        "createdByType": "API_KEY",
        "createdAt": service["createdAt"],
        "updatedBy": "ci",
        "updatedByType": "API_KEY",
        "updatedAt": service["createdAt"],
        "validFrom": service["createdAt"],
        "validUntil": None,
    }


def test_create_with_every_field_echoes_them_and_topics_keep_only_what_was_set(api, pid):
    service = create_service(api, pid, FULL_BODY)
    assert set(service) == SERVICE_FIELDS_ALWAYS | {"description", "category", "owner"}
    assert service["slug"] == "order-api"
    assert service["name"] == "Order API"
    assert service["description"] == "Takes orders from the storefront"
    assert service["category"] == "Core"
    assert service["owner"] == "Team Checkout"
    assert service["flows"] == ["Checkout", "Refunds"]
    assert service["consumes"] == [
        {"name": "payments.settled"},
        {
            "name": "carts.closed",
            "category": "Events",
            "owner": "Team Cart",
            "flows": ["Checkout"],
            "extras": {"retention": "7d"},
        },
    ]
    assert service["produces"] == [{"name": "orders.created", "owner": "Team Checkout"}]
    assert service["extras"] == {"repo": "github.com/acme/orders", "tier": "1"}
    assert (service["createdBy"], service["createdByType"]) == ("ci", "API_KEY")
    assert (service["updatedBy"], service["updatedByType"]) == ("ci", "API_KEY")
    assert service["validUntil"] is None


def test_topic_attributes_sent_as_null_are_left_out(api, pid):
    service = create_service(
        api,
        pid,
        {
            "name": "Billing",
            "produces": [{"name": "invoices", "category": None, "owner": None, "flows": None}],
        },
    )
    assert service["produces"] == [{"name": "invoices"}]


@pytest.mark.parametrize(
    ("name", "slug"),
    [
        ("Order API", "order-api"),
        ("  Order   API  ", "order-api"),
        ("Payments_Gateway v2", "payments_gateway-v2"),
        ("Café Säle", "cafe-sale"),
        ("C++ Engine!", "c-engine"),
    ],
)
def test_slug_is_the_django_slugify_of_the_name(api, pid, name, slug):
    service = create_service(api, pid, name)
    assert service["slug"] == slug
    assert get_service(api, pid, slug)["slug"] == slug


@pytest.mark.parametrize("name", ["???", "日本語", "--"])
def test_a_name_without_slugable_characters_gets_a_sha1_slug(api, pid, name):
    service = create_service(api, pid, name)
    assert service["slug"] == f"service-{sha1_8(name)}"
    assert service["name"] == name
    assert get_service(api, pid, service["slug"])["name"] == name


def test_a_sixty_character_name_whose_slug_grows_is_accepted(api, pid):
    name = "\u3389" * 60  # the "kcal" ligature: NFKD turns each into four letters
    service = create_service(api, pid, name)
    assert service["slug"] == "kcal" * 22 + "kca-" + sha1_8(name)
    assert len(service["slug"]) == 100
    assert get_service(api, pid, service["slug"])["name"] == name
    other = create_service(api, pid, "\u3389" * 59 + "x")
    assert other["slug"] != service["slug"]


def test_an_empty_extras_key_is_allowed(api, pid):
    service = create_service(api, pid, {"name": "Orders", "extras": {"": "v"}})
    assert service["extras"] == {"": "v"}


def test_created_at_equals_valid_from_and_is_the_projects_updated_at(api, pid):
    service = create_service(api, pid, "Orders")
    project = get_project(api, pid)
    assert service["createdAt"] == service["validFrom"] == service["updatedAt"]
    assert project["updatedAt"] == service["validFrom"]


def test_an_empty_description_is_kept(api, pid):
    service = create_service(api, pid, {"name": "Orders", "description": ""})
    assert service["description"] == ""
    assert get_service(api, pid, "orders")["description"] == ""


# -- list and get ----------------------------------------------------------------------


def test_list_of_a_new_project_is_empty(api, pid):
    assert list_services(api, pid) == []


def test_list_returns_every_current_service_sorted_by_slug(api, pid):
    created = {s: create_service(api, pid, s) for s in ["Zeta", "alpha", "Middle Tier", "beta"]}
    listed = list_services(api, pid)
    assert slugs(listed) == ["alpha", "beta", "middle-tier", "zeta"]
    assert {s["name"]: s for s in listed} == created


def test_list_order_is_by_the_slugs_characters(api, pid):
    for name in ["ab", "a_b", "a-c", "a1", "A0"]:
        create_service(api, pid, name)
    assert slugs(list_services(api, pid)) == ["a-c", "a0", "a1", "a_b", "ab"]


def test_get_one_returns_what_create_returned(api, pid):
    created = create_service(api, pid, FULL_BODY)
    assert get_service(api, pid, "order-api") == created


def test_get_an_unknown_slug_is_service_not_found(api, pid):
    create_service(api, pid, "Orders")
    assert_service_not_found(api.get(service_url(pid, "payments")))
    assert_service_not_found(api.get(f"{service_url(pid, 'payments')}/raw"))


def test_put_and_delete_of_an_unknown_slug_are_service_not_found(api, pid):
    assert_service_not_found(put_service(api, pid, "payments", {"description": "x"}))
    assert_service_not_found(api.delete(service_url(pid, "payments")))
    assert list_services(api, pid) == []
    assert history_total(api, pid) == 0


def test_the_slug_is_case_sensitive_in_the_path(api, pid):
    create_service(api, pid, "Orders")
    assert_service_not_found(api.get(service_url(pid, "Orders")))


def test_services_of_one_project_are_not_visible_in_another(api, pid):
    other = new_project(api, "Other Platform")
    create_service(api, pid, "Orders")
    assert list_services(api, other) == []
    assert_service_not_found(api.get(service_url(other, "orders")))


SERVICE_ENDPOINTS = [
    ("get", "/services", None),
    ("post", "/services", {"name": "Payments"}),
    ("get", "/services/orders", None),
    ("put", "/services/orders", {"description": "taken over"}),
    ("delete", "/services/orders", None),
    ("get", "/services/orders/raw", None),
]


def call(client: Client, method: str, path: str, body):
    if body is None:
        return getattr(client, method)(path)
    return getattr(client, method)(path, body, content_type=JSON)


@pytest.mark.parametrize(("method", "suffix", "body"), SERVICE_ENDPOINTS)
def test_a_missing_project_is_project_not_found(api, method, suffix, body):
    assert_project_not_found(call(api, method, f"/v1/projects/{MISSING_ID}{suffix}", body))


@pytest.mark.parametrize("project_id", MALFORMED_IDS)
@pytest.mark.parametrize(("method", "suffix", "body"), SERVICE_ENDPOINTS)
def test_a_malformed_project_id_is_project_not_found(api, method, suffix, body, project_id):
    assert_project_not_found(call(api, method, f"/v1/projects/{project_id}{suffix}", body))


@pytest.mark.parametrize(("method", "suffix", "body"), SERVICE_ENDPOINTS)
def test_another_organizations_project_answers_like_a_missing_one(
    factory, api, method, suffix, body
):
    globex = factory.key_client(factory.org("globex"), "ci")
    foreign = new_project(globex, "Globex Platform")
    create_service(globex, foreign, {"name": "Orders", "owner": "Globex Team"})
    missing = call(api, method, f"/v1/projects/{MISSING_ID}{suffix}", body)
    response = call(api, method, f"/v1/projects/{foreign}{suffix}", body)
    assert_project_not_found(response)
    assert same_answer(response, missing, foreign, MISSING_ID)
    # and the other organization's data is untouched
    assert slugs(list_services(globex, foreign)) == ["orders"]
    assert get_service(globex, foreign, "orders")["owner"] == "Globex Team"
    assert "description" not in get_service(globex, foreign, "orders")
    assert history_total(globex, foreign) == 1


@pytest.mark.parametrize("method", ["post", "put"])
def test_a_missing_project_is_reported_before_a_bad_body(api, method):
    suffix = "/services" if method == "post" else "/services/orders"
    response = call(api, method, f"/v1/projects/{MISSING_ID}{suffix}", {"colour": "red"})
    assert_project_not_found(response)


# -- partial update --------------------------------------------------------------------


def test_put_changes_only_the_fields_it_names(api, pid):
    created = create_service(api, pid, FULL_BODY)
    response = put_service(api, pid, "order-api", {"description": "Now also returns"})
    assert response.status_code == 200, response.content
    updated = response.json()
    assert updated["description"] == "Now also returns"
    expected = {**content(created), "description": "Now also returns"}
    assert content(updated) == expected
    assert content(get_service(api, pid, "order-api")) == expected


def test_put_replaces_lists_and_extras_rather_than_merging(api, pid):
    create_service(api, pid, FULL_BODY)
    response = put_service(
        api,
        pid,
        "order-api",
        {
            "flows": ["Returns"],
            "consumes": [],
            "produces": [{"name": "orders.cancelled"}],
            "extras": {"tier": "2"},
        },
    )
    assert response.status_code == 200, response.content
    service = get_service(api, pid, "order-api")
    assert service["flows"] == ["Returns"]
    assert service["consumes"] == []
    assert service["produces"] == [{"name": "orders.cancelled"}]
    assert service["extras"] == {"tier": "2"}
    assert service["category"] == "Core"


def test_put_response_records_the_writer_and_a_new_validity(api, deployer, pid):
    created = create_service(api, pid, "Orders")
    response = put_service(deployer, pid, "orders", {"owner": "Ops"})
    assert response.status_code == 200, response.content
    updated = response.json()
    assert (updated["createdBy"], updated["createdByType"]) == ("ci", "API_KEY")
    assert updated["createdAt"] == created["createdAt"]
    assert (updated["updatedBy"], updated["updatedByType"]) == ("deployer", "API_KEY")
    assert updated["validFrom"] > created["validFrom"]
    assert updated["updatedAt"] == updated["validFrom"]
    assert TIMESTAMP_RE.match(updated["validFrom"])
    assert updated["validUntil"] is None
    assert get_service(api, pid, "orders") == updated


def test_put_null_clears_the_nullable_fields(api, pid):
    create_service(api, pid, FULL_BODY)
    response = put_service(
        api,
        pid,
        "order-api",
        {
            "description": None,
            "category": None,
            "owner": None,
            "flows": None,
            "extras": None,
        },
    )
    assert response.status_code == 200, response.content
    for service in (response.json(), get_service(api, pid, "order-api")):
        assert "description" not in service
        assert "category" not in service
        assert "owner" not in service
        assert service["flows"] == []
        assert service["extras"] == {}
        assert service["name"] == "Order API"
        assert [t["name"] for t in service["consumes"]] == ["payments.settled", "carts.closed"]
        assert service["produces"] == [{"name": "orders.created", "owner": "Team Checkout"}]
    raw = raw_service(api, pid, "order-api")
    assert (raw["description"], raw["category"], raw["owner"]) == (None, None, None)
    assert (raw["flows"], raw["extras"]) == (None, None)


@pytest.mark.parametrize("field", ["name", "consumes", "produces"])
def test_put_null_for_a_required_field_is_a_violation(api, pid, field):
    created = create_service(api, pid, FULL_BODY)
    response = put_service(api, pid, "order-api", {field: None})
    assert_validation(response, [field])
    assert get_service(api, pid, "order-api") == created
    assert history_total(api, pid) == 1


def test_put_with_an_empty_object_answers_the_unchanged_service(api, pid):
    created = create_service(api, pid, FULL_BODY)
    response = put_service(api, pid, "order-api", {})
    assert response.status_code == 200, response.content
    assert content(response.json()) == content(created)
    assert content(get_service(api, pid, "order-api")) == content(created)


def test_rename_moves_the_slug(api, pid):
    created = create_service(api, pid, FULL_BODY)
    response = put_service(api, pid, "order-api", {"name": "Order Service"})
    assert response.status_code == 200, response.content
    renamed = response.json()
    assert (renamed["slug"], renamed["name"]) == ("order-service", "Order Service")
    assert get_service(api, pid, "order-service") == renamed
    assert_service_not_found(api.get(service_url(pid, "order-api")))
    assert_service_not_found(put_service(api, pid, "order-api", {"owner": "x"}))
    assert slugs(list_services(api, pid)) == ["order-service"]
    # the rest of the service came along
    assert {**content(created), "slug": "order-service", "name": "Order Service"} == content(
        renamed
    )


def test_rename_keeps_the_same_service_identity(api, pid):
    create_service(api, pid, "Orders")
    before = raw_service(api, pid, "orders")
    assert put_service(api, pid, "orders", {"name": "Order Intake"}).status_code == 200
    after = raw_service(api, pid, "order-intake")
    assert after["serviceId"] == before["serviceId"]
    assert after["version"] == before["version"] + 1
    assert after["snapshotId"] != before["snapshotId"]


def test_rename_frees_the_old_slug_for_a_new_service(api, pid):
    create_service(api, pid, "Orders")
    assert put_service(api, pid, "orders", {"name": "Order Intake"}).status_code == 200
    fresh = create_service(api, pid, "Orders")
    assert fresh["slug"] == "orders"
    assert slugs(list_services(api, pid)) == ["order-intake", "orders"]


# -- name conflicts --------------------------------------------------------------------


@pytest.mark.parametrize("name", ["Order API", "order-api", "Order  API!", "ORDER api"])
def test_create_with_a_name_whose_slug_is_taken_is_a_conflict(api, pid, name):
    created = create_service(api, pid, "Order API")
    project_before = get_project(api, pid)
    response = post_service(api, pid, {"name": name, "owner": "Intruders"})
    assert_name_conflict(response)
    assert list_services(api, pid) == [created]
    assert history_total(api, pid) == 1
    assert get_project(api, pid) == project_before


def test_rename_onto_a_taken_slug_is_a_conflict(api, pid):
    orders = create_service(api, pid, "Orders")
    payments = create_service(api, pid, {"name": "Payments", "owner": "Team Pay"})
    response = put_service(api, pid, "payments", {"name": "ORDERS", "owner": "Nobody"})
    assert_name_conflict(response)
    assert get_service(api, pid, "payments") == payments
    assert get_service(api, pid, "orders") == orders
    assert history_total(api, pid) == 2


def test_renaming_to_another_case_of_its_own_name_is_fine(api, pid):
    create_service(api, pid, "Order API")
    response = put_service(api, pid, "order-api", {"name": "ORDER api"})
    assert response.status_code == 200, response.content
    assert (response.json()["slug"], response.json()["name"]) == ("order-api", "ORDER api")
    assert get_service(api, pid, "order-api")["name"] == "ORDER api"


def test_same_name_in_two_projects_is_fine(api, pid):
    other = new_project(api, "Other Platform")
    create_service(api, pid, "Orders")
    assert create_service(api, other, "Orders")["slug"] == "orders"


def test_a_deleted_services_name_is_free_and_starts_a_new_service(api, pid):
    create_service(api, pid, {"name": "Orders", "owner": "Old Team"})
    assert put_service(api, pid, "orders", {"owner": "Older Team"}).status_code == 200
    old = raw_service(api, pid, "orders")
    assert old["version"] == 2
    assert api.delete(service_url(pid, "orders")).status_code == 204
    fresh = create_service(api, pid, "Orders")
    assert "owner" not in fresh
    raw = raw_service(api, pid, "orders")
    assert raw["serviceId"] != old["serviceId"]
    assert raw["version"] == 1
    assert raw["owner"] is None


# -- delete ----------------------------------------------------------------------------


def test_delete_answers_204_and_the_service_is_gone(api, pid):
    create_service(api, pid, "Orders")
    payments = create_service(api, pid, "Payments")
    response = api.delete(service_url(pid, "orders"))
    assert response.status_code == 204
    assert response.content == b""
    assert_service_not_found(api.get(service_url(pid, "orders")))
    assert_service_not_found(api.get(f"{service_url(pid, 'orders')}/raw"))
    assert list_services(api, pid) == [payments]
    assert_service_not_found(put_service(api, pid, "orders", {"owner": "x"}))


def test_delete_twice_is_service_not_found_the_second_time(api, pid):
    create_service(api, pid, "Orders")
    assert api.delete(service_url(pid, "orders")).status_code == 204
    assert_service_not_found(api.delete(service_url(pid, "orders")))
    assert history_total(api, pid) == 2  # created, deleted: the second delete wrote nothing


# -- project bookkeeping ---------------------------------------------------------------


def test_every_service_write_moves_the_projects_updated_fields_and_count(api, deployer, pid):
    start = get_project(api, pid)
    assert start["serviceCount"] == 0

    service = create_service(deployer, pid, "Orders")
    after_create = get_project(api, pid)
    assert after_create["serviceCount"] == 1
    assert after_create["updatedAt"] > start["updatedAt"]
    assert after_create["updatedAt"] == service["validFrom"]
    assert (after_create["updatedBy"], after_create["updatedByType"]) == ("deployer", "API_KEY")
    assert after_create["createdBy"] == "ci"

    updated = put_service(api, pid, "orders", {"owner": "Ops"}).json()
    after_update = get_project(api, pid)
    assert after_update["serviceCount"] == 1
    assert after_update["updatedAt"] > after_create["updatedAt"]
    assert after_update["updatedAt"] == updated["validFrom"]
    assert (after_update["updatedBy"], after_update["updatedByType"]) == ("ci", "API_KEY")

    assert deployer.delete(service_url(pid, "orders")).status_code == 204
    after_delete = get_project(api, pid)
    assert after_delete["serviceCount"] == 0
    assert after_delete["updatedAt"] > after_update["updatedAt"]
    assert (after_delete["updatedBy"], after_delete["updatedByType"]) == ("deployer", "API_KEY")
    assert TIMESTAMP_RE.match(after_delete["updatedAt"])


def test_service_count_follows_creates_and_deletes_and_shows_in_the_project_list(api, pid):
    for name in ["Orders", "Payments", "Shipping"]:
        create_service(api, pid, name)
    assert api.delete(service_url(pid, "payments")).status_code == 204
    assert put_service(api, pid, "orders", {"name": "Order Intake"}).status_code == 200
    assert get_project(api, pid)["serviceCount"] == 2
    listed = api.get("/v1/projects").json()["data"]
    assert [p["serviceCount"] for p in listed if p["id"] == pid] == [2]


def test_failed_writes_leave_the_project_untouched(api, deployer, pid):
    create_service(api, pid, "Orders")
    before = get_project(api, pid)
    assert post_service(deployer, pid, {"name": "orders"}).status_code == 409
    assert post_service(deployer, pid, {"name": ""}).status_code == 400
    assert put_service(deployer, pid, "orders", {"name": None}).status_code == 400
    assert put_service(deployer, pid, "missing", {"owner": "x"}).status_code == 404
    assert deployer.delete(service_url(pid, "missing")).status_code == 404
    assert get_project(api, pid) == before


# -- duplicate -------------------------------------------------------------------------


def test_duplicate_copies_the_current_services_made_by_the_duplicating_key(api, deployer, pid):
    create_service(api, pid, FULL_BODY)
    create_service(api, pid, {"name": "Payments", "owner": "Team Pay"})
    create_service(api, pid, "Legacy Billing")
    assert put_service(api, pid, "payments", {"category": "Money"}).status_code == 200
    assert api.delete(service_url(pid, "legacy-billing")).status_code == 204
    source_services = list_services(api, pid)
    source_project = get_project(api, pid)
    source_history = history_total(api, pid)

    response = deployer.post(
        f"/v1/projects/{pid}/duplicate", {"name": "Checkout Copy"}, content_type=JSON
    )
    assert response.status_code == 200, response.content
    copy = response.json()
    assert copy["id"] != pid
    assert copy["serviceCount"] == 2
    assert (copy["createdBy"], copy["updatedBy"], copy["updatedByType"]) == (
        "deployer",
        "deployer",
        "API_KEY",
    )
    assert get_project(api, copy["id"])["serviceCount"] == 2

    copied = list_services(api, copy["id"])
    assert slugs(copied) == ["order-api", "payments"]
    assert [content(s) for s in copied] == [content(s) for s in source_services]
    for service in copied:
        assert (service["createdBy"], service["createdByType"]) == ("deployer", "API_KEY")
        assert (service["updatedBy"], service["updatedByType"]) == ("deployer", "API_KEY")
        assert service["createdAt"] == service["validFrom"] == copy["createdAt"]
        assert service["validUntil"] is None
        raw = raw_service(api, copy["id"], service["slug"])
        assert raw["version"] == 1
        assert raw["projectId"] == copy["id"]
        assert raw["serviceId"] != raw_service(api, pid, service["slug"])["serviceId"]
    assert history_total(api, copy["id"]) == 2
    assert_service_not_found(api.get(service_url(copy["id"], "legacy-billing")))

    # the source is unchanged
    assert list_services(api, pid) == source_services
    assert get_project(api, pid) == source_project
    assert history_total(api, pid) == source_history


def test_a_duplicate_is_independent_of_its_source(api, pid):
    create_service(api, pid, "Orders")
    response = api.generic("POST", f"/v1/projects/{pid}/duplicate")
    assert response.status_code == 200, response.content
    copy_id = response.json()["id"]
    assert put_service(api, copy_id, "orders", {"owner": "Copy Team"}).status_code == 200
    assert api.delete(service_url(pid, "orders")).status_code == 204
    assert get_service(api, copy_id, "orders")["owner"] == "Copy Team"
    assert list_services(api, pid) == []


def test_duplicate_of_a_project_without_services_has_none(api, pid):
    response = api.generic("POST", f"/v1/projects/{pid}/duplicate")
    assert response.status_code == 200, response.content
    assert response.json()["serviceCount"] == 0
    assert list_services(api, response.json()["id"]) == []


# -- bad input -------------------------------------------------------------------------


def topics(*names: str) -> list[dict]:
    return [{"name": name} for name in names]


def extras(count: int) -> dict:
    return {f"key{i}": f"value {i}" for i in range(count)}


# (body at the limit, body one past it, violation field); each body has a distinct name.
LIMITS = {
    "name": ({"name": "n" * 60}, {"name": "n" * 61}, "name"),
    "description": (
        {"name": "D", "description": "d" * 200},
        {"name": "D", "description": "d" * 201},
        "description",
    ),
    "category": (
        {"name": "C", "category": "c" * 60},
        {"name": "C", "category": "c" * 61},
        "category",
    ),
    "owner": ({"name": "O", "owner": "o" * 60}, {"name": "O", "owner": "o" * 61}, "owner"),
    "flow name": (
        {"name": "F", "flows": ["ok", "f" * 100]},
        {"name": "F", "flows": ["ok", "f" * 101]},
        "flows[1]",
    ),
    "produced topic name": (
        {"name": "P", "produces": topics("t" * 255)},
        {"name": "P", "produces": topics("t" * 256)},
        "produces[0].name",
    ),
    "consumed topic name": (
        {"name": "Q", "consumes": topics("a", "t" * 255)},
        {"name": "Q", "consumes": topics("a", "t" * 256)},
        "consumes[1].name",
    ),
    "topic category": (
        {"name": "TC", "produces": [{"name": "t", "category": "c" * 60}]},
        {"name": "TC", "produces": [{"name": "t", "category": "c" * 61}]},
        "produces[0].category",
    ),
    "topic owner": (
        {"name": "TO", "consumes": [{"name": "t", "owner": "o" * 60}]},
        {"name": "TO", "consumes": [{"name": "t", "owner": "o" * 61}]},
        "consumes[0].owner",
    ),
    "topic flow name": (
        {"name": "TF", "produces": [{"name": "t", "flows": ["f" * 100]}]},
        {"name": "TF", "produces": [{"name": "t", "flows": ["f" * 101]}]},
        "produces[0].flows[0]",
    ),
    "extras count": (
        {"name": "E", "extras": extras(20)},
        {"name": "E", "extras": extras(21)},
        "extras",
    ),
    "extras key": (
        {"name": "K", "extras": {"k" * 100: "v"}},
        {"name": "K", "extras": {"k" * 101: "v"}},
        "extras." + "k" * 101,
    ),
    "extras value": (
        {"name": "V", "extras": {"owner-team": "v" * 500}},
        {"name": "V", "extras": {"owner-team": "v" * 501}},
        "extras.owner-team",
    ),
    "topic extras count": (
        {"name": "TE", "produces": [{"name": "t", "extras": extras(20)}]},
        {"name": "TE", "produces": [{"name": "t", "extras": extras(21)}]},
        "produces[0].extras",
    ),
    "topic extras value": (
        {"name": "TV", "consumes": [{"name": "t", "extras": {"note": "v" * 500}}]},
        {"name": "TV", "consumes": [{"name": "t", "extras": {"note": "v" * 501}}]},
        "consumes[0].extras.note",
    ),
}


@pytest.mark.parametrize("limit", LIMITS)
def test_every_limit_at_its_edge_is_accepted_and_stored_exactly(api, pid, limit):
    body, _, _ = LIMITS[limit]
    service = create_service(api, pid, body)
    stored = get_service(api, pid, service["slug"])
    for key, value in body.items():
        if key in ("consumes", "produces"):
            assert [t["name"] for t in stored[key]] == [t["name"] for t in value]
            for sent, back in zip(value, stored[key], strict=True):
                assert {k: v for k, v in sent.items() if v} == back
        else:
            assert stored[key] == value


@pytest.mark.parametrize("limit", LIMITS)
def test_every_limit_one_past_its_edge_is_a_violation_on_create(api, pid, limit):
    _, body, field = LIMITS[limit]
    assert_validation(post_service(api, pid, body), [field])
    assert list_services(api, pid) == []
    assert history_total(api, pid) == 0
    assert get_project(api, pid)["serviceCount"] == 0


@pytest.mark.parametrize("limit", LIMITS)
def test_every_limit_one_past_its_edge_is_a_violation_on_update(api, pid, limit):
    created = create_service(api, pid, "Target")
    _, body, field = LIMITS[limit]
    body = {k: v for k, v in body.items() if k != "name" or limit == "name"}
    assert_validation(put_service(api, pid, "target", body), [field])
    assert list_services(api, pid) == [created]
    assert history_total(api, pid) == 1


BAD_CREATES = {
    "empty name": ({"name": ""}, ["name"]),
    "blank name": ({"name": "   "}, ["name"]),
    "missing name": ({"description": "no name"}, ["name"]),
    "numeric name": ({"name": 42}, ["name"]),
    "null name": ({"name": None}, ["name"]),
    "empty category": ({"name": "A", "category": ""}, ["category"]),
    "empty owner": ({"name": "A", "owner": ""}, ["owner"]),
    "empty flow name": ({"name": "A", "flows": [""]}, ["flows[0]"]),
    "flows not a list": ({"name": "A", "flows": "Checkout"}, ["flows"]),
    "unknown property": ({"name": "A", "colour": "red"}, ["colour"]),
    "unknown topic property": (
        {"name": "A", "produces": [{"name": "x"}, {"name": "y", "colour": "red"}]},
        ["produces[1].colour"],
    ),
    "consumes a string": ({"name": "A", "consumes": "orders"}, ["consumes"]),
    "consumes an object": ({"name": "A", "consumes": {"name": "orders"}}, ["consumes"]),
    "topic not an object": ({"name": "A", "produces": ["orders"]}, ["produces[0]"]),
    "topic without name": ({"name": "A", "produces": [{"owner": "x"}]}, ["produces[0].name"]),
    "empty topic name": ({"name": "A", "consumes": [{"name": ""}]}, ["consumes[0].name"]),
    "same topic twice": (
        {"name": "A", "produces": topics("orders", "orders")},
        ["produces[1].name"],
    ),
    "same topic twice in consumes": (
        {"name": "A", "consumes": topics("a", "b", "a")},
        ["consumes[2].name"],
    ),
    "extras not an object": ({"name": "A", "extras": ["x"]}, ["extras"]),
    "extras value not a string": ({"name": "A", "extras": {"tier": 1}}, ["extras.tier"]),
    "null topic extras": (
        {"name": "A", "produces": [{"name": "t", "extras": None}]},
        ["produces[0].extras"],
    ),
    "two violations at once": ({"name": "n" * 61, "colour": "red"}, ["name", "colour"]),
    # bounded where the spec is silent: a small body must not ask for a huge graph
    "501 produced topics": (
        {"name": "A", "produces": topics(*(f"t{i}" for i in range(501)))},
        ["produces"],
    ),
    "501 consumed topics": (
        {"name": "A", "consumes": topics(*(f"t{i}" for i in range(501)))},
        ["consumes"],
    ),
    "51 flows": ({"name": "A", "flows": [f"f{i}" for i in range(51)]}, ["flows"]),
    "51 flows of a topic": (
        {"name": "A", "produces": [{"name": "t", "flows": [f"f{i}" for i in range(51)]}]},
        ["produces[0].flows"],
    ),
}


def test_the_list_bounds_name_themselves_and_their_limit_is_allowed(api, pid):
    response = post_service(api, pid, BAD_CREATES["501 produced topics"][0])
    assert "500" in response.json()["violations"][0]["message"]
    at_the_limit = {
        "name": "Data lake sink",
        "consumes": topics(*(f"t{i}" for i in range(500))),
        "flows": [f"f{i}" for i in range(50)],
    }
    assert len(create_service(api, pid, at_the_limit)["consumes"]) == 500


@pytest.mark.parametrize("case", BAD_CREATES)
def test_bad_create_bodies_are_violations_and_write_nothing(api, pid, case):
    body, fields = BAD_CREATES[case]
    assert_validation(post_service(api, pid, body), fields)
    assert list_services(api, pid) == []
    assert history_total(api, pid) == 0


def test_a_violation_carries_the_rejected_value(api, pid):
    response = post_service(api, pid, {"name": "A", "category": "c" * 61})
    assert_validation(response, ["category"])
    assert response.json()["violations"][0]["rejectedValue"] == "c" * 61


def test_the_same_topic_may_be_both_consumed_and_produced(api, pid):
    service = create_service(
        api, pid, {"name": "Relay", "consumes": topics("orders"), "produces": topics("orders")}
    )
    assert service["consumes"] == service["produces"] == [{"name": "orders"}]


def test_topic_names_differing_in_case_are_distinct_topics(api, pid):
    service = create_service(api, pid, {"name": "A", "produces": topics("Orders", "orders")})
    assert [t["name"] for t in service["produces"]] == ["Orders", "orders"]


def test_put_with_an_unknown_property_or_duplicate_topic_is_a_violation(api, pid):
    created = create_service(api, pid, "Orders")
    assert_validation(put_service(api, pid, "orders", {"colour": "red"}), ["colour"])
    assert_validation(
        put_service(api, pid, "orders", {"consumes": topics("x", "x")}), ["consumes[1].name"]
    )
    assert_validation(put_service(api, pid, "orders", {"name": ""}), ["name"])
    assert get_service(api, pid, "orders") == created
    assert history_total(api, pid) == 1


@pytest.mark.parametrize("body", ["{not json", '{"name": "A",}', "{'name': 'A'}", '{"name": NaN}'])
def test_a_body_that_is_not_json_is_bad_request(api, pid, body):
    assert_bad_body(api.post(services_url(pid), body, content_type=JSON))
    create_service(api, pid, "Orders")
    assert_bad_body(api.put(service_url(pid, "orders"), body, content_type=JSON))
    assert content(get_service(api, pid, "orders"))["name"] == "Orders"
    assert history_total(api, pid) == 1


@pytest.mark.parametrize("body", ["[]", "null", '"Orders"', "42"])
def test_a_json_body_that_is_not_an_object_is_a_violation_on_the_body(api, pid, body):
    assert_validation(api.post(services_url(pid), body, content_type=JSON), ["body"])
    assert list_services(api, pid) == []


def test_post_without_a_body_is_a_violation_on_name(api, pid):
    response = api.generic("POST", services_url(pid))
    assert_validation(response, ["name"])
    assert list_services(api, pid) == []


def test_put_without_a_body_is_a_violation_on_the_body(api, pid):
    created = create_service(api, pid, "Orders")
    response = api.generic("PUT", service_url(pid, "orders"))
    assert_validation(response, ["body"])
    assert get_service(api, pid, "orders") == created
    assert history_total(api, pid) == 1


# -- the `at` query parameter ----------------------------------------------------------


@pytest.mark.parametrize("at", ["garbage", "2024-13-45T00:00:00Z", "2024-02-30T10:00:00Z", ""])
@pytest.mark.parametrize("suffix", ["/services", "/services/orders", "/services/orders/raw"])
def test_an_unparsable_at_is_bad_request(api, pid, suffix, at):
    create_service(api, pid, "Orders")
    assert_bad_query(api.get(f"/v1/projects/{pid}{suffix}", {"at": at}))


# -- raw -------------------------------------------------------------------------------


def test_raw_of_a_minimal_service_shows_every_field_with_its_nulls(api, pid):
    service = create_service(api, pid, "Orders")
    raw = raw_service(api, pid, "orders")
    assert set(raw) == RAW_FIELDS
    assert uuid.UUID(raw["snapshotId"]) and uuid.UUID(raw["serviceId"])
    assert raw["snapshotId"] != raw["serviceId"]
    assert TIMESTAMP_RE.match(raw["validFrom"]) and TIMESTAMP_RE.match(raw["createdAt"])
    assert raw == {
        "snapshotId": raw["snapshotId"],
        "serviceId": raw["serviceId"],
        "projectId": pid,
        "version": 1,
        "deleted": False,
        "slug": "orders",
        "name": "Orders",
        "description": None,
        "category": None,
        "owner": None,
        "flows": None,
        "consumes": [],
        "produces": [],
        "extras": None,
        "createdBy": "ci",
        "createdByType": "API_KEY",
        "createdAt": service["createdAt"],
        "updatedBy": "ci",
        "updatedByType": "API_KEY",
        "validFrom": service["validFrom"],
        "validUntil": None,
    }


def test_raw_of_a_full_service_shows_the_stored_values(api, deployer, pid):
    create_service(api, pid, FULL_BODY)
    assert put_service(deployer, pid, "order-api", {"owner": "Ops"}).status_code == 200
    raw = raw_service(api, pid, "order-api")
    assert raw["version"] == 2
    assert raw["deleted"] is False
    assert (raw["description"], raw["category"], raw["owner"]) == (
        "Takes orders from the storefront",
        "Core",
        "Ops",
    )
    assert raw["flows"] == ["Checkout", "Refunds"]
    assert raw["extras"] == {"repo": "github.com/acme/orders", "tier": "1"}
    assert [t["name"] for t in raw["consumes"]] == ["payments.settled", "carts.closed"]
    assert raw["consumes"][1]["category"] == "Events"
    assert raw["produces"][0]["owner"] == "Team Checkout"
    assert (raw["createdBy"], raw["createdByType"]) == ("ci", "API_KEY")
    assert (raw["updatedBy"], raw["updatedByType"]) == ("deployer", "API_KEY")
    assert raw["validUntil"] is None


# -- query budget ----------------------------------------------------------------------


def make_services(client: Client, project_id: str, count: int):
    for i in range(count):
        create_service(
            client,
            project_id,
            {
                "name": f"Service {i:02d}",
                "owner": f"Team {i % 3}",
                "flows": ["Checkout"],
                "produces": topics(f"topic-{i}"),
                "consumes": topics(f"topic-{i + 1}"),
                "extras": {"index": str(i)},
            },
        )


def count_queries(client: Client, path: str) -> int:
    with CaptureQueriesContext(connection) as queries:
        response = client.get(path)
    assert response.status_code == 200, response.content
    return len(queries)


QUERY_BUDGET = 4


@pytest.mark.parametrize("count", [2, 15])
def test_listing_services_runs_a_small_constant_number_of_queries(
    api, pid, count, django_assert_max_num_queries
):
    make_services(api, pid, count)
    with django_assert_max_num_queries(QUERY_BUDGET):
        response = api.get(services_url(pid))
    assert response.status_code == 200
    assert len(response.json()) == count


def test_listing_services_costs_the_same_queries_for_2_and_15_services(api):
    small, large = new_project(api, "Small Platform"), new_project(api, "Large Platform")
    make_services(api, small, 2)
    make_services(api, large, 15)
    assert count_queries(api, services_url(small)) == count_queries(api, services_url(large))


@pytest.mark.parametrize("count", [2, 15])
def test_reading_one_service_runs_a_small_constant_number_of_queries(
    api, pid, count, django_assert_max_num_queries
):
    make_services(api, pid, count)
    with django_assert_max_num_queries(QUERY_BUDGET):
        response = api.get(service_url(pid, "service-01"))
    assert response.status_code == 200
    with django_assert_max_num_queries(QUERY_BUDGET):
        response = api.get(f"{service_url(pid, 'service-01')}/raw")
    assert response.status_code == 200


def test_a_topic_without_a_name_is_refused_on_update_too(api, pid):
    """Found by schema fuzzing: partial updates must not make a topic's name optional."""
    create_service(api, pid, "Orders")
    response = api.put(
        f"/v1/projects/{pid}/services/orders",
        {"produces": [{"category": "x"}]},
        content_type="application/json",
    )
    assert response.status_code == 400
    assert response.json()["violations"][0]["field"] == "produces[0].name"


def test_a_service_read_and_put_back_is_told_which_fields_are_read_only(api):
    """A script that PUTs back what it read learns what to drop: each field the API sends
    and no request sets is a violation saying so, not only "Unknown property"."""
    from diagrams.tests.helpers import new_project, new_service

    project = new_project(api, "Readback")
    read = new_service(api, project, {"name": "Cart", "owner": "shop"})
    response = api.put(
        f"/v1/projects/{project}/services/cart",
        {**read, "owner": "shop-2", "surprise": 1},
        content_type="application/json",
    )
    assert response.status_code == 400
    messages = {v["field"]: v["message"] for v in response.json()["violations"]}
    read_only = "Read-only: the API sends this field, a request does not set it."
    for field in ("slug", "createdBy", "createdAt", "updatedAt", "validFrom", "validUntil"):
        assert messages[field] == read_only, field
    assert messages["surprise"] == "Unknown property."
    assert api.get(f"/v1/projects/{project}/services/cart").json()["owner"] == "shop"
