"""Public sharing: the token's writes and reads (interface §3, 12)."""

import uuid

from django.db import transaction
from django.utils import timezone

from accounts.actors import Actor
from archsvc.exceptions import PublicShareTokenNotFound
from archsvc.hotpath import reconnecting
from diagrams.models import Project, PublicShareToken
from diagrams.project_writes import project_for_management
from diagrams.selectors import project_get


@transaction.atomic
def share_token_rotate(*, actor: Actor, project_id: str) -> PublicShareToken:
    """Create the project's token, or replace it with a new UUID v4: earlier links and
    embeds stop working at once."""
    project = project_for_management(actor=actor, project_id=project_id)
    share, _ = PublicShareToken.objects.update_or_create(
        project=project,
        defaults={
            "token": uuid.uuid4(),
            "created_at": timezone.now(),
            "created_by": actor.name,
            "created_by_type": actor.type,
        },
    )
    return share


def share_token_get(*, actor: Actor, project_id: str) -> PublicShareToken:
    project = project_get(actor=actor, project_id=project_id)
    share = PublicShareToken.objects.filter(project=project).first()
    if share is None:
        raise PublicShareTokenNotFound()
    return share


@transaction.atomic
def share_token_revoke(*, actor: Actor, project_id: str) -> None:
    """Revoke: links and embeds stop working at once."""
    project = project_for_management(actor=actor, project_id=project_id)
    if not PublicShareToken.objects.filter(project=project).delete()[0]:
        raise PublicShareTokenNotFound()


def shared_project(*, token: str) -> Project | None:
    """The project a token shares, or None for a malformed, unknown, replaced or revoked
    one. Read from the database on every request, so a change holds on every worker."""
    try:
        value = uuid.UUID(str(token))
    except ValueError:
        return None
    share = reconnecting(
        lambda: PublicShareToken.objects.select_related("project").filter(token=value).first()
    )
    return share.project if share else None
