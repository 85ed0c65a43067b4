"""Layout invariants of the layered layout (pure: no database)."""

import json
import random
from itertools import combinations, pairwise
from pathlib import Path

import networkx as nx
import pytest

from diagrams.entities import ServiceState
from diagrams.rendering.graph import project_graph
from diagrams.rendering.layout import layout_layered
from diagrams.rendering.svg import graph_origin, svg_document
from diagrams.rendering.text import text_width

ARCHITECTURES = Path(__file__).resolve().parents[3] / "shared" / "bench" / "architectures"


def service(name, produces=(), consumes=(), category=None):
    return ServiceState(
        slug=name.lower(),
        name=name,
        category=category,
        produces=tuple({"name": t} for t in produces),
        consumes=tuple({"name": t} for t in consumes),
    )


def random_architecture(seed: int, size: int) -> list[ServiceState]:
    rng = random.Random(seed)
    topics = [f"topic-{i}" for i in range(size)]
    return [
        service(
            f"svc-{i}",
            produces=rng.sample(topics, rng.randint(0, 3)),
            consumes=rng.sample(topics, rng.randint(0, 3)),
            category=rng.choice([None, "core", "edge", "data"]),
        )
        for i in range(size)
    ]


def shared_architecture(name: str) -> list[ServiceState]:
    data = json.loads((ARCHITECTURES / f"{name}.json").read_text())
    return [
        ServiceState(
            slug=s["name"],
            name=s["name"],
            category=s.get("category"),
            produces=tuple(s.get("produces", [])),
            consumes=tuple(s.get("consumes", [])),
        )
        for s in data["services"]
    ]


def boxes_overlap(a, b) -> bool:
    return (
        a.x < b.x + b.width
        and b.x < a.x + a.width
        and a.y < b.y + b.height
        and b.y < a.y + a.height
    )


def assert_invariants(graph: nx.DiGraph):
    layout = layout_layered(graph)
    assert set(layout.nodes) == set(graph.nodes)
    boxes = list(layout.nodes.values())
    for a, b in combinations(boxes, 2):
        assert not boxes_overlap(a, b), (a.id, b.id)
    for box in boxes:
        assert 0 <= box.x and box.x + box.width <= layout.width + 0.05
        assert 0 <= box.y and box.y + box.height <= layout.height + 0.05
    assert {(e.source, e.target) for e in layout.edges} == set(graph.edges)
    for edge in layout.edges:
        for x, y in edge.points:
            assert 0 <= x <= layout.width + 0.05 and 0 <= y <= layout.height + 0.05
        source, target = layout.nodes[edge.source], layout.nodes[edge.target]
        start, end = edge.points[0], edge.points[-1]
        assert start[0] in (source.x, source.x + source.width)  # leaves from a side
        assert source.y <= start[1] <= source.y + source.height
        assert end[0] in (target.x, target.x + target.width)  # arrives at a side
        assert target.y <= end[1] <= target.y + target.height
    return layout


@pytest.mark.parametrize("seed", range(6))
def test_random_graphs_keep_every_invariant(seed):
    graph, _ = project_graph(random_architecture(seed, 25 + seed * 10))
    assert_invariants(graph)


def test_every_edge_of_an_acyclic_graph_goes_left_to_right():
    graph, _ = project_graph(
        [
            service("Gateway", produces=["requests"]),
            service("Orders", consumes=["requests"], produces=["orders", "audit"]),
            service("Billing", consumes=["orders"], produces=["invoices", "audit"]),
            service("Mailer", consumes=["invoices", "orders"]),
            service("Archive", consumes=["audit", "invoices"]),
        ]
    )
    assert nx.is_directed_acyclic_graph(graph)
    layout = assert_invariants(graph)
    for edge in layout.edges:
        source, target = layout.nodes[edge.source], layout.nodes[edge.target]
        assert source.x + source.width <= target.x
        xs = [x for x, _ in edge.points]
        assert xs == sorted(xs)


def test_a_cycle_is_drawn_with_one_edge_turned_back_and_nothing_overlapping():
    graph, _ = project_graph(
        [
            service("A", produces=["a-out"], consumes=["c-out"]),
            service("B", produces=["b-out"], consumes=["a-out"]),
            service("C", produces=["c-out"], consumes=["b-out"]),
        ]
    )
    layout = assert_invariants(graph)
    backwards = [e for e in layout.edges if layout.nodes[e.source].x > layout.nodes[e.target].x]
    assert len(backwards) == 1


def test_a_long_edge_is_straight_when_nothing_is_in_its_way():
    graph, _ = project_graph(
        [
            service("Start", produces=["t1", "direct"]),
            service("Middle", consumes=["t1"], produces=["t2"]),
            service("End", consumes=["t2", "direct"]),
        ]
    )
    layout = assert_invariants(graph)
    route = next(e for e in layout.edges if e.source == "messaging--direct")
    ys = {round(y) for _, y in route.points}
    assert len(route.points) >= 2 and len(ys) <= 2  # at most one bend


def test_the_same_state_gives_byte_identical_output_whatever_the_order():
    states = random_architecture(7, 40)
    first, _ = project_graph(states)
    shuffled = list(states)
    random.Random(1).shuffle(shuffled)
    second, _ = project_graph(shuffled)
    svg_a = svg_document(first, layout_layered(first, origin=graph_origin()), title="P", when="now")
    svg_b = svg_document(
        second, layout_layered(second, origin=graph_origin()), title="P", when="now"
    )
    assert svg_a == svg_b
    assert layout_layered(first) == layout_layered(second)


