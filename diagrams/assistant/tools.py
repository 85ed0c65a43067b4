"""What the assistant can find out about the project: each function answers one kind of
question from the graph or the history, in sentences, with the entity ids it used. The
analyst calls them; an LLM engine gets them as tools."""

from collections import Counter
from datetime import datetime
from itertools import islice

import networkx as nx

from diagrams.assistant.context import Answer, AssistantContext


def _name(context: AssistantContext, entity_id: str) -> str:
    if entity_id in context.graph:
        return context.graph.nodes[entity_id]["label"]
    for group in ("owners", "flows", "categories"):
        if entity_id in context.entities[group]:
            return context.entities[group][entity_id]["name"]
    return entity_id


def _names(context: AssistantContext, ids) -> str:
    names = [_name(context, i) for i in ids]
    if not names:
        return "nothing"
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def producers(context: AssistantContext, topic_id: str) -> Answer:
    topic = context.entities["topics"][topic_id]
    ids = topic["producers"]
    if not ids:
        return Answer(
            f"Nothing in the project produces {topic['name']}; "
            f"{_names(context, topic['consumers'])} consume it.",
            [topic_id, *topic["consumers"]],
        )
    verb = "produces" if len(ids) == 1 else "produce"
    return Answer(f"{_names(context, ids)} {verb} {topic['name']}.", [topic_id, *ids])


def consumers(context: AssistantContext, topic_id: str) -> Answer:
    topic = context.entities["topics"][topic_id]
    ids = topic["consumers"]
    if not ids:
        return Answer(
            f"Nothing in the project consumes {topic['name']}; it is produced by "
            f"{_names(context, topic['producers'])}.",
            [topic_id, *topic["producers"]],
        )
    verb = "consumes" if len(ids) == 1 else "consume"
    return Answer(f"{_names(context, ids)} {verb} {topic['name']}.", [topic_id, *ids])


def service_io(context: AssistantContext, service_id: str) -> Answer:
    """What a service produces and consumes, and the services it talks to through them."""
    service = context.entities["services"][service_id]
    produced, consumed = service["produces"], service["consumes"]
    downstream = sorted(
        {c for t in produced for c in context.entities["topics"][t]["consumers"]} - {service_id}
    )
    upstream = sorted(
        {p for t in consumed for p in context.entities["topics"][t]["producers"]} - {service_id}
    )
    parts = [
        f"{service['name']} produces {_names(context, produced)}"
        f" and consumes {_names(context, consumed)}."
    ]
    if downstream:
        parts.append(f"It sends data to {_names(context, downstream)}.")
    if upstream:
        parts.append(f"It receives data from {_names(context, upstream)}.")
    if not produced and not consumed:
        parts = [f"{service['name']} neither produces nor consumes any topic."]
    return Answer(" ".join(parts), [service_id, *produced, *consumed, *downstream, *upstream])


def impact(context: AssistantContext, entity_id: str) -> Answer:
    """Everything downstream of a failing service or topic, with the path to each service."""
    graph = context.graph
    reached = nx.single_source_shortest_path(graph, entity_id)
    affected = sorted(
        (n for n in reached if n != entity_id and graph.nodes[n]["type"] == "service"),
        key=lambda n: (len(reached[n]), n),
    )
    name = _name(context, entity_id)
    if not affected:
        return Answer(
            f"If {name} fails, no other service is affected: nothing consumes what it produces.",
            [entity_id],
        )
    lines = [
        f"If {name} fails, {len(affected)} service{'s' if len(affected) > 1 else ''} "
        f"downstream {'are' if len(affected) > 1 else 'is'} affected:"
    ]
    for node in affected[:12]:
        via = " → ".join(_name(context, p) for p in reached[node])
        lines.append(f"- {_name(context, node)} (via {via})")
    if len(affected) > 12:
        lines.append(f"- and {len(affected) - 12} more.")
    topics = sorted(n for n in reached if n != entity_id and graph.nodes[n]["type"] == "messaging")
    return Answer("\n".join(lines), [entity_id, *affected, *topics])


