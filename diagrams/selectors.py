"""Reads for diagrams: projects, pins, services at any time, history and entities."""

import uuid
from collections.abc import Sequence
from datetime import datetime

import networkx as nx
from django.db.models import OuterRef, Q, QuerySet, Subquery
from django.utils import timezone

from accounts.actors import Actor
from accounts.models import Organization
from accounts.selectors import (
    API_KEY_ROW,
    API_KEY_ROW_COLUMNS,
    API_KEY_ROW_FIELDS,
    API_KEY_ROW_FROM,
    API_KEY_ROW_WHERE,
    api_key_actor,
    api_key_actor_from_row,
    api_key_token,
)
from archsvc.api.params import iso
from archsvc.exceptions import NotFound, ProjectNotFound, ServiceNotFound
from archsvc.hotpath import (
    Columns,
    build,
    fetch_row,
    fetch_rows,
    icontains,
    reconnecting,
    select_list,
)
from diagrams.entities import ServiceState, project_entities
from diagrams.history import snapshot_changes
from diagrams.models import Pin, Project, Service, ServiceSnapshot
from diagrams.render_cache import LocalRenders, gc_paused, json_value, layout_cached
from diagrams.rendering.graph import graph_filter, project_graph
from diagrams.rendering.layout import Layout
from diagrams.rendering.svg import graph_origin
from diagrams.slugs import is_project_id


def project_count(*, organization: Organization) -> int:
    """How many projects the organization has, archived ones included (CONTRACT 4)."""
    return Project.objects.filter(organization=organization).count()


_PROJECT_FIELDS = Project._meta.concrete_fields
_PIN_EXISTS = (
    f'EXISTS(SELECT 1 FROM "{Pin._meta.db_table}" pin '  # noqa: S608
    'WHERE pin."project_id" = p."id" AND pin."actor_ref" = %s)'
)
_PROJECT_COLUMNS = f"{select_list('p', _PROJECT_FIELDS)}, {_PIN_EXISTS}"
_PROJECT_TABLE = f'"{Project._meta.db_table}" p'
_PAGE_ORDER = 'p."updated_at" DESC, p."id" ASC LIMIT %s OFFSET %s'
_PROJECT_ORDER = f"ORDER BY {_PAGE_ORDER}"
_PINNED_FIRST_ORDER = f"ORDER BY {_PIN_EXISTS} DESC, {_PAGE_ORDER}"
# Names come from model metadata; every value is a parameter.
_PROJECT_SQL = (
    f"SELECT {_PROJECT_COLUMNS} FROM {_PROJECT_TABLE} "  # noqa: S608
    'WHERE p."id" = %s AND p."organization_id" = %s'
)
_PROJECT_ROW = Columns([*_PROJECT_FIELDS, None])
# The API key of a request and the project in its path, in one statement: the project is
# joined only within the key's organization, so another organization's is not found.
_KEY_AND_PROJECT_SQL = (
    f"SELECT {API_KEY_ROW_COLUMNS}, {_PROJECT_COLUMNS} FROM {API_KEY_ROW_FROM} "  # noqa: S608
    f'LEFT JOIN {_PROJECT_TABLE} ON p."id" = %s AND p."organization_id" = k."organization_id" '
    f"WHERE {API_KEY_ROW_WHERE}"
)
_KEY_AND_PROJECT_ROW = Columns([*API_KEY_ROW_FIELDS, *_PROJECT_FIELDS, None])
_PAGE_ROW = Columns([*_PROJECT_FIELDS, None, None])  # a project, its pin, the total
_COUNT_ROW = Columns([None])
_KEY_WIDTH = len(API_KEY_ROW_FIELDS)


def _project_from_row(row: list) -> Project:
    project = build(Project, _PROJECT_FIELDS, row[:-1])
    project.is_pinned = bool(row[-1])
    return project


_PROJECT_ATTNAMES = tuple(field.attname for field in _PROJECT_FIELDS)


class ProjectRow:
    """A project of a page of the list as the API writes it (serializers.project_json): the
    model's field values by their attribute names, and `is_pinned`, without a model
    instance. Django's from_db and the init signals it sends cost 12 us a project against 2
    here, six times a page, on the API's busiest read."""

    __slots__ = (*_PROJECT_ATTNAMES, "is_pinned")

    def __init__(self, row: Sequence) -> None:
        for name, value in zip(_PROJECT_ATTNAMES, row, strict=False):
            setattr(self, name, value)
        self.is_pinned = bool(row[-1])

    @property
    def pk(self) -> str:
        return self.id


