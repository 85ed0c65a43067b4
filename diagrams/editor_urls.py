"""Service editor and history pages of a project."""

from django.urls import path

from diagrams import editor_views

urlpatterns: list = [
    path("services/", editor_views.services_page, name="editor-services"),
    path("services/new/", editor_views.service_new, name="editor-service-new"),
    path("services/<str:slug>/edit/", editor_views.service_edit, name="editor-service-edit"),
    path("services/<str:slug>/delete/", editor_views.service_remove, name="editor-service-delete"),
    path("history/", editor_views.history, name="editor-history"),
]
