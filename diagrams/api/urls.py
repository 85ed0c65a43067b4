from django.urls import path

from diagrams.api import views

urlpatterns = [
    path("projects", views.ProjectListView.as_view(), name="projects"),
    path("projects/<str:project_id>", views.ProjectDetailView.as_view(), name="project"),
    path("projects/<str:project_id>/duplicate", views.ProjectDuplicateView.as_view(),
         name="project-duplicate"),
    path("pinned", views.PinListView.as_view(), name="pinned"),
    path("pinned/<str:project_id>", views.PinDetailView.as_view(), name="pin"),
]
