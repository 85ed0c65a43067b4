"""Mermaid flowchart text (interface §6, 8, 14): shapes, ids, arrows, palette classes, and user
text that never escapes its quoted label. Pure rendering: no database."""

import re
import unicodedata

import pytest

from diagrams.entities import NEUTRAL, PALETTE, ServiceState
from diagrams.rendering.graph import project_graph
from diagrams.rendering.mermaid import mermaid_flowchart, mermaid_id, mermaid_label
from diagrams.slugs import service_slug

ID = r"(?:service|messaging)__[a-z0-9_]+(?:-[a-z0-9_]+)*"
# Outside ASCII only letters, marks and digits are written as they are (checked in parse).
LABEL = r"(?:[A-Za-z0-9 .,_/()-]|[^\x00-\x7f]|#[0-9]+;)+"
WORD_CATEGORIES = {"Lu", "Ll", "Lt", "Lm", "Lo", "Mn", "Mc", "Nd", "Nl", "No"}
SERVICE_LINE = re.compile(rf'^    (?P<id>{ID})\["(?P<label>{LABEL})"\]$')
TOPIC_LINE = re.compile(rf'^    (?P<id>{ID})\(\["(?P<label>{LABEL})"\]\)$')
EDGE_LINE = re.compile(rf"^    (?P<source>{ID}) --> (?P<target>{ID})$")
CLASSDEF_LINE = re.compile(
    r"^    classDef (?P<name>cat[0-9]+|nocat) "
    r"fill:(?P<fill>#[0-9a-f]{6}),stroke:#4b5563,color:#111827$"
)
TOPIC_CLASSDEF = "    classDef topic stroke-width:2px,stroke-dasharray:5 3"
CLASS_LINE = re.compile(rf"^    class (?P<ids>{ID}(?:,{ID})*) (?P<name>cat[0-9]+|nocat|topic)$")

# Names that try to break out of a label, into HTML, a directive, a statement or a link.
HOSTILE_NAMES = [
    "<script>alert(1)</script>",
    '"><svg onload=alert(1)>',
    "]]>",
    "&amp;",
    'it\'s "quoted"',
    "brackets [] {} ()",
    "# hash ; semi #35; #60;",
    '%%{init: {"theme":"dark"}}%%',
    "click service__x call alert()",
    "line\nA-->B",
    "end",
    "subgraph",
    "`backticks` **bold** _em_",
    "Zürich 日本",
    "Ωμέγα café\u0301 ٣ Ⅻ",
    '<img src=x onerror="window.__pwned=1">',
    '<a href="javascript:window.__pwned=1">link</a>',
    "style:#f00;x",
    "classDef evil fill:#f00",
    "service__a --> service__b",
    "A---oB\tB==>C",
    "emoji 😀 \u202eevil",
]
# Topic names that slug alike (each gets a hash suffix), on top of the hostile ones.
LOOKALIKE_TOPICS = ["Orders", "orders", "ORDERS!", "Script Alert(1) Script"]


def hostile_services() -> list[ServiceState]:
    """Every hostile name as a service and as a topic, with hostile categories and owners."""
    services = []
    topics = [*HOSTILE_NAMES, *LOOKALIKE_TOPICS]
    for i, name in enumerate(HOSTILE_NAMES):
        produced = topics[i]
        consumed = topics[(i + 3) % len(topics)]
        services.append(
            ServiceState(
                slug=service_slug(name),
                name=name,
                category=HOSTILE_NAMES[(i + 1) % len(HOSTILE_NAMES)] if i % 3 else None,
                owner=name,
                produces=({"name": produced, "category": name},),
                consumes=({"name": consumed},),
            )
        )
    services.append(
        ServiceState(
            slug="lookalike-consumer",
            name="lookalike consumer",
            consumes=tuple({"name": topic} for topic in LOOKALIKE_TOPICS),
        )
    )
    assert len({s.slug for s in services}) == len(services), "service slugs must be unique"
    return services


def demo_services() -> list[ServiceState]:
    """A small checkout platform, the kind of project a user starts with."""
    return [
        ServiceState(
            slug="order-api",
            name="Order API",
            category="sales",
            produces=({"name": "orders.created"},),
            consumes=({"name": "payments.settled"},),
        ),
        ServiceState(
            slug="payment-service",
            name="Payment Service",
            category="payments",
            produces=({"name": "payments.settled", "category": "payments"},),
            consumes=({"name": "orders.created"},),
        ),
        ServiceState(
            slug="inventory",
            name="Inventory",
            category="warehouse",
            consumes=({"name": "orders.created", "category": "sales"},),
            produces=({"name": "stock.reserved"},),
        ),
        ServiceState(
            slug="shipping",
            name="Shipping",
            consumes=({"name": "stock.reserved"}, {"name": "payments.settled"}),
        ),
        ServiceState(slug="audit-log", name="Audit log (v2)"),
    ]


