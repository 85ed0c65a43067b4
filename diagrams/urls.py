from django.urls import path

from diagrams import views

urlpatterns = [
    path("share/<str:token>/", views.share_page, name="share"),
    path("share/<str:token>/embed/", views.share_embed, name="share-embed"),
    path("share/<str:token>/graph.svg", views.share_svg, name="share-svg"),
    path("projects/<str:project_id>/", views.project_page, name="project-page"),
    path("projects/<str:project_id>/share/", views.project_share_settings,
         name="project-share"),
]
