"""The analyst's evaluation set (evaluation.json): the demo architecture, a synthetic history and
questions with what a correct answer must cite and say; shared by the bench and the tests."""

import json
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from django.utils.text import slugify

from diagrams.assistant.analyst import analyst_answer
from diagrams.assistant.context import (
    Answer,
    AssistantContext,
    HistoryEvent,
    Turn,
    context_from_states,
)
from diagrams.entities import ServiceState, topic_normal
from diagrams.slugs import service_slug

EVALUATION_PATH = Path(__file__).resolve().with_name("evaluation.json")
# updated_at of a demo service that no history event names
FALLBACK_UPDATED_AT = datetime(2026, 1, 1, tzinfo=UTC)


def load_evaluation(path: Path = EVALUATION_PATH) -> dict:
    return json.loads(Path(path).read_text())


def _when(value: str) -> datetime:
    at = datetime.fromisoformat(value)
    return at if at.tzinfo else at.replace(tzinfo=UTC)


def history_events(data: dict) -> list[HistoryEvent]:
    """The synthetic history as HistoryEvent objects, newest first."""
    events = [
        HistoryEvent(
            at=_when(e["at"]),
            action=e["action"],
            service_slug=e["service_slug"],
            service_name=e["service_name"],
            actor=e["actor"],
        )
        for e in data.get("history", [])
    ]
    return sorted(events, key=lambda e: e.at, reverse=True)


def demo_states(history: list[HistoryEvent]) -> list[ServiceState]:
    """DEMO_SERVICES as ServiceState: slug = slugify(name), updated_at = the newest event of
    that slug (FALLBACK_UPDATED_AT when none)."""
    from diagrams.demo import DEMO_SERVICES  # demo.py writes through the ORM: loaded when asked

    updated: dict[str, datetime] = {}
    for event in history:
        if event.at > updated.get(event.service_slug, datetime.min.replace(tzinfo=UTC)):
            updated[event.service_slug] = event.at
    states = []
    for service in DEMO_SERVICES:
        slug = slugify(service["name"])
        states.append(_state(service, slug, updated.get(slug, FALLBACK_UPDATED_AT)))
    return states


def evaluation_context(data: dict) -> AssistantContext:
    """The analyst's context: the demo project, its synthetic history, and `now`."""
    from diagrams.demo import DEMO_PROJECT_NAME  # as above

    history = history_events(data)
    return context_from_states(
        project_name=DEMO_PROJECT_NAME,
        services=demo_states(history),
        history=history,
        now=_when(data["now"]),
    )


def question_turns(question: dict) -> list[Turn]:
    """The prior conversation of a follow-up question (empty for the others)."""
    return [Turn(role=t["role"], content=t["content"]) for t in question.get("history") or []]


def questions_by_kind(data: dict) -> dict[str, list[dict]]:
    kinds: dict[str, list[dict]] = {}
    for question in data["questions"]:
        kinds.setdefault(question["kind"], []).append(question)
    return kinds


def representative_subset(data: dict, per_kind: int = 2) -> list[dict]:
    """The first `per_kind` questions of every kind, in file order."""
    return [q for questions in questions_by_kind(data).values() for q in questions[:per_kind]]


@dataclass
class Result:
    question: dict
    reply: str = ""
    references: list[str] = field(default_factory=list)
    missing_references: list[str] = field(default_factory=list)
    missing_facts: list[str] = field(default_factory=list)
    missing_any_facts: list[list[str]] = field(default_factory=list)  # groups none of was said
    forbidden_facts: list[str] = field(default_factory=list)  # forbidden, and said
    error: str | None = None
    seconds: float = 0.0

    @property
    def correct(self) -> bool:
        return not (
            self.error
            or self.missing_references
            or self.missing_facts
            or self.missing_any_facts
            or self.forbidden_facts
        )

    def problems(self) -> list[str]:
        out = []
        if self.error:
            out.append(f"error: {self.error}")
        if self.missing_references:
            out.append(f"missing references: {', '.join(self.missing_references)}")
        if self.missing_facts:
            out.append(f"missing facts: {', '.join(self.missing_facts)}")
        for group in self.missing_any_facts:
            out.append(f"missing one of: {' | '.join(group)}")
        if self.forbidden_facts:
            out.append(f"forbidden facts present: {', '.join(self.forbidden_facts)}")
        return out

    def explain(self) -> str:
        q = self.question
        lines = [f"{q['id']} ({q['kind']}): {q['question']}"]
        for turn in q.get("history") or []:
            lines.append(f"  after {turn['role']}: {turn['content']}")
        lines.append(f"  reply: {self.reply!r}")
        lines.append(f"  references: {self.references}")
        lines.extend(f"  {problem}" for problem in self.problems())
        return "\n".join(lines)


def score(question: dict, answer: Answer) -> Result:
    """How an answer measures up: it cites every `expect_references` id, and its reply says every
    `expect_facts`, one of each `expect_any_facts` group and no `forbid_facts` (any case)."""
    reply = answer.reply if isinstance(getattr(answer, "reply", None), str) else ""
    references = list(getattr(answer, "references", None) or [])
    said = reply.lower()
    cited = set(references)
    return Result(
        question=question,
        reply=reply,
        references=references,
        missing_references=[r for r in question.get("expect_references", []) if r not in cited],
        missing_facts=[f for f in question.get("expect_facts", []) if f.lower() not in said],
        missing_any_facts=[
            group
            for group in question.get("expect_any_facts", [])
            if not any(f.lower() in said for f in group)
        ],
        forbidden_facts=[f for f in question.get("forbid_facts", []) if f.lower() in said],
    )


AnswerFn = Callable[[AssistantContext, str, list[Turn]], Answer]


def run_question(
    context: AssistantContext,
    question: dict,
    *,
    answer_fn: AnswerFn | None = None,
    catch: bool = False,
) -> Result:
    """Ask the analyst (or `answer_fn`) one question and score its answer; with `catch`, an
    exception is scored as a wrong answer instead of raised."""
    if answer_fn is None:
        answer_fn = analyst_answer
    started = time.perf_counter()
    try:
        answer = answer_fn(context, question["question"], question_turns(question))
    except Exception as exc:
        if not catch:
            raise
        result = Result(question=question, error=f"{type(exc).__name__}: {exc}")
    else:
        result = score(question, answer)
    result.seconds = time.perf_counter() - started
    return result


def _state(service: dict, slug: str, updated_at: datetime) -> ServiceState:
    """A ServiceCreate body as the state the assistant reads."""
    return ServiceState(
        slug=slug,
        name=service["name"],
        description=service.get("description"),
        category=service.get("category"),
        owner=service.get("owner"),
        flows=tuple(service.get("flows") or ()),
        consumes=tuple(topic_normal(t) for t in service.get("consumes", [])),
        produces=tuple(topic_normal(t) for t in service.get("produces", [])),
        extras=dict(service.get("extras") or {}),
        updated_at=updated_at,
    )


def architecture_context(data: dict, *, now: datetime | None = None) -> AssistantContext:
    """The context, without a database or history, of an architecture given as ServiceCreate
    bodies ({"name", "services"}, as in the bench's architectures/*.json)."""
    states = [
        _state(service, service_slug(service["name"]), FALLBACK_UPDATED_AT)
        for service in data["services"]
    ]
    return context_from_states(
        project_name=data.get("name", "Architecture"),
        services=states,
        history=[],
        now=now or FALLBACK_UPDATED_AT,
    )
