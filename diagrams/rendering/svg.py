"""Layout -> SVG (svgwrite) with a header and a category legend. User text only ever reaches
text nodes and <title> elements, escaped by the XML writer; never an attribute."""

import re
from xml.etree import ElementTree

import networkx as nx
import svgwrite
from svgwrite.base import Title
from svgwrite.container import Group
from svgwrite.path import Path
from svgwrite.shapes import Rect
from svgwrite.text import Text

from diagrams.entities import NEUTRAL
from diagrams.rendering.layout import FONT_SIZE, LINE_HEIGHT, EdgeRoute, Layout
from diagrams.rendering.text import FONT_FAMILY, clusters, counted, text_width

HEADER_HEIGHT = 56.0
MARGIN = 24.0
TEXT_COLOR = "#111827"
MUTED = "#6b7280"
EDGE_COLOR = "#7c8ba1"  # 3.5:1 on white (WCAG 1.4.11); #94a3b8 was 2.6:1
SERVICE_STROKE = "#374151"
TOPIC_STROKE = "#4b5563"

# What every box's text and every edge share is said once here, not on each of thousands of
# elements (the anchor of a box's text, an edge's arrowhead): bytes a read sends.
STYLE = f"""
svg {{ font-family: {FONT_FAMILY}; }}
.node text {{ font-size: {FONT_SIZE:g}px; fill: {TEXT_COLOR}; text-anchor: middle; }}
.node rect {{ stroke-width: 1.2; }}
.service rect {{ stroke: {SERVICE_STROKE}; }}
.messaging rect {{ stroke: {TOPIC_STROKE}; stroke-dasharray: 4 2; }}
.edge {{ fill: none; stroke: {EDGE_COLOR}; stroke-width: 1.2; marker-end: url(#arrow); }}
.edge.consumes {{ stroke: #64748b; }}
.header .title {{ font-size: 18px; font-weight: 600; fill: {TEXT_COLOR}; }}
.header .when, .legend text {{ font-size: 12px; fill: {MUTED}; }}
.empty {{ font-size: 14px; fill: {MUTED}; }}
"""


_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")


def xml_text(text: str) -> str:
    """Text as XML 1.0 can carry it: characters it forbids become U+FFFD."""
    return _NOT_XML.sub("\ufffd", text)


def graph_origin() -> tuple[float, float]:
    """Where the layout starts, so that the JSON and the SVG share coordinates."""
    return MARGIN, HEADER_HEIGHT + MARGIN


def _number(value: float) -> str:
    """A coordinate as SVG text: at most two decimals, no trailing zeros, never an exponent
    (so not `:g`, which rounds to six digits) and never a float's tail."""
    text = f"{value:.2f}".rstrip("0").rstrip(".")
    return "0" if text == "-0" else text


def _edge_path(points: tuple[tuple[float, float], ...], numbers: dict[float, str]) -> str:
    """A smooth curve through the points (level runs straight, S-bends where the height changes)
    in relative steps, which are shorter and repeat; `numbers` remembers each number's text."""
    known = numbers.get
    x0, y0 = points[0]
    x_text = known(x0)
    if x_text is None:
        x_text = numbers[x0] = _number(x0)
    y_text = known(y0)
    if y_text is None:
        y_text = numbers[y0] = _number(y0)
    parts = ["M", x_text, ",", y_text]
    for x1, y1 in points[1:]:
        # the layout's points are on a 0.1 grid: steps rounded to it (half steps to 0.05)
        # add up exactly, so the path ends where it should
        dx = round(x1 - x0, 1)
        dx_text = known(dx)
        if dx_text is None:
            dx_text = numbers[dx] = _number(dx)
        dy = round(y1 - y0, 1)
        if dy == 0:
            parts += ("h", dx_text)
        else:
            dy_text = known(dy)
            if dy_text is None:
                dy_text = numbers[dy] = _number(dy)
            half = round(dx / 2, 2)
            half_text = known(half)
            if half_text is None:
                half_text = numbers[half] = _number(half)
            parts += ("c", half_text, ",0 ", half_text, ",", dy_text, " ", dx_text, ",", dy_text)
        x0, y0 = x1, y1
    return "".join(parts)


def _legend_items(graph: nx.DiGraph) -> list[tuple[str, str]]:
    categories = {}
    for _, data in graph.nodes(data=True):
        if data.get("category"):
            categories[data["category"]] = data["color"]
    items = sorted(categories.items())
    if any(not data.get("category") for _, data in graph.nodes(data=True)):
        items.append(("no category", NEUTRAL))
    return items


# A legend entry's name is cut to this width with an ellipsis (its whole name in a tooltip):
# a category of 60 wide letters drew 700 px of legend, wider than a small graph
LEGEND_NAME_WIDTH = 240.0


