"""What the assistant can find out: each function answers one kind of question from the graph
or history, in sentences, with the entity ids it used; for the analyst and as LLM tools.

Long because each kind of question needs its own wording of the answer (counts, ties, "and N
more"), and cycles need bounded algorithms so a big tangled project stays cheap."""

from collections import Counter
from datetime import datetime
from itertools import islice

import networkx as nx

from diagrams.assistant.context import Answer, AssistantContext
from diagrams.rendering.text import counted


def _name(context: AssistantContext, entity_id: str) -> str:
    if entity_id in context.graph:
        return context.graph.nodes[entity_id]["label"]
    for group in ("owners", "flows", "categories"):
        if entity_id in context.entities[group]:
            return context.entities[group][entity_id]["name"]
    return entity_id


def _names(context: AssistantContext, ids, limit: int | None = None) -> str:
    """a, b and c; past `limit`, the first `limit` and "and N more"."""
    names = [_name(context, i) for i in ids]
    if not names:
        return "nothing"
    if limit is not None and len(names) > limit:
        return ", ".join(names[:limit]) + f" and {len(names) - limit:,} more"
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


LISTED = 20  # names a list shows before "and N more"


_count = counted  # 1 service, 3 services, 1,575 cycles, 2 categories


def _who(context: AssistantContext, ids: list[str], verb: str) -> str:
    """Billing consumes, Billing and Mailer consume, 25 services consume: a long list says
    how many first."""
    if len(ids) > 3:
        return f"{_count(len(ids), 'service')} {verb}"
    return f"{_names(context, ids)} {verb}{'s' if len(ids) == 1 else ''}"


def _members_of(context: AssistantContext, ids: list[str], verb: str, what: str) -> str:
    """Billing and Mailer consume orders.placed; or for more than three, 99 services
    consume platform.metrics: a, b, ... and 79 more."""
    if len(ids) > 3:
        return f"{_who(context, ids, verb)} {what}: {_names(context, ids, LISTED)}."
    return f"{_who(context, ids, verb)} {what}."


def producers(context: AssistantContext, topic_id: str) -> Answer:
    topic = context.entities["topics"][topic_id]
    ids = topic["producers"]
    if not ids:
        consumers = topic["consumers"]
        return Answer(
            f"Nothing in the project produces {topic['name']}; "
            + (
                _members_of(context, consumers, "consume", "it")
                if consumers
                else "nothing consumes it either."
            ),
            [topic_id, *consumers],
        )
    return Answer(_members_of(context, ids, "produce", topic["name"]), [topic_id, *ids])


def consumers(context: AssistantContext, topic_id: str) -> Answer:
    topic = context.entities["topics"][topic_id]
    ids = topic["consumers"]
    if not ids:
        producers = topic["producers"]
        return Answer(
            f"Nothing in the project consumes {topic['name']}; "
            + (
                _members_of(context, producers, "produce", "it")
                if producers
                else "nothing produces it either."
            ),
            [topic_id, *producers],
        )
    return Answer(_members_of(context, ids, "consume", topic["name"]), [topic_id, *ids])


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


def impact(context: AssistantContext, entity_id: str, upstream: bool = False) -> Answer:
    """Everything downstream of a failing service or topic, with the path to each service;
    or (`upstream`) everything it depends on, with the path from each."""
    if upstream:
        return _depends_on(context, entity_id)
    graph = context.graph
    reached = nx.single_source_shortest_path(graph, entity_id)
    affected = sorted(
        (n for n in reached if n != entity_id and graph.nodes[n]["type"] == "service"),
        key=lambda n: (len(reached[n]), n),
    )
    name = _name(context, entity_id)
    if not affected:
        because = (
            "no other service consumes what it produces"
            if graph.nodes[entity_id]["type"] == "service"
            else "no service consumes it"
        )
        return Answer(f"If {name} fails, no other service is affected: {because}.", [entity_id])
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


