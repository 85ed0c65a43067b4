"""GET subscription and limits, switch-cycle and portal-session (with the local provider),
and the local provider's portal page, per endpoint and permission."""

import re
import time

import pytest
from django.core import signing
from django.test import Client

from billing.models import Subscription
from billing.providers.local import PORTAL_SALT, portal_token
from billing.tests.helpers import member_api, post, subscribe, subscription_state

ISO_Z = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$")
SWITCH = "/v1/billing/subscription/switch-cycle"
PORTAL = "/v1/billing/portal-session"


def new_project(client: Client, name: str) -> None:
    response = post(client, "/v1/projects", {"name": name, "description": ""})
    assert response.status_code == 200, response.content


def limits(client: Client) -> dict:
    response = client.get("/v1/limits")
    assert response.status_code == 200
    return response.json()


def billing_admin(factory, org) -> Client:
    return factory.key_client(org, "billing-admin", permissions=["billing:manage"])


# --- GET /v1/billing/subscription -------------------------------------------------------------


def test_subscription_is_status_none_without_one(api):
    response = api.get("/v1/billing/subscription")
    assert response.status_code == 200
    assert response.json() == {"status": "none"}


def test_subscription_has_its_full_shape_after_set_subscription(api, org):
    subscribe(org, plan="team", status="active", cycle="annual")
    response = api.get("/v1/billing/subscription")
    assert response.status_code == 200
    body = response.json()
    assert set(body) == {
        "status",
        "planName",
        "billingCycle",
        "currentPeriodEnd",
        "providerCustomerId",
        "providerSubscriptionId",
        "nextBilledAt",
    }
    assert body["status"] == "active"
    assert body["planName"] == "team"
    assert body["billingCycle"] == "annual"
    assert body["providerCustomerId"] and body["providerSubscriptionId"]
    assert ISO_Z.match(body["currentPeriodEnd"]) and ISO_Z.match(body["nextBilledAt"])


def test_subscription_of_another_organization_is_not_seen(factory, api):
    subscribe(factory.org("other"), plan="business")
    assert api.get("/v1/billing/subscription").json() == {"status": "none"}


def test_a_canceled_subscription_has_no_next_billing_date(api, org):
    subscribe(org, status="canceled")
    body = api.get("/v1/billing/subscription").json()
    assert body["status"] == "canceled"
    assert "nextBilledAt" not in body


# --- GET /v1/limits ----------------------------------------------------------------------------


def test_limits_of_a_new_organization_are_the_free_plan(api):
    assert limits(api) == {"currentProjects": 0, "maxProjects": 3}


def test_limits_count_the_projects_of_the_organization_only(factory, api):
    new_project(api, "Payments")
    new_project(api, "Checkout")
    new_project(factory.key_client(factory.org("other")), "Elsewhere")
    assert limits(api) == {"currentProjects": 2, "maxProjects": 3}


@pytest.mark.parametrize(
    ("plan", "status", "expected"),
    [
        ("team", "active", 25),
        ("business", "active", 250),
        ("team", "trialing", 25),
        ("business", "past_due", 250),
        ("team", "paused", 3),
        ("business", "canceled", 3),
    ],
)
def test_limits_follow_the_plan_of_the_current_status(api, org, plan, status, expected):
    subscribe(org, plan=plan, status=status)
    assert limits(api)["maxProjects"] == expected


def test_limits_rise_and_fall_with_the_subscription(api, org):
    new_project(api, "Payments")
    subscribe(org, plan="team")
    assert limits(api) == {"currentProjects": 1, "maxProjects": 25}
    subscribe(org, plan="team", status="canceled")
    assert limits(api) == {"currentProjects": 1, "maxProjects": 3}


# --- POST /v1/billing/subscription/switch-cycle -------------------------------------------------


def test_switch_cycle_returns_the_updated_subscription(factory, org):
    subscribe(org, cycle="monthly")
    client = billing_admin(factory, org)
    response = post(client, SWITCH, {"billingCycle": "annual"})
    assert response.status_code == 200
    body = response.json()
    assert body["billingCycle"] == "annual"
    assert body["status"] == "active" and body["planName"] == "team"
    assert client.get("/v1/billing/subscription").json() == body


def test_a_paused_subscriptions_cycle_switches_without_starting_a_period(factory, org):
    """Nothing is billed while it is paused: the new cycle applies from when it resumes (a
    new annual period had started, for a plan not in force)."""
    subscribe(org, cycle="monthly", status="paused")
    before = subscription_state(org)
    client = billing_admin(factory, org)
    response = post(client, SWITCH, {"billingCycle": "annual"})
    assert response.status_code == 200
    assert response.json()["billingCycle"] == "annual" and response.json()["status"] == "paused"
    after = subscription_state(org)
    assert after["current_period_end"] == before["current_period_end"]
    assert after["next_billed_at"] is None
    # the page asks without speaking of a charge now, and says what it did without a new
    # period ("the new period ends" the old period's end)
    admin = factory.member_client(factory.member(org, role="admin"), enforce_csrf=False)
    page = admin.get("/settings/billing/")
    assert "It is paused: nothing is charged now" in page.content.decode()
    done = admin.post("/settings/billing/", {"cycle": "monthly"}, follow=True).content.decode()
    assert "The subscription will be billed monthly from when it resumes." in done
    assert "new period" not in done


