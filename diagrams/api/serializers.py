"""Request and response shapes of the /v1 diagrams endpoints (spec: Resources)."""

from rest_framework import serializers

from archsvc.api.params import iso
from archsvc.api.serializers import StrictBooleanField, StrictCharField, StrictSerializer
from diagrams.models import Pin, Project
from diagrams.slugs import PROJECT_ID_RE


class ProjectCreateSerializer(StrictSerializer):
    name = StrictCharField(min_length=3, max_length=60)
    description = StrictCharField(max_length=200, allow_blank=True, trim_whitespace=False)


class ProjectUpdateSerializer(StrictSerializer):
    name = StrictCharField(min_length=3, max_length=60, required=False)
    description = StrictCharField(max_length=200, allow_blank=True, trim_whitespace=False,
                                  required=False)
    archived = StrictBooleanField(required=False)


class ProjectDuplicateSerializer(StrictSerializer):
    name = StrictCharField(min_length=3, max_length=60, required=False)


class PinnedProjectSerializer(StrictSerializer):
    projectId = StrictCharField(min_length=8, max_length=60)  # noqa: N815
    pinnedAt = serializers.DateTimeField(required=False, allow_null=True)  # noqa: N815

    def validate_projectId(self, value):  # noqa: N802
        if not PROJECT_ID_RE.match(value):
            raise serializers.ValidationError("Not a project id.")
        return value


class ProjectSerializer(serializers.Serializer):
    """Project (ProjectGet). `pinned` and `isOwner` are for the caller."""

    id = serializers.CharField()
    name = serializers.CharField()
    description = serializers.CharField(allow_blank=True)
    archived = serializers.BooleanField()
    pinned = serializers.BooleanField()
    serviceCount = serializers.IntegerField(min_value=0)  # noqa: N815
    isOwner = serializers.BooleanField()  # noqa: N815
    createdBy = serializers.CharField()  # noqa: N815
    createdByType = serializers.ChoiceField(choices=["MEMBER", "API_KEY"])  # noqa: N815
    updatedBy = serializers.CharField()  # noqa: N815
    updatedByType = serializers.ChoiceField(choices=["MEMBER", "API_KEY"])  # noqa: N815
    createdAt = serializers.DateTimeField()  # noqa: N815
    updatedAt = serializers.DateTimeField()  # noqa: N815


class ProjectPageSerializer(serializers.Serializer):
    data = ProjectSerializer(many=True)
    page = serializers.IntegerField(min_value=0)
    size = serializers.IntegerField(min_value=1)
    total = serializers.IntegerField(min_value=0)
    totalPages = serializers.IntegerField(min_value=0)  # noqa: N815
    first = serializers.BooleanField()
    last = serializers.BooleanField()


def project_json(project: Project, *, actor) -> dict:
    """The wire form of a project, for the caller (no nested services)."""
    return {
        "id": project.id,
        "name": project.name,
        "description": project.description,
        "archived": project.archived,
        "pinned": bool(getattr(project, "is_pinned", False)),
        "serviceCount": project.service_count,
        "isOwner": actor.is_creator(project.created_by_ref),
        "createdBy": project.created_by,
        "createdByType": project.created_by_type,
        "updatedBy": project.updated_by,
        "updatedByType": project.updated_by_type,
        "createdAt": iso(project.created_at),
        "updatedAt": iso(project.updated_at),
    }


def pin_json(pin: Pin) -> dict:
    return {"projectId": pin.project_id, "pinnedAt": iso(pin.pinned_at)}
