"""The /v1 billing and limits endpoints."""

from drf_spectacular.utils import extend_schema
from rest_framework.response import Response
from rest_framework.views import APIView

from archsvc.api.body import read_body
from archsvc.api.schema import error_responses
from billing import services
from billing.api.serializers import (
    AiCreditsSerializer,
    LimitsSerializer,
    PortalSessionSerializer,
    SubscriptionSerializer,
    SubscriptionSwitchCycleSerializer,
    ai_credits_json,
    subscription_json,
)
from billing.selectors import limits_get, subscription_get


class LimitsView(APIView):
    @extend_schema(operation_id="getLimits", responses={200: LimitsSerializer}, tags=["billing"])
    def get(self, request):
        return Response(limits_get(organization=request.user.organization))


class SubscriptionView(APIView):
    @extend_schema(
        operation_id="getSubscription", tags=["billing"], responses={200: SubscriptionSerializer}
    )
    def get(self, request):
        return Response(subscription_json(subscription_get(organization=request.user.organization)))


class SwitchCycleView(APIView):
    @extend_schema(
        operation_id="switchSubscriptionCycle",
        tags=["billing"],
        request=SubscriptionSwitchCycleSerializer,
        responses={200: SubscriptionSerializer, **error_responses(400, 403, 404)},
    )
    def post(self, request):
        services.subscription_for_billing(actor=request.user)  # 403, then 404, before 400
        body = read_body(request, SubscriptionSwitchCycleSerializer)
        subscription = services.subscription_switch_cycle(
            actor=request.user, cycle=body["billingCycle"]
        )
        return Response(subscription_json(subscription))


class PortalSessionView(APIView):
    @extend_schema(
        operation_id="createPortalSession",
        tags=["billing"],
        request=None,
        responses={200: PortalSessionSerializer, **error_responses(403, 404)},
    )
    def post(self, request):
        url = services.portal_session_url(
            actor=request.user, base_url=request.build_absolute_uri("/")
        )
        return Response({"url": url})


class AiCreditsView(APIView):
    @extend_schema(
        operation_id="getAiCredits", tags=["billing"], responses={200: AiCreditsSerializer}
    )
    def get(self, request):
        return Response(
            ai_credits_json(services.ai_credits_current(organization=request.user.organization))
        )
