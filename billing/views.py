"""The payment provider's webhook, and the local provider's customer portal page."""

import json
import logging
import time

from django.conf import settings
from django.contrib import messages
from django.db import DataError
from django.http import JsonResponse
from django.shortcuts import redirect, render
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_http_methods, require_POST

from accounts.models import Organization
from archsvc.api.errors import error_body
from archsvc.exceptions import ApiError
from billing.models import Subscription
from billing.providers.local import portal_organization_id
from billing.selectors import plan_of, subscription_get
from billing.services import subscription_set
from billing.signatures import signature_valid
from billing.webhooks import WebhookRejected, webhook_apply

logger = logging.getLogger("archsvc.billing")

MAX_WEBHOOK_BYTES = 256 * 1024


def _holds_nul(value, depth: int = 0) -> bool:
    """Whether a string anywhere in the event (keys included) holds U+0000."""
    if isinstance(value, str):
        return "\x00" in value
    if depth > 50:  # json.loads refused deeper nesting already (RecursionError)
        return False
    if isinstance(value, dict):
        return any(_holds_nul(k) or _holds_nul(v, depth + 1) for k, v in value.items())
    if isinstance(value, list):
        return any(_holds_nul(item, depth + 1) for item in value)
    return False


def _refuse(status: int, code: str, message: str, reason: str) -> JsonResponse:
    logger.warning("billing webhook refused: %s", reason)
    return JsonResponse(error_body(status, code, message), status=status)


@csrf_exempt
@require_POST
def billing_webhook(request):
    """POST /webhooks/billing: signed by the provider; each event applied once, in order of
    `occurred_at`. Anything refused is a 4xx with nothing changed, and logged."""
    body = request.body
    if len(body) > MAX_WEBHOOK_BYTES:
        return _refuse(400, "bad_request", "The event is too large.", "oversized body")
    if not signature_valid(
        request.headers.get("Paddle-Signature"),
        body,
        secrets=settings.BILLING_WEBHOOK_SECRETS,
        now=time.time(),
        tolerance=settings.BILLING_WEBHOOK_TOLERANCE_SECONDS,
    ):
        return _refuse(
            401,
            "unauthorized",
            "The signature is missing, wrong or stale.",
            "bad or stale signature",
        )
    try:
        payload = json.loads(body)
    except (ValueError, UnicodeDecodeError, RecursionError):
        return _refuse(400, "bad_request", "The event is not JSON.", "malformed JSON")
    event_id = payload.get("event_id") if isinstance(payload, dict) else None
    if _holds_nul(payload):  # no database text can hold U+0000; the buyer sets custom_data
        return _refuse(400, "bad_request", "The event holds a NUL character.", "NUL in event")
    try:
        outcome = webhook_apply(payload)
    except WebhookRejected as rejected:
        return _refuse(
            rejected.status if rejected.status in (400, 422) else 400,
            "bad_request",
            str(rejected),
            f"{event_id}: {rejected}",
        )
    except (TypeError, AttributeError, KeyError, ValueError, DataError) as error:
        # a signed event of an unexpected shape: refused, nothing applied (rolled back)
        return _refuse(
            400,
            "bad_request",
            "The event has an unexpected shape.",
            f"{event_id}: {type(error).__name__}: {error}",
        )
    except ApiError as error:  # a replayed event
        return _refuse(error.status, error.code, error.message, f"replayed event {event_id}")
    logger.info("billing webhook %s %s: %s", event_id, payload.get("event_type"), outcome)
    return JsonResponse({"received": True, "outcome": outcome})


@require_http_methods(["GET", "POST"])
def local_portal(request, token: str):
    """The local provider's customer portal behind a signed one-hour link: plan and cycle (the
    checkout when there is no live subscription); a save redirects to the link."""
    if settings.BILLING_PROVIDER != "local":
        # a link minted while this server ran the local provider (or by a server of the
        # fleet that still does) would give plans away beside the real provider's checkout
        return render(request, "billing/portal_expired.html", {"provider": True}, status=404)
    organization_id = portal_organization_id(token)
    organization = (
        Organization.objects.filter(pk=organization_id).first() if organization_id else None
    )
    if organization is None:
        return render(request, "billing/portal_expired.html", status=404)
    subscription = subscription_get(organization=organization)
    starting = subscription is None or subscription.status == Subscription.STATUS_CANCELED
    error_message = None
    status = 200
    if request.method == "POST":
        plan, cycle = request.POST.get("plan"), request.POST.get("cycle")
        state = request.POST.get("status") or (
            Subscription.STATUS_ACTIVE if starting else subscription.status
        )
        try:
            subscription = subscription_set(
                organization=organization, plan=plan, status=state, cycle=cycle
            )
        except ApiError as error:
            error_message, status = error.message, 400
        else:
            messages.success(request, _saved_message(subscription))
            return redirect(request.path)
    return render(
        request,
        "billing/portal.html",
        {
            "organization": organization,
            "subscription": subscription,
            "starting": starting,
            "plan_in_force": plan_of(subscription),
            "plans": [
                {"name": name, **limits}
                for name, limits in settings.PLANS.items()
                if name != "free"
            ],
            "statuses": [s for s, _ in Subscription.STATUSES],
            "status_chosen": Subscription.STATUS_ACTIVE if starting else subscription.status,
            "error": error_message,
        },
        status=status,
    )


def _saved_message(subscription: Subscription) -> str:
    cycle = "annually" if subscription.billing_cycle == "annual" else "monthly"
    if plan_of(subscription) == subscription.plan:
        return (
            f"Saved: the organization is on the {subscription.plan} plan, billed {cycle}; "
            "its limits changed at once."
        )
    return (
        f"Saved: the {subscription.plan} subscription is {subscription.status}, "
        "so the free plan's limits apply."
    )
