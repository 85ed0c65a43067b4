"""What the member's pages of a project share: the 404 page that leads back to the project
an address was under, and the site's 404 handler (named by archsvc/urls.py)."""

import re

from django.shortcuts import render

from accounts.middleware import page_actor
from archsvc.api.views import handler404 as api_handler404
from archsvc.exceptions import ApiError
from diagrams.selectors import project_get

_UNDER_PROJECT = re.compile(r"^/projects/([a-z0-9][a-z0-9-]{6,58}[a-z0-9])/.")


def handler404(request, exception=None):
    if request.path.startswith("/v1/"):
        return api_handler404(request, exception)
    return not_found_page(request)


def not_found_page(request):
    """The site's 404 page, leading back to the project the address was under."""
    return render(request, "404.html", {"project": _project_around(request)}, status=404)


def _project_around(request):
    """The project a missing page was under (/projects/<id>/...), when the member may see it."""
    match = _UNDER_PROJECT.match(request.path)
    if not match:
        return None
    try:
        actor = page_actor(request)
        return project_get(actor=actor, project_id=match.group(1)) if actor else None
    except ApiError:
        return None
