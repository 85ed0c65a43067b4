"""Writes for services: each POST, PUT and DELETE adds one snapshot under the project's row
lock, so writers queue and the chain stays gapless with exactly one current (interface §7)."""

from collections.abc import Collection
from datetime import datetime, timedelta

from django.db import IntegrityError, OperationalError, transaction
from django.utils import timezone

from accounts.actors import Actor
from archsvc.exceptions import Conflict, ProjectNotFound, ServiceNameConflict, ServiceNotFound
from diagrams.entities import topic_normal
from diagrams.models import Project, Service, ServiceSnapshot
from diagrams.slugs import is_project_id, service_slug

NULLABLE = ("description", "category", "owner", "flows", "extras")


def _fields(data: dict, base: dict | None = None) -> dict:
    """The stored fields after applying `data` (validated) to `base` (partial update)."""
    fields = dict(
        base
        or {
            "name": None,
            "description": None,
            "category": None,
            "owner": None,
            "flows": None,
            "consumes": [],
            "produces": [],
            "extras": None,
        }
    )
    for key, value in data.items():
        if key in ("consumes", "produces"):
            fields[key] = [topic_normal(t) for t in value]
        elif key == "flows" and value is not None:
            fields[key] = list(dict.fromkeys(value))
        elif key == "extras" and value is not None:
            fields[key] = dict(value)
        else:
            fields[key] = value
    return fields


def _stored(snapshot: ServiceSnapshot) -> dict:
    return {
        k: getattr(snapshot, k)
        for k in (
            "name",
            "description",
            "category",
            "owner",
            "flows",
            "consumes",
            "produces",
            "extras",
        )
    }


def project_locked(*, actor: Actor, project_id: str) -> Project:
    """The project of the actor's organization, its row locked until the transaction ends:
    writers of one project queue here. ProjectNotFound for any other."""
    if not is_project_id(project_id):
        raise ProjectNotFound()
    project = (
        Project.objects.select_for_update()
        .filter(pk=project_id, organization_id=actor.organization_id)
        .first()
    )
    if project is None:
        raise ProjectNotFound()
    return project


def _after(previous: datetime) -> datetime:
    """Now, but strictly after the previous snapshot began (clocks can tie)."""
    now = timezone.now()
    return now if now > previous else previous + timedelta(microseconds=1)


def service_name_clash(*, project: Project, name: str, service_id=None) -> str | None:
    """The name of the live service a write naming a service `name` would clash with by slug
    (409 `service_name_conflict`), or None; it may differ ("Cart!" and "cart")."""
    return (
        ServiceSnapshot.objects.filter(
            project=project, slug=service_slug(name), valid_until__isnull=True, deleted=False
        )
        .exclude(service_id=service_id)
        .values_list("name", flat=True)
        .first()
    )


def _name_conflict(name: str, clash: str) -> ServiceNameConflict:
    """409 naming the service that has the slug: a script learns where to PUT instead, and
    "Cart!" learns that it clashes with "Cart"."""
    slug = service_slug(name)
    shown = name.encode("utf-8", "replace").decode("utf-8")[:100]
    if clash == name:
        return ServiceNameConflict(
            f"A service named '{shown}' exists in this project, at the slug '{slug}' "
            f"(PUT .../services/{slug} changes it)."
        )
    return ServiceNameConflict(
        f"The name '{shown}' makes the slug '{slug}', which the service '{clash}' has; "
        "choose a more different name."
    )


def _touch_project(project: Project, *, actor: Actor, at: datetime, count_delta: int = 0):
    project.updated_at = at
    project.updated_by, project.updated_by_type = actor.name, actor.type
    project.service_count = max(0, project.service_count + count_delta)
    project.save(update_fields=["updated_at", "updated_by", "updated_by_type", "service_count"])


def _conflicts_become_409(write):
    """A unique index that still fires, or a lock the database gave up on, is a race the
    client may retry: 409 `conflict`, never a 500."""

    def wrapper(**kwargs):
        try:
            return write(**kwargs)
        except IntegrityError as exc:
            raise Conflict() from exc
        except OperationalError as exc:
            if "deadlock" in str(exc).lower() or "could not serialize" in str(exc).lower():
                raise Conflict() from exc
            raise

    wrapper.__doc__ = write.__doc__
    wrapper.__name__ = write.__name__
    return wrapper


def _snapshot(
    *,
    service: Service,
    project: Project,
    version: int,
    action: str,
    fields: dict,
    actor: Actor,
    at: datetime,
    deleted: bool = False,
) -> ServiceSnapshot:
    snapshot = ServiceSnapshot.objects.create(
        service=service,
        project=project,
        version=version,
        action=action,
        deleted=deleted,
        slug=service_slug(fields["name"]),
        actor=actor.name,
        actor_type=actor.type,
        valid_from=at,
        **fields,
    )
    snapshot.service = service
    return snapshot