def project_get(*, actor: Actor, project_id: str) -> Project:
    """One project of the actor's organization, annotated with `is_pinned`; a malformed id,
    a missing project and another organization's project are the same 404. One
    hand-written query (archsvc/hotpath.py): nearly every API request makes it."""
    if not isinstance(project_id, str) or not is_project_id(project_id):
        raise ProjectNotFound()
    row = fetch_row(_PROJECT_SQL, [actor.ref, project_id, actor.organization_id], _PROJECT_ROW)
    if row is None:
        raise ProjectNotFound()
    return _project_from_row(row)


def api_key_actor_and_project(*, token: str, project_id: str) -> tuple[Actor, Project | None]:
    """The actor of a bearer key (as accounts.selectors.api_key_actor, with its InvalidToken)
    and the project `project_id` of the key's organization as project_get finds it, or None
    where project_get says ProjectNotFound. One hand-written query for both: nearly every
    API request names a project, and this is its only database round trip before the
    render cache."""
    if not isinstance(project_id, str) or not is_project_id(project_id):
        return api_key_actor(token=token), None
    verified = api_key_token(token=token)
    row = reconnecting(
        lambda: fetch_row(
            _KEY_AND_PROJECT_SQL,
            [verified.actor_ref, project_id, verified.key_id],
            _KEY_AND_PROJECT_ROW,
        )
    )
    actor = api_key_actor_from_row(token=verified, row=row and row[:_KEY_WIDTH])
    project_row = row[_KEY_WIDTH:]
    return actor, (_project_from_row(project_row) if project_row[0] is not None else None)


def _project_conditions(
    *,
    actor_ref: str,
    pinned: bool | None,
    archived: bool | None,
    created_by: str | None,
    query: str | None,
    created_by_ref: str | None = None,
) -> tuple[list[str], list]:
    """The conditions on `p` of a project list's filters, with their parameters."""
    conditions, params = [], []
    if created_by_ref is not None:  # the projects page's "made by me": the actor, not a name
        conditions.append('p."created_by_ref" = %s')
        params.append(created_by_ref)
    if pinned is not None:
        conditions.append(_PIN_EXISTS if pinned else f"NOT {_PIN_EXISTS}")
        params.append(actor_ref)
    if archived is not None:
        conditions.append('p."archived" = %s')
        params.append(archived)
    if created_by is not None:
        conditions.append('p."created_by" = %s')
        params.append(created_by)
    if query:
        condition, value = icontains('p."name"', query)
        conditions.append(condition)
        params.append(value)
    return conditions, params


def project_list(
    *,
    actor: Actor,
    page: int,
    size: int,
    pinned: bool | None = None,
    archived: bool | None = None,
    created_by: str | None = None,
    query: str | None = None,
    pinned_first: bool = False,
    created_by_ref: str | None = None,
) -> tuple[list[Project], int]:
    """A page of projects, most recently updated first, then by id (`pinned_first`: the
    actor's pinned ones before the others, as the projects page lists them); and the
    total. One hand-written query (the total rides along as a window count; a page past
    the end asks for the count alone)."""
    conditions, params = _project_conditions(
        actor_ref=actor.ref,
        pinned=pinned,
        archived=archived,
        created_by=created_by,
        query=query,
        created_by_ref=created_by_ref,
    )
    where = " AND ".join(['p."organization_id" = %s', *conditions])
    params = [actor.organization_id, *params]
    order, order_params = (
        (_PINNED_FIRST_ORDER, [actor.ref]) if pinned_first else (_PROJECT_ORDER, [])
    )
    rows = fetch_rows(
        f"SELECT {_PROJECT_COLUMNS}, COUNT(*) OVER () FROM {_PROJECT_TABLE} "  # noqa: S608
        f"WHERE {where} {order}",
        [actor.ref, *params, *order_params, size, page * size],
        _PAGE_ROW,
    )
    if not rows:
        total = (
            fetch_row(
                f"SELECT COUNT(*) FROM {_PROJECT_TABLE} WHERE {where}",  # noqa: S608
                params,
                _COUNT_ROW,
            )[0]
            if page
            else 0
        )
        return [], total
    return [_project_from_row(row[:-1]) for row in rows], rows[0][-1]


