from django.contrib import admin
from django.urls import include, path, re_path
from django.views.generic.base import RedirectView
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerView

from archsvc.api.views import api_not_found
from archsvc.health import healthz

v1 = [
    path("", include("billing.api.urls")),
    path("", include("diagrams.api.urls")),
    path("schema", SpectacularAPIView.as_view(), name="schema"),
    path("docs", SpectacularSwaggerView.as_view(url_name="schema"), name="docs"),
    re_path(r"^.*$", api_not_found),
]

urlpatterns = [
    path("v1/", include(v1)),
    re_path(r"^v1$", api_not_found),
    path("accounts/", include("accounts.urls")),
    path("settings/", include("accounts.settings_urls")),
    path("projects/<str:project_id>/", include("diagrams.editor_urls")),
    path("", include("billing.urls")),
    path("", include("diagrams.urls")),
    path("admin/", admin.site.urls),
    path("healthz", healthz, name="healthz"),
    path("favicon.ico", RedirectView.as_view(url="/static/favicon.svg", permanent=True)),
]

handler404 = "archsvc.api.views.handler404"
handler500 = "archsvc.api.views.handler500"