def _depends_on(context: AssistantContext, entity_id: str) -> Answer:
    graph = context.graph
    reached = nx.single_source_shortest_path(graph.reverse(copy=False), entity_id)
    sources = sorted(
        (n for n in reached if n != entity_id and graph.nodes[n]["type"] == "service"),
        key=lambda n: (len(reached[n]), n),
    )
    name = _name(context, entity_id)
    if not sources:
        return Answer(
            f"{name} depends on no other service: nothing else produces what it consumes.",
            [entity_id],
        )
    lines = [f"{name} depends on {_count(len(sources), 'service')} upstream:"]
    for node in sources[:12]:
        via = " → ".join(_name(context, p) for p in reversed(reached[node]))
        lines.append(f"- {_name(context, node)} (via {via})")
    if len(sources) > 12:
        lines.append(f"- and {len(sources) - 12:,} more.")
    topics = sorted(n for n in reached if n != entity_id and graph.nodes[n]["type"] == "messaging")
    return Answer("\n".join(lines), [entity_id, *sources, *topics])


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
    lines = [f"Data gets from {a} to {b} in {_count(len(paths[0]) - 1, 'step')}:"]
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
        f"{label} {_count(len(services), 'service')} ({_names(context, services, LISTED)}) "
        f"and {_count(len(topics), 'topic')} ({_names(context, topics, LISTED)}).",
        [group_id, *services, *topics],
    )


def orphans(context: AssistantContext) -> Answer:
    topics = context.entities["topics"]
    unproduced = sorted(t for t, e in topics.items() if not e["producers"])
    unconsumed = sorted(t for t, e in topics.items() if not e["consumers"])
    parts = []
    parts.append(
        f"{_count(len(unproduced), 'topic')} {'has' if len(unproduced) == 1 else 'have'} no "
        f"producer: {_names(context, unproduced, LISTED)}."
        if unproduced
        else "Every topic has a producer."
    )
    parts.append(
        f"{_count(len(unconsumed), 'topic')} {'has' if len(unconsumed) == 1 else 'have'} no "
        f"consumer: {_names(context, unconsumed, LISTED)}."
        if unconsumed
        else "Every topic has a consumer."
    )
    return Answer(" ".join(parts), unproduced + unconsumed)


MAX_CYCLES = 200  # cycles counted one by one at most; beyond, "at least"
CYCLE_WORK = 1_000_000  # cycles counted x nodes on loops: the enumeration's budget
SHOWN_CYCLES = 5


def _on_loops(graph: nx.DiGraph) -> dict[str, frozenset]:
    """Every node that lies on a cycle, with its loop: the strongly connected component it
    shares with every node its data can come back through."""
    loops = {}
    for component in nx.strongly_connected_components(graph):
        node = next(iter(component))
        if len(component) > 1 or graph.has_edge(node, node):
            component = frozenset(component)
            loops.update(dict.fromkeys(component, component))
    return loops


