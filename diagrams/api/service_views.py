"""The /v1 services, entities and history endpoints."""

import re

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework.response import Response

from archsvc.api.body import read_body
from archsvc.api.encoding import accepts_gzip, cached_response, entity_tags
from archsvc.api.pagination import page_envelope
from archsvc.api.params import iso, query_at, query_int
from archsvc.api.schema import IF_MATCH, IF_NONE_MATCH, NOT_MODIFIED, error_responses
from archsvc.exceptions import BadRequest, Conflict, ServiceNotFound
from diagrams import drawings, selectors, service_writes
from diagrams.api.base import ProjectAPIView
from diagrams.api.serializers import (
    ProjectEntitiesSerializer,
    ProjectHistorySerializer,
    ServiceCreateSerializer,
    ServiceRawSerializer,
    ServiceSerializer,
    ServiceSnapshotDiffSerializer,
    ServiceUpdateSerializer,
)
from diagrams.api.views import PROJECT_ID
from diagrams.models import ServiceSnapshot
from diagrams.service_writes import ServiceChangedMeanwhile, Version

SLUG = OpenApiParameter("serviceSlug", OpenApiTypes.STR, OpenApiParameter.PATH)
SNAPSHOT_ID = OpenApiParameter("snapshotId", OpenApiTypes.UUID, OpenApiParameter.PATH)
AT = OpenApiParameter(
    "at", OpenApiTypes.DATETIME, description="state at this time (UTC when no offset); absent: now"
)


def topic_json(topic: dict) -> dict:
    out = {"name": topic["name"]}
    for key in ("category", "owner", "flows"):
        if topic.get(key) is not None:
            out[key] = topic[key]
    if topic.get("extras"):
        out["extras"] = topic["extras"]
    return out


def service_json(snapshot: ServiceSnapshot) -> dict:
    """Service (ServiceGet): unset description, category and owner are left out; flows,
    consumes, produces and extras are always there (interface §7)."""
    service = snapshot.service
    out = {"slug": snapshot.slug, "name": snapshot.name}
    for key in ("description", "category", "owner"):
        if getattr(snapshot, key) is not None:
            out[key] = getattr(snapshot, key)
    out.update(
        {
            "flows": list(snapshot.flows or []),
            "consumes": [topic_json(t) for t in snapshot.consumes or []],
            "produces": [topic_json(t) for t in snapshot.produces or []],
            "extras": dict(snapshot.extras or {}),
            "createdBy": service.created_by,
            "createdByType": service.created_by_type,
            "createdAt": iso(service.created_at),
            "updatedBy": snapshot.actor,
            "updatedByType": snapshot.actor_type,
            "updatedAt": iso(snapshot.valid_from),
            "validFrom": iso(snapshot.valid_from),
            "validUntil": iso(snapshot.valid_until),
        }
    )
    return out


def service_raw_json(snapshot: ServiceSnapshot) -> dict:
    """ServiceRaw: the stored row as it is, nulls included."""
    service = snapshot.service
    return {
        "snapshotId": str(snapshot.pk),
        "serviceId": str(snapshot.service_id),
        "projectId": snapshot.project_id,
        "version": snapshot.version,
        "deleted": snapshot.deleted,
        "slug": snapshot.slug,
        **selectors.snapshot_fields(snapshot),
        "createdBy": service.created_by,
        "createdByType": service.created_by_type,
        "createdAt": iso(service.created_at),
        "updatedBy": snapshot.actor,
        "updatedByType": snapshot.actor_type,
        "validFrom": iso(snapshot.valid_from),
        "validUntil": iso(snapshot.valid_until),
    }


def history_event_json(snapshot: ServiceSnapshot) -> dict:
    return {
        "snapshotId": str(snapshot.pk),
        "serviceId": str(snapshot.service_id),
        "serviceSlug": snapshot.slug,
        "serviceName": snapshot.name,
        "action": snapshot.action,
        "actor": snapshot.actor,
        "actorType": snapshot.actor_type,
        "at": iso(snapshot.valid_from),
    }


# A service's entity tag says which service (its id: one deleted and added again under the
# same name is another) at which version. Every read and write of one service sends it; PUT
# and DELETE take it back in If-Match and then write only over that version, so a script's
# read-change-write cannot undo a change made after its read (docs/decisions.md).
def service_etag(snapshot: ServiceSnapshot) -> str:
    return f'"{snapshot.service_id}-{snapshot.version}"'


_SERVICE_TAG = re.compile(r'"([0-9a-f]{8}-(?:[0-9a-f]{4}-){3}[0-9a-f]{12})-([0-9]{1,9})"')


