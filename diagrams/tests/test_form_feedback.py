"""What a member is told when a form is refused, found by a review of the pages in a browser:
each problem beside its field and marked on it (aria-invalid, aria-describedby, so that the
page's script puts the cursor there), every problem of a form at once, messages that say
what to do, names nobody can see refused (the API's rule too)."""

import re
from html import unescape

import pytest
from django.test import Client

from accounts.models import ApiKey
from archsvc.api.ratelimit import seconds_text
from diagrams.tests.helpers import new_project, new_service

ZWSP = "\u200b"  # zero-width space
INVISIBLE = [ZWSP, "\u200b\u200d\ufeff", "\u3000\u200b", "\u2060\u200e"]


@pytest.fixture
def admin(factory, org):
    return factory.member(org, role="admin")


@pytest.fixture
def member(factory, admin):
    return factory.member_client(admin, enforce_csrf=False)


@pytest.fixture
def project(api):
    return new_project(api)


def marked_invalid(html: str, field_id: str) -> str | None:
    """The id of the message a field is described by, when it is marked invalid."""
    tag = re.search(rf'<(?:input|select|textarea)[^>]*id="{field_id}"[^>]*>', html)
    assert tag, f"no field {field_id}"
    described = re.search(r'aria-describedby="([^"]+)"', tag.group(0))
    if 'aria-invalid="true"' not in tag.group(0) or not described:
        return None
    return described.group(1)


def said_under(html: str, field_id: str) -> str | None:
    """The error message right after a field (where a phone scrolled to the field shows
    it), when the page's top has no alert besides: on a phone that alert is off-screen."""
    after = re.search(
        rf'<(?:input|select)[^>]*id="{field_id}"[^>]*>(?:\s*<option.*?</select>)??\s*'
        r'<p class="field-error" id="settings-error">([^<]*)</p>',
        html,
        re.S,
    )
    if after is None or 'role="alert"' in html:
        return None
    return after.group(1)


# --- invisible names --------------------------------------------------------------------------


@pytest.mark.parametrize("name", INVISIBLE)
def test_api_refuses_a_service_name_nobody_can_see(api, project, name):
    response = api.post(
        f"/v1/projects/{project}/services", {"name": name}, content_type="application/json"
    )
    assert response.status_code == 400
    violations = response.json()["violations"]
    assert [v["field"] for v in violations] == ["name"]
    assert "visible character" in violations[0]["message"]
    assert api.get(f"/v1/projects/{project}/services").json() == []


@pytest.mark.parametrize(
    "body, field",
    [
        ({"name": "Shop", "produces": [{"name": ZWSP}]}, "produces[0].name"),
        ({"name": "Shop", "consumes": [{"name": "a", "owner": ZWSP}]}, "consumes[0].owner"),
        ({"name": "Shop", "category": "\u200b\u200b"}, "category"),
        ({"name": "Shop", "owner": "\ufeff"}, "owner"),
        ({"name": "Shop", "flows": ["checkout", ZWSP]}, "flows[1]"),
    ],
)
def test_api_refuses_invisible_topic_category_owner_and_flow_names(api, project, body, field):
    response = api.post(f"/v1/projects/{project}/services", body, content_type="application/json")
    assert response.status_code == 400
    assert [v["field"] for v in response.json()["violations"]] == [field]


def test_visible_names_in_any_script_are_fine(api, project):
    for name in ["🔥", "!!!", "Zahlungsdienst", "決済", "a\u200bb", "\u0301e"]:
        response = api.post(
            f"/v1/projects/{project}/services", {"name": name}, content_type="application/json"
        )
        assert response.status_code == 200, (name, response.json())
        assert response.json()["name"] == name


def test_api_refuses_a_project_name_nobody_can_see(api):
    response = api.post(
        "/v1/projects", {"name": ZWSP * 5, "description": ""}, content_type="application/json"
    )
    assert response.status_code == 400
    assert [v["field"] for v in response.json()["violations"]] == ["name"]
    assert api.get("/v1/projects").json()["total"] == 0


def test_the_editor_says_so_on_the_name(member, project):
    response = member.post(f"/projects/{project}/services/new/", {"name": ZWSP})
    assert response.status_code == 400
    html = response.content.decode()
    assert marked_invalid(html, "id_name") == "name-error"
    assert "visible character" in html


