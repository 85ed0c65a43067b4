"""A layered (Sugiyama) layout, left to right.

1. Cycles broken and layers assigned (layering.py): a small feedback arc set reversed, then
   longest-path layers relaxed towards shorter edges.
2. Edges spanning several layers get a dummy node per layer crossed.
3. Crossing reduction (ordering.py): dot's mincross, weighted-median sweeps and
   transpositions from several starts, vectorised with numpy.
4. Vertical placement (placement.py): nodes pulled towards their neighbours under the order
   and spacing constraints; long edges straightened.
5. Columns from the widest label of each layer; edges routed through their dummies.
6. Disconnected parts are laid out alone and packed side by side in rows.

Pure: a networkx graph in, coordinates out. Deterministic.
"""

import math
from dataclasses import dataclass

import networkx as nx
import numpy as np

from diagrams.rendering.layering import layered_dag
from diagrams.rendering.ordering import is_tangled, order_layers
from diagrams.rendering.placement import straighten, vertical_centres
from diagrams.rendering.text import text_width, wrap_label

FONT_SIZE = 12.0
LINE_HEIGHT = 15.0
PAD_X = 12.0
PAD_Y = 8.0
MAX_TEXT_WIDTH = 180.0
MAX_LINES = 3
MIN_NODE_WIDTH = 56.0
LAYER_GAP = 64.0  # between two columns
COMPONENT_GAP = 48.0


@dataclass(frozen=True)
class NodeBox:
    id: str
    x: float  # top-left corner
    y: float
    width: float
    height: float
    lines: tuple[str, ...]


@dataclass(frozen=True)
class EdgeRoute:
    source: str
    target: str
    kind: str
    points: tuple[tuple[float, float], ...]  # from the source's side to the target's side


@dataclass(frozen=True)
class Layout:
    width: float
    height: float
    nodes: dict[str, NodeBox]
    edges: tuple[EdgeRoute, ...]
    layers: int  # columns of the widest part
    dummies: int  # long-edge bends in all parts


def node_size(label: str, node_type: str) -> tuple[float, float, tuple[str, ...]]:
    """Width, height and wrapped lines of a node's box, from its measured label."""
    lines = wrap_label(label, font_size=FONT_SIZE, max_width=MAX_TEXT_WIDTH, max_lines=MAX_LINES)
    text = max(text_width(line, FONT_SIZE) for line in lines)
    height = len(lines) * LINE_HEIGHT + 2 * PAD_Y
    # topics have fully round ends: their text keeps clear of the half-circles
    pad = PAD_X + (height / 2 if node_type == "messaging" else 0) * 0.6
    width = max(MIN_NODE_WIDTH, math.ceil(text + 2 * pad))
    return float(width), float(height), tuple(lines)


# --- 1. cycle breaking -----------------------------------------------------------------------


# --- the whole pipeline ----------------------------------------------------------------------


@dataclass
class _Part:
    width: float
    height: float
    nodes: dict[str, NodeBox]
    edges: list[EdgeRoute]
    layers: int
    dummies: int


@dataclass
class _Layered:
    """A layered DAG with a dummy node for every layer a long edge crosses."""

    layer: list[int]
    up: list[list[int]]
    down: list[list[int]]
    chains: list[list[int]]  # per edge: its source, dummies and target, in layer order
    heights: list[float]
    dummy: list[bool]


def _with_dummies(n: int, directed: list[tuple[int, int, bool]], layer: list[int],
                  heights: list[float]) -> _Layered:
    layer, heights = list(layer), list(heights)
    dummy = [False] * n
    up: list[list[int]] = [[] for _ in range(n)]
    down: list[list[int]] = [[] for _ in range(n)]
    chains: list[list[int]] = []
    for a, b, _ in directed:
        chain = [a]
        previous = a
        for level in range(layer[a] + 1, layer[b]):
            d = len(heights)
            heights.append(0.0)
            dummy.append(True)
            layer.append(level)
            up.append([])
            down.append([])
            down[previous].append(d)
            up[d].append(previous)
            chain.append(d)
            previous = d
        down[previous].append(b)
        up[b].append(previous)
        chain.append(b)
        chains.append(chain)
    return _Layered(layer, up, down, chains, heights, dummy)


