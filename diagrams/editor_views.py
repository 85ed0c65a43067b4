"""Members' pages to edit a project's services (create, edit, delete) and to read its
history with field-level diffs. Writes go through the same validation (the API's
serializers) and the same services as /v1, so the rules and the snapshots are the same."""

import re
from itertools import zip_longest
from urllib.parse import parse_qsl, quote, urlencode

from django.contrib import messages
from django.shortcuts import redirect, render
from django.utils.html import format_html
from django.views.decorators.http import require_GET, require_http_methods
from rest_framework import serializers

from accounts.middleware import login_redirect, page_actor
from archsvc.api.errors import _violations
from archsvc.api.params import iso, page_number
from archsvc.exceptions import ApiError, ProjectNotFound, ServiceNotFound
from diagrams.api.serializers import (
    EXTRAS_MAX,
    ServiceCreateSerializer,
    ServiceUpdateSerializer,
)
from diagrams.drawings import project_entities_cached
from diagrams.history import topic_line
from diagrams.pages import not_found_page
from diagrams.selectors import (
    history_page,
    history_service,
    project_get,
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

DIRECTIONS = ("consumes", "produces")
TOPIC_FIELDS = ("name", "category", "owner")
SIMPLE_FIELDS = ("name", "description", "category", "owner", "flows")
BLANK_ROWS = 2  # empty rows offered after the filled ones (more with the page's script)
HISTORY_PAGE_SIZE = 20
SERVICES_PAGE_SIZE = 100  # rows of the Services page: at 3,000 services all of them took 0.5 s
FIND_MAX = 200  # characters of a Find, as the project page's box takes

_TOPIC_PATH = re.compile(r"^(consumes|produces)\[(\d+)\](?:\.([A-Za-z]+))?", re.ASCII)
_FLOW_PATH = re.compile(r"^flows\[(\d+)\]$", re.ASCII)


class _NotFound(Exception):
    pass


def _login(request):
    return login_redirect(request)


def _not_found(request):
    return not_found_page(request)


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


# --- The form's state -----------------------------------------------------------------------


def _blank_topic() -> dict:
    return {"name": "", "category": "", "owner": "", "was": "", "errors": {}}


def _blank_extra() -> dict:
    return {"key": "", "value": "", "errors": []}


def _with_blank_rows(form: dict) -> dict:
    for direction in DIRECTIONS:
        form[direction] = form[direction] + [_blank_topic() for _ in range(BLANK_ROWS)]
    # none past the most a service can have: a row offered there could only be refused
    room = max(0, min(BLANK_ROWS, EXTRAS_MAX - len(form["extras"])))
    form["extras"] = form["extras"] + [_blank_extra() for _ in range(room)]
    return form


def _form_from_snapshot(snapshot) -> dict:
    """The edit form of a service as stored."""
    form = {
        "name": snapshot.name,
        "description": snapshot.description or "",
        "category": snapshot.category or "",
        "owner": snapshot.owner or "",
        "flows": ", ".join(snapshot.flows or []),
        "extras": [
            {"key": k, "value": v, "errors": []} for k, v in (snapshot.extras or {}).items()
        ],
    }
    for direction in DIRECTIONS:
        form[direction] = [
            {
                "name": t["name"],
                "category": t.get("category") or "",
                "owner": t.get("owner") or "",
                "was": t["name"],
                "errors": {},
            }
            for t in getattr(snapshot, direction) or []
        ]
    return form


def _form_from_post(post) -> dict:
    """Everything the member typed, as typed; rows left wholly empty are dropped (so a
    row's index here is its index in the request body)."""
    form = {field: post.get(field, "") for field in SIMPLE_FIELDS}
    # a textarea sends a line break as CR LF: two characters against the 200 its maxlength
    # counted as one each
    form["description"] = form["description"].replace("\r\n", "\n")
    for direction in DIRECTIONS:
        columns = [post.getlist(f"{direction}-{field}") for field in (*TOPIC_FIELDS, "was")]
        rows = []
        for values in zip_longest(*columns, fillvalue=""):
            row = dict(zip((*TOPIC_FIELDS, "was"), values, strict=True))
            # a row emptied is a topic removed (where there is no script to remove it)
            if any(value.strip() for value in values[: len(TOPIC_FIELDS)]):
                rows.append({**row, "errors": {}})
        form[direction] = rows
    extras = []
    for key, value in zip_longest(
        post.getlist("extras-key"), post.getlist("extras-value"), fillvalue=""
    ):
        if key.strip() or value.strip():
            extras.append({"key": key, "value": value, "errors": []})
    form["extras"] = extras
    return form


def _emptied(typed, current, empties):
    """A cleared field is null, unless it already was an equivalent empty (no fake change)."""
    return current if current in empties else typed


def _request_body(form: dict, current=None) -> tuple[dict, dict]:
    """The JSON body the API would receive, and errors only the form can make (an extra
    without a key, a key listed twice). `current`: the service being edited, whose every
    field is sent so that clearing one works."""
    form_errors: dict = {}
    body: dict = {"name": form["name"]}
    for field in ("description", "category", "owner"):
        typed = form[field]
        if field != "description":
            typed = typed.strip()
        if typed.strip():
            body[field] = typed
        elif current is not None:
            body[field] = _emptied(None, getattr(current, field), ("",))
    flows = [flow.strip() for flow in form["flows"].split(",") if flow.strip()]
    if flows:
        body["flows"] = flows
    elif current is not None:
        body["flows"] = _emptied(None, current.flows, ([],))
    for direction in DIRECTIONS:
        kept = {t["name"]: t for t in (getattr(current, direction) or [])} if current else {}
        topics = []
        for row in form[direction]:
            topic = {"name": row["name"].strip()}
            for field in ("category", "owner"):
                if row[field].strip():
                    topic[field] = row[field].strip()
            # what the form does not show (flows, extras) stays as it was, with the row the
            # stored topic began as (renamed, it kept them under its old name and lost them)
            before = kept.get(row.get("was") or topic["name"])
            if before is not None:
                if before.get("flows") is not None:
                    topic["flows"] = before["flows"]
                if before.get("extras"):
                    topic["extras"] = before["extras"]
            topics.append(topic)
        body[direction] = topics
    extras: dict = {}
    # a stored key is kept as stored (spaces around it included) when its row still holds it
    stored_keys = {key.strip(): key for key in (current.extras or {})} if current else {}
    for row in form["extras"]:
        key = row["key"].strip()
        key = stored_keys.get(key, key)
        if not key:
            row["errors"].append("A key is required.")
        elif key in extras:
            row["errors"].append("This key is listed twice.")
        else:
            extras[key] = row["value"]
        if row["errors"]:
            form_errors["extras"] = True
    if extras:
        body["extras"] = extras
    elif current is not None:
        body["extras"] = _emptied(None, current.extras, ({},))
    return body, form_errors


_PLAIN = (
    (
        re.compile(r"^Ensure this field has no more than (\d+) characters\.$"),
        "At most {} characters.",
    ),
    (re.compile(r"^Ensure this field has at least (\d+) characters\.$"), "At least {} characters."),
    (re.compile(r"^Ensure this field has no more than (\d+) elements\.$"), "At most {} of them."),
    (re.compile(r"^This field may not be blank\.$"), "Required: it cannot be empty."),
    (re.compile(r"^This field is required\.$"), "Required."),
)


def _plain(message: str) -> str:
    """The API's validation messages (DRF's, for scripts) as a form says them."""
    for pattern, plain in _PLAIN:
        match = pattern.match(message)
        if match:
            return plain.format(*match.groups())
    return message


def _place_errors(form: dict, errors: dict, violations: list[dict]) -> None:
    """Put each violation (a JSON path like `produces[1].name`) beside its field."""
    typed = form["flows"].split(",")
    flows = [flow.strip() for flow in typed if flow.strip()]
    # where each flow is in what was typed: "a, , b" sends ["a", "b"], and b is the third
    places = [place for place, flow in enumerate(typed) if flow.strip()]
    for violation in violations:
        path, message = violation["field"], _plain(violation["message"])
        topic = _TOPIC_PATH.match(path)
        flow = _FLOW_PATH.match(path)
        if topic:
            direction, index, field = topic.group(1), int(topic.group(2)), topic.group(3)
            if index < len(form[direction]):
                key = field if field in TOPIC_FIELDS else "other"
                if key == "name" and not form[direction][index]["name"].strip():
                    message = "A topic needs a name (or empty its row to leave it out)."
                if key == "other" and field:
                    message = f"{field}: {message}"
                form[direction][index]["errors"].setdefault(key, []).append(message)
                continue
            errors.setdefault(direction, []).append(message)
        elif flow:
            index = int(flow.group(1))
            name = flows[index] if index < len(flows) else ""
            place = places[index] + 1 if index < len(places) else index + 1
            errors.setdefault("flows", []).append(f"Flow {place} (“{_clip(name)}”): {message}")
        elif path.startswith("extras."):
            key = path[len("extras.") :]
            row = next((r for r in form["extras"] if r["key"].strip() == key), None)
            if row is not None:
                row["errors"].append(message)
            else:
                errors.setdefault("extras", []).append(f"“{key}”: {message}")
        elif path in (*SIMPLE_FIELDS, *DIRECTIONS, "extras"):
            errors.setdefault(path, []).append(message)
        else:
            errors.setdefault("form", []).append(message)


def _clip(text: str, length: int = 40) -> str:
    """A value quoted in a message, cut so that a 300-character mistake does not fill it."""
    return text if len(text) <= length else text[: length - 1] + "…"


def _validated(serializer_class, body: dict, form: dict, errors: dict) -> dict | None:
    serializer = serializer_class(data=body)
    try:
        serializer.is_valid(raise_exception=True)
    except serializers.ValidationError as exc:
        _place_errors(form, errors, _violations(exc.detail))
        return None
    return serializer.validated_data


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
            "form": _with_blank_rows(form),
            "errors": errors,
            "has_errors": bool(errors) or _row_errors(form),
            "conflict": conflict,
            "meanwhile": meanwhile or {},
            "back": _return_to(request, project),
            **_datalists(project),
        },
        status=status,
    )


