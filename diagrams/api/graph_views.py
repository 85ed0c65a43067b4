"""The three graph renderings: JSON (ProjectGraph), Mermaid and SVG, with `filteredIds`,
`depth` and `at` (spec: Graph renderings; CONTRACT 9, 10, 14)."""

from django.http import HttpResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework.views import APIView

from archsvc.api.errors import BadRequest
from archsvc.api.params import iso, query_at, query_int
from archsvc.api.schema import error_responses
from diagrams import selectors
from diagrams.api.views import PROJECT_ID
from diagrams.rendering.graph import MalformedEntityId, parse_filtered_ids

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


class GraphView(APIView):
    @extend_schema(operation_id="getProjectGraph", tags=["graph"], parameters=GRAPH_PARAMETERS,
                   responses={200: OpenApiTypes.OBJECT, **error_responses(400, 404)})
    def get(self, request, project_id):
        project = selectors.project_get(actor=request.user, project_id=project_id)
        filtered_ids, depth, at = _graph_query(request)
        # the encoded document is cached whole: no re-encoding on a warm read
        body = selectors.project_render(project=project, at=at, filtered_ids=filtered_ids,
                                        depth=depth, kind="json", query_echo=iso(at))
        return HttpResponse(body, content_type="application/json")


class GraphMermaidView(APIView):
    @extend_schema(operation_id="getProjectGraphMermaid", tags=["graph"],
                   parameters=GRAPH_PARAMETERS,
                   responses={(200, "text/plain"): OpenApiResponse(OpenApiTypes.STR),
                              **error_responses(400, 404)})
    def get(self, request, project_id):
        project = selectors.project_get(actor=request.user, project_id=project_id)
        filtered_ids, depth, at = _graph_query(request)
        text = selectors.project_render(project=project, at=at, filtered_ids=filtered_ids,
                                        depth=depth, kind="mermaid")
        return HttpResponse(text, content_type="text/plain; charset=utf-8")


class GraphSvgView(APIView):
    @extend_schema(operation_id="getProjectGraphSvg", tags=["graph"],
                   parameters=GRAPH_PARAMETERS,
                   responses={(200, "image/svg+xml"): OpenApiResponse(OpenApiTypes.STR),
                              **error_responses(400, 404)})
    def get(self, request, project_id):
        project = selectors.project_get(actor=request.user, project_id=project_id)
        filtered_ids, depth, at = _graph_query(request)
        svg = selectors.project_render(project=project, at=at, filtered_ids=filtered_ids,
                                       depth=depth, kind="svg")
        response = HttpResponse(svg, content_type="image/svg+xml")
        response["Content-Security-Policy"] = SVG_CSP
        return response
