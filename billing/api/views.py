"""The /v1 billing and limits endpoints."""

from drf_spectacular.utils import extend_schema
from rest_framework.response import Response
from rest_framework.views import APIView

from billing.api.serializers import LimitsSerializer
from billing.selectors import limits_get


class LimitsView(APIView):
    @extend_schema(operation_id="getLimits", responses={200: LimitsSerializer}, tags=["billing"])
    def get(self, request):
        return Response(limits_get(organization=request.user.organization))
