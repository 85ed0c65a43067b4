"""A layered (Sugiyama) layout, left to right.

1. Cycles are broken by reversing the back edges of a depth-first search (a small
   feedback arc set, found in linear time).
2. Layers: longest path, then every node moves within its slack to the layer that shortens
   its edges most (a cheap approximation of dot's network simplex), so drawings stay compact
   and long edges are few.
3. Edges spanning several layers get a dummy node per layer crossed.
4. Crossing reduction: weighted-median sweeps down and up, each followed by adjacent
   transpositions; the best order seen is kept.
5. Coordinates: per layer, a weighted least-squares placement under the order and spacing
   constraints (isotonic regression by pool-adjacent-violators), pulling each node towards
   its neighbours; long-edge chains pull hardest, so they straighten.
6. Disconnected parts are laid out alone and packed side by side in rows.

Pure: a networkx graph and label sizes in, coordinates out. Deterministic.
"""

import math
from collections import deque
from dataclasses import dataclass

import networkx as nx
import numpy as np

from diagrams.rendering.text import text_width, wrap_label

FONT_SIZE = 12.0
LINE_HEIGHT = 15.0
PAD_X = 12.0
PAD_Y = 8.0
MAX_TEXT_WIDTH = 180.0
MAX_LINES = 3
MIN_NODE_WIDTH = 56.0
NODE_GAP = 14.0  # between two nodes of a layer
DUMMY_GAP = 7.0  # next to a dummy (a long edge passing through the layer)
LAYER_GAP = 64.0  # between two columns
COMPONENT_GAP = 48.0
# Crossing reduction effort by size (nodes + dummies): four starts and a continuation for
# small graphs, two up to SECOND_START_LIMIT, one above (big graphs stay fast).
ALL_STARTS_LIMIT = 1500
SECOND_START_LIMIT = 12000


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


def _acyclic_order(n: int, succ: list[list[int]]) -> list[int]:
    """An order of the nodes in which only the back edges of a depth-first search point
    backwards: a small feedback arc set (2-8% of the edges on the benchmark graphs). We
    measured Eades-Lin-Smyth's greedy order too: it reverses half as many edges, but the
    drawings it leads to had up to 60% more crossings, as it breaks up chains."""
    state = [0] * n  # 0 new, 1 on the stack, 2 done
    back: set[tuple[int, int]] = set()
    children = [sorted(s) for s in succ]
    for root in range(n):
        if state[root]:
            continue
        state[root] = 1
        stack = [(root, 0)]
        while stack:
            v, i = stack[-1]
            if i == len(children[v]):
                state[v] = 2
                stack.pop()
                continue
            stack[-1] = (v, i + 1)
            w = children[v][i]
            if state[w] == 1:
                back.add((v, w))
            elif state[w] == 0:
                state[w] = 1
                stack.append((w, 0))
    indeg = [0] * n
    forward = [[w for w in children[v] if (v, w) not in back] for v in range(n)]
    for v in range(n):
        for w in forward[v]:
            indeg[w] += 1
    queue = deque(v for v in range(n) if indeg[v] == 0)
    order = []
    while queue:
        v = queue.popleft()
        order.append(v)
        for w in forward[v]:
            indeg[w] -= 1
            if indeg[w] == 0:
                queue.append(w)
    return order


# --- 2. layering -----------------------------------------------------------------------------


def _layers(n: int, dsucc: list[list[int]], dpred: list[list[int]]) -> list[int]:
    """Longest-path layers, then each node slides within its slack towards the side with
    more edges (fewer, shorter long edges); isolated nodes sit in layer 0."""
    indeg = [len(p) for p in dpred]
    queue = deque(v for v in range(n) if indeg[v] == 0)
    topo = []
    while queue:
        v = queue.popleft()
        topo.append(v)
        for w in dsucc[v]:
            indeg[w] -= 1
            if indeg[w] == 0:
                queue.append(w)
    layer = [0] * n
    for v in topo:
        for w in dsucc[v]:
            if layer[w] < layer[v] + 1:
                layer[w] = layer[v] + 1
    for sweep in range(8):
        changed = False
        for v in (reversed(topo) if sweep % 2 == 0 else topo):
            ins, outs = len(dpred[v]), len(dsucc[v])
            if ins == outs:
                continue
            if outs > ins:
                target = min(layer[w] for w in dsucc[v]) - 1
            else:
                target = max(layer[u] for u in dpred[v]) + 1
            if target != layer[v]:
                layer[v] = target
                changed = True
        if not changed:
            break
    low = min(layer) if layer else 0
    return [value - low for value in layer]


