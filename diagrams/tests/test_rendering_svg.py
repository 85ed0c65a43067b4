"""The SVG writer (spec: Graph renderings; interface §8, 14): node groups and shapes, arrows,
tooltips, legend and header; user text that stays text whatever it holds; labels that fit
their boxes. Pure rendering: no database."""

import re
import xml.etree.ElementTree as ET

import pytest

from diagrams.entities import NEUTRAL, ServiceState, category_color
from diagrams.rendering.graph import graph_filter, project_graph
from diagrams.rendering.layout import FONT_SIZE, MAX_LINES, MAX_TEXT_WIDTH, PAD_X, layout_layered
from diagrams.rendering.svg import _legend_name, graph_origin, svg_document
from diagrams.rendering.text import clusters, text_width, wrap_label
from diagrams.slugs import service_slug

SVG = "{http://www.w3.org/2000/svg}"
ENTITY_ID = re.compile(r"^[a-z]+--[a-z0-9_-]+$")
LONG_WORDS = " ".join(["architecture"] * 25)[:255]
HOSTILE_NAMES = [
    "<script>alert(1)</script>",
    '"><svg onload=alert(1)>',
    "]]>",
    "&",
    "&amp; &lt;b&gt;",
    'it\'s "quoted"',
    "{{x}}",
    "</text>",
    "line\nbreak\tand  spaces",
    '<a href="javascript:alert(1)">x</a>',
    "<!-- comment -->",
    "<?xml version='1.0'?>",
    "Zürich 日本",
    "W" * 255,
    LONG_WORDS,
]


def service(name: str, **fields) -> ServiceState:
    return ServiceState(slug=service_slug(name), name=name, **fields)


def render(
    services: list[ServiceState], *, title: str = "Shop", when: str = "Current state"
) -> tuple:
    graph, _ = project_graph(services)
    layout = layout_layered(graph, origin=graph_origin())
    document = svg_document(graph, layout, title=title, when=when)
    return graph, layout, document, ET.fromstring(document)


def node_groups(root: ET.Element) -> dict[str, ET.Element]:
    return {
        g.get("data-entity-id"): g
        for g in root.iter(f"{SVG}g")
        if g.get("data-entity-id") is not None
    }


def lines_of(group: ET.Element) -> list[str]:
    return [t.text or "" for t in group.findall(f"{SVG}text")]


def local(name: str) -> str:
    return name.rsplit("}", 1)[-1]


def shop() -> list[ServiceState]:
    """Two services with categories, one without, and topics with and without one."""
    return [
        service(
            "Order API",
            category="Checkout",
            owner="Team Orders",
            produces=({"name": "orders.created", "category": "Events"},),
        ),
        service(
            "Billing",
            category="Payments",
            owner="Team Money",
            consumes=({"name": "orders.created"},),
            produces=({"name": "invoices", "owner": "Team Money"},),
        ),
        service("Mailer", consumes=({"name": "invoices"}, {"name": "orders.created"})),
    ]


def test_document_has_a_node_group_per_node():
    graph, _, _, root = render(shop())
    assert root.tag == f"{SVG}svg"
    groups = node_groups(root)
    assert set(groups) == set(graph.nodes)
    for node_id, group in groups.items():
        classes = group.get("class").split()
        assert "node" in classes
        assert graph.nodes[node_id]["type"] in classes


def test_services_are_rectangles_and_topics_have_round_ends():
    graph, layout, _, root = render(shop())
    for node_id, group in node_groups(root).items():
        rect = group.find(f"{SVG}rect")
        height = float(rect.get("height"))
        assert height == layout.nodes[node_id].height
        if graph.nodes[node_id]["type"] == "service":
            assert 0 < float(rect.get("rx")) <= 6
        else:
            assert float(rect.get("rx")) == height / 2
            assert rect.get("ry") is None  # rx, which SVG takes for ry when it is left out


def test_nodes_are_filled_with_their_category_colour():
    graph, _, _, root = render(shop())
    fills = {
        node_id: group.find(f"{SVG}rect").get("fill")
        for node_id, group in node_groups(root).items()
    }
    assert fills["service--order-api"] == category_color("Checkout")
    assert fills["service--billing"] == category_color("Payments")
    assert fills["messaging--orders-created"] == category_color("Events")
    assert fills["service--mailer"] == NEUTRAL
    assert fills["messaging--invoices"] == NEUTRAL