def test_signup_refuses_an_organization_name_nobody_can_see(db, client):
    response = client.post(
        "/accounts/signup/",
        {"email": "new@example.com", "password": "a-long-password", "organization": ZWSP * 4},
    )
    assert response.status_code == 400
    html = response.content.decode()
    assert marked_invalid(html, "id_organization") == "id_organization_error"
    assert "visible character" in html
    # the fields that were fine are not marked
    assert marked_invalid(html, "id_email") is None


# --- projects ---------------------------------------------------------------------------------


def test_creating_a_project_marks_the_name_with_the_problem(member):
    response = member.post("/", {"name": "ab", "description": "kept"})
    assert response.status_code == 400
    html = response.content.decode()
    assert marked_invalid(html, "id_name") == "id_name_error"
    assert 'id="id_name_error">A project&#x27;s name has 3 to 60 characters.' in html
    assert 'value="kept"' in html
    response = member.post("/", {"name": ZWSP * 3})
    assert marked_invalid(response.content.decode(), "id_name") == "id_name_error"


def test_renaming_says_the_length_as_creating_does(member, api, project):
    response = member.post(f"/projects/{project}/details/", {"name": ""})
    assert response.status_code == 400
    assert "name has 3 to 60 characters." in response.content.decode()


def test_a_wrong_confirmation_marks_the_field(member, api, project):
    response = member.post(f"/projects/{project}/delete/", {"confirm_name": "nope"})
    assert response.status_code == 400
    assert marked_invalid(response.content.decode(), "confirm_name") == "confirm_name_error"


# --- the service editor -------------------------------------------------------------------------


def test_a_long_bad_flow_is_quoted_short(member, project):
    flow = "x" * 300
    response = member.post(f"/projects/{project}/services/new/", {"name": "A", "flows": flow})
    assert response.status_code == 400
    html = response.content.decode()
    message = re.search(r'<p class="field-error">(Flow 1 [^<]*)</p>', html).group(1)
    assert "x" * 39 + "…" in message and "x" * 41 not in message
    assert message.endswith("At most 100 characters.")  # not DRF's "Ensure this field..."
    assert "Ensure this field" not in html
    assert marked_invalid(html, "id_flows")  # the box is marked too
    assert "100 characters" in html  # the hint says the limit before anyone trips on it


def test_a_bad_flow_is_counted_where_it_was_typed_empty_ones_included(member, project):
    """ "checkout, , x...": the empty one is left out of what is saved, but the long one is
    still the third the member typed, not the second."""
    flows = "checkout, , " + "x" * 120
    response = member.post(f"/projects/{project}/services/new/", {"name": "A", "flows": flows})
    assert response.status_code == 400
    html = response.content.decode()
    assert re.search(r'<p class="field-error">Flow 3 \(“x{39}…”\): At most 100', html)


def test_a_topic_row_without_a_name_says_what_to_do(member, project):
    response = member.post(
        f"/projects/{project}/services/new/",
        {"name": "A", "produces-name": [""], "produces-category": ["events"]},
    )
    assert response.status_code == 400
    html = response.content.decode()
    assert "A topic needs a name (or empty its row to leave it out)." in html
    row_name = re.search(r'<input[^>]*name="produces-name"[^>]*>', html).group(0)
    assert 'aria-invalid="true"' in row_name
    assert 'aria-describedby="produces-1-errors"' in row_name
    assert 'id="produces-1-errors"' in html


def test_services_are_listed_by_name(member, api, project):
    for name in ["zeta", "Alpha", "!!!", "beta"]:
        new_service(api, project, {"name": name})
    html = member.get(f"/projects/{project}/services/").content.decode()
    names = re.findall(r'aria-label="Edit ([^"]+)"', html)
    assert names == ["!!!", "Alpha", "beta", "zeta"]


def test_cancelling_a_delete_goes_back_where_it_came_from(member, api, project):
    new_service(api, project, {"name": "Checkout"})
    base = f"/projects/{project}/services/checkout"
    from_list = member.get(f"{base}/delete/").content.decode()
    assert f'href="/projects/{project}/services/" class="button secondary">Cancel' in from_list
    from_editor = member.get(f"{base}/delete/?from=edit").content.decode()
    assert f'href="{base}/edit/" class="button secondary">Cancel' in from_editor


