"""`/v1/projects/{projectId}/public-share-token`: create or replace, read, revoke."""

from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.response import Response
from rest_framework.views import APIView

from archsvc.api.params import iso
from archsvc.api.schema import error_responses
from diagrams import sharing
from diagrams.api.views import PROJECT_ID
from diagrams.models import PublicShareToken


class PublicShareTokenSerializer(serializers.Serializer):
    token = serializers.UUIDField()
    createdAt = serializers.DateTimeField()  # noqa: N815


def share_token_json(share: PublicShareToken) -> dict:
    return {"token": str(share.token), "createdAt": iso(share.created_at)}


class PublicShareTokenView(APIView):
    @extend_schema(
        operation_id="createPublicShareToken",
        tags=["sharing"],
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
        parameters=[PROJECT_ID],
        responses={200: PublicShareTokenSerializer, **error_responses(404)},
    )
    def get(self, request, project_id):
        share = sharing.share_token_get(actor=request.user, project_id=project_id)
        return Response(share_token_json(share))

    @extend_schema(
        operation_id="deletePublicShareToken",
        tags=["sharing"],
        parameters=[PROJECT_ID],
        responses={204: None, **error_responses(403, 404)},
    )
    def delete(self, request, project_id):
        sharing.share_token_revoke(actor=request.user, project_id=project_id)
        return Response(status=204)