def api_key_actor_and_project_page(
    *,
    token: str,
    page: int,
    size: int,
    pinned: bool | None = None,
    archived: bool | None = None,
    created_by: str | None = None,
    query: str | None = None,
) -> tuple[Actor, tuple[list[ProjectRow], int] | None]:
    """The actor of a bearer key (as accounts.selectors.api_key_actor) and the page of
    project_list (as ProjectRows) with its total, in one hand-written query: the key's
    organization's projects joined to the key row. None for the page when it lies past the
    last one (no row comes back then, so the key is read alone and project_list answers)."""
    verified = api_key_token(token=token)
    conditions, params = _project_conditions(
        actor_ref=verified.actor_ref,
        pinned=pinned,
        archived=archived,
        created_by=created_by,
        query=query,
    )
    joined = " AND ".join(['p."organization_id" = k."organization_id"', *conditions])
    rows = reconnecting(
        lambda: fetch_rows(
            f'SELECT {API_KEY_ROW_COLUMNS}, {_PROJECT_COLUMNS}, COUNT(p."id") OVER () '  # noqa: S608
            f"FROM {API_KEY_ROW_FROM} LEFT JOIN {_PROJECT_TABLE} ON {joined} "
            f"WHERE {API_KEY_ROW_WHERE} {_PROJECT_ORDER}",
            [verified.actor_ref, *params, verified.key_id, size, page * size],
            None,
        )
    )
    if not rows:
        return api_key_actor(token=token), None
    # Every row repeats the key's columns: they are converted once, from the first.
    actor = api_key_actor_from_row(token=verified, row=API_KEY_ROW.convert(rows[0][:_KEY_WIDTH]))
    items = [_PAGE_ROW.convert(row[_KEY_WIDTH:]) for row in rows if row[_KEY_WIDTH] is not None]
    return actor, ([ProjectRow(item[:-1]) for item in items], rows[0][-1])


def pin_list(*, actor: Actor) -> list[Pin]:
    """The actor's pins in its organization, most recently pinned first."""
    return list(
        Pin.objects.filter(
            actor_ref=actor.ref, project__organization_id=actor.organization_id
        ).order_by("-pinned_at", "-id")
    )


# --- Services at any time -------------------------------------------------------------------


def is_current(at: datetime | None) -> bool:
    """Whether a read `at` this time is of the current state (no time, or one not yet
    come); the render cache keys on it too."""
    return at is None or at >= timezone.now()


def live_snapshots(*, project: Project, at: datetime | None = None) -> QuerySet[ServiceSnapshot]:
    """The live services' snapshots as of `at` (now when None). The current state reads the
    live-slug partial index; a past state picks, per service, the last snapshot begun by
    `at` through the (service, valid_from) index, never scanning the whole history."""
    if is_current(at):
        return ServiceSnapshot.objects.filter(
            project=project, valid_until__isnull=True, deleted=False
        )
    latest = (
        ServiceSnapshot.objects.filter(service=OuterRef("pk"), valid_from__lte=at)
        .order_by("-valid_from")
        .values("pk")[:1]
    )
    ids = Service.objects.filter(project=project).annotate(snap=Subquery(latest)).values("snap")
    return ServiceSnapshot.objects.filter(pk__in=ids, deleted=False)


def _valid_at(at: datetime) -> Q:
    """The snapshots that held at `at`: begun by then, not yet ended."""
    return Q(valid_from__lte=at) & (Q(valid_until__isnull=True) | Q(valid_until__gt=at))


def past_services_fate(
    *, project: Project, at: datetime, slugs: list[str]
) -> tuple[dict[str, str], set[str]]:
    """For the rows a past moment's tables list (`slugs`, as they were at `at`): each
    service's slug now ("" once deleted), where its editor is, and the slugs then of those
    changed since (as the graph outlines them). Three indexed queries on those services
    alone: on a project of 3,000 services, reading every service's fate took more than the
    page's 100 rows need."""
    then = dict(
        ServiceSnapshot.objects.filter(
            _valid_at(at), project=project, slug__in=slugs, deleted=False
        ).values_list("slug", "service_id")
    )
    services = list(then.values())
    now = dict(
        ServiceSnapshot.objects.filter(
            service_id__in=services, valid_until__isnull=True, deleted=False
        ).values_list("service_id", "slug")
    )
    changed = set(
        ServiceSnapshot.objects.filter(service_id__in=services, valid_from__gt=at)
        .values_list("service_id", flat=True)
        .distinct()
    )
    return (
        {slug: now.get(service, "") for slug, service in then.items()},
        {slug for slug, service in then.items() if service in changed},
    )


