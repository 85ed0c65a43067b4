"""Crossing reduction for a layered graph whose edges all join neighbouring layers (long edges
already cut by dummies): dot's mincross, vectorised with numpy.

Long because every pass is vectorised, which needs explicit index bookkeeping (often a few-
and a many-case path) around the index sets that Graph precomputes for all of them."""

from collections import deque

import numpy as np

MAX_ITERATIONS = 24
MIN_QUIT = 8  # iterations without a real gain before a try stops
CONVERGENCE = 0.995
SPARSE = 4.0  # crossings per edge at most: a sparse drawing, which settles sooner
SPARSE_MIN_QUIT = 4
TRANSPOSE_PASSES = 4
# Effort (work-based, so output stays deterministic): one start; four and sifting for small
# graphs (nodes + dummies) and for tangled ones up to SECOND_START_LIMIT, where the first try
# left more than TANGLED crossings per edge (layout.py lays those out again with
# network-simplex layers).
ALL_STARTS_LIMIT = 1500
SECOND_START_LIMIT = 12000
TANGLED = 5.0
SIFT_ROUNDS = 3  # at most, of sifting every node of every layer
FEW_MEDIANS = 16  # a layer's medians of several positions: one by one up to this many
GROUPED_GAP_EDGES = 128  # gaps with at most this many edges are counted in groups
# (all pairs at once), bigger ones one by one: all pairs up to PAIRWISE_GAP_EDGES, beyond
# that by merge sort (which is faster from about 500 edges on)
PAIRWISE_GAP_EDGES = 512
GROUP_CELLS = 1 << 20  # pairs compared at once
PAIR_CELLS = 1 << 21  # pairs of edges compared at once while sifting


def _csr(adjacency: list[list[int]]) -> tuple[np.ndarray, np.ndarray]:
    degrees = np.fromiter((len(a) for a in adjacency), dtype=np.int64, count=len(adjacency))
    pointer = np.zeros(len(adjacency) + 1, dtype=np.int64)
    np.cumsum(degrees, out=pointer[1:])
    flat = [x for a in adjacency for x in a]
    return pointer, np.array(flat, dtype=np.int64)


def _inversions(upper: np.ndarray, lower: np.ndarray) -> int:
    """Crossings among edges between two layers, given their end positions: sorted by upper end,
    then lower, two edges cross exactly when their lower ends are strictly out of order."""
    m = len(upper)
    if m < 2:
        return 0
    order = np.lexsort((lower, upper))
    if m > PAIRWISE_GAP_EDGES:
        return _merge_inversions(lower[order])
    upper, lower = upper[order], lower[order]
    return int(
        np.count_nonzero((upper[None, :] < upper[:, None]) & (lower[None, :] > lower[:, None]))
    )


def _merge_inversions(values: np.ndarray) -> int:
    """Pairs i < j with values[i] > values[j] (values >= 0), counted by a bottom-up merge sort
    over every block at once: O(m log^2 m) instead of comparing all pairs."""
    m = len(values)
    if m < 2:
        return 0
    values = values.astype(np.int64)
    span = int(values.max()) + 1
    index = np.arange(m)
    total = 0
    width = 1
    while width < m:
        # blocks of `width` are sorted; each right block counts the greater values of the
        # left block it pairs with, then the two merge (keys keep every pair apart)
        block = index // width
        pair = block >> 1
        right = (block & 1).astype(bool)
        keys = pair * span + values
        left = keys[~right]
        above = np.searchsorted(left, (pair[right] + 1) * span, side="left")
        total += int((above - np.searchsorted(left, keys[right], side="right")).sum())
        values = np.sort(keys, kind="stable") - pair * span
        width <<= 1
    return total