def test_one_arrow_per_edge_in_the_direction_of_the_data():
    graph, _, document, root = render(shop())
    paths = [p for p in root.iter(f"{SVG}path") if "edge" in (p.get("class") or "").split()]
    assert len(paths) == graph.number_of_edges() == 5
    assert {(p.get("data-source"), p.get("data-target")) for p in paths} == set(graph.edges)
    for path in paths:
        kind = graph.edges[path.get("data-source"), path.get("data-target")]["kind"]
        assert kind in path.get("class").split()
        assert path.get("d").startswith("M")
    markers = [m for m in root.iter(f"{SVG}marker") if m.get("id") == "arrow"]
    assert len(markers) == 1
    # every edge ends in it, said once in the drawing's style rather than on each edge
    assert re.search(r"\.edge \{[^}]*marker-end: url\(#arrow\)", document)
    assert markers[0].find(f"{SVG}path") is not None


def test_each_node_has_a_tooltip_with_name_category_owner_and_links():
    """The tooltip, which names the box for a screen reader too, says the arrows in words:
    what a service produces and consumes, who produces and consumes a topic."""
    _, _, _, root = render(shop())
    titles = {
        node_id: group.find(f"{SVG}title").text for node_id, group in node_groups(root).items()
    }
    assert titles["service--order-api"] == (
        "Order API\ncategory: Checkout\nowner: Team Orders\nproduces: orders.created"
    )
    assert titles["service--billing"] == (
        "Billing\ncategory: Payments\nowner: Team Money"
        "\nproduces: invoices\nconsumes: orders.created"
    )
    assert titles["service--mailer"] == (
        "Mailer\ncategory: none\nowner: none\nconsumes: invoices, orders.created"
    )
    assert titles["messaging--invoices"] == (
        "invoices\ncategory: none\nowner: Team Money\nproduced by: Billing\nconsumed by: Mailer"
    )
    assert titles["messaging--orders-created"] == (
        "orders.created\ncategory: Events\nowner: none"
        "\nproduced by: Order API\nconsumed by: Billing, Mailer"
    )


def test_a_screen_reader_gets_a_graph_of_named_boxes_saying_what_it_shows():
    """Not one image named after the project whatever it showed: a graphics document named
    with its counts and moment, each box a symbol of its kind (its tooltip names it)."""
    _, _, _, root = render(shop(), when="As of 2026-09-29 13:12 UTC")
    assert root.get("role") == "graphics-document"
    assert root.get("aria-label") == (
        "Architecture of Shop: 3 services, 2 topics; As of 2026-09-29 13:12 UTC"
    )
    groups = node_groups(root)
    assert {g.get("role") for g in groups.values()} == {"graphics-symbol"}
    _, _, _, one = render([service("Solo")])
    assert one.get("aria-label") == "Architecture of Shop: 1 service, 0 topics; Current state"


def test_a_tooltip_names_eight_links_a_direction_and_counts_the_rest():
    readers = [service(f"Reader {n:02d}", consumes=({"name": "busy"},)) for n in range(11)]
    _, _, _, root = render([service("Writer", produces=({"name": "busy"},)), *readers])
    title = node_groups(root)["messaging--busy"].find(f"{SVG}title").text
    assert title.endswith(
        "\nproduced by: Writer\nconsumed by: Reader 00, Reader 01, Reader 02, Reader 03, "
        "Reader 04, Reader 05, Reader 06, Reader 07 and 3 more"
    )


def test_a_focused_drawing_names_only_the_links_it_draws():
    graph, entities = project_graph(shop())
    focused = graph_filter(graph, entities, ["service--order-api"], 1)
    layout = layout_layered(focused, origin=graph_origin())
    root = ET.fromstring(svg_document(focused, layout, title="Shop", when="now"))
    title = node_groups(root)["messaging--orders-created"].find(f"{SVG}title").text
    assert title.endswith("\nproduced by: Order API")  # Billing and Mailer are not drawn


def test_legend_lists_each_category_present_and_no_category():
    _, _, _, root = render(shop())
    legend = next(g for g in root.iter(f"{SVG}g") if g.get("class") == "legend")
    names = [t.text for t in legend.findall(f"{SVG}text")]
    assert names == ["Checkout", "Events", "Payments", "no category"]
    swatches = [r.get("fill") for r in legend.findall(f"{SVG}rect")]
    assert swatches == [
        category_color("Checkout"),
        category_color("Events"),
        category_color("Payments"),
        NEUTRAL,
    ]


