"""Edge crossings of a drawing, counted the same way for ours, Graphviz dot's and ELK's.

`geometric_crossings`: the proper intersections between the edges' polylines as drawn.
`count_crossings` (the count before drawings wrapped long layers into rows, kept for
reference): the ranks are the distinct x of node centres; every edge is followed along its
drawn path and read at each rank x it spans; two edges cross between consecutive ranks when
their order there flips."""

from bisect import bisect_left, bisect_right

import numpy as np

from diagrams.rendering.ordering import _inversions as _gap_inversions


def _inversions(pairs: np.ndarray) -> int:
    """Crossings among (y at one rank, y at the next) pairs: the layout's own count, on the
    ys' ranks (which keep their order and their ties)."""
    if len(pairs) < 2:
        return 0
    return _gap_inversions(
        np.unique(pairs[:, 0], return_inverse=True)[1],
        np.unique(pairs[:, 1], return_inverse=True)[1],
    )


def _y_at(path: list[tuple[float, float]], x: float) -> float | None:
    for (x0, y0), (x1, y1) in zip(path, path[1:], strict=False):
        lo, hi = min(x0, x1), max(x0, x1)
        if lo - 1e-6 <= x <= hi + 1e-6:
            if abs(x1 - x0) < 1e-9:
                return (y0 + y1) / 2
            return y0 + (y1 - y0) * (x - x0) / (x1 - x0)
    return None


def count_crossings(rank_xs: list[float], paths: list[list[tuple[float, float]]]) -> int:
    """`paths`: each edge as a polyline (x, y) from one end to the other."""
    ranks = sorted(set(round(x, 3) for x in rank_xs))
    gaps: dict[int, list[tuple[float, float]]] = {}
    for path in paths:
        # an edge leaves and enters at a node's side: carry it level to the node's rank
        path = [
            (_nearest(ranks, path[0][0]), path[0][1]),
            *path,
            (_nearest(ranks, path[-1][0]), path[-1][1]),
        ]
        xs = [p[0] for p in path]
        lo, hi = min(xs), max(xs)
        first, last = bisect_left(ranks, lo - 1e-3), bisect_right(ranks, hi + 1e-3)
        samples = [(i, _y_at(path, ranks[i])) for i in range(first, last)]
        samples = [(i, y) for i, y in samples if y is not None]
        for (i, ya), (_, yb) in zip(samples, samples[1:], strict=False):
            gaps.setdefault(i, []).append((ya, yb))
    return sum(_inversions(np.array(pairs, dtype=float)) for pairs in gaps.values())


def _nearest(ranks: list[float], x: float) -> float:
    i = bisect_left(ranks, x)
    candidates = ranks[max(0, i - 1) : i + 1]
    return min(candidates, key=lambda r: abs(r - x))


def polyline_length(path) -> float:
    points = np.asarray(path, dtype=float)
    return float(np.hypot(*np.diff(points, axis=0).T).sum()) if len(points) > 1 else 0.0


def geometric_crossings(paths) -> int:
    """Proper intersections between different edges' polylines (each a sequence of (x, y)):
    two segments cross when each one's ends lie strictly on either side of the other, so
    edges that only touch (at a node they share, end to end) or run along each other do not
    count, and an edge does not cross itself.

    The plane is cut into square cells of a uniform grid. In a column of cells, the segments
    that span it from side to side cross where their order flips from its left side to its
    right side: inversions, counted at once for every column. A segment that ends in a column
    (or is vertical) is tested there against every segment filed under the same cells: cut
    into pieces no longer than a cell, each filed under the cells its box meets; a crossing
    counts in the one cell its point falls in, so a pair met in several cells counts once."""
    segments = []
    owner = []
    for index, path in enumerate(paths):
        points = np.asarray(path, dtype=float).reshape(-1, 2)
        if len(points) < 2:
            continue
        segments.append(np.hstack([points[:-1], points[1:]]))
        owner.append(np.full(len(points) - 1, index))
    if not segments:
        return 0
    seg = np.vstack(segments)
    edge = np.concatenate(owner)
    keep = (seg[:, 0] != seg[:, 2]) | (seg[:, 1] != seg[:, 3])
    seg, edge = seg[keep], edge[keep]
    if len(seg) < 2:
        return 0
    area = max(np.ptp(seg[:, [0, 2]]) * np.ptp(seg[:, [1, 3]]), 1.0)
    cell = max(2 * np.sqrt(area / len(seg)), 1e-6)  # about four segments a cell on average
    # a crossing right on a column's side would be missed (its order ties there): the grid
    # starts an odd fraction of a cell off, so that round coordinates never fall on a side
    x0 = seg[:, [0, 2]].min() - 0.381966 * cell
    y0 = seg[:, [1, 3]].min() - 0.381966 * cell
    left, right = np.minimum(seg[:, 0], seg[:, 2]), np.maximum(seg[:, 0], seg[:, 2])
    # the columns a segment spans from side to side: first..last (none when first > last)
    first = np.ceil((left - x0) / cell).astype(np.int64)
    last = np.floor((right - x0) / cell).astype(np.int64) - 1
    return _spanning_crossings(seg, edge, first, last, x0, cell) + _ending_crossings(
        seg, edge, first, last, x0, y0, cell
    )


