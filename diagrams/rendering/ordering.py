"""Crossing reduction for a layered graph whose edges all join neighbouring layers (long edges
already cut by dummies): dot's mincross, vectorised with numpy.

A try alternates weighted-median sweeps (down, then up) with transpositions and keeps the
best order seen; as dot does, a try starts from each of several initial orders and one more
continues from the best. Transposition swaps adjacent nodes of a layer when that removes
crossings; swaps of disjoint pairs are independent, and layers of one parity never neighbour
each other, so every even (then odd) pair of every even (then odd) layer is decided at once.
"""

from collections import deque

import numpy as np

MAX_ITERATIONS = 24
MIN_QUIT = 8  # iterations without a real gain before a try stops
CONVERGENCE = 0.995
TRANSPOSE_PASSES = 4
# Effort (work-based, so output stays deterministic): one start; four and a continuation for
# small graphs (nodes + dummies) and for tangled ones up to SECOND_START_LIMIT, where the
# first try left more than TANGLED crossings per edge.
ALL_STARTS_LIMIT = 1500
SECOND_START_LIMIT = 12000
TANGLED = 5.0
SIFT_ROUNDS = 3  # sifting of the real nodes, each followed by another try


def _csr(adjacency: list[list[int]]) -> tuple[np.ndarray, np.ndarray]:
    degrees = np.fromiter((len(a) for a in adjacency), dtype=np.int64, count=len(adjacency))
    pointer = np.zeros(len(adjacency) + 1, dtype=np.int64)
    np.cumsum(degrees, out=pointer[1:])
    flat = [x for a in adjacency for x in a]
    return pointer, np.array(flat, dtype=np.int64)


def _median(positions: list[int]) -> float:
    """dot's weighted median of neighbour positions."""
    positions = sorted(positions)
    count = len(positions)
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


