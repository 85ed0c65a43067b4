"""Paddle Billing over its REST API; a cycle is changed by moving the subscription to the
plan's price for it (PADDLE_PRICE_<PLAN>_<CYCLE>)."""

import json
import logging
import urllib.error
import urllib.parse
import urllib.request
from datetime import datetime

from django.conf import settings
from django.utils.dateparse import parse_datetime

from billing.models import Subscription
from billing.providers.base import ProviderError

logger = logging.getLogger("archsvc.billing")

INTERVALS = {"month": "monthly", "year": "annual"}


def paddle_fields(entity: dict) -> dict:
    """Our subscription fields from a Paddle subscription entity."""
    fields = {}
    cycle_entity = entity.get("billing_cycle")
    interval = cycle_entity.get("interval") if isinstance(cycle_entity, dict) else None
    if isinstance(interval, str) and interval in INTERVALS:
        fields["billing_cycle"] = INTERVALS[interval]
    period = entity.get("current_billing_period")
    if isinstance(period, dict) and isinstance(period.get("ends_at"), str):
        fields["current_period_end"] = _time(period["ends_at"])
    if "next_billed_at" in entity:
        value = entity["next_billed_at"]
        fields["next_billed_at"] = _time(value) if isinstance(value, str) else None
    return fields


def _time(value: str) -> datetime | None:
    try:
        return parse_datetime(value)
    except (TypeError, ValueError):
        return None


class PaddleProvider:
    name = "paddle"

    def _call(self, method: str, path: str, body: dict) -> dict:
        base = settings.PADDLE_API_BASE_URL.rstrip("/")
        parts = urllib.parse.urlsplit(base)
        loopback = parts.scheme == "http" and parts.hostname in ("127.0.0.1", "localhost")
        if parts.scheme != "https" and not loopback:
            raise ProviderError("PADDLE_API_BASE_URL must be https.")
        request = urllib.request.Request(  # noqa: S310 - scheme checked above
            f"{base}{path}",
            method=method,
            data=json.dumps(body).encode(),
            headers={
                "Authorization": f"Bearer {settings.PADDLE_API_KEY}",
                "Content-Type": "application/json",
                "Accept": "application/json",
            },
        )
        try:
            with urllib.request.urlopen(  # noqa: S310 - the scheme is checked above
                request, timeout=settings.PADDLE_TIMEOUT_SECONDS
            ) as r:
                return json.loads(r.read())["data"]
        except urllib.error.HTTPError as error:
            detail = error.read()[:500].decode("utf-8", "replace")
            logger.warning("paddle %s %s answered %s: %s", method, path, error.code, detail)
            raise ProviderError(
                f"Paddle, the billing provider, answered {error.code}; try again in a few minutes."
            ) from error
        except (urllib.error.URLError, OSError, ValueError, KeyError, TypeError) as error:
            logger.warning("paddle %s %s failed: %s", method, path, error)
            raise ProviderError(
                "Paddle, the billing provider, could not be reached; try again in a few minutes."
            ) from error

    def checkout_url(self, organization, *, base_url: str) -> str | None:
        """The site's own checkout page (Paddle.js runs there, not in this app), told which
        organization is subscribing; it sets `custom_data.organization` to that slug."""
        if not settings.BILLING_CHECKOUT_URL:
            return None
        query = urllib.parse.urlencode({"organization": organization.slug})
        separator = "&" if "?" in settings.BILLING_CHECKOUT_URL else "?"
        return f"{settings.BILLING_CHECKOUT_URL}{separator}{query}"

    def portal_url(self, subscription: Subscription, *, base_url: str) -> str:
        customer = urllib.parse.quote(subscription.provider_customer_id, safe="")
        data = self._call(
            "POST",
            f"/customers/{customer}/portal-sessions",
            {"subscription_ids": [subscription.provider_subscription_id]},
        )
        try:
            return data["urls"]["general"]["overview"]
        except (KeyError, TypeError) as error:
            raise ProviderError("Paddle's portal session had no URL.") from error

    def switch_cycle(self, subscription: Subscription, cycle: str) -> dict:
        fields = self._price_change(subscription, subscription.plan, cycle)
        fields.setdefault("billing_cycle", cycle)
        return fields

    def change_plan(self, subscription: Subscription, plan: str) -> dict:
        fields = self._price_change(subscription, plan, subscription.billing_cycle)
        fields["plan"] = plan
        return fields

    def _price_change(self, subscription: Subscription, plan: str, cycle: str) -> dict:
        """The subscription's item set to the price of `plan` billed by `cycle`."""
        price = settings.PADDLE_PRICES.get(f"{plan}:{cycle}")
        if not price:
            billed = "annually" if cycle == "annual" else "monthly"
            raise ProviderError(
                f"this server has no Paddle price for the {plan} plan billed "
                f"{billed}; the people who run it set its price id in "
                f"PADDLE_PRICE_{plan.upper()}_{cycle.upper()}."
            )
        subscription_id = urllib.parse.quote(subscription.provider_subscription_id, safe="")
        data = self._call(
            "PATCH",
            f"/subscriptions/{subscription_id}",
            {
                "items": [{"price_id": price, "quantity": 1}],
                # a paused subscription takes no other (Paddle's 400
                # subscription_incorrect_proration_on_paused_subscription): nothing is
                # charged now, the new cycle is billed from when it resumes
                "proration_billing_mode": (
                    "do_not_bill"
                    if subscription.status == Subscription.STATUS_PAUSED
                    else "prorated_immediately"
                ),
            },
        )
        return paddle_fields(data)
