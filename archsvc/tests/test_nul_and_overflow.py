"""Input no one means, found by a security review to be 500s (most on PostgreSQL, whose text
cannot hold U+0000 and whose OFFSET stops at 2**63): each is now a 4xx that says what was
wrong, and changes nothing."""

import pytest
from django.test import Client

from accounts.models import ApiKey
from diagrams.tests.helpers import new_project, new_service, put


@pytest.fixture
def admin(factory, org):
    membership = factory.member(org, role="admin")
    return factory.member_client(membership, enforce_csrf=False)


@pytest.fixture
def project(api):
    project = new_project(api)
    new_service(api, project, {"name": "Cart"})
    return project


@pytest.mark.parametrize(
    "method,suffix",
    [("get", ""), ("get", "/raw"), ("put", ""), ("delete", "")],
)
def test_a_slug_holding_nul_names_no_service(api, project, method, suffix):
    path = f"/v1/projects/{project}/services/a%00b{suffix}"
    if method == "put":
        response = put(api, path, {"description": "x"})
    else:
        response = getattr(api, method)(path)
    assert response.status_code == 404
    assert response.json()["code"] == "not_found"
    assert api.get(f"/v1/projects/{project}/services/cart").status_code == 200


def test_an_editor_address_holding_nul_is_the_404_page(admin, api, project):
    response = admin.get(f"/projects/{project}/services/a%00b/edit/")
    assert response.status_code == 404
    assert b"<html" in response.content


def test_a_query_parameter_holding_nul_is_a_400_naming_it(admin, api, project):
    page = admin.get("/?q=a%00b")
    assert page.status_code == 400
    assert page["X-Content-Type-Options"] == "nosniff" and page["Content-Security-Policy"]
    assert "Query parameter 'q'" in page.content.decode()
    body = api.get("/v1/projects?query=a%00b").json()
    assert (body["status"], body["code"]) == (400, "bad_request")
    assert "'query'" in body["message"]


def test_a_form_field_holding_nul_is_a_400_and_changes_nothing(admin, org):
    response = admin.post("/settings/api-keys/", {"action": "create", "name": "a\x00b"})
    assert response.status_code == 400
    assert "Form field 'name'" in response.content.decode()
    assert not ApiKey.objects.filter(organization=org).exists()
    response = admin.post("/accounts/switch/", {"organization": "a\x00b"})
    assert response.status_code == 400


def test_page_numbers_past_any_database_offset(admin, api):
    new_project(admin, "Only one")
    # a page past any end, as ?page=5 is (it was the first page, and ?page=999 was not)
    past = admin.get("/?page=9223372036854775807")
    assert past.status_code == 200 and b"Only one" not in past.content
    assert "There is no page 1000000" in past.content.decode()
    assert "There is no page 5" in admin.get("/?page=5").content.decode()
    assert b"Only one" in admin.get("/?page=0000001").content
    for value in ("9223372036854775807", "99999999999", "%D9%A3", "1_0", "1e3"):
        response = api.get(f"/v1/projects?page={value}")
        assert response.status_code == 400, value
        assert "'page'" in response.json()["message"]
    assert api.get("/v1/projects?page=0&size=20").status_code == 200


def test_history_page_numbers_are_ascii_digits(admin, project):
    for value in ("%C2%B2", "%E2%91%A0", "-1", "x"):
        response = admin.get(f"/projects/{project}/history/?page={value}")
        assert response.status_code == 200, value  # the first page
    for value in ("0000001" + "0" * 4300, "99999999999999", "1000"):  # past the end: the last
        response = admin.get(f"/projects/{project}/history/?page={value}")
        assert response.status_code == 302, value
        assert response["Location"] == f"/projects/{project}/history/?page=1", value


def test_a_cookie_holding_nul_is_no_cookie(admin, operator):
    """Django reads `sessionid="a\\000b"` as holding U+0000; the admin's session lookup sent
    it to PostgreSQL (a 500 with no log-in needed). Such a cookie is dropped."""
    anonymous = Client()
    anonymous.cookies["sessionid"] = "aaaaaaaaaaaa\x00b"
    assert anonymous.get("/admin/login/").status_code == 200
    admin.cookies["csrftoken"] = "a\x00b"
    assert admin.get("/").status_code == 200


def test_admin_paths_and_filters_holding_nul_are_refused(operator, project):
    assert operator.get("/admin/diagrams/project/a%00b/change/").status_code == 404
    assert operator.get("/admin/billing/subscription/?status__exact=a%00b").status_code == 400
    assert operator.get("/admin/diagrams/project/", {"q": "\x00"}).status_code == 200