def _inversions(upper: np.ndarray, lower: np.ndarray) -> int:
    """Crossings among edges between two layers, given their end positions."""
    m = len(upper)
    if m < 2:
        return 0
    order = np.lexsort((lower, upper))
    upper, lower = upper[order], lower[order]
    total = 0
    chunk = max(1, 2_000_000 // m)
    for start in range(0, m, chunk):
        stop = min(m, start + chunk)
        total += int(np.count_nonzero((upper[None, :] < upper[start:stop, None])
                                      & (lower[None, :] > lower[start:stop, None])))
    return total


class Graph:
    """The static part: adjacency in compressed form, layers, and the index sets that the
    vectorised passes reuse."""

    def __init__(self, layer: list[int], up: list[list[int]], down: list[list[int]],
                 real: int):
        self.count = len(layer)
        self.dummy = np.arange(self.count) >= real  # dummies are numbered after real nodes
        self.layer = np.array(layer, dtype=np.int64)
        self.depth = int(self.layer.max()) + 1 if self.count else 0
        self.up_list, self.down_list = up, down
        self.up_ptr, self.up_idx = _csr(up)
        self.down_ptr, self.down_idx = _csr(down)
        self.up_deg = np.diff(self.up_ptr)
        self.down_deg = np.diff(self.down_ptr)
        self.sizes = np.bincount(self.layer, minlength=self.depth)
        self.start = np.zeros(self.depth + 1, dtype=np.int64)
        np.cumsum(self.sizes, out=self.start[1:])
        slot_layer = np.repeat(np.arange(self.depth), self.sizes)
        offset = np.arange(self.count) - self.start[slot_layer]
        has_next = offset + 1 < self.sizes[slot_layer]
        # pair slots by (layer parity, pair parity)
        self.pairs = [[np.flatnonzero(has_next & (slot_layer % 2 == p) & (offset % 2 == q))
                       for q in (0, 1)] for p in (0, 1)]
        # edges for crossing counts, grouped by the gap they cross
        upper = np.repeat(np.arange(self.count), self.down_deg)
        gaps = self.layer[upper]
        order = np.argsort(gaps, kind="stable")
        self.edge_upper, self.edge_lower = upper[order], self.down_idx[order]
        self.gap_bounds = np.searchsorted(gaps[order], np.arange(self.depth + 1))


class Ordering:
    """One order of every layer: `slots` lists the nodes layer after layer; `pos` is each
    node's index within its layer."""

    def __init__(self, graph: Graph, layers: list[list[int]]):
        self.graph = graph
        self.slots = np.array([v for nodes in layers for v in nodes], dtype=np.int64)
        self.pos = np.empty(graph.count, dtype=np.int64)
        if len(self.slots) == graph.count:
            self._index()

    def _index(self) -> None:
        g = self.graph
        self.pos[self.slots] = np.arange(g.count) - np.repeat(g.start[:-1], g.sizes)

    @property
    def layers(self) -> list[list[int]]:
        g = self.graph
        return [self.slots[g.start[i]:g.start[i + 1]].tolist() for i in range(g.depth)]

    def snapshot(self) -> np.ndarray:
        return self.slots.copy()

    def restore(self, slots: np.ndarray) -> None:
        self.slots = slots.copy()
        self._index()

    def crossings(self) -> int:
        g, pos = self.graph, self.pos
        upper, lower = pos[g.edge_upper], pos[g.edge_lower]
        bounds = g.gap_bounds
        return sum(_inversions(upper[bounds[i]:bounds[i + 1]], lower[bounds[i]:bounds[i + 1]])
                   for i in range(g.depth) if bounds[i + 1] - bounds[i] > 1)

    def sweep(self, downward: bool) -> None:
        """Weighted-median reordering, layer after layer; nodes without neighbours on that
        side keep their places."""
        g, pos, slots = self.graph, self.pos, self.slots
        pointer, index, degree, lists = ((g.up_ptr, g.up_idx, g.up_deg, g.up_list) if downward
                                         else (g.down_ptr, g.down_idx, g.down_deg, g.down_list))
        layers = range(1, g.depth) if downward else range(g.depth - 2, -1, -1)
        for layer in layers:
            begin, end = g.start[layer], g.start[layer + 1]
            if end - begin < 2:
                continue
            nodes = slots[begin:end]
            deg = degree[nodes]
            keys = np.full(len(nodes), -1.0)
            single = deg == 1
            keys[single] = pos[index[pointer[nodes[single]]]]
            for i in np.flatnonzero(deg > 1):
                keys[i] = _median([pos[u] for u in lists[nodes[i]]])
            movable = np.flatnonzero(keys >= 0)
            if len(movable) < 2:
                continue
            chosen = movable[np.argsort(keys[movable], kind="stable")]
            reordered = nodes.copy()
            reordered[movable] = nodes[chosen]
            slots[begin:end] = reordered
            pos[reordered] = np.arange(end - begin)

    def _pair_crossings(self, u: np.ndarray, v: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """For adjacent pairs (u left of v): crossings now, and after swapping them."""
        g, pos = self.graph, self.pos
        count = len(u)
        now = np.zeros(count)
        swapped = np.zeros(count)
        for pointer, index, degree in ((g.up_ptr, g.up_idx, g.up_deg),
                                       (g.down_ptr, g.down_idx, g.down_deg)):
            du, dv = degree[u], degree[v]
            products = du * dv
            total = int(products.sum())
            if total == 0:
                continue
            pair = np.repeat(np.arange(count), products)
            local = np.arange(total) - np.repeat(np.cumsum(products) - products, products)
            width = dv[pair]
            first, second = np.divmod(local, width)
            a = pos[index[pointer[u[pair]] + first]]
            b = pos[index[pointer[v[pair]] + second]]
            now += np.bincount(pair, weights=a > b, minlength=count)
            swapped += np.bincount(pair, weights=b > a, minlength=count)
        return now, swapped

    def sift(self, nodes: np.ndarray) -> None:
        """Move each node to the place in its layer where its edges cross the fewest others
        (sifting); the others keep their order."""
        g, pos, slots = self.graph, self.pos, self.slots
        sides = ((g.up_ptr, g.up_idx), (g.down_ptr, g.down_idx))
        for v in nodes.tolist():
            level = g.layer[v]
            begin, end = g.start[level], g.start[level + 1]
            if end - begin < 2:
                continue
            layer_nodes = slots[begin:end]
            others = layer_nodes[layer_nodes != v]
            before = np.zeros(len(others))  # crossings of (v, w) with v left of w
            after = np.zeros(len(others))  # ... with w left of v
            for pointer, index in sides:
                mine = np.sort(pos[index[pointer[v]:pointer[v + 1]]])
                if not len(mine):
                    continue
                counts = pointer[others + 1] - pointer[others]
                if not counts.sum():
                    continue
                owner = np.repeat(np.arange(len(others)), counts)
                starts = np.repeat(pointer[others], counts)
                local = np.arange(counts.sum()) - np.repeat(np.cumsum(counts) - counts, counts)
                theirs = pos[index[starts + local]]
                above = len(mine) - np.searchsorted(mine, theirs, side="right")
                below = np.searchsorted(mine, theirs, side="left")
                before += np.bincount(owner, above, len(others))
                after += np.bincount(owner, below, len(others))
            # v inserted before others[t]: the ones before it have v on their right
            cost = np.concatenate(([0.0], np.cumsum(after))) + \
                (before.sum() - np.concatenate(([0.0], np.cumsum(before))))
            current = int(pos[v])
            best = int(np.argmin(cost))
            if cost[best] < cost[current]:
                reordered = np.insert(others, best, v)
                slots[begin:end] = reordered
                pos[reordered] = np.arange(end - begin)

    def transpose(self, passes: int, *, equal_swaps: bool = False) -> None:
        """Swap adjacent nodes while that removes crossings (with `equal_swaps`, also when
        it adds none: dot's way off a plateau)."""
        g, pos, slots = self.graph, self.pos, self.slots
        for parity in (0, 1):
            for _ in range(passes):
                improved = False
                for half in (0, 1):
                    k = g.pairs[parity][half]
                    if not len(k):
                        continue
                    u, v = slots[k], slots[k + 1]
                    now, swapped = self._pair_crossings(u, v)
                    swap = swapped < now
                    if equal_swaps:
                        swap |= (swapped == now) & (now > 0)
                    if swap.any():
                        improved = improved or bool((swapped < now).any())
                        at = k[swap]
                        left, right = slots[at].copy(), slots[at + 1].copy()
                        slots[at], slots[at + 1] = right, left
                        pos[left] += 1
                        pos[right] -= 1
                if not improved:
                    break


def _depth_first_layers(g: Graph, from_sinks: bool) -> list[list[int]]:
    """Depth-first from the first layer along out-edges (or from the last along in-edges):
    a start that keeps chains together."""
    layers: list[list[int]] = [[] for _ in range(g.depth)]
    seen = [False] * g.count
    forward = g.up_list if from_sinks else g.down_list
    layer = g.layer.tolist()
    roots = sorted(range(g.count), key=lambda v: (-layer[v] if from_sinks else layer[v], v))
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


def _breadth_first_layers(g: Graph, from_sinks: bool) -> list[list[int]]:
    """dot's start: breadth-first over all neighbours from the nodes with no in-edges (or
    no out-edges), each node placed in its layer when first reached."""
    layers: list[list[int]] = [[] for _ in range(g.depth)]
    seen = [False] * g.count
    layer = g.layer.tolist()
    for root in range(g.count):
        if seen[root] or (g.down_list[root] if from_sinks else g.up_list[root]):
            continue
        seen[root] = True
        queue = deque([root])
        while queue:
            v = queue.popleft()
            layers[layer[v]].append(v)
            around = (*g.up_list[v], *g.down_list[v]) if from_sinks else \
                (*g.down_list[v], *g.up_list[v])
            for w in around:
                if not seen[w]:
                    seen[w] = True
                    queue.append(w)
    for v in range(g.count):
        if not seen[v]:
            layers[layer[v]].append(v)
    return layers


def _improve(ordering: Ordering) -> tuple[int, np.ndarray]:
    best = ordering.crossings()
    best_slots = ordering.snapshot()
    stale = 0
    for iteration in range(MAX_ITERATIONS):
        if best == 0 or stale >= MIN_QUIT:
            break
        ordering.sweep(downward=iteration % 2 == 0)
        ordering.transpose(TRANSPOSE_PASSES, equal_swaps=iteration % 4 >= 2)
        crossings = ordering.crossings()
        if crossings <= best:
            stale = 0 if crossings < CONVERGENCE * best else stale + 1
            best, best_slots = crossings, ordering.snapshot()
        else:
            stale += 1
    return best, best_slots


def _tangled(count: int, crossings: int, edges: int) -> bool:
    return count <= SECOND_START_LIMIT and crossings > TANGLED * edges


def is_tangled(ordering: Ordering, *, edges: int) -> bool:
    """A graph small enough for more effort whose best order still crosses a lot."""
    return _tangled(ordering.graph.count, ordering.crossings(), edges)


def order_layers(layer: list[int], up: list[list[int]], down: list[list[int]],
                 edges: int, real: int) -> Ordering:
    """The order of every layer with the fewest crossings found; `edges` is the number of
    the graph's own edges and `real` of its own nodes (dummies are numbered after them)."""
    g = Graph(layer, up, down, real)
    best, best_slots = _improve(Ordering(g, _depth_first_layers(g, False)))
    # more tries where they are cheap (small graphs) or pay off (tangled ones)
    more = g.count <= ALL_STARTS_LIMIT or _tangled(g.count, best, edges)
    if more and best > 0:
        for start, from_sinks in ((_depth_first_layers, True), (_breadth_first_layers, False),
                                  (_breadth_first_layers, True)):
            crossings, slots = _improve(Ordering(g, start(g, from_sinks)))
            if crossings < best:
                best, best_slots = crossings, slots
    ordering = Ordering(g, [])
    ordering.restore(best_slots)
    if more and best > 0:
        real = np.flatnonzero(~g.dummy)
        by_degree = real[np.argsort(-(g.up_deg[real] + g.down_deg[real]), kind="stable")]
        for _ in range(SIFT_ROUNDS):
            ordering.sift(by_degree)
            crossings, slots = _improve(ordering)
            if crossings >= best:
                break
            best, best_slots = crossings, slots
            ordering.restore(best_slots)
        ordering.restore(best_slots)
    return ordering
