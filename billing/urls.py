from django.urls import path

from billing import views

urlpatterns = [
    path("webhooks/billing", views.billing_webhook, name="billing-webhook"),
    path("billing/portal/<str:token>/", views.local_portal, name="billing-portal"),
]
