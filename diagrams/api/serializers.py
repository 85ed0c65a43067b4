"""Request and response shapes of the /v1 diagrams endpoints (spec: Resources)."""

from django.core.validators import RegexValidator
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers
from rest_framework.exceptions import ErrorDetail

from archsvc.api.errors import NAME_REJECTED
from archsvc.api.params import iso
from archsvc.api.serializers import (
    FORBIDDEN_TEXT,
    NAME_BREAKS,
    NAME_BREAKS_MESSAGE,
    StrictBooleanField,
    StrictCharField,
    StrictSerializer,
)
from diagrams.models import Pin, Project
from diagrams.slugs import PROJECT_ID_RE


class ProjectCreateSerializer(StrictSerializer):
    name = StrictCharField(min_length=3, max_length=60, visible=True)
    description = StrictCharField(max_length=200, allow_blank=True, trim_whitespace=False)


class ProjectUpdateSerializer(StrictSerializer):
    name = StrictCharField(min_length=3, max_length=60, visible=True, required=False)
    description = StrictCharField(
        max_length=200, allow_blank=True, trim_whitespace=False, required=False
    )
    archived = StrictBooleanField(required=False)


class ProjectDuplicateSerializer(StrictSerializer):
    name = StrictCharField(min_length=3, max_length=60, visible=True, required=False)


@extend_schema_field({"type": "string", "format": "date-time", "nullable": True})
class IgnoredDateTimeField(serializers.Field):
    """A field the request may carry, as the schema says, and the server ignores whatever its
    value: the contract's "a `pinnedAt` sent by the client is ignored"."""

    def to_internal_value(self, data):
        return None

    def to_representation(self, value):
        return value


class PinnedProjectSerializer(StrictSerializer):
    # the validator, not a validate_ method: the schema then carries the pattern
    projectId = StrictCharField(  # noqa: N815
        min_length=8,
        max_length=60,
        validators=[RegexValidator(PROJECT_ID_RE, "Not a project id.")],
    )
    pinnedAt = IgnoredDateTimeField(required=False, allow_null=True)  # noqa: N815


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


# --- Services -------------------------------------------------------------------------------


EXTRAS_MAX, EXTRAS_KEY_MAX = 20, 100  # pairs; characters in a key (the spec, Limits)


class ExtrasField(serializers.DictField):
    """object string to string: at most 20 pairs, keys at most 100, values at most 500."""

    child = StrictCharField(max_length=500, allow_blank=True, trim_whitespace=False)

    def to_internal_value(self, data):
        if not isinstance(data, dict):
            self.fail("not_a_dict", input_type=type(data).__name__)
        errors = {}
        if len(data) > EXTRAS_MAX:
            raise serializers.ValidationError(f"At most {EXTRAS_MAX} extras.")
        # the key is what is wrong, so the violation echoes it (NAME_REJECTED), not its value
        for key in data:
            if len(key) > EXTRAS_KEY_MAX:
                message = f"Keys must be at most {EXTRAS_KEY_MAX} characters."
            elif FORBIDDEN_TEXT.search(key):
                message = "Keys may not contain control characters or invalid Unicode."
            elif NAME_BREAKS.search(key):
                message = "Keys are one line: " + NAME_BREAKS_MESSAGE.split(": ", 1)[1]
            else:
                continue
            shown = key.encode("utf-8", "replace").decode("utf-8")
            errors[shown] = [ErrorDetail(message, code=NAME_REJECTED)]
        if errors:
            raise serializers.ValidationError(errors)
        return super().to_internal_value(data)


# Lists the spec gives no bound: bounded here (docs/decisions.md), so that a body of a few
# MB cannot ask for a graph of 100,000 topics (16 s of CPU and 61 MB a render, found by a
# security review). Far above any real service: the largest benchmark architectures have 4.
MAX_TOPICS = 500  # consumed, and produced, by one service
MAX_FLOWS = 50  # flows of one service or topic


def _flow_list(**kwargs):
    return serializers.ListField(
        child=StrictCharField(min_length=1, max_length=100, visible=True),
        allow_null=True,
        max_length=MAX_FLOWS,
        **kwargs,
    )


class MessagingTopicSerializer(StrictSerializer):
    name = StrictCharField(min_length=1, max_length=255, visible=True)
    category = StrictCharField(
        min_length=1, max_length=60, visible=True, allow_null=True, required=False
    )
    owner = StrictCharField(
        min_length=1, max_length=60, visible=True, allow_null=True, required=False
    )
    flows = _flow_list(required=False)
    extras = ExtrasField(required=False)

    def validate(self, attrs):
        # a topic is always whole: DRF's partial mode (PUT) reaches nested serializers too
        if "name" not in attrs:
            raise serializers.ValidationError({"name": ["This field is required."]})
        return attrs


