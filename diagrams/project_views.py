"""The projects pages: the list (search, filters, paging, pin in place, create, archive,
duplicate, delete), all through the same services and selectors as the API."""

from urllib.parse import urlencode

from django.shortcuts import redirect, render
from django.views.decorators.http import require_http_methods, require_POST

from accounts.middleware import page_actor
from accounts.selectors import user_memberships
from archsvc.api.errors import ApiError
from billing.selectors import limits_get
from diagrams import selectors, services

PAGE_SIZE = 20


def _login(request):
    return redirect(f"/accounts/login/?next={request.get_full_path()}")


def _flag(value: str | None) -> bool | None:
    return {"yes": True, "no": False}.get(value or "")


@require_http_methods(["GET", "POST"])
def projects_page(request):
    actor = page_actor(request)
    if actor is None:
        return _login(request)
    message = error = None
    if request.method == "POST":  # create
        name = request.POST.get("name", "").strip()
        description = request.POST.get("description", "").strip()
        if not 3 <= len(name) <= 60:
            error = "A project's name has 3 to 60 characters."
        elif len(description) > 200:
            error = "A description has at most 200 characters."
        else:
            try:
                project = services.project_create(actor=actor, name=name, description=description)
                return redirect(f"/projects/{project.id}/")
            except ApiError as failure:
                error = failure.message
    query = request.GET.get("q", "").strip()[:200]
    pinned = _flag(request.GET.get("pinned"))
    archived = _flag(request.GET.get("archived", "no"))  # "all" shows both
    try:
        page = max(0, int(request.GET.get("page", "0")))
    except ValueError:
        page = 0
    projects, total = selectors.project_list(
        actor=actor,
        page=page,
        size=PAGE_SIZE,
        pinned=pinned,
        archived=archived,
        query=query or None,
    )
    pages = max(1, -(-total // PAGE_SIZE))
    filters = {
        "q": query,
        "pinned": request.GET.get("pinned", ""),
        "archived": request.GET.get("archived", "no"),
    }

    def page_link(number: int) -> str:
        return "?" + urlencode({**filters, "page": number})

    session = request._archsvc_page_session
    return render(
        request,
        "diagrams/projects.html",
        {
            "projects": projects,
            "total": total,
            "page": page,
            "pages": pages,
            "previous": page_link(page - 1) if page > 0 else None,
            "next": page_link(page + 1) if page + 1 < pages else None,
            "filters": filters,
            "limits": limits_get(organization=actor.organization),
            "message": message,
            "error": error,
            "memberships": list(user_memberships(user_id=session.membership.user_id)),
            "form": {
                "name": request.POST.get("name", ""),
                "description": request.POST.get("description", ""),
            },
        },
        status=400 if error else 200,
    )


def _back(request) -> str:
    target = request.POST.get("next", "/")
    return target if target.startswith("/") and not target.startswith("//") else "/"


@require_POST
def project_action(request, project_id: str, action: str):
    """pin, unpin, archive, unarchive, duplicate: then back to where the member was."""
    actor = page_actor(request)
    if actor is None:
        return _login(request)
    try:
        if action == "pin":
            services.pin_create(actor=actor, project_id=project_id)
        elif action == "unpin":
            services.pin_delete(actor=actor, project_id=project_id)
        elif action in ("archive", "unarchive"):
            services.project_update(
                actor=actor, project_id=project_id, archived=action == "archive"
            )
        elif action == "duplicate":
            copy = services.project_duplicate(actor=actor, project_id=project_id)
            return redirect(f"/projects/{copy.id}/")
        else:
            return render(request, "404.html", status=404)
    except ApiError as failure:
        if failure.code == "project_not_found":
            return render(request, "404.html", status=404)
        if failure.code != "not_found":  # unpinning what is not pinned is fine here
            return render(
                request,
                "diagrams/project_refused.html",
                {"message": failure.message},
                status=failure.status,
            )
    return redirect(_back(request))


@require_http_methods(["GET", "POST"])
def project_delete_page(request, project_id: str):
    """A confirmation naming the project, then the irreversible delete."""
    actor = page_actor(request)
    if actor is None:
        return _login(request)
    try:
        project = selectors.project_get(actor=actor, project_id=project_id)
    except ApiError:
        return render(request, "404.html", status=404)
    if request.method == "POST":
        if request.POST.get("confirm_name", "").strip() != project.name:
            return render(
                request,
                "diagrams/project_delete.html",
                {"project": project, "error": "Type the project's name exactly to delete it."},
                status=400,
            )
        try:
            services.project_delete(actor=actor, project_id=project_id)
        except ApiError as failure:
            return render(
                request,
                "diagrams/project_refused.html",
                {"message": failure.message},
                status=failure.status,
            )
        return redirect("/")
    return render(request, "diagrams/project_delete.html", {"project": project})
