"""A member's project page (its graph drawn with the session, tables, time travel and the
assistant's panel) and its share settings; the drawing helpers the shared pages reuse."""

import html
import re
from itertools import islice

from django.conf import settings
from django.contrib import messages
from django.http import HttpResponse
from django.shortcuts import redirect, render
from django.utils.dateparse import parse_datetime
from django.utils.html import escape, format_html, format_html_join
from django.utils.safestring import mark_safe
from django.views.decorators.http import require_http_methods, require_safe

from archsvc.api.params import iso, query_at
from archsvc.exceptions import ApiError
from archsvc.render_budget import RenderBudgetSpent, charge_renders_to
from billing.selectors import bigger_plan_exists, organization_plan
from billing.services import ai_credits_current
from diagrams import pages
from diagrams.drawings import project_entities_cached, project_render
from diagrams.history import is_current
from diagrams.models import PublicShareToken
from diagrams.selectors import history_page, past_services_fate, project_get
from diagrams.sharing import share_token_revoke, share_token_rotate

# --- Drawing helpers, of this page and of the shared ones (share_views.py) -----------------

_ALL_KINDS = ("services", "topics", "categories", "owners", "flows")


def entity_names(entities: dict, kinds=_ALL_KINDS) -> dict[str, str]:
    """The name of every entity of these kinds, by id."""
    return {
        entity_id: entity["name"] for kind in kinds for entity_id, entity in entities[kind].items()
    }


# The drawing's size, from its root's viewBox (svg.py writes "0,0,W,H"), for the frame.
_VIEW_BOX = re.compile(rb'viewBox="[-0-9.]+[ ,]+[-0-9.]+[ ,]+([0-9.]+)[ ,]+([0-9.]+)"')


def graph_size(svg: bytes) -> dict:
    """`{graph_w, graph_h}` of an inlined drawing (nothing for none): the page sizes the
    graph's frame from them, so nothing under it jumps when the script runs."""
    found = _VIEW_BOX.search(svg, 0, 2000)
    if not found:
        return {}
    width, height = float(found[1]), float(found[2])
    if not (width > 0 and height > 0):
        return {}
    return {"graph_w": f"{width:g}", "graph_h": f"{height:g}"}


# The toolbar's word for each kind of focus (graph-viewer.js's KINDS)
_FOCUS_KINDS = {
    "service": "service",
    "messaging": "topic",
    "category": "category",
    "owner": "owner",
    "flow": "flow",
}


def focus_words(focus: str, svg: bytes, names: dict[str, str]) -> dict:
    """What the viewer's toolbar says of the focus drawn, as graph-viewer.js says it: the box's
    name as drawn, else `names`, else the id's tail (written here, so nothing moves on load)."""
    if not focus:
        return {}
    ids = focus.split(",")
    words = []
    for entity_id in ids:
        # the box's group may carry more attributes after its id (its role, since 2026-11-29:
        # the exact bytes `id"><title>` stopped matching, and every focus fell to `names`)
        box = re.search(
            rb'data-entity-id="' + re.escape(entity_id.encode()) + rb'"[^>]*><title>([^<]*)', svg
        )
        if box:
            words.append(html.unescape(box.group(1).decode().split("\n")[0]))
        else:
            words.append(names.get(entity_id) or re.sub(r"^[a-z]+--", "", entity_id))
    kinds = {_FOCUS_KINDS.get(entity_id.split("--")[0], "") for entity_id in ids}
    return {"focus_name": ", ".join(words), "focus_kind": kinds.pop() if len(kinds) == 1 else ""}


_KINDS = {
    "categories": ("Category", "category"),
    "owners": ("Owner", "owner"),
    "flows": ("Flow", "flow"),
    "services": ("Service", "service"),
    "topics": ("Topic", "topic"),
}


