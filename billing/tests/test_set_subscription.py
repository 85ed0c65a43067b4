"""`manage.py set_subscription`: writes the subscription as the provider would (interface §13)."""

import io
import logging

import pytest
from django.core.management import CommandError, call_command

from billing.models import Subscription
from billing.tests.helpers import post


def run(*args: str) -> str:
    out = io.StringIO()
    call_command("set_subscription", *args, stdout=out)
    return out.getvalue()


def test_it_creates_a_subscription_with_provider_ids_and_prints_it(api, org):
    output = run("--org", "acme", "--plan", "team", "--status", "active", "--cycle", "annual")
    subscription = Subscription.objects.get(organization=org)
    assert (subscription.plan, subscription.status, subscription.billing_cycle) == (
        "team",
        "active",
        "annual",
    )
    assert subscription.provider_customer_id and subscription.provider_subscription_id
    assert subscription.current_period_end and subscription.next_billed_at
    assert "acme" in output and "team" in output and "annual" in output and "active" in output
    assert subscription.provider_customer_id in output
    assert subscription.provider_subscription_id in output


def test_the_cycle_defaults_to_monthly(org):
    run("--org", "acme", "--plan", "business", "--status", "trialing")
    assert Subscription.objects.get(organization=org).billing_cycle == "monthly"


def test_running_it_again_updates_the_subscription_and_keeps_its_ids(api, org):
    run("--org", "acme", "--plan", "team", "--status", "active")
    first = Subscription.objects.get(organization=org)
    run("--org", "acme", "--plan", "business", "--status", "past_due", "--cycle", "annual")
    assert Subscription.objects.filter(organization=org).count() == 1
    second = Subscription.objects.get(organization=org)
    assert (second.plan, second.status, second.billing_cycle) == ("business", "past_due", "annual")
    assert second.provider_customer_id == first.provider_customer_id
    assert second.provider_subscription_id == first.provider_subscription_id
    body = api.get("/v1/billing/subscription").json()
    assert (body["planName"], body["status"], body["billingCycle"]) == (
        "business",
        "past_due",
        "annual",
    )


def test_the_subscription_it_writes_opens_a_portal_session(factory, org):
    run("--org", "acme", "--plan", "team", "--status", "active")
    client = factory.key_client(org, "billing", permissions=["billing:manage"])
    response = post(client, "/v1/billing/portal-session")
    assert response.status_code == 200
    assert "/billing/portal/" in response.json()["url"]


def test_an_unknown_organization_is_refused(db):
    with pytest.raises(CommandError, match="nobody"):
        run("--org", "nobody", "--plan", "team", "--status", "active")
    assert not Subscription.objects.exists()


@pytest.mark.parametrize(
    "args",
    [
        ("--plan", "free", "--status", "active"),
        ("--plan", "platinum", "--status", "active"),
        ("--plan", "team", "--status", "expired"),
        ("--plan", "team", "--status", "none"),
        ("--plan", "team", "--status", "active", "--cycle", "weekly"),
        ("--status", "active"),
        ("--plan", "team"),
    ],
)
def test_bad_arguments_are_refused_and_change_nothing(org, args):
    with pytest.raises(CommandError):
        run("--org", "acme", *args)
    assert not Subscription.objects.filter(organization=org).exists()


def test_a_providers_subscription_is_written_over_only_when_forced(api, org, caplog):
    """Paddle still bills what it has, and its next event writes it back: the command said
    nothing and rewrote it; and nothing said who gave the organization which plan."""
    run("--org", "acme", "--plan", "team", "--status", "active")
    Subscription.objects.filter(organization=org).update(
        provider="paddle", provider_subscription_id="sub_paddle_1"
    )
    with pytest.raises(CommandError, match=r"Paddle's \(sub_paddle_1: team, active\).*--force"):
        run("--org", "acme", "--plan", "business", "--status", "active")
    assert Subscription.objects.get(organization=org).plan == "team"
    with caplog.at_level(logging.INFO, logger="archsvc.billing"):
        run("--org", "acme", "--plan", "business", "--status", "active", "--force")
    assert Subscription.objects.get(organization=org).plan == "business"
    assert "set_subscription: acme now business monthly active (was team monthly active)" in (
        caplog.text
    )


def test_a_plan_given_after_a_providers_subscription_ended_is_the_local_providers(org):
    """No --force needed once Paddle's subscription is canceled; and the plan given is not
    written onto the dead subscription's ids (the portal and the cycle switch called Paddle
    about it)."""
    run("--org", "acme", "--plan", "team", "--status", "active")
    Subscription.objects.filter(organization=org).update(
        provider="paddle", provider_subscription_id="sub_paddle_1", status="canceled"
    )
    run("--org", "acme", "--plan", "business", "--status", "active")
    given = Subscription.objects.get(organization=org)
    assert (given.provider, given.plan, given.status) == ("local", "business", "active")
    assert given.provider_subscription_id == "sub_local_acme"
