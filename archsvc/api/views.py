"""Answers for what no /v1 view handles (unknown paths, Django's error handlers, CSRF failures):
JSON under /v1, the site's own pages elsewhere; and the 503 of an unreachable database."""

import sys

from django.http import HttpResponse
from django.shortcuts import render
from django.template.loader import render_to_string
from django.views.decorators.csrf import csrf_exempt

from archsvc.api.errors import database_unreachable, database_unreachable_logged, error_json


@csrf_exempt  # an unknown path is 404 for every method, not a CSRF page for POST
def api_not_found(request, *args, **kwargs):
    return error_json(404, "not_found", _not_found_message(request.path))


def _not_found_message(path: str) -> str:
    """ "No such endpoint.", and the way to the one meant when the path is a known one with a
    trailing slash (`/v1/projects/`): the API's paths have none."""
    from django.urls import Resolver404, resolve

    if len(path) > 4 and path.endswith("/"):
        try:
            match = resolve(path.rstrip("/"))
        except Resolver404:
            match = None
        if match is not None and match.func is not api_not_found:
            meant = path.rstrip("/")
            if len(meant) <= 300:
                return f"No such endpoint. The API's paths end without a slash: {meant}"
    return "No such endpoint."


def handler400(request, exception=None):
    """A request Django could not read (a form not in UTF-8, too many fields, a bad Host), not
    through Django's handler, whose CSRF check would read the form again and fail with a 500."""
    if request.path.startswith("/v1/"):
        return error_json(400, "bad_request", "The request could not be read.")
    try:
        return render(request, "400.html", status=400)
    except Exception:  # noqa: BLE001 - what the page reads (the session) may be what failed
        return HttpResponse(render_to_string("400.html"), status=400)


def handler404(request, exception=None):
    """The API's 404 for /v1 paths, the site's plain 404 page elsewhere (the root URLconf
    names diagrams.pages.handler404, whose page leads back to the project around)."""
    if request.path.startswith("/v1/"):
        return error_json(404, "not_found", _not_found_message(request.path))
    return render(request, "404.html", status=404)


def handler500(request):
    """Django calls it while handling the exception that a view or a middleware raised."""
    exc = sys.exc_info()[1]
    if database_unreachable(exc):
        return database_unavailable(request, exc)
    if request.path.startswith("/v1/"):
        return error_json(500, "internal_error", "An internal error occurred.")
    return render(request, "500.html", status=500)


def database_unavailable(request, exc: BaseException) -> HttpResponse:
    """503 with Retry-After while the database cannot be reached: a page or the API's body, and
    one warning line with the reason."""
    database_unreachable_logged(request, exc)
    if request.path.startswith("/v1/"):
        return error_json(
            503, "internal_error", "The service is briefly unavailable; retry.", Retry_After="1"
        )
    # without the request, whose context processors would read the session, in the database
    response = HttpResponse(render_to_string("503.html"), status=503)
    response["Retry-After"] = "1"
    return response


def csrf_failure(request, reason: str = ""):
    """CSRF_FAILURE_VIEW: the site's own page (a form left open past its token, cookies
    cleared in another tab) with what to do, instead of Django's bare debugging page."""
    if request.path.startswith("/v1/"):
        return error_json(403, "forbidden", "CSRF check failed: send the X-CSRFToken header.")
    return render(request, "403_csrf.html", status=403)
