"""Edge crossings counted the same way for any layered drawing, from final coordinates:
the ranks are the distinct x of node centres; every edge is followed along its drawn path
and read at each rank x it spans; two edges cross between consecutive ranks when their
order there flips. Used for our layout and for Graphviz dot's alike."""

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


def dot_plain_crossings(plain: str) -> tuple[int, int]:
    """Crossings and rank count of a `dot -Tplain` output."""
    centres: dict[str, tuple[float, float]] = {}
    paths = []
    for line in plain.splitlines():
        parts = _split(line)
        if not parts:
            continue
        if parts[0] == "node":
            centres[parts[1]] = (float(parts[2]), float(parts[3]))
        elif parts[0] == "edge":
            count = int(parts[3])
            coords = [(float(parts[4 + 2 * i]), float(parts[5 + 2 * i])) for i in range(count)]
            paths.append(bezier_polyline(coords))
    rank_xs = [x for x, _ in centres.values()]
    return count_crossings(rank_xs, paths), len(set(round(x, 3) for x in rank_xs))


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