def _row_errors(form: dict) -> bool:
    return any(row["errors"] for direction in DIRECTIONS for row in form[direction]) or any(
        row["errors"] for row in form["extras"]
    )


def _clash_message(name: str, clash: str | None) -> str:
    if clash is None or clash == name:
        return "Another service of this project has this name."
    return (
        f"Too close to the service “{clash}”: both names make the same address (slug), "
        "so they cannot both exist. Choose a more different name."
    )


def _opened_as(post) -> tuple[str, int] | None:
    """The (service id, version) the edit form was opened with; None when it does not say
    (a form older than the check, or a script posting its own fields)."""
    version = post.get("version", "")
    if not (version.isascii() and version.isdigit() and len(version) <= 9):
        return None
    return post.get("service", ""), int(version)


def _save(request, project, *, snapshot=None, expected=None):
    """POST of the form: validate like the API, write, or show the form again with every
    value kept and every error beside its field."""
    actor = page_actor(request)
    form = _form_from_post(request.POST)
    body, form_errors = _request_body(form, current=snapshot)
    if snapshot is not None:
        # a part left as the form showed it is not sent, and keeps what is stored: read back
        # from the form it could differ (a flow named "checkout, EU" became two flows, an
        # extra's key lost its spaces, a name its line break) while the member changed
        # something else
        shown = _form_from_snapshot(snapshot)
        for field in FIELD_NAMES:
            if _comparable(form, field) == _comparable(shown, field):
                body.pop(field, None)
    errors: dict = {}
    serializer_class = ServiceUpdateSerializer if snapshot else ServiceCreateSerializer
    data = _validated(serializer_class, body, form, errors)
    service_id = snapshot.service_id if snapshot else None
    if data is None or form_errors or _row_errors(form):
        name = form.get("name", "").strip()
        if name and "name" not in errors and name != (snapshot.name if snapshot else None):
            clash = service_name_clash(project=project, name=name, service_id=service_id)
            if clash is not None:
                errors["name"] = [_clash_message(name, clash)]
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
            errors["name"] = [_clash_message(name, clash)]
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
    """What Find reads in a service (an entity of ProjectEntities): as the project page's
    Find, its name, slug, owner and the topics it consumes and produces; and its category,
    a column of this page (not of the project page's tables)."""
    named = [topics[t]["name"] for t in service["consumes"] + service["produces"] if t in topics]
    fields = [service["name"], service["slug"], service["owner"] or "", service["category"] or ""]
    return " ".join(fields + named).casefold()


