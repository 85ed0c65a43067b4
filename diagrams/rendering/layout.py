"""A deterministic layered (Sugiyama) layout, left to right: a networkx graph in, coordinates
out; disconnected parts are laid out alone and packed in rows."""

import math
from dataclasses import dataclass
from typing import NamedTuple

import networkx as nx
import numpy as np

from diagrams.rendering.layering import layered_dag
from diagrams.rendering.ordering import first_try, is_tangled, order_layers
from diagrams.rendering.placement import NODE_GAP, straighten, vertical_centres
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
# Nodes + dummies of a part above which it is drawn simply. Crossing reduction's time and
# memory grow with them and with how tangled the part is: domains-3000 (113,426) takes 3 s,
# random-3000 (241,552) 12 s and 245 MB, 1,000 services each on 10 random topics (525,046)
# 12 s and 0.4 GB, 2,000 such services (1.2 million) 69 s and 0.9 GB, past gunicorn's 30 s
# timeout. A drawing of that many long edges is unreadable either way.
LAYOUT_BUDGET = 200_000
# The ordering's swaps cost, per look at two neighbours, the product of their degrees: a part
# whose nodes' squared degrees sum past this (a few services each wired to hundreds of the
# same topics: 6 such services took 4.7 s, 20 took 28 s) is drawn simply too. Real projects
# stay far below it: the benchmark architectures' 3,000-service ones sum to 243,000-331,000.
DENSITY_BUDGET = 2_000_000
SIMPLE_PASSES = 8  # barycentre sweeps of a simple drawing (random-3000: 3.1 million crossings
# after 8, 3.2 after 4, 6.3 in id order; the full layout finds 1.9)


class NodeBox(NamedTuple):  # named tuples: thousands are made per layout, cheaply
    id: str
    x: float  # top-left corner
    y: float
    width: float
    height: float
    lines: tuple[str, ...]


class EdgeRoute(NamedTuple):
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
    simplified: bool = False  # some part was over LAYOUT_BUDGET and drawn simply


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
    """A laid-out component, in its own coordinates until `place` moves it onto the
    canvas (every coordinate is rounded once, where it ends up)."""

    width: float
    height: float
    layers: int
    dummies: int
    ids: list[str]
    left: list[float]  # per real node: its box's left side
    top: list[float]  # ... and top
    centre: list[float]  # per node and dummy: the height its edges run at
    layer: list[int]
    column_left: list[float]
    column_right: list[float]
    edges: list[tuple[str, str, str, bool, list[int]]]  # source, target, kind, flipped, chain
    simplified: bool = False

    def place(
        self, dx: float, dy: float, sizes: dict[str, tuple[float, float, tuple[str, ...]]]
    ) -> tuple[list[NodeBox], list[EdgeRoute]]:
        ids, layer = self.ids, self.layer
        boxes = []
        for v, node in enumerate(ids):
            width, height, lines = sizes[node]
            boxes.append(
                NodeBox(
                    node,
                    round(self.left[v] + dx, 1),
                    round(self.top[v] + dy, 1),
                    width,
                    height,
                    lines,
                )
            )
        column_left = [round(x + dx, 1) for x in self.column_left]
        column_right = [round(x + dx, 1) for x in self.column_right]
        ys = [round(y + dy, 1) for y in self.centre]
        routes = []
        for source, target, kind, flipped, chain in self.edges:
            start, end = boxes[chain[0]], boxes[chain[-1]]
            # leaves from the right side, runs level through every column it crosses (at
            # its dummy's height), enters at the left side. A level run is one segment:
            # `level` says the last two points share their height, so the last one moves.
            y = ys[chain[0]]
            points = [(start.x + start.width, y)]
            level = False
            right = column_right[layer[chain[0]]]
            if right > start.x + start.width:
                points.append((right, y))
                level = True
            for d in chain[1:-1]:
                column = layer[d]
                left, right = column_left[column], column_right[column]
                if ys[d] != y:
                    y = ys[d]
                    points.append((left, y))
                    level = False
                elif level:
                    points[-1] = (left, y)
                else:
                    points.append((left, y))
                    level = True
                if right > left:
                    if level:
                        points[-1] = (right, y)
                    else:
                        points.append((right, y))
                        level = True
            left = column_left[layer[chain[-1]]]
            for x in (left, end.x) if left < end.x else (end.x,):
                if ys[chain[-1]] != y:
                    y = ys[chain[-1]]
                    points.append((x, y))
                    level = False
                elif level:
                    points[-1] = (x, y)
                else:
                    points.append((x, y))
                    level = True
            if flipped:
                points.reverse()
            routes.append(EdgeRoute(source, target, kind, tuple(points)))
        return boxes, routes