def path(context: AssistantContext, source_id: str, target_id: str) -> Answer:
    """How data gets from one entity to another: the shortest paths along the data flow."""
    graph, a, b = context.graph, _name(context, source_id), _name(context, target_id)
    try:
        paths = list(islice(nx.all_shortest_paths(graph, source_id, target_id), 3))
    except (nx.NetworkXNoPath, nx.NodeNotFound):
        paths = []
    if not paths:
        try:
            back = nx.shortest_path(graph, target_id, source_id)
        except (nx.NetworkXNoPath, nx.NodeNotFound):
            return Answer(
                f"Data does not flow from {a} to {b}, nor back, through the project's topics.",
                [source_id, target_id],
            )
        return Answer(
            f"Data does not flow from {a} to {b}, but it flows the other way: "
            f"{' → '.join(_name(context, n) for n in back)}.",
            list(back),
        )
    lines = [f"Data gets from {a} to {b} in {len(paths[0]) - 1} steps:"]
    lines += [f"- {' → '.join(_name(context, n) for n in p)}" for p in paths]
    return Answer("\n".join(lines), list(dict.fromkeys(n for p in paths for n in p)))


def owner_of(context: AssistantContext, entity_id: str) -> Answer:
    group = "services" if entity_id.startswith("service--") else "topics"
    entity = context.entities[group][entity_id]
    if not entity.get("owner"):
        return Answer(f"{entity['name']} has no owner recorded.", [entity_id])
    return Answer(
        f"{entity['name']} is owned by {entity['owner']}.", [entity_id, entity["ownerId"]]
    )


def members(context: AssistantContext, group_id: str) -> Answer:
    """What a team owns, or what is in a flow or a category."""
    for group in ("owners", "flows", "categories"):
        entity = context.entities[group].get(group_id)
        if entity:
            break
    else:
        return Answer("I don't find that in this project.", [])
    services, topics = entity["services"], entity["topics"]
    label = {
        "owners": f"Team {entity['name']} owns",
        "flows": f"The {entity['name']} flow has",
        "categories": f"The {entity['name']} category has",
    }[group]
    return Answer(
        f"{label} {len(services)} service{'s' if len(services) != 1 else ''} "
        f"({_names(context, services)}) and {len(topics)} "
        f"topic{'s' if len(topics) != 1 else ''} ({_names(context, topics)}).",
        [group_id, *services, *topics],
    )


def orphans(context: AssistantContext) -> Answer:
    topics = context.entities["topics"]
    unproduced = sorted(t for t, e in topics.items() if not e["producers"])
    unconsumed = sorted(t for t, e in topics.items() if not e["consumers"])
    parts = []
    parts.append(
        f"Topics with no producer: {_names(context, unproduced)}."
        if unproduced
        else "Every topic has a producer."
    )
    parts.append(
        f"Topics with no consumer: {_names(context, unconsumed)}."
        if unconsumed
        else "Every topic has a consumer."
    )
    return Answer(" ".join(parts), unproduced + unconsumed)


MAX_CYCLES = 1000