@require_GET
def services_page(request, project_id: str):
    """The project's services by name, SERVICES_PAGE_SIZE a page, each with its edit and
    delete links; `find` narrows them to those holding every word typed."""
    actor = page_actor(request)
    if actor is None:
        return _login(request)
    try:
        project = project_get(actor=actor, project_id=project_id)
    except ApiError:
        return _not_found(request)
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
def service_new(request, project_id: str):
    actor = page_actor(request)
    if actor is None:
        return _login(request)
    try:
        project = project_get(actor=actor, project_id=project_id)
        if request.method == "POST":
            return _save(request, project)
    except (ApiError, _NotFound):
        return _not_found(request)
    form = {
        "name": "",
        "description": "",
        "category": "",
        "owner": "",
        "flows": "",
        "consumes": [],
        "produces": [],
        "extras": [],
    }
    return _form_page(request, project, form=form, errors={})


@require_http_methods(["GET", "POST"])
def service_edit(request, project_id: str, slug: str):
    actor = page_actor(request)
    if actor is None:
        return _login(request)
    try:
        project = project_get(actor=actor, project_id=project_id)
        snapshot = service_at(project=project, slug=slug)
        if request.method == "POST":
            expected = _opened_as(request.POST)
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
            return _save(request, project, snapshot=snapshot, expected=expected)
    except ServiceNotFound:
        if request.method == "POST":
            expected = _opened_as(request.POST)
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
        return _not_found(request)
    return _form_page(
        request, project, form=_form_from_snapshot(snapshot), errors={}, snapshot=snapshot
    )


