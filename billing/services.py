"""Writes for billing: the subscription (from our API, the operators' command and the
provider's webhooks), and AI credits. The state machine is in docs/billing.md."""

import logging
from datetime import UTC, datetime, timedelta

from django.db import IntegrityError, transaction
from django.db.models import F, IntegerField
from django.db.models.functions import Cast, Floor
from django.utils import timezone
from django.utils.dateparse import parse_datetime

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
from billing.models import AiCredits, Subscription, WebhookEvent
from billing.providers import ProviderError, provider_get
from billing.providers.local import period_end_from
from billing.providers.paddle import paddle_fields
from billing.selectors import bigger_plan_exists, plan_limits, plan_of

logger = logging.getLogger("archsvc.billing")

CYCLES = ("monthly", "annual")
SUBSCRIPTION_EVENTS = {
    "subscription.created",
    "subscription.updated",
    "subscription.activated",
    "subscription.trialing",
    "subscription.past_due",
    "subscription.paused",
    "subscription.resumed",
    "subscription.canceled",
    "subscription.imported",
}

# a subscription that is paid for, or being: only such an event can take an organization over
# from another subscription of the provider (docs/billing.md)
LIVE_STATUSES = {
    Subscription.STATUS_ACTIVE,
    Subscription.STATUS_TRIALING,
    Subscription.STATUS_PAST_DUE,
}


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


def _credits_follow_plan(organization: Organization, new_plan: str, share: float = 1.0) -> None:
    """An upgrade adds at once what the new plan's monthly amount is past what this month
    has given (free -> team: +950); a downgrade keeps the balance until the next refill.
    What was given is remembered (`granted`), so nothing is given twice in a month: pausing
    and resuming had refilled what was spent, and a balance carried over from a bigger plan
    was cut to the new plan's amount by subscribing to it (10,000 -> 1,000)."""
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
    _credits_follow_plan(organization, plan_of(subscription))
    return subscription


def billing_manager_required(*, actor: Actor) -> None:
    """Portal session and switch-cycle (CONTRACT 3): 403 otherwise."""
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
    """Why the subscription's plan cannot be changed here now, if it cannot: the provider
    refuses a change while a payment is overdue (Paddle's 409
    subscription_outstanding_transaction), and one an operator gave by hand is not the
    provider's to change."""
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
    """Move the organization's subscription to another plan, at the provider (the
    difference charged at once, prorated) and here; credits follow as an upgrade's do. The
    billing page's own (the API has no such endpoint): Paddle's portal changes no plan."""
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
        # billed prorated, so credited so: an upgrade gives the new plan's extra credits for
        # the rest of the month only (a move up near its end, then down, had given a whole
        # month of the bigger plan's credits for a few cents); the month's grant counts as
        # given, so moving up again gives nothing more until the refill
        _credits_follow_plan(actor.organization, plan_of(locked), share=_month_left(actor))
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


# --- webhooks -------------------------------------------------------------------------------


class WebhookRejected(Exception):
    """A signed event we cannot apply: 4xx, logged, nothing changed."""

    def __init__(self, status: int, message: str):
        super().__init__(message)
        self.status = status


def _event_time(payload: dict) -> datetime:
    try:
        value = parse_datetime(payload["occurred_at"])
    except (KeyError, TypeError, ValueError):
        value = None
    if value is None or value.tzinfo is None:
        raise WebhookRejected(400, "occurred_at must be a date-time with an offset.")
    # an event happens now, give or take a provider's delays and clock skew: a time years
    # away (9999-12-31T23:59:59-14:00 is past year 9999 in UTC) would be stored and break
    # every later read of the subscription, or overflow here
    try:
        utc = value.astimezone(UTC)
    except OverflowError:
        utc = None
    now = timezone.now()
    if utc is None or not (now - timedelta(days=3650) <= utc <= now + timedelta(days=1)):
        raise WebhookRejected(400, "occurred_at is not a time an event can have happened.")
    return utc