def services_at(*, project: Project, at: datetime | None = None) -> list[ServiceSnapshot]:
    """The live services of the project as of `at`, one snapshot each, by slug: one query.
    Sorted here, by code point, so that every database's collation gives the same order."""
    return sorted(
        live_snapshots(project=project, at=at).select_related("service"),
        key=lambda snapshot: snapshot.slug,
    )


def service_at(*, project: Project, slug: str, at: datetime | None = None) -> ServiceSnapshot:
    """The service that had this slug at `at` (slugs resolve as of `at`), or 404."""
    snapshots = ServiceSnapshot.objects.filter(project=project, slug=slug, deleted=False)
    if is_current(at):
        snapshots = snapshots.filter(valid_until__isnull=True)
    else:
        snapshots = snapshots.filter(_valid_at(at))
    snapshot = snapshots.select_related("service").first()
    if snapshot is None:
        raise ServiceNotFound()
    return snapshot


def _last_by_slug(*, project: Project, slug: str):
    """The id of the service that last went by `slug` in the project, or None."""
    return (
        ServiceSnapshot.objects.filter(project=project, slug=slug)
        .order_by("-valid_from", "-version")
        .values_list("service_id", flat=True)
        .first()
    )


def _now_of_last_by_slug(*, project: Project, slug: str, deleted: bool) -> ServiceSnapshot | None:
    """The current snapshot of the service that last went by `slug`, if it is (not) deleted."""
    service_id = _last_by_slug(project=project, slug=slug)
    if service_id is None:
        return None
    return ServiceSnapshot.objects.filter(
        service_id=service_id, valid_until__isnull=True, deleted=deleted
    ).first()


def service_renamed_from(*, project: Project, slug: str) -> ServiceSnapshot | None:
    """The live service that last went by `slug` before a rename, if any (so that the
    editor's old addresses lead to it)."""
    return _now_of_last_by_slug(project=project, slug=slug, deleted=False)


def service_deleted_as(*, project: Project, slug: str) -> ServiceSnapshot | None:
    """The deletion of the service that last went by `slug`, when it is deleted now (so that
    an old editor address says what happened instead of a bare 404)."""
    return _now_of_last_by_slug(project=project, slug=slug, deleted=True)


def _snapshot_of_service(*, project: Project, service_id: str, **which) -> ServiceSnapshot | None:
    """A snapshot of one service of the project, by the service's id as a form sent it (None
    for an id that is no UUID, or another project's service)."""
    try:
        service_id = str(uuid.UUID(service_id))
    except (ValueError, AttributeError):
        return None
    return (
        ServiceSnapshot.objects.filter(project=project, service_id=service_id, **which)
        .select_related("service")
        .first()
    )


def service_now(*, project: Project, service_id: str) -> ServiceSnapshot | None:
    """The current snapshot of one service of the project, by its id, whatever its slug now
    (a tombstone when it is deleted), or None: where the service an editor page was opened
    with went."""
    return _snapshot_of_service(project=project, service_id=service_id, valid_until__isnull=True)


def service_version(*, project: Project, service_id: str, version: int) -> ServiceSnapshot | None:
    """One version of a service of the project (the one an edit form was opened with), or
    None (another project's service, a version it never had, an id that is no UUID)."""
    return _snapshot_of_service(project=project, service_id=service_id, version=version)


def service_state(snapshot: ServiceSnapshot) -> ServiceState:
    return ServiceState(
        slug=snapshot.slug,
        name=snapshot.name,
        description=snapshot.description,
        category=snapshot.category,
        owner=snapshot.owner,
        flows=tuple(snapshot.flows or ()),
        consumes=tuple(snapshot.consumes or ()),
        produces=tuple(snapshot.produces or ()),
        extras=dict(snapshot.extras or {}),
        updated_at=snapshot.valid_from,
    )


def project_state(*, project: Project, at: datetime | None = None) -> list[ServiceState]:
    """The project's services as plain data, for entities, graphs and the assistant."""
    return [service_state(s) for s in services_at(project=project, at=at)]


def project_entities_at(*, project: Project, at: datetime | None = None) -> dict:
    return project_entities(project_state(project=project, at=at))