def focus_options(entities: dict, kinds, *, by_name: bool = False) -> str:
    """A Show menu's optgroups, one per kind, each option named with its kind ("payments
    (flow)": a category and a flow may share a name); `by_name`: each group sorted."""
    groups = []
    for kind in kinds:
        label, said = _KINDS[kind]
        named = list(entities[kind].items())
        if by_name:
            named.sort(key=lambda item: (item[1]["name"].casefold(), item[0]))
        if named:
            options = format_html_join(
                "",
                '<option value="{}" data-name="{}">{} ({})</option>',
                ((id_, e["name"], e["name"], said) for id_, e in named),
            )
            groups.append(format_html('<optgroup label="{}">{}</optgroup>', label, options))
    return mark_safe("".join(groups))  # noqa: S308 -- each part is format_html's


def with_chosen(options: str, focus: str, name: str) -> str:
    """A Show menu's options with the focus drawn chosen, as focus-menu.js's show() makes
    them (a focus the menu does not list gets an option of its own), so nothing moves on load."""
    if not focus:
        return options
    listed = f'<option value="{focus}" '  # (ids are [a-z0-9_-] and commas: nothing to escape)
    if listed in options:
        return mark_safe(options.replace(listed, listed + "selected ", 1))  # noqa: S308
    kind = focus.split("--")[0]
    return format_html(
        '<option data-shown-focus value="{}" data-name="{}" selected>{} ({})</option>{}',
        focus,
        name,
        name,
        _FOCUS_KINDS.get(kind, kind),
        options,
    )


# --- The member's project page -------------------------------------------------------------

# The project page's tables list this many rows each, and say how many more there are: at
# 3,000 services the two whole tables were 3.7 MB of the page's HTML (and as many DOM rows,
# built again from the entities by its script). The script finds and shows the rest;
# without it, `?rows=all` lists them all.
TABLE_ROWS = 100


def _by_name(item) -> tuple:
    """An entity's place in the tables: its name lower-cased, then its id, compared as the
    page's script compares strings (UTF-16 code units), so rows keep their order there."""
    entity_id, entity = item
    return (entity["name"].lower().encode("utf-16-be"), entity_id.encode("utf-16-be"))


# What static/js/project-page.js takes from the address as a view to show (its `asked`),
# read exactly as it reads it: the first value of each key, ASCII digits.
_ASKED_AT = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{1,6})?Z", re.ASCII)
_ASKED_FOCUS = re.compile(r"(service|messaging|category|owner|flow)--[a-z0-9][a-z0-9_-]*")


_ASKED_DEPTH = re.compile(r"[0-5]", re.ASCII)


def _moment_read_as_the_api_does(request) -> HttpResponse | None:
    """An `at` the API reads but the page's script does not (an offset, a date alone):
    a redirect with that moment in UTC; one no one can read is dropped, saying so."""
    raw = (request.GET.getlist("at") or [""])[0]
    if not raw or _ASKED_AT.fullmatch(raw):
        return None
    query = request.GET.copy()
    try:
        moment = query_at(request)
    except ApiError:
        messages.error(
            request,
            f"The moment in the address (“{raw[:40]}”) could not be read: the project is "
            "shown as it is now.",
        )
        query.pop("at")
    else:
        text = iso(moment)
        query["at"] = text[:-8] + "Z" if text.endswith(".000000Z") else text
    return redirect(f"{request.path}?{query.urlencode()}" if query else request.path)


def asked_view(request) -> dict | None:
    """The view the address asks for, as project-page.js reads it: `focus`, `depth` (under a
    focus, else 1) and `at` (its text), or None when it asks for none."""
    at = (request.GET.getlist("at") or [""])[0]
    focus = (request.GET.getlist("focus") or [""])[0]
    depth = (request.GET.getlist("depth") or [""])[0]
    at = at if _ASKED_AT.fullmatch(at) else ""
    focus = focus if _ASKED_FOCUS.fullmatch(focus) else ""
    if not (at or focus):
        return None
    return {
        "focus": focus,
        "depth": int(depth) if focus and _ASKED_DEPTH.fullmatch(depth) else 1,
        "at": at,
    }


