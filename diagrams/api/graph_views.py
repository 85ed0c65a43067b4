"""The three graph renderings: JSON (ProjectGraph), Mermaid and SVG, with `filteredIds`,
`depth` and `at` (spec: Graph renderings; interface §9, 10, 14)."""

from django.http import HttpResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema

from archsvc.api.encoding import accepts_gzip, cached_response
from archsvc.api.params import iso, query_at, query_int, query_number, query_params
from archsvc.api.schema import IF_NONE_MATCH, NOT_MODIFIED, error_responses
from archsvc.exceptions import BadRequest
from diagrams import drawings
from diagrams.api.base import ProjectAPIView
from diagrams.api.serializers import ProjectGraphSerializer
from diagrams.api.views import PROJECT_ID
from diagrams.rendering.graph import MalformedEntityId, parse_filtered_ids

# what parse_filtered_ids takes: entity ids, comma-separated, blanks and spaces around them
_ENTITY_ID = r"(service|messaging|category|owner|flow)--[a-z0-9_-]+"
FILTERED_IDS_PATTERN = rf"^\s*({_ENTITY_ID})?\s*(,\s*({_ENTITY_ID})?\s*)*$"
SVG_CSP = "default-src 'none'; style-src 'unsafe-inline'"

GRAPH_PARAMETERS = [
    PROJECT_ID,
    OpenApiParameter(
        "filteredIds",
        {"type": "array", "items": {"type": "string", "pattern": FILTERED_IDS_PATTERN}},
        explode=True,
        description="entity ids to focus on (repeat, or comma-separated; `filteredIds[]`, "
        "as axios, jQuery and PHP write an array, is read the same)",
    ),
    OpenApiParameter("depth", OpenApiTypes.INT, description="0 to 5; default 1 with filteredIds"),
    OpenApiParameter("at", OpenApiTypes.DATETIME, description="state at this time"),
    OpenApiParameter(
        "aspect",
        {"type": "number", "minimum": 0.2, "maximum": 5},
        description="the shape of the screen the drawing is for, width over height (default "
        "16:9); a long drawing is folded into rows toward it. Mermaid ignores it",
    ),
    IF_NONE_MATCH,
]


def graph_aspect(request) -> float | None:
    """`aspect`: 0.2 to 5, or None (the default shape)."""
    return query_number(request, "aspect", minimum=0.2, maximum=5)


def graph_query(request) -> tuple:
    """filteredIds, depth and at of a graph request (the API's and the public pages');
    BadRequest naming the parameter when one is malformed."""
    params = query_params(request)
    try:
        # `filteredIds[]=a&filteredIds[]=b` is how axios, jQuery and PHP send an array: it
        # was ignored, and such a client got the whole graph, as if unfocused, with a 200
        filtered_ids = parse_filtered_ids(
            params.getlist("filteredIds") + params.getlist("filteredIds[]")
        )
    except MalformedEntityId as exc:
        given = str(exc)[:100]
        hint = ""
        if "__" in given and "--" not in given:
            # copied from the Mermaid output, which writes `--` as `__` (interface §6)
            hint = (
                f" Mermaid writes ids with __ for --: this one is '{given.replace('__', '--', 1)}'."
            )
        raise BadRequest(
            f"filteredIds: '{given}' is not an entity id "
            f"(<service|messaging|category|owner|flow>--<slug>).{hint}"
        ) from None
    depth = query_int(request, "depth", default=1, minimum=0, maximum=5)
    return filtered_ids, depth, query_at(request)


def _rendered(
    view: ProjectAPIView, request, project_id: str, kind: str, content_type: str
) -> HttpResponse:
    """The render, whole from the cache on a warm read (no re-encoding), gzip-compressed
    for clients that accept it."""
    project = view.project(request, project_id)
    filtered_ids, depth, at = graph_query(request)
    aspect = graph_aspect(request)
    gzipped = accepts_gzip(request)
    cached = drawings.project_rendering(
        project=project,
        at=at,
        filtered_ids=filtered_ids,
        depth=depth,
        kind=kind,
        aspect=aspect,
        query_echo=iso(at),
        gzipped=gzipped,
    )
    return cached_response(request, cached, content_type=content_type)


class GraphView(ProjectAPIView):
    @extend_schema(
        operation_id="getProjectGraph",
        tags=["graph"],
        summary="The project's graph, laid out",
        description="Nodes (services and topics, with their top-left `x`, `y` and size) and "
        "edges (with their drawn `points`), as the SVG draws them. `filteredIds` focuses on "
        "some entities and what lies within `depth` steps of them; a well-formed id that "
        "matches nothing gives an empty graph. `at` draws any past state. The ETag changes "
        "with every write to the project: poll with `If-None-Match`.",
        parameters=GRAPH_PARAMETERS,
        responses={200: ProjectGraphSerializer, **NOT_MODIFIED, **error_responses(400, 404)},
    )
    def get(self, request, project_id):
        return _rendered(self, request, project_id, "json", "application/json")


class GraphMermaidView(ProjectAPIView):
    renders = ("text/plain",)  # what OPTIONS says (ApiMetadata)

    @extend_schema(
        operation_id="getProjectGraphMermaid",
        tags=["graph"],
        summary="The project's graph as a Mermaid flowchart",
        description="`flowchart LR`, one line per node (services are boxes, topics stadium "
        "shapes), one per edge. Node ids are the entity ids with `--` written `__` "
        "(`service__checkout` for `service--checkout`): Mermaid reads `--` inside an id as "
        "the start of a link. Same query as the graph.",
        parameters=GRAPH_PARAMETERS,
        responses={
            (200, "text/plain"): OpenApiResponse(OpenApiTypes.STR),
            **NOT_MODIFIED,
            **error_responses(400, 404),
        },
    )
    def get(self, request, project_id):
        return _rendered(self, request, project_id, "mermaid", "text/plain; charset=utf-8")


class GraphSvgView(ProjectAPIView):
    renders = ("image/svg+xml",)  # what OPTIONS says (ApiMetadata)

    @extend_schema(
        operation_id="getProjectGraphSvg",
        tags=["graph"],
        summary="The project's graph as an SVG image",
        description="Drawn on the server: category colours, a legend, the project's name and "
        "the moment shown. Same query as the graph.",
        parameters=GRAPH_PARAMETERS,
        responses={
            (200, "image/svg+xml"): OpenApiResponse(OpenApiTypes.STR),
            **NOT_MODIFIED,
            **error_responses(400, 404),
        },
    )
    def get(self, request, project_id):
        response = _rendered(self, request, project_id, "svg", "image/svg+xml")
        response["Content-Security-Policy"] = SVG_CSP
        return response