def test_legend_has_no_no_category_entry_when_every_node_has_one():
    _, _, _, root = render(
        [service("Solo", category="Core", produces=({"name": "t", "category": "Core"},))]
    )
    legend = next(g for g in root.iter(f"{SVG}g") if g.get("class") == "legend")
    assert [t.text for t in legend.findall(f"{SVG}text")] == ["Core"]


def test_a_legend_too_long_for_the_drawing_wraps_under_it_without_widening_it():
    """A focus on a few services of a big project can still carry a hundred categories:
    the legend wraps in rows of the drawing's width (at least 600 px) under the graph, so
    the canvas stays the graph's size (it was the legend's: a 750 px graph on a 15,000 px
    canvas, drawn as a sliver at the left edge)."""
    services = [service("Hub", consumes=tuple({"name": f"t{i}"} for i in range(3)))] + [
        service(f"S{i}", category=f"Category number {i:03d}", produces=({"name": f"t{i % 3}"},))
        for i in range(120)
    ]
    graph, layout, document, root = render(services)
    width, height = float(root.get("width")), float(root.get("height"))
    assert width <= max(layout.width, 600) + 2 * 24 + 0.1
    legend = next(g for g in root.iter(f"{SVG}g") if g.get("class") == "legend")
    assert legend not in list(next(g for g in root.iter(f"{SVG}g") if g.get("class") == "header"))
    names = [t.text for t in legend.findall(f"{SVG}text")]
    assert names == sorted(f"Category number {i:03d}" for i in range(120)) + ["no category"]
    swatches = legend.findall(f"{SVG}rect")
    rows = sorted({float(r.get("y")) for r in swatches})
    assert len(rows) > 1
    graph_bottom = max(box.y + box.height for box in layout.nodes.values())
    assert rows[0] > graph_bottom and rows[-1] + 12 <= height
    for rect, text in zip(swatches, legend.findall(f"{SVG}text"), strict=True):
        x = float(rect.get("x"))
        assert 0 < x and x + 17 + text_width(text.text, 12) <= width
        assert rect.get("x") == f"{round(x, 1)}"  # coordinates rounded once, like the rest


def test_a_short_legend_stays_on_the_header_line():
    _, layout, _, root = render(shop())
    header = next(g for g in root.iter(f"{SVG}g") if g.get("class") == "header")
    legend = next(g for g in header.iter(f"{SVG}g") if g.get("class") == "legend")
    assert {float(r.get("y")) for r in legend.findall(f"{SVG}rect")} == {26.0}


def test_header_shows_title_and_time():
    _, _, _, root = render(shop(), title="Checkout Platform", when="As of 2024-05-01 10:20:30 UTC")
    header = next(g for g in root.iter(f"{SVG}g") if g.get("class") == "header")
    texts = {t.get("class"): t.text for t in header.findall(f"{SVG}text")}
    assert texts == {"title": "Checkout Platform", "when": "As of 2024-05-01 10:20:30 UTC"}


def test_same_graph_gives_the_same_bytes():
    assert render(shop())[2] == render(list(reversed(shop())))[2]


def test_empty_graph_says_there_is_nothing_to_show():
    _, layout, document, root = render([])
    assert layout.nodes == {}
    assert node_groups(root) == {}
    assert not [p for p in root.iter(f"{SVG}path") if p.get("data-source")]
    texts = [t.text or "" for t in root.iter(f"{SVG}text")]
    assert any(text.startswith("Nothing to show") for text in texts)
    assert float(root.get("width")) > 0 and float(root.get("height")) > 0


# --- hostile text -----------------------------------------------------------------------------


def hostile_project() -> list[ServiceState]:
    """Every hostile name as a service, a topic, a category and an owner."""
    services = []
    count = len(HOSTILE_NAMES)
    for index, name in enumerate(HOSTILE_NAMES):
        services.append(
            service(
                name,
                category=HOSTILE_NAMES[(index + 1) % count],
                owner=HOSTILE_NAMES[(index + 2) % count],
                produces=({"name": name, "owner": HOSTILE_NAMES[(index + 3) % count]},),
                consumes=(
                    {
                        "name": HOSTILE_NAMES[(index + 5) % count],
                        "category": HOSTILE_NAMES[(index + 4) % count],
                    },
                ),
            )
        )
    return services