def _topics(**kwargs):
    return MessagingTopicSerializer(many=True, max_length=MAX_TOPICS, **kwargs)


class ServiceWriteSerializer(StrictSerializer):
    """A service as written. Creating one (POST) requires its name; an update (PUT) is
    partial: every field is optional, and a field left out keeps its stored value."""

    # (ServiceCreate, and ServiceUpdate with partial=True; the docstring is the schema's
    # description of both, on the docs page)

    name = StrictCharField(min_length=1, max_length=60, visible=True)
    description = StrictCharField(
        max_length=200, allow_null=True, allow_blank=True, trim_whitespace=False, required=False
    )
    category = StrictCharField(
        min_length=1, max_length=60, visible=True, allow_null=True, required=False
    )
    owner = StrictCharField(
        min_length=1, max_length=60, visible=True, allow_null=True, required=False
    )
    flows = _flow_list(required=False)
    consumes = _topics(required=False)
    produces = _topics(required=False)
    extras = ExtrasField(allow_null=True, required=False)

    def validate(self, attrs):
        errors = {}
        for direction in ("consumes", "produces"):
            seen: set[str] = set()
            for index, topic in enumerate(attrs.get(direction) or []):
                if topic["name"] in seen:
                    errors.setdefault(direction, {})[index] = {
                        "name": ["The same topic is listed twice."]
                    }
                seen.add(topic["name"])
        if errors:
            raise serializers.ValidationError(errors)
        return attrs


class ServiceCreateSerializer(ServiceWriteSerializer):
    pass


class ServiceUpdateSerializer(ServiceWriteSerializer):
    def __init__(self, *args, **kwargs):
        kwargs["partial"] = True
        super().__init__(*args, **kwargs)


class ServiceSerializer(serializers.Serializer):
    """Service (ServiceGet), for the schema."""

    slug = serializers.CharField()
    name = serializers.CharField()
    description = serializers.CharField(required=False)
    category = serializers.CharField(required=False)
    owner = serializers.CharField(required=False)
    flows = serializers.ListField(child=serializers.CharField())
    consumes = MessagingTopicSerializer(many=True)
    produces = MessagingTopicSerializer(many=True)
    extras = serializers.DictField(child=serializers.CharField())
    createdBy = serializers.CharField()  # noqa: N815
    createdByType = serializers.ChoiceField(choices=["MEMBER", "API_KEY"])  # noqa: N815
    createdAt = serializers.DateTimeField()  # noqa: N815
    updatedBy = serializers.CharField()  # noqa: N815
    updatedByType = serializers.ChoiceField(choices=["MEMBER", "API_KEY"])  # noqa: N815
    updatedAt = serializers.DateTimeField()  # noqa: N815
    validFrom = serializers.DateTimeField()  # noqa: N815
    validUntil = serializers.DateTimeField(allow_null=True)  # noqa: N815


class ServiceRawSerializer(serializers.Serializer):
    snapshotId = serializers.UUIDField()  # noqa: N815
    serviceId = serializers.UUIDField()  # noqa: N815
    projectId = serializers.CharField()  # noqa: N815
    version = serializers.IntegerField()
    deleted = serializers.BooleanField()
    slug = serializers.CharField()
    name = serializers.CharField()
    description = serializers.CharField(allow_null=True)
    category = serializers.CharField(allow_null=True)
    owner = serializers.CharField(allow_null=True)
    flows = serializers.ListField(child=serializers.CharField(), allow_null=True)
    consumes = serializers.ListField(child=serializers.DictField())
    produces = serializers.ListField(child=serializers.DictField())
    extras = serializers.DictField(allow_null=True)
    createdBy = serializers.CharField()  # noqa: N815
    createdByType = serializers.CharField()  # noqa: N815
    createdAt = serializers.DateTimeField()  # noqa: N815
    updatedBy = serializers.CharField()  # noqa: N815
    updatedByType = serializers.CharField()  # noqa: N815
    validFrom = serializers.DateTimeField()  # noqa: N815
    validUntil = serializers.DateTimeField(allow_null=True)  # noqa: N815


class HistoryEventSerializer(serializers.Serializer):
    snapshotId = serializers.UUIDField()  # noqa: N815
    serviceId = serializers.UUIDField()  # noqa: N815
    serviceSlug = serializers.CharField()  # noqa: N815
    serviceName = serializers.CharField()  # noqa: N815
    action = serializers.ChoiceField(choices=["created", "updated", "renamed", "deleted"])
    actor = serializers.CharField()
    actorType = serializers.ChoiceField(choices=["MEMBER", "API_KEY"])  # noqa: N815
    at = serializers.DateTimeField()