def decoded(label: str) -> str:
    return re.sub(r"#([0-9]+);", lambda m: chr(int(m[1])), label)


def shown(name: str) -> str:
    """What a label should read once Mermaid decodes it: whitespace becomes a space."""
    return "".join(" " if c.isspace() else c for c in name)


def parse(text: str) -> dict:
    """Split the flowchart into its statements, failing on any line of another form."""
    lines = text.split("\n")
    assert lines[0] == "flowchart LR"
    assert lines[-1] == "", "the text ends with one newline"
    out = {"services": {}, "topics": {}, "edges": [], "classdefs": {}, "classes": {}}
    for line in lines[1:-1]:
        for char in line:
            if char > "\x7f":
                assert unicodedata.category(char) in WORD_CATEGORIES, (char, line)
        if m := SERVICE_LINE.match(line):
            out["services"][m["id"]] = decoded(m["label"])
        elif m := TOPIC_LINE.match(line):
            out["topics"][m["id"]] = decoded(m["label"])
        elif m := EDGE_LINE.match(line):
            out["edges"].append((m["source"], m["target"]))
        elif m := CLASSDEF_LINE.match(line):
            out["classdefs"][m["name"]] = m["fill"]
        elif line == TOPIC_CLASSDEF:
            out["classdefs"]["topic"] = None
        elif m := CLASS_LINE.match(line):
            assert m["name"] not in out["classes"], "one class line per class"
            out["classes"][m["name"]] = m["ids"].split(",")
        else:
            pytest.fail(f"not a statement the renderer writes: {line!r}")
    return out


def test_header_and_one_line_per_node_and_edge():
    graph, _ = project_graph(demo_services())
    text = mermaid_flowchart(graph)
    assert text.startswith("flowchart LR\n")
    chart = parse(text)
    assert len(chart["services"]) + len(chart["topics"]) == graph.number_of_nodes() == 8
    assert len(chart["edges"]) == graph.number_of_edges() == 8


def test_services_are_boxes_and_topics_are_stadiums_with_their_names():
    text = mermaid_flowchart(project_graph(demo_services())[0])
    assert '    service__order-api["Order API"]\n' in text
    assert '    service__audit-log["Audit log (v2)"]\n' in text
    assert '    messaging__orders-created(["orders.created"])\n' in text
    chart = parse(text)
    assert set(chart["services"]) == {
        "service__order-api",
        "service__payment-service",
        "service__inventory",
        "service__shipping",
        "service__audit-log",
    }
    assert set(chart["topics"]) == {
        "messaging__orders-created",
        "messaging__payments-settled",
        "messaging__stock-reserved",
    }


def test_node_ids_are_entity_ids_with_underscores_for_the_double_hyphen():
    graph, entities = project_graph(demo_services())
    chart = parse(mermaid_flowchart(graph))
    expected = {eid.replace("--", "__") for eid in [*entities["services"], *entities["topics"]]}
    assert set(chart["services"]) | set(chart["topics"]) == expected
    assert mermaid_id("service--order-api") == "service__order-api"
    assert mermaid_id("messaging--orders-created-1a2b3c") == "messaging__orders-created-1a2b3c"


@pytest.mark.parametrize(
    "entity_id", ["service--a b", 'service--x"]', "service--a\nb", "service--x-", "flow", ""]
)
def test_an_id_mermaid_cannot_take_is_refused_not_written(entity_id):
    with pytest.raises(ValueError):
        mermaid_id(entity_id)


def test_arrows_follow_the_data_one_per_relationship():
    chart = parse(mermaid_flowchart(project_graph(demo_services())[0]))
    assert sorted(chart["edges"]) == chart["edges"]
    assert set(chart["edges"]) == {
        ("service__order-api", "messaging__orders-created"),  # produces: service -> topic
        ("messaging__payments-settled", "service__order-api"),  # consumes: topic -> service
        ("service__payment-service", "messaging__payments-settled"),
        ("messaging__orders-created", "service__payment-service"),
        ("messaging__orders-created", "service__inventory"),
        ("service__inventory", "messaging__stock-reserved"),
        ("messaging__stock-reserved", "service__shipping"),
        ("messaging__payments-settled", "service__shipping"),
    }
    assert len(chart["edges"]) == len(set(chart["edges"])) == 8


def test_a_service_that_produces_and_consumes_one_topic_has_both_arrows():
    services = [
        ServiceState(slug="loop", name="loop", produces=({"name": "t"},), consumes=({"name": "t"},))
    ]
    chart = parse(mermaid_flowchart(project_graph(services)[0]))
    assert chart["edges"] == [("messaging__t", "service__loop"), ("service__loop", "messaging__t")]