def _spanning_crossings(seg, edge, first, last, x0, cell) -> int:
    """Crossings of segments that both span the column they cross in."""
    spans = np.maximum(last - first + 1, 0)
    which = np.repeat(np.arange(len(seg)), spans)
    if len(which) < 2:
        return 0
    column = (
        np.repeat(first, spans) + np.arange(len(which)) - np.repeat(np.cumsum(spans) - spans, spans)
    )
    sx, sy = seg[which, 0], seg[which, 1]
    slope = (seg[which, 3] - sy) / (seg[which, 2] - sx)
    at_left = sy + slope * (x0 + column * cell - sx)
    at_right = sy + slope * (x0 + (column + 1) * cell - sx)

    def flips(group: np.ndarray) -> int:
        """Order flips from left to right side within each group (ranks keep ties)."""
        return _gap_inversions(_ranks(group, at_left), _ranks(group, at_right))

    # an edge's own segments may span one column twice (an edge that turns back): not a crossing
    return flips(column) - flips(column * (int(edge.max()) + 1) + edge[which])


def _ranks(group: np.ndarray, values: np.ndarray) -> np.ndarray:
    """Dense ranks of (group, value): groups apart, equal values in a group tied."""
    order = np.lexsort((values, group))
    group, values = group[order], values[order]
    new = np.ones(len(order), dtype=bool)
    new[1:] = (group[1:] != group[:-1]) | (values[1:] != values[:-1])
    ranks = np.empty(len(order), dtype=np.int64)
    ranks[order] = np.cumsum(new) - 1
    return ranks


