"""Small helpers for the billing tests: JSON calls, clients, and the subscription's state."""

import io
import json
import time

from django.core.management import call_command
from django.test import Client

from accounts.models import Organization
from billing.models import Subscription
from billing.signatures import signature_header


def post(client: Client, path: str, body=None, **extra):
    """A JSON POST; `body=None` sends no body at all."""
    data = "" if body is None else json.dumps(body)
    return client.post(path, data, content_type="application/json", **extra)


def member_api(factory, org: Organization, role: str = "member") -> Client:
    """A logged-in member's client that sends the CSRF token on every request."""
    client = factory.member_client(factory.member(org, role=role))
    assert client.get("/").status_code == 200
    client.defaults["HTTP_X_CSRFTOKEN"] = client.cookies["csrftoken"].value
    return client


def subscribe(
    org: Organization, plan: str = "team", status: str = "active", cycle: str = "monthly"
) -> None:
    call_command(
        "set_subscription",
        "--org",
        org.slug,
        "--plan",
        plan,
        "--status",
        status,
        "--cycle",
        cycle,
        stdout=io.StringIO(),
    )


def subscription_state(org: Organization) -> dict | None:
    """Every stored field of the organization's subscription (None without one)."""
    return Subscription.objects.filter(organization=org).values().first()


def sign(body: bytes, secret: str = "whsec_test", timestamp: int | None = None) -> str:
    return signature_header(
        body, secret=secret, timestamp=int(time.time()) if timestamp is None else timestamp
    )


def deliver(
    body,
    *,
    secret: str = "whsec_test",
    header: str | None = None,
    timestamp: int | None = None,
    sign_it: bool = True,
):
    """POST /webhooks/billing as the provider: `body` a dict (sent as JSON) or raw bytes,
    signed with `secret` unless a `header` is given or `sign_it` is false."""
    raw = body if isinstance(body, bytes) else json.dumps(body).encode()
    extra = {}
    if header is not None:
        extra["HTTP_PADDLE_SIGNATURE"] = header
    elif sign_it:
        extra["HTTP_PADDLE_SIGNATURE"] = sign(raw, secret, timestamp)
    return Client().post("/webhooks/billing", raw, content_type="application/json", **extra)


def paddle_event(
    org_slug: str | None,
    *,
    event_id: str,
    status: str = "active",
    occurred_at: str = "2025-03-01T10:00:00.000000Z",
    event_type: str = "subscription.updated",
    interval: str = "month",
    price: str | None = None,
    plan: str | None = "team",
    subscription_id: str = "sub_01hv8x29kz0t586xy6zn1a62ny",
    customer_id: str = "ctm_01hv6y1jedq4p1n0yqn5ba3ky4",
    period_end: str = "2025-04-01T10:00:00.000000Z",
    next_billed_at: str | None = "2025-04-01T10:00:00.000000Z",
) -> dict:
    """A subscription event shaped like Paddle Billing's (notification payload v1). Its item's
    price is the configured one of `plan` (team when None) for the interval, unless given."""
    if price is None:
        from django.conf import settings

        cycle = "annual" if interval == "year" else "monthly"
        price = settings.PADDLE_PRICES.get(f"{plan or 'team'}:{cycle}") or "pri_01unconfigured"
    custom_data = {}
    if org_slug is not None:
        custom_data["organization"] = org_slug
    if plan is not None:
        custom_data["plan"] = plan
    return {
        "event_id": event_id,
        "event_type": event_type,
        "occurred_at": occurred_at,
        "notification_id": "ntf_" + event_id.removeprefix("evt_"),
        "data": {
            "id": subscription_id,
            "status": status,
            "customer_id": customer_id,
            "address_id": "add_01hv8gq3318ktkfengj2r75gfx",
            "business_id": None,
            "currency_code": "USD",
            "created_at": "2025-03-01T10:00:00.000000Z",
            "updated_at": occurred_at,
            "started_at": "2025-03-01T10:00:00.000000Z",
            "first_billed_at": "2025-03-01T10:00:00.000000Z",
            "next_billed_at": next_billed_at,
            "paused_at": None,
            "canceled_at": None,
            "collection_mode": "automatic",
            "billing_details": None,
            "current_billing_period": {
                "starts_at": "2025-03-01T10:00:00.000000Z",
                "ends_at": period_end,
            },
            "billing_cycle": {"interval": interval, "frequency": 1},
            "scheduled_change": None,
            "items": [
                {
                    "status": "active",
                    "quantity": 1,
                    "recurring": True,
                    "price": {
                        "id": price,
                        "product_id": "pro_01hv8p2sr2y1hq4ztqcwd1pxhj",
                        "billing_cycle": {"interval": interval, "frequency": 1},
                    },
                }
            ],
            "custom_data": custom_data or None,
            "management_urls": {
                "update_payment_method": "https://buyer-portal.paddle.com/subscriptions/"
                "sub_01hv8x29kz0t586xy6zn1a62ny/update-payment-method",
                "cancel": "https://buyer-portal.paddle.com/subscriptions/"
                "sub_01hv8x29kz0t586xy6zn1a62ny/cancel",
            },
            "discount": None,
            "import_meta": None,
        },
    }
