"""A drawing that holds still (the mental map): the drawing of a graph that follows an earlier
drawing keeps every node that is still there, of the same size, exactly where it was; it places
only what is new, in free space beside its neighbours, and routes only the edges it must. When
the result has grown loose (its scale on a screen well under what a fresh layout of that much
would reach) or crossed, it is laid out anew, rarely."""

import dataclasses
import heapq
import math

import networkx as nx

from diagrams.rendering.layout import (
    DEFAULT_ASPECT,
    EdgeRoute,
    Layout,
    NodeBox,
    layout_layered,
    node_size,
)
from diagrams.rendering.wrapping import SCREEN_HEIGHT, screen_score

LOOSE = 1.3  # laid out anew past this many times a fresh layout's screen height (estimated
READABLE_SCORE = SCREEN_HEIGHT / 0.75  # from its boxes' area) and past 9 px labels at fit ...
CROSSINGS_MIN = 20  # ... or once the edges routed since the last fresh layout have crossed
BUNDLE = 24.0  # crossings this near each other on one route are one (a bundle crossed)
CROSSINGS_SHARE = 1.0  # others this many times, and this share of that layout's crossings
H_GAP = 40.0  # between a new node and its neighbour's column
CLEAR_X = 20.0  # a new node keeps this clear of other boxes sideways ...
CLEAR_Y = 12.0  # ... and up and down
GROWTH_COST = 3.0  # a place that makes the drawing bigger counts as this much farther
BACKWARD_COST = 400.0  # ... and one left of what feeds the node as this much
CELL = 256.0  # the grid that finds what is near a box or a line
BEND = 14.0  # an edge routed here bends this far from a box's side
GRID = 8.0  # new edges are routed on a grid this fine ...
MARGIN_CELLS = 6  # ... reaching this far past the drawing
WINDOW = 24  # ... searched this many cells round their two ends
MAX_CELLS = 60_000  # ... unless that is more cells than this (then the direct route)
BEND_COST = 3.0  # in cells
MAX_LOOKS = 20_000  # cells a search takes from its queue before it gives up (the direct route)
HURRY = 2.0  # the search weighs the distance left this much more (fewer cells looked at)
CROSS_COST = 30.0  # a crossing costs a detour of this many cells
ALONG_COST = 4.0  # running on top of another line, per cell