# --- 4. crossing reduction -------------------------------------------------------------------


def _median(positions: list[int]) -> float:
    """dot's weighted median of neighbour positions (-1 for none)."""
    count = len(positions)
    if count == 0:
        return -1.0
    positions = sorted(positions)
    middle = count // 2
    if count % 2 == 1:
        return float(positions[middle])
    if count == 2:
        return (positions[0] + positions[1]) / 2
    left = positions[middle - 1] - positions[0]
    right = positions[-1] - positions[middle]
    if left + right == 0:
        return (positions[middle - 1] + positions[middle]) / 2
    return (positions[middle - 1] * right + positions[middle] * left) / (left + right)


def _gap_crossings(pairs: np.ndarray) -> int:
    """Crossings among edges between two adjacent layers, given (upper, lower) positions."""
    m = len(pairs)
    if m < 2:
        return 0
    order = np.lexsort((pairs[:, 1], pairs[:, 0]))
    upper = pairs[order, 0]
    lower = pairs[order, 1]
    total = 0
    chunk = max(1, 4_000_000 // m)
    for start in range(0, m, chunk):
        stop = min(m, start + chunk)
        # for each edge j in the chunk: earlier edges (i < j) from a strictly smaller upper
        # position that end strictly lower down
        later_upper = upper[start:stop, None]
        later_lower = lower[start:stop, None]
        mask = (upper[None, :] < later_upper) & (lower[None, :] > later_lower)
        total += int(mask.sum())
    return total


def _pair_counts(a: list[int], b: list[int]) -> tuple[int, int]:
    """For sorted neighbour positions of u (`a`) and v (`b`): crossings with u left of v
    (pairs a > b) and with v left of u (pairs b > a)."""
    if not a or not b:
        return 0, 0
    if len(a) == 1 and len(b) == 1:
        x, y = a[0], b[0]
        return (1, 0) if x > y else ((0, 1) if y > x else (0, 0))
    greater = smaller = 0
    lo = hi = 0
    nb = len(b)
    for x in a:
        while lo < nb and b[lo] < x:
            lo += 1
        while hi < nb and b[hi] <= x:
            hi += 1
        greater += lo  # b below x
        smaller += nb - hi  # b above x
    return greater, smaller


class _Ordering:
    """Orders of every layer, with the neighbour lists that crossing reduction needs."""

    def __init__(self, layers: list[list[int]], up: list[list[int]], down: list[list[int]]):
        self.layers = [list(nodes) for nodes in layers]
        self.up = up
        self.down = down
        self.pos = [0] * len(up)
        for nodes in layers:
            for index, v in enumerate(nodes):
                self.pos[v] = index

    def crossings(self) -> int:
        pos, down = self.pos, self.down
        total = 0
        for nodes in self.layers[:-1]:
            pairs = [(pos[u], pos[w]) for u in nodes for w in down[u]]
            if len(pairs) > 1:
                total += _gap_crossings(np.array(pairs, dtype=np.int64))
        return total

    def sweep(self, downward: bool) -> None:
        pos = self.pos
        indices = range(1, len(self.layers)) if downward else range(len(self.layers) - 2, -1, -1)
        neighbours = self.up if downward else self.down
        median = _median
        for index in indices:
            nodes = self.layers[index]
            keys = []
            for v in nodes:
                around = neighbours[v]
                if len(around) == 1:
                    keys.append(float(pos[around[0]]))
                else:
                    keys.append(median([pos[u] for u in around]))
            movable = sorted((key, i, v) for i, (key, v) in enumerate(zip(keys, nodes,
                                                                          strict=True))
                             if key >= 0)
            if not movable:
                continue
            slots = [i for i, key in enumerate(keys) if key >= 0]
            ordered = list(nodes)
            for slot, (_, _, v) in zip(slots, movable, strict=True):
                ordered[slot] = v
            self.layers[index] = ordered
            for i, v in enumerate(ordered):
                pos[v] = i

    def transpose(self, max_passes: int, *, equal_swaps: bool = False) -> None:
        """Swap neighbours in a layer while that removes crossings (or, with `equal_swaps`,
        does not add any: dot's way out of plateaus). Positions in the adjacent layers do
        not move meanwhile, so each node's neighbour positions are sorted once."""
        pos, up, down = self.pos, self.up, self.down
        pair_counts = _pair_counts
        for nodes in self.layers:
            size = len(nodes)
            if size < 2:
                continue
            ups = {}
            downs = {}
            for v in nodes:
                neighbours = up[v]
                ups[v] = [pos[neighbours[0]]] if len(neighbours) == 1 else \
                    sorted(pos[u] for u in neighbours)
                neighbours = down[v]
                downs[v] = [pos[neighbours[0]]] if len(neighbours) == 1 else \
                    sorted(pos[w] for w in neighbours)
            for _ in range(max_passes):
                improved = False
                for i in range(size - 1):
                    u, v = nodes[i], nodes[i + 1]
                    a, b = ups[u], ups[v]
                    if len(a) == 1 and len(b) == 1:
                        before, after = int(a[0] > b[0]), int(b[0] > a[0])
                    else:
                        before, after = pair_counts(a, b)
                    a, b = downs[u], downs[v]
                    if len(a) == 1 and len(b) == 1:
                        before += a[0] > b[0]
                        after += b[0] > a[0]
                    else:
                        x, y = pair_counts(a, b)
                        before += x
                        after += y
                    if after < before or (equal_swaps and after == before and before > 0):
                        nodes[i], nodes[i + 1] = v, u
                        pos[u], pos[v] = i + 1, i
                        if after < before:
                            improved = True
                if not improved:
                    break

    def snapshot(self) -> list[list[int]]:
        return [list(nodes) for nodes in self.layers]

    def restore(self, layers: list[list[int]]) -> None:
        self.layers = [list(nodes) for nodes in layers]
        for nodes in self.layers:
            for index, v in enumerate(nodes):
                self.pos[v] = index


def _depth_first_layers(count: int, layer: list[int], up: list[list[int]],
                        down: list[list[int]], from_sinks: bool = False) -> list[list[int]]:
    """Depth-first from the first layer along out-edges (or from the last along in-edges):
    a start that keeps chains together."""
    depth = max(layer) + 1 if layer else 0
    layers: list[list[int]] = [[] for _ in range(depth)]
    seen = [False] * count
    forward = up if from_sinks else down
    roots = sorted(range(count), key=lambda v: (-layer[v] if from_sinks else layer[v], v))
    for root in roots:
        if seen[root]:
            continue
        stack = [root]
        while stack:
            v = stack.pop()
            if seen[v]:
                continue
            seen[v] = True
            layers[layer[v]].append(v)
            stack.extend(sorted(forward[v], reverse=True))
    return layers


def _breadth_first_layers(count: int, layer: list[int], up: list[list[int]],
                          down: list[list[int]], from_sinks: bool = False) -> list[list[int]]:
    """dot's start: breadth-first over all neighbours from the nodes with no in-edges (or
    no out-edges), each node placed in its layer when first reached."""
    depth = max(layer) + 1 if layer else 0
    layers: list[list[int]] = [[] for _ in range(depth)]
    seen = [False] * count
    for root in range(count):
        if seen[root] or (down[root] if from_sinks else up[root]):
            continue
        seen[root] = True
        queue = deque([root])
        while queue:
            v = queue.popleft()
            layers[layer[v]].append(v)
            for w in (*up[v], *down[v]) if from_sinks else (*down[v], *up[v]):
                if not seen[w]:
                    seen[w] = True
                    queue.append(w)
    for v in range(count):  # only cycles can leave nodes unreached; the graph is acyclic
        if not seen[v]:
            layers[layer[v]].append(v)
    return layers


MAX_ITERATIONS = 24
MIN_QUIT = 8  # iterations without a real gain before a try stops
CONVERGENCE = 0.995


def _order(count: int, layer: list[int], up, down) -> _Ordering:
    """dot's mincross: a try from each of two starts, then a try continuing from the best;
    each try alternates median sweeps (down, up) with transpositions and keeps the best."""
    best_layers: list[list[int]] | None = None
    best = math.inf
    starts = [(_depth_first_layers, False)]
    if count <= ALL_STARTS_LIMIT:
        starts += [(_depth_first_layers, True), (_breadth_first_layers, False),
                   (_breadth_first_layers, True)]
    elif count <= SECOND_START_LIMIT:
        starts += [(_breadth_first_layers, False)]
    for start, from_sinks in starts:
        ordering = _Ordering(start(count, layer, up, down, from_sinks), up, down)
        crossings, layers = _improve(ordering)
        if crossings < best:
            best, best_layers = crossings, layers
        if best == 0:
            break
    ordering = _Ordering(best_layers, up, down)
    if best > 0 and count <= ALL_STARTS_LIMIT:
        crossings, layers = _improve(ordering)
        ordering.restore(layers if crossings < best else best_layers)
    return ordering


def _improve(ordering: _Ordering) -> tuple[int, list[list[int]]]:
    best = ordering.crossings()
    best_layers = ordering.snapshot()
    stale = 0
    for iteration in range(MAX_ITERATIONS):
        if best == 0 or stale >= MIN_QUIT:
            break
        ordering.sweep(downward=iteration % 2 == 0)
        ordering.transpose(4, equal_swaps=iteration % 4 >= 2)
        crossings = ordering.crossings()
        if crossings <= best:
            stale = 0 if crossings < CONVERGENCE * best else stale + 1
            best, best_layers = crossings, ordering.snapshot()
        else:
            stale += 1
    return best, best_layers


# --- 5. coordinates --------------------------------------------------------------------------


def _isotonic(targets: list[float], weights: list[float]) -> list[float]:
    """Weighted least squares non-decreasing fit (pool adjacent violators)."""
    values: list[float] = []
    totals: list[float] = []
    counts: list[int] = []
    for target, weight in zip(targets, weights, strict=True):
        values.append(target)
        totals.append(weight)
        counts.append(1)
        while len(values) > 1 and values[-2] > values[-1]:
            value, total, count = values.pop(), totals.pop(), counts.pop()
            merged = totals[-1] + total
            values[-1] = (values[-1] * totals[-1] + value * total) / merged
            totals[-1] = merged
            counts[-1] += count
    fitted: list[float] = []
    for value, count in zip(values, counts, strict=True):
        fitted.extend([value] * count)
    return fitted


def _coordinates(layers: list[list[int]], up, down, heights: list[float],
                 dummy: list[bool]) -> list[float]:
    """Vertical centres: each layer placed as close as the order and spacing allow to the
    weighted mean of its neighbours, sweeping left and right until it settles."""
    count = len(heights)
    y = [0.0] * count
    separations: list[list[float]] = []
    for nodes in layers:
        seps = []
        for a, b in zip(nodes, nodes[1:], strict=False):
            gap = DUMMY_GAP if dummy[a] or dummy[b] else NODE_GAP
            seps.append((heights[a] + heights[b]) / 2 + gap)
        separations.append(seps)
        offset = 0.0
        for i, v in enumerate(nodes):
            y[v] = offset
            if i < len(seps):
                offset += seps[i]

    def edge_weight(a: int, b: int) -> float:
        return 8.0 if dummy[a] and dummy[b] else (2.0 if dummy[a] or dummy[b] else 1.0)

    order = list(range(len(layers)))
    for iteration in range(14):
        sequence = order if iteration % 2 == 0 else order[::-1]
        for index in sequence:
            nodes = layers[index]
            if not nodes:
                continue
            targets, weights = [], []
            offset = 0.0
            seps = separations[index]
            for i, v in enumerate(nodes):
                total = weight_sum = 0.0
                for u in up[v]:
                    w = edge_weight(u, v)
                    total += w * y[u]
                    weight_sum += w
                for u in down[v]:
                    w = edge_weight(u, v)
                    total += w * y[u]
                    weight_sum += w
                if weight_sum == 0:
                    targets.append(y[v] - offset)
                    weights.append(0.05)
                else:
                    targets.append(total / weight_sum - offset)
                    weights.append(weight_sum)
                if i < len(seps):
                    offset += seps[i]
            fitted = _isotonic(targets, weights)
            offset = 0.0
            for i, v in enumerate(nodes):
                y[v] = fitted[i] + offset
                if i < len(seps):
                    offset += seps[i]
    return y


def _straighten(chains: list[list[int]], layers: list[list[int]], pos: list[int],
                layer: list[int], y: list[float], heights: list[float],
                dummy: list[bool]) -> None:
    """Give each long edge's run of dummies one common height (the source's, the target's,
    or the run's median, whichever first fits between its neighbours in every layer it
    crosses), so long edges run straight and bend only near their ends."""

    def gap(a: int, b: int) -> float:
        return (heights[a] + heights[b]) / 2 + (DUMMY_GAP if dummy[a] or dummy[b] else NODE_GAP)

    def fits(d: int, value: float) -> bool:
        nodes, i = layers[layer[d]], pos[d]
        if i > 0 and value < y[nodes[i - 1]] + gap(nodes[i - 1], d) - 1e-6:
            return False
        return not (i + 1 < len(nodes) and value > y[nodes[i + 1]] - gap(d, nodes[i + 1]) + 1e-6)

    for chain in sorted(chains, key=len, reverse=True):
        run = chain[1:-1]
        if len(run) < 2:
            continue
        values = sorted(y[d] for d in run)
        for value in (y[chain[0]], y[chain[-1]], values[len(values) // 2]):
            if all(fits(d, value) for d in run):
                for d in run:
                    y[d] = value
                break


# --- the whole pipeline ----------------------------------------------------------------------


@dataclass
class _Part:
    width: float
    height: float
    nodes: dict[str, NodeBox]
    edges: list[EdgeRoute]
    layers: int
    dummies: int


def _layout_component(ids: list[str], edges: list[tuple[str, str, str]],
                      sizes: dict[str, tuple[float, float, tuple[str, ...]]]) -> _Part:
    n = len(ids)
    index = {node: i for i, node in enumerate(ids)}
    succ: list[list[int]] = [[] for _ in range(n)]
    pred: list[list[int]] = [[] for _ in range(n)]
    pairs = [(index[s], index[t], kind) for s, t, kind in edges]
    for s, t, _ in pairs:
        succ[s].append(t)
        pred[t].append(s)
    rank = {v: i for i, v in enumerate(_acyclic_order(n, succ))}
    # edges in layering direction: (a, b) with a before b; `flipped` when reversed
    directed = [(s, t, False) if rank[s] < rank[t] else (t, s, True) for s, t, _ in pairs]
    dsucc: list[list[int]] = [[] for _ in range(n)]
    dpred: list[list[int]] = [[] for _ in range(n)]
    for a, b, _ in directed:
        dsucc[a].append(b)
        dpred[b].append(a)
    layer = _layers(n, dsucc, dpred)

    # dummies for long edges
    heights = [sizes[node][1] for node in ids]
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
    total = len(heights)

    ordering = _order(total, layer, up, down)
    layers = ordering.layers
    y = _coordinates(layers, up, down, heights, dummy)
    _straighten(chains, layers, ordering.pos, layer, y, heights, dummy)

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
    components = [sorted(c) for c in nx.weakly_connected_components(graph)]
    components.sort(key=lambda c: (-len(c), c[0]))
    parts = []
    for component in components:
        members = set(component)
        edges = sorted((s, t, graph.edges[s, t].get("kind", "produces"))
                       for s in component for t in graph.successors(s) if t in members)
        parts.append(_layout_component(component, edges, sizes))
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
