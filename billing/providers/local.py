"""The local provider: no account, no network. Its customer portal is a page of this app,
reached by a signed link that lasts an hour, where plan and cycle can be changed."""

from datetime import timedelta

from django.core import signing
from django.utils import timezone

from billing.models import Subscription

PORTAL_SALT = "billing.local-portal"
PORTAL_MAX_AGE = 3600


def portal_token(organization_id: int) -> str:
    return signing.dumps({"org": organization_id}, salt=PORTAL_SALT)


def portal_organization_id(token: str) -> int | None:
    """The organization a portal link was made for, or None when forged or expired."""
    try:
        return int(signing.loads(token, salt=PORTAL_SALT, max_age=PORTAL_MAX_AGE)["org"])
    except (signing.BadSignature, KeyError, TypeError, ValueError):
        return None


def period_end_from(start, cycle: str):
    """The end of a billing period that starts at `start` (months of 30 days, years of 365),
    for what this provider and operators' `set_subscription` write."""
    return start + (timedelta(days=365) if cycle == "annual" else timedelta(days=30))


class LocalProvider:
    name = "local"

    def portal_url(self, subscription: Subscription, *, base_url: str) -> str:
        token = portal_token(subscription.organization_id)
        return f"{base_url.rstrip('/')}/billing/portal/{token}/"

    def checkout_url(self, organization, *, base_url: str) -> str | None:
        """The local portal doubles as the checkout: no payment is taken."""
        return f"{base_url.rstrip('/')}/billing/portal/{portal_token(organization.pk)}/"

    def change_plan(self, subscription: Subscription, plan: str) -> dict:
        """As Paddle does with prorated_immediately: the plan changes now, the period stays."""
        return {"plan": plan}

    def switch_cycle(self, subscription: Subscription, cycle: str) -> dict:
        """As Paddle's prorated_immediately: the new cycle starts now; a paused subscription
        keeps its period, billed from when it resumes."""
        if subscription.status == Subscription.STATUS_PAUSED:
            return {"billing_cycle": cycle}
        period_end = period_end_from(timezone.now(), cycle)
        fields = {"billing_cycle": cycle, "current_period_end": period_end}
        if subscription.next_billed_at is not None:  # a paused one stays without a next bill
            fields["next_billed_at"] = period_end
        return fields