# --- settings -------------------------------------------------------------------------------


def test_account_page_reports_every_password_problem_at_once(member):
    response = member.post(
        "/settings/account/",
        {"current": "not-it", "password": "a-new-password", "password2": "another-one"},
    )
    assert response.status_code == 400
    html = response.content.decode()
    assert "That is not your current password." in html
    assert "The two new passwords differ." in html
    response = member.post("/settings/account/", {"current": "", "password": "", "password2": ""})
    html = response.content.decode()
    assert "Enter your current password." in html and "Enter a new password." in html
    assert marked_invalid(html, "id_current") == "id_current_error"


def test_a_password_may_not_be_the_accounts_own_address(admin, member):
    own = admin.user.email
    form = {"current": "correct-horse-battery", "password": own, "password2": own}
    response = member.post("/settings/account/", form)
    assert response.status_code == 400
    assert "too similar to the email" in response.content.decode()
    assert admin.user.__class__.objects.get(pk=admin.user_id).check_password(
        "correct-horse-battery"
    )
    signup = {"email": "zoe.long@example.org", "password": "zoe.long@example.org"}
    refused = Client().post("/accounts/signup/", {**signup, "organization": "Zoe Co"})
    assert refused.status_code == 400 and "too similar to the email" in refused.content.decode()


def test_api_key_form_marks_the_field_in_question(member, org):
    response = member.post("/settings/api-keys/", {"action": "create", "name": "  "})
    assert response.status_code == 400
    html = response.content.decode()
    assert marked_invalid(html, "id_name") == "settings-error"
    assert marked_invalid(html, "id_expires") is None
    assert said_under(html, "id_name").startswith("Give the key a name")
    response = member.post(
        "/settings/api-keys/", {"action": "create", "name": "ci", "expires_in_days": "99999"}
    )
    html = response.content.decode()
    assert marked_invalid(html, "id_expires") == "settings-error expires-hint"
    assert marked_invalid(html, "id_name") is None
    assert said_under(html, "id_expires") is not None
    assert 'value="ci"' in html
    assert not ApiKey.objects.filter(name="ci").exists()
    # a name in use: said under the name, with what to do
    factory_key = member.post("/settings/api-keys/", {"action": "create", "name": "deploy"})
    assert factory_key.status_code == 200
    taken = member.post("/settings/api-keys/", {"action": "create", "name": "deploy"})
    assert taken.status_code == 409
    assert unescape(said_under(taken.content.decode(), "id_name")) == (
        "An active API key is named “deploy” already: choose another name, or revoke that "
        "key first."
    )


def test_revoking_a_key_and_removing_a_member_ask_first(member, factory, org):
    factory.key(org, "deploy")
    factory.member(org, email="bob@example.com")
    keys = member.get("/settings/api-keys/").content.decode()
    assert 'data-confirm="Revoke the key “deploy”?' in keys
    assert 'aria-label="Revoke deploy"' in keys
    members = member.get("/settings/members/").content.decode()
    assert 'data-confirm="Remove bob@example.com from the organization?' in members
    assert 'aria-label="Remove bob@example.com"' in members


def test_adding_a_member_without_an_email(member):
    response = member.post("/settings/members/", {"action": "add", "email": "", "role": "member"})
    assert response.status_code == 400
    html = response.content.decode()
    assert said_under(html, "id_email") == "Enter the e-mail address of the person to add."
    assert marked_invalid(html, "id_email") == "settings-error"
    response = member.post("/settings/members/", {"action": "add", "email": "bob@", "role": "x"})
    assert said_under(response.content.decode(), "id_role").startswith("role must be one of")


def test_waits_are_said_in_good_english():
    assert seconds_text(1) == "1 second"
    assert seconds_text(30) == "30 seconds"


