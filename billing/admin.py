from django.contrib import admin

from archsvc.admin_base import ReadOnlyAdmin, SupportAdmin
from billing.models import AiCredits, Subscription, WebhookEvent


@admin.register(Subscription)
class SubscriptionAdmin(ReadOnlyAdmin):
    """What the billing provider said, read-only: a plan changed here would skip the rules
    that go with it (credits topped up to the new plan, `updated_at`, which event is the
    newest). Operators change a subscription with `manage.py set_subscription`, or in the
    local provider's portal."""

    list_display = [
        "organization",
        "plan",
        "status",
        "billing_cycle",
        "current_period_end",
        "provider",
        "updated_at",
    ]
    list_filter = ["status", "plan", "billing_cycle", "provider"]
    search_fields = ["organization__slug", "provider_customer_id", "provider_subscription_id"]
    list_select_related = ["organization"]


@admin.register(AiCredits)
class AiCreditsAdmin(SupportAdmin):
    """An operator may give an organization more credits this month (never below zero: a
    database constraint); the row itself is the app's."""

    list_display = ["organization", "remaining", "resets_at"]
    search_fields = ["organization__slug"]
    list_select_related = ["organization"]
    readonly_fields = ["organization"]

    def has_add_permission(self, request):
        return False

    def has_delete_permission(self, request, obj=None):
        return False


@admin.register(WebhookEvent)
class WebhookEventAdmin(ReadOnlyAdmin):
    """The record that makes a provider's replay of an event a no-op: never deleted."""

    list_display = [
        "event_id",
        "event_type",
        "organization",
        "outcome",
        "occurred_at",
        "received_at",
    ]
    list_filter = ["outcome", "event_type"]
    search_fields = ["event_id"]
    list_select_related = ["organization"]
    ordering = ["-received_at"]
