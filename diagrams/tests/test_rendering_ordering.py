"""The layered layout's inner steps (pure: no database): network simplex layers, the crossing
count, transposition and sifting, each against a plain reference."""

import random

import networkx as nx
import numpy as np
import pytest

from diagrams.rendering.layering import assign_layers, network_simplex_layers
from diagrams.rendering.ordering import (
    TRANSPOSE_PASSES,
    Graph,
    Ordering,
    _depth_first_layers,
    _merge_inversions,
)


def random_dag(seed: int, n: int, m: int) -> tuple[list[list[int]], list[list[int]]]:
    """A weakly connected DAG (edges point forward in a random order), multi-edges allowed."""
    rng = random.Random(seed)
    order = list(range(n))
    rng.shuffle(order)
    rank = {v: i for i, v in enumerate(order)}
    edges = [(order[i - 1], order[i]) for i in range(1, n)]  # a path: connected
    edges += [tuple(rng.sample(range(n), 2)) for _ in range(m)]
    succ: list[list[int]] = [[] for _ in range(n)]
    pred: list[list[int]] = [[] for _ in range(n)]
    for a, b in edges:
        if rank[a] > rank[b]:
            a, b = b, a
        succ[a].append(b)
        pred[b].append(a)
    return succ, pred


def least_total_length(n: int, succ: list[list[int]]) -> int:
    """The optimum of min sum(layer[b] - layer[a]) s.t. layer[b] - layer[a] >= 1, by its dual:
    the most flow (cost -1 per unit) with node balances in-degree minus out-degree."""
    flow = nx.DiGraph()
    indegree = [0] * n
    for a in range(n):
        for b in succ[a]:
            indegree[b] += 1
    for v in range(n):
        flow.add_node(v, demand=indegree[v] - len(succ[v]))
    for a in range(n):
        for b in succ[a]:
            if flow.has_edge(a, b):  # parallel edges: one arc, same cost, no capacity
                continue
            flow.add_edge(a, b, weight=-1)
    cost, _ = nx.network_simplex(flow)
    return -cost


@pytest.mark.parametrize("seed", range(40))
def test_network_simplex_layers_are_feasible_and_of_least_total_length(seed):
    rng = random.Random(seed)
    n = rng.randint(2, 40)
    succ, pred = random_dag(seed, n, rng.randint(0, 3 * n))
    start = assign_layers(n, succ, pred)
    layers = network_simplex_layers(n, succ, pred, start)
    assert min(layers) == 0
    assert all(layers[b] - layers[a] >= 1 for a in range(n) for b in succ[a])
    total = sum(layers[b] - layers[a] for a in range(n) for b in succ[a])
    assert total == least_total_length(n, succ)
    assert total <= sum(start[b] - start[a] for a in range(n) for b in succ[a])
    assert network_simplex_layers(n, succ, pred, start) == layers  # deterministic


def layered_graph(seed: int, n: int, m: int) -> Graph:
    """A proper layered graph: a random DAG, longest-path layers, long edges cut by dummies."""
    succ, pred = random_dag(seed, n, m)
    layer = assign_layers(n, succ, pred)
    up: list[list[int]] = [[] for _ in range(n)]
    down: list[list[int]] = [[] for _ in range(n)]
    for a in range(n):
        for b in succ[a]:
            previous = a
            for level in range(layer[a] + 1, layer[b]):
                layer.append(level)
                up.append([previous])
                down.append([])
                down[previous].append(len(layer) - 1)
                previous = len(layer) - 1
            down[previous].append(b)
            up[b].append(previous)
    return Graph(layer, up, down, n)


def brute_crossings(g: Graph, pos: np.ndarray) -> int:
    """Every pair of edges of a gap, compared."""
    total = 0
    edges = np.array([(v, w) for v in range(g.count) for w in g.down_list[v]])
    for level in range(g.depth - 1):
        a, b = edges[g.layer[edges[:, 0]] == level].T
        upper, lower = pos[a], pos[b]
        total += (
            int(((upper[:, None] - upper[None, :]) * (lower[:, None] - lower[None, :]) < 0).sum())
            // 2
        )
    return total


def shuffled(g: Graph, seed: int) -> Ordering:
    rng = random.Random(seed)
    layers = _depth_first_layers(g, False)
    for nodes in layers:
        rng.shuffle(nodes)
    return Ordering(g, layers)


@pytest.mark.parametrize("seed", range(6))
def test_crossings_are_counted_exactly(seed):
    g = layered_graph(seed, 40 + 20 * seed, 80 + 40 * seed)
    ordering = shuffled(g, seed)
    assert ordering.crossings() == brute_crossings(g, ordering.pos)