def _ending_crossings(seg, edge, first, last, x0, y0, cell) -> int:
    """Crossings in a column where one of the two segments does not span it."""
    lengths = np.hypot(seg[:, 2] - seg[:, 0], seg[:, 3] - seg[:, 1])
    cuts = np.maximum(1, np.ceil(lengths / cell)).astype(np.int64)
    piece_seg = np.repeat(np.arange(len(seg)), cuts)
    step = np.arange(len(piece_seg)) - np.repeat(np.cumsum(cuts) - cuts, cuts)
    t0 = step / cuts[piece_seg]
    t1 = (step + 1) / cuts[piece_seg]
    sx, sy = seg[piece_seg, 0], seg[piece_seg, 1]
    dx, dy = seg[piece_seg, 2] - sx, seg[piece_seg, 3] - sy
    ax, bx = sx + t0 * dx, sx + t1 * dx
    ay, by = sy + t0 * dy, sy + t1 * dy
    pad = cell * 1e-9  # a crossing computed a rounding off its piece stays in the piece's cells
    ix0 = np.floor((np.minimum(ax, bx) - pad - x0) / cell).astype(np.int64)
    ix1 = np.floor((np.maximum(ax, bx) + pad - x0) / cell).astype(np.int64)
    iy0 = np.floor((np.minimum(ay, by) - pad - y0) / cell).astype(np.int64)
    iy1 = np.floor((np.maximum(ay, by) + pad - y0) / cell).astype(np.int64)
    rows = int(iy1.max()) + 2
    keys, owners = [], []
    for ox in range(3):  # a piece is at most a cell long: at most 3 cells a side, padded
        for oy in range(3):
            hit = (ix0 + ox <= ix1) & (iy0 + oy <= iy1)
            keys.append((ix0[hit] + ox + 1) * rows + iy0[hit] + oy + 1)
            owners.append(piece_seg[hit])
    filed = np.unique(np.concatenate(keys) * len(seg) + np.concatenate(owners))
    key, member = np.divmod(filed, len(seg))
    column = key // rows - 1
    spanning = (first[member] <= column) & (column <= last[member])
    # in each cell, the segments that end in its column first: the pairs to test are those
    # whose first member ends there
    order = np.lexsort((spanning, key))
    key, member, spanning = key[order], member[order], spanning[order]
    _, start, counts = np.unique(key, return_index=True, return_counts=True)
    size = np.repeat(counts, counts)
    place = np.arange(len(key)) - np.repeat(start, counts)

    total = 0
    active = np.nonzero(~spanning & (size > 1))[0]
    gap = 1
    while active.size:
        # each pair once: an ending entry with the one `gap` places after it in its cell
        active = active[place[active] + gap < size[active]]
        i = active
        a, b = member[i], member[i + gap]
        other = edge[a] != edge[b]
        i, a, b = i[other], a[other], b[other]
        p, q = seg[a], seg[b]
        ux, uy = p[:, 2] - p[:, 0], p[:, 3] - p[:, 1]
        vx, vy = q[:, 2] - q[:, 0], q[:, 3] - q[:, 1]
        d1 = ux * (q[:, 1] - p[:, 1]) - uy * (q[:, 0] - p[:, 0])
        d2 = ux * (q[:, 3] - p[:, 1]) - uy * (q[:, 2] - p[:, 0])
        d3 = vx * (p[:, 1] - q[:, 1]) - vy * (p[:, 0] - q[:, 0])
        d4 = vx * (p[:, 3] - q[:, 1]) - vy * (p[:, 2] - q[:, 0])
        proper = (d1 * d2 < 0) & (d3 * d4 < 0)
        i, p = i[proper], p[proper]
        t = d3[proper] / (d3[proper] - d4[proper])
        px = p[:, 0] + t * (p[:, 2] - p[:, 0])
        py = p[:, 1] + t * (p[:, 3] - p[:, 1])
        here = (
            (np.floor((px - x0) / cell).astype(np.int64) + 1) * rows
            + np.floor((py - y0) / cell).astype(np.int64)
            + 1
        )
        total += int(np.count_nonzero(here == key[i]))
        gap += 1
    return total


def bezier_polyline(points: list[tuple[float, float]], steps: int = 8) -> list[tuple[float, float]]:
    """A piecewise cubic Bezier (p0, c1, c2, p1, c1, c2, p2, ...) as a polyline."""
    out = [points[0]]
    for i in range(0, len(points) - 3, 3):
        p0, c1, c2, p1 = points[i : i + 4]
        for step in range(1, steps + 1):
            t = step / steps
            a, b, c, d = (1 - t) ** 3, 3 * (1 - t) ** 2 * t, 3 * (1 - t) * t**2, t**3
            out.append(
                (
                    a * p0[0] + b * c1[0] + c * c2[0] + d * p1[0],
                    a * p0[1] + b * c1[1] + c * c2[1] + d * p1[1],
                )
            )
    return out


def read_plain(plain: str) -> tuple[float, float, list[list[tuple[float, float]]]]:
    """A `dot -Tplain` drawing, in points: its width, height and edges (splines flattened)."""
    width = height = 0.0
    paths = []
    for line in plain.splitlines():
        parts = _split(line)
        if not parts:
            continue
        if parts[0] == "graph":  # graph scale width height, in inches
            width, height = float(parts[2]) * 72, float(parts[3]) * 72
        elif parts[0] == "edge":
            count = int(parts[3])
            coords = [
                (float(parts[4 + 2 * i]) * 72, float(parts[5 + 2 * i]) * 72) for i in range(count)
            ]
            paths.append(bezier_polyline(coords))
    return width, height, paths


def _split(line: str) -> list[str]:
    """Split a -Tplain line, keeping quoted names whole."""
    out, current, quoted = [], "", False
    for char in line:
        if char == '"':
            quoted = not quoted
        elif char == " " and not quoted:
            if current:
                out.append(current)
            current = ""
        else:
            current += char
    if current:
        out.append(current)
    return out
