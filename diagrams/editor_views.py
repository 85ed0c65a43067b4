"""Members' pages to edit a project's services (create, edit, delete) and to read its history;
writes go through the API's serializers and services, so the rules are the same as /v1's."""

# Over 500 lines: the request handling of five pages, most of it the edit and delete pages'
# answers to a service changed, renamed or deleted meanwhile; the form itself and the merge
# are pure, in editor_forms.py.

import re
from urllib.parse import parse_qsl, quote, urlencode

from django.contrib import messages
from django.shortcuts import redirect, render
from django.utils.html import format_html
from django.views.decorators.http import require_GET, require_http_methods

from archsvc.api.params import iso, page_number
from archsvc.exceptions import ApiError, ProjectNotFound, ServiceNotFound
from diagrams.api.serializers import ServiceCreateSerializer, ServiceUpdateSerializer
from diagrams.drawings import project_entities_cached
from diagrams.editor_forms import (
    clash_message,
    empty_form,
    form_from_post,
    form_from_snapshot,
    holds,
    merged_form,
    opened_as,
    request_body,
    row_errors,
    validated,
    with_blank_rows,
    without_parts_as_shown,
)
from diagrams.history import topic_line
from diagrams.pages import not_found_page, project_page
from diagrams.selectors import (
    history_page,
    history_service,
    service_at,
    service_deleted_as,
    service_now,
    service_renamed_from,
    service_version,
    snapshots_changes,
)
from diagrams.service_writes import (
    ServiceChangedMeanwhile,
    service_create,
    service_delete,
    service_name_clash,
    service_update,
)

HISTORY_PAGE_SIZE = 20
SERVICES_PAGE_SIZE = 100  # rows of the Services page: at 3,000 services all of them took 0.5 s
FIND_MAX = 200  # characters of a Find, as the project page's box takes


class _NotFound(Exception):
    pass


def _services_url(project_id: str) -> str:
    return f"/projects/{project_id}/services/"


def _history_url(project_id: str, service_id=None) -> str:
    """The project's history page; one service's history, given its id."""
    url = f"/projects/{project_id}/history/"
    return f"{url}?service={service_id}" if service_id else url


def _return_to(request, project) -> str:
    """Where Save and Cancel lead: back to the project page the member came from (its Edit
    links say so, with the view it showed), else the Services list."""
    back = request.POST.get("next") or request.GET.get("next") or ""
    page = f"/projects/{project.id}/"
    plain = back.isascii() and back.isprintable() and not any(c in back for c in " #\\")
    if plain and (back == page or back.startswith(page + "?")):
        return back
    return _services_url(project.id)


def _datalists(project) -> dict:
    entities = project_entities_cached(project=project)
    return {
        # each with its category and owner as the project has them now (merged from every
        # service that names it): the editor says when a row would change them
        "topics": sorted(entities["topics"].values(), key=lambda topic: topic["name"]),
        "category_names": sorted(c["name"] for c in entities["categories"].values()),
        "owner_names": sorted(o["name"] for o in entities["owners"].values()),
    }


def _form_page(
    request, project, *, form, errors, snapshot=None, status=200, conflict=False, meanwhile=None
):
    """`meanwhile`: each part a colleague changed too since the form was opened, with their
    value, said under it (the message at the top names them all)."""
    return render(
        request,
        "editor/service_form.html",
        {
            "project": project,
            "snapshot": snapshot,
            "form": with_blank_rows(form),
            "errors": errors,
            "has_errors": bool(errors) or row_errors(form),
            "conflict": conflict,
            "meanwhile": meanwhile or {},
            "back": _return_to(request, project),
            **_datalists(project),
        },
        status=status,
    )


