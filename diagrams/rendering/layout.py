"""A deterministic layered (Sugiyama) layout, left to right: a networkx graph in, coordinates
out; disconnected parts are laid out alone and packed in rows."""

import functools
import math
from dataclasses import dataclass
from typing import NamedTuple

import networkx as nx
import numpy as np

from diagrams.rendering.layering import layered_dag
from diagrams.rendering.ordering import first_try, order_layers
from diagrams.rendering.placement import DUMMY_GAP, NODE_GAP, straighten, vertical_centres
from diagrams.rendering.text import text_width, wrap_label
from diagrams.rendering.wrapping import (
    ROW_GAP,
    channel,
    choose_rows,
    left_margin,
    row_of_layers,
    screen_score,
    wrap_route,
)

FONT_SIZE = 12.0
LINE_HEIGHT = 15.0
PAD_X = 12.0
PAD_Y = 8.0
MAX_TEXT_WIDTH = 180.0
MAX_LINES = 3
MIN_NODE_WIDTH = 56.0
LAYER_GAP = 56.0  # the most between two columns ...
LAYER_GAP_MIN = 28.0  # ... and the least, for a gap few edges cross
SECOND_LAYERING_LIMIT = 1500  # parts with more nodes try one cycle breaking, not two (time)
DEFAULT_ASPECT = 16 / 9  # a screen's shape: what a drawing aims at unless asked otherwise
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
    # a drawing that follows an earlier one (diagrams/rendering/stable.py): whether this one was
    # laid out anew instead, and what the last fresh layout measured, to tell when one
    # following it has grown loose
    relaid: bool = False
    basis: "Basis | None" = None


class Basis(NamedTuple):
    """What the last fresh layout measured, and what changed since."""

    score: float  # wrapping.screen_score of the fresh layout
    area: float  # its boxes' area
    nodes: int
    crossings: int  # its crossings, as its ordering counted them
    added_crossings: int = 0  # crossings the edges routed since have made


@functools.lru_cache(maxsize=65536)  # the same labels are measured at every moment drawn
def node_size(label: str, node_type: str) -> tuple[float, float, tuple[str, ...]]:
    """Width, height and wrapped lines of a node's box, from its measured label."""
    lines = wrap_label(label, font_size=FONT_SIZE, max_width=MAX_TEXT_WIDTH, max_lines=MAX_LINES)
    text = max(text_width(line, FONT_SIZE) for line in lines)
    height = len(lines) * LINE_HEIGHT + 2 * PAD_Y
    # topics have fully round ends: their text keeps clear of the half-circles
    pad = PAD_X + (height / 2 if node_type == "messaging" else 0) * 0.6
    width = max(MIN_NODE_WIDTH, math.ceil(text + 2 * pad))
    return float(width), float(height), tuple(lines)


# --- the whole pipeline ----------------------------------------------------------------------


@dataclass
class _Part:
    """A laid-out component in its own coordinates, until `place` moves it onto the canvas
    (every coordinate is rounded once, where it ends up)."""

    width: float
    height: float
    layers: int
    dummies: int
    ids: list[str]
    left: list[float]  # per node: its box's left side
    top: list[float]  # ... and top
    routes: list[tuple[str, str, str, list[tuple[float, float]]]]  # source, target, kind, points
    simplified: bool = False
    crossings: int = 0  # as its ordering counted them (a simple drawing: its edges)

    def place(
        self, dx: float, dy: float, sizes: dict[str, tuple[float, float, tuple[str, ...]]]
    ) -> tuple[list[NodeBox], list[EdgeRoute]]:
        boxes = []
        for v, node in enumerate(self.ids):
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
        routes = [
            EdgeRoute(
                source,
                target,
                kind,
                tuple((round(x + dx, 1), round(y + dy, 1)) for x, y in points),
            )
            for source, target, kind, points in self.routes
        ]
        return boxes, routes