def test_classes_are_the_palette_colours_in_use_and_every_node_has_its_own():
    graph, _ = project_graph(demo_services())
    chart = parse(mermaid_flowchart(graph))
    used = {graph.nodes[n]["color"] for n in graph.nodes}
    fills = {name: fill for name, fill in chart["classdefs"].items() if name != "topic"}
    assert set(fills.values()) == used
    assert len(fills) == len(used)
    for name, fill in fills.items():
        assert fill == (NEUTRAL if name == "nocat" else PALETTE[int(name[3:])])
    for node, data in graph.nodes(data=True):
        mid = node.replace("--", "__")
        owning = [name for name, ids in chart["classes"].items() if mid in ids and name in fills]
        assert len(owning) == 1
        assert fills[owning[0]] == data["color"]
    assert "service__audit-log" in chart["classes"]["nocat"]
    assert set(chart["classes"]["topic"]) == set(chart["topics"])


def test_a_colour_outside_the_palette_is_never_written():
    graph, _ = project_graph([ServiceState(slug="a", name="a", category="sales")])
    graph.nodes["service--a"]["color"] = "red;} body{display:none"
    text = mermaid_flowchart(graph)
    assert "red" not in text
    assert parse(text)["classes"] == {"nocat": ["service__a"]}


def test_no_topics_no_topic_class():
    text = mermaid_flowchart(project_graph([ServiceState(slug="solo", name="Solo")])[0])
    assert text == (
        "flowchart LR\n"
        '    service__solo["Solo"]\n'
        f"    classDef nocat fill:{NEUTRAL},stroke:#4b5563,color:#111827\n"
        "    class service__solo nocat\n"
    )


def test_empty_graph_is_just_the_header():
    graph, _ = project_graph([])
    assert mermaid_flowchart(graph) == "flowchart LR\n"


def test_same_graph_same_bytes_whatever_the_input_order():
    services = demo_services() + hostile_services()
    first = mermaid_flowchart(project_graph(services)[0])
    again = mermaid_flowchart(project_graph(list(reversed(services)))[0])
    assert first == again
    assert first.encode() == mermaid_flowchart(project_graph(services)[0]).encode()


def test_hostile_names_stay_inside_their_labels():
    graph, _ = project_graph(hostile_services())
    text = mermaid_flowchart(graph)
    chart = parse(text)  # every line is one of the statement forms, whatever the names hold
    labels = {**chart["services"], **chart["topics"]}
    assert len(labels) == graph.number_of_nodes()
    for node, data in graph.nodes(data=True):
        assert labels[node.replace("--", "__")] == shown(data["label"])
    for name in HOSTILE_NAMES:
        assert shown(name) in chart["services"].values()
        assert shown(name) in chart["topics"].values()
    for raw in ("<", "&", "%", "`", "'", "{", "}", "\t", "\u202e"):
        assert raw not in text
    assert ">" not in text.replace(" --> ", " ")
    assert text.count('"') == 2 * len(labels)
    assert text.count("\n") == 1 + len(labels) + len(chart["edges"]) + 2 * len(chart["classes"])


def test_lookalike_topics_each_get_their_own_node():
    graph, entities = project_graph(hostile_services())
    chart = parse(mermaid_flowchart(graph))
    orders = [mid for mid in chart["topics"] if mid.startswith("messaging__orders-")]
    assert len(orders) == 3
    assert {chart["topics"][mid] for mid in orders} == {"Orders", "orders", "ORDERS!"}


def test_hostile_categories_never_name_a_class():
    graph, _ = project_graph(hostile_services())
    chart = parse(mermaid_flowchart(graph))
    assert set(chart["classes"]) <= {*(f"cat{i}" for i in range(len(PALETTE))), "nocat", "topic"}
    assert {fill for fill in chart["classdefs"].values() if fill} <= {*PALETTE, NEUTRAL}
    assert len(chart["classdefs"]) == len(chart["classes"])


@pytest.mark.parametrize(
    ("name", "label"),
    [
        ("Order API", "Order API"),
        ('"', "#34;"),
        ("<b>", "#60;b#62;"),
        ("#;", "#35;#59;"),
        ("a:b", "a#58;b"),
        ("x\ny\r\tz", "x y  z"),
        ("Zürich 日本", "Zürich 日本"),
        ("Ωμέγα café\u0301 ٣", "Ωμέγα café\u0301 ٣"),
        ("😀", "#128512;"),
        ("\u202eevil\u00a0\uff02", "#8238;evil #65282;"),
        ("\x00\x1b", "  "),
        ("", " "),
    ],
)
def test_label_escaping(name, label):
    assert mermaid_label(name) == label