def _save(request, actor, project, *, snapshot=None, expected=None):
    """POST of the form: validate like the API, write, or show the form again with every
    value kept and every error beside its field."""
    form = form_from_post(request.POST)
    body, form_errors = request_body(form, current=snapshot)
    if snapshot is not None:
        # a part left as the form showed it is not sent, and keeps what is stored (read
        # back from the form it could differ)
        without_parts_as_shown(body, form, snapshot)
    errors: dict = {}
    serializer_class = ServiceUpdateSerializer if snapshot else ServiceCreateSerializer
    data = validated(serializer_class, body, form, errors)
    service_id = snapshot.service_id if snapshot else None
    if data is None or form_errors or row_errors(form):
        name = form.get("name", "").strip()
        if name and "name" not in errors and name != (snapshot.name if snapshot else None):
            clash = service_name_clash(project=project, name=name, service_id=service_id)
            if clash is not None:
                errors["name"] = [clash_message(name, clash)]
        return _form_page(request, project, form=form, errors=errors, snapshot=snapshot, status=400)
    try:
        if snapshot is None:
            saved = service_create(actor=actor, project_id=project.id, data=data)
        else:
            saved = service_update(
                actor=actor,
                project_id=project.id,
                slug=snapshot.slug,
                data=data,
                expected=None if expected is None else {expected},
            )
    except ProjectNotFound:
        raise _NotFound() from None
    except ServiceChangedMeanwhile as changed:  # between the page's check and the write
        return _changed_meanwhile(request, project, changed.current, expected=expected)
    except ApiError as error:
        if error.code == "service_name_conflict":
            name = data.get("name", snapshot.name if snapshot else "")
            clash = service_name_clash(project=project, name=name, service_id=service_id)
            errors["name"] = [clash_message(name, clash)]
        elif isinstance(error, ServiceNotFound):
            errors["form"] = ["This service was deleted or renamed meanwhile; nothing was saved."]
        else:
            errors["form"] = [error.message]
        return _form_page(
            request, project, form=form, errors=errors, snapshot=snapshot, status=error.status
        )
    verb = "added" if snapshot is None else "saved"
    messages.success(request, f"Service “{saved.name}” {verb}.")
    return redirect(_return_to(request, project))


# --- Pages ----------------------------------------------------------------------------------


def _service_text(service: dict, topics: dict) -> str:
    """What Find reads in a service: as the project page's Find (name, slug, owner, the
    topics it consumes and produces), and its category, a column of this page."""
    named = [topics[t]["name"] for t in service["consumes"] + service["produces"] if t in topics]
    fields = [service["name"], service["slug"], service["owner"] or "", service["category"] or ""]
    return " ".join(fields + named).casefold()


