"""The projects pages: the list (search, filters, paging, pin in place, create, archive,
duplicate, delete), all through the same services and selectors as the API."""

from urllib.parse import urlencode

from django.contrib import messages
from django.shortcuts import redirect, render
from django.utils.html import format_html
from django.utils.http import url_has_allowed_host_and_scheme
from django.views.decorators.http import require_http_methods, require_POST

from accounts.pages import member_page
from accounts.selectors import user_memberships
from archsvc.api.params import page_number
from archsvc.exceptions import ApiError
from billing.selectors import limits_for_page
from diagrams import project_writes, selectors
from diagrams.api.serializers import ProjectCreateSerializer, ProjectUpdateSerializer
from diagrams.models import PublicShareToken
from diagrams.pages import not_found_page, project_page

PAGE_SIZE = 20


def _login(request):
    """These pages' log-in redirect: `next` fully encoded (`/` too), unlike login_redirect's."""
    return redirect("/accounts/login/?" + urlencode({"next": request.get_full_path()}))


def _flag(value: str | None) -> bool | None:
    return {"yes": True, "no": False}.get(value or "")


@require_http_methods(["GET", "POST"])
@member_page(login=_login)
def projects_page(request, actor):
    message = error = None
    errors: dict[str, str] = {}
    limit_reached = False
    if request.method == "POST":  # create
        form = _project_form(request.POST)
        errors = _project_form_errors(ProjectCreateSerializer, form)
        if not errors:
            try:
                project = project_writes.project_create(actor=actor, **form)
                messages.success(request, "Project created. Add its first service below.")
                return redirect(f"/projects/{project.id}/")
            except ApiError as failure:
                error = failure.message
                limit_reached = failure.code == "project_limit_reached"
    query = request.GET.get("q", "").strip()[:200]
    pinned = _flag(request.GET.get("pinned"))
    archived = _flag(request.GET.get("archived", "no"))  # "all" shows both
    mine = request.GET.get("mine") == "yes"  # made by the member (a big organization's list)
    # ?page= counts from 1, as the Services and History pages' do (it counted from 0: ?page=1
    # was the second page, and "There is no page 100" answered ?page=99)
    page = page_number(request.GET.get("page"), default=1, minimum=1) - 1
    projects, total = selectors.project_list(
        actor=actor,
        page=page,
        size=PAGE_SIZE,
        pinned=pinned,
        archived=archived,
        query=query or None,
        pinned_first=True,  # what a member pinned is what they look for first
        created_by_ref=actor.ref if mine else None,
    )
    pages = max(1, -(-total // PAGE_SIZE))
    filters = {
        "q": query,
        "pinned": request.GET.get("pinned", ""),
        "archived": request.GET.get("archived", "no"),
        **({"mine": "yes"} if mine else {}),
    }

    def page_link(index: int) -> str:  # (index: from 0)
        return "?" + urlencode({**filters, "page": index + 1})

    # which of the page's projects anyone holding a link may see (an admin auditing what is
    # public had to open each project's Share page): one query for the page
    shared = set(
        PublicShareToken.objects.filter(project_id__in=[p.id for p in projects]).values_list(
            "project_id", flat=True
        )
    )
    for project in projects:
        project.can_manage = actor.can_manage_project(created_by_ref=project.created_by_ref)
        project.shared = project.id in shared
    filtered = bool(query) or pinned is not None or filters["archived"] != "no" or mine
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
            "filtered": filtered,
            "limits": limits_for_page(organization=actor.organization),
            # which projects the member may delete to make room: any, or their own
            "deletes_any": actor.is_admin,
            "message": message,
            "error": error,
            "errors": errors,
            "limit_reached": limit_reached,
            "memberships": list(user_memberships(user_id=session.membership.user_id)),
            "form": {
                "name": request.POST.get("name", ""),
                "description": request.POST.get("description", ""),
            },
        },
        status=400 if error or errors else 200,
    )


NAME_LENGTH = "A project's name has 3 to 60 characters."


def _project_form(post) -> dict:
    return {
        "name": post.get("name", "").strip(),
        "description": post.get("description", "").strip(),
    }


def _project_form_errors(serializer_class, form: dict) -> dict[str, str]:
    """The API's validation of a project's name and description, a message per field, the
    name's length said the same way on every page."""
    serializer = serializer_class(data=form)
    if serializer.is_valid():
        return {}
    errors = {field: str(problems[0]) for field, problems in serializer.errors.items()}
    codes = {getattr(problem, "code", None) for problem in serializer.errors.get("name", [])}
    if codes & {"blank", "min_length", "max_length", "required"}:
        errors["name"] = NAME_LENGTH
    if "description" in errors and len(form["description"]) > 200:
        errors["description"] = "A description has at most 200 characters."
    return errors


def _back(request) -> str:
    """Where the form came from, if it is a path of this site (`/\\evil.example` is
    another site to a browser, as `//evil.example` is)."""
    target = request.POST.get("next", "/")
    safe = url_has_allowed_host_and_scheme(target, allowed_hosts=None) and target.startswith("/")
    return target if safe else "/"