def _simplified(points: list[tuple[float, float]]) -> list[tuple[float, float]]:
    """The polyline without repeated points and without the middle of three on one level or
    one upright line."""
    out: list[tuple[float, float]] = []
    for point in points:
        if out and point == out[-1]:
            continue
        if len(out) >= 2:
            (x0, y0), (x1, y1) = out[-2], out[-1]
            if (y0 == y1 == point[1] and (x1 - x0) * (point[0] - x1) >= 0) or (
                x0 == x1 == point[0] and (y1 - y0) * (point[1] - y1) >= 0
            ):
                out[-1] = point
                continue
        out.append(point)
    return out


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
    aspect: float,
    extra: tuple[float, float],
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
    # the layers with the least total edge length (network simplex), from two cycle breakings
    # (depth-first in id order, and from the services, the graph's actors): each is ordered
    # and the one with fewer crossings wins
    services_first = sorted(range(n), key=lambda v: (ids[v] not in services, v))
    chosen = None
    for roots in (None, services_first) if n <= SECOND_LAYERING_LIMIT else (None,):
        candidate = layered_dag(n, succ, pred, plain, roots, least_dummies=True)
        candidate_layered = _with_dummies(n, candidate[0], candidate[1], heights)
        first = first_try(
            candidate_layered.layer,
            candidate_layered.up,
            candidate_layered.down,
            real=n,
            edges=len(pairs),
        )
        candidate_ordering = order_layers(
            candidate_layered.layer,
            candidate_layered.up,
            candidate_layered.down,
            edges=len(pairs),
            real=n,
            first=first,
        )
        crossings = candidate_ordering.crossings()
        if chosen is None or crossings < chosen[0]:
            chosen = (crossings, candidate[0], candidate_layered, candidate_ordering)
        if crossings == 0:
            break
    crossings, directed, layered, ordering = chosen
    layer, chains = layered.layer, layered.chains
    heights, dummy = layered.heights, layered.dummy
    total = len(heights)
    layers = ordering.layers
    depth = len(layers)
    g = ordering.graph

    # columns: each as wide as its widest label, the gap after it by the edges that cross it
    crossing = np.bincount(g.layer[g.edge_upper], minlength=depth).tolist()
    width_of = [max((sizes[ids[v]][0] for v in nodes if v < n), default=0.0) for nodes in layers]
    gap_after = [
        LAYER_GAP_MIN + min(LAYER_GAP - LAYER_GAP_MIN, 3.0 * math.sqrt(k)) for k in crossing
    ]
    stack = [
        sum(heights[v] for v in nodes) + sum(NODE_GAP if v < n else DUMMY_GAP for v in nodes[1:])
        for nodes in layers
    ]
    starts = choose_rows(
        [w + gap for w, gap in zip(width_of, gap_after, strict=True)],
        stack,
        crossing,
        aspect=aspect,
        extra=extra,
    )
    row_of = row_of_layers(starts, depth)
    cut = np.zeros(depth, dtype=bool)
    for start in starts[1:]:
        cut[start - 1] = True

    heights_array, dummy_array = np.array(heights), np.array(dummy)
    centres = vertical_centres(g, ordering, heights_array, dummy_array, cut)
    # long edges run straight within a row: each chain's runs between cuts
    pieces = []
    for chain in chains:
        piece = [chain[0]]
        for v in chain[1:]:
            if row_of[layer[v]] != row_of[layer[piece[-1]]]:
                pieces.append(piece if piece[0] < n else [piece[0], *piece])
                piece = [v]
            else:
                piece.append(v)
        pieces.append(piece if piece[-1] < n else [*piece, piece[-1]])
    straighten(pieces, g, ordering, centres, heights_array, dummy_array)
    y = centres.tolist()

    # rows: each from its own top, one under the other with room for the edges wrapped below
    bounds = [*starts, depth]
    cut_edges = [crossing[b - 1] for b in starts[1:]]
    left_edge = left_margin(cut_edges)
    row_top, row_y, row_right = [], [], []
    column_left = [0.0] * depth
    column_right = [0.0] * depth
    top = 0.0
    width = 0.0
    for a, b in zip(bounds, bounds[1:], strict=False):
        members = [v for level in range(a, b) for v in layers[level]]
        low = min(y[v] - heights[v] / 2 for v in members)
        high = max(y[v] + heights[v] / 2 for v in members)
        row_y.append(top - low)
        x = left_edge
        for level in range(a, b):
            column_left[level] = x
            column_right[level] = x + width_of[level]
            x += width_of[level] + gap_after[level]
        right = column_right[b - 1]
        row_right.append(right)
        wrapped = crossing[b - 1] if b < depth else 0
        width = max(width, right + (channel(wrapped) if wrapped else 0.0))
        row_top.append(top)
        top += high - low
        if b < depth:
            top += max(ROW_GAP, channel(wrapped))
    height = top
    for v in range(total):
        y[v] += row_y[row_of[layer[v]]]

    left = [column_left[layer[v]] + (width_of[layer[v]] - sizes[ids[v]][0]) / 2 for v in range(n)]
    # the edges crossing each cut, top first by where they leave, then by where they arrive
    track: dict[tuple[int, int], tuple[int, int]] = {}
    for b in starts[1:]:
        leaving = sorted((y[u], y[w], u, w) for u in layers[b - 1] for w in g.down_list[u])
        for i, (_, _, u, w) in enumerate(leaving):
            track[u, w] = (i, len(leaving))
    row_bottom = [row_top[r + 1] - max(ROW_GAP, channel(k)) for r, k in enumerate(cut_edges)]
    routes = []
    for (s, t, kind), (_, _, flipped), chain in zip(pairs, directed, chains, strict=True):
        a = chain[0]
        points = [(left[a] + sizes[ids[a]][0], y[a])]
        for u, w in zip(chain, chain[1:], strict=False):
            level = layer[u]
            points.append((column_right[level], y[u]))
            if (u, w) in track:
                i, k = track[u, w]
                row = row_of[level]
                points.extend(
                    wrap_route(
                        y[u],
                        y[w],
                        track=i,
                        tracks=k,
                        right=row_right[row],
                        gap_top=row_bottom[row],
                        left=left_edge,
                    )
                )
            points.append((column_left[layer[w]], y[w]))
        points.append((left[chain[-1]], y[chain[-1]]))
        points = _simplified(points)
        if flipped:
            points.reverse()
        routes.append((ids[s], ids[t], kind, points))
    return _Part(
        width,
        height,
        depth,
        total - n,
        ids,
        left,
        [y[v] - heights[v] / 2 for v in range(n)],
        routes,
        crossings=crossings,
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
    routes = []
    for (s, t, kind), (a, b, flipped) in zip(pairs, directed, strict=True):
        # out of the source's column, across, into the target's
        ya, yb = top[a] + heights[a] / 2, top[b] + heights[b] / 2
        right = column_x[layer[a]] + column_width[layer[a]]
        points = _simplified(
            [
                (left[a] + sizes[ids[a]][0], ya),
                (right, ya),
                (column_x[layer[b]], yb),
                (left[b], yb),
            ]
        )
        if flipped:
            points.reverse()
        routes.append((ids[s], ids[t], kind, points))
    return _Part(
        column_x[-1] + column_width[-1],
        tallest,
        depth,
        0,
        ids,
        left,
        top,
        routes,
        simplified=True,
        crossings=len(routes),
    )


def _pack(parts: list[_Part], aspect: float, extra: tuple[float, float]):
    """Shelf packing toward `aspect`: parts (biggest first) in rows of the width, among some
    tried, that gives the canvas the largest scale on a screen of that shape."""
    if not parts:
        return [], 0.0, 0.0
    area = sum((p.width + COMPONENT_GAP) * (p.height + COMPONENT_GAP) for p in parts)
    widest = max(p.width for p in parts)
    best = None
    for factor in (0.5, 0.6, 0.7, 0.8, 0.9, 1.0, 1.15, 1.3, 1.5, 1.75, 2.0, 2.5, 3.0):
        packed = _shelves(parts, max(widest, math.sqrt(area * aspect) * factor))
        # equal scores (both fit the screen at 1:1): the shape nearer the screen's
        shape = abs(math.log((packed[1] + extra[0] + 1) / (packed[2] + extra[1] + 1) / aspect))
        score = (round(screen_score(packed[1], packed[2], aspect, extra), 6), shape)
        if best is None or score < best[0]:
            best = (score, packed)
    return best[1]


def _shelves(parts: list[_Part], row_width: float):
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


def layout_layered(
    graph: nx.DiGraph,
    *,
    origin: tuple[float, float] = (0.0, 0.0),
    aspect: float = DEFAULT_ASPECT,
) -> Layout:
    """Lay the graph out left to right, folded into rows toward a screen of `aspect` (width
    over height); coordinates start at `origin`, and the canvas is taken to have the origin's
    margins on the other sides too."""
    sizes = {
        node: node_size(data.get("label", node), data.get("type", "service"))
        for node, data in graph.nodes(data=True)
    }
    services = {node for node, kind in graph.nodes(data="type") if kind == "service"}
    components = [sorted(c) for c in nx.weakly_connected_components(graph)]
    components.sort(key=lambda c: (-len(c), c[0]))
    extra = (2 * origin[0], origin[1] + origin[0])
    parts = []
    for component in components:
        members = set(component)
        edges = sorted(
            (s, t, graph.edges[s, t].get("kind", "produces"))
            for s in component
            for t in graph.successors(s)
            if t in members
        )
        parts.append(_layout_component(component, edges, sizes, services, aspect, extra))
    # big parts first, then by height: rows stay even
    order = sorted(range(len(parts)), key=lambda i: (-parts[i].height, -parts[i].width, i))
    parts = [parts[i] for i in order]
    offsets, width, height = _pack(parts, aspect, extra)
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
        basis=Basis(
            screen_score(width, height, aspect, extra),
            sum(box.width * box.height for box in nodes.values()),
            len(nodes),
            sum(p.crossings for p in parts),
        ),
    )
