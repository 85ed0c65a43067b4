"""Writes for billing: the subscription (from our API and the operators' command; the
provider's webhooks are billing/webhooks.py), and AI credits. States: docs/billing.md."""

import logging
from datetime import UTC, datetime, timedelta

from django.db import IntegrityError, transaction
from django.db.models import F, IntegerField
from django.db.models.functions import Cast, Floor
from django.utils import timezone

from accounts.actors import Actor
from accounts.models import Organization
from archsvc.api.params import iso
from archsvc.exceptions import (
    BadRequest,
    Conflict,
    CustomerNotFound,
    Forbidden,
    InsufficientAiCredits,
    InvalidBillingCycle,
    ServiceUnavailable,
    SubscriptionNotFound,
)
from billing.models import AiCredits, Subscription
from billing.providers import ProviderError, provider_get
from billing.providers.local import period_end_from
from billing.selectors import bigger_plan_exists, plan_limits, plan_of

logger = logging.getLogger("archsvc.billing")

CYCLES = ("monthly", "annual")


def next_month_start(now: datetime) -> datetime:
    """The first instant of the next calendar month, UTC."""
    now = now.astimezone(UTC)
    if now.month == 12:
        return datetime(now.year + 1, 1, 1, tzinfo=UTC)
    return datetime(now.year, now.month + 1, 1, tzinfo=UTC)


# --- AI credits -----------------------------------------------------------------------------


def _credits_row(organization: Organization, plan: str) -> AiCredits:
    """The organization's credits, refilled when `resets_at` has passed (no cron: the first
    read or spend after the boundary refills, in one conditional UPDATE)."""
    now = timezone.now()
    amount = plan_limits(plan=plan)["ai_credits"]
    row = AiCredits.objects.filter(organization=organization).first()
    if row is None:
        try:
            with transaction.atomic():
                return AiCredits.objects.create(
                    organization=organization,
                    remaining=amount,
                    granted=amount,
                    resets_at=next_month_start(now),
                )
        except IntegrityError:  # created concurrently
            row = AiCredits.objects.get(organization=organization)
    if row.resets_at <= now:
        AiCredits.objects.filter(pk=row.pk, resets_at__lte=now).update(
            remaining=amount, granted=amount, resets_at=next_month_start(now)
        )
        row.refresh_from_db()
    return row


def ai_credits_current(*, organization: Organization) -> AiCredits:
    """`GET /v1/billing/ai-credits`: the balance and when it next refills."""
    return _credits_row(organization, plan_of(organization_subscription(organization)))


def ai_credits_spend(*, organization: Organization, amount: int = 1) -> int:
    """Take `amount` credits atomically (a conditional UPDATE: parallel spends never go
    below zero); the balance left, or 402 `insufficient_ai_credits` with nothing spent."""
    row = ai_credits_current(organization=organization)
    taken = AiCredits.objects.filter(pk=row.pk, remaining__gte=amount).update(
        remaining=F("remaining") - amount
    )
    if not taken:  # says when they come back, as GET /v1/billing/ai-credits would
        plan = plan_of(organization_subscription(organization))
        bigger = bigger_plan_exists(plan=plan, limit="ai_credits")
        raise InsufficientAiCredits(
            details=f"They refill to the plan's amount at {iso(row.resets_at)} "
            f"(GET /v1/billing/ai-credits){'; a bigger plan has more' if bigger else ''}."
        )
    return AiCredits.objects.values_list("remaining", flat=True).get(pk=row.pk)


def credits_follow_plan(organization: Organization, new_plan: str, share: float = 1.0) -> None:
    """An upgrade adds at once the new plan's monthly amount past what this month gave; a
    downgrade keeps the balance until the next refill."""
    # what was given is remembered (`granted`): nothing is given twice in a month, and a
    # balance carried from a bigger plan is not cut
    amount = plan_limits(plan=new_plan)["ai_credits"]
    if share >= 1:
        added = amount - F("granted")
    else:  # `share` of the difference (a plan changed in the app, billed prorated)
        # (floored on every database: PostgreSQL rounds a cast, SQLite cuts it)
        added = Cast(Floor((amount - F("granted")) * share), IntegerField())
    AiCredits.objects.filter(organization=organization, granted__lt=amount).update(
        remaining=F("remaining") + added, granted=amount
    )


# --- subscription ---------------------------------------------------------------------------


def organization_subscription(organization: Organization) -> Subscription | None:
    return Subscription.objects.filter(organization=organization).first()


@transaction.atomic
def subscription_set(
    *,
    organization: Organization,
    plan: str,
    status: str,
    cycle: str,
    provider: str | None = None,
    customer_id: str | None = None,
    subscription_id: str | None = None,
) -> Subscription:
    """Write the subscription as the provider would (operators' `set_subscription`, the
    local portal): ids are made up when not given, the period runs a month or a year."""
    if plan not in dict(Subscription.PLANS):
        raise BadRequest("plan must be team or business.")
    if status not in dict(Subscription.STATUSES):
        raise BadRequest(f"status must be one of {', '.join(dict(Subscription.STATUSES))}.")
    if cycle not in CYCLES:
        raise BadRequest("cycle must be monthly or annual.")
    now = timezone.now()
    period_end = period_end_from(now, cycle)
    current = Subscription.objects.select_for_update().filter(organization=organization).first()
    subscription, _ = Subscription.objects.update_or_create(
        organization=organization,
        defaults={
            "plan": plan,
            "status": status,
            "billing_cycle": cycle,
            "provider": provider or (current.provider if current else "local"),
            "provider_customer_id": customer_id
            or (
                current.provider_customer_id
                if current and current.provider_customer_id
                else f"ctm_local_{organization.slug}"
            ),
            "provider_subscription_id": subscription_id
            or (
                current.provider_subscription_id
                if current and current.provider_subscription_id
                else f"sub_local_{organization.slug}"
            ),
            "current_period_end": period_end,
            "next_billed_at": period_end if status in ("active", "trialing", "past_due") else None,
            "updated_at": now,
        },
    )
    credits_follow_plan(organization, plan_of(subscription))
    return subscription