def layout_next(
    previous: Layout | None,
    graph: nx.DiGraph,
    *,
    origin: tuple[float, float] = (0.0, 0.0),
    aspect: float = DEFAULT_ASPECT,
) -> Layout:
    """The drawing of `graph` that follows `previous` (None: a fresh layout)."""
    if previous is None or not previous.nodes:
        return layout_layered(graph, origin=origin, aspect=aspect)
    sizes = {
        node: node_size(data.get("label", node), data.get("type", "service"))
        for node, data in graph.nodes(data=True)
    }
    kept: dict[str, NodeBox] = {}
    for node, (width, height, lines) in sizes.items():
        box = previous.nodes.get(node)
        if box is not None and box.width == width and box.height == height:
            kept[node] = box._replace(lines=lines)
    if not kept:
        return _fresh(graph, origin, aspect)
    new = sorted(node for node in sizes if node not in kept)
    basis = previous.basis

    grid = _Grid()
    for box in kept.values():
        grid.add(box)
    old_routes = {(e.source, e.target): e for e in previous.edges}
    routes_kept = {}
    for source, target in graph.edges:
        route = old_routes.get((source, target))
        if route is not None and source in kept and target in kept:
            routes_kept[source, target] = route
    for route in routes_kept.values():
        for segment in _segments(route.points):
            grid.add_segment(segment)
    boxes = dict(kept)
    for node in _placing_order(graph, new, boxes):
        width, height, lines = sizes[node]
        x, y = _free_spot(graph, node, width, height, boxes, grid, origin, aspect)
        box = NodeBox(node, round(x, 1), round(y, 1), width, height, lines)
        boxes[node] = box
        grid.add(box)

    placed = [boxes[node] for node in new]
    edges: list[EdgeRoute | None] = []
    routed = []
    for source, target, kind in sorted(graph.edges(data="kind", default="produces")):
        route = routes_kept.get((source, target))
        if route is not None and not any(_crosses_box(route.points, box) for box in placed):
            edges.append(route._replace(kind=kind))
        else:
            routed.append((len(edges), source, target, kind))
            edges.append(None)
    router = _Router(boxes, [edge for edge in edges if edge is not None])
    for index, source, target, kind in routed:
        edges[index] = router.route(boxes[source], boxes[target], source, target, kind)
    routed = [index for index, *_ in routed]
    added_crossings = basis.added_crossings + _crossings_of(edges, routed, router.index)
    if added_crossings > max(CROSSINGS_MIN, CROSSINGS_SHARE * basis.crossings):
        return _fresh(graph, origin, aspect)
    right = max(box.x + box.width for box in boxes.values())
    bottom = max(box.y + box.height for box in boxes.values())
    for edge in edges:
        for x, y in edge.points:
            right, bottom = max(right, x), max(bottom, y)
    width, height = round(right - origin[0], 1), round(bottom - origin[1], 1)
    extra = (2 * origin[0], origin[1] + origin[0])
    node_area = sum(box.width * box.height for box in boxes.values())
    # the screen size a fresh layout of this much would have, from the last one's
    expected = basis.score * math.sqrt(node_area / basis.area) if basis.area else 0.0
    if screen_score(width, height, aspect, extra) > max(LOOSE * expected, READABLE_SCORE):
        return _fresh(graph, origin, aspect)
    return Layout(
        width=width,
        height=height,
        nodes=dict(sorted(boxes.items())),
        edges=tuple(edges),
        layers=previous.layers,
        dummies=previous.dummies,
        simplified=previous.simplified,
        basis=basis._replace(added_crossings=added_crossings),
    )


def _fresh(graph: nx.DiGraph, origin: tuple[float, float], aspect: float) -> Layout:
    return dataclasses.replace(layout_layered(graph, origin=origin, aspect=aspect), relaid=True)


def _placing_order(graph: nx.DiGraph, new: list[str], boxes: dict[str, NodeBox]) -> list[str]:
    """New nodes, each next the one with the most neighbours already placed (ties: by id), so
    a new service and its new topics go in beside what they are wired to."""
    waiting = set(new)
    placed = set(boxes)
    order = []
    while waiting:
        best = min(
            waiting,
            key=lambda v: (
                -sum(1 for u in nx.all_neighbors(graph, v) if u in placed),
                v,
            ),
        )
        waiting.remove(best)
        placed.add(best)
        order.append(best)
    return order


def _free_spot(
    graph: nx.DiGraph,
    node: str,
    width: float,
    height: float,
    boxes: dict[str, NodeBox],
    grid: "_Grid",
    origin: tuple[float, float],
    aspect: float,
) -> tuple[float, float]:
    """The top-left corner of the free place nearest where the node's neighbours want it:
    right of what feeds it, left of what it feeds, level with their middle."""
    before = [boxes[u] for u in graph.predecessors(node) if u in boxes]
    after = [boxes[w] for w in graph.successors(node) if w in boxes]
    near = before + after
    if before:
        x = max(box.x + box.width for box in before) + H_GAP
    elif after:
        x = min(box.x for box in after) - H_GAP - width
    else:
        x = origin[0]
    if near:
        y = sum(box.y + box.height / 2 for box in near) / len(near) - height / 2
    else:  # nothing to be near: under everything, on the left
        y = max(box.y + box.height for box in boxes.values()) + 2 * CLEAR_Y
    x, y = max(x, origin[0]), max(y, origin[1])
    # the free place nearest that, counting as farther what widens or deepens the drawing
    # (in a screen's terms) and what puts the node left of what feeds it
    right = max(box.x + box.width for box in boxes.values())
    bottom = max(box.y + box.height for box in boxes.values())
    fed_until = max((box.x + box.width for box in before), default=-math.inf)
    best = None
    for distance, dx, dy in _OFFSETS:
        if best is not None and distance >= best[0]:
            break
        cx, cy = x + dx, y + dy
        if cx < origin[0] or cy < origin[1]:
            continue
        cost = distance + GROWTH_COST * (
            max(0.0, cx + width - right) / aspect + max(0.0, cy + height - bottom)
        )
        if cx < fed_until:
            cost += BACKWARD_COST
        if best is not None and cost >= best[0]:
            continue
        if grid.free(cx - CLEAR_X, cy - CLEAR_Y, width + 2 * CLEAR_X, height + 2 * CLEAR_Y):
            best = (cost, cx, cy)
    if best is not None:
        return best[1], best[2]
    return x, bottom + 2 * CLEAR_Y  # no room near: under everything


