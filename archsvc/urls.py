from django.contrib import admin
from django.contrib.admin.forms import AdminAuthenticationForm
from django.core.exceptions import ValidationError
from django.template.response import TemplateResponse
from django.urls import include, path, re_path
from django.views.decorators.cache import never_cache
from django.views.generic.base import RedirectView
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerView

from archsvc.api.ratelimit import login_rate_limit_hit, seconds_text
from archsvc.api.views import api_not_found
from archsvc.health import healthz


class _AdminLoginRefused(AdminAuthenticationForm):
    """The admin's log-in form, refused for its rate limit before any password is checked."""

    def __init__(self, request, *, retry_after: int):
        super().__init__(request, data=request.POST)
        self.retry_after = retry_after

    def clean(self):
        raise ValidationError(
            f"Too many log-in attempts. Try again in {seconds_text(self.retry_after)}."
        )


@never_cache
def admin_login(request, extra_context=None):
    """Django admin's log-in under the app's log-in limit (one budget per client IP), so operators'
    passwords cannot be guessed without end; over it, 429 with Retry-After."""
    if request.method == "POST":
        retry_after = login_rate_limit_hit(request)
        if retry_after:
            request.current_app = admin.site.name
            context = {
                **admin.site.each_context(request),
                "title": "Log in",
                "app_path": request.get_full_path(),
                "form": _AdminLoginRefused(request, retry_after=retry_after),
                "next": request.POST.get("next", ""),
            }
            response = TemplateResponse(request, "admin/login.html", context, status=429)
            response["Retry-After"] = str(retry_after)
            return response
    return admin.site.login(request, extra_context)


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
    path("admin/login/", admin_login),  # before admin's own: the same view, rate limited
    path("admin/", admin.site.urls),
    path("healthz", healthz, name="healthz"),
    path("favicon.ico", RedirectView.as_view(url="/static/favicon.svg", permanent=True)),
]

handler400 = "archsvc.api.views.handler400"
handler404 = "diagrams.pages.handler404"
handler500 = "archsvc.api.views.handler500"
