import json

from django import forms
from django.contrib import admin
from django.db.models import F
from django.db.models.functions import Greatest
from django.utils.html import format_html

from archsvc.admin_base import ReadOnlyAdmin, SupportAdmin
from billing.models import AiCredits, Subscription, WebhookEvent
from billing.services import ai_credits_current


@admin.register(Subscription)
class SubscriptionAdmin(ReadOnlyAdmin):
    """What the billing provider said, read-only: operators change a subscription with
    `set_subscription` or the local portal (`how_to_change`), which keep its rules."""

    readonly_fields = ["how_to_change"]

    @admin.display(description="To change it")
    def how_to_change(self, obj):
        if obj.provider != "local":
            return format_html(
                "Not here: it is {}'s, where the customer pays, and its events write it. Change "
                "it there; <code>manage.py set_subscription --org {} ... --force</code> writes "
                "over it, until the provider's next event puts its own back.",
                obj.provider.title(),
                obj.organization.slug,
            )
        return format_html(
            "Not here: the billing provider's events write it. An operator sets a plan with "
            "<code>manage.py set_subscription --org {} --plan &lt;plan&gt; --status "
            "&lt;status&gt; [--cycle monthly|annual]</code>, which tops up the credits as an "
            "upgrade does.",
            obj.organization.slug,
        )

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


class AiCreditsForm(forms.ModelForm):
    add = forms.IntegerField(
        label="Add credits",
        initial=0,
        min_value=-1_000_000,
        max_value=1_000_000,
        help_text="Added to what is left when saved (negative takes away, never below zero); "
        "credits members spend meanwhile stay spent. They last until the refill (Resets at), "
        "which sets the balance to the plan's monthly amount.",
    )

    class Meta:
        model = AiCredits
        fields = []


@admin.register(AiCredits)
class AiCreditsAdmin(SupportAdmin):
    """An operator adds credits for this month (never below zero); adding, not setting, so what
    members spent meanwhile is not given back."""

    form = AiCreditsForm
    list_display = ["organization", "remaining", "resets_at"]
    search_fields = ["organization__slug"]
    list_select_related = ["organization"]
    readonly_fields = ["organization", "remaining", "resets_at"]
    fields = ["organization", "remaining", "resets_at", "add"]

    def get_object(self, request, object_id, from_field=None):
        """The balance as the app reads it: refilled once its reset date has passed."""
        obj = super().get_object(request, object_id, from_field)
        return ai_credits_current(organization=obj.organization) if obj is not None else None

    def save_model(self, request, obj, form, change):
        added = form.cleaned_data.get("add") or 0
        before = None
        if added:
            # refilled first: added to a row past its date, a grant was wiped by the app's
            # next read, which refilled it to the plan's amount
            ai_credits_current(organization=obj.organization)
            before = AiCredits.objects.select_for_update().get(pk=obj.pk).remaining
            AiCredits.objects.filter(pk=obj.pk).update(
                remaining=Greatest(F("remaining") + added, 0)
            )
        obj.refresh_from_db()  # the message and the log name the balance after it
        obj.applied = obj.remaining - before if added else 0  # what the balance did

    def construct_change_message(self, request, form, formsets, add=False):
        added = form.cleaned_data.get("add") or 0
        if not added:
            return "Nothing added."
        obj = form.instance
        until = f"{obj.resets_at:%Y-%m-%d %H:%M} UTC"
        applied = getattr(obj, "applied", added)
        # what the balance did, not what was typed: taking 1,000,000 from 150 takes 150
        done = f"Added {applied:,}" if applied >= 0 else f"Took {-applied:,}"
        asked = "" if applied == added else f" ({added:+,} asked; a balance stays at 0 or more)"
        return f"{done} credits{asked}: {obj.remaining:,} left until {until}."

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
    search_fields = ["event_id", "organization__slug"]
    list_select_related = ["organization"]
    ordering = ["-received_at"]
    date_hierarchy = "received_at"
    fields = [*list_display, "payload_pretty"]
    readonly_fields = fields

    @admin.display(description="payload")
    def payload_pretty(self, obj):
        """As the provider sent it, indented (refused deliveries are not recorded: they are in
        the logs, logger `archsvc.billing`)."""
        return format_html(
            '<pre style="white-space: pre-wrap; margin: 0">{}</pre>',
            json.dumps(obj.payload, indent=2, ensure_ascii=False, sort_keys=True),
        )
