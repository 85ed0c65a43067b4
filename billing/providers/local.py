"""The local provider: no account, no network. Its customer portal is a page of this app,
reached by a signed link that lasts an hour, where plan and cycle can be changed."""

from django.core import signing

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


class LocalProvider:
    name = "local"

    def portal_url(self, subscription: Subscription, *, base_url: str) -> str:
        token = portal_token(subscription.organization_id)
        return f"{base_url.rstrip('/')}/billing/portal/{token}/"

    def checkout_url(self, organization, *, base_url: str) -> str | None:
        """The local portal doubles as the checkout: no payment is taken."""
        return f"{base_url.rstrip('/')}/billing/portal/{portal_token(organization.pk)}/"

    def switch_cycle(self, subscription: Subscription, cycle: str) -> dict:
        return {"billing_cycle": cycle}