def _legend_name(name: str) -> str:
    """The name on one line, cut where it stops fitting (not at a word, which could make two
    categories read the same)."""
    name = " ".join(name.split())
    if text_width(name, 12) <= LEGEND_NAME_WIDTH:
        return name
    pieces = clusters(name)  # cut between characters as a reader sees them
    low, high = 0, len(pieces)  # the longest start that fits with the ellipsis
    while low < high:
        middle = (low + high + 1) // 2
        if text_width("".join(pieces[:middle]).rstrip() + "…", 12) <= LEGEND_NAME_WIDTH:
            low = middle
        else:
            high = middle - 1
    return "".join(pieces[:low]).rstrip() + "…"


def _legend_item_width(name: str) -> float:
    # swatch, gap, name, space before the next
    return text_width(_legend_name(name), 12) + 34


def _legend_width(legend: list[tuple[str, str]]) -> float:
    return sum(_legend_item_width(name) for name, _ in legend)


LEGEND_ROW = 20.0
LEGEND_MIN_ROW_WIDTH = 600.0


def _legend_rows(
    legend: list[tuple[str, str]], layout: Layout, header_width: float
) -> tuple[list[list[tuple[str, str]]], bool]:
    """The legend's rows, and whether it sits on the header's line (when it fits beside the
    title); else it wraps under the drawing, never widening the canvas past it."""
    row_width = max(layout.width, LEGEND_MIN_ROW_WIDTH)
    if not legend or header_width + _legend_width(legend) <= row_width:
        return ([legend] if legend else []), True
    rows: list[list[tuple[str, str]]] = [[]]
    used = 0.0
    for item in legend:
        width = _legend_item_width(item[0])
        if rows[-1] and used + width > row_width:
            rows.append([])
            used = 0.0
        rows[-1].append(item)
        used += width
    return rows, False


# the drawing of this moment did not follow the one before: what stayed may have moved
RELAID_NOTE = "laid out anew at this change"
SIMPLIFIED_NOTE = "simplified drawing (too many long edges to untangle): filter for detail"


def _subtitle(layout: Layout, when: str) -> str:
    """The header's second line: the time shown, and whether the drawing is simplified."""
    notes = [SIMPLIFIED_NOTE] if layout.simplified else []
    if layout.relaid:
        notes.append(RELAID_NOTE)
    return " · ".join([when, *notes])


def svg_size(graph: nx.DiGraph, layout: Layout, *, title: str, when: str) -> tuple[float, float]:
    """The canvas: the layout, the header and the legend, with margins."""
    width, height, _, _ = _canvas(graph, layout, title=title, when=when)
    return width, height


def _canvas(graph: nx.DiGraph, layout: Layout, *, title: str, when: str):
    """Width, height, the legend's rows and whether they sit on the header's line."""
    when = _subtitle(layout, when)
    header_width = max(text_width(title, 18), text_width(when, 12)) + 40
    rows, on_header = _legend_rows(_legend_items(graph), layout, header_width)
    legend_width = max((_legend_width(row) for row in rows), default=0.0)
    width = max(
        layout.width + 2 * MARGIN,
        header_width + (legend_width if on_header else 0.0) + 2 * MARGIN,
        legend_width + 2 * MARGIN,
        320.0,
    )
    height = max(layout.height + HEADER_HEIGHT + 2 * MARGIN, HEADER_HEIGHT + 80)
    if not on_header:
        height += len(rows) * LEGEND_ROW + MARGIN / 2
    return round(width, 1), round(height, 1), rows, on_header


# A node's tooltip names what it is linked to, as the arrows drawn show it: up to this many
# names a direction, then how many more
NAMED_LINKS = 8
_LINK_WORDS = {
    "service": (("produces", "successors"), ("consumes", "predecessors")),
    "messaging": (("produced by", "predecessors"), ("consumed by", "successors")),
}


def _links(graph: nx.DiGraph, layout: Layout, node_id: str, kind: str) -> str:
    """The tooltip's lines naming what the node is linked to among the nodes drawn: the arrows
    in words, for a screen reader and a pointer resting on a box."""
    lines = []
    for word, direction in _LINK_WORDS.get(kind, ()):
        names = sorted(
            (
                graph.nodes[other].get("label", other)
                for other in getattr(graph, direction)(node_id)
                if other in layout.nodes
            ),
            key=str.casefold,
        )
        if names:
            more = len(names) - NAMED_LINKS
            listed = ", ".join(names[:NAMED_LINKS]) + (f" and {more:,} more" if more > 0 else "")
            lines.append(f"\n{word}: {listed}")
    return "".join(lines)


