"""A drawing that holds still (the mental map): the drawing of a graph that follows an earlier
drawing keeps every node that is still there, of the same size, exactly where it was; it places
only what is new, in free space beside its neighbours, and routes only the edges it must. When
the result has grown loose (its scale on a screen well under what a fresh layout of that much
would reach, or much of it new since the last fresh layout) it is laid out anew, rarely."""

import dataclasses
import math

import networkx as nx

from diagrams.rendering.layout import (
    DEFAULT_ASPECT,
    EdgeRoute,
    Layout,
    NodeBox,
    layout_layered,
    node_size,
)
from diagrams.rendering.wrapping import screen_score

LOOSE = 1.3  # laid out anew past this many times a fresh layout's estimated screen height
RENEWED = 0.5  # ... or once nodes added and gone since the last fresh layout pass this share
RENEWED_MIN = 12  # ... and this many of them (a growing small project does not re-lay itself
# out at every service)
CROSSINGS_MIN = 8  # ... or once the edges routed since have crossed others this many times
CROSSINGS_SHARE = 0.5  # ... and this share of the fresh layout's crossings
H_GAP = 40.0  # between a new node and its neighbour's column
CLEAR_X = 20.0  # a new node keeps this clear of other boxes sideways ...
CLEAR_Y = 12.0  # ... and up and down
STEP = 8.0  # the search for free space goes in steps this high ...
SEARCH = 80  # ... this many each way
CELL = 96.0  # the grid that finds what is near a box
BEND = 14.0  # an edge routed here bends this far from a box's side


def layout_next(
    previous: Layout | None,
    graph: nx.DiGraph,
    *,
    origin: tuple[float, float] = (0.0, 0.0),
    aspect: float = DEFAULT_ASPECT,
) -> Layout:
    """The drawing of `graph` that follows `previous` (None: a fresh layout)."""
    if previous is None or not previous.nodes:
        return layout_layered(graph, origin=origin, aspect=aspect)
    sizes = {
        node: node_size(data.get("label", node), data.get("type", "service"))
        for node, data in graph.nodes(data=True)
    }
    kept: dict[str, NodeBox] = {}
    for node, (width, height, lines) in sizes.items():
        box = previous.nodes.get(node)
        if box is not None and box.width == width and box.height == height:
            kept[node] = box._replace(lines=lines)
    if not kept:
        return _fresh(graph, origin, aspect)
    new = sorted(node for node in sizes if node not in kept)
    gone = sum(1 for node in previous.nodes if node not in sizes or node not in kept)
    basis = previous.basis
    changed = basis.changed + len(new) + gone
    if changed > max(RENEWED_MIN, RENEWED * basis.nodes):
        return _fresh(graph, origin, aspect)

    grid = _Grid()
    for box in kept.values():
        grid.add(box)
    old_routes = {(e.source, e.target): e for e in previous.edges}
    routes_kept = {}
    for source, target in graph.edges:
        route = old_routes.get((source, target))
        if route is not None and source in kept and target in kept:
            routes_kept[source, target] = route
    for route in routes_kept.values():
        for segment in _segments(route.points):
            grid.add_segment(segment)
    boxes = dict(kept)
    for node in _placing_order(graph, new, boxes):
        width, height, lines = sizes[node]
        x, y = _free_spot(graph, node, width, height, boxes, grid, origin)
        box = NodeBox(node, round(x, 1), round(y, 1), width, height, lines)
        boxes[node] = box
        grid.add(box)

    placed = [boxes[node] for node in new]
    edges = []
    routed = []
    for source, target, kind in sorted(graph.edges(data="kind", default="produces")):
        route = routes_kept.get((source, target))
        if route is not None and not any(_crosses_box(route.points, box) for box in placed):
            edges.append(route._replace(kind=kind))
        else:
            routed.append(len(edges))
            edges.append(_route(boxes[source], boxes[target], source, target, kind))
    added_crossings = basis.added_crossings + _crossings_of(edges, routed)
    if added_crossings > max(CROSSINGS_MIN, CROSSINGS_SHARE * basis.crossings):
        return _fresh(graph, origin, aspect)
    right = max(box.x + box.width for box in boxes.values())
    bottom = max(box.y + box.height for box in boxes.values())
    for edge in edges:
        for x, y in edge.points:
            right, bottom = max(right, x), max(bottom, y)
    width, height = round(right - origin[0], 1), round(bottom - origin[1], 1)
    extra = (2 * origin[0], origin[1] + origin[0])
    node_area = sum(box.width * box.height for box in boxes.values())
    expected = basis.score * math.sqrt(node_area / basis.area) if basis.area else 0.0
    if screen_score(width, height, aspect, extra) > LOOSE * max(expected, 1.0):
        return _fresh(graph, origin, aspect)
    return Layout(
        width=width,
        height=height,
        nodes=dict(sorted(boxes.items())),
        edges=tuple(edges),
        layers=previous.layers,
        dummies=previous.dummies,
        simplified=previous.simplified,
        basis=basis._replace(changed=changed, added_crossings=added_crossings),
    )