@_conflicts_become_409
@transaction.atomic
def service_create(*, actor: Actor, project_id: str, data: dict) -> ServiceSnapshot:
    """A new service (version 1). 409 `service_name_conflict` when a live service of the
    project has the same slug."""
    project = project_locked(actor=actor, project_id=project_id)
    fields = _fields(data)
    clash = service_name_clash(project=project, name=fields["name"])
    if clash is not None:
        raise _name_conflict(fields["name"], clash)
    now = timezone.now()
    service = Service.objects.create(
        project=project, created_by=actor.name, created_by_type=actor.type, created_at=now
    )
    snapshot = _snapshot(
        service=service,
        project=project,
        version=1,
        action=ServiceSnapshot.ACTION_CREATED,
        fields=fields,
        actor=actor,
        at=now,
    )
    _touch_project(project, actor=actor, at=now, count_delta=1)
    return snapshot


def _current_locked(*, project: Project, slug: str) -> ServiceSnapshot:
    current = (
        ServiceSnapshot.objects.select_for_update()
        .select_related("service")
        .filter(project=project, slug=slug, valid_until__isnull=True, deleted=False)
        .first()
    )
    if current is None:
        raise ServiceNotFound()
    return current


# (service id, version): a state of a service as a reader saw it.
Version = tuple[str, int]


class ServiceChangedMeanwhile(Conflict):
    """The service is not the one, or not at the version, the caller last saw."""

    message = "The service changed since it was read; read it again, then retry."

    def __init__(self, current: ServiceSnapshot):
        super().__init__(self.message)
        self.current = current


def _check_expected(current: ServiceSnapshot, expected: Collection[Version] | None) -> None:
    """ServiceChangedMeanwhile unless the current snapshot is a version the caller expects; called
    under the write's row lock, so a write landing since the caller's read is caught too."""
    if expected is not None and (str(current.service_id), current.version) not in expected:
        raise ServiceChangedMeanwhile(current)


@_conflicts_become_409
@transaction.atomic
def service_update(
    *,
    actor: Actor,
    project_id: str,
    slug: str,
    data: dict,
    expected: Collection[Version] | None = None,
) -> ServiceSnapshot:
    """Partial update: a new current snapshot; a new name moves the slug (`renamed`). `expected`:
    the versions the caller means to write over (a form's, an If-Match); None, any."""
    project = project_locked(actor=actor, project_id=project_id)
    current = _current_locked(project=project, slug=slug)
    _check_expected(current, expected)
    fields = _fields(data, base=_stored(current))
    new_slug = service_slug(fields["name"])
    if new_slug != current.slug:
        clash = service_name_clash(
            project=project, name=fields["name"], service_id=current.service_id
        )
        if clash is not None:
            raise _name_conflict(fields["name"], clash)
    action = (
        ServiceSnapshot.ACTION_RENAMED
        if fields["name"] != current.name
        else ServiceSnapshot.ACTION_UPDATED
    )
    now = _after(current.valid_from)
    current.valid_until = now
    current.save(update_fields=["valid_until"])
    snapshot = _snapshot(
        service=current.service,
        project=project,
        version=current.version + 1,
        action=action,
        fields=fields,
        actor=actor,
        at=now,
    )
    _touch_project(project, actor=actor, at=now)
    return snapshot


@_conflicts_become_409
@transaction.atomic
def service_delete(
    *, actor: Actor, project_id: str, slug: str, expected: Collection[Version] | None = None
) -> None:
    """A tombstone snapshot: gone from now on, readable before; the name is free again.
    `expected` as for service_update."""
    project = project_locked(actor=actor, project_id=project_id)
    current = _current_locked(project=project, slug=slug)
    _check_expected(current, expected)
    now = _after(current.valid_from)
    current.valid_until = now
    current.save(update_fields=["valid_until"])
    _snapshot(
        service=current.service,
        project=project,
        version=current.version + 1,
        action=ServiceSnapshot.ACTION_DELETED,
        fields=_stored(current),
        actor=actor,
        at=now,
        deleted=True,
    )
    _touch_project(project, actor=actor, at=now, count_delta=-1)


def services_copy(*, source: Project, target: Project, actor: Actor, at: datetime) -> int:
    """Duplicate: the source's current services become new services of `target`, made by
    the actor at `at` (interface §7). Runs inside the duplicate's transaction."""
    current = list(
        ServiceSnapshot.objects.filter(
            project=source, valid_until__isnull=True, deleted=False
        ).order_by("slug")
    )
    services = [
        Service(project=target, created_by=actor.name, created_by_type=actor.type, created_at=at)
        for _ in current
    ]
    Service.objects.bulk_create(services)
    ServiceSnapshot.objects.bulk_create(
        [
            ServiceSnapshot(
                service=service,
                project=target,
                version=1,
                action=ServiceSnapshot.ACTION_CREATED,
                slug=snap.slug,
                actor=actor.name,
                actor_type=actor.type,
                valid_from=at,
                **_stored(snap),
            )
            for service, snap in zip(services, current, strict=True)
        ]
    )
    if current:
        target.service_count = len(current)
        target.save(update_fields=["service_count"])
    return len(current)
