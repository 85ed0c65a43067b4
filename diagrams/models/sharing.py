"""A project's public share token: whoever holds it can view the project's graph."""

import uuid

from django.db import models
from django.utils import timezone

from diagrams.models.projects import ACTOR_TYPES, Project


class PublicShareToken(models.Model):
    """At most one per project. Replacing it gives it a new UUID (the old links die at
    once); revoking deletes it."""

    project = models.OneToOneField(Project, on_delete=models.CASCADE, related_name="share_token")
    token = models.UUIDField(unique=True, default=uuid.uuid4)
    created_at = models.DateTimeField(default=timezone.now)
    created_by = models.CharField(max_length=254)
    created_by_type = models.CharField(max_length=8, choices=ACTOR_TYPES)

    def __str__(self) -> str:
        return f"share token of {self.project_id}"
