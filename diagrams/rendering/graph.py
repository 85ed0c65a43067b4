"""Project state -> a networkx graph of services and topics keyed by entity id (edges follow
the data flow), and the focus filter of interface §10."""

import re

import networkx as nx

from diagrams.entities import ServiceState, category_color, project_entities

ENTITY_ID_RE = re.compile(r"^(service|messaging|category|owner|flow)--([a-z0-9_-]+)$")


class MalformedEntityId(ValueError):
    """An id not shaped `<type>--<slug>` with a known type."""


def project_graph(services: list[ServiceState]) -> tuple[nx.DiGraph, dict]:
    """The graph of a project's state, and the entities it was built from."""
    entities = project_entities(services)
    graph = nx.DiGraph()
    for sid, service in entities["services"].items():
        graph.add_node(
            sid,
            type="service",
            label=service["name"],
            category=service["category"],
            category_id=service["categoryId"],
            owner=service["owner"],
            flows=tuple(service["flows"]),
            color=category_color(service["category"]),
        )
    for tid, topic in entities["topics"].items():
        graph.add_node(
            tid,
            type="messaging",
            label=topic["name"],
            category=topic["category"],
            category_id=topic["categoryId"],
            owner=topic["owner"],
            flows=tuple(topic["flows"]),
            color=category_color(topic["category"]),
        )
    for sid, service in entities["services"].items():
        for tid in service["produces"]:
            graph.add_edge(sid, tid, kind="produces")
        for tid in service["consumes"]:
            graph.add_edge(tid, sid, kind="consumes")
    return graph, entities


def parse_filtered_ids(values: list[str]) -> list[str]:
    """`filteredIds` as repeated parameters or comma-separated in one; raises
    MalformedEntityId for an id of the wrong shape."""
    ids = []
    for value in values:
        for item in value.split(","):
            item = item.strip()
            if not item:
                continue
            if len(item) > 400 or not ENTITY_ID_RE.match(item):
                raise MalformedEntityId(item)
            ids.append(item)
    return list(dict.fromkeys(ids))


def graph_filter(graph: nx.DiGraph, entities: dict, seeds: list[str], depth: int) -> nx.DiGraph:
    """Keep every node within `depth` hops (either direction) of a seed, with their edges; a
    category, owner or flow id seeds all that carry it, an unknown id seeds nothing."""
    start = set()
    for seed in seeds:
        if seed in graph:
            start.add(seed)
            continue
        for group in ("categories", "owners", "flows"):
            entity = entities[group].get(seed)
            if entity:
                start.update(entity["services"])
                start.update(entity["topics"])
    kept = set(start)
    frontier = set(start)
    undirected = graph.to_undirected(as_view=True)
    for _ in range(depth):
        frontier = {n for node in frontier for n in undirected.neighbors(node)} - kept
        if not frontier:
            break
        kept |= frontier
    return graph.subgraph(sorted(kept)).copy()