def _all_cycles(graph: nx.DiGraph, loops: dict) -> tuple[list[list[str]], int]:
    """Every cycle when there are few enough to list (else none), and their number (else a
    lower bound of it)."""
    components = set(loops.values())
    # a strongly connected graph has a basis of edges - nodes + 1 directed cycles (Berge):
    # a lower bound on the count, without listing them
    least = sum(graph.subgraph(c).number_of_edges() - len(c) + 1 for c in components)
    if not loops or least >= MAX_CYCLES:
        return [], least
    limit = min(MAX_CYCLES, max(1, CYCLE_WORK // len(loops)))
    found = list(islice(nx.simple_cycles(graph.subgraph(loops)), limit))
    if len(found) >= limit:
        return [], max(least, len(found))
    return found, len(found)


def _shortest_through(graph: nx.DiGraph, loop: frozenset, start: str, limit: float) -> list:
    """The shortest cycles through `start` (one per predecessor on its loop, at most `limit`
    nodes) by one breadth-first search, and how many nodes it reached."""
    parents, frontier, depth = {start: None}, [start], 1
    targets = {p for p in graph.predecessors(start) if p in loop}
    cycles = []
    while frontier and depth <= limit:
        ahead = []
        for node in frontier:
            if node in targets:
                cycle, at = [], node
                while at is not None:
                    cycle.append(at)
                    at = parents[at]
                cycles.append(cycle[::-1])
            for nxt in sorted(graph.successors(node)):
                if nxt in loop and nxt not in parents:
                    parents[nxt] = node
                    ahead.append(nxt)
        frontier, depth = ahead, depth + 1
    return cycles, len(parents)


def _rotated(cycle: list[str]) -> tuple[str, ...]:
    start = cycle.index(min(cycle))
    return tuple(cycle[start:] + cycle[:start])


def _shortest_cycles(graph: nx.DiGraph, loops: dict, through: str | None) -> list:
    """The SHOWN_CYCLES shortest cycles (through one node, or anywhere) without listing them all;
    anywhere, the search stops after CYCLE_WORK nodes reached: the shortest of those seen."""
    best: list[tuple] = []
    work = 0
    for start in [through] if through else sorted(loops):
        if work > CYCLE_WORK:
            break
        limit = len(best[-1]) if len(best) >= SHOWN_CYCLES else float("inf")
        cycles, visited = _shortest_through(graph, loops[start], start, limit)
        work += visited
        best = sorted({*best, *map(_rotated, cycles)}, key=lambda c: (len(c), sorted(c)))
        best = best[:SHOWN_CYCLES]
    return [list(c) for c in best]


def _cycle_facts(graph: nx.DiGraph) -> tuple:
    loops = _on_loops(graph)
    return (loops, *_all_cycles(graph, loops))


def _derived(context: AssistantContext, name: str, work):
    """`work()`, done once per project state: the context is kept for the next question
    on the same state (project_context.assistant_context)."""
    if name not in context.derived:
        context.derived[name] = work()
    return context.derived[name]


def _cycle_line(context: AssistantContext, cycle: list[str]) -> str:
    ordered = list(_rotated(cycle))
    return "- " + " → ".join(_name(context, n) for n in ordered + ordered[:1])


def cycles(context: AssistantContext, entity_id: str | None = None) -> Answer:
    """The cycles of the data flow (or through one entity), shortest first: exact while few; with
    many, only being on one is exact, the count a lower bound, those shown the shortest found."""
    graph = context.graph
    loops, every, least = _derived(context, "cycles", lambda: _cycle_facts(graph))
    if entity_id is not None and entity_id not in loops:
        return Answer(f"{_name(context, entity_id)} is not part of any cycle.", [entity_id])
    if not loops:
        return Answer("There are no cycles: data never comes back to where it started.", [])
    if every:
        shown = every if entity_id is None else [c for c in every if entity_id in c]
        shown = sorted(shown, key=lambda c: (len(c), sorted(c)))
        count, exact = len(shown), True
        shown = shown[:SHOWN_CYCLES]
    else:
        shown = (
            _shortest_cycles(graph, loops, entity_id)  # one search from it: cheap
            if entity_id is not None
            else _derived(context, "shortest cycles", lambda: _shortest_cycles(graph, loops, None))
        )
        count, exact = least, False
    loop = loops[entity_id] if entity_id is not None else loops
    services = sum(1 for n in loop if graph.nodes[n]["type"] == "service")
    within = f"{_count(services, 'service')} and {_count(len(loop) - services, 'topic')}"
    if exact:
        subject = (
            f"{_name(context, entity_id)} is part of {_count(count, 'cycle')}"
            if entity_id is not None
            else f"There {'is' if count == 1 else 'are'} {_count(count, 'cycle')} in the "
            f"data flow, through {within}"
        )
        lead = ", the shortest:" if count > SHOWN_CYCLES else ":"
    elif entity_id is not None:
        subject = (
            f"{_name(context, entity_id)} is part of a cycle: data it passes on comes back to "
            f"it, in a loop of {within}"
        )
        lead = ". The shortest through it:"
    else:
        subject = f"There are at least {_count(count, 'cycle')} in the data flow, through {within}"
        lead = ". Some of the shortest:"
    lines = [subject + lead] + [_cycle_line(context, c) for c in shown]
    return Answer("\n".join(lines), sorted({n for c in shown for n in c}))


TIED_SHOWN = 8  # of the entries tied with the last of the top ones


def _top(items: list[tuple[str, int]], least: int = 3) -> tuple[list[tuple[str, int]], int]:
    """The first `least` by count, and those tied with the last of them (up to TIED_SHOWN
    in all); and how many more are tied that are not shown."""
    items = sorted(((n, c) for n, c in items if c > 0), key=lambda item: (-item[1], item[0]))
    if len(items) <= least:
        return items, 0
    cut = items[least - 1][1]
    tied = [item for item in items if item[1] >= cut]
    shown = tied[: max(least, TIED_SHOWN)]
    return shown, len(tied) - len(shown)


def busiest(context: AssistantContext, count: int = 3) -> Answer:
    graph = context.graph
    topics = [n for n in graph if graph.nodes[n]["type"] == "messaging"]
    services = [n for n in graph if graph.nodes[n]["type"] == "service"]
    consumed = _top([(t, graph.out_degree(t)) for t in topics], count)
    # topics a service touches (one it both produces and consumes counts once)
    touched = [(s, len(set(graph.predecessors(s)) | set(graph.successors(s)))) for s in services]
    connected = _top(touched, count)
    consuming = _top([(s, graph.in_degree(s)) for s in services], 1)
    producing = _top([(s, graph.out_degree(s)) for s in services], 1)

    def listing(top, unit):
        items, more = top
        text = ", ".join(f"{_name(context, n)} ({_count(c, unit)})" for n, c in items)
        if more:
            text += f" and {more:,} more with {_count(items[-1][1], unit)}"
        return text or "none"

    text = (
        f"The most consumed topics: {listing(consumed, 'consumer')}. The services with "
        f"the most connections: {listing(connected, 'topic')}. Consuming the most "
        f"topics: {listing(consuming, 'topic')}; producing the most: "
        f"{listing(producing, 'topic')}."
    )
    references = list(
        dict.fromkeys(n for top in (consumed, connected, consuming, producing) for n, _ in top[0])
    )
    return Answer(text, references)


def _history_of(context: AssistantContext, service_id: str) -> set[str]:
    """The services (ids of ServiceSnapshot.service) whose history a service's entity id
    names: the one now under that slug, through its renames."""
    slug = service_id.removeprefix("service--")
    for event in context.history:  # newest first
        if event.service_slug == slug:
            return {event.service_key}
    return set()


def changes(
    context: AssistantContext,
    since: datetime,
    service_id: str | None = None,
    *,
    until: datetime | None = None,
    former: tuple[str, str] | None = None,
) -> Answer:
    """What changed since a time (and before `until`), in the project, in one service, or in one
    renamed or deleted since (`former`: its id and a name it had)."""
    events = [e for e in context.history if e.at >= since and (until is None or e.at < until)]
    if former is not None:
        return _former_changes(context, events, former)
    when = f"since {since:%Y-%m-%d %H:%M} UTC"
    if until is not None:
        when = f"from {since:%Y-%m-%d %H:%M} to {until:%Y-%m-%d %H:%M} UTC"
    about = ""
    if service_id is not None:
        ids = _history_of(context, service_id)
        events = [e for e in events if e.service_key in ids]
        about = f" in {_name(context, service_id)}"
    if not events:
        return Answer(
            f"Nothing changed{about} {when}.",
            [service_id] if service_id else [],
        )
    counts = Counter(e.action for e in events)
    lines = [
        f"{when[0].upper()}{when[1:]}{about}: "
        + ", ".join(f"{n} {action}" for action, n in sorted(counts.items()))
    ]
    lines += _change_lines(events)
    live = {f"service--{e.service_slug}" for e in events} & set(context.entities["services"])
    return Answer("\n".join(lines), sorted(live))


def _change_lines(events: list, most: int = 15) -> list[str]:
    """A line a change, newest first: when, which service, what, by whom, and what it did;
    then how many more past `most`."""
    lines = []
    for event in events[:most]:
        what = f": {event.what}" if event.what else ""
        lines.append(
            f"- {event.at:%Y-%m-%d} {event.service_name} {event.action} by {event.actor}{what}"
        )
    if len(events) > most:
        lines.append(f"- and {len(events) - most} more changes.")
    return lines


def _former_changes(context: AssistantContext, events: list, former: tuple[str, str]) -> Answer:
    """The history of a service asked for by a name it no longer has: what it is called now
    (or that it was deleted), then its changes, newest first."""
    service, name = former
    own = [e for e in events if e.service_key == service]
    latest = next((e for e in context.history if e.service_key == service), None)
    if latest is None or latest.action == "deleted":
        said = f"{name} was deleted" + (f" on {latest.at:%Y-%m-%d}" if latest else "") + "."
        references = []
    else:
        said = f"{name} is now called {latest.service_name}."
        live = f"service--{latest.service_slug}"
        references = [live] if live in context.entities["services"] else []
    lines = [f"{said} Its changes, newest first:", *_change_lines(own)]
    return Answer("\n".join(lines), references)


def topic_moves(context: AssistantContext, topic_id: str, verb: str, gerund: str) -> Answer:
    """The services that stopped (started) consuming (producing) a topic, newest first, as
    the changes' own words say it (HistoryEvent.what)."""
    topic = context.entities["topics"].get(topic_id, {}).get("name", topic_id)
    lead = f"{verb} {gerund} "
    found = [
        event
        for event in context.history
        if any(
            part.startswith(lead) and topic in part[len(lead) :].split(", ")
            for part in event.what.split("; ")
        )
    ]
    if not found:
        return Answer(
            f"No service {verb} {gerund} {topic} in the history I have (its latest 5,000 changes).",
            [topic_id],
        )
    lines = [f"{_count(len(found), 'change')} {verb} {gerund} {topic}:"]
    for event in found[:15]:
        lines.append(f"- {event.at:%Y-%m-%d} {event.service_name}, by {event.actor}")
    if len(found) > 15:
        lines.append(f"- and {len(found) - 15:,} more.")
    live = {f"service--{e.service_slug}" for e in found} & set(context.entities["services"])
    return Answer("\n".join(lines), sorted(live | {topic_id}))


def summary(context: AssistantContext) -> Answer:
    e = context.entities
    graph = context.graph
    top = busiest(context, 1)
    top = Answer(top.reply.split(" Consuming")[0], top.references)
    unproduced = sum(1 for t in e["topics"].values() if not t["producers"])
    unconsumed = sum(1 for t in e["topics"].values() if not t["consumers"])
    if unproduced or unconsumed:
        ends = (
            f"{_count(unproduced, 'topic')} {'has' if unproduced == 1 else 'have'} no "
            f"producer and {unconsumed:,} no consumer."
        )
    else:
        ends = "Every topic has a producer and a consumer."
    categories = (
        f"in {_count(len(e['categories']), 'category', 'categories')} "
        f"({_names(context, sorted(e['categories']), 10)})"
        if e["categories"]
        else "in no category"
    )
    text = (
        f"{context.project_name} has {_count(len(e['services']), 'service')} and "
        f"{_count(len(e['topics']), 'topic')} "
        f"({_count(graph.number_of_edges(), 'produce and consume link')}), "
        f"{categories}, owned by {_count(len(e['owners']), 'team')} "
        f"and grouped in {_count(len(e['flows']), 'flow')}. {top.reply} {ends}"
    )
    return Answer(text, top.references)
