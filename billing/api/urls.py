from django.urls import path

from billing.api import views

urlpatterns = [
    path("limits", views.LimitsView.as_view(), name="limits"),
]