def test_a_deleted_service_s_old_address_says_what_happened(member, api, project):
    new_service(api, project, {"name": "Checkout"})
    member.post(f"/projects/{project}/services/checkout/delete/")
    for path in ("edit", "delete"):
        response = member.get(f"/projects/{project}/services/checkout/{path}/")
        assert response.status_code == 404
        html = response.content.decode()
        assert "“Checkout” was deleted" in html
        assert re.search(r"deleted this service from “[^”]+” on <time", html)
        assert f'href="/projects/{project}/history/"' in html
    # an address that never was a service is the plain 404
    never = member.get(f"/projects/{project}/services/never-was/edit/")
    assert never.status_code == 404 and "was deleted" not in never.content.decode()
    # a name used again is the new service's address, not the old one's
    new_service(api, project, {"name": "Checkout", "description": "again"})
    again = member.get(f"/projects/{project}/services/checkout/edit/")
    assert again.status_code == 200 and ">again</textarea>" in again.content.decode()


def test_pages_and_their_redirects_are_not_stored_by_browsers(member, api, client, project):
    for response in (
        member.get("/"),
        member.get("/accounts/login/?next=/settings/"),  # logged in: a redirect
        client.get(f"/projects/{project}/"),  # logged out: a redirect to the login
        client.get("/accounts/login/"),
    ):
        assert response["Cache-Control"] == "no-store", response
    # the API keeps its own rules, static files and permanent redirects stay cacheable
    assert "no-store" not in api.get(f"/v1/projects/{project}").get("Cache-Control", "")
    assert not client.get("/favicon.ico").has_header("Cache-Control")


def test_an_old_slug_says_what_became_of_the_service(api, project):
    base = f"/v1/projects/{project}/services"
    new_service(api, project, {"name": "Shipping"})
    api.put(f"{base}/shipping", {"name": "Shipping Gateway"}, content_type="application/json")
    for method, path in (("get", ""), ("put", ""), ("delete", ""), ("get", "/raw")):
        response = getattr(api, method)(
            f"{base}/shipping{path}", {}, content_type="application/json"
        )
        assert response.status_code == 404
        assert response.json()["code"] == "service_not_found"
        assert response.json()["message"] == (
            "No service 'shipping': it was renamed, and is now 'shipping-gateway' "
            "(Shipping Gateway)."
        )
    api.delete(f"{base}/shipping-gateway")
    gone = api.get(f"{base}/shipping-gateway").json()["message"]
    assert re.fullmatch(r"No service 'shipping-gateway': it was deleted at \S+Z\.", gone)
    never = api.get(f"{base}/never-was").json()
    assert never == {
        "status": 404,
        "code": "service_not_found",
        "message": "No service 'never-was' in this project.",
    }
    for path in ("", "/raw"):
        past = api.get(f"{base}/never-was{path}?at=2001-01-01T00:00:00Z").json()["message"]
        assert past == "No service 'never-was' in this project at that time."


def test_a_missing_project_is_named_back(api, factory):
    response = api.get("/v1/projects/ci-shop/services")  # the name used as an id
    assert response.status_code == 404
    assert response.json()["message"] == (
        "No project 'ci-shop' in this organization (GET /v1/projects lists the ids)."
    )
    # another organization's project reads exactly like one that does not exist
    theirs = new_project(factory.key_client(factory.org("globex"), "ci"), "Theirs")
    other = api.get(f"/v1/projects/{theirs}").json()["message"]
    assert other == f"No project '{theirs}' in this organization (GET /v1/projects lists the ids)."


def test_a_taken_name_says_which_service_has_it(api, project):
    """A script learns where to PUT instead, and "Cart!" that it clashes with "Cart": the
    409 said only "A service with this name exists." """
    base = f"/v1/projects/{project}/services"
    new_service(api, project, {"name": "Cart"})
    new_service(api, project, {"name": "Cart API"})
    same = api.post(base, {"name": "Cart"}, content_type="application/json")
    assert same.status_code == 409 and same.json()["code"] == "service_name_conflict"
    assert same.json()["message"] == (
        "A service named 'Cart' exists in this project, at the slug 'cart' "
        "(PUT .../services/cart changes it)."
    )
    close = api.post(base, {"name": "Cart!"}, content_type="application/json")
    assert close.json()["message"] == (
        "The name 'Cart!' makes the slug 'cart', which the service 'Cart' has; "
        "choose a more different name."
    )
    renamed = api.put(f"{base}/cart-api", {"name": "cart"}, content_type="application/json")
    assert renamed.status_code == 409
    assert "which the service 'Cart' has" in renamed.json()["message"]
