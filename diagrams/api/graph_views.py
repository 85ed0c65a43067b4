"""The three graph renderings: JSON (ProjectGraph), Mermaid and SVG, with `filteredIds`,
`depth` and `at` (spec: Graph renderings; CONTRACT 9, 10, 14)."""

from django.http import HttpResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework.response import Response
from rest_framework.views import APIView

from archsvc.api.errors import BadRequest
from archsvc.api.params import iso, query_at, query_int
from archsvc.api.schema import error_responses
from diagrams import selectors
from diagrams.api.views import PROJECT_ID
from diagrams.rendering.document import project_graph_json
from diagrams.rendering.graph import MalformedEntityId, parse_filtered_ids
from diagrams.rendering.mermaid import mermaid_flowchart
from diagrams.rendering.svg import svg_document, svg_size

SVG_CSP = "default-src 'none'; style-src 'unsafe-inline'"

GRAPH_PARAMETERS = [
    PROJECT_ID,
    OpenApiParameter("filteredIds", OpenApiTypes.STR, many=True, explode=True,
                     description="entity ids to focus on (repeat, or comma-separated)"),
    OpenApiParameter("depth", OpenApiTypes.INT, description="0 to 5; default 1 with "
                     "filteredIds"),
    OpenApiParameter("at", OpenApiTypes.DATETIME, description="state at this time"),
]


def _graph_query(request) -> tuple:
    try:
        filtered_ids = parse_filtered_ids(request.query_params.getlist("filteredIds"))
    except MalformedEntityId as exc:
        raise BadRequest(f"filteredIds: '{str(exc)[:100]}' is not an entity id "
                         "(<service|messaging|category|owner|flow>--<slug>).") from None
    depth = query_int(request, "depth", default=1, minimum=0, maximum=5)
    return filtered_ids, depth, query_at(request)


def _render(request, project_id):
    project = selectors.project_get(actor=request.user, project_id=project_id)
    filtered_ids, depth, at = _graph_query(request)
    graph, layout, header = selectors.project_graph_view(
        project=project, at=at, filtered_ids=filtered_ids, depth=depth)
    return project, graph, layout, header, filtered_ids, depth, at


class GraphView(APIView):
    @extend_schema(operation_id="getProjectGraph", tags=["graph"], parameters=GRAPH_PARAMETERS,
                   responses={200: OpenApiTypes.OBJECT, **error_responses(400, 404)})
    def get(self, request, project_id):
        project, graph, layout, header, filtered_ids, depth, at = _render(request, project_id)
        width, height = svg_size(graph, layout, **header)
        return Response(project_graph_json(
            graph, layout, project_id=project.id, at=iso(at), filtered_ids=filtered_ids,
            depth=depth if filtered_ids else None, width=width, height=height))


class GraphMermaidView(APIView):
    @extend_schema(operation_id="getProjectGraphMermaid", tags=["graph"],
                   parameters=GRAPH_PARAMETERS,
                   responses={(200, "text/plain"): OpenApiResponse(OpenApiTypes.STR),
                              **error_responses(400, 404)})
    def get(self, request, project_id):
        project = selectors.project_get(actor=request.user, project_id=project_id)
        filtered_ids, depth, at = _graph_query(request)
        graph = selectors.project_graph_only(project=project, at=at,
                                             filtered_ids=filtered_ids, depth=depth)
        return HttpResponse(mermaid_flowchart(graph), content_type="text/plain; charset=utf-8")


class GraphSvgView(APIView):
    @extend_schema(operation_id="getProjectGraphSvg", tags=["graph"],
                   parameters=GRAPH_PARAMETERS,
                   responses={(200, "image/svg+xml"): OpenApiResponse(OpenApiTypes.STR),
                              **error_responses(400, 404)})
    def get(self, request, project_id):
        _, graph, layout, header, *_ = _render(request, project_id)
        response = HttpResponse(svg_document(graph, layout, **header),
                                content_type="image/svg+xml")
        response["Content-Security-Policy"] = SVG_CSP
        return response