def history_page(
    *, project: Project, page: int, size: int, service_id=None
) -> tuple[list[ServiceSnapshot], int]:
    """The project's snapshots as events, newest first, and their total; one service's
    alone when `service_id` is given."""
    snapshots = ServiceSnapshot.objects.filter(project=project)
    if service_id is not None:
        snapshots = snapshots.filter(service_id=service_id)
    total = snapshots.count()
    offset = page * size
    items = (
        list(snapshots.order_by("-valid_from", "-version", "-id")[offset : offset + size])
        if offset < total
        else []
    )
    return items, total


def snapshot_diff(*, project: Project, snapshot_id: str) -> dict:
    """ServiceSnapshotDiff: a snapshot against the one before it of the same service."""
    try:
        snapshot_uuid = uuid.UUID(str(snapshot_id))
    except ValueError:  # no snapshot has such an id (CONTRACT 5: 404)
        raise NotFound("Snapshot not found.") from None
    snapshot = ServiceSnapshot.objects.filter(project=project, pk=snapshot_uuid).first()
    if snapshot is None:
        raise NotFound("Snapshot not found.")
    previous = None
    if snapshot.version > 1:
        previous = ServiceSnapshot.objects.filter(
            service_id=snapshot.service_id, version=snapshot.version - 1
        ).first()
    before = snapshot_fields(previous) if previous else None
    after = None if snapshot.deleted else snapshot_fields(snapshot)
    return {
        "snapshotId": str(snapshot.pk),
        "previousSnapshotId": str(previous.pk) if previous else None,
        "serviceSlug": snapshot.slug,
        "action": snapshot.action,
        "changes": snapshot_changes(before, after),
    }


def snapshots_changes(snapshots: list[ServiceSnapshot]) -> dict:
    """Each snapshot's changes against the one before it of the same service (as
    `snapshot_diff` says them), keyed by the snapshot's id: one query for a page of them,
    not two each."""
    wanted = Q()
    for snapshot in snapshots:
        if snapshot.version > 1:
            wanted |= Q(service_id=snapshot.service_id, version=snapshot.version - 1)
    previous = {}
    if wanted:
        previous = {(s.service_id, s.version): s for s in ServiceSnapshot.objects.filter(wanted)}
    changes = {}
    for snapshot in snapshots:
        before = previous.get((snapshot.service_id, snapshot.version - 1))
        changes[snapshot.pk] = snapshot_changes(
            snapshot_fields(before) if before else None,
            None if snapshot.deleted else snapshot_fields(snapshot),
        )
    return changes


def history_service(*, project: Project, key: str) -> ServiceSnapshot | None:
    """The current snapshot (a deletion's, if deleted) of the project's service named by
    `key`: its id, or a slug it went by (the service that last did). None for neither."""
    try:
        service_id = uuid.UUID(key)
    except (ValueError, AttributeError):
        service_id = _last_by_slug(project=project, slug=key)
        if service_id is None:
            return None
    return ServiceSnapshot.objects.filter(
        project=project, service_id=service_id, valid_until__isnull=True
    ).first()


def snapshot_fields(snapshot: ServiceSnapshot) -> dict:
    """The request fields of a snapshot, as stored (nulls included)."""
    return {
        "name": snapshot.name,
        "description": snapshot.description,
        "category": snapshot.category,
        "owner": snapshot.owner,
        "flows": snapshot.flows,
        "consumes": snapshot.consumes,
        "produces": snapshot.produces,
        "extras": snapshot.extras,
    }


# --- Graph renderings -----------------------------------------------------------------------


def project_graph_view(
    *, project: Project, at: datetime | None, filtered_ids: list[str], depth: int | None
) -> tuple[nx.DiGraph, Layout, dict]:
    """The project's graph as of `at`, focused on `filtered_ids` within `depth` hops, and
    its layout; plus the header texts. Category ids in a focus are the same as in
    /entities (computed over the whole project)."""
    graph = project_graph_only(project=project, at=at, filtered_ids=filtered_ids, depth=depth)
    layout = layout_cached(graph, origin=graph_origin())
    return graph, layout, {"title": project.name, "when": _when_label(project, at)}


def project_graph_only(
    *, project: Project, at: datetime | None, filtered_ids: list[str], depth: int | None
) -> nx.DiGraph:
    """The project's graph as of `at`, focused when `filtered_ids` are given."""
    graph, entities = project_graph(project_state(project=project, at=at))
    if filtered_ids:
        graph = graph_filter(graph, entities, filtered_ids, depth if depth is not None else 1)
    return graph


