"""A long run of layers folded into rows toward a screen's shape (the Eclipse Layout Kernel's
"graph wrapping"), and the routes of the edges that cross from one row to the next: out to the
right of their row, back along the gap under it, and into the next row from its left."""

TRACK = 4.0  # between two wrapped edges running side by side
WRAP_PAD = 10.0  # between a row and its first wrapped edge
ROW_GAP = 28.0  # the least gap between two rows
CUT_WIDTH = 0.2  # a row may be this share shorter or longer than the even share, to cut where
# few edges cross
CUT_EDGE_COST = 0.04  # ... and an edge crossing a cut costs this share of a row's width
# Wrapping and packing aim at the largest scale on a screen of the asked shape this many pixels
# high (1280 x 720 at 16:9); a drawing that fits it at 1:1 is not folded (pages never enlarge).
SCREEN_HEIGHT = 720.0
PLACED_SPREAD = 1.25  # a row's height once placed, over its tallest layer's stack


def screen_score(width: float, height: float, aspect: float, extra: tuple[float, float]) -> float:
    """The height of screen of shape `aspect` that shows the whole canvas, at least
    SCREEN_HEIGHT: lower is a larger scale, and every size that fits such a screen is equal."""
    return max((width + extra[0]) / aspect, height + extra[1], SCREEN_HEIGHT)


def channel(edges: int) -> float:
    """The room `edges` wrapped edges take beside or under a row."""
    return 2 * WRAP_PAD + TRACK * (edges - 1) if edges else 0.0


def choose_rows(
    advance: list[float],
    stack: list[float],
    crossing: list[int],
    *,
    aspect: float,
    extra: tuple[float, float] = (0.0, 0.0),
) -> list[int]:
    """The first layer of each row. `advance`: each layer's column width and the gap after it;
    `stack`: each layer's nodes' heights and gaps; `crossing[l]`: edges between layer l and l+1.
    The rows minimise max(W / aspect, H) of the drawing with `extra` (margins, a header) added:
    the largest the drawing can be shown on a screen of that shape."""
    depth = len(advance)
    if depth < 2:
        return [0]
    total = sum(advance)
    prefix = [0.0]
    for value in advance:
        prefix.append(prefix[-1] + value)
    best: tuple[float, list[int]] | None = None
    for rows in range(1, depth + 1):
        target = total / rows
        if rows > 1 and target < max(advance):
            break
        starts = _cuts(prefix, crossing, target, rows)
        width, height = _size(starts, prefix, stack, crossing)
        score = screen_score(width, height, aspect, extra)
        if best is None or score < best[0] - 1e-9:
            best = (score, starts)
        elif score > 1.5 * best[0]:
            break  # past the best shape: more rows only make it taller
    return best[1] if best else [0]


def _cuts(prefix: list[float], crossing: list[int], target: float, rows: int) -> list[int]:
    """Rows about `target` wide, each ending, within CUT_WIDTH of it, where fewest edges cross."""
    depth = len(prefix) - 1
    starts = [0]
    while len(starts) < rows:
        begin = starts[-1]
        left = rows - len(starts) + 1  # rows still to make, this one included
        share = (prefix[depth] - prefix[begin]) / left
        best = None
        for end in range(begin + 1, depth):  # the row is layers begin..end-1
            width = prefix[end] - prefix[begin]
            if width < share * (1 - CUT_WIDTH) and end < depth - 1:
                continue
            if width > share * (1 + CUT_WIDTH) and best is not None:
                break
            cost = abs(width - share) / share + CUT_EDGE_COST * crossing[end - 1]
            if best is None or cost < best[0]:
                best = (cost, end)
        if best is None:
            break
        starts.append(best[1])
    return starts


def _size(
    starts: list[int], prefix: list[float], stack: list[float], crossing: list[int]
) -> tuple[float, float]:
    depth = len(prefix) - 1
    bounds = [*starts, depth]
    width = height = 0.0
    left = max((channel(crossing[b - 1]) for b in starts[1:]), default=0.0)
    for a, b in zip(bounds, bounds[1:], strict=False):
        cut = crossing[b - 1] if b < depth else 0
        width = max(width, left + prefix[b] - prefix[a] + channel(cut))
        height += PLACED_SPREAD * max(stack[a:b])
        if b < depth:
            height += max(ROW_GAP, channel(cut))
    return width, height


def row_of_layers(starts: list[int], depth: int) -> list[int]:
    """Each layer's row."""
    rows = [0] * depth
    for row, start in enumerate(starts):
        for layer in range(start, depth):
            rows[layer] = row
    return rows


def wrap_route(
    exit_y: float,
    entry_y: float,
    *,
    track: int,
    tracks: int,
    right: float,
    gap_top: float,
    left: float,
) -> list[tuple[float, float]]:
    """The bends of an edge from a row's last column (at `exit_y`) round to the next row's
    first (at `entry_y`): `track` is its place among the cut's `tracks` edges, top first by
    where they leave. The topmost runs outermost on the right and lowest in the gap, then
    innermost on the left, so edges that keep their order never cross."""
    outer = tracks - 1 - track
    x_right = right + WRAP_PAD + TRACK * outer
    y_gap = gap_top + WRAP_PAD + TRACK * outer
    x_left = left - WRAP_PAD - TRACK * track
    return [(x_right, exit_y), (x_right, y_gap), (x_left, y_gap), (x_left, entry_y)]


def left_margin(crossing_at_cuts: list[int]) -> float:
    """The room left of every row for the edges that enter it from the row above."""
    rooms = [WRAP_PAD + TRACK * (k - 1) + WRAP_PAD / 2 for k in crossing_at_cuts if k]
    return max(rooms, default=0.0)