def _fresh(graph: nx.DiGraph, origin: tuple[float, float], aspect: float) -> Layout:
    layout = layout_layered(graph, origin=origin, aspect=aspect)
    return dataclasses.replace(layout, relaid=True)


def _placing_order(graph: nx.DiGraph, new: list[str], boxes: dict[str, NodeBox]) -> list[str]:
    """New nodes, each next the one with the most neighbours already placed (ties: by id), so
    a new service and its new topics go in beside what they are wired to."""
    waiting = set(new)
    placed = set(boxes)
    order = []
    while waiting:
        best = min(
            waiting,
            key=lambda v: (
                -sum(1 for u in nx.all_neighbors(graph, v) if u in placed),
                v,
            ),
        )
        waiting.remove(best)
        placed.add(best)
        order.append(best)
    return order


def _free_spot(
    graph: nx.DiGraph,
    node: str,
    width: float,
    height: float,
    boxes: dict[str, NodeBox],
    grid: "_Grid",
    origin: tuple[float, float],
) -> tuple[float, float]:
    """The top-left corner of the free place nearest where the node's neighbours want it:
    right of what feeds it, left of what it feeds, level with their middle."""
    before = [boxes[u] for u in graph.predecessors(node) if u in boxes]
    after = [boxes[w] for w in graph.successors(node) if w in boxes]
    near = before + after
    if before:
        x = max(box.x + box.width for box in before) + H_GAP
    elif after:
        x = min(box.x for box in after) - H_GAP - width
    else:
        x = origin[0]
    if near:
        y = sum(box.y + box.height / 2 for box in near) / len(near) - height / 2
    else:  # nothing to be near: under everything, on the left
        y = max(box.y + box.height for box in boxes.values()) + 2 * CLEAR_Y
    x, y = max(x, origin[0]), max(y, origin[1])
    for shift in range(SEARCH + 1):
        for dy in (0.0,) if shift == 0 else (shift * STEP, -shift * STEP):
            for dx in (0.0, width / 2 + H_GAP, -(width / 2 + H_GAP)):
                cx, cy = x + dx, y + dy
                if cx < origin[0] or cy < origin[1]:
                    continue
                if grid.free(cx - CLEAR_X, cy - CLEAR_Y, width + 2 * CLEAR_X, height + 2 * CLEAR_Y):
                    return cx, cy
    # no room near: under everything
    bottom = max(box.y + box.height for box in boxes.values())
    return x, bottom + 2 * CLEAR_Y


def _route(source: NodeBox, target: NodeBox, s: str, t: str, kind: str) -> EdgeRoute:
    """An edge between two placed boxes: out of the source's right side, into the target's left;
    round under both when the target is not to the right."""
    sx, sy = source.x + source.width, source.y + source.height / 2
    tx, ty = target.x, target.y + target.height / 2
    if tx >= sx + 2 * BEND:
        middle = round((sx + tx) / 2, 1)
        points = [(sx, sy), (middle, sy), (middle, ty), (tx, ty)]
    else:
        below = max(source.y + source.height, target.y + target.height) + BEND
        points = [
            (sx, sy),
            (sx + BEND, sy),
            (sx + BEND, below),
            (tx - BEND, below),
            (tx - BEND, ty),
            (tx, ty),
        ]
    return EdgeRoute(s, t, kind, tuple((round(x, 1), round(y, 1)) for x, y in points))