def _event_organization(entity: dict) -> tuple[Organization | None, Subscription | None]:
    subscription = None
    if entity.get("id"):
        subscription = (
            Subscription.objects.select_for_update()
            .filter(provider_subscription_id=str(entity["id"]))
            .first()
        )
    if subscription is not None:
        return subscription.organization, subscription
    custom = entity.get("custom_data")
    slug = custom.get("organization") if isinstance(custom, dict) else None
    organization = Organization.objects.filter(slug=str(slug)).first() if slug else None
    if organization is not None:
        subscription = (
            Subscription.objects.select_for_update().filter(organization=organization).first()
        )
    return organization, subscription


def _newer_event_known(organization, subscription_id: str, occurred_at, event) -> bool:
    return (
        WebhookEvent.objects.filter(
            organization=organization,
            event_type__in=SUBSCRIPTION_EVENTS,
            payload__data__id=subscription_id,
            occurred_at__gte=occurred_at,
        )
        .exclude(pk=event.pk)
        .exists()
    )


def _subscription_event(
    organization, subscription, entity, status, event_type, event_id, occurred_at
) -> str:
    """Apply a subscription's event to the organization, or not (docs/billing.md, "several
    subscriptions"): the outcome. An organization has one subscription in force; an event
    of another of the provider's subscriptions of it (an old one's late event, a second
    checkout) cannot end or pause that one, and takes over only as a new checkout or once
    the one in force has ended. When the one in force ends, another still live takes over."""
    event_subscription = str(entity.get("id") or "")
    # (one an operator set, `set_subscription`, is no provider's: an event replaces it)
    in_force = (
        subscription.provider_subscription_id
        if subscription is not None and subscription.provider != "local"
        else ""
    )
    other = bool(event_subscription and in_force and in_force != event_subscription)
    if (
        subscription is not None
        and subscription.provider == "local"
        and subscription.status in LIVE_STATUSES
        and status not in LIVE_STATUSES
    ):
        # a plan the operators gave by hand is not ended by a provider's subscription (a
        # late event of the one that ended before it was given)
        logger.warning(
            "billing event %s ignored: %s %s of subscription %s; %s has a plan given by hand",
            event_id,
            event_type,
            status,
            event_subscription,
            organization.slug,
        )
        return "ignored"
    if other:
        ended = subscription.status not in LIVE_STATUSES
        takes_over = status in LIVE_STATUSES and (ended or event_type == "subscription.created")
        if not takes_over:
            logger.warning(
                "billing event %s ignored: %s %s of subscription %s, not the one in force of "
                "%s (%s, %s)",
                event_id,
                event_type,
                status,
                event_subscription,
                organization.slug,
                in_force,
                subscription.status,
            )
            return "ignored"
        if not ended:
            logger.warning(
                "organization %s: a new subscription %s (%s) replaces %s (%s, still %s); the "
                "provider may be billing both",
                organization.slug,
                event_subscription,
                status,
                in_force,
                subscription.plan,
                subscription.status,
            )
    elif (
        subscription is not None
        and subscription.last_event_at
        and occurred_at <= subscription.last_event_at
    ):
        return "stale"
    if not other and status not in LIVE_STATUSES:
        # the one in force ends: another of the organization's subscriptions, live as its
        # latest event said, takes over (a duplicate checkout's, cancelled at the provider
        # as the one in force was: the organization still pays for the other)
        for live in _live_subscriptions_besides(organization, event_subscription):
            try:
                sent = parse_datetime(str(live.get("occurred_at") or "")) or occurred_at
            except ValueError:
                sent = occurred_at
            try:
                _subscription_write(organization, subscription, live["data"], sent)
            except WebhookRejected as refused:  # (its price no longer one of ours, say)
                logger.warning(
                    "organization %s: %s could not take over (%s)",
                    organization.slug,
                    live["data"]["id"],
                    refused,
                )
                continue
            logger.warning(
                "organization %s: subscription %s is %s; %s, still live, is in force",
                organization.slug,
                event_subscription or in_force,
                status,
                live["data"]["id"],
            )
            return "applied"
    _subscription_write(organization, subscription if not other else None, entity, occurred_at)
    return "applied"


