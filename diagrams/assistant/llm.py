"""The LLM engine: an OpenAI-compatible endpoint (ASSISTANT_* settings) given the analyst's tools
so its answers rest on the graph; on a timeout or any error the analyst answers, and says so."""

import json
import logging
import urllib.error
import urllib.parse
import urllib.request
from datetime import UTC, datetime, timedelta

from django.conf import settings

from diagrams.assistant import tools
from diagrams.assistant.analyst import analyst_answer
from diagrams.assistant.context import Answer, AssistantContext, Turn
from diagrams.assistant.matching import find_mentions

logger = logging.getLogger("archsvc.assistant")
MAX_ROUNDS = 5


def _spec(name: str, description: str, **parameters: str) -> dict:
    return {
        "type": "function",
        "function": {
            "name": name,
            "description": description,
            "parameters": {
                "type": "object",
                "properties": {
                    k: {"type": "string", "description": v} for k, v in parameters.items()
                },
                "required": list(parameters),
            },
        },
    }


TOOL_SPECS = [
    _spec("producers", "Services that produce a topic.", topic="the topic's name"),
    _spec("consumers", "Services that consume a topic.", topic="the topic's name"),
    _spec(
        "service_io",
        "What a service produces, consumes and talks to.",
        service="the service's name",
    ),
    _spec(
        "impact",
        "Everything downstream of a failing service or topic, with paths.",
        entity="a service or topic name",
    ),
    _spec(
        "depends_on",
        "Everything upstream that a service or topic depends on, with paths.",
        entity="a service or topic name",
    ),
    _spec(
        "path",
        "How data gets from one service or topic to another.",
        source="where data starts",
        target="where it should arrive",
    ),
    _spec("owner_of", "The team that owns a service or topic.", entity="a service or topic"),
    _spec(
        "members",
        "What a team owns, or what is in a flow or category.",
        group="a team, flow or category name",
    ),
    _spec("orphans", "Topics with no producer or no consumer."),
    _spec("cycles", "Cycles in the data flow."),
    _spec("busiest", "The busiest topics and services."),
    _spec(
        "changes",
        "What changed in the project over the last N days.",
        days="number of days, e.g. 7",
    ),
    _spec("summary", "A summary of the project."),
]


class _Unresolved(Exception):
    pass


def _entity(context: AssistantContext, name: str, kinds: tuple[str, ...]) -> str:
    for mention in find_mentions(context, str(name)):
        if mention.kind in kinds:
            return mention.entity_id
    raise _Unresolved(f"No {' or '.join(kinds)} named {name!r} in this project.")


def run_tool(context: AssistantContext, name: str, arguments: dict) -> Answer:
    """One tool call of the model, on this project only."""
    node = ("service", "messaging")

    def topic(a: dict) -> str:
        return _entity(context, a["topic"], ("messaging",))

    calls = {
        "producers": lambda a: tools.producers(context, topic(a)),
        "consumers": lambda a: tools.consumers(context, topic(a)),
        "service_io": lambda a: tools.service_io(
            context, _entity(context, a["service"], ("service",))
        ),
        "impact": lambda a: tools.impact(context, _entity(context, a["entity"], node)),
        "depends_on": lambda a: tools.impact(
            context, _entity(context, a["entity"], node), upstream=True
        ),
        "path": lambda a: tools.path(
            context, _entity(context, a["source"], node), _entity(context, a["target"], node)
        ),
        "owner_of": lambda a: tools.owner_of(context, _entity(context, a["entity"], node)),
        "members": lambda a: tools.members(
            context, _entity(context, a["group"], ("owner", "flow", "category"))
        ),
        "orphans": lambda a: tools.orphans(context),
        "cycles": lambda a: tools.cycles(context),
        "busiest": lambda a: tools.busiest(context),
        "changes": lambda a: tools.changes(
            context, (context.now or datetime.now(UTC)) - timedelta(days=float(a.get("days") or 7))
        ),
        "summary": lambda a: tools.summary(context),
    }
    if name not in calls:
        return Answer(f"There is no tool named {name}.", [])
    try:
        return calls[name](arguments)
    except _Unresolved as error:
        return Answer(str(error), [])
    except (KeyError, TypeError, ValueError) as error:
        return Answer(f"The tool call was malformed: {error}.", [])


def _post(body: dict) -> dict:
    base = settings.ASSISTANT_BASE_URL.rstrip("/")
    if urllib.parse.urlsplit(base).scheme not in ("http", "https"):
        raise ValueError("ASSISTANT_BASE_URL must be http(s)")
    request = urllib.request.Request(  # noqa: S310 - the scheme is checked above
        f"{base}/chat/completions",
        data=json.dumps(body).encode(),
        method="POST",
        headers={
            "Content-Type": "application/json",
            "Authorization": f"Bearer {settings.ASSISTANT_API_KEY}",
        },
    )
    with urllib.request.urlopen(  # noqa: S310 - the scheme is checked above
        request, timeout=settings.ASSISTANT_TIMEOUT_SECONDS
    ) as response:
        return json.loads(response.read())


def llm_answer(context: AssistantContext, message: str, history: list[Turn]) -> Answer:
    """The model's answer, grounded by tool calls; the analyst's when the model fails."""
    messages = [
        {
            "role": "system",
            "content": (
                f"You answer questions about the software architecture of the project "
                f'"{context.project_name}" and nothing else. You know only what the tools return: '
                "call them, and never invent services, topics or teams. You cannot see other "
                "projects or organizations. Answer in a few plain sentences."
            ),
        }
    ]
    messages += [{"role": turn.role, "content": turn.content} for turn in history]
    messages.append({"role": "user", "content": message})
    references: list[str] = []
    try:
        for _ in range(MAX_ROUNDS):
            reply = _post(
                {
                    "model": settings.ASSISTANT_MODEL,
                    "messages": messages,
                    "tools": TOOL_SPECS,
                    "tool_choice": "auto",
                }
            )
            choice = reply["choices"][0]["message"]
            calls = choice.get("tool_calls") or []
            if not calls:
                content = (choice.get("content") or "").strip()
                if not content:
                    raise ValueError("empty answer")
                known = set(context.graph) | {
                    i for g in ("owners", "flows", "categories") for i in context.entities[g]
                }
                return Answer(content, [r for r in dict.fromkeys(references) if r in known])
            messages.append(
                {"role": "assistant", "content": choice.get("content"), "tool_calls": calls}
            )
            for call in calls:
                function = call.get("function") or {}
                try:
                    arguments = json.loads(function.get("arguments") or "{}")
                except (ValueError, TypeError, RecursionError):
                    arguments = {}
                result = run_tool(
                    context,
                    str(function.get("name")),
                    arguments if isinstance(arguments, dict) else {},
                )
                references += result.references
                messages.append(
                    {"role": "tool", "tool_call_id": call.get("id"), "content": result.reply}
                )
        raise ValueError("too many tool rounds")
    except (
        urllib.error.URLError,
        OSError,
        TimeoutError,
        ValueError,
        KeyError,
        IndexError,
        TypeError,
    ) as error:
        logger.warning("assistant model failed, the analyst answers: %s", error)
        fallback = analyst_answer(context, message, history)
        return Answer(
            "(The language model did not answer, so the built-in analyst did.) " + fallback.reply,
            fallback.references,
        )
