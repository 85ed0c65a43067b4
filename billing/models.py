"""A subscription per organization, its AI credits, and the provider's webhook events."""

from django.db import models
from django.utils import timezone

from accounts.models import Organization


class Subscription(models.Model):
    STATUS_ACTIVE = "active"
    STATUS_TRIALING = "trialing"
    STATUS_PAST_DUE = "past_due"
    STATUS_PAUSED = "paused"
    STATUS_CANCELED = "canceled"
    STATUSES = [
        (s, s)
        for s in (STATUS_ACTIVE, STATUS_TRIALING, STATUS_PAST_DUE, STATUS_PAUSED, STATUS_CANCELED)
    ]
    PLANS = [("team", "team"), ("business", "business")]
    CYCLES = [("monthly", "monthly"), ("annual", "annual")]

    organization = models.OneToOneField(
        Organization, on_delete=models.CASCADE, related_name="subscription"
    )
    status = models.CharField(max_length=10, choices=STATUSES)
    plan = models.CharField(max_length=10, choices=PLANS)
    billing_cycle = models.CharField(max_length=8, choices=CYCLES, default="monthly")
    current_period_end = models.DateTimeField(null=True, blank=True)
    next_billed_at = models.DateTimeField(null=True, blank=True)
    provider = models.CharField(max_length=10, default="local")
    provider_customer_id = models.CharField(max_length=100, blank=True, default="")
    provider_subscription_id = models.CharField(
        max_length=100, blank=True, default="", db_index=True
    )
    # `occurred_at` of the newest provider event applied: an older one never overwrites it.
    last_event_at = models.DateTimeField(null=True, blank=True)
    updated_at = models.DateTimeField(default=timezone.now)

    def __str__(self) -> str:
        return f"{self.organization} {self.plan} {self.status}"


class AiCredits(models.Model):
    """The organization's balance; it refills to the plan's amount at `resets_at` (the
    first instant of the next calendar month, UTC), on the first read or spend after it."""

    organization = models.OneToOneField(
        Organization, on_delete=models.CASCADE, related_name="ai_credits"
    )
    remaining = models.PositiveIntegerField()
    resets_at = models.DateTimeField()
    # the most this month's plans have given (the refill's amount, raised by an upgrade): a
    # plan change gives only what its amount is past it, so pausing and resuming, or a
    # cancel and a new subscription, give nothing twice
    # (a default in the database too: code of before it, still serving during a rolling
    # deploy, makes rows without it)
    granted = models.PositiveIntegerField(default=0, db_default=0)

    class Meta:
        verbose_name_plural = "AI credits"
        constraints = [
            models.CheckConstraint(
                condition=models.Q(remaining__gte=0), name="ai_credits_not_negative"
            )
        ]

    def __str__(self) -> str:
        return f"{self.organization}: {self.remaining}"


class WebhookEvent(models.Model):
    """Every provider event received, once: the unique event id makes a replay a no-op."""

    event_id = models.CharField(max_length=100, unique=True)
    event_type = models.CharField(max_length=100)
    occurred_at = models.DateTimeField()
    received_at = models.DateTimeField(default=timezone.now)
    organization = models.ForeignKey(Organization, null=True, blank=True, on_delete=models.SET_NULL)
    outcome = models.CharField(max_length=20)  # applied, stale, ignored
    payload = models.JSONField()

    class Meta:
        ordering = ["-received_at"]

    def __str__(self) -> str:
        return f"{self.event_id} {self.event_type} ({self.outcome})"
