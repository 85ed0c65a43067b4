from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from archsvc.api.params import iso
from archsvc.api.serializers import StrictCharField, StrictSerializer
from billing.models import AiCredits, Subscription


class LimitsSerializer(serializers.Serializer):
    currentProjects = serializers.IntegerField(min_value=0)  # noqa: N815
    maxProjects = serializers.IntegerField(min_value=0)  # noqa: N815


class SubscriptionSerializer(serializers.Serializer):
    status = serializers.ChoiceField(
        choices=["none", "active", "trialing", "past_due", "paused", "canceled"]
    )
    planName = serializers.CharField(required=False)  # noqa: N815
    currentPeriodEnd = serializers.DateTimeField(required=False)  # noqa: N815
    providerCustomerId = serializers.CharField(required=False)  # noqa: N815
    providerSubscriptionId = serializers.CharField(required=False)  # noqa: N815
    billingCycle = serializers.ChoiceField(  # noqa: N815
        choices=["monthly", "annual"],
        required=False,
    )
    nextBilledAt = serializers.DateTimeField(required=False)  # noqa: N815


@extend_schema_field({"type": "string", "enum": ["monthly", "annual"]})
class CycleField(StrictCharField):
    """billingCycle as sent: any string but monthly or annual is `invalid_billing_cycle`
    (interface §5), never trimmed; not a string is validation_failed, as for every field."""

    def __init__(self, **kwargs):
        super().__init__(trim_whitespace=False, allow_blank=True, **kwargs)


class SubscriptionSwitchCycleSerializer(StrictSerializer):
    billingCycle = CycleField()  # noqa: N815


class PortalSessionSerializer(serializers.Serializer):
    url = serializers.URLField()


@extend_schema_field(
    {"type": "number", "minimum": 0, "description": "credits left; always a whole number"}
)
class CreditsField(serializers.IntegerField):
    """The spec types `remaining` as a number: so the schema says, and a generated client
    reads it as one (our value is always whole: a chat message costs one credit)."""


class AiCreditsSerializer(serializers.Serializer):
    remaining = CreditsField(min_value=0)
    resetsAt = serializers.DateTimeField(required=False)  # noqa: N815


def subscription_json(subscription: Subscription | None) -> dict:
    """Subscription: `{"status": "none"}` without one (interface §4); unset fields left out."""
    if subscription is None:
        return {"status": "none"}
    out = {
        "status": subscription.status,
        "planName": subscription.plan,
        "billingCycle": subscription.billing_cycle,
    }
    optional = {
        "currentPeriodEnd": iso(subscription.current_period_end),
        "providerCustomerId": subscription.provider_customer_id or None,
        "providerSubscriptionId": subscription.provider_subscription_id or None,
        "nextBilledAt": iso(subscription.next_billed_at),
    }
    out.update({key: value for key, value in optional.items() if value is not None})
    return out


def ai_credits_json(credits: AiCredits) -> dict:
    return {"remaining": credits.remaining, "resetsAt": iso(credits.resets_at)}