@dataclass
class _Layered:
    """A layered DAG with a dummy node for every layer a long edge crosses."""

    layer: list[int]
    up: list[list[int]]
    down: list[list[int]]
    chains: list[list[int]]  # per edge: its source, dummies and target, in layer order
    heights: list[float]
    dummy: list[bool]


def _with_dummies(
    n: int, directed: list[tuple[int, int, bool]], layer: list[int], heights: list[float]
) -> _Layered:
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


def _layout_component(
    ids: list[str],
    edges: list[tuple[str, str, str]],
    sizes: dict[str, tuple[float, float, tuple[str, ...]]],
    services: set[str],
) -> _Part:
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
    # over a budget, draw simply: work and memory stay linear, so no project can stall a worker
    if (
        n + sum(layer[b] - layer[a] - 1 for a, b, _ in directed) > LAYOUT_BUDGET
        or sum((len(succ[v]) + len(pred[v])) ** 2 for v in range(n)) > DENSITY_BUDGET
    ):
        return _layout_simple(ids, pairs, directed, layer, sizes)
    heights = [sizes[node][1] for node in ids]
    layered = _with_dummies(n, directed, layer, heights)
    first = first_try(layered.layer, layered.up, layered.down, real=n, edges=len(pairs))
    if is_tangled(first, edges=len(pairs)):
        # A tangled graph: its long edges make most crossings, so its layers are the ones
        # with the fewest dummies (network simplex), from two cycle breakings (depth-first in
        # id order, and from the services, the graph's actors); each is ordered with every
        # try, and the one with fewer crossings wins.
        services_first = sorted(range(n), key=lambda v: (ids[v] not in services, v))
        chosen = None
        for roots in (None, services_first):
            candidate = layered_dag(n, succ, pred, plain, roots, least_dummies=True)
            candidate_layered = _with_dummies(n, candidate[0], candidate[1], heights)
            candidate_ordering = order_layers(
                candidate_layered.layer,
                candidate_layered.up,
                candidate_layered.down,
                edges=len(pairs),
                real=n,
                thorough=True,
            )
            crossings = candidate_ordering.crossings()
            if chosen is None or crossings < chosen[0]:
                chosen = (crossings, candidate[0], candidate_layered, candidate_ordering)
        _, directed, layered, ordering = chosen
    else:
        ordering = order_layers(
            layered.layer, layered.up, layered.down, edges=len(pairs), real=n, first=first
        )
    layer, chains = layered.layer, layered.chains
    heights, dummy = layered.heights, layered.dummy
    total = len(heights)
    layers = ordering.layers
    heights_array, dummy_array = np.array(heights), np.array(dummy)
    centres = vertical_centres(ordering.graph, ordering, heights_array, dummy_array)
    straighten(chains, ordering.graph, ordering, centres, heights_array, dummy_array)
    y = centres.tolist()

    column_x, column_width = _columns(ids, layers, sizes)
    top = min((y[v] - heights[v] / 2 for v in range(total)), default=0.0)
    bottom = max((y[v] + heights[v] / 2 - top for v in range(total)), default=0.0)
    left = []
    for v in range(n):
        column = layer[v]
        left.append(column_x[column] + (column_width[column] - sizes[ids[v]][0]) / 2)
    edges_out = [
        (ids[s], ids[t], kind, flipped, chain)
        for (s, t, kind), (_, _, flipped), chain in zip(pairs, directed, chains, strict=True)
    ]
    width = column_x[-1] + column_width[-1] if layers else 0.0
    return _Part(
        width,
        bottom,
        len(layers),
        total - n,
        ids,
        left,
        [y[v] - heights[v] / 2 - top for v in range(n)],
        [value - top for value in y],
        layer,
        column_x,
        [x + w for x, w in zip(column_x, column_width, strict=True)],
        edges_out,
    )


def _columns(
    ids: list[str], layers: list[list[int]], sizes: dict[str, tuple[float, float, tuple[str, ...]]]
) -> tuple[list[float], list[float]]:
    """Each layer's column: its left side and width (its widest label)."""
    n = len(ids)
    column_width = [
        max((sizes[ids[v]][0] for v in nodes if v < n), default=0.0) for nodes in layers
    ]
    column_x = []
    x = 0.0
    for width in column_width:
        column_x.append(x)
        x += width + LAYER_GAP
    return column_x, column_width