def _when_label(project: Project, at: datetime | None) -> str:
    if at is not None and not is_current(at):
        if at < project.created_at:  # "Nothing to show yet" would not say why
            return (
                f"As of {at.year:04d}-{at:%m-%d %H:%M:%S} UTC, before the project was created "
                f"({project.created_at:%Y-%m-%d %H:%M} UTC)"
            )
        return f"As of {at.year:04d}-{at:%m-%d %H:%M:%S} UTC"  # %Y writes the year 1 as "1"
    return f"Current state · last change {project.updated_at:%Y-%m-%d %H:%M} UTC"


# --- The assistant's view of a project ------------------------------------------------------


def _services_known(context) -> int:
    """A kept context's size in services' worth of memory (about 7.5 KB each): its services,
    and its history events, about a twelfth of that each (up to 5,000 of them: about 600
    bytes an event with what it did in words, `HistoryEvent.what`)."""
    return 1 + len(context.entities["services"]) + len(context.history) // 12


assistant_contexts = LocalRenders("ASSISTANT_KEPT_SERVICES", size=_services_known, largest=0.5)


def assistant_context(*, project: Project):
    """The project's current graph and its history (newest first, the latest 5,000 events):
    all the assistant may read. Each worker keeps it, with its name index, for the next
    question on the same state (ASSISTANT_KEPT_SERVICES): a chat is several questions in a
    row, and on 1,000 services loading and indexing the project is most of each answer's
    time. Its key is the project's state (`updated_at`, which every write moves), so a kept
    context is never stale; `now` is the time of each question."""
    key = (project.id, iso(project.updated_at))
    kept = assistant_contexts.get(key)
    if kept is None:
        with gc_paused():  # as a render: objects that all live on, nothing to collect
            kept = _assistant_context_built(project=project)
            kept.names  # noqa: B018 - built now, so that it is kept with the rest
        assistant_contexts.put(key, kept)
    return kept.asked_at(timezone.now())


def _assistant_context_built(*, project: Project):
    from diagrams.assistant.context import AssistantContext, HistoryEvent

    graph, entities = project_graph(project_state(project=project))
    snapshots = list(
        ServiceSnapshot.objects.filter(project=project).order_by("-valid_from", "-version")[:5000]
    )
    # each snapshot's previous version (the next older one of its service in the list)
    before: dict = {}
    previous: dict = {}
    for snapshot in reversed(snapshots):
        previous[snapshot.pk] = before.get(snapshot.service_id)
        before[snapshot.service_id] = snapshot
    events = [
        HistoryEvent(
            at=s.valid_from,
            action=s.action,
            service_slug=s.slug,
            service_name=s.name,
            actor=s.actor,
            service=str(s.service_id),
            what=change_words(previous[s.pk], s),
        )
        for s in snapshots
    ]
    return AssistantContext(
        project_name=project.name, graph=graph, entities=entities, history=events
    )


def _topic_names(topics) -> list[str]:
    return [topic["name"] for topic in topics or () if isinstance(topic, dict) and "name" in topic]


def change_words(old, new, *, most: int = 4) -> str:
    """What a change did, in a few words, from the snapshot before it (None: unknown, or a
    creation): "renamed from Warehouse", "stopped consuming orders.confirmed", "owner
    team-a -> team-b". The assistant's list of changes said only who changed what service;
    on call, what it did is the question. At most `most` parts, then how many more."""
    if old is None or new.action in ("created", "deleted"):
        return ""
    parts = []
    if old.name != new.name:
        parts.append(f"renamed from {old.name}")
    for direction, word in (("consumes", "consuming"), ("produces", "producing")):
        was, now = _topic_names(getattr(old, direction)), _topic_names(getattr(new, direction))
        gone = [name for name in was if name not in now]
        came = [name for name in now if name not in was]
        if gone:
            parts.append(f"stopped {word} {', '.join(gone)}")
        if came:
            parts.append(f"started {word} {', '.join(came)}")
    for field in ("owner", "category"):
        was, now = getattr(old, field), getattr(new, field)
        if was != now:
            parts.append(f"{field} {was or 'none'} -> {now or 'none'}")
    for field, label in (("description", "description"), ("flows", "flows"), ("extras", "extras")):
        if (getattr(old, field) or None) != (getattr(new, field) or None):
            parts.append(f"{label} changed")
    if not parts and (old.consumes, old.produces) != (new.consumes, new.produces):
        # a topic's category or owner, as this service declares it
        return "topic details changed"
    more = len(parts) - most
    return "; ".join(parts[:most]) + (f"; and {more} more" if more > 0 else "")