def svg_document(
    graph: nx.DiGraph, layout: Layout, *, title: str, when: str, focused: bool = False
) -> str:
    """The SVG of a laid-out graph with a header (`title`, `when`) and a legend; a WAI-ARIA
    graphics document whose boxes are symbols named by their tooltips."""
    width, height, rows, on_header = _canvas(graph, layout, title=title, when=when)
    when = _subtitle(layout, when)
    drawing = svgwrite.Drawing(size=(f"{width:g}", f"{height:g}"), profile="full", debug=False)
    drawing.viewbox(0, 0, width, height)
    kinds = [graph.nodes[node_id].get("type", "service") for node_id in layout.nodes]
    services = sum(kind == "service" for kind in kinds)
    drawing.attribs["role"] = "graphics-document"
    drawing.attribs["aria-roledescription"] = "architecture graph"
    drawing.attribs["aria-label"] = xml_text(
        f"Architecture of {title}: {counted(services, 'service')}, "
        f"{counted(len(kinds) - services, 'topic')}; {when}"
    )
    drawing.defs.add(drawing.style(STYLE))
    marker = drawing.marker(
        id="arrow", insert=(8, 5), size=(8, 10), orient="auto", markerUnits="userSpaceOnUse"
    )
    marker.viewbox(0, 0, 10, 10)
    marker.add(drawing.path(d="M0,0 L10,5 L0,10 z", fill="#64748b"))
    drawing.defs.add(marker)
    drawing.add(drawing.rect(insert=(0, 0), size=(width, height), fill="#ffffff"))

    header = drawing.g(class_="header")
    header.add(drawing.text(xml_text(title), insert=(MARGIN, MARGIN + 12), class_="title"))
    header.add(drawing.text(xml_text(when), insert=(MARGIN, MARGIN + 30), class_="when"))
    legend_group = drawing.g(class_="legend")
    # on the header's line, flush right; else in rows under the drawing, from the left
    top = MARGIN if on_header else height - MARGIN - len(rows) * LEGEND_ROW
    for index, row in enumerate(rows):
        x = width - MARGIN - _legend_width(row) if on_header else MARGIN
        y = top + index * LEGEND_ROW
        for name, color in row:
            legend_group.add(
                drawing.rect(
                    insert=(round(x, 1), y + 2), size=(12, 12), rx=2, fill=color, stroke="#9ca3af"
                )
            )
            shown = _legend_name(name)
            label = drawing.text(xml_text(shown), insert=(round(x + 17, 1), y + 12))
            if shown != " ".join(name.split()):  # cut short
                label.add(Title(xml_text(name)))
            legend_group.add(label)
            x += _legend_item_width(name)
    if on_header:
        header.add(legend_group)
    drawing.add(header)
    if not on_header:
        drawing.add(legend_group)

    edges = drawing.g(class_="edges")
    numbers: dict[float, str] = {}
    edges.elements = [_edge(drawing, route, numbers) for route in layout.edges]
    drawing.add(edges)

    nodes = drawing.g(class_="nodes")
    members = nodes.elements
    attributes = graph.nodes
    for node_id, box in layout.nodes.items():
        data = attributes[node_id]
        kind = data.get("type", "service")
        label = data.get("label", node_id)
        tooltip = (
            f"{label}\ncategory: {data.get('category') or 'none'}"
            f"\nowner: {data.get('owner') or 'none'}"
        ) + _links(graph, layout, node_id, kind)
        radius = _number(box.height / 2) if kind == "messaging" else "3"
        shapes = [
            Title(xml_text(tooltip)),
            _element(
                Rect,
                drawing,
                {
                    "fill": data.get("color", NEUTRAL),
                    "height": _number(box.height),
                    "rx": radius,  # ry is rx when left out (SVG 1.1 and 2)
                    "width": _number(box.width),
                    "x": _number(box.x),
                    "y": _number(box.y),
                },
            ),
        ]
        first = box.y + box.height / 2 - (len(box.lines) - 1) * LINE_HEIGHT / 2 + FONT_SIZE * 0.35
        centre = _number(box.x + box.width / 2)
        for index, line in enumerate(box.lines):
            shapes.append(
                _element(
                    Text,
                    drawing,
                    {
                        "x": centre,
                        "y": _number(first + index * LINE_HEIGHT),
                    },
                    text=xml_text(line),
                )
            )
        group = _element(
            Group,
            drawing,
            {
                "class": f"node {kind}",
                "data-entity-id": node_id,
                "role": "graphics-symbol",
            },
        )
        group.elements = shapes
        members.append(group)
    drawing.add(nodes)
    if not layout.nodes:
        # a focus that matches nothing is not an empty project (it read as one)
        empty = "Nothing in the project matches this focus." if focused else "Nothing to show yet."
        drawing.add(drawing.text(empty, insert=(MARGIN, HEADER_HEIGHT + 40), class_="empty"))
    # svgwrite's own tostring() without its utf-8 round trip (its comment: "just Python 3")
    return ElementTree.tostring(drawing.get_xml(), encoding="unicode")


def _element(cls, drawing: svgwrite.Drawing, attribs: dict[str, str], **state):
    """An svgwrite element of class `cls` with attributes as the exact strings svgwrite would
    write and its `state`, skipping the constructors' costly per-keyword checks."""
    element = object.__new__(cls)
    element._parameter = drawing._parameter
    element.attribs = attribs
    element.elements = []
    element.__dict__.update(state)
    return element


def _edge(drawing: svgwrite.Drawing, route: EdgeRoute, numbers: dict[float, str]):
    return _element(
        Path,
        drawing,
        {
            "class": f"edge {route.kind}",
            "data-source": route.source,
            "data-target": route.target,
        },
        commands=[_edge_path(route.points, numbers)],
    )