@require_GET
@project_page
def services_page(request, actor, project):
    """The project's services by name, SERVICES_PAGE_SIZE a page, each with its edit and
    delete links; `find` narrows them to those holding every word typed."""
    find = " ".join(request.GET.get("find", "")[:FIND_MAX].split())
    # the project page's cached entities (one render for both pages and the API): at 3,000
    # services reading every snapshot took 0.2 s of each page
    entities = project_entities_cached(project=project)
    everything, topics = entities["services"].values(), entities["topics"]
    words = find.casefold().split()
    services = [s for s in everything if all(w in _service_text(s, topics) for w in words)]
    # as people read them: by name, not by slug ("!!!" is service-1a2b3c4d)
    services.sort(key=lambda s: (s["name"].casefold(), s["slug"]))
    page = page_number(request.GET.get("page"), default=1, minimum=1)
    pages = max(1, -(-len(services) // SERVICES_PAGE_SIZE))
    query = {"find": find} if find else {}
    if page > pages:  # an old link past the end: its last page
        return redirect(f"{request.path}?{urlencode({**query, 'page': pages})}")
    start = (page - 1) * SERVICES_PAGE_SIZE

    def page_link(number: int) -> str:
        return "?" + urlencode({**query, "page": number}) if number > 1 else "?" + urlencode(query)

    return render(
        request,
        "editor/services.html",
        {
            "project": project,
            "services": services[start : start + SERVICES_PAGE_SIZE],
            "total": len(everything),
            "matching": len(services),
            "find": find,
            "find_max": FIND_MAX,
            "first_row": start + 1,
            "last_row": min(start + SERVICES_PAGE_SIZE, len(services)),
            "page": page,
            "pages": pages,
            "previous_link": page_link(page - 1) if page > 1 else None,
            "next_link": page_link(page + 1) if page < pages else None,
        },
    )


@require_http_methods(["GET", "POST"])
@project_page
def service_new(request, actor, project):
    try:
        if request.method == "POST":
            return _save(request, actor, project)
    except (ApiError, _NotFound):
        return not_found_page(request)
    return _form_page(request, project, form=empty_form(), errors={})


@require_http_methods(["GET", "POST"])
@project_page
def service_edit(request, actor, project, slug: str):
    try:
        snapshot = service_at(project=project, slug=slug)
        if request.method == "POST":
            expected = opened_as(request.POST)
            if _unchanged(request.POST, project, snapshot, expected):
                # no new version: it filled the history with "No field changed" and made a
                # colleague's form, open meanwhile, a conflict over nothing
                messages.success(request, f"Nothing changed in “{snapshot.name}”: nothing to save.")
                return redirect(_return_to(request, project))
            if expected is not None and expected != (str(snapshot.service_id), snapshot.version):
                # another service at the address may be a newcomer taking the name of the
                # one opened, renamed meanwhile: the form is that one's, wherever it went
                current = _opened_now(project, expected) or snapshot
                return _changed_meanwhile(request, project, current, slug=slug, expected=expected)
            return _save(request, actor, project, snapshot=snapshot, expected=expected)
    except ServiceNotFound:
        if request.method == "POST":
            expected = opened_as(request.POST)
            opened = None if expected is None else service_now(
                project=project, service_id=expected[0]
            )  # fmt: skip
            deletion = None
            if opened is not None:  # renamed, or deleted (then its deletion is said, when
                # it was deleted under this address)
                current = None if opened.deleted else opened
                deletion = opened if opened.deleted and opened.slug == slug else None
            else:  # a form that does not say what it was opened with: the address's service
                current = service_renamed_from(project=project, slug=slug)
            return _changed_meanwhile(
                request, project, current, slug=slug, expected=expected, deletion=deletion
            )
        renamed = service_renamed_from(project=project, slug=slug)
        if renamed is not None:
            return redirect(f"/projects/{project.id}/services/{renamed.slug}/edit/")
        return _service_gone(request, project, slug)
    except (ApiError, _NotFound):
        return not_found_page(request)
    return _form_page(
        request, project, form=form_from_snapshot(snapshot), errors={}, snapshot=snapshot
    )


def _opened_now(project, expected):
    """The service a form was opened with as it is now, when it still is (renamed or not),
    else None."""
    if expected is None:
        return None
    current = service_now(project=project, service_id=expected[0])
    return None if current is None or current.deleted else current


def _unchanged(post, project, current, expected) -> bool:
    """Whether the form holds the service as it was opened (whatever a colleague changed
    since): Save changes with nothing changed."""
    if expected is None:
        return False
    opened = (
        current
        if expected == (str(current.service_id), current.version)
        else service_version(project=project, service_id=expected[0], version=expected[1])
    )
    return opened is not None and holds(form_from_post(post), opened)


def _changed_meanwhile(
    request, project, current, *, slug: str | None = None, expected=None, deletion=None
):
    """A save of a form opened before someone else's change: nothing is written, and the form
    comes back merged, saying what happened, so a second save does not silently undo the first."""
    form = form_from_post(request.POST)
    if current is None:  # deleted meanwhile, or never there
        # the tombstone of the service the form was opened with, when known: by the slug,
        # the last service to go by it may be a later one, renamed away since (a 404 then
        # lost what the member had typed)
        deletion = deletion or service_deleted_as(project=project, slug=slug)
        if deletion is None:
            return not_found_page(request)
        when = f" by {deletion.actor} at {deletion.valid_from:%Y-%m-%d %H:%M} UTC"
        errors = {"form": [
            f"This service was deleted{when} while you were editing it. "
            "Add service adds it again with what you typed."
        ]}  # fmt: skip
        return _form_page(request, project, form=form, errors=errors, status=409, conflict=True)
    when = f"{current.valid_from:%Y-%m-%d %H:%M} UTC"
    merged, meanwhile = "", {}
    if expected is not None and expected[0] != str(current.service_id):
        happened = (
            f"The service you opened was deleted, and {current.actor} added another one "
            f"named “{current.name}” at {when}."
        )
        # what the member left as the form showed it takes the new service's value: saving
        # again wrote the old service's whole form over the new one, which took back every
        # part of it the member had not touched
        opened = service_version(project=project, service_id=expected[0], version=expected[1])
        if opened is not None:
            form, merged, meanwhile = merged_form(opened, current, form)
        errors = {"form": [format_html(
            "{}{} Compare with the new service (<a href=\"{}\">the history</a> shows the "
            "change), then Save changes again to save the form as it is onto it.",
            happened,
            merged.replace(" their ", " the new service's ", 1),
            _history_url(project.id),
        )]}  # fmt: skip
    else:
        renamed = f" (and renamed it “{current.name}”)" if slug and slug != current.slug else ""
        happened = f"{current.actor} changed this service at {when}, after you opened it{renamed}."
        opened = None
        if expected is not None:
            opened = service_version(project=project, service_id=expected[0], version=expected[1])
        if opened is not None:  # else a form that does not say what it was opened with
            form, merged, meanwhile = merged_form(opened, current, form)
        errors = {"form": [format_html(
            "{}{} Compare with the service as it is now (<a href=\"{}\">its history</a> "
            "shows the change), then Save changes again to save the form as it is.",
            happened,
            merged,
            _history_url(project.id, current.service_id),
        )]}  # fmt: skip
    return _form_page(
        request,
        project,
        form=form,
        errors=errors,
        snapshot=current,
        status=409,
        conflict=True,
        meanwhile=meanwhile,
    )


def _service_gone(request, project, slug: str):
    """404; for a service that was deleted, a page saying when and by whom (a bookmark, the
    back button, a colleague's link)."""
    deletion = service_deleted_as(project=project, slug=slug)
    if deletion is None:
        return not_found_page(request)
    return render(
        request,
        "editor/service_gone.html",
        {"project": project, "deletion": deletion},
        status=404,
    )


def _without_focus_on(address: str, slug: str) -> str:
    """The project page's address without a focus on the service just deleted; a view of a
    past moment or of anything else is kept."""
    path, _, query = address.partition("?")
    pairs = parse_qsl(query, keep_blank_values=True)
    focus = dict(pairs).get("focus", "")
    if not re.fullmatch(rf"service--{re.escape(slug)}(-[0-9a-f]{{6}})?", focus):
        return address
    kept = [(key, value) for key, value in pairs if key not in ("focus", "depth")]
    return f"{path}?{urlencode(kept)}" if kept else path


@require_http_methods(["GET", "POST"])
@project_page
def service_remove(request, actor, project, slug: str):
    """A confirmation page naming the service; its POST deletes it, if it is still the
    service, at the version, the page showed."""
    # where the editor would have led: the project page the member came from, else the list
    # (a delete begun from the project page ended on the list)
    back = _return_to(request, project)
    expected = opened_as(request.POST) if request.method == "POST" else None
    changed = None
    try:
        snapshot = service_at(project=project, slug=slug)
    except ServiceNotFound:
        snapshot = None
    # the page's service renamed meanwhile (its old name maybe taken by a newcomer): the
    # page asks again about it, at its new address; a newcomer is never deleted in its stead
    opened = _opened_now(project, expected)
    if opened is not None and (snapshot is None or opened.service_id != snapshot.service_id):
        snapshot, changed = opened, _delete_changed(project, opened, expected, slug=slug)
    elif snapshot is None:
        renamed = service_renamed_from(project=project, slug=slug)
        if request.method == "GET" and renamed is not None:  # an old address: the page asks
            query = request.GET.urlencode()
            address = f"/projects/{project.id}/services/{renamed.slug}/delete/"
            return redirect(f"{address}?{query}" if query else address)
        return _service_gone(request, project, slug)
    elif request.method == "POST":
        try:
            service_delete(
                actor=actor,
                project_id=project.id,
                slug=slug,
                expected=None if expected is None else {expected},
            )
        except ServiceChangedMeanwhile as refused:
            # the page asked about a state the member saw: a colleague's edit since, or a
            # new service of the name, is not deleted unseen; the page asks again
            snapshot = refused.current
            changed = _delete_changed(project, snapshot, expected, slug=slug)
        except ServiceNotFound:
            return _service_gone(request, project, slug)
        except ApiError:
            return not_found_page(request)
        else:
            messages.success(request, f"Service “{snapshot.name}” deleted.")
            return redirect(_without_focus_on(back, snapshot.slug))
    # Cancel goes back where the member came from: the service's editor (still knowing
    # where it leads) or the list
    cancel_url = back
    if request.GET.get("from") == "edit":
        cancel_url = f"/projects/{project.id}/services/{snapshot.slug}/edit/"
        if back != _services_url(project.id):
            cancel_url += f"?next={quote(back, safe='/')}"
    action = None
    if snapshot.slug != slug:  # asked again at the service's new address
        query = request.GET.urlencode()
        action = f"/projects/{project.id}/services/{snapshot.slug}/delete/"
        action += f"?{query}" if query else ""
    return render(
        request,
        "editor/service_delete.html",
        {
            "project": project,
            "snapshot": snapshot,
            "cancel_url": cancel_url,
            "back": back,
            "changed": changed,
            "action": action,
        },
        status=409 if changed else 200,
    )


def _delete_changed(project, current, expected, *, slug: str) -> str:
    """What the delete page says when the service changed after it was opened."""
    when = f"{current.valid_from:%Y-%m-%d %H:%M} UTC"
    if expected is not None and expected[0] != str(current.service_id):
        happened = (
            f"The service this page asked about was deleted, and {current.actor} added "
            f"another one named “{current.name}” at {when}."
        )
    elif current.slug != slug:
        happened = (
            f"{current.actor} renamed this service “{current.name}” at {when}, after you "
            "opened this page."
        )
    else:
        happened = f"{current.actor} changed this service at {when}, after you opened this page."
    return format_html(
        '{} Nothing was deleted. Compare with the service as it is now (<a href="{}">its '
        "history</a> shows the change) before you delete it.",
        happened,
        _history_url(project.id, current.service_id),
    )


def _readable(value) -> list[str]:
    """A diff value as lines of text: topics one a line with their attributes."""
    if value is None or value == [] or value == {}:
        return []
    if isinstance(value, dict):
        return [f"{k}: {v}" for k, v in value.items()]
    if isinstance(value, list):
        if all(isinstance(item, str) for item in value):
            return list(value)
        return [topic_line(item) if isinstance(item, dict) else str(item) for item in value]
    if isinstance(value, str):  # a description's lines (its line breaks kept), one a line
        return [line for line in value.splitlines() if line.strip()] or ["(empty)"]
    return [str(value)]


def _marked(change: dict) -> dict:
    """A change as lines; in a list that kept some of its items (topics, flows, extras),
    the lines only one side has are marked, so an added topic does not hide among the rest."""
    before, after = _readable(change["before"]), _readable(change["after"])
    shared = set(before) & set(after)
    mark = bool(shared)
    return {
        "field": change["field"],
        "before": [
            {"text": t, "mark": "removed" if mark and t not in shared else ""} for t in before
        ],
        "after": [{"text": t, "mark": "added" if mark and t not in shared else ""} for t in after],
    }


@require_GET
@project_page
def history(request, actor, project):
    """The project's events, newest first, each with its changes field by field; one
    service's alone with `?service=` (its id, or a slug it went by)."""
    key = request.GET.get("service", "").strip()
    service = None
    if key:
        service = history_service(project=project, key=key)
        if service is None:
            return render(
                request,
                "editor/history.html",
                {"project": project, "missing": key, "events": [], "total": 0},
                status=404,
            )
    kept = {"service": str(service.service_id)} if service else {}
    page = page_number(request.GET.get("page"), default=1, minimum=1)
    snapshots, total = history_page(
        project=project,
        page=page - 1,
        size=HISTORY_PAGE_SIZE,
        service_id=service.service_id if service else None,
    )
    pages = max(1, -(-total // HISTORY_PAGE_SIZE))
    if page > pages:  # an old link past the end: its last page
        return redirect(f"{request.path}?{urlencode({**kept, 'page': pages})}")
    changes = snapshots_changes(snapshots)
    events = [
        {
            "snapshot": snapshot,
            "at": iso(snapshot.valid_from),
            "changes": [_marked(c) for c in changes[snapshot.pk]],
        }
        for snapshot in snapshots
    ]

    def page_url(number: int) -> str:
        return "?" + urlencode({**kept, "page": number} if number > 1 else kept)

    return render(
        request,
        "editor/history.html",
        {
            "project": project,
            "service": service,
            "events": events,
            "total": total,
            "page": page,
            "pages": pages,
            "first_url": page_url(1),
            "previous_url": page_url(page - 1) if page > 1 else None,
            "next_url": page_url(page + 1) if page < pages else None,
            # a long history (thousands of events) was 100 clicks of Older from its start
            "last_url": page_url(pages) if page < pages else None,
        },
    )