def billing_manager_required(*, actor: Actor) -> None:
    """Portal session and switch-cycle (interface §3): 403 otherwise."""
    if not actor.can_manage_billing():
        raise Forbidden("Managing billing needs an admin, or an API key with billing:manage.")


def subscription_for_billing(actor: Actor) -> Subscription:
    """The organization's subscription for a billing manager: 403 for anyone else, then 404
    without one (both before a body is read: the order a caller can act on)."""
    billing_manager_required(actor=actor)
    subscription = organization_subscription(actor.organization)
    if subscription is None:
        raise SubscriptionNotFound()
    return subscription


def subscription_switch_cycle(*, actor: Actor, cycle: str) -> Subscription:
    """Tell the provider, then record what it says; the same cycle changes nothing."""
    subscription = subscription_for_billing(actor)
    if cycle not in CYCLES:
        raise InvalidBillingCycle()
    if subscription.status == Subscription.STATUS_CANCELED:
        # canceled is final for the provider's subscription: there is no cycle to switch
        raise SubscriptionNotFound(
            "The subscription is canceled: there is no billing cycle to switch. "
            "Choose a plan again to subscribe."
        )
    if subscription.billing_cycle == cycle:
        return subscription
    try:
        fields = provider_get().switch_cycle(subscription, cycle)
    except ProviderError as error:
        raise ServiceUnavailable(
            f"The billing cycle was not switched, nothing changed: {error}"
        ) from error
    with transaction.atomic():
        locked = _provider_answer_saved(subscription, fields)
    return locked


def _provider_answer_saved(subscription: Subscription, fields: dict) -> Subscription:
    """The subscription, locked, with the provider's answer written onto it."""
    locked = Subscription.objects.select_for_update().get(pk=subscription.pk)
    for field, value in fields.items():
        setattr(locked, field, value)
    locked.updated_at = timezone.now()
    locked.save()
    return locked


def plan_change_refusal(subscription: Subscription) -> str | None:
    """Why the plan cannot be changed here now, or None: a payment overdue (the provider refuses),
    or a subscription an operator gave by hand."""
    if subscription.status == Subscription.STATUS_PAST_DUE:
        return (
            "The last payment did not go through: update the payment method in the billing "
            "portal first, then change the plan."
        )
    if subscription.provider != provider_get().name:
        return (
            f"This plan was set by the people who run this server, not bought through "
            f"{provider_get().name.title()}: ask them to change it."
        )
    return None


def _month_left(actor: Actor) -> float:
    """The share of the credits' month still to come (their refill is its end)."""
    resets_at = ai_credits_current(organization=actor.organization).resets_at
    now = timezone.now()
    start = (resets_at - timedelta(days=1)).replace(
        day=1, hour=0, minute=0, second=0, microsecond=0
    )
    whole = (resets_at - start).total_seconds()
    return max(0.0, min(1.0, (resets_at - now).total_seconds() / whole)) if whole > 0 else 1.0


def subscription_change_plan(*, actor: Actor, plan: str) -> Subscription:
    """Move the subscription to another plan at the provider (prorated at once) and here; credits
    follow. The billing page's own: Paddle's portal changes no plan."""
    subscription = subscription_for_billing(actor)
    if plan not in dict(Subscription.PLANS):
        raise BadRequest(f"The plan must be one of {', '.join(dict(Subscription.PLANS))}.")
    if subscription.status == Subscription.STATUS_CANCELED:
        raise SubscriptionNotFound(
            "The subscription is canceled: choose a plan to subscribe again."
        )
    if subscription.plan == plan:
        return subscription
    refusal = plan_change_refusal(subscription)
    if refusal:
        raise Conflict(refusal)
    try:
        fields = provider_get().change_plan(subscription, plan)
    except ProviderError as error:
        raise ServiceUnavailable(f"The plan was not changed, nothing changed: {error}") from error
    with transaction.atomic():
        locked = _provider_answer_saved(subscription, fields)
        # billed prorated, so credited so: else up near the month's end and back down buys a
        # month of the bigger plan's credits for cents; the month's grant counts as given, so
        # moving up again gives nothing more until the refill
        credits_follow_plan(actor.organization, plan_of(locked), share=_month_left(actor))
    logger.info(
        "plan changed: %s from %s to %s by %s (%s)",
        actor.organization.slug,
        subscription.plan,
        plan,
        actor.name,
        actor.ref,
    )
    return locked


def portal_session_url(*, actor: Actor, base_url: str) -> str:
    """A URL of the provider's customer portal for the organization's customer."""
    subscription = subscription_for_billing(actor)
    if not subscription.provider_customer_id:
        raise CustomerNotFound()
    try:
        return provider_get().portal_url(subscription, base_url=base_url)
    except ProviderError as error:
        raise ServiceUnavailable(f"The billing portal could not be opened: {error}") from error


def checkout_url(*, actor: Actor, base_url: str) -> str | None:
    """Where an admin of an organization without a subscription picks a plan (None: this
    server has none; operators use set_subscription)."""
    billing_manager_required(actor=actor)
    subscription = organization_subscription(actor.organization)
    if subscription is not None and subscription.status != Subscription.STATUS_CANCELED:
        raise BadRequest("The organization has a subscription: change it in the billing portal.")
    return provider_get().checkout_url(actor.organization, base_url=base_url)