def cycles(context: AssistantContext, entity_id: str | None = None) -> Answer:
    """The cycles of the data flow, shortest first (or those through one entity)."""
    found = []
    for cycle in nx.simple_cycles(context.graph):
        found.append(cycle)
        if len(found) >= MAX_CYCLES:
            break
    total = f"{len(found)}{'+' if len(found) >= MAX_CYCLES else ''}"
    if entity_id is not None:
        found = [c for c in found if entity_id in c]
        if not found:
            return Answer(f"{_name(context, entity_id)} is not part of any cycle.", [entity_id])
    if not found:
        return Answer("There are no cycles: data never comes back to where it started.", [])
    found.sort(key=lambda c: (len(c), sorted(c)))
    subject = (
        f"{_name(context, entity_id)} is part of {len(found)} cycle{'s' if len(found) > 1 else ''}"
        if entity_id
        else f"There {'is' if total == '1' else 'are'} {total} cycle"
        f"{'' if total == '1' else 's'} in the data flow"
    )
    lines = [subject + (", the shortest:" if len(found) > 5 else ":")]
    for cycle in found[:5]:
        start = cycle.index(min(cycle))
        ordered = cycle[start:] + cycle[:start]
        lines.append("- " + " → ".join(_name(context, n) for n in ordered + ordered[:1]))
    return Answer("\n".join(lines), sorted({n for c in found[:5] for n in c}))


def _top(items: list[tuple[str, int]], least: int = 3) -> list[tuple[str, int]]:
    """The first `least` by count, and any tied with the last of them."""
    items = sorted(items, key=lambda item: (-item[1], item[0]))
    if len(items) <= least:
        return items
    cut = items[least - 1][1]
    return [item for item in items if item[1] >= cut][: max(least, 8)]


def busiest(context: AssistantContext, count: int = 3) -> Answer:
    graph = context.graph
    topics = [n for n in graph if graph.nodes[n]["type"] == "messaging"]
    services = [n for n in graph if graph.nodes[n]["type"] == "service"]
    consumed = _top([(t, graph.out_degree(t)) for t in topics], count)
    connected = _top([(s, graph.degree(s)) for s in services], count)
    consuming = _top([(s, graph.in_degree(s)) for s in services], 1)
    producing = _top([(s, graph.out_degree(s)) for s in services], 1)

    def listing(items, unit):
        return ", ".join(f"{_name(context, n)} ({c} {unit})" for n, c in items) or "none"

    text = (
        f"The most consumed topics: {listing(consumed, 'consumers')}. The services with "
        f"the most connections: {listing(connected, 'topics')}. Consuming the most "
        f"topics: {listing(consuming, 'topics')}; producing the most: "
        f"{listing(producing, 'topics')}."
    )
    references = list(dict.fromkeys(n for n, _ in consumed + connected + consuming + producing))
    return Answer(text, references)


def changes(context: AssistantContext, since: datetime) -> Answer:
    events = [e for e in context.history if e.at >= since]
    if not events:
        return Answer(f"Nothing changed since {since:%Y-%m-%d %H:%M} UTC.", [])
    counts = Counter(e.action for e in events)
    lines = [
        f"Since {since:%Y-%m-%d %H:%M} UTC: "
        + ", ".join(f"{n} {action}" for action, n in sorted(counts.items()))
    ]
    for event in events[:15]:
        lines.append(f"- {event.at:%Y-%m-%d} {event.service_name} {event.action} by {event.actor}")
    if len(events) > 15:
        lines.append(f"- and {len(events) - 15} more changes.")
    live = {f"service--{e.service_slug}" for e in events} & set(context.entities["services"])
    return Answer("\n".join(lines), sorted(live))


def summary(context: AssistantContext) -> Answer:
    e = context.entities
    graph = context.graph
    top = busiest(context, 1)
    top = Answer(top.reply.split(" Consuming")[0], top.references)
    unproduced = sum(1 for t in e["topics"].values() if not t["producers"])
    unconsumed = sum(1 for t in e["topics"].values() if not t["consumers"])
    text = (
        f"{context.project_name} has {len(e['services'])} services and "
        f"{len(e['topics'])} topics ({graph.number_of_edges()} produce and consume links), "
        f"in {len(e['categories'])} categories "
        f"({_names(context, sorted(e['categories']))}), owned by {len(e['owners'])} teams "
        f"and grouped in {len(e['flows'])} flows. {top.reply} {unproduced} topics have no "
        f"producer and {unconsumed} no consumer."
    )
    return Answer(text, top.references)
