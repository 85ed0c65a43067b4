"""What the member's pages of a project share: their guard (`project_page`), the 404 page
that leads back to the project an address was under, and the site's 404 handler."""

import re
from functools import wraps

from django.shortcuts import render

from accounts.middleware import login_redirect, page_actor
from accounts.pages import member_page
from archsvc.api.views import handler404 as api_handler404
from archsvc.exceptions import ApiError
from diagrams.selectors import project_get

_UNDER_PROJECT = re.compile(r"^/projects/([a-z0-9][a-z0-9-]{6,58}[a-z0-9])/.")


def project_page(view=None, *, login=login_redirect):
    """`member_page` and the project of the address: `view(request, actor, project, *args,
    **kwargs)` (without `project_id`), or the 404 page when the member may not read it."""

    def decorate(view):
        @member_page(login=login)
        @wraps(view)
        def guarded(request, actor, *args, project_id: str, **kwargs):
            try:
                project = project_get(actor=actor, project_id=project_id)
            except ApiError:
                return not_found_page(request)
            return view(request, actor, project, *args, **kwargs)

        return guarded

    return decorate if view is None else decorate(view)


def handler404(request, exception=None):
    """Named by archsvc/urls.py: the API's JSON 404 under /v1/, else the 404 page."""
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