def test_hostile_names_stay_text():
    services = hostile_project()
    assert len({s.slug for s in services}) == len(services)
    graph, layout, document, root = render(
        services, title='<script>alert(1)</script>"&', when="]]></text><script>"
    )
    # no markup of the user's made it through
    assert "<script" not in document and "<svg onload" not in document
    assert (
        "<a " not in document and "<!--" not in document and "<?xml version='1.0'" not in document
    )
    for element in root.iter():
        assert local(element.tag).lower() not in (
            "script",
            "a",
            "foreignobject",
            "iframe",
            "image",
            "use",
        )
        for attribute, value in element.attrib.items():
            name = local(attribute).lower()
            assert not name.startswith("on"), (element.tag, attribute)
            assert "href" not in name, (element.tag, attribute)
            if name != "aria-label":  # a label: it neither runs nor loads
                assert not set('<>{}"&') & set(value), (element.tag, attribute, value)
                assert not value.startswith("javascript:")
    for node_id in node_groups(root):
        assert ENTITY_ID.match(node_id), node_id
    for path in root.iter(f"{SVG}path"):
        for attribute in ("data-source", "data-target"):
            if path.get(attribute) is not None:
                assert ENTITY_ID.match(path.get(attribute))
    header = next(g for g in root.iter(f"{SVG}g") if g.get("class") == "header")
    texts = {t.get("class"): t.text for t in header.findall(f"{SVG}text")}
    assert texts["title"] == '<script>alert(1)</script>"&'
    assert texts["when"] == "]]></text><script>"
    assert len(node_groups(root)) == graph.number_of_nodes() == 2 * len(HOSTILE_NAMES)


def test_hostile_names_read_back_as_their_own_text():
    graph, layout, _, root = render(hostile_project())
    for node_id, group in node_groups(root).items():
        name = graph.nodes[node_id]["label"]
        lines = lines_of(group)
        assert lines == list(layout.nodes[node_id].lines)
        assert lines == wrap_label(
            name, font_size=FONT_SIZE, max_width=MAX_TEXT_WIDTH, max_lines=MAX_LINES
        )
        normal = " ".join(name.split())
        joined = "".join(lines)
        if joined.endswith("…"):  # cut: what is shown is the start of the name
            assert normal.replace(" ", "").startswith(joined[:-1].replace(" ", ""))
        else:  # wrapped: every character is there, in order
            assert joined.replace(" ", "") == normal.replace(" ", "")
        data = graph.nodes[node_id]
        assert group.find(f"{SVG}title").text.startswith(
            f"{name}\ncategory: {data['category'] or 'none'}\nowner: {data['owner'] or 'none'}"
        )
    for name in ("<script>alert(1)</script>", "]]>", "&", "{{x}}", "</text>", 'it\'s "quoted"'):
        shown = [lines_of(g) for g in node_groups(root).values()]
        assert [name] in shown, name
    assert ["line break and spaces"] in [lines_of(g) for g in node_groups(root).values()]


def test_hostile_categories_read_back_in_the_legend():
    _, _, _, root = render(hostile_project())
    legend = next(g for g in root.iter(f"{SVG}g") if g.get("class") == "legend")
    # a name cut short reads back whole from its tooltip; runs of spaces read as one
    names = [
        t.find(f"{SVG}title").text if t.find(f"{SVG}title") is not None else t.text
        for t in legend.findall(f"{SVG}text")
    ]
    assert names == [
        name if len(name) > 60 else " ".join(name.split()) for name in sorted(HOSTILE_NAMES)
    ]  # every name is some service's category


def test_control_characters_in_names_still_parse():
    render(
        [
            service(
                "Bell\x07Service", category="esc\x1b[31m", produces=({"name": "form\x0cfeed\x01"},)
            )
        ],
        title="T\x02",
    )


# --- labels fit their boxes -------------------------------------------------------------------


FIT_NAMES = [
    "A",
    "Order API",
    "W" * 60,
    "i" * 60,
    "orders.payment-events.v2.dead-letter-queue",
    "Zürich 日本語のサービス名前です",
    "MMMMMMMMMM MMMMMMMMMM MMMMMMMMMM",
    "x" * 255,
    LONG_WORDS,
    "a-b_c/d:e.f " * 10,
    "😀" * 40,
]