class Graph:
    """The static part: adjacency in compressed form, layers, and the index sets that the
    vectorised passes reuse."""

    def __init__(self, layer: list[int], up: list[list[int]], down: list[list[int]], real: int):
        self.count = len(layer)
        self.dummy = np.arange(self.count) >= real  # dummies are numbered after real nodes
        self.layer = np.array(layer, dtype=np.int64)
        self.depth = int(self.layer.max()) + 1 if self.count else 0
        self.up_list, self.down_list = up, down
        self.up_ptr, self.up_idx = _csr(up)
        self.down_ptr, self.down_idx = _csr(down)
        self.up_deg = np.diff(self.up_ptr)
        self.down_deg = np.diff(self.down_ptr)
        # both sides in one: entry x is node x's up side, entry x + count its down side
        self.side_deg = np.concatenate((self.up_deg, self.down_deg))
        self.side_ptr = np.concatenate((self.up_ptr[:-1], self.down_ptr[:-1] + len(self.up_idx)))
        self.side_idx = np.concatenate((self.up_idx, self.down_idx))
        self.sizes = np.bincount(self.layer, minlength=self.depth)
        self.widest = int(self.sizes.max()) if self.depth else 0
        # positions within a layer in the narrowest type that holds them (faster compares)
        self.small_int = np.int16 if self.widest < 2**15 else np.int64
        self.start = np.zeros(self.depth + 1, dtype=np.int64)
        np.cumsum(self.sizes, out=self.start[1:])
        slot_layer = np.repeat(np.arange(self.depth), self.sizes)
        offset = np.arange(self.count) - self.start[slot_layer]
        has_next = offset + 1 < self.sizes[slot_layer]
        # pair slots by (layer parity, pair parity)
        self.pairs = [
            [np.flatnonzero(has_next & (slot_layer % 2 == p) & (offset % 2 == q)) for q in (0, 1)]
            for p in (0, 1)
        ]
        # edges for crossing counts, grouped by the gap they cross
        upper = np.repeat(np.arange(self.count), self.down_deg)
        gaps = self.layer[upper]
        order = np.argsort(gaps, kind="stable")
        self.edge_upper, self.edge_lower = upper[order], self.down_idx[order]
        self.gap_bounds = np.searchsorted(gaps[order], np.arange(self.depth + 1))
        self._group_gaps()
        self._plans: dict[bool, list[tuple]] = {}
        self.ranks = np.arange(self.widest, dtype=np.int64)

    def sweep_plan(self, downward: bool) -> list[tuple]:
        """Per layer of a sweep (down: by up-neighbours; up: by down-neighbours), the index arrays
        its median step needs, and whether some node has no neighbour there; built once."""
        key = bool(downward)
        if key in self._plans:
            return self._plans[key]
        pointer, index, degree = (
            (self.up_ptr, self.up_idx, self.up_deg)
            if downward
            else (self.down_ptr, self.down_idx, self.down_deg)
        )
        width = self.widest + 1
        by_layer = np.argsort(self.layer, kind="stable")  # layer after layer, in id order
        levels = np.arange(self.depth + 1)
        single = by_layer[degree[by_layer] == 1]
        single_nbr = index[pointer[single]]
        single_at = np.searchsorted(self.layer[single], levels).tolist()
        multi = by_layer[degree[by_layer] > 1]
        counts = degree[multi]
        ends = np.cumsum(counts)
        flat_start = ends - counts  # where each node's neighbours start in `neighbours`
        neighbours = index[
            np.repeat(pointer[multi] - flat_start, counts)
            + np.arange(int(ends[-1]) if len(ends) else 0)
        ]
        multi_at = np.searchsorted(self.layer[multi], levels)
        # block offsets: a node's index among its layer's nodes with more than one neighbour,
        # times the widest layer + 1, so one sort sorts every block
        owner = np.arange(len(multi)) - np.repeat(multi_at[:-1], np.diff(multi_at))
        offset = np.repeat(owner * width, counts)
        middle = counts // 2
        lo = flat_start + np.where(counts % 2 == 1, middle, middle - 1)
        hi = flat_start + middle
        last = ends - 1
        flat_at = np.concatenate(([0], ends))[multi_at].tolist()
        multi_at = multi_at.tolist()
        fixed = (np.bincount(self.layer[degree == 0], minlength=self.depth) > 0).tolist()
        start = self.start.tolist()
        plan = []
        for level in range(1, self.depth) if downward else range(self.depth - 2, -1, -1):
            begin, end = start[level], start[level + 1]
            if end - begin < 2:
                continue
            a, b = multi_at[level], multi_at[level + 1]
            multi_plan = None
            if b > a:
                base = flat_at[level]
                if b - a <= FEW_MEDIANS:
                    starts = (flat_start[a:b] - base).tolist()
                    multi_plan = (
                        multi[a:b],
                        neighbours[base : flat_at[level + 1]],
                        [(x, x + c) for x, c in zip(starts, counts[a:b].tolist(), strict=True)],
                    )
                else:
                    multi_plan = (
                        multi[a:b],
                        neighbours[base : flat_at[level + 1]],
                        offset[base : flat_at[level + 1]],
                        lo[a:b] - base,
                        hi[a:b] - base,
                        flat_start[a:b] - base,
                        last[a:b] - base,
                    )
            s0, s1 = single_at[level], single_at[level + 1]
            plan.append((begin, end, single[s0:s1], single_nbr[s0:s1], multi_plan, fixed[level]))
        self._plans[key] = plan
        return plan

    def _group_gaps(self) -> None:
        """Group the gaps with few edges, padded to one width by an edge that crosses nothing, so
        one broadcast counts a group; bigger gaps are counted one by one."""
        bounds = self.gap_bounds.tolist()
        sizes = [bounds[i + 1] - bounds[i] for i in range(self.depth)]
        self.big_gaps = [
            (bounds[i], bounds[i + 1]) for i in range(self.depth) if sizes[i] > GROUPED_GAP_EDGES
        ]
        self.gap_groups = []
        pad = len(self.edge_upper)  # index of the padding edge
        width = 2
        while width <= GROUPED_GAP_EDGES:
            members = [i for i in range(self.depth) if width // 2 < sizes[i] <= width]
            width *= 2
            if not members:
                continue
            columns = max(sizes[i] for i in members)
            index = np.full((len(members), columns), pad, dtype=np.int64)
            for row, i in enumerate(members):
                index[row, : sizes[i]] = np.arange(bounds[i], bounds[i + 1])
            rows = max(1, GROUP_CELLS // (columns * columns))
            self.gap_groups.extend(index[r : r + rows] for r in range(0, len(members), rows))


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
        return [self.slots[g.start[i] : g.start[i + 1]].tolist() for i in range(g.depth)]

    def snapshot(self) -> np.ndarray:
        return self.slots.copy()

    def restore(self, slots: np.ndarray) -> None:
        self.slots = slots.copy()
        self._index()

    def crossings(self) -> int:
        g, pos = self.graph, self.pos
        upper, lower = pos[g.edge_upper], pos[g.edge_lower]
        total = sum(_inversions(upper[a:b], lower[a:b]) for a, b in g.big_gaps)
        if g.gap_groups:
            # the padding edge sits below and after everything: it crosses nothing
            upper = np.append(upper, g.widest).astype(g.small_int)
            lower = np.append(lower, g.widest).astype(g.small_int)
            for index in g.gap_groups:
                u, w = upper[index], lower[index]
                total += int(
                    np.count_nonzero(
                        (u[:, :, None] < u[:, None, :]) & (w[:, :, None] > w[:, None, :])
                    )
                )
        return total

    def sweep(self, downward: bool) -> None:
        """Weighted-median reordering, layer after layer; nodes without neighbours on that
        side keep their places."""
        g, pos, slots = self.graph, self.pos, self.slots
        keys = np.full(g.count, -1.0)  # nodes without neighbours on that side stay at -1
        ranks = g.ranks
        for begin, end, single, single_nbr, multi, fixed in g.sweep_plan(downward):
            keys[single] = pos[single_nbr]
            if multi is not None and len(multi) == 3:  # a few: one by one
                nodes, neighbours, bounds = multi
                values = pos[neighbours].tolist()
                medians = []
                for a, b in bounds:
                    ends = sorted(values[a:b])
                    middle = (b - a) // 2
                    if (b - a) % 2:
                        medians.append(ends[middle])
                        continue
                    # dot's weighted median: the two middle positions, weighted towards the
                    # side whose positions are closer together
                    low, high = ends[middle - 1], ends[middle]
                    left, right = low - ends[0], ends[-1] - high
                    if left + right:
                        medians.append((low * right + high * left) / (left + right))
                    else:
                        medians.append((low + high) / 2)
                keys[nodes] = medians
            elif multi is not None:  # many: all at once, the same arithmetic
                nodes, neighbours, offset, lo, hi, first, last = multi
                ends = np.sort(pos[neighbours] + offset)
                low, high = ends[lo], ends[hi]
                left, right = low - ends[first], ends[last] - high
                weight = left + right
                low -= offset[lo]
                high -= offset[hi]
                keys[nodes] = np.where(
                    weight > 0,
                    (low * right + high * left) / np.maximum(weight, 1),
                    (low + high) / 2,
                )
            order = slots[begin:end]
            if fixed:
                key = keys[order]
                movable = np.flatnonzero(key >= 0)
                if len(movable) < 2:
                    continue
                chosen = movable[np.argsort(key[movable], kind="stable")]
                reordered = order.copy()
                reordered[movable] = order[chosen]
            else:
                reordered = order[np.argsort(keys[order], kind="stable")]
            slots[begin:end] = reordered
            pos[reordered] = ranks[: end - begin]

    def _pair_crossings(
        self, u: np.ndarray, v: np.ndarray, with_now: bool
    ) -> tuple[np.ndarray, np.ndarray | None]:
        """For adjacent pairs (u left of v): the crossings a swap would remove (negative if it
        adds some) and, `with_now`, the crossings now; both sides of a node in one pass."""
        g, pos = self.graph, self.pos
        count = len(u)
        uu = np.concatenate((u, u + g.count))
        vv = np.concatenate((v, v + g.count))
        du, dv = g.side_deg[uu], g.side_deg[vv]
        products = du * dv
        ends = np.cumsum(products)
        total = int(ends[-1])
        if total == 0:
            return np.zeros(count, dtype=np.int64), np.zeros(count, dtype=np.int64)
        pair = np.repeat(np.arange(2 * count), products)
        local = np.arange(total) - np.repeat(ends - products, products)
        first, second = np.divmod(local, dv[pair])
        a = pos[g.side_idx[g.side_ptr[uu][pair] + first]]
        b = pos[g.side_idx[g.side_ptr[vv][pair] + second]]
        gain = np.bincount(pair, weights=np.sign(a - b), minlength=2 * count)
        gain = gain[:count] + gain[count:]
        if not with_now:
            return gain, None
        now = np.bincount(pair, weights=a > b, minlength=2 * count)
        return gain, now[:count] + now[count:]

    def sift_layers(self, downward: bool) -> None:
        """Sifting layer after layer: each node of a layer (busiest first) moves to where its
        edges cross the fewest others, the rest keeping their order."""
        g, pos, slots = self.graph, self.pos, self.slots
        degree = g.up_deg + g.down_deg
        layers = range(g.depth) if downward else range(g.depth - 1, -1, -1)
        for level in layers:
            begin, end = int(g.start[level]), int(g.start[level + 1])
            k = end - begin
            if k < 2:
                continue
            nodes = slots[begin:end].copy()
            # the neighbouring layers stay put while this one is sifted, so pair crossings
            # are counted once, as a matrix, and each move is a prefix sum over it
            pair = np.zeros(k * k)  # pair[i * k + j]: crossings of nodes i, j with i left of j
            for pointer, index in ((g.up_ptr, g.up_idx), (g.down_ptr, g.down_idx)):
                counts = pointer[nodes + 1] - pointer[nodes]
                total = int(counts.sum())
                if total < 2:
                    continue
                owner = np.repeat(np.arange(k), counts)
                starts = np.repeat(pointer[nodes], counts)
                local = np.arange(total) - np.repeat(np.cumsum(counts) - counts, counts)
                ends = pos[index[starts + local]]
                # (a matrix product would do this in k * k * width steps, but numpy hands
                # it to a threaded BLAS, which crawls on a busy machine)
                chunk = max(1, PAIR_CELLS // total)
                for first in range(0, total, chunk):
                    rows = slice(first, first + chunk)
                    pair += np.bincount(
                        (owner[rows, None] * k + owner[None, :]).ravel(),
                        weights=(ends[rows, None] > ends[None, :]).ravel(),
                        minlength=k * k,
                    )
            cost = pair.reshape(k, k)
            cost[np.diag_indices(k)] = 0.0  # a node's own edges never cross each other
            order = np.arange(k)
            at = np.arange(k)  # where each node is in `order`
            movers = np.argsort(-degree[nodes], kind="stable")
            for i in movers.tolist():
                # placed in gap q (before order[q]), i costs what it costs right of
                # everything, plus, for each node left of the gap, the difference
                prefix = np.empty(k + 1)
                prefix[0] = 0.0
                np.cumsum(cost[order, i] - cost[i, order], out=prefix[1:])
                current = int(at[i])
                gap = int(np.argmin(prefix))
                if prefix[gap] < prefix[current]:
                    if gap < current:
                        order[gap + 1 : current + 1] = order[gap:current].copy()
                        order[gap] = i
                        at[order[gap : current + 1]] = np.arange(gap, current + 1)
                    else:  # gap > current + 1
                        order[current : gap - 1] = order[current + 1 : gap].copy()
                        order[gap - 1] = i
                        at[order[current:gap]] = np.arange(current, gap)
            reordered = nodes[order]
            slots[begin:end] = reordered
            pos[reordered] = np.arange(k)

    def transpose(self, passes: int, *, equal_swaps: bool = False) -> None:
        """Swap adjacent nodes while that removes crossings (with `equal_swaps`, also when it
        adds none: dot's way off a plateau)."""
        g, pos, slots = self.graph, self.pos, self.slots
        # swaps of disjoint pairs are independent and layers of one parity never neighbour
        # each other, so each (layer parity, pair parity) class is decided at once; as the
        # neighbouring layers stay put, a pair is looked at again only if a slot changed
        for parity in (0, 1):
            # changed[h][slot]: the slot's node changed since half h last looked at it
            changed = [np.ones(g.count + 1, dtype=bool), np.ones(g.count + 1, dtype=bool)]
            for _ in range(passes):
                improved = False
                for half in (0, 1):
                    k = g.pairs[parity][half]
                    stale = changed[half]
                    k = k[stale[k] | stale[k + 1]]
                    if not len(k):
                        continue
                    stale[k] = False
                    stale[k + 1] = False
                    gain, now = self._pair_crossings(slots[k], slots[k + 1], equal_swaps)
                    swap = gain > 0
                    better = bool(swap.any())
                    if equal_swaps:
                        swap |= (gain == 0) & (now > 0)
                    if better or swap.any():
                        improved = improved or better
                        at = k[swap]
                        left, right = slots[at].copy(), slots[at + 1].copy()
                        slots[at], slots[at + 1] = right, left
                        pos[left] += 1
                        pos[right] -= 1
                        for mark in changed:
                            mark[at] = True
                            mark[at + 1] = True
                if not improved:
                    break


def _depth_first_layers(g: Graph, from_sinks: bool) -> list[list[int]]:
    """Depth-first from the first layer along out-edges (or from the last along in-edges):
    a start that keeps chains together."""
    layers: list[list[int]] = [[] for _ in range(g.depth)]
    seen = [False] * g.count
    forward = g.up_list if from_sinks else g.down_list
    layer = g.layer.tolist()
    # roots layer by layer (from the last one for the sinks), in id order within a layer
    roots = np.argsort(-g.layer if from_sinks else g.layer, kind="stable").tolist()
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
            following = forward[v]
            stack.extend(sorted(following, reverse=True) if len(following) > 1 else following)
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
            around = (
                (*g.up_list[v], *g.down_list[v]) if from_sinks else (*g.down_list[v], *g.up_list[v])
            )
            for w in around:
                if not seen[w]:
                    seen[w] = True
                    queue.append(w)
    for v in range(g.count):
        if not seen[v]:
            layers[layer[v]].append(v)
    return layers


def _improve(ordering: Ordering, edges: int) -> tuple[int, np.ndarray]:
    """One try of sweeps and transpositions: the best order seen and its crossings; stops after
    MIN_QUIT iterations without a real gain (SPARSE_MIN_QUIT once the drawing is sparse)."""
    best = ordering.crossings()
    best_slots = ordering.snapshot()
    stale = 0
    for iteration in range(MAX_ITERATIONS):
        if best == 0 or stale >= (MIN_QUIT if best > SPARSE * edges else SPARSE_MIN_QUIT):
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


def first_try(
    layer: list[int], up: list[list[int]], down: list[list[int]], real: int, edges: int
) -> tuple[Graph, int, np.ndarray]:
    """The graph, and the crossings and order of one try from a depth-first start."""
    g = Graph(layer, up, down, real)
    best, best_slots = _improve(Ordering(g, _depth_first_layers(g, False)), edges)
    return g, best, best_slots


def is_tangled(first: tuple[Graph, int, np.ndarray], *, edges: int) -> bool:
    """A graph small enough for more effort whose first try still crosses a lot."""
    return _tangled(first[0].count, first[1], edges)


def order_layers(
    layer: list[int],
    up: list[list[int]],
    down: list[list[int]],
    edges: int,
    real: int,
    *,
    first: tuple[Graph, int, np.ndarray] | None = None,
    thorough: bool | None = None,
) -> Ordering:
    """The layer orders with the fewest crossings found. `edges`, `real`: the graph's own edges
    and nodes (dummies numbered after); `first`: a try already made; `thorough`: every try."""
    g, best, best_slots = first if first is not None else first_try(layer, up, down, real, edges)
    # more tries where they are cheap (small graphs) or pay off (tangled ones)
    more = (
        thorough
        if thorough is not None
        else g.count <= ALL_STARTS_LIMIT or _tangled(g.count, best, edges)
    )
    if more and best > 0:
        for start, from_sinks in (
            (_depth_first_layers, True),
            (_breadth_first_layers, False),
            (_breadth_first_layers, True),
        ):
            crossings, slots = _improve(Ordering(g, start(g, from_sinks)), edges)
            if crossings < best:
                best, best_slots = crossings, slots
    ordering = Ordering(g, [])
    ordering.restore(best_slots)
    if more and best > 0:
        # sifting, layer after layer (down, then up, ...), until a round gains nothing
        for round_ in range(SIFT_ROUNDS):
            ordering.sift_layers(downward=round_ % 2 == 0)
            crossings = ordering.crossings()
            if crossings >= best:
                break
            best, best_slots = crossings, ordering.snapshot()
        ordering.restore(best_slots)
    return ordering