def _crossings_of(edges: list[EdgeRoute], routed: list[int]) -> int:
    """Proper crossings of the edges at `routed` with every edge (pairs among them once)."""
    if not routed:
        return 0
    grid: dict[tuple[int, int], list[tuple[int, tuple]]] = {}
    for index, edge in enumerate(edges):
        for a, b in zip(edge.points, edge.points[1:], strict=False):
            x0, x1 = sorted((a[0], b[0]))
            y0, y1 = sorted((a[1], b[1]))
            for i in range(int(x0 // CELL), int(x1 // CELL) + 1):
                for j in range(int(y0 // CELL), int(y1 // CELL) + 1):
                    grid.setdefault((i, j), []).append((index, (a, b)))
    mine = set(routed)
    found = set()
    for index in routed:
        edge = edges[index]
        for a, b in zip(edge.points, edge.points[1:], strict=False):
            x0, x1 = sorted((a[0], b[0]))
            y0, y1 = sorted((a[1], b[1]))
            for i in range(int(x0 // CELL), int(x1 // CELL) + 1):
                for j in range(int(y0 // CELL), int(y1 // CELL) + 1):
                    for other, (c, d) in grid.get((i, j), ()):
                        if other == index or (other in mine and other < index):
                            continue
                        if _proper(a, b, c, d):
                            found.add((index, other, a, b, c, d))
    return len(found)


def _proper(a, b, c, d) -> bool:
    """Whether segments ab and cd cross at a point inside both."""

    def side(p, q, r) -> float:
        return (q[0] - p[0]) * (r[1] - p[1]) - (q[1] - p[1]) * (r[0] - p[0])

    return side(a, b, c) * side(a, b, d) < 0 and side(c, d, a) * side(c, d, b) < 0


def _segments(points) -> list[tuple[float, float, float, float]]:
    return [
        (min(x0, x1), min(y0, y1), abs(x1 - x0), abs(y1 - y0))
        for (x0, y0), (x1, y1) in zip(points, points[1:], strict=False)
    ]


def _crosses_box(points, box: NodeBox) -> bool:
    return any(
        _overlap((x, y, w, h), (box.x, box.y, box.width, box.height))
        for x, y, w, h in _segments(points)
    )


def _overlap(a: tuple[float, float, float, float], b: tuple[float, float, float, float]) -> bool:
    ax, ay, aw, ah = a
    bx, by, bw, bh = b
    return ax <= bx + bw and bx <= ax + aw and ay <= by + bh and by <= ay + ah


class _Grid:
    """Boxes and edge segments by the cells they touch, to ask whether a place is free."""

    def __init__(self) -> None:
        self.cells: dict[tuple[int, int], list[tuple[float, float, float, float]]] = {}

    def _add(self, rect: tuple[float, float, float, float]) -> None:
        x, y, w, h = rect
        for i in range(int(x // CELL), int((x + w) // CELL) + 1):
            for j in range(int(y // CELL), int((y + h) // CELL) + 1):
                self.cells.setdefault((i, j), []).append(rect)

    def add(self, box: NodeBox) -> None:
        self._add((box.x, box.y, box.width, box.height))

    def add_segment(self, segment: tuple[float, float, float, float]) -> None:
        self._add(segment)

    def free(self, x: float, y: float, w: float, h: float) -> bool:
        rect = (x, y, w, h)
        for i in range(int(x // CELL), int((x + w) // CELL) + 1):
            for j in range(int(y // CELL), int((y + h) // CELL) + 1):
                for other in self.cells.get((i, j), ()):
                    if _overlap(rect, other):
                        return False
        return True