def test_every_label_line_fits_inside_its_box():
    services = [service(name, produces=({"name": f"{name} topic"},)) for name in FIT_NAMES]
    graph, _, document, root = render(services)
    for node_id, group in node_groups(root).items():
        rect = group.find(f"{SVG}rect")
        width = float(rect.get("width"))
        lines = lines_of(group)
        assert 1 <= len(lines) <= MAX_LINES
        for line in lines:
            assert line.strip(), node_id
            assert text_width(line, 12) <= width - 2 * PAD_X, (node_id, line, width)
        if graph.nodes[node_id]["type"] == "messaging":  # clear of the round ends too
            radius = float(rect.get("rx"))
            assert max(text_width(line, 12) for line in lines) <= width - radius
        # the text is centred on the box
        assert re.search(r"\.node text \{[^}]*text-anchor: middle", document)
        for text in group.findall(f"{SVG}text"):
            assert float(text.get("x")) == pytest.approx(float(rect.get("x")) + width / 2)


@pytest.mark.parametrize("name", ["x" * 255, LONG_WORDS, "W" * 255, "orders." * 36 + "end"])
def test_long_names_wrap_to_three_lines_ending_in_an_ellipsis(name):
    _, _, _, root = render([service(name[:60], produces=({"name": name},))])
    topic = next(g for node_id, g in node_groups(root).items() if node_id.startswith("messaging--"))
    lines = lines_of(topic)
    assert len(lines) == MAX_LINES
    assert lines[-1].endswith("…")
    assert all(not line.endswith("…") for line in lines[:-1])
    # the full name stays in the tooltip
    assert topic.find(f"{SVG}title").text.startswith(name + "\n")


def test_lines_of_a_box_are_stacked_inside_it():
    _, _, _, root = render([service("S", produces=({"name": LONG_WORDS},))])
    for group in node_groups(root).values():
        rect = group.find(f"{SVG}rect")
        top, height = float(rect.get("y")), float(rect.get("height"))
        baselines = [float(t.get("y")) for t in group.findall(f"{SVG}text")]
        assert baselines == sorted(baselines)
        assert all(top < y < top + height for y in baselines)


PATH_STEP = re.compile(r"([MhcLC])([^MhcLC]*)")


def drawn_points(d: str) -> list[tuple[float, float]]:
    """The points an edge's path passes through (the ends of its segments), read back from
    its `d` whether it is written absolute (M, L, C) or relative (h, c)."""
    points: list[tuple[float, float]] = []
    x = y = 0.0
    for command, args in PATH_STEP.findall(d):
        numbers = [float(n) for n in re.findall(r"-?[\d.]+(?:e[-+]?\d+)?", args)]
        if command == "M" or command == "L":
            x, y = numbers
        elif command == "C":
            (mid_a, y_a, mid_b, y_b, x, y) = numbers
            assert (mid_a, mid_b, y_a) == (mid_b, mid_a, points[-1][1]) and y_b == y
        elif command == "h":
            (dx,) = numbers
            x += dx
        else:
            (half_a, zero, half_b, dy_b, dx, dy) = numbers
            assert zero == 0 and half_a == half_b == pytest.approx(dx / 2) and dy_b == dy
            x, y = x + dx, y + dy
        points.append((x, y))
    return points


def test_edges_are_drawn_through_the_layouts_points_on_a_wide_graph():
    """Edges that cross many ranks (the SVG writes them in relative steps) still start, bend
    and end where the layout put them: the same coordinates the graph JSON gives, so an
    arrow meets its box after 30 ranks as it does after one. Each curve is the S-bend: flat
    tangents, control points half way across."""
    services = [
        service(
            f"Stage {i:02d}",
            produces=({"name": f"stage-{i:02d}-done"},),
            consumes=tuple({"name": f"stage-{i - back:02d}-done"} for back in (1, 7) if i >= back),
        )
        for i in range(30)
    ]
    graph, layout, document, root = render(services)
    routes = {(route.source, route.target): route.points for route in layout.edges}
    paths = [p for p in root.iter(f"{SVG}path") if "edge" in (p.get("class") or "").split()]
    assert len(paths) == len(routes) == graph.number_of_edges()
    longest = 0
    for path in paths:
        expected = routes[path.get("data-source"), path.get("data-target")]
        drawn = drawn_points(path.get("d"))
        longest = max(longest, len(drawn))
        assert len(drawn) == len(expected)
        for (x, y), (ex, ey) in zip(drawn, expected, strict=True):
            assert x == pytest.approx(ex, abs=0.01) and y == pytest.approx(ey, abs=0.01)
    assert longest >= 10  # the long edges did cross many ranks
    # Numbers are written short: no float tails ("1933.6000000000001"), no exponents.
    numbers = re.findall(r'\s(?:x|y|width|height|rx|ry)="([^"]*)"', document) + [
        n for p in paths for n in re.findall(r"-?[\d.e+]+", p.get("d"))
    ]
    assert numbers and all(re.fullmatch(r"-?\d+(\.\d{1,2})?", n) for n in numbers), sorted(
        {n for n in numbers if not re.fullmatch(r"-?\d+(\.\d{1,2})?", n)}
    )[:5]


