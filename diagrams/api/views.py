"""The /v1 projects and pinned-projects endpoints: parse, call one service or selector,
serialize."""

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.selectors import api_key_actor
from archsvc.api import idempotency
from archsvc.api.body import read_body
from archsvc.api.pagination import page_envelope
from archsvc.api.params import query_bool, query_int, query_text
from archsvc.api.schema import IDEMPOTENCY_KEY, error_responses
from archsvc.exceptions import BadRequest
from diagrams import project_writes, selectors
from diagrams.api.base import ProjectAPIView
from diagrams.api.serializers import (
    PinnedProjectSerializer,
    ProjectCreateSerializer,
    ProjectDuplicateSerializer,
    ProjectPageSerializer,
    ProjectSerializer,
    ProjectUpdateSerializer,
    pin_json,
    project_json,
)

PROJECT_ID = OpenApiParameter(
    "projectId", OpenApiTypes.STR, OpenApiParameter.PATH, pattern=r"^[a-z0-9][a-z0-9-]*[a-z0-9]$"
)


def _list_query(request) -> dict:
    """The page and filters of GET /v1/projects; BadRequest naming a malformed one."""
    return {
        "page": query_int(request, "page", default=0, minimum=0, maximum=10_000_000),
        "size": query_int(request, "size", default=20, minimum=1, maximum=100),
        "pinned": query_bool(request, "pinned"),
        "archived": query_bool(request, "archived"),
        "created_by": query_text(request, "createdBy", max_length=254) or None,  # "": none
        "query": query_text(request, "query"),
    }


class ProjectListView(APIView):
    _key_read = None  # (actor, query, (projects, total)) when a bearer key read the page

    def actor_for_api_key(self, request, token: str):
        """Called by ApiKeyAuthentication: a list read with a bearer key reads the key and the
        page in one query (a malformed query is answered by the view, after authentication)."""
        if request.method != "GET":
            return api_key_actor(token=token)
        try:
            query = _list_query(request)
        except BadRequest:
            return api_key_actor(token=token)
        actor, page = selectors.api_key_actor_and_project_page(token=token, **query)
        if page is not None:
            self._key_read = (actor, query, page)
        return actor

    @extend_schema(
        operation_id="listProjects",
        tags=["projects"],
        parameters=[
            OpenApiParameter("page", int, description="0-based page", default=0),
            OpenApiParameter("size", int, description="1 to 100", default=20),
            OpenApiParameter("pinned", bool),
            OpenApiParameter("archived", bool),
            OpenApiParameter("createdBy", str, description="member e-mail or API key name"),
            OpenApiParameter("query", str, description="part of the name, any case"),
        ],
        responses={200: ProjectPageSerializer, **error_responses(400)},
    )
    def get(self, request):
        read = self._key_read
        if read is not None and read[0] is request.user:
            query, (projects, total) = read[1], read[2]  # parsed and read with the key
        else:
            query = _list_query(request)
            projects, total = selectors.project_list(actor=request.user, **query)
        data = [project_json(p, actor=request.user) for p in projects]
        return Response(
            page_envelope(data=data, page=query["page"], size=query["size"], total=total)
        )

    @extend_schema(
        operation_id="createProject",
        tags=["projects"],
        parameters=[IDEMPOTENCY_KEY],
        request=ProjectCreateSerializer,
        responses={200: ProjectSerializer, **error_responses(400, 402)},
    )
    def post(self, request):
        body = read_body(request, ProjectCreateSerializer, required=False)
        return _once(request, lambda: project_writes.project_create(actor=request.user, **body))


class ProjectDetailView(ProjectAPIView):
    @extend_schema(
        operation_id="getProject",
        tags=["projects"],
        parameters=[PROJECT_ID],
        responses={200: ProjectSerializer, **error_responses(404)},
    )
    def get(self, request, project_id):
        project = self.project(request, project_id)
        return Response(project_json(project, actor=request.user))

    @extend_schema(
        operation_id="updateProject",
        tags=["projects"],
        parameters=[PROJECT_ID],
        request=ProjectUpdateSerializer,
        responses={200: ProjectSerializer, **error_responses(400, 403, 404)},
    )
    def put(self, request, project_id):
        self.project(request, project_id)
        project = project_writes.project_update(  # 404, then 403, then 400
            actor=request.user,
            project_id=project_id,
            changes=lambda: read_body(request, ProjectUpdateSerializer),
        )
        return Response(project_json(project, actor=request.user))

    @extend_schema(
        operation_id="deleteProject",
        tags=["projects"],
        parameters=[PROJECT_ID],
        responses={204: None, **error_responses(403, 404)},
    )
    def delete(self, request, project_id):
        project_writes.project_delete(actor=request.user, project_id=project_id)
        return Response(status=204)


class ProjectDuplicateView(ProjectAPIView):
    @extend_schema(
        operation_id="duplicateProject",
        tags=["projects"],
        parameters=[PROJECT_ID, IDEMPOTENCY_KEY],
        request=ProjectDuplicateSerializer,
        responses={200: ProjectSerializer, **error_responses(400, 402, 404)},
    )
    def post(self, request, project_id):
        self.project(request, project_id)
        body = read_body(request, ProjectDuplicateSerializer, required=False)
        return _once(
            request,
            lambda: project_writes.project_duplicate(
                actor=request.user, project_id=project_id, **body
            ),
        )


def _once(request, make) -> Response:
    """`make()` the project, unless a request with the same Idempotency-Key made it already
    (archsvc/api/idempotency.py): then that project, as it is now."""
    slot, made = idempotency.begin(request, request.user.organization_id)
    if made is not None:
        project = selectors.project_get(actor=request.user, project_id=made)  # 404 if gone
        response = Response(project_json(project, actor=request.user))
        response["Idempotent-Replayed"] = "true"
        return response
    try:
        project = make()
    except Exception:
        idempotency.failed(slot)
        raise
    idempotency.done(slot, project.id)
    return Response(project_json(project, actor=request.user))


class PinListView(APIView):
    @extend_schema(
        operation_id="listPinnedProjects",
        tags=["pinned"],
        responses={200: PinnedProjectSerializer(many=True)},
    )
    def get(self, request):
        return Response([pin_json(pin) for pin in selectors.pin_list(actor=request.user)])

    @extend_schema(
        operation_id="pinProject",
        tags=["pinned"],
        request=PinnedProjectSerializer,
        responses={200: PinnedProjectSerializer, **error_responses(400, 404)},
    )
    def post(self, request):
        body = read_body(request, PinnedProjectSerializer)
        pin = project_writes.pin_create(actor=request.user, project_id=body["projectId"])
        return Response(pin_json(pin))


class PinDetailView(ProjectAPIView):
    @extend_schema(
        operation_id="unpinProject",
        tags=["pinned"],
        parameters=[PROJECT_ID],
        responses={204: None, **error_responses(404)},
    )
    def delete(self, request, project_id):
        project_writes.pin_delete(actor=request.user, project_id=project_id)
        return Response(status=204)