def _live_subscriptions_besides(organization, subscription_id: str):
    """The latest event of each of the organization's other subscriptions whose latest event
    says it is live, newest first (events received and not applied are kept, with their
    organization)."""
    seen = set()
    events = (
        WebhookEvent.objects.filter(organization=organization, event_type__in=SUBSCRIPTION_EVENTS)
        .exclude(payload__data__id=subscription_id)
        .order_by("-occurred_at")
        .values_list("payload", flat=True)[:500]
    )
    for payload in events:
        data = payload.get("data") if isinstance(payload, dict) else None
        other = data.get("id") if isinstance(data, dict) else None
        if not other or other in seen:
            continue
        seen.add(other)
        if data.get("status") in LIVE_STATUSES:
            yield payload


def _subscription_write(organization, subscription, entity: dict, occurred_at) -> None:
    """The organization's subscription as `entity` (a Paddle subscription) says it is.
    `subscription`: the row it updates when it is the same subscription (its customer is
    kept when the event has none), else None."""
    plan = _plan_from(entity, subscription)
    if plan is None:
        raise WebhookRejected(422, "The event's plan is unknown.")
    _check_event_times(entity)
    fields = {
        "status": entity["status"],
        "plan": plan,
        "provider": "paddle",
        "provider_subscription_id": str(entity.get("id") or ""),
        # an event without the customer keeps the one known (an empty one made the portal
        # session a 404 customer_not_found)
        "provider_customer_id": str(
            entity.get("customer_id")
            or (subscription.provider_customer_id if subscription is not None else "")
        ),
        "last_event_at": occurred_at,
        "updated_at": timezone.now(),
        **paddle_fields(entity),
    }
    written, _ = Subscription.objects.update_or_create(organization=organization, defaults=fields)
    _credits_follow_plan(organization, plan_of(written))


def _check_event_times(entity: dict) -> None:
    """The period's end and the next bill, when the event has them, are date-times with an
    offset (a garbled one had emptied the stored dates; one without an offset was stored as
    local time): 400 otherwise, nothing changed."""
    period = entity.get("current_billing_period")
    named = [("data.current_billing_period.ends_at", (period or {}).get("ends_at"))]
    if "next_billed_at" in entity:
        named.append(("data.next_billed_at", entity["next_billed_at"]))
    for name, value in named:
        if value is None:
            continue
        parsed = None
        if isinstance(value, str):
            try:
                parsed = parse_datetime(value)
            except ValueError:
                parsed = None
        if parsed is None or parsed.tzinfo is None:
            raise WebhookRejected(400, f"{name} must be a date-time with an offset.")
        # a billing date is years from now at most: one past year 9999 in UTC could not be
        # stored, or read back
        now = timezone.now()
        try:
            utc = parsed.astimezone(UTC)
        except OverflowError:
            utc = None
        if utc is None or not (now - timedelta(days=3650) <= utc <= now + timedelta(days=3650)):
            raise WebhookRejected(400, f"{name} is not a date a subscription can have.")


def _organization_named(entity: dict) -> Organization | None:
    """The organization another kind of event (a transaction's: a payment failed) is about:
    by its subscription, its customer, or the checkout's custom data."""
    for field, column in (
        ("subscription_id", "provider_subscription_id"),
        ("customer_id", "provider_customer_id"),
    ):
        value = entity.get(field)
        if isinstance(value, str) and 0 < len(value) <= 100:
            found = (
                Subscription.objects.filter(**{column: value})
                .select_related("organization")
                .first()
            )
            if found is not None:
                return found.organization
    custom = entity.get("custom_data")
    slug = custom.get("organization") if isinstance(custom, dict) else None
    if isinstance(slug, str) and 0 < len(slug) <= 100:
        return Organization.objects.filter(slug=slug).first()
    return None


