"""Reads for diagrams: projects and pins (services and history join them later)."""

from django.db.models import Exists, OuterRef, QuerySet

from accounts.actors import Actor
from accounts.models import Organization
from archsvc.api.errors import ProjectNotFound
from diagrams.models import Pin, Project
from diagrams.slugs import is_project_id


def project_count(*, organization: Organization) -> int:
    """How many projects the organization has, archived ones included (CONTRACT 4)."""
    return Project.objects.filter(organization=organization).count()


def _projects_for(actor: Actor) -> QuerySet[Project]:
    """The actor's organization's projects, each annotated with `is_pinned` for the actor."""
    return Project.objects.filter(organization_id=actor.organization_id).annotate(
        is_pinned=Exists(Pin.objects.filter(project=OuterRef("pk"), actor_ref=actor.ref))
    )


def project_get(*, actor: Actor, project_id: str) -> Project:
    """One project of the actor's organization; a malformed id, a missing project and
    another organization's project are the same 404."""
    if not isinstance(project_id, str) or not is_project_id(project_id):
        raise ProjectNotFound()
    try:
        return _projects_for(actor).get(pk=project_id)
    except Project.DoesNotExist:
        raise ProjectNotFound() from None


def project_list(*, actor: Actor, page: int, size: int, pinned: bool | None = None,
                 archived: bool | None = None, created_by: str | None = None,
                 query: str | None = None) -> tuple[list[Project], int]:
    """A page of projects, most recently updated first, then by id; and the total."""
    projects = _projects_for(actor)
    if pinned is not None:
        projects = projects.filter(is_pinned=pinned)
    if archived is not None:
        projects = projects.filter(archived=archived)
    if created_by is not None:
        projects = projects.filter(created_by=created_by)
    if query:
        projects = projects.filter(name__icontains=query)
    total = projects.count()
    offset = page * size
    items = list(projects.order_by("-updated_at", "id")[offset:offset + size]) \
        if offset < total else []
    return items, total


def pin_list(*, actor: Actor) -> list[Pin]:
    """The actor's pins in its organization, most recently pinned first."""
    return list(
        Pin.objects.filter(actor_ref=actor.ref, project__organization_id=actor.organization_id)
        .order_by("-pinned_at", "-id")
    )
