"""Projects (containers of services) and the actors' pins."""

from django.db import models
from django.utils import timezone

from accounts.models import Organization

ACTOR_TYPES = [("MEMBER", "MEMBER"), ("API_KEY", "API_KEY")]


class Project(models.Model):
    id = models.CharField(primary_key=True, max_length=60)
    organization = models.ForeignKey(
        Organization, on_delete=models.CASCADE, related_name="projects"
    )
    name = models.CharField(max_length=60)
    description = models.CharField(max_length=200, blank=True, default="")
    archived = models.BooleanField(default=False)
    # Kept by every service write in the same transaction, so lists need no count query.
    service_count = models.PositiveIntegerField(default=0)
    created_by = models.CharField(max_length=254)
    created_by_type = models.CharField(max_length=8, choices=ACTOR_TYPES)
    # Who owns it for permissions: `member:<user id>` or `key:<key id>` (a name can be
    # reused by another key after a revocation; this cannot).
    created_by_ref = models.CharField(max_length=64)
    updated_by = models.CharField(max_length=254)
    updated_by_type = models.CharField(max_length=8, choices=ACTOR_TYPES)
    created_at = models.DateTimeField(default=timezone.now)
    updated_at = models.DateTimeField(default=timezone.now)

    class Meta:
        indexes = [
            models.Index(fields=["organization", "-updated_at", "id"], name="project_recent"),
            models.Index(fields=["organization", "created_by"], name="project_creator"),
        ]

    def __str__(self) -> str:
        return self.id


class Pin(models.Model):
    """A project pinned by one actor (a member or an API key: pins belong to the actor)."""

    project = models.ForeignKey(Project, on_delete=models.CASCADE, related_name="pins")
    actor_ref = models.CharField(max_length=64)
    pinned_at = models.DateTimeField(default=timezone.now)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["project", "actor_ref"], name="pin_unique"),
        ]
        indexes = [models.Index(fields=["actor_ref", "-pinned_at"], name="pin_recent")]

    def __str__(self) -> str:
        return f"{self.actor_ref} pinned {self.project_id}"
