"""Finding the project's entities named in a question: case, punctuation and small typos
do not matter ("orders placed", "Orders.Placed", "ordrs.placed")."""

import re
from dataclasses import dataclass
from difflib import SequenceMatcher

from diagrams.assistant.context import AssistantContext

_WORD = re.compile(r"[a-z0-9]+")
KINDS = {
    "services": "service",
    "topics": "messaging",
    "owners": "owner",
    "flows": "flow",
    "categories": "category",
}


def words(text: str) -> list[str]:
    return _WORD.findall(text.lower())


@dataclass(frozen=True)
class Mention:
    entity_id: str
    kind: str  # service, messaging, owner, flow, category
    name: str
    start: int  # word index in the question
    length: int  # words covered
    score: float  # 1.0 exact


def _catalog(context: AssistantContext) -> list[tuple[tuple[str, ...], str, str, str]]:
    """(name words, entity id, kind, display name) for every entity, services also by slug."""
    out = []
    for group, kind in KINDS.items():
        for entity_id, entity in context.entities[group].items():
            out.append((tuple(words(entity["name"])), entity_id, kind, entity["name"]))
            if kind == "service" and entity.get("slug"):
                out.append((tuple(words(entity["slug"])), entity_id, kind, entity["name"]))
    return [item for item in out if item[0]]


# Words that say which kind a shared name means ("the checkout flow", "catalog service").
HINTS = {
    "flow": {"flow", "flows", "journey", "process"},
    "category": {"category", "categories", "domain", "domains", "area"},
    "owner": {"team", "teams", "squad", "owner", "owners"},
    "messaging": {
        "topic",
        "topics",
        "event",
        "events",
        "queue",
        "queues",
        "stream",
        "message",
        "messages",
        "channel",
    },
    "service": {"service", "services", "app", "application", "microservice", "system"},
}
DEFAULT_RANK = {"service": 0, "messaging": 1, "owner": 2, "flow": 3, "category": 4}


def _hint(tokens: list[str], start: int, span: int, kind: str) -> float:
    """How strongly the words around a name say it is of `kind`: next to it, two words
    away, or anywhere in the question."""
    hints = HINTS[kind]
    if set(tokens[max(0, start - 1) : start] + tokens[start + span : start + span + 1]) & hints:
        return 1.0
    if set(tokens[max(0, start - 2) : start] + tokens[start + span : start + span + 2]) & hints:
        return 0.75
    return 0.5 if set(tokens) & hints else 0.0


def find_mentions(context: AssistantContext, text: str) -> list[Mention]:
    """Entities named in `text`, best first, not overlapping, in order of appearance. A
    name several kinds share goes to the kind its neighbouring words name, else to a
    service, then a topic, a team, a flow, a category."""
    tokens = words(text)
    candidates: list[Mention] = []
    for name_words, entity_id, kind, display in _catalog(context):
        size = len(name_words)
        target = " ".join(name_words)
        for span in {size, size - 1, size + 1} - {0}:
            for start in range(0, max(0, len(tokens) - span + 1)):
                window = " ".join(tokens[start : start + span])
                if window == target:
                    score = 1.0
                elif len(target) >= 5 and abs(len(window) - len(target)) <= 3:
                    score = SequenceMatcher(None, window, target).ratio()
                    if score < 0.86:
                        continue
                else:
                    continue
                candidates.append(Mention(entity_id, kind, display, start, span, score))
    # a longer exact name wins over a shorter one inside it ("orders placed" over "orders")
    candidates.sort(
        key=lambda m: (
            -m.score,
            -m.length,
            -_hint(tokens, m.start, m.length, m.kind),
            DEFAULT_RANK[m.kind],
            m.start,
            m.entity_id,
        )
    )
    taken: set[int] = set()
    chosen: list[Mention] = []
    seen: set[str] = set()
    for mention in candidates:
        cells = set(range(mention.start, mention.start + mention.length))
        if cells & taken or mention.entity_id in seen:
            continue
        taken |= cells
        seen.add(mention.entity_id)
        chosen.append(mention)
    return sorted(chosen, key=lambda m: m.start)