def if_match(request) -> set[Version] | None:
    """The service states an If-Match header names (RFC 9110 13.1.1), None when absent, empty or
    `*`; weak and foreign tags match nothing, and a header with no entity tag at all is 400."""
    header = request.META.get("HTTP_IF_MATCH", "").strip()
    if not header:
        return None
    tags = entity_tags(header) if len(header) <= 4000 else []
    if tags == ["*"]:
        return None
    if not tags:
        raise BadRequest(
            "If-Match holds no entity tag: send the ETag of the service as read, quotes "
            'included (If-Match: "<serviceId>-<version>"), or leave the header out.'
        )
    return {(match[1], int(match[2])) for tag in tags if (match := _SERVICE_TAG.fullmatch(tag))}


def _changed_meanwhile(changed: ServiceChangedMeanwhile, slug: str) -> Conflict:
    current = changed.current
    return Conflict(
        f"Service '{slug}' changed since it was read (If-Match); nothing was written. "
        "Read it again, then retry.",
        details=f"It is now at {service_etag(current)}: version {current.version}, by "
        f"{current.actor} at {iso(current.valid_from)}.",
    )


class ServiceListView(ProjectAPIView):
    @extend_schema(
        operation_id="listServices",
        tags=["services"],
        parameters=[PROJECT_ID, AT, IF_NONE_MATCH],
        responses={200: ServiceSerializer(many=True), **NOT_MODIFIED, **error_responses(400, 404)},
    )
    def get(self, request, project_id):
        project = self.project(request, project_id)
        at = query_at(request)
        gzipped = accepts_gzip(request)
        cached = drawings.project_read_cached(
            project=project,
            at=at,
            kind="services",
            gzipped=gzipped,
            compute=lambda: [
                service_json(s) for s in selectors.services_at(project=project, at=at)
            ],
        )
        return cached_response(request, cached, content_type="application/json")

    @extend_schema(
        operation_id="createService",
        tags=["services"],
        summary="Add a service",
        description="The slug (the service's address) is made from the name; a name whose "
        "slug another live service has is 409 `service_name_conflict`. Topics named in "
        "`consumes` and `produces` need no creating: they exist because services name them.",
        parameters=[PROJECT_ID],
        request=ServiceCreateSerializer,
        responses={200: ServiceSerializer, **error_responses(400, 404, 409)},
    )
    def post(self, request, project_id):
        self.project(request, project_id)
        data = read_body(request, ServiceCreateSerializer, required=False)
        snapshot = service_writes.service_create(
            actor=request.user, project_id=project_id, data=data
        )
        return Response(service_json(snapshot), headers={"ETag": service_etag(snapshot)})


def _missing(project, slug: str, at) -> ServiceNotFound:
    """404 `service_not_found` naming the slug asked for and, for the current state, what
    became of it: a script keyed on an old slug learns the new one."""
    shown = slug.encode("utf-8", "replace").decode("utf-8")[:100]
    if at is not None:
        return ServiceNotFound(f"No service '{shown}' in this project at that time.")
    renamed = selectors.service_renamed_from(project=project, slug=slug)
    if renamed is not None:
        return ServiceNotFound(
            f"No service '{shown}': it was renamed, and is now '{renamed.slug}' ({renamed.name})."
        )
    deleted = selectors.service_deleted_as(project=project, slug=slug)
    if deleted is not None:
        return ServiceNotFound(
            f"No service '{shown}': it was deleted at {iso(deleted.valid_from)}."
        )
    return ServiceNotFound(f"No service '{shown}' in this project.")


