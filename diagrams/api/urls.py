from django.urls import path

from diagrams.api import assistant_views, graph_views, service_views, sharing_views, views

P = "projects/<str:project_id>"

urlpatterns = [
    path("projects", views.ProjectListView.as_view(), name="projects"),
    path(P, views.ProjectDetailView.as_view(), name="project"),
    path(f"{P}/duplicate", views.ProjectDuplicateView.as_view(), name="project-duplicate"),
    path("pinned", views.PinListView.as_view(), name="pinned"),
    path("pinned/<str:project_id>", views.PinDetailView.as_view(), name="pin"),
    path(f"{P}/services", service_views.ServiceListView.as_view(), name="services"),
    path(f"{P}/services/<str:slug>", service_views.ServiceDetailView.as_view(), name="service"),
    path(
        f"{P}/services/<str:slug>/raw", service_views.ServiceRawView.as_view(), name="service-raw"
    ),
    path(f"{P}/graph", graph_views.GraphView.as_view(), name="graph"),
    path(f"{P}/graph/mermaid", graph_views.GraphMermaidView.as_view(), name="graph-mermaid"),
    path(f"{P}/graph/svg", graph_views.GraphSvgView.as_view(), name="graph-svg"),
    path(
        f"{P}/public-share-token",
        sharing_views.PublicShareTokenView.as_view(),
        name="public-share-token",
    ),
    path(f"{P}/ai/chat", assistant_views.ChatView.as_view(), name="ai-chat"),
    path(f"{P}/entities", service_views.EntitiesView.as_view(), name="entities"),
    path(f"{P}/history", service_views.HistoryView.as_view(), name="history"),
    path(
        f"{P}/history/<str:snapshot_id>/diff",
        service_views.SnapshotDiffView.as_view(),
        name="snapshot-diff",
    ),
]
