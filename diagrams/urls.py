from django.urls import path, re_path
from django.views.generic.base import RedirectView

from diagrams import project_views, share_views, views

urlpatterns = [
    path("share/<str:token>/", share_views.share_page, name="share"),
    path("share/<str:token>/embed/", share_views.share_embed, name="share-embed"),
    path("share/<str:token>/graph.svg", share_views.share_svg, name="share-svg"),
    path("", project_views.projects_page, name="projects"),
    # a project's address cut back to its folder (typed, or a crumb of the address bar)
    path("projects/", RedirectView.as_view(pattern_name="projects", query_string=True)),
    path("projects/<str:project_id>/", views.project_page, name="project-page"),
    path(
        "projects/<str:project_id>/delete/",
        project_views.project_delete_page,
        name="project-delete",
    ),
    path(
        "projects/<str:project_id>/details/",
        project_views.project_details_page,
        name="project-details",
    ),
    re_path(
        r"^projects/(?P<project_id>[^/]+)/(?P<action>pin|unpin|archive|unarchive|duplicate)/$",
        project_views.project_action,
        name="project-action",
    ),
    path("projects/<str:project_id>/share/", views.project_share_settings, name="project-share"),
]