# where a new node is looked for round the place its neighbours want it, nearest first
_OFFSETS = sorted(
    (abs(dx) + abs(dy), dx, dy)
    for dx in (step * 24.0 for step in range(-30, 31))
    for dy in (step * 8.0 for step in range(-90, 91))
)


class _Router:
    """Routes new edges between placed boxes on a grid of GRID px: round boxes, with a cost for
    each bend and a high one for each line crossed (A*); the direct route when the way is too
    far to search."""

    def __init__(self, boxes: dict[str, NodeBox], routes: list[EdgeRoute]) -> None:
        right = max(box.x + box.width for box in boxes.values())
        bottom = max(box.y + box.height for box in boxes.values())
        for route in routes:
            for x, y in route.points:
                right, bottom = max(right, x), max(bottom, y)
        self.columns = int(right // GRID) + MARGIN_CELLS
        self.rows = int(bottom // GRID) + MARGIN_CELLS
        # what is where, by cells of CELL px: boxes (None) and each edge's segments (its
        # source and target); each search marks only its own window's (an edit of a
        # 3,000-service drawing is a few windows, not 12 million cells)
        self.index: dict[tuple[int, int], list[tuple]] = {}
        for box in boxes.values():
            self._put((None, box.x - 2, box.y - 2, box.x + box.width + 2, box.y + box.height + 2))
        for route in routes:
            self._put_route(route)

    def _put(self, item: tuple) -> None:
        _, x0, y0, x1, y1 = item
        for i in range(int(min(x0, x1) // CELL), int(max(x0, x1) // CELL) + 1):
            for j in range(int(min(y0, y1) // CELL), int(max(y0, y1) // CELL) + 1):
                self.index.setdefault((i, j), []).append(item)

    def _put_route(self, route: EdgeRoute) -> None:
        link = (route.source, route.target)
        for (x0, y0), (x1, y1) in zip(route.points, route.points[1:], strict=False):
            self._put((link, x0, y0, x1, y1))

    def _window(self, lo_i: int, lo_j: int, width: int, height: int):
        """The blocked, level and upright flags of a window of cells."""
        blocked = bytearray(width * height)
        level = bytearray(width * height)
        upright = bytearray(width * height)
        seen = set()
        x0, y0 = lo_i * GRID, lo_j * GRID
        x1, y1 = (lo_i + width) * GRID, (lo_j + height) * GRID
        for i in range(int(x0 // CELL), int(x1 // CELL) + 1):
            for j in range(int(y0 // CELL), int(y1 // CELL) + 1):
                for item in self.index.get((i, j), ()):
                    if id(item) in seen:
                        continue
                    seen.add(id(item))
                    link, ax, ay, bx, by = item
                    if link is not None:
                        _mark(((ax, ay), (bx, by)), level, upright, lo_i, lo_j, width, height)
                        continue
                    a = max(int(ax // GRID) - lo_i, 0)
                    b = min(int(bx // GRID) - lo_i, width - 1)
                    if a > b:
                        continue
                    top = max(int(ay // GRID) - lo_j, 0)
                    for row in range(top, min(int(by // GRID) - lo_j, height - 1) + 1):
                        blocked[row * width + a : row * width + b + 1] = b"\x01" * (b - a + 1)
        return blocked, level, upright

    def route(self, source: NodeBox, target: NodeBox, s: str, t: str, kind: str) -> EdgeRoute:
        sx, sy = source.x + source.width, source.y + source.height / 2
        tx, ty = target.x, target.y + target.height / 2
        start = (int((sx + GRID / 2) // GRID) + 1, int(sy // GRID))
        goal = (int((tx - GRID / 2) // GRID) - 1, int(ty // GRID))
        path = self._search(start, goal)
        if path is None:
            route = _direct(source, target, s, t, kind)
        else:
            points = [(sx, sy)]
            for i, j in path:
                points.append((i * GRID + GRID / 2, j * GRID + GRID / 2))
            points[1] = (points[1][0], sy)  # level out of the source and into the target
            points[-1] = (points[-1][0], ty)
            points.append((tx, ty))
            route = EdgeRoute(
                s, t, kind, tuple((round(x, 1), round(y, 1)) for x, y in _corners(points))
            )
        self._put_route(route)
        return route

    def _search(self, start, goal):
        columns, rows = self.columns, self.rows
        (si, sj), (gi, gj) = start, goal
        if not (0 <= si < columns and 0 <= gi < columns and 0 <= sj < rows and 0 <= gj < rows):
            return None
        # search a window around the two ends, not the whole drawing
        lo_i, hi_i = max(0, min(si, gi) - WINDOW), min(columns - 1, max(si, gi) + WINDOW)
        lo_j, hi_j = max(0, min(sj, gj) - WINDOW), min(rows - 1, max(sj, gj) + WINDOW)
        if (hi_i - lo_i + 1) * (hi_j - lo_j + 1) > MAX_CELLS:
            return None
        blocked, level, upright = self._window(lo_i, lo_j, hi_i - lo_i + 1, hi_j - lo_j + 1)
        # states are window cells x the direction they were entered in (0 right, 1 left,
        # 2 down, 3 up), in flat lists: the search is Python's tightest loop here
        width = hi_i - lo_i + 1
        size = width * (hi_j - lo_j + 1) * 4
        best = [math.inf] * size
        came = [-1] * size
        goal_cell = (gj - lo_j) * width + (gi - lo_i)
        first = ((sj - lo_j) * width + (si - lo_i)) * 4
        best[first] = 0.0
        heap = [(HURRY * (abs(gi - si) + abs(gj - sj)), 0.0, first)]
        moves = ((1, 0), (-1, 0), (0, 1), (0, -1))
        back = (1, 0, 3, 2)
        push, pop = heapq.heappush, heapq.heappop
        looked = 0
        while heap and looked < MAX_LOOKS:
            looked += 1
            _, cost, state = pop(heap)
            if cost > best[state]:
                continue
            local, direction = divmod(state, 4)
            if local == goal_cell:
                path = []
                while state >= 0:
                    local = state // 4
                    cell = (lo_i + local % width, lo_j + local // width)
                    if not path or path[-1] != cell:
                        path.append(cell)
                    state = came[state]
                return path[::-1]
            j, i = divmod(local, width)
            i += lo_i
            j += lo_j
            for turn in range(4):
                if turn == back[direction] and state != first:
                    continue
                di, dj = moves[turn]
                ni, nj = i + di, j + dj
                if not (lo_i <= ni <= hi_i and lo_j <= nj <= hi_j):
                    continue
                cell = (nj - lo_j) * width + (ni - lo_i)
                if blocked[cell] and cell != goal_cell:
                    continue
                if turn < 2:
                    total = cost + 1.0 + CROSS_COST * upright[cell] + ALONG_COST * level[cell]
                else:
                    total = cost + 1.0 + CROSS_COST * level[cell] + ALONG_COST * upright[cell]
                if turn != direction:
                    total += BEND_COST
                new = cell * 4 + turn
                if total < best[new]:
                    best[new] = total
                    came[new] = state
                    push(heap, (total + HURRY * (abs(gi - ni) + abs(gj - nj)), total, new))
        return None


def _mark(points, level, upright, lo_i: int, lo_j: int, width: int, height: int) -> None:
    """A polyline's cells in a window's flags: level runs across, upright runs up and down,
    bends (between columns) both."""
    for (x0, y0), (x1, y1) in zip(points, points[1:], strict=False):
        if y0 == y1:  # a level run: one slice of its row
            j = int(y0 // GRID) - lo_j
            a, b = sorted((int(x0 // GRID) - lo_i, int(x1 // GRID) - lo_i))
            a, b = max(a, 0), min(b, width - 1)
            if 0 <= j < height and a <= b:
                level[j * width + a : j * width + b + 1] = b"\x01" * (b - a + 1)
            continue
        if x0 == x1:  # an upright run: one strided slice of its column
            i = int(x0 // GRID) - lo_i
            a, b = sorted((int(y0 // GRID) - lo_j, int(y1 // GRID) - lo_j))
            a, b = max(a, 0), min(b, height - 1)
            if 0 <= i < width and a <= b:
                upright[a * width + i : b * width + i + 1 : width] = b"\x01" * (b - a + 1)
            continue
        steps = int(max(abs(x1 - x0), abs(y1 - y0)) // (GRID / 2)) + 1
        for k in range(steps + 1):
            i = int((x0 + (x1 - x0) * k / steps) // GRID) - lo_i
            j = int((y0 + (y1 - y0) * k / steps) // GRID) - lo_j
            if 0 <= i < width and 0 <= j < height:
                upright[j * width + i] = 1  # a bend: crossed either way
                level[j * width + i] = 1


def _corners(points: list[tuple[float, float]]) -> list[tuple[float, float]]:
    """The polyline with only its corners."""
    out = [points[0]]
    for index in range(1, len(points) - 1):
        (x0, y0), (x1, y1), (x2, y2) = out[-1], points[index], points[index + 1]
        if (x0 == x1 == x2) or (y0 == y1 == y2):
            continue
        out.append(points[index])
    out.append(points[-1])
    return out


def _direct(source: NodeBox, target: NodeBox, s: str, t: str, kind: str) -> EdgeRoute:
    """An edge between two placed boxes: out of the source's right side, into the target's left;
    round under both when the target is not to the right."""
    sx, sy = source.x + source.width, source.y + source.height / 2
    tx, ty = target.x, target.y + target.height / 2
    if tx >= sx + 2 * BEND:
        middle = round((sx + tx) / 2, 1)
        points = [(sx, sy), (middle, sy), (middle, ty), (tx, ty)]
    else:
        below = max(source.y + source.height, target.y + target.height) + BEND
        points = [
            (sx, sy),
            (sx + BEND, sy),
            (sx + BEND, below),
            (tx - BEND, below),
            (tx - BEND, ty),
            (tx, ty),
        ]
    return EdgeRoute(s, t, kind, tuple((round(x, 1), round(y, 1)) for x, y in points))


def _crossings_of(edges: list[EdgeRoute], routed: list[int], index: dict) -> int:
    """Crossings of the edges at `routed` with every edge (pairs among them once), as the
    eye counts them; `index`: every edge's segments by cell (_Router.index)."""
    position = {(edge.source, edge.target): at for at, edge in enumerate(edges)}
    mine = set(routed)
    found = set()
    for at in routed:
        edge = edges[at]
        for a, b in zip(edge.points, edge.points[1:], strict=False):
            x0, x1 = sorted((a[0], b[0]))
            y0, y1 = sorted((a[1], b[1]))
            for i in range(int(x0 // CELL), int(x1 // CELL) + 1):
                for j in range(int(y0 // CELL), int(y1 // CELL) + 1):
                    for link, cx, cy, dx, dy in index.get((i, j), ()):
                        if link is None:
                            continue
                        other = position[link]
                        if other == at or (other in mine and other < at):
                            continue
                        c, d = (cx, cy), (dx, dy)
                        if _proper(a, b, c, d):
                            found.add((at, other, a, b, c, d))
    # a route across a bundle of lines side by side (wrapped edges, long edges) crosses it
    # once to the eye: crossings within BUNDLE px of each other on one route count once
    points: dict[int, list[tuple[float, float]]] = {}
    for at, _, a, b, c, d in found:
        points.setdefault(at, []).append(_meeting(a, b, c, d))
    seen = 0
    for spots in points.values():
        spots.sort()
        groups: list[tuple[float, float]] = []
        for x, y in spots:
            if not any(abs(x - gx) <= BUNDLE and abs(y - gy) <= BUNDLE for gx, gy in groups):
                groups.append((x, y))
        seen += len(groups)
    return seen


def _meeting(a, b, c, d) -> tuple[float, float]:
    """Where the lines through ab and cd meet (they cross: not parallel)."""
    (x1, y1), (x2, y2), (x3, y3), (x4, y4) = a, b, c, d
    den = (x1 - x2) * (y3 - y4) - (y1 - y2) * (x3 - x4)
    t = ((x1 - x3) * (y3 - y4) - (y1 - y3) * (x3 - x4)) / den
    return x1 + t * (x2 - x1), y1 + t * (y2 - y1)


def _proper(a, b, c, d) -> bool:
    """Whether segments ab and cd cross at a point inside both."""

    def side(p, q, r) -> float:
        return (q[0] - p[0]) * (r[1] - p[1]) - (q[1] - p[1]) * (r[0] - p[0])

    return side(a, b, c) * side(a, b, d) < 0 and side(c, d, a) * side(c, d, b) < 0


def _segments(points) -> list[tuple[float, float, float, float]]:
    return [
        (min(x0, x1), min(y0, y1), abs(x1 - x0), abs(y1 - y0))
        for (x0, y0), (x1, y1) in zip(points, points[1:], strict=False)
    ]


def _crosses_box(points, box: NodeBox) -> bool:
    return any(
        _overlap((x, y, w, h), (box.x, box.y, box.width, box.height))
        for x, y, w, h in _segments(points)
    )


def _overlap(a: tuple[float, float, float, float], b: tuple[float, float, float, float]) -> bool:
    ax, ay, aw, ah = a
    bx, by, bw, bh = b
    return ax <= bx + bw and bx <= ax + aw and ay <= by + bh and by <= ay + ah


class _Grid:
    """Boxes and edge segments by the cells they touch, to ask whether a place is free."""

    def __init__(self) -> None:
        self.cells: dict[tuple[int, int], list[tuple[float, float, float, float]]] = {}

    def _add(self, rect: tuple[float, float, float, float]) -> None:
        x, y, w, h = rect
        for i in range(int(x // CELL), int((x + w) // CELL) + 1):
            for j in range(int(y // CELL), int((y + h) // CELL) + 1):
                self.cells.setdefault((i, j), []).append(rect)

    def add(self, box: NodeBox) -> None:
        self._add((box.x, box.y, box.width, box.height))

    def add_segment(self, segment: tuple[float, float, float, float]) -> None:
        self._add(segment)

    def free(self, x: float, y: float, w: float, h: float) -> bool:
        rect = (x, y, w, h)
        for i in range(int(x // CELL), int((x + w) // CELL) + 1):
            for j in range(int(y // CELL), int((y + h) // CELL) + 1):
                for other in self.cells.get((i, j), ()):
                    if _overlap(rect, other):
                        return False
        return True
