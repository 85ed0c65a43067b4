"""What archsvc asks of a billing provider."""

from typing import Protocol

from billing.models import Subscription


class ProviderError(Exception):
    """The provider refused or could not be reached; nothing was changed here."""


class BillingProvider(Protocol):
    name: str

    def portal_url(self, subscription: Subscription, *, base_url: str) -> str:
        """A URL of the customer portal for the subscription's customer."""

    def checkout_url(self, organization, *, base_url: str) -> str | None:
        """Where an organization without a subscription chooses a plan, or None when this
        server has no such page (then operators set plans with set_subscription)."""

    def switch_cycle(self, subscription: Subscription, cycle: str) -> dict:
        """Tell the provider; the subscription's fields as the provider now has them
        (`billing_cycle`, and `current_period_end` / `next_billed_at` when it says)."""

    def change_plan(self, subscription: Subscription, plan: str) -> dict:
        """Move the subscription to another plan in its cycle (prorated at once); its fields as the
        provider now has them."""