def test_switch_cycle_to_the_same_cycle_is_200_and_changes_nothing(factory, org):
    subscribe(org, cycle="annual")
    before = subscription_state(org)
    client = billing_admin(factory, org)
    shown = client.get("/v1/billing/subscription").json()
    response = post(client, SWITCH, {"billingCycle": "annual"})
    assert response.status_code == 200
    assert response.json() == shown
    assert subscription_state(org) == before


def test_switch_cycle_is_allowed_for_an_admin_member_with_csrf(factory, org):
    subscribe(org, cycle="annual")
    client = member_api(factory, org, role="admin")
    response = post(client, SWITCH, {"billingCycle": "monthly"})
    assert response.status_code == 200
    assert response.json()["billingCycle"] == "monthly"


def test_switch_cycle_by_an_admin_member_without_csrf_is_refused(factory, org):
    subscribe(org, cycle="annual")
    before = subscription_state(org)
    client = factory.member_client(factory.member(org, role="admin"))
    response = post(client, SWITCH, {"billingCycle": "monthly"})
    assert response.status_code == 403
    assert response.json()["code"] == "forbidden"
    assert subscription_state(org) == before


@pytest.mark.parametrize("caller", ["member", "key", "key-projects-manage"])
def test_switch_cycle_is_forbidden_without_billing_rights(factory, org, caller):
    subscribe(org, cycle="monthly")
    before = subscription_state(org)
    client = {
        "member": lambda: member_api(factory, org, role="member"),
        "key": lambda: factory.key_client(org, "plain"),
        "key-projects-manage": lambda: factory.key_client(
            org, "pm", permissions=["projects:manage"]
        ),
    }[caller]()
    response = post(client, SWITCH, {"billingCycle": "annual"})
    assert response.status_code == 403
    assert response.json()["code"] == "forbidden"
    assert subscription_state(org) == before
    assert client.get("/v1/billing/subscription").json()["billingCycle"] == "monthly"


def test_switch_cycle_forbidden_comes_before_body_validation(factory, org):
    subscribe(org)
    response = post(factory.key_client(org, "plain"), SWITCH, {"billingCycle": "weekly"})
    assert response.status_code == 403


@pytest.mark.parametrize("role", ["admin-member", "billing-key"])
def test_switch_cycle_without_a_subscription_is_404(factory, org, role):
    client = (
        member_api(factory, org, role="admin")
        if role == "admin-member"
        else billing_admin(factory, org)
    )
    # whatever the body: with nothing to switch, what is wrong with it does not matter
    for body in ({"billingCycle": "annual"}, {"billingCycle": "weekly"}, {}, {"billingCycle": 5}):
        response = post(client, SWITCH, body)
        assert response.status_code == 404, body
        assert response.json()["code"] == "subscription_not_found"
    assert subscription_state(org) is None


@pytest.mark.parametrize("cycle", ["weekly", "ANNUAL", "", " monthly", "annual ", "x" * 41])
def test_switch_cycle_to_an_unknown_cycle_is_invalid_billing_cycle(factory, org, cycle):
    """ "", 41 characters were validation_failed, and " monthly" was trimmed and switched."""
    subscribe(org, cycle="annual")
    before = subscription_state(org)
    response = post(billing_admin(factory, org), SWITCH, {"billingCycle": cycle})
    assert response.status_code == 400
    body = response.json()
    assert body["code"] == "invalid_billing_cycle" and body["status"] == 400
    assert subscription_state(org) == before


@pytest.mark.parametrize(
    ("body", "field"),
    [
        (None, "body"),
        ({}, "billingCycle"),
        ({"billingCycle": "annual", "extra": 1}, "extra"),
        ({"billingCycle": 12}, "billingCycle"),
        ({"billingCycle": None}, "billingCycle"),
        ({"billingCycle": ["annual"]}, "billingCycle"),
    ],
)
def test_switch_cycle_with_a_bad_body_is_validation_failed(factory, org, body, field):
    subscribe(org)
    before = subscription_state(org)
    response = post(billing_admin(factory, org), SWITCH, body)
    assert response.status_code == 400, response.content
    payload = response.json()
    assert payload["code"] == "validation_failed"
    assert field in [v["field"] for v in payload["violations"]]
    assert subscription_state(org) == before


def test_switch_cycle_with_malformed_json_changes_nothing(factory, org):
    subscribe(org)
    before = subscription_state(org)
    response = billing_admin(factory, org).post(
        SWITCH, '{"billingCycle": ', content_type="application/json"
    )
    assert response.status_code == 400
    assert subscription_state(org) == before


# --- POST /v1/billing/portal-session -------------------------------------------------------------