def _plan_from(entity: dict, current: Subscription | None) -> str | None:
    """The plan an event's subscription pays for: its item's price, when it is one of the
    plans' (`PADDLE_PRICE_<PLAN>_<CYCLE>`). A live subscription at a price that is not one of
    them (a discount, a tier no variable names) is refused: the plan it had, or the one its
    custom data says, is not what it pays for. With no price configured at all, or an event
    that carries no price, `custom_data.plan` (a checkout may set it), else the plan it had."""
    from django.conf import settings

    prices = {price: key.split(":")[0] for key, price in settings.PADDLE_PRICES.items() if price}
    items = entity.get("items")
    if items is not None and (
        not isinstance(items, list) or not all(isinstance(item, dict) for item in items)
    ):
        raise WebhookRejected(400, "data.items must be a list of objects.")
    named = []
    for item in items or []:
        price = item.get("price")
        price_id = price.get("id") if isinstance(price, dict) else item.get("price_id")
        if isinstance(price_id, str) and price_id in prices:
            return prices[price_id]
        if price_id:
            named.append(str(price_id)[:100])
    if named and prices and entity.get("status") in LIVE_STATUSES:
        raise WebhookRejected(
            422, f"The event's price ({', '.join(named[:3])}) is not one of the plans' prices."
        )
    custom = entity.get("custom_data")
    plan = custom.get("plan") if isinstance(custom, dict) else None
    if plan in dict(Subscription.PLANS):
        return plan
    return current.plan if current else None


@transaction.atomic
def webhook_apply(payload: dict) -> str:
    """Apply one provider event, once (its id is recorded in the same transaction as its
    effect) and only if it is newer than the last applied (`occurred_at`). Returns the
    outcome: applied, stale or ignored."""
    if not isinstance(payload, dict):
        raise WebhookRejected(400, "The event must be a JSON object.")
    event_id, event_type = payload.get("event_id"), payload.get("event_type")
    entity = payload.get("data")
    if (
        not isinstance(event_id, str)
        or not event_id
        or len(event_id) > 100
        or not isinstance(event_type, str)
        or len(event_type) > 100
        or not isinstance(entity, dict)
    ):
        raise WebhookRejected(400, "event_id, event_type and data are required.")
    if event_type in SUBSCRIPTION_EVENTS and not entity.get("id"):
        # a subscription's event names it: without, it could only be guessed at
        raise WebhookRejected(400, "data.id, the subscription's id, is required.")
    for key in ("id", "customer_id"):  # stored in columns of 100 characters
        value = entity.get(key)
        if value is not None and (not isinstance(value, str) or len(value) > 100):
            raise WebhookRejected(400, f"data.{key} must be a string of at most 100 characters.")
    occurred_at = _event_time(payload)
    try:
        with transaction.atomic():
            # first: a replay, or the same event delivered twice at once, stops here
            event = WebhookEvent.objects.create(
                event_id=event_id,
                event_type=event_type,
                occurred_at=occurred_at,
                outcome="pending",
                payload=payload,
            )
    except IntegrityError:
        raise Conflict("This event was received before.") from None
    organization, subscription = None, None
    outcome = "ignored"
    if event_type in SUBSCRIPTION_EVENTS:
        for key in ("billing_cycle", "current_billing_period", "custom_data"):
            if entity.get(key) is not None and not isinstance(entity[key], dict):
                raise WebhookRejected(400, f"data.{key} must be an object.")
        organization, subscription = _event_organization(entity)
        if organization is None:
            raise WebhookRejected(422, "The event names no organization of ours.")
        status = entity.get("status")
        if not isinstance(status, str) or status not in dict(Subscription.STATUSES):
            raise WebhookRejected(400, "data.status is not a subscription status.")
        # every subscription event's dates, applied or put aside: one put aside may be the
        # one that takes over later (_live_subscription_besides)
        _check_event_times(entity)
        event_subscription = str(entity.get("id") or "")
        # the event's own subscription first: an event no newer than one of the same
        # subscription already received (applied or not) is stale, whichever is in force
        if event_subscription and _newer_event_known(
            organization, event_subscription, occurred_at, event
        ):
            outcome = "stale"
        else:
            outcome = _subscription_event(
                organization, subscription, entity, status, event_type, event_id, occurred_at
            )
    else:
        organization = _organization_named(entity)  # filed under it, for the admin's lists
    event.organization, event.outcome = organization, outcome
    event.save(update_fields=["organization", "outcome"])
    return outcome