def _opened_now(project, expected):
    """The service a form was opened with as it is now, when it still is (renamed or not),
    else None."""
    if expected is None:
        return None
    current = service_now(project=project, service_id=expected[0])
    return None if current is None or current.deleted else current


# what the conflict message calls each part of the form (its labels)
FIELD_NAMES = {
    "name": "name",
    "description": "description",
    "category": "category",
    "owner": "owner",
    "flows": "flows",
    "consumes": "topics it consumes",
    "produces": "topics it produces",
    "extras": "extras",
}


def _comparable(form: dict, field: str):
    """A part of the form as the service would store it, to tell a change from none: text
    trimmed (a textarea sends its line breaks as CR LF), flows as the list the field holds,
    rows without their errors."""
    value = form[field]
    if field == "flows":
        return [flow.strip() for flow in value.split(",") if flow.strip()]
    if isinstance(value, str):
        return value.replace("\r\n", "\n").strip()
    return [tuple(str(v).strip() for k, v in row.items() if k != "errors") for row in value]


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
    if opened is None:
        return False
    typed, was = _form_from_post(post), _form_from_snapshot(opened)
    return all(_comparable(typed, field) == _comparable(was, field) for field in FIELD_NAMES)


def _listed(names: list[str]) -> str:
    return _listed_words([FIELD_NAMES[name] for name in names])


def _listed_words(words: list[str]) -> str:
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " and " + words[-1]