class ProjectHistorySerializer(serializers.Serializer):
    data = HistoryEventSerializer(many=True)
    page = serializers.IntegerField(min_value=0)
    size = serializers.IntegerField(min_value=1)
    total = serializers.IntegerField(min_value=0)
    totalPages = serializers.IntegerField(min_value=0)  # noqa: N815
    first = serializers.BooleanField()
    last = serializers.BooleanField()


class FieldChangeSerializer(serializers.Serializer):
    field = serializers.CharField()
    before = serializers.JSONField(allow_null=True)
    after = serializers.JSONField(allow_null=True)


class ServiceSnapshotDiffSerializer(serializers.Serializer):
    snapshotId = serializers.UUIDField()  # noqa: N815
    previousSnapshotId = serializers.UUIDField(allow_null=True)  # noqa: N815
    serviceSlug = serializers.CharField()  # noqa: N815
    action = serializers.ChoiceField(choices=["created", "updated", "renamed", "deleted"])
    changes = FieldChangeSerializer(many=True)


class ProjectEntitiesSerializer(serializers.Serializer):
    services = serializers.DictField(child=serializers.DictField())
    topics = serializers.DictField(child=serializers.DictField())
    categories = serializers.DictField(child=serializers.DictField())
    owners = serializers.DictField(child=serializers.DictField())
    flows = serializers.DictField(child=serializers.DictField())


GRAPH_NODE_TYPES = ["service", "messaging"]
GRAPH_EDGE_KINDS = ["produces", "consumes"]


class GraphNodeSerializer(serializers.Serializer):
    id = serializers.CharField()
    type = serializers.ChoiceField(choices=GRAPH_NODE_TYPES)
    label = serializers.CharField()
    category = serializers.CharField(allow_null=True, help_text="category name")
    owner = serializers.CharField(allow_null=True, help_text="owner team")
    color = serializers.CharField()
    x = serializers.FloatField(help_text="left edge, SVG units")
    y = serializers.FloatField(help_text="top edge, SVG units")
    width = serializers.FloatField()
    height = serializers.FloatField()

    class Meta:
        ref_name = "GraphNode"


class GraphEdgeSerializer(serializers.Serializer):
    id = serializers.CharField()
    source = serializers.CharField()
    target = serializers.CharField()
    kind = serializers.ChoiceField(
        choices=GRAPH_EDGE_KINDS,
        help_text="the way data flows: service -> topic (produces), topic -> service (consumes)",
    )
    points = serializers.ListField(
        child=serializers.ListField(child=serializers.FloatField(), min_length=2, max_length=2),
        help_text="the route, [x, y] pairs in SVG units",
    )

    class Meta:
        ref_name = "GraphEdge"


class GraphCategorySerializer(serializers.Serializer):
    id = serializers.CharField()
    name = serializers.CharField()
    color = serializers.CharField()

    class Meta:
        ref_name = "GraphCategory"


class ProjectGraphSerializer(serializers.Serializer):
    """ProjectGraph (interface §9), for the schema: the view sends the cached bytes."""

    projectId = serializers.CharField()  # noqa: N815
    at = serializers.DateTimeField(allow_null=True)
    filteredIds = serializers.ListField(child=serializers.CharField())  # noqa: N815
    depth = serializers.IntegerField(allow_null=True)
    width = serializers.FloatField()
    height = serializers.FloatField()
    nodes = GraphNodeSerializer(many=True)
    edges = GraphEdgeSerializer(many=True)
    categories = GraphCategorySerializer(many=True)

    class Meta:
        ref_name = "ProjectGraph"


class ChatTurnSerializer(StrictSerializer):
    role = serializers.ChoiceField(choices=["user", "assistant"])
    content = StrictCharField(min_length=1, max_length=4000, trim_whitespace=False)


class AiChatRequestSerializer(StrictSerializer):
    message = StrictCharField(min_length=1, max_length=4000, trim_whitespace=False)
    history = ChatTurnSerializer(many=True, required=False, max_length=20)

    def validate_message(self, value):
        if not value.strip():
            raise serializers.ValidationError("The message is empty.")
        return value


class AiChatResponseSerializer(serializers.Serializer):
    reply = serializers.CharField()
    references = serializers.ListField(child=serializers.CharField())
    creditsRemaining = serializers.IntegerField(min_value=0)  # noqa: N815