def _simple_order(layer: list[int], directed: list[tuple[int, int, bool]]) -> list[list[int]]:
    """Each layer's order for a simple drawing: SIMPLE_PASSES barycentre sweeps over the real
    nodes, each going to the mean relative place of its neighbours on the sweep's side."""
    n = len(layer)
    node_layer = np.array(layer, dtype=np.int64)
    depth = int(node_layer.max()) + 1
    size = np.bincount(node_layer, minlength=depth)
    start = np.concatenate(([0], np.cumsum(size)))
    ends = np.array([(a, b) for a, b, _ in directed], dtype=np.int64).reshape(-1, 2)
    a, b = ends[:, 0], ends[:, 1]
    levels = np.arange(depth + 1)
    into = np.argsort(node_layer[b], kind="stable")  # edges by the layer they enter
    into_at = np.searchsorted(node_layer[b][into], levels)
    out = np.argsort(node_layer[a], kind="stable")  # ... and by the layer they leave
    out_at = np.searchsorted(node_layer[a][out], levels)
    order = np.lexsort((np.arange(n), node_layer))  # layer after layer, in id order
    place = np.empty(n)
    place[order] = (np.arange(n) - start[node_layer[order]] + 0.5) / size[node_layer[order]]
    for sweep in range(SIMPLE_PASSES):
        down = sweep % 2 == 0
        for level in range(1, depth) if down else range(depth - 2, -1, -1):
            nodes = order[start[level] : start[level + 1]]
            if len(nodes) < 2:
                continue
            if down:
                edges = into[into_at[level] : into_at[level + 1]]
                mine, theirs = b[edges], a[edges]
            else:
                edges = out[out_at[level] : out_at[level + 1]]
                mine, theirs = a[edges], b[edges]
            pull = np.bincount(mine, weights=place[theirs], minlength=n)[nodes]
            count = np.bincount(mine, minlength=n)[nodes]
            key = np.where(count > 0, pull / np.maximum(count, 1), place[nodes])
            nodes = nodes[np.lexsort((place[nodes], key))]
            order[start[level] : start[level + 1]] = nodes
            place[nodes] = (np.arange(len(nodes)) + 0.5) / len(nodes)
    return [order[start[i] : start[i + 1]].tolist() for i in range(depth)]


def _layout_simple(
    ids: list[str],
    pairs: list[tuple[int, int, str]],
    directed: list[tuple[int, int, bool]],
    layer: list[int],
    sizes: dict[str, tuple[float, float, tuple[str, ...]]],
) -> _Part:
    """A part too big to untangle: usual layers and columns but no dummies, a few barycentre
    sweeps for the order, and every edge straight from its source to its target."""
    n = len(ids)
    layers = _simple_order(layer, directed)
    depth = len(layers)
    heights = [sizes[node][1] for node in ids]
    column_x, column_width = _columns(ids, layers, sizes)
    stacks = [sum(heights[v] for v in nodes) + NODE_GAP * (len(nodes) - 1) for nodes in layers]
    tallest = max(stacks)
    top = [0.0] * n
    for nodes, stack in zip(layers, stacks, strict=True):
        y = (tallest - stack) / 2
        for v in nodes:
            top[v] = y
            y += heights[v] + NODE_GAP
    left = [column_x[layer[v]] + (column_width[layer[v]] - sizes[ids[v]][0]) / 2 for v in range(n)]
    edges_out = [
        (ids[s], ids[t], kind, flipped, [first, last])
        for (s, t, kind), (first, last, flipped) in zip(pairs, directed, strict=True)
    ]
    return _Part(
        column_x[-1] + column_width[-1],
        tallest,
        depth,
        0,
        ids,
        left,
        top,
        [top[v] + heights[v] / 2 for v in range(n)],
        layer,
        column_x,
        [x + w for x, w in zip(column_x, column_width, strict=True)],
        edges_out,
        simplified=True,
    )


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
    sizes = {
        node: node_size(data.get("label", node), data.get("type", "service"))
        for node, data in graph.nodes(data=True)
    }
    services = {node for node, kind in graph.nodes(data="type") if kind == "service"}
    components = [sorted(c) for c in nx.weakly_connected_components(graph)]
    components.sort(key=lambda c: (-len(c), c[0]))
    parts = []
    for component in components:
        members = set(component)
        edges = sorted(
            (s, t, graph.edges[s, t].get("kind", "produces"))
            for s in component
            for t in graph.successors(s)
            if t in members
        )
        parts.append(_layout_component(component, edges, sizes, services))
    # big parts first, then by height: rows stay even
    order = sorted(range(len(parts)), key=lambda i: (-parts[i].height, -parts[i].width, i))
    parts = [parts[i] for i in order]
    offsets, width, height = _pack(parts)
    ox, oy = origin
    nodes: dict[str, NodeBox] = {}
    edges: list[EdgeRoute] = []
    for part, (dx, dy) in zip(parts, offsets, strict=True):
        boxes, routes = part.place(dx + ox, dy + oy, sizes)
        nodes.update((box.id, box) for box in boxes)
        edges.extend(routes)
    edges.sort(key=lambda e: (e.source, e.target))
    return Layout(
        width=round(width, 1),
        height=round(height, 1),
        nodes=dict(sorted(nodes.items())),
        edges=tuple(edges),
        layers=max((p.layers for p in parts), default=0),
        dummies=sum(p.dummies for p in parts),
        simplified=any(p.simplified for p in parts),
    )
