"""`POST /v1/projects/{projectId}/ai/chat`: one credit a message, its own rate limit."""

from drf_spectacular.utils import extend_schema
from rest_framework.response import Response

from archsvc.api.body import read_body
from archsvc.api.schema import error_responses
from billing.services import ai_credits_spend
from diagrams.api.base import ProjectAPIView
from diagrams.api.serializers import AiChatRequestSerializer, AiChatResponseSerializer
from diagrams.api.views import PROJECT_ID
from diagrams.assistant import project_context
from diagrams.assistant.context import Turn
from diagrams.assistant.engine import assistant_answer


class ChatView(ProjectAPIView):
    rate_limit_group = "ai"

    @extend_schema(
        operation_id="chatWithAssistant",
        tags=["assistant"],
        parameters=[PROJECT_ID],
        request=AiChatRequestSerializer,
        responses={200: AiChatResponseSerializer, **error_responses(400, 402, 404)},
    )
    def post(self, request, project_id):
        project = self.project(request, project_id)
        body = read_body(request, AiChatRequestSerializer)
        remaining = ai_credits_spend(organization=request.user.organization)  # 402: nothing
        context = project_context.assistant_context(project=project)
        history = [Turn(t["role"], t["content"]) for t in body.get("history", [])]
        answer = assistant_answer(context, body["message"], history)
        return Response(
            {"reply": answer.reply, "references": answer.references, "creditsRemaining": remaining}
        )
