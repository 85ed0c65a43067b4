"""`/v1/projects/{projectId}/public-share-token`: create or replace, read, revoke."""

from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.response import Response

from archsvc.api.params import iso
from archsvc.api.schema import error_responses
from diagrams import sharing
from diagrams.api.base import ProjectAPIView
from diagrams.api.views import PROJECT_ID
from diagrams.models import PublicShareToken


class PublicShareTokenSerializer(serializers.Serializer):
    token = serializers.UUIDField()
    createdAt = serializers.DateTimeField()  # noqa: N815


def share_token_json(share: PublicShareToken) -> dict:
    return {"token": str(share.token), "createdAt": iso(share.created_at)}


class PublicShareTokenView(ProjectAPIView):
    @extend_schema(
        operation_id="createPublicShareToken",
        tags=["sharing"],
        summary="Share the project, or replace its link",
        description="Creates the project's share token, or **replaces** it: every link and "
        "embed made with the old token stops working at once. A job that only needs the "
        "project shared should `GET` first and create only on 404. Anyone holding the token "
        "sees the graph, read-only, at `/share/<token>/` (a page), `/share/<token>/embed/` "
        "(for an iframe) and `/share/<token>/graph.svg` (the image).",
        request=None,
        parameters=[PROJECT_ID],
        responses={200: PublicShareTokenSerializer, **error_responses(403, 404)},
    )
    def post(self, request, project_id):
        share = sharing.share_token_rotate(actor=request.user, project_id=project_id)
        return Response(share_token_json(share))

    @extend_schema(
        operation_id="getPublicShareToken",
        tags=["sharing"],
        summary="The project's share token, if it is shared",
        description="404 `public_share_token_not_found` when the project is not shared.",
        parameters=[PROJECT_ID],
        responses={200: PublicShareTokenSerializer, **error_responses(404)},
    )
    def get(self, request, project_id):
        share = sharing.share_token_get(actor=request.user, project_id=project_id)
        return Response(share_token_json(share))

    @extend_schema(
        operation_id="deletePublicShareToken",
        tags=["sharing"],
        summary="Stop sharing the project",
        description="The share page, embed and SVG of the token answer 404 at once.",
        parameters=[PROJECT_ID],
        responses={204: None, **error_responses(403, 404)},
    )
    def delete(self, request, project_id):
        sharing.share_token_revoke(actor=request.user, project_id=project_id)
        return Response(status=204)