def _layout_component(ids: list[str], edges: list[tuple[str, str, str]],
                      sizes: dict[str, tuple[float, float, tuple[str, ...]]],
                      first: set[str]) -> _Part:
    n = len(ids)
    index = {node: i for i, node in enumerate(ids)}
    succ: list[list[int]] = [[] for _ in range(n)]
    pred: list[list[int]] = [[] for _ in range(n)]
    pairs = [(index[s], index[t], kind) for s, t, kind in edges]
    for s, t, _ in pairs:
        succ[s].append(t)
        pred[t].append(s)
    # edges in layering direction: (a, b) with a before b; `flipped` when reversed
    plain = [(s, t) for s, t, _ in pairs]
    directed, layer = layered_dag(n, succ, pred, plain)
    layered = _with_dummies(n, directed, layer, [sizes[node][1] for node in ids])
    ordering = order_layers(layered.layer, layered.up, layered.down, edges=len(pairs), real=n)
    if is_tangled(ordering, edges=len(pairs)):
        # A tangled graph is worth a second layering: depth-first from the services (the
        # graph's actors) rather than in id order; the one with fewer crossings wins.
        roots = sorted(range(n), key=lambda v: (ids[v] not in first, v))
        other_directed, other_layer = layered_dag(n, succ, pred, plain, roots)
        other = _with_dummies(n, other_directed, other_layer, [sizes[node][1] for node in ids])
        other_ordering = order_layers(other.layer, other.up, other.down, edges=len(pairs),
                                      real=n)
        if other_ordering.crossings() < ordering.crossings():
            directed, layered, ordering = other_directed, other, other_ordering
    layer, chains = layered.layer, layered.chains
    heights, dummy = layered.heights, layered.dummy
    total = len(heights)
    layers = ordering.layers
    heights_array, dummy_array = np.array(heights), np.array(dummy)
    centres = vertical_centres(ordering.graph, ordering, heights_array, dummy_array)
    straighten(chains, ordering.graph, ordering, centres, heights_array, dummy_array)
    y = centres.tolist()

    # columns
    column_width = [max((sizes[ids[v]][0] for v in nodes if v < n), default=0.0)
                    for nodes in layers]
    column_x = []
    x = 0.0
    for width in column_width:
        column_x.append(x)
        x += width + LAYER_GAP
    top = min((y[v] - heights[v] / 2 for v in range(total)), default=0.0)
    boxes: dict[str, NodeBox] = {}
    for v in range(n):
        width, height, lines = sizes[ids[v]]
        left = column_x[layer[v]] + (column_width[layer[v]] - width) / 2
        boxes[ids[v]] = NodeBox(ids[v], round(left, 1), round(y[v] - height / 2 - top, 1),
                                width, height, lines)
    bottom = max((y[v] + heights[v] / 2 - top for v in range(total)), default=0.0)

    routes = []
    for (s, t, kind), (_, _, flipped), chain in zip(pairs, directed, chains, strict=True):
        points: list[tuple[float, float]] = []
        for position, v in enumerate(chain):
            column = layer[v]
            cy = round(y[v] - top, 1)
            left_x, right_x = column_x[column], column_x[column] + column_width[column]
            if v < n:
                box = boxes[ids[v]]
                if position == 0:  # leaves from the right side, then to the column's edge
                    points.append((round(box.x + box.width, 1), cy))
                    if right_x > box.x + box.width:
                        points.append((round(right_x, 1), cy))
                else:  # enters from the column's edge to the left side
                    if left_x < box.x:
                        points.append((round(left_x, 1), cy))
                    points.append((round(box.x, 1), cy))
            else:
                points.append((round(left_x, 1), cy))
                if right_x > left_x:
                    points.append((round(right_x, 1), cy))
        if flipped:
            points.reverse()
        routes.append(EdgeRoute(ids[s], ids[t], kind, tuple(points)))
    width = column_x[-1] + column_width[-1] if layers else 0.0
    return _Part(width, bottom, boxes, routes, len(layers), total - n)


def _pack(parts: list[_Part]) -> tuple[list[tuple[float, float]], float, float]:
    """Shelf packing: parts in rows no wider than a roughly 16:10 canvas allows."""
    if not parts:
        return [], 0.0, 0.0
    area = sum((p.width + COMPONENT_GAP) * (p.height + COMPONENT_GAP) for p in parts)
    row_width = max(max(p.width for p in parts), math.sqrt(area * 1.6))
    offsets = []
    x = y = row_height = 0.0
    width = 0.0
    for part in parts:
        if x > 0 and x + part.width > row_width:
            y += row_height + COMPONENT_GAP
            x = row_height = 0.0
        offsets.append((x, y))
        width = max(width, x + part.width)
        x += part.width + COMPONENT_GAP
        row_height = max(row_height, part.height)
    return offsets, width, y + row_height


def layout_layered(graph: nx.DiGraph, *, origin: tuple[float, float] = (0.0, 0.0)) -> Layout:
    """Lay the graph out left to right; coordinates start at `origin`."""
    sizes = {node: node_size(data.get("label", node), data.get("type", "service"))
             for node, data in graph.nodes(data=True)}
    services = {node for node, kind in graph.nodes(data="type") if kind == "service"}
    components = [sorted(c) for c in nx.weakly_connected_components(graph)]
    components.sort(key=lambda c: (-len(c), c[0]))
    parts = []
    for component in components:
        members = set(component)
        edges = sorted((s, t, graph.edges[s, t].get("kind", "produces"))
                       for s in component for t in graph.successors(s) if t in members)
        parts.append(_layout_component(component, edges, sizes, services))
    # big parts first, then by height: rows stay even
    order = sorted(range(len(parts)), key=lambda i: (-parts[i].height, -parts[i].width, i))
    parts = [parts[i] for i in order]
    offsets, width, height = _pack(parts)
    ox, oy = origin
    nodes: dict[str, NodeBox] = {}
    edges: list[EdgeRoute] = []
    for part, (dx, dy) in zip(parts, offsets, strict=True):
        for box in part.nodes.values():
            nodes[box.id] = NodeBox(box.id, round(box.x + dx + ox, 1), round(box.y + dy + oy, 1),
                                    box.width, box.height, box.lines)
        for route in part.edges:
            points = tuple((round(px + dx + ox, 1), round(py + dy + oy, 1))
                           for px, py in route.points)
            edges.append(EdgeRoute(route.source, route.target, route.kind, points))
    edges.sort(key=lambda e: (e.source, e.target))
    return Layout(width=round(width, 1), height=round(height, 1),
                  nodes=dict(sorted(nodes.items())), edges=tuple(edges),
                  layers=max((p.layers for p in parts), default=0),
                  dummies=sum(p.dummies for p in parts))