def _merged(opened, current, typed: dict) -> tuple[dict, str, dict]:
    """The form after a colleague's change: each part the member left as the form showed it
    (`opened`) takes the service's value now (`current`), so saving again does not undo
    what the colleague changed there (a rename, say); each part the member changed keeps
    what they typed. And what the message says of it, and the colleague's value of each
    part both changed."""
    was, now = _form_from_snapshot(opened), _form_from_snapshot(current)
    form, theirs, both = dict(typed), [], []
    for field in FIELD_NAMES:
        mine, before, after = (_comparable(f, field) for f in (typed, was, now))
        if after == before:
            continue
        if mine == before:
            form[field] = now[field]
            theirs.append(field)
        elif mine != after:
            both.append(field)
    said = ""
    if theirs:
        said += f" The form below holds their {_listed(theirs)}."
    meanwhile = {field: _theirs(field, now[field]) for field in both}
    if both:
        named = [f"{FIELD_NAMES[field]} (theirs: {meanwhile[field]})" for field in both]
        said += (
            f" You both changed the {_listed_words(named)}: the form keeps what you typed there."
        )
    return form, said, meanwhile


THEIRS_SHOWN = 5  # topics or extras named of a colleague's list; the rest counted


def _theirs(field: str, value) -> str:
    """A colleague's value of a part of the form, as the conflict message quotes it."""
    if isinstance(value, str):
        text = value.replace("\r\n", "\n").strip()
        return f"“{text}”" if text else "none"
    if field == "extras":
        items = [f"{row['key']}={row['value']}" for row in value]
    else:
        items = [row["name"] for row in value]
    if not items:
        return "none"
    more = len(items) - THEIRS_SHOWN
    return ", ".join(items[:THEIRS_SHOWN]) + (f" and {more} more" if more > 0 else "")


def _changed_meanwhile(
    request, project, current, *, slug: str | None = None, expected=None, deletion=None
):
    """A save of a form opened before someone else's change to the service (two tabs, two
    colleagues): nothing is written, and the form comes back with what was typed and what
    happened, so the second save does not silently undo the first. Saving again writes
    over the change (the form now carries its version); a service deleted meanwhile comes
    back as a new service's form, which adds it again."""
    form = _form_from_post(request.POST)
    if current is None:  # deleted meanwhile, or never there
        # the tombstone of the service the form was opened with, when known: by the slug,
        # the last service to go by it may be a later one, renamed away since (a 404 then
        # lost what the member had typed)
        deletion = deletion or service_deleted_as(project=project, slug=slug)
        if deletion is None:
            return _not_found(request)
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
            form, merged, meanwhile = _merged(opened, current, form)
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
            form, merged, meanwhile = _merged(opened, current, form)
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
        return _not_found(request)
    return render(
        request,
        "editor/service_gone.html",
        {"project": project, "deletion": deletion},
        status=404,
    )


def _without_focus_on(address: str, slug: str) -> str:
    """The project page's address without a focus on the service just deleted (it drew
    "Nothing in the project matches this focus"); a view of a past moment or of anything
    else is kept."""
    path, _, query = address.partition("?")
    pairs = parse_qsl(query, keep_blank_values=True)
    focus = dict(pairs).get("focus", "")
    if not re.fullmatch(rf"service--{re.escape(slug)}(-[0-9a-f]{{6}})?", focus):
        return address
    kept = [(key, value) for key, value in pairs if key not in ("focus", "depth")]
    return f"{path}?{urlencode(kept)}" if kept else path


@require_http_methods(["GET", "POST"])
def service_remove(request, project_id: str, slug: str):
    """A confirmation page naming the service; its POST deletes it, if it is still the
    service, at the version, the page showed."""
    actor = page_actor(request)
    if actor is None:
        return _login(request)
    try:
        project = project_get(actor=actor, project_id=project_id)
    except ApiError:
        return _not_found(request)
    # where the editor would have led: the project page the member came from, else the list
    # (a delete begun from the project page ended on the list)
    back = _return_to(request, project)
    expected = _opened_as(request.POST) if request.method == "POST" else None
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
            return _not_found(request)
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
def history(request, project_id: str):
    """The project's events, newest first, each with its changes field by field; one
    service's alone with `?service=` (its id, or a slug it went by)."""
    actor = page_actor(request)
    if actor is None:
        return _login(request)
    try:
        project = project_get(actor=actor, project_id=project_id)
    except ApiError:
        return _not_found(request)
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