@pytest.mark.parametrize("caller", ["member", "key"])
def test_portal_session_is_forbidden_without_billing_rights(factory, org, caller):
    subscribe(org)
    client = member_api(factory, org) if caller == "member" else factory.key_client(org, "x")
    response = post(client, PORTAL)
    assert response.status_code == 403
    assert response.json()["code"] == "forbidden"


def test_portal_session_without_a_subscription_is_404(factory, org):
    response = post(billing_admin(factory, org), PORTAL)
    assert response.status_code == 404
    assert response.json()["code"] == "subscription_not_found"


def test_portal_session_without_a_provider_customer_is_customer_not_found(factory, org):
    subscribe(org)
    Subscription.objects.filter(organization=org).update(provider_customer_id="")
    response = post(billing_admin(factory, org), PORTAL)
    assert response.status_code == 404
    assert response.json()["code"] == "customer_not_found"


def portal_url(client: Client) -> str:
    response = post(client, PORTAL)
    assert response.status_code == 200, response.content
    url = response.json()["url"]
    assert re.match(r"^http://testserver/billing/portal/[^/]+/$", url), url
    return url.removeprefix("http://testserver")


@pytest.mark.parametrize("caller", ["admin-member", "billing-key"])
def test_portal_session_with_the_local_provider_opens_this_apps_portal(factory, org, caller):
    subscribe(org, plan="team", cycle="monthly")
    client = (
        member_api(factory, org, role="admin")
        if caller == "admin-member"
        else billing_admin(factory, org)
    )
    path = portal_url(client)
    page = Client().get(path)
    assert page.status_code == 200
    html = page.content.decode()
    assert "Acme" in html and "team" in html


def test_the_local_portal_form_changes_the_plan(factory, org):
    subscribe(org, plan="team", cycle="monthly")
    api_client = billing_admin(factory, org)
    path = portal_url(api_client)
    browser = Client(enforce_csrf_checks=True)
    page = browser.get(path)
    csrf = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page.content.decode())
    assert csrf
    response = browser.post(
        path,
        {
            "plan": "business",
            "cycle": "annual",
            "status": "active",
            "csrfmiddlewaretoken": csrf.group(1),
        },
    )
    assert response.status_code == 302 and path.endswith(response["Location"])
    page = browser.get(response["Location"]).content.decode()
    assert 'role="status">Saved: the organization is on the business' in page
    body = api_client.get("/v1/billing/subscription").json()
    assert body["planName"] == "business" and body["billingCycle"] == "annual"
    assert api_client.get("/v1/limits").json()["maxProjects"] == 250


def test_the_local_portal_form_without_csrf_changes_nothing(factory, org):
    subscribe(org)
    path = portal_url(billing_admin(factory, org))
    before = subscription_state(org)
    response = Client(enforce_csrf_checks=True).post(
        path, {"plan": "business", "cycle": "annual", "status": "active"}
    )
    assert response.status_code == 403
    assert subscription_state(org) == before


def test_the_local_portal_form_refuses_an_unknown_plan(factory, org):
    subscribe(org)
    path = portal_url(billing_admin(factory, org))
    before = subscription_state(org)
    response = Client().post(path, {"plan": "platinum", "cycle": "annual", "status": "active"})
    assert response.status_code == 400
    assert subscription_state(org) == before


def test_a_portal_link_is_dead_once_the_server_runs_a_real_provider(factory, org, settings):
    """A link minted under the local provider gives no plan away after a switch to Paddle
    (or from a server of the fleet still on local settings)."""
    subscribe(org, plan="team", cycle="monthly")
    path = portal_url(billing_admin(factory, org))
    before = subscription_state(org)
    settings.BILLING_PROVIDER = "paddle"
    page = Client().get(path)
    assert page.status_code == 404
    assert "through the payment provider" in page.content.decode()
    response = Client().post(path, {"plan": "business", "cycle": "annual", "status": "active"})
    assert response.status_code == 404
    assert subscription_state(org) == before


@pytest.mark.parametrize(
    "token",
    [
        "garbage",
        "eyJvcmciOjF9:1tQ0aX:not-a-signature",
        signing.dumps({"org": 1}, salt="another.salt"),
    ],
)
def test_a_forged_or_garbled_portal_token_is_404(org, token):
    assert Client().get(f"/billing/portal/{token}/").status_code == 404
    assert (
        Client()
        .post(f"/billing/portal/{token}/", {"plan": "business", "cycle": "annual"})
        .status_code
        == 404
    )
    assert subscription_state(org) is None


def test_a_tampered_portal_token_is_404(factory, org):
    other = factory.org("other")
    token = portal_token(org.pk)
    forged = (
        signing.dumps({"org": other.pk}, salt=PORTAL_SALT).split(":")[0] + token[token.index(":") :]
    )
    assert Client().get(f"/billing/portal/{forged}/").status_code == 404


def test_a_portal_link_older_than_an_hour_is_404(org, monkeypatch):
    subscribe(org)
    real_time = time.time
    with monkeypatch.context() as patch:
        patch.setattr(time, "time", lambda: real_time() - 3601)
        token = portal_token(org.pk)
    assert Client().get(f"/billing/portal/{token}/").status_code == 404
