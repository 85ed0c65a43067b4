"""Organization settings pages (members, API keys, billing)."""

from django.urls import path

from accounts import settings_views

urlpatterns: list = [
    path("", settings_views.settings_index, name="settings"),
    path("members/", settings_views.members_view, name="settings-members"),
    path("api-keys/", settings_views.api_keys_view, name="settings-api-keys"),
    path("billing/", settings_views.billing_view, name="settings-billing"),
    path("account/", settings_views.account_view, name="settings-account"),
    path("billing/portal/", settings_views.billing_portal_view, name="settings-billing-portal"),
    path("billing/plan/", settings_views.billing_plan_view, name="settings-billing-plan"),
    path(
        "billing/checkout/", settings_views.billing_checkout_view, name="settings-billing-checkout"
    ),
]