@pytest.mark.parametrize(
    "category",
    [
        "W" * 60,
        "日本" * 30,
        "Payments and billing " * 3,
        "Platform internationalizationandlocalizationandtranslation",
    ],
)
def test_a_long_category_name_is_cut_short_in_the_legend_with_its_whole_name_in_a_tooltip(
    category,
):
    """A category may be 60 characters: 60 wide ones drew 700 px of legend beside a graph
    of two boxes, the canvas twice the drawing's width. The legend shows at most 240 px of
    a name, ending in an ellipsis, and the whole name is its tooltip."""
    category = category.strip()
    services = [
        service("Orders", category=category, produces=({"name": "t"},)),
        service("Mailer", consumes=({"name": "t"},)),
    ]
    _, layout, _, root = render(services)
    legend = next(g for g in root.iter(f"{SVG}g") if g.get("class") == "legend")
    label = legend.findall(f"{SVG}text")[0]
    assert label.text.endswith("…") and text_width(label.text, 12) <= 240
    # as much of the name as fits, not its first word alone ("Platform…")
    assert category.startswith(label.text[:-1]) and text_width(label.text, 12) > 220
    assert label.find(f"{SVG}title").text == category
    assert float(root.get("width")) <= max(layout.width, 600) + 2 * 24 + 0.1
    # a short name has no tooltip of its own
    short = legend.findall(f"{SVG}text")[1]
    assert short.text == "no category" and short.find(f"{SVG}title") is None


@pytest.mark.parametrize(
    "label, whole",
    [
        # a cut between a flag's two letters drew other flags (🇵🇺, 🇧🇯) and bare letters
        ("x🇯🇵🇺🇸🇩🇪🇫🇷🇬🇧" * 5 + "🇯🇵🇯🇵", ["🇯🇵", "🇺🇸", "🇩🇪", "🇫🇷", "🇬🇧"]),
        # a line ended in 👩 and a joiner, the next began with 💻
        ("👩\u200d💻" * 20, ["👩\u200d💻"]),
        # a line began with a vowel sign, drawn on a dotted circle
        ("क्षि" * 15, ["क्षि"]),
        ("👍🏽" * 30, ["👍🏽"]),
    ],
)
def test_labels_are_cut_between_characters_as_a_reader_sees_them(label, whole):
    lines = wrap_label(label, font_size=FONT_SIZE, max_width=MAX_TEXT_WIDTH, max_lines=MAX_LINES)
    assert len(lines) > 1  # cut
    for line in lines:
        pieces = clusters(line.removesuffix("…"))
        assert all(piece in whole or len(piece) == 1 and piece.isascii() for piece in pieces), line
        assert text_width(line, FONT_SIZE) <= MAX_TEXT_WIDTH
    legend = _legend_name(label)
    assert all(p in whole or p.isascii() for p in clusters(legend.removesuffix("…")))


def test_an_emoji_is_measured_as_wide_as_colour_fonts_draw_it():
    """60 grinning faces overflowed their box (221-224 px drawn in a box for 204)."""
    assert text_width("😀", 10) == 12
    assert text_width("日", 10) == 10
    # a sequence is one emoji: a joined one, a skin tone, a flag, a heart as an emoji, a
    # keycap (👩‍💻 had measured two, ❤️ half of one)
    for sequence in ("👩\u200d💻", "👍🏽", "🇯🇵", "❤\ufe0f", "1\ufe0f\u20e3"):
        assert text_width(sequence, 10) == 12, sequence
    assert text_width("a👩\u200d💻b", 10) == pytest.approx(
        text_width("a", 10) + 12 + text_width("b", 10)
    )
