"""The real URLs plus endpoints that fail on purpose, for the error-handler tests."""

from django.urls import include, path
from rest_framework import serializers
from rest_framework.response import Response
from rest_framework.views import APIView

from archsvc.api.serializers import StrictSerializer


class BrokenView(APIView):
    def get(self, request):
        raise RuntimeError("secret-db-password=hunter2 in SELECT * FROM accounts_user")


class TopicEcho(StrictSerializer):
    name = serializers.CharField(max_length=5)


class BodyEcho(StrictSerializer):
    name = serializers.CharField(max_length=10)
    produces = TopicEcho(many=True, required=False)
    extras = serializers.DictField(child=serializers.CharField(max_length=3), required=False)


class EchoView(APIView):
    def post(self, request):
        serializer = BodyEcho(data=request.data)
        serializer.is_valid(raise_exception=True)
        return Response(serializer.validated_data)


urlpatterns = [
    path("v1/_test/broken", BrokenView.as_view()),
    path("v1/_test/echo", EchoView.as_view()),
    path("", include("archsvc.urls")),
]
