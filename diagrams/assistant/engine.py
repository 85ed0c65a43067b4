"""One interface for both engines: the LLM when an operator configured one, else the
built-in analyst."""

from django.conf import settings

from diagrams.assistant.analyst import analyst_answer
from diagrams.assistant.context import Answer, AssistantContext, Turn
from diagrams.assistant.llm import llm_answer


def assistant_answer(context: AssistantContext, message: str, history: list[Turn]) -> Answer:
    if settings.ASSISTANT_BASE_URL:
        return llm_answer(context, message, history)
    return analyst_answer(context, message, history)
