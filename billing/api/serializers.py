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


class SubscriptionSwitchCycleSerializer(StrictSerializer):
    billingCycle = StrictCharField(max_length=40)  # noqa: N815


class PortalSessionSerializer(serializers.Serializer):
    url = serializers.URLField()


class AiCreditsSerializer(serializers.Serializer):
    remaining = serializers.IntegerField(min_value=0)
    resetsAt = serializers.DateTimeField(required=False)  # noqa: N815


def subscription_json(subscription: Subscription | None) -> dict:
    """Subscription: `{"status": "none"}` without one (CONTRACT 4); unset fields left out."""
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