_STAMP_LENGTHS = (16, 19, 23, 26)  # of _instant(): minute, second, millisecond, microsecond


def _instant(at: str) -> str:
    """A moment's text in one shape (seconds, six decimals, Z), as project-page.js's
    instant(): so moments compare as text."""
    match = re.fullmatch(r"(.{19})(\.\d+)?Z", at)
    return match[1] + ((match[2] or ".") + "000000")[:7] + "Z" if match else at


def _stamp(at: str, timeline: list[dict]) -> str:
    """A moment as the page's labels say it (project-page.js's stamp()): to the minute, or
    finer when a change of the timeline lies in the same minute (second...)."""
    exact, precision = _instant(at), 0
    for event in timeline:
        other = _instant(event["at"])
        while (
            precision < len(_STAMP_LENGTHS) - 1
            and other != exact
            and other[: _STAMP_LENGTHS[precision]] == exact[: _STAMP_LENGTHS[precision]]
        ):
            precision += 1
    return exact[: _STAMP_LENGTHS[precision]].replace("T", " ")


def _slider(at: str, timeline: list[dict], complete: bool) -> dict:
    """Time travel's place and words for a moment drawn in the page, as project-page.js's
    positionOf() and labelFor() give them (served as the script would set them)."""
    count = len(timeline)
    index = next(
        (
            i
            for i in range(count - 1, -1, -1)
            if _instant(timeline[count - 1 - i]["at"]) <= _instant(at)
        ),
        0,
    )
    event = timeline[count - 1 - index]

    def describe(event: dict) -> str:
        return f"{event['name']} {event['action']} \u00b7 {_stamp(event['at'], timeline)}"

    if _instant(at) < _instant(event["at"]):  # further back than the changes in the page
        label = (
            f"as of {_stamp(at, timeline)}"
            if index == 0 and not complete
            else f"before {describe(event)}"
        )
    else:
        label = describe(event)
    return {"slider_value": index, "slider_label": label}


def _with_rows_all(query) -> str:
    query = query.copy()
    query["rows"] = "all"
    return query.urlencode()


def _asked_moment(text: str):
    """The moment an address's `at` names, or False for one the calendar does not hold
    (2026-13-01): left to the page's script, which shows the API's word for it."""
    try:
        return parse_datetime(text) or False
    except ValueError:
        return False


def _group_options(entities: dict) -> str:
    """The project page's Show menu: its categories, owners and flows (services and topics
    are in the tables under the graph)."""
    return focus_options(entities, ("categories", "owners", "flows"))


@require_http_methods(["GET", "POST"])
@pages.project_page
def project_share_settings(request, actor, project):
    """The project's share link and embed snippet, with create/replace and revoke (the API's
    services, so the API's permissions)."""
    message = error_message = None
    status = 200
    try:
        if request.method == "POST":
            had_link = PublicShareToken.objects.filter(project=project).exists()
            if request.POST.get("action") == "revoke":
                share_token_revoke(actor=actor, project_id=project.id)
                message = "Sharing is off: the old link and embeds no longer work."
            else:
                share_token_rotate(actor=actor, project_id=project.id)
                message = (
                    "A new link is ready; the earlier link and embeds stopped working."
                    if had_link
                    else "The project is shared: anyone with the link below can view its graph."
                )
    except ApiError as error:
        if error.status == 404 and error.code == "project_not_found":
            return pages.not_found_page(request)
        error_message, status = error.message, error.status
        project = project_get(actor=actor, project_id=project.id)
    share = PublicShareToken.objects.filter(project=project).first()
    links = None
    if share:
        base = request.build_absolute_uri("/").rstrip("/")
        links = {
            "page": f"{base}/share/{share.token}/",
            "embed": f"{base}/share/{share.token}/embed/",
            "svg": f"{base}/share/{share.token}/graph.svg",
        }
        links["snippet"] = (
            f'<iframe src="{links["embed"]}" width="100%" height="520" '
            f'style="border:1px solid #dde1e8;border-radius:8px" '
            f'loading="lazy" allow="fullscreen" title="{escape(project.name)}"></iframe>'
        )
    return render(
        request,
        "diagrams/project_share.html",
        {
            "project": project,
            "share": share,
            "links": links,
            "message": message,
            "error": error_message,
            "can_manage": actor.can_manage_project(created_by_ref=project.created_by_ref),
        },
        status=status,
    )