@pytest.mark.parametrize("edges", [3, 60, 129, 300, 513, 2000])
def test_crossings_of_wide_gaps_are_counted_exactly(edges):
    # two layers: a gap of over 128 edges is counted alone (over 512 by merge sort), smaller
    # ones in groups; many edges share their ends, so ties are counted (not crossing) too
    rng = random.Random(edges)
    up: list[list[int]] = [[] for _ in range(60)]
    down: list[list[int]] = [[] for _ in range(60)]
    for _ in range(edges):
        a, b = rng.randrange(30), rng.randrange(30, 60)
        down[a].append(b)
        up[b].append(a)
    g = Graph([0] * 30 + [1] * 30, up, down, 60)
    ordering = shuffled(g, edges)
    assert ordering.crossings() == brute_crossings(g, ordering.pos)


@pytest.mark.parametrize("seed", range(4))
def test_merge_count_of_inversions_is_exact(seed):
    rng = random.Random(seed)
    values = [rng.randrange(1 + 40 * seed) for _ in range(300 + 97 * seed)]
    expected = sum(1 for i, a in enumerate(values) for b in values[i + 1 :] if a > b)
    assert _merge_inversions(np.array(values)) == expected


def plain_transpose(ordering: Ordering, passes: int, equal_swaps: bool) -> None:
    """Transposition looking at every pair in every pass (no bookkeeping of what changed)."""
    g, pos, slots = ordering.graph, ordering.pos, ordering.slots
    for parity in (0, 1):
        for _ in range(passes):
            improved = False
            for half in (0, 1):
                k = g.pairs[parity][half]
                if not len(k):
                    continue
                gain, now = ordering._pair_crossings(slots[k], slots[k + 1], True)
                swap = (gain > 0) | (equal_swaps & (gain == 0) & (now > 0))
                improved = improved or bool((gain > 0).any())
                at = k[swap]
                left, right = slots[at].copy(), slots[at + 1].copy()
                slots[at], slots[at + 1] = right, left
                pos[left] += 1
                pos[right] -= 1
            if not improved:
                break


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("equal_swaps", [False, True])
def test_transposition_matches_the_plain_one_and_never_adds_crossings(seed, equal_swaps):
    g = layered_graph(seed, 80, 160)
    fast, plain = shuffled(g, seed), shuffled(g, seed)
    before = fast.crossings()
    fast.transpose(TRANSPOSE_PASSES, equal_swaps=equal_swaps)
    plain_transpose(plain, TRANSPOSE_PASSES, equal_swaps)
    assert np.array_equal(fast.slots, plain.slots)
    if not equal_swaps:
        assert fast.crossings() <= before


@pytest.mark.parametrize("seed", range(6))
def test_sweeps_and_sifting_keep_each_layer_a_permutation(seed):
    g = layered_graph(seed, 80, 160)
    ordering = shuffled(g, seed)
    for downward in (True, False):
        ordering.sweep(downward)
        before = ordering.crossings()
        ordering.sift_layers(downward)
        assert ordering.crossings() <= before  # a node only moves where it crosses less
        for i, nodes in enumerate(ordering.layers):
            assert sorted(nodes) == sorted(np.flatnonzero(g.layer == i).tolist())
            assert [int(ordering.pos[v]) for v in nodes] == list(range(len(nodes)))


@pytest.mark.parametrize("seed", range(4))
def test_medians_one_by_one_and_all_at_once_agree(seed, monkeypatch):
    import diagrams.rendering.ordering as ordering_module

    results = []
    for few in (0, 10**9):  # every layer all at once, then every layer one by one
        monkeypatch.setattr(ordering_module, "FEW_MEDIANS", few)
        g = layered_graph(seed, 120, 400)
        ordering = shuffled(g, seed)
        for downward in (True, False, True, False):
            ordering.sweep(downward)
        results.append(ordering.slots.copy())
    assert np.array_equal(*results)


def test_sifting_in_chunks_gives_the_same_order(monkeypatch):
    import diagrams.rendering.ordering as ordering_module

    results = []
    for cells in (ordering_module.PAIR_CELLS, 7):  # at once, then a few rows at a time
        monkeypatch.setattr(ordering_module, "PAIR_CELLS", cells)
        g = layered_graph(3, 80, 200)
        ordering = shuffled(g, 3)
        ordering.sift_layers(True)
        ordering.sift_layers(False)
        results.append(ordering.slots.copy())
    assert np.array_equal(*results)
