"""Bench-only URLconf: the app's URLs plus /bench/ceiling, a bare DRF view that touches
nothing (no authentication, permission, throttle, database or cache): the stack's ceiling,
served by the same gunicorn as the real endpoints (bench/api.py)."""

from django.urls import include, path
from rest_framework.response import Response
from rest_framework.views import APIView


class CeilingView(APIView):
    authentication_classes = []
    permission_classes = []
    throttle_classes = []

    def get(self, request):
        return Response({"ok": True})


urlpatterns = [
    path("bench/ceiling", CeilingView.as_view()),
    path("", include("archsvc.urls")),
]

handler404 = "archsvc.api.views.handler404"
handler500 = "archsvc.api.views.handler500"
