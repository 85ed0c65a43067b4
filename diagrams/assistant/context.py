"""What the assistant may read: one project's current graph, its entities and its history.
Nothing of any other project or organization is ever in here."""

from dataclasses import dataclass, field, replace
from datetime import datetime
from functools import cached_property

import networkx as nx

from diagrams.assistant.matching import NameIndex
from diagrams.rendering.graph import project_graph


@dataclass(frozen=True)
class HistoryEvent:
    at: datetime
    action: str  # created, updated, renamed, deleted
    service_slug: str
    service_name: str
    actor: str
    service: str = ""  # the id of the service (ServiceSnapshot.service): the same through renames
    what: str = ""  # what the change did, in words ("stopped consuming orders.confirmed")

    @property
    def service_key(self) -> str:
        """Which service this is a change of, the same through its renames: its id, or
        (a history without ids, as the evaluation's) its slug."""
        return self.service or f"slug:{self.service_slug}"


@dataclass
class AssistantContext:
    project_name: str
    graph: nx.DiGraph  # services and topics, edges as data flows (rendering/graph.py)
    entities: dict  # ProjectEntities (entities.py)
    history: list[HistoryEvent] = field(default_factory=list)  # newest first
    now: datetime | None = None
    # What tools work out of the state and keep for the next question on it (the cycles):
    # shared by every asked_at copy, like the name index.
    derived: dict = field(default_factory=dict, repr=False)

    @cached_property
    def names(self):
        """The index of the entities' names that matching.find_mentions reads, built on
        first use and kept for every later question on this context."""
        return NameIndex(self.entities)

    def asked_at(self, now: datetime) -> "AssistantContext":
        """The same project state asked about at `now`: the same graph, entities, history
        and name index (none of which a question changes), without copying them."""
        fresh = replace(self, now=now)
        if "names" in self.__dict__:
            fresh.__dict__["names"] = self.__dict__["names"]
        return fresh


@dataclass
class Answer:
    reply: str
    references: list[str]  # entity ids the answer used


@dataclass(frozen=True)
class Turn:
    role: str  # user or assistant
    content: str


def context_from_states(
    *, project_name: str, services: list, history: list[HistoryEvent], now: datetime | None = None
) -> AssistantContext:
    """The context of a project state (a list of entities.ServiceState), without a
    database: the API builds it from selectors, the evaluation from the demo architecture."""
    graph, entities = project_graph(services)
    return AssistantContext(
        project_name=project_name, graph=graph, entities=entities, history=history, now=now
    )