@require_POST
@member_page(login=_login)
def project_action(request, actor, project_id: str, action: str):
    """pin, unpin, archive, unarchive, duplicate: then back to where the member was."""
    try:
        if action == "pin":
            project_writes.pin_create(actor=actor, project_id=project_id)
        elif action == "unpin":
            project_writes.pin_delete(actor=actor, project_id=project_id)
        elif action in ("archive", "unarchive"):
            project = project_writes.project_update(
                actor=actor, project_id=project_id, changes={"archived": action == "archive"}
            )
            if action == "archive":
                messages.success(
                    request,
                    format_html(
                        "“{}” is archived: it is hidden from the list until you choose "
                        '<a href="/?archived=yes">Archived: only archived</a>.',
                        project.name,
                    ),
                )
            else:
                messages.success(
                    request,
                    format_html(
                        '“{}” is unarchived: it is back in the <a href="/">projects list</a>.',
                        project.name,
                    ),
                )
        elif action == "duplicate":
            source = selectors.project_get(actor=actor, project_id=project_id)
            copy = project_writes.project_duplicate(
                actor=actor, project_id=project_id, name=copy_name(source.name)
            )
            messages.success(
                request, f"This is a copy of “{source.name}”, with its services as they are now."
            )
            return redirect(f"/projects/{copy.id}/")
        else:
            return not_found_page(request)
    except ApiError as failure:
        if failure.code == "project_not_found":
            return not_found_page(request)
        if failure.code == "project_limit_reached":  # Duplicate at the plan's limit
            messages.error(request, _limit_refusal(actor, source.name))
            return redirect(_back(request))
        if failure.code != "not_found":  # unpinning what is not pinned is fine here
            return render(
                request,
                "diagrams/project_refused.html",
                {"message": failure.message},
                status=failure.status,
            )
    return redirect(_back(request))


def _limit_refusal(actor, name: str) -> str:
    """Why a project was not duplicated, and the ways out, where the member pressed it (a
    phone shows no tooltip on a button that is off)."""
    limits = limits_for_page(organization=actor.organization)
    # a member may delete only the projects they created; an admin, any
    yours = "you" if actor.is_admin else "you created and"
    if limits["over"]:
        why = (
            f"this organization has {limits['currentProjects']:,} projects, "
            f"{limits['over']:,} more than your plan's {limits['maxProjects']:,} "
            f"(archived ones count too). Delete {limits['over'] + 1:,} {yours} no longer "
            "need"
        )
    else:
        why = (
            f"all {limits['maxProjects']:,} projects of your plan are in use (archived ones "
            f"count too). Delete a project {yours} no longer need"
        )
    if not limits["bigger_plan"]:  # the biggest plan: no plan to point to
        return format_html("“{}” was not duplicated: {}.", name, why)
    return format_html(
        '“{}” was not duplicated: {}, or <a href="/settings/billing/">see the plans</a>.',
        name,
        why,
    )


def _refusal_to_manage(request, actor, project, verb: str):
    """The 403 page, before anything is typed, when the actor may not manage the project."""
    if actor.can_manage_project(created_by_ref=project.created_by_ref):
        return None
    return render(
        request,
        "diagrams/project_refused.html",
        {"message": f"Only an admin or the project's creator can {verb} it."},
        status=403,
    )


@require_http_methods(["GET", "POST"])
@project_page(login=_login)
def project_delete_page(request, actor, project):
    """A confirmation naming the project, then the irreversible delete."""
    refusal = _refusal_to_manage(request, actor, project, "delete")
    if refusal:
        return refusal
    if request.method == "POST":
        if request.POST.get("confirm_name", "").strip() != project.name:
            return render(
                request,
                "diagrams/project_delete.html",
                {"project": project, "error": "Type the project's name exactly to delete it."},
                status=400,
            )
        try:
            project_writes.project_delete(actor=actor, project_id=project.id)
        except ApiError as failure:
            return render(
                request,
                "diagrams/project_refused.html",
                {"message": failure.message},
                status=failure.status,
            )
        messages.success(request, f"“{project.name}” and its history are deleted.")
        return redirect("/")
    return render(request, "diagrams/project_delete.html", {"project": project})


def copy_name(name: str) -> str:
    """The name of a copy: "<name> (copy)" within 60 characters, a longer name cut after a
    whole word, with an ellipsis ("Customer Notification Preferences And… (copy)")."""
    suffix = " (copy)"
    if len(name) + len(suffix) <= 60:
        return name + suffix
    room = 60 - len(suffix) - 1  # and the ellipsis
    cut = name[: room + 1].rsplit(" ", 1)[0] if " " in name[: room + 1] else ""
    kept = cut if len(cut) >= room // 2 else name[:room]  # no word break near: cut hard
    return kept.rstrip(" -_.,;:") + "…" + suffix


@require_http_methods(["GET", "POST"])
@project_page(login=_login)
def project_details_page(request, actor, project):
    """Rename a project and edit its description, with the API's own validation."""
    refusal = _refusal_to_manage(request, actor, project, "rename")
    if refusal:
        return refusal
    form = {"name": project.name, "description": project.description}
    errors: dict[str, str] = {}
    if request.method == "POST":
        form = _project_form(request.POST)
        errors = _project_form_errors(ProjectUpdateSerializer, form)
        if not errors:
            try:
                project_writes.project_update(actor=actor, project_id=project.id, changes=form)
            except ApiError as failure:
                errors["name"] = failure.message
            else:
                messages.success(request, "Saved.")
                return redirect(f"/projects/{project.id}/")
    return render(
        request,
        "diagrams/project_details.html",
        {"project": project, "form": form, "errors": errors},
        status=400 if errors else 200,
    )
