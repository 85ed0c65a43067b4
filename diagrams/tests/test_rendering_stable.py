"""Screen-shaped drawings (rows toward an aspect) and drawings that hold still (pure: no
database)."""

import random

import pytest

from diagrams.rendering.graph import project_graph
from diagrams.rendering.layout import layout_layered
from diagrams.rendering.stable import layout_next
from diagrams.rendering.svg import graph_origin, svg_size
from diagrams.tests.test_rendering_layout import (
    assert_invariants,
    boxes_overlap,
    random_architecture,
    service,
    shared_architecture,
)

ORIGIN = graph_origin()


def chain(length: int):
    """A pipeline of `length` services, each consuming the topic the one before produces."""
    return project_graph(
        [
            service(f"Stage {i}", produces=[f"step-{i}"], consumes=[f"step-{i - 1}"] if i else [])
            for i in range(length)
        ]
    )[0]


def centres(layout) -> dict[str, tuple[float, float]]:
    return {n: (b.x + b.width / 2, b.y + b.height / 2) for n, b in layout.nodes.items()}


def label_at_fit(graph, layout) -> float:
    width, height = svg_size(graph, layout, title="P", when="now")
    return 12 * min(1280 / width, 720 / height)


def test_a_long_pipeline_is_folded_into_rows_toward_a_screen():
    graph = chain(30)
    layout = assert_invariants(graph)
    rows = {round(box.y, -2) for box in layout.nodes.values()}
    assert len(rows) >= 3
    width, height = svg_size(graph, layout, title="P", when="now")
    assert 1.0 <= width / height <= 3.5  # not a strip: 60 columns would be 40:1
    assert label_at_fit(graph, layout) >= 9  # readable on 1280 x 720 as a whole


def test_the_aspect_asked_for_shapes_the_drawing():
    graph = chain(30)
    wide = layout_layered(graph, origin=ORIGIN, aspect=16 / 9)
    tall = layout_layered(graph, origin=ORIGIN, aspect=0.6)
    assert tall.width < wide.width and tall.height > wide.height
    assert tall.width / tall.height < wide.width / wide.height


def test_a_drawing_that_fits_a_screen_is_not_folded():
    graph = chain(4)
    layout = layout_layered(graph, origin=ORIGIN)
    assert len({box.y for box in layout.nodes.values()}) == 1  # one row: a plain pipeline


@pytest.mark.parametrize("seed", range(6))
def test_folded_drawings_keep_every_invariant(seed):
    graph = project_graph(random_architecture(seed, 60))[0]
    for aspect in (0.5, 16 / 9, 4.0):
        assert_invariants_at(graph, aspect)


def assert_invariants_at(graph, aspect):
    layout = layout_layered(graph, aspect=aspect)
    boxes = list(layout.nodes.values())
    for i, a in enumerate(boxes):
        for b in boxes[i + 1 :]:
            assert not boxes_overlap(a, b), (a.id, b.id)
    for edge in layout.edges:
        source, target = layout.nodes[edge.source], layout.nodes[edge.target]
        start, end = edge.points[0], edge.points[-1]
        assert start[0] in (source.x, source.x + source.width)
        assert end[0] in (target.x, target.x + target.width)
        for x, y in edge.points:
            assert 0 <= x <= layout.width + 0.05 and 0 <= y <= layout.height + 0.05


def test_one_more_consumed_topic_moves_no_node():
    graph = project_graph(shared_architecture("domains-50"))[0]
    before = layout_layered(graph, origin=ORIGIN)
    rng = random.Random(46)
    services = sorted(n for n, kind in graph.nodes(data="type") if kind == "service")
    topics = sorted(n for n, kind in graph.nodes(data="type") if kind == "messaging")
    for _ in range(5):
        edited = graph.copy()
        while True:
            s, t = rng.choice(services), rng.choice(topics)
            if not graph.has_edge(t, s) and not graph.has_edge(s, t):
                break
        edited.add_edge(t, s, kind="consumes")
        after = layout_next(before, edited, origin=ORIGIN)
        assert not after.relaid
        assert centres(after) == centres(before)
        assert (t, s) in {(e.source, e.target) for e in after.edges}
        assert after.edges != before.edges


def test_a_new_service_is_placed_without_moving_the_others():
    states = random_architecture(3, 40)
    graph = project_graph(states)[0]
    before = layout_layered(graph, origin=ORIGIN)
    newcomer = service("Newcomer", produces=["fresh"], consumes=["topic-1"])
    grown = project_graph([*states, newcomer])[0]
    after = layout_next(before, grown, origin=ORIGIN)
    kept = centres(before)
    assert {n: c for n, c in centres(after).items() if n in kept} == kept
    boxes = list(after.nodes.values())
    for i, a in enumerate(boxes):
        for b in boxes[i + 1 :]:
            assert not boxes_overlap(a, b), (a.id, b.id)
    assert "service--newcomer" in after.nodes and "messaging--fresh" in after.nodes
    assert {(e.source, e.target) for e in after.edges} == set(grown.edges)


def test_a_removed_service_leaves_the_others_in_place():
    states = random_architecture(5, 40)
    before = layout_layered(project_graph(states)[0], origin=ORIGIN)
    after = layout_next(before, project_graph(states[1:])[0], origin=ORIGIN)
    assert all(before.nodes[n][:3] == box[:3] for n, box in after.nodes.items())


def test_following_is_deterministic():
    states = random_architecture(7, 30)
    before = layout_layered(project_graph(states)[0], origin=ORIGIN)
    grown = project_graph([*states, service("Late", produces=["late"], consumes=["topic-2"])])[0]
    assert layout_next(before, grown, origin=ORIGIN) == layout_next(before, grown, origin=ORIGIN)


def test_a_drawing_that_has_changed_much_is_laid_out_anew():
    small = project_graph(random_architecture(11, 10))[0]
    before = layout_layered(small, origin=ORIGIN)
    big = project_graph(random_architecture(11, 60))[0]  # six times as many services
    after = layout_next(before, big, origin=ORIGIN)
    assert after.relaid
    assert after.nodes == layout_layered(big, origin=ORIGIN).nodes
