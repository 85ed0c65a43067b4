"""Writes for diagrams: projects and pins. Each write names its actor explicitly."""

import logging

from django.db import IntegrityError, transaction
from django.utils import timezone

from accounts.actors import Actor
from accounts.models import Organization
from archsvc.exceptions import Forbidden, NotFound, ProjectLimitReached
from billing.selectors import bigger_plan_exists, organization_plan, plan_limits
from diagrams.models import Pin, Project, ServiceSnapshot
from diagrams.selectors import project_get
from diagrams.service_writes import project_locked, services_copy
from diagrams.slugs import project_id_new

logger = logging.getLogger("archsvc.projects")


def _reserve_project_slot(*, organization_id: int) -> None:
    """Lock the organization row and check the plan's project limit. Concurrent creates
    queue on the lock, so exactly `maxProjects` of them can succeed (interface §14)."""
    organization = Organization.objects.select_for_update().get(pk=organization_id)
    plan = organization_plan(organization=organization)
    limit = plan_limits(plan=plan)["max_projects"]
    count = Project.objects.filter(organization_id=organization_id).count()
    if count >= limit:
        # what a script can do about it (archiving does not free a slot): over the limit
        # (a smaller plan since), one deletion is not enough; on the biggest plan there is
        # no bigger one to move to
        to_delete = count - limit + 1
        delete = "one it no longer needs" if to_delete == 1 else f"{to_delete:,} it no longer needs"
        bigger = bigger_plan_exists(plan=plan, limit="max_projects")
        raise ProjectLimitReached(
            f"The {plan} plan allows {limit:,} projects.",
            details=f"This organization has {count:,} (archived ones count too): delete "
            f"{delete}{', or move to a bigger plan' if bigger else ''}. GET /v1/limits gives "
            "the numbers.",
        )


def _new_project(*, actor: Actor, name: str, description: str) -> Project:
    now = timezone.now()
    for _ in range(5):
        project_id = project_id_new(name)
        if not Project.objects.filter(pk=project_id).exists():
            break
    project = Project.objects.create(
        id=project_id,
        organization_id=actor.organization_id,
        name=name,
        description=description,
        created_by=actor.name,
        created_by_type=actor.type,
        created_by_ref=actor.ref,
        updated_by=actor.name,
        updated_by_type=actor.type,
        created_at=now,
        updated_at=now,
    )
    project.is_pinned = False
    return project


@transaction.atomic
def project_create(*, actor: Actor, name: str, description: str) -> Project:
    """A new project of the actor's organization, within the plan's limit."""
    _reserve_project_slot(organization_id=actor.organization_id)
    return _new_project(actor=actor, name=name, description=description)


MANAGE_FORBIDDEN = (
    "Only an admin, the project's creator or a key with projects:manage can change this project."
)


def project_for_management(*, actor: Actor, project_id: str) -> Project:
    """The project locked for this transaction, if the actor may manage it; 404 before 403
    (interface §15)."""
    project = project_locked(actor=actor, project_id=project_id)
    if not actor.can_manage_project(created_by_ref=project.created_by_ref):
        raise Forbidden(MANAGE_FORBIDDEN)
    return project


def project_update(*, actor: Actor, project_id: str, changes) -> Project:
    """Partial update (name, description, archived); `updatedAt`/`updatedBy` move only when
    something changed. `changes` may be a callable, read after the 404 and the 403."""
    with transaction.atomic():
        project = project_for_management(actor=actor, project_id=project_id)
        asked = changes() if callable(changes) else changes
        changes = {
            field: value
            for field in ("name", "description", "archived")
            if (value := asked.get(field)) is not None and getattr(project, field) != value
        }
        if changes:
            for field, value in changes.items():
                setattr(project, field, value)
            project.updated_at = timezone.now()
            project.updated_by, project.updated_by_type = actor.name, actor.type
            project.save(update_fields=[*changes, "updated_at", "updated_by", "updated_by_type"])
    return project_get(actor=actor, project_id=project_id)


@transaction.atomic
def project_delete(*, actor: Actor, project_id: str) -> None:
    """Irreversible: the project and everything in it, its pins and its share token."""
    project = project_for_management(actor=actor, project_id=project_id)
    project_delete_logged(project, by=f"{actor.name} ({actor.ref})")


def project_delete_logged(project: Project, *, by: str) -> None:
    """Delete, and log who deleted what (nothing of the project is left to look at after); the
    app, the API and Django admin all delete through here."""
    services = ServiceSnapshot.objects.filter(
        project=project, valid_until__isnull=True, deleted=False
    ).count()
    changes = ServiceSnapshot.objects.filter(project=project).count()
    project_id, organization = project.pk, project.organization.slug
    project.delete()
    logger.info(
        "project deleted: %s (%r) of %s, %d services, %d changes in its history, by %s",
        project_id,
        project.name,
        organization,
        services,
        changes,
        by,
    )


@transaction.atomic
def project_duplicate(*, actor: Actor, project_id: str, name: str | None = None) -> Project:
    """A copy made by the actor now: not archived, not pinned, no share token."""
    source = project_get(actor=actor, project_id=project_id)
    _reserve_project_slot(organization_id=actor.organization_id)
    copy = _new_project(actor=actor, name=name or source.name, description=source.description)
    services_copy(source=source, target=copy, actor=actor, at=copy.created_at)
    return copy


def pin_create(*, actor: Actor, project_id: str) -> Pin:
    """Pin for the actor; pinning again keeps the first `pinnedAt`."""
    project = project_get(actor=actor, project_id=project_id)
    pin = Pin.objects.filter(project=project, actor_ref=actor.ref).first()
    if pin is not None:
        return pin
    try:
        with transaction.atomic():
            return Pin.objects.create(project=project, actor_ref=actor.ref)
    except IntegrityError:  # a concurrent pin of the same project won
        return Pin.objects.get(project=project, actor_ref=actor.ref)


def pin_delete(*, actor: Actor, project_id: str) -> None:
    project = project_get(actor=actor, project_id=project_id)
    deleted, _ = Pin.objects.filter(project=project, actor_ref=actor.ref).delete()
    if not deleted:
        raise NotFound("The project is not pinned.")