def _read_label(project: Project, at, kind: str, filtered_ids: list[str], depth) -> str:
    """What the render cache's logs call a cached read: "svg of <project id>", with its
    `at` and filters when it has them."""
    label = f"{kind} of {project.id}"
    if at is not None:
        label += f" at {iso(at)}"
    if filtered_ids:
        label += f", {len(filtered_ids)} filtered ids, depth {depth}"
    return label


def project_render(
    *,
    project: Project,
    at: datetime | None,
    filtered_ids: list[str],
    depth: int | None,
    kind: str,
    query_echo: str | None = None,
    gzipped: bool = False,
) -> bytes:
    """The project's graph rendered as `svg`, `mermaid` or `json` (the encoded
    ProjectGraph), as UTF-8 bytes, from the shared cache when this state was rendered
    before; gzip bytes when `gzipped`."""
    return project_rendering(
        project=project,
        at=at,
        filtered_ids=filtered_ids,
        depth=depth,
        kind=kind,
        query_echo=query_echo,
        gzipped=gzipped,
    ).body()


def project_rendering(
    *,
    project: Project,
    at: datetime | None,
    filtered_ids: list[str],
    depth: int | None,
    kind: str,
    query_echo: str | None = None,
    gzipped: bool = False,
):
    """project_render as a render_cache.CachedRead: its entity tag, and its bytes when
    asked for."""
    from diagrams.render_cache import CachedRead, json_bytes, render_key
    from diagrams.rendering.document import project_graph_json
    from diagrams.rendering.mermaid import mermaid_flowchart
    from diagrams.rendering.svg import svg_document, svg_size

    def compute():
        if kind == "mermaid":
            return mermaid_flowchart(
                project_graph_only(project=project, at=at, filtered_ids=filtered_ids, depth=depth)
            )
        graph, layout, header = project_graph_view(
            project=project, at=at, filtered_ids=filtered_ids, depth=depth
        )
        if kind == "svg":
            return svg_document(graph, layout, **header, focused=bool(filtered_ids))
        width, height = svg_size(graph, layout, **header)
        return json_bytes(
            project_graph_json(
                graph,
                layout,
                project_id=project.id,
                at=query_echo,
                filtered_ids=filtered_ids,
                depth=depth if filtered_ids else None,
                width=width,
                height=height,
            )
        )

    key = render_key(project=project, at=at, filtered_ids=filtered_ids, depth=depth, kind=kind)
    label = _read_label(project, at, kind, filtered_ids, depth)
    return CachedRead(key, compute, gzipped=gzipped, label=label)


def project_read_cached(
    *, project: Project, at: datetime | None, kind: str, compute, gzipped: bool = False
):
    """A read of the project's state (services, entities) as a render_cache.CachedRead of
    encoded JSON (gzip bytes when `gzipped`), cached under the project's state like the
    renders: any write to the project makes it unreachable. The current state is read
    even when the caller's render budget is spent (it is still charged): it is data, not a
    drawing, one per write at most, and a script that writes and then reads its services
    must not be refused for a colleague's time travel (a review locked an organization out
    of its services list with three people dragging a 3,000-service project's slider)."""
    from diagrams.render_cache import CachedRead, json_bytes, render_key

    # a time to come is the current state (CONTRACT 7), and these bodies do not echo `at`:
    # one key for all of them, so each `at` to come is not a computation of its own
    current = is_current(at)
    key = render_key(
        project=project, at=None if current else at, filtered_ids=[], depth=None, kind=kind
    )
    label = _read_label(project, at, kind, [], None)
    return CachedRead(
        key,
        lambda: json_bytes(compute()),
        gzipped=gzipped,
        label=label,
        refusable=not current,
    )


def project_entities_cached(*, project: Project, at: datetime | None = None) -> dict:
    """The project's ProjectEntities (now, or as of `at`), through the render cache under
    the same key as `GET .../entities` (one render serves the pages and the API). For the
    pages: on a project of 1,000 services, building them took 45-100 ms of every page
    load; reading the cached JSON back takes 7."""
    read = project_read_cached(
        project=project,
        at=at,
        kind="entities",
        compute=lambda: project_entities_at(project=project, at=at),
    )
    return json_value(read.body())