@require_safe
@pages.project_page
def project_page(request, actor, project):
    """A project: its interactive graph (the API's SVG, with the member's session) and the
    assistant's chat panel."""
    # a write makes a new state to draw: counted against the organization's render budget
    # like the API's reads (a write and a reload, 120 times a minute, each a new render)
    charge_renders_to(f"org:{actor.organization_id}")
    graph_wait = None
    moved = _moment_read_as_the_api_does(request)
    if moved is not None:
        return moved
    asked = asked_view(request)
    try:
        # an address that asks for a view (a focus, a moment: the history page's links, a
        # reload, a bookmark) gets that view in the page, drawn at its final size: drawing
        # the whole project first sent and parsed 11 MB for nothing on a project of 3,000
        # services, and leaving it to the script moved the page under the reader once the
        # drawing came (layout shift 0.125)
        at = _asked_moment(asked["at"]) if asked and asked["at"] else None
        if at and is_current(at):
            # a moment still to come is the project as it is now (as the API reads it): the
            # page shows now, as it does for one typed into As of, not "as of 2030" with
            # "20 services then"
            asked, at = (dict(asked, at="") if asked["focus"] else None), None
        svg = (
            b""
            if at is False
            else project_render(
                project=project,
                at=at,
                filtered_ids=[asked["focus"]] if asked and asked["focus"] else [],
                depth=asked["depth"] if asked and asked["focus"] else None,
                kind="svg",
            )
        )
    except RenderBudgetSpent as spent:
        svg, graph_wait = b"", spent.retry_after
    # a big graph is fetched by the page's script from the API's SVG address, as a shared
    # page's is: inlined, every load compressed its megabytes anew inside the page (3,000
    # services: 8.3 MB, 0.2 s of a 0.29 s page), where the SVG's gzip bytes are cached
    load = len(svg) > settings.SHARE_INLINE_SVG_BYTES
    drawn = asked if svg else None
    charge_renders_to(None)  # the tables' entities are the page's own reading, not a drawing
    entities = project_entities_cached(project=project)
    events, total_events = history_page(project=project, page=0, size=100)
    timeline = [
        {
            "at": iso(e.valid_from),
            "service": str(e.service_id),
            "slug": e.slug,
            "name": e.name,
            "action": e.action,
            "snapshot": str(e.pk),
        }
        for e in events
    ]
    consumed = [t["name"] for t in entities["topics"].values() if t["consumers"]]
    names = entity_names(entities)
    # a deleted service's name, as the viewer finds it: the last it had in the page's history
    last_names = {f"service--{e['slug']}": e["name"] for e in reversed(timeline)}
    rows_all = request.GET.get("rows") == "all"
    limit = None if rows_all else TABLE_ROWS
    # the tables, the count and the Show menu's groups say what the graph shows: at a past
    # moment drawn, the project then, each service's Edit under its slug now (none once
    # deleted) and those changed since marked as the graph outlines them. Left to the
    # script, the rows of now showed under the graph of then until it had read them, and
    # the tables' columns moved as they came (bench/layout_shift.py)
    past = at if drawn and drawn["at"] else None
    listed = project_entities_cached(project=project, at=past) if past else entities
    # the tables list by name, as a reader looks for one (by id, a name with no letter a
    # slug keeps sat among the others by its hash); project-page.js lists them so too
    services, topics = (
        dict(sorted(listed[kind].items(), key=_by_name)) for kind in ("services", "topics")
    )
    editors, changed = (
        past_services_fate(
            project=project,
            at=past,
            slugs=[e["slug"] for e in islice(services.values(), limit)],
        )
        if past
        else (None, set())
    )
    words = focus_words(drawn["focus"], svg, {**last_names, **names}) if drawn else {}
    return render(
        request,
        "diagrams/project.html",
        {
            "project": project,
            # example questions about this project's own services and topics
            "ask_topic": consumed[0] if consumed else None,
            "ask_service": next((e["name"] for e in entities["services"].values()), None),
            "credits": ai_credits_current(organization=actor.organization),
            # no "for more now" on the biggest plan: there is nothing more to buy
            "credits_more": bigger_plan_exists(
                plan=organization_plan(organization=actor.organization), limit="ai_credits"
            ),
            "can_manage": actor.can_manage_project(created_by_ref=project.created_by_ref),
            "svg": "" if load else svg.decode(),
            "load": load,
            **({} if load else graph_size(svg)),
            "asked": bool(asked),
            "graph_wait": graph_wait,
            "svg_url": f"/v1/projects/{project.id}/graph/svg",
            # the view drawn (or left to load): one the server could not draw is the script's
            "depth": drawn["depth"] if drawn else 1,
            "depths": range(6),
            "filtered_ids": drawn["focus"] if drawn else "",
            **words,
            "at": drawn["at"] if drawn else "",
            "at_minute": drawn["at"][:16].replace("T", " ") if drawn else "",
            # the count of a past moment drawn, as the script says it ("3 services then"):
            # written by the script alone, it moved the links beside it
            "count_then": len(services) if past else None,
            "rows_at": drawn["at"] if past else "",
            "tables_at": f" as of {_stamp(drawn['at'], timeline)} UTC" if past else "",
            **(
                _slider(drawn["at"], timeline, total_events <= len(timeline))
                if past and timeline
                else {}
            ),
            "timeline": timeline,
            # the slider's events are the whole history: the tables' past rows can tell
            # every service's fate from them; when they are not, project-page.js reads older
            # pages of it as a moment before them is shown
            "timeline_complete": total_events <= len(timeline),
            "service_rows": [
                {
                    "id": sid,
                    "name": e["name"],
                    "slug": e["slug"],
                    "owner": e["owner"],
                    "consumes": [topics[t]["name"] for t in e["consumes"]],
                    "produces": [topics[t]["name"] for t in e["produces"]],
                    "edit": editors.get(e["slug"], "") if past else e["slug"],
                    "changed": e["slug"] in changed,
                }
                for sid, e in islice(services.items(), limit)
            ],
            "topic_rows": [
                {
                    "id": tid,
                    "name": t["name"],
                    "producers": [services[s]["name"] for s in t["producers"]],
                    "consumers": [services[s]["name"] for s in t["consumers"]],
                }
                for tid, t in islice(topics.items(), limit)
            ],
            "service_total": len(services),
            "rows_all": rows_all,
            # Show all keeps the view the address asks for (a focus, a moment, Find)
            "show_all": "?" + _with_rows_all(request.GET),
            "topic_total": len(topics),
            # every service's slug now: the script tells from them which rows of a past
            # moment can still be edited
            "now_slugs": " ".join(e["slug"] for e in entities["services"].values()),
            # every current entity's name by id: the chat names what an answer cites,
            # whatever the graph shows at that moment
            "entity_names": names,
            # the Show menu's groups, written here: hundreds of categories, owners and flows
            # were thousands of template lookups (a fifth of a 3,000-service page's time)
            "group_options": with_chosen(
                _group_options(listed), drawn["focus"] if drawn else "", words.get("focus_name", "")
            ),
        },
    )
