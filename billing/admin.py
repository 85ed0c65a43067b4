from django.contrib import admin

from billing.models import AiCredits, Subscription, WebhookEvent


@admin.register(Subscription)
class SubscriptionAdmin(admin.ModelAdmin):
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
class AiCreditsAdmin(admin.ModelAdmin):
    list_display = ["organization", "remaining", "resets_at"]
    search_fields = ["organization__slug"]
    list_select_related = ["organization"]


@admin.register(WebhookEvent)
class WebhookEventAdmin(admin.ModelAdmin):
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
    readonly_fields = [f.name for f in WebhookEvent._meta.fields]

    def has_add_permission(self, request):
        return False
