"""Reads for diagrams: projects, pins, services at any time, history and entities.

Long because the hot-path project reads are hand-written SQL (archsvc/hotpath.py) sharing
their column lists here; the time-travel reads each need their own indexed query."""

import uuid
from collections.abc import Sequence
from datetime import datetime

from django.db.models import OuterRef, Q, QuerySet, Subquery

from accounts.actors import Actor
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
from diagrams.history import is_current, snapshot_changes
from diagrams.models import Pin, Project, Service, ServiceSnapshot
from diagrams.slugs import is_project_id

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
    """A project of a list page as the API writes it: field values by attribute name and
    `is_pinned`, without a model instance (from_db and its signals cost the busiest read)."""

    __slots__ = (*_PROJECT_ATTNAMES, "is_pinned")

    def __init__(self, row: Sequence) -> None:
        for name, value in zip(_PROJECT_ATTNAMES, row, strict=False):
            setattr(self, name, value)
        self.is_pinned = bool(row[-1])

    @property
    def pk(self) -> str:
        return self.id


def project_get(*, actor: Actor, project_id: str) -> Project:
    """One project of the actor's organization with `is_pinned`, in one hand-written query; a
    malformed id, a missing project and another organization's project are the same 404."""
    if not isinstance(project_id, str) or not is_project_id(project_id):
        raise ProjectNotFound()
    row = fetch_row(_PROJECT_SQL, [actor.ref, project_id, actor.organization_id], _PROJECT_ROW)
    if row is None:
        raise ProjectNotFound()
    return _project_from_row(row)


def api_key_actor_and_project(*, token: str, project_id: str) -> tuple[Actor, Project | None]:
    """The actor of a bearer key (as api_key_actor) and the project as project_get finds it (None
    for its 404), in one query: a request's only database round trip before the render cache."""
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


def _projects_page_sql(organization: str, conditions: list[str], *, order: str, key: bool):
    """The SELECT of a page of `organization`'s projects meeting `conditions`, with a window-count
    total, and its WHERE; `key`: joined to the bearer key's row, which comes back regardless."""
    where = " AND ".join([f'p."organization_id" = {organization}', *conditions])
    columns = f'{_PROJECT_COLUMNS}, COUNT(p."id") OVER ()'
    if key:
        sql = (
            f"SELECT {API_KEY_ROW_COLUMNS}, {columns} FROM {API_KEY_ROW_FROM} "  # noqa: S608
            f"LEFT JOIN {_PROJECT_TABLE} ON {where} WHERE {API_KEY_ROW_WHERE} {order}"
        )
    else:
        sql = f"SELECT {columns} FROM {_PROJECT_TABLE} WHERE {where} {order}"  # noqa: S608
    return sql, where


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
    """A page of projects, most recently updated first (`pinned_first`: the actor's pins first),
    and the total, in one hand-written query (a page past the end asks for the count alone)."""
    conditions, params = _project_conditions(
        actor_ref=actor.ref,
        pinned=pinned,
        archived=archived,
        created_by=created_by,
        query=query,
        created_by_ref=created_by_ref,
    )
    params = [actor.organization_id, *params]
    order, order_params = (
        (_PINNED_FIRST_ORDER, [actor.ref]) if pinned_first else (_PROJECT_ORDER, [])
    )
    sql, where = _projects_page_sql("%s", conditions, order=order, key=False)
    rows = fetch_rows(sql, [actor.ref, *params, *order_params, size, page * size], _PAGE_ROW)
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
    """The actor of a bearer key and project_list's page (as ProjectRows) with its total, in one
    query; None for a page past the last (then project_list answers)."""
    verified = api_key_token(token=token)
    conditions, params = _project_conditions(
        actor_ref=verified.actor_ref,
        pinned=pinned,
        archived=archived,
        created_by=created_by,
        query=query,
    )
    sql, _ = _projects_page_sql('k."organization_id"', conditions, order=_PROJECT_ORDER, key=True)
    rows = reconnecting(
        lambda: fetch_rows(
            sql, [verified.actor_ref, *params, verified.key_id, size, page * size], None
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


def live_snapshots(*, project: Project, at: datetime | None = None) -> QuerySet[ServiceSnapshot]:
    """The live services' snapshots as of `at` (now when None), through indexes: never a scan of
    the whole history."""
    # now: the live-slug partial index; past: per service, the last snapshot begun by `at`,
    # through the (service, valid_from) index
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
    """For the services a past moment's table lists (`slugs` at `at`): each one's slug now (""
    once deleted) and the slugs of those changed since; indexed queries on those alone."""
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
    """The current snapshot (a tombstone if deleted) of one service of the project by its id,
    whatever its slug now, or None: where an editor page's service went."""
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
    except ValueError:  # no snapshot has such an id (interface §5: 404)
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
    """Each snapshot's changes against its service's previous one (as `snapshot_diff`), keyed by
    snapshot id: one query for a page, not two each."""
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
