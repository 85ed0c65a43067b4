"""The provider's webhooks: a signed event applied once, in order, to the subscription it
names (the state machine is in docs/billing.md)."""

import logging
from datetime import UTC, datetime, timedelta

from django.conf import settings
from django.db import IntegrityError, transaction
from django.utils import timezone
from django.utils.dateparse import parse_datetime

from accounts.models import Organization
from archsvc.exceptions import Conflict
from billing.models import Subscription, WebhookEvent
from billing.providers.paddle import paddle_fields
from billing.selectors import plan_of
from billing.services import credits_follow_plan

logger = logging.getLogger("archsvc.billing")

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
    """Apply a subscription's event to the organization, or not; returns the outcome. Only the
    subscription in force changes it (docs/billing.md, "several subscriptions")."""
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
    """The latest event of each other subscription of the organization that says it is live,
    newest first."""
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
    """The organization's subscription as `entity` (Paddle's) says; `subscription` is the row
    when it is the same one (its customer kept when the event has none)."""
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
    credits_follow_plan(organization, plan_of(written))


def _check_event_times(entity: dict) -> None:
    """The period's end and the next bill, when present, are date-times with an offset: 400
    otherwise, nothing changed."""
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
    """The plan an event's subscription pays for: its item's price among the plans'
    (`PADDLE_PRICE_<PLAN>_<CYCLE>`), else `custom_data.plan`, else the plan it had."""
    # a live subscription at a price we do not sell is refused rather than given a plan it does
    # not pay for
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
    """Apply one provider event once (its id recorded with its effect) and only if newer than the
    last applied; returns applied, stale or ignored."""
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
        # one that takes over later (_live_subscriptions_besides)
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
