from django.urls import path

from billing.api import views

urlpatterns = [
    path("limits", views.LimitsView.as_view(), name="limits"),
    path("billing/subscription", views.SubscriptionView.as_view(), name="subscription"),
    path("billing/subscription/switch-cycle", views.SwitchCycleView.as_view(), name="switch-cycle"),
    path("billing/portal-session", views.PortalSessionView.as_view(), name="portal-session"),
    path("billing/ai-credits", views.AiCreditsView.as_view(), name="ai-credits"),
]