class ServiceDetailView(ProjectAPIView):
    @extend_schema(
        operation_id="getService",
        tags=["services"],
        parameters=[PROJECT_ID, SLUG, AT],
        responses={200: ServiceSerializer, **error_responses(400, 404)},
    )
    def get(self, request, project_id, slug):
        project = self.project(request, project_id)
        at = query_at(request)
        try:
            snapshot = selectors.service_at(project=project, slug=slug, at=at)
        except ServiceNotFound:
            raise _missing(project, slug, at) from None
        return Response(service_json(snapshot), headers={"ETag": service_etag(snapshot)})

    @extend_schema(
        operation_id="updateService",
        tags=["services"],
        summary="Change a service (partial)",
        description="Only the fields sent change: an omitted field keeps its value, `null` "
        "clears `description`, `category`, `owner`, `flows` or `extras`; a list or `extras` "
        "sent replaces the old one whole. A new `name` changes the slug (the old one is then "
        "404). Every successful PUT is kept as a new snapshot in the history, even one that "
        "changes nothing: a job that runs often can `GET` and compare first. Send the "
        "`ETag` of that `GET` back in `If-Match`, and a change made by someone else since "
        "is not undone: the PUT is 409 `conflict` instead.",
        parameters=[PROJECT_ID, SLUG, IF_MATCH],
        request=ServiceUpdateSerializer,
        responses={200: ServiceSerializer, **error_responses(400, 404, 409)},
    )
    def put(self, request, project_id, slug):
        project = self.project(request, project_id)
        expected = if_match(request)
        data = read_body(request, ServiceUpdateSerializer)
        try:
            snapshot = service_writes.service_update(
                actor=request.user, project_id=project_id, slug=slug, data=data, expected=expected
            )
        except ServiceNotFound:
            raise _missing(project, slug, None) from None
        except ServiceChangedMeanwhile as changed:
            raise _changed_meanwhile(changed, slug) from None
        return Response(service_json(snapshot), headers={"ETag": service_etag(snapshot)})

    @extend_schema(
        operation_id="deleteService",
        tags=["services"],
        summary="Delete a service",
        description="Its history stays (a tombstone snapshot ends it), and its name is free "
        "again. With `If-Match`, only the state read is deleted (else 409 `conflict`).",
        parameters=[PROJECT_ID, SLUG, IF_MATCH],
        responses={204: None, **error_responses(404, 409)},
    )
    def delete(self, request, project_id, slug):
        project = self.project(request, project_id)  # 404 before a bad If-Match's 400
        expected = if_match(request)
        try:
            service_writes.service_delete(
                actor=request.user, project_id=project_id, slug=slug, expected=expected
            )
        except ServiceNotFound:
            raise _missing(project, slug, None) from None
        except ServiceChangedMeanwhile as changed:
            raise _changed_meanwhile(changed, slug) from None
        return Response(status=204)


class ServiceRawView(ProjectAPIView):
    @extend_schema(
        operation_id="getServiceRaw",
        tags=["services"],
        parameters=[PROJECT_ID, SLUG, AT],
        responses={200: ServiceRawSerializer, **error_responses(400, 404)},
    )
    def get(self, request, project_id, slug):
        project = self.project(request, project_id)
        at = query_at(request)
        try:
            snapshot = selectors.service_at(project=project, slug=slug, at=at)
        except ServiceNotFound:
            raise _missing(project, slug, at) from None  # as GET of the service says it
        return Response(service_raw_json(snapshot))


class EntitiesView(ProjectAPIView):
    @extend_schema(
        operation_id="getProjectEntities",
        tags=["services"],
        parameters=[PROJECT_ID, AT, IF_NONE_MATCH],
        responses={200: ProjectEntitiesSerializer, **NOT_MODIFIED, **error_responses(400, 404)},
    )
    def get(self, request, project_id):
        project = self.project(request, project_id)
        at = query_at(request)
        gzipped = accepts_gzip(request)
        cached = drawings.project_read_cached(
            project=project,
            at=at,
            kind="entities",
            gzipped=gzipped,
            compute=lambda: selectors.project_entities_at(project=project, at=at),
        )
        return cached_response(request, cached, content_type="application/json")


class HistoryView(ProjectAPIView):
    @extend_schema(
        operation_id="getProjectHistory",
        tags=["history"],
        parameters=[
            PROJECT_ID,
            OpenApiParameter("page", int, description="0-based page", default=0),
            OpenApiParameter("size", int, description="1 to 100 events", default=50),
        ],
        responses={200: ProjectHistorySerializer, **error_responses(400, 404)},
    )
    def get(self, request, project_id):
        project = self.project(request, project_id)
        page = query_int(request, "page", default=0, minimum=0, maximum=10_000_000)
        size = query_int(request, "size", default=50, minimum=1, maximum=100)
        events, total = selectors.history_page(project=project, page=page, size=size)
        return Response(
            page_envelope(
                data=[history_event_json(e) for e in events], page=page, size=size, total=total
            )
        )


class SnapshotDiffView(ProjectAPIView):
    @extend_schema(
        operation_id="getSnapshotDiff",
        tags=["history"],
        parameters=[PROJECT_ID, SNAPSHOT_ID],
        responses={200: ServiceSnapshotDiffSerializer, **error_responses(400, 404)},
    )
    def get(self, request, project_id, snapshot_id):
        project = self.project(request, project_id)
        return Response(selectors.snapshot_diff(project=project, snapshot_id=snapshot_id))
