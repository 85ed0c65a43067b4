"""A service's identity and its snapshots (the current one's `valid_until` null). The database
holds the invariants: one current snapshot a service, one live service a slug, unique versions."""

import uuid

from django.db import models
from django.db.models import Q

from diagrams.models.projects import ACTOR_TYPES, Project


class Service(models.Model):
    """The identity that outlives renames; a deleted name reused starts a new one."""

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    project = models.ForeignKey(Project, on_delete=models.CASCADE, related_name="services")
    created_by = models.CharField(max_length=254)
    created_by_type = models.CharField(max_length=8, choices=ACTOR_TYPES)
    created_at = models.DateTimeField()

    def __str__(self) -> str:
        return str(self.id)


class ServiceSnapshot(models.Model):
    ACTION_CREATED = "created"
    ACTION_UPDATED = "updated"
    ACTION_RENAMED = "renamed"
    ACTION_DELETED = "deleted"
    ACTIONS = [(a, a) for a in (ACTION_CREATED, ACTION_UPDATED, ACTION_RENAMED, ACTION_DELETED)]

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    service = models.ForeignKey(Service, on_delete=models.CASCADE, related_name="snapshots")
    # Denormalised from the service so that a project's state at any time is one query.
    project = models.ForeignKey(Project, on_delete=models.CASCADE, related_name="snapshots")
    version = models.PositiveIntegerField()
    action = models.CharField(max_length=8, choices=ACTIONS)
    deleted = models.BooleanField(default=False)
    slug = models.CharField(max_length=100)
    name = models.CharField(max_length=60)
    description = models.CharField(max_length=200, null=True, blank=True)
    category = models.CharField(max_length=60, null=True, blank=True)
    owner = models.CharField(max_length=60, null=True, blank=True)
    flows = models.JSONField(null=True, blank=True)
    consumes = models.JSONField(default=list)
    produces = models.JSONField(default=list)
    extras = models.JSONField(null=True, blank=True)
    actor = models.CharField(max_length=254)
    actor_type = models.CharField(max_length=8, choices=ACTOR_TYPES)
    valid_from = models.DateTimeField()
    valid_until = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["service"],
                condition=Q(valid_until__isnull=True),
                name="snapshot_one_current",
            ),
            models.UniqueConstraint(fields=["service", "version"], name="snapshot_version"),
            models.UniqueConstraint(
                fields=["project", "slug"],
                condition=Q(valid_until__isnull=True, deleted=False),
                name="snapshot_live_slug",
            ),
            models.CheckConstraint(
                condition=Q(valid_until__isnull=True) | Q(valid_until__gt=models.F("valid_from")),
                name="snapshot_valid_range",
            ),
        ]
        indexes = [
            # time travel: per service, the last snapshot that began before `at`
            models.Index(fields=["service", "-valid_from"], name="snapshot_service_time"),
            # a slug as of `at`
            models.Index(fields=["project", "slug", "-valid_from"], name="snapshot_slug_time"),
            # history, newest first
            models.Index(fields=["project", "-valid_from", "-version"], name="snapshot_history"),
            # every project's, newest first: the operators' list in admin ("who changed what")
            models.Index(fields=["-valid_from", "-version"], name="snapshot_recent"),
        ]

    def __str__(self) -> str:
        return f"{self.slug} v{self.version}"
