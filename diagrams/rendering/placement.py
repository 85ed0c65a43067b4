"""Vertical placement of an ordered layered graph (the x of a node is its layer's column), with
nodes pulled towards their neighbours and long edges straightened."""

import numpy as np

from diagrams.rendering.ordering import Graph, Ordering

NODE_GAP = 14.0  # between two nodes of a layer
DUMMY_GAP = 5.0  # next to a dummy (a long edge passing through the layer)
ITERATIONS = 40


def vertical_centres(
    g: Graph,
    ordering: Ordering,
    heights: np.ndarray,
    dummy: np.ndarray,
    cut: np.ndarray | None = None,
) -> np.ndarray:
    """The centre height of every node: pulled towards its neighbours, kept in order and spaced.
    `cut`: per layer, whether a row of the drawing ends there; edges from such a layer wrap
    round to the next row, so they pull nothing."""
    slots = ordering.slots
    if g.count == 0:
        return np.zeros(0)
    slot_layer = np.repeat(np.arange(g.depth), g.sizes)
    h = heights[slots]
    d = dummy[slots]
    gap = np.where(d[:-1] | d[1:], DUMMY_GAP, NODE_GAP)
    separation = (h[:-1] + h[1:]) / 2 + gap
    same_layer = slot_layer[:-1] == slot_layer[1:]
    separation = np.where(same_layer, separation, 0.0)
    cumulative = np.concatenate(([0.0], np.cumsum(separation)))
    offset = cumulative - cumulative[g.start[slot_layer]]  # spacing from the layer's top

    upper, lower = g.edge_upper, g.edge_lower
    weight = np.where(
        dummy[upper] & dummy[lower], 8.0, np.where(dummy[upper] | dummy[lower], 2.0, 1.0)
    )
    if cut is not None:
        weight = np.where(cut[g.layer[upper]], 0.0, weight)
    pull = np.bincount(upper, weight, g.count) + np.bincount(lower, weight, g.count)
    free = pull == 0

    y = np.empty(g.count)
    y[slots] = offset
    span = float(offset.max()) + 1.0
    big = 4.0 * span + 1e4  # keeps the running max/min from crossing layer boundaries
    lift = slot_layer * big
    divisor = np.where(free, 1.0, pull)
    # pull each node to its neighbours' weighted mean (dummy-dummy edges hardest), then project
    # every layer back onto order and spacing: the mean of the running max from the top and
    # the running min from the bottom, all layers at once
    for _ in range(ITERATIONS):
        total = np.bincount(upper, weight * y[lower], g.count) + np.bincount(
            lower, weight * y[upper], g.count
        )
        desired = np.where(free, y, total / divisor)
        lifted = desired[slots] - offset + lift
        top = np.maximum.accumulate(lifted) - lift
        bottom = (np.minimum.accumulate(lifted[::-1]) - lift[::-1])[::-1]
        y[slots] = (top + bottom) / 2 + offset
        big_span = float(np.abs(y).max()) + 1.0
        if big_span * 4 > big:
            big = 4.0 * big_span + 1e4
            lift = slot_layer * big
    return y


def straighten(
    chains: list[list[int]],
    g: Graph,
    ordering: Ordering,
    y: np.ndarray,
    heights: np.ndarray,
    dummy: np.ndarray,
) -> None:
    """Give each long edge's run of dummies one common height (the source's, the target's or
    the run's median, whichever first fits in every layer), so long edges run straight."""
    ys = y.tolist()
    height = heights.tolist()
    is_dummy = dummy.tolist()
    order = ordering.slots.tolist()
    level_of_slot = np.repeat(np.arange(g.depth), g.sizes).tolist()
    # the node above / below each node in its layer (-1: none), and the room each needs
    above = [-1] * g.count
    below = [-1] * g.count
    for slot in range(1, len(order)):
        if level_of_slot[slot] == level_of_slot[slot - 1]:
            a, b = order[slot - 1], order[slot]
            below[a], above[b] = b, a

    def gap(a: int, b: int) -> float:
        return (height[a] + height[b]) / 2 + (DUMMY_GAP if is_dummy[a] or is_dummy[b] else NODE_GAP)

    def fits(node: int, value: float) -> bool:
        a = above[node]
        if a >= 0 and value < ys[a] + gap(a, node) - 1e-6:
            return False
        b = below[node]
        return not (b >= 0 and value > ys[b] - gap(node, b) + 1e-6)

    for chain in sorted(chains, key=len, reverse=True):
        run = chain[1:-1]
        if len(run) < 2:
            continue
        values = sorted(ys[d] for d in run)
        for value in (ys[chain[0]], ys[chain[-1]], values[len(values) // 2]):
            if all(fits(d, value) for d in run):
                for d in run:
                    ys[d] = value
                break
    y[:] = ys