def test_disconnected_parts_are_packed_side_by_side():
    graph, _ = project_graph([service(f"Lonely {i}") for i in range(40)])
    layout = assert_invariants(graph)
    assert layout.width < 4 * layout.height and layout.height < 4 * layout.width
    columns = {box.x for box in layout.nodes.values()}
    assert len(columns) > 3


def test_boxes_fit_their_labels():
    names = [
        "A",
        "Order API",
        "W" * 60,
        "orders.payment-events.v2.dead-letter-queue",
        "Zürich 日本語のサービス",
        "x" * 255,
    ]
    graph, _ = project_graph([service(n, produces=[f"{n} out"]) for n in names])
    layout = assert_invariants(graph)
    for box in layout.nodes.values():
        assert 1 <= len(box.lines) <= 3
        for line in box.lines:
            assert text_width(line, 12) <= box.width - 2 * 12 + 0.01


def test_empty_graph_has_an_empty_layout():
    layout = layout_layered(nx.DiGraph())
    assert layout.nodes == {} and layout.edges == () and layout.width == 0


@pytest.mark.skipif(not ARCHITECTURES.exists(), reason="shared benchmark architectures absent")
def test_a_realistic_architecture_keeps_every_invariant():
    graph, _ = project_graph(shared_architecture("domains-50"))
    assert_invariants(graph)


def test_a_tangled_architecture_keeps_every_invariant(monkeypatch):
    # tangled (many crossings per edge): its layers come from network simplex, its order
    # from every start and sifting
    import diagrams.rendering.layout as layout_module

    least_dummies = []
    layered_dag = layout_module.layered_dag

    def spy(*args, **kwargs):
        least_dummies.append(kwargs.get("least_dummies", False))
        return layered_dag(*args, **kwargs)

    monkeypatch.setattr(layout_module, "layered_dag", spy)
    graph, _ = project_graph(random_architecture(2, 120))
    first = assert_invariants(graph)
    assert any(least_dummies)
    assert layout_layered(graph) == first


def test_a_part_over_the_budget_is_drawn_simply_keeping_every_invariant(monkeypatch):
    # The budget is cut to fit a small graph; the real one (300,000 nodes and dummies) is
    # exercised below. Simple drawing: same layers, no dummies, straight edges, no overlap.
    import diagrams.rendering.layout as layout_module

    states = random_architecture(3, 60)
    graph, _ = project_graph(states)
    full = layout_layered(graph)
    assert not full.simplified and full.dummies > 50
    monkeypatch.setattr(layout_module, "LAYOUT_BUDGET", 50)
    layout = assert_invariants(graph)
    assert layout.simplified and layout.dummies == 0
    assert layout.layers == full.layers
    for edge in layout.edges:
        assert len(edge.points) <= 4  # out of the source's column, across, into the target's
    shuffled = list(states)
    random.Random(2).shuffle(shuffled)
    assert layout_layered(project_graph(shuffled)[0]) == layout  # deterministic
    svg = svg_document(graph, layout, title="P", when="now")
    assert "simplified drawing" in svg
    assert "simplified drawing" not in svg_document(graph, full, title="P", when="now")


def test_a_huge_tangled_project_is_drawn_simply():
    # 1,000 services, each producing 5 and consuming 5 of 1,000 topics at random: fully laid
    # out it needs 525,046 nodes and dummies (12 s of crossing reduction and 0.4 GB here;
    # twice the size, 69 s and 0.9 GB). Over the budget, it is drawn simply.
    rng = random.Random(5)
    topics = [f"t-{i}" for i in range(1000)]
    states = []
    for i in range(1000):
        chosen = rng.sample(topics, 10)
        states.append(service(f"svc-{i}", produces=chosen[:5], consumes=chosen[5:]))
    graph, _ = project_graph(states)
    layout = layout_layered(graph)
    assert layout.simplified and layout.dummies == 0
    assert set(layout.nodes) == set(graph.nodes)
    assert {(e.source, e.target) for e in layout.edges} == set(graph.edges)
    columns: dict[float, list] = {}
    for box in layout.nodes.values():
        columns.setdefault(box.x + box.width / 2, []).append(box)
    for boxes in columns.values():  # stacked in their column, none on another
        boxes.sort(key=lambda b: b.y)
        for upper, lower in pairwise(boxes):
            assert upper.y + upper.height <= lower.y


def test_a_densely_wired_project_is_drawn_simply():
    # A few services each consuming the same 500 topics and producing the same other 500
    # (allowed: 500 each way) make no long edges but a dense ordering: 6 of them took 4.7 s
    # and 20 of them 28 s to order (found by a security re-check). Drawn simply instead.
    consumed = [f"c-{i}" for i in range(500)]
    produced = [f"p-{i}" for i in range(500)]
    states = [service(f"svc-{i}", produces=produced, consumes=consumed) for i in range(6)]
    graph, _ = project_graph(states)
    layout = layout_layered(graph)
    assert layout.simplified
    assert set(layout.nodes) == set(graph.nodes)
    assert {(e.source, e.target) for e in layout.edges} == set(graph.edges)


def test_a_data_lake_sink_is_still_laid_out_fully():
    # one service consuming 500 topics from 100 producers: a hub, not a dense tangle
    states = [
        service(f"producer-{i}", produces=[f"t-{i}-{j}" for j in range(5)]) for i in range(100)
    ]
    states.append(
        service("lake-sink", consumes=[f"t-{i}-{j}" for i in range(100) for j in range(5)])
    )
    layout = layout_layered(project_graph(states)[0])
    assert not layout.simplified
