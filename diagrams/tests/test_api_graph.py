"""Graph renderings through the API (spec: Graph renderings; interface §9, 10, 14): the
ProjectGraph JSON, focus by `filteredIds` and `depth`, `at`, bad queries, the SVG and Mermaid
responses, tenancy, determinism, shared coordinates and the query budget."""

import xml.etree.ElementTree as ET
from urllib.parse import urlencode

import pytest

from diagrams.entities import NEUTRAL, category_color
from diagrams.tests.helpers import new_project, new_service, put

SVG = "{http://www.w3.org/2000/svg}"
GRAPH_KEYS = {
    "projectId",
    "at",
    "filteredIds",
    "depth",
    "width",
    "height",
    "nodes",
    "edges",
    "categories",
}
NODE_KEYS = {"id", "type", "label", "category", "owner", "color", "x", "y", "width", "height"}
EDGE_KEYS = {"id", "source", "target", "kind", "points"}
FORMATS = ("graph", "graph/mermaid", "graph/svg")
CHAIN = {"service--a", "messaging--t1", "service--b", "messaging--t2", "service--c"}


@pytest.fixture
def project(api):
    return new_project(api)


@pytest.fixture
def chain(api, project):
    """A -produces-> t1 -consumed by-> B -produces-> t2 -consumed by-> C, with a category, an
    owner and a flow each carried by one service and, through its declaration, one topic."""
    new_service(
        api,
        project,
        {
            "name": "A",
            "category": "Payments",
            "produces": [{"name": "t1", "owner": "Team C", "flows": ["Checkout"]}],
        },
    )
    new_service(
        api,
        project,
        {
            "name": "B",
            "flows": ["Checkout"],
            "consumes": [{"name": "t1"}],
            "produces": [{"name": "t2", "category": "Payments"}],
        },
    )
    new_service(api, project, {"name": "C", "owner": "Team C", "consumes": [{"name": "t2"}]})
    return project


def graph(api, project, fmt="graph", **query):
    query_string = urlencode(query, doseq=True)
    return api.get(f"/v1/projects/{project}/{fmt}" + (f"?{query_string}" if query_string else ""))


def graph_json(api, project, **query) -> dict:
    response = graph(api, project, **query)
    assert response.status_code == 200, response.content
    return response.json()


def node_ids(body: dict) -> set[str]:
    return {node["id"] for node in body["nodes"]}


def edge_pairs(body: dict) -> set[tuple[str, str]]:
    return {(edge["source"], edge["target"]) for edge in body["edges"]}


def on_side(point, box) -> bool:
    """The point lies on the left or the right side of the box (layout rounds to 0.1)."""
    x, y = point
    sides = (box["x"], box["x"] + box["width"])
    return (
        any(abs(x - side) <= 0.11 for side in sides)
        and box["y"] - 0.11 <= y <= box["y"] + box["height"] + 0.11
    )


def parse_svg(response) -> ET.Element:
    return ET.fromstring(response.content)


# --- the ProjectGraph shape -------------------------------------------------------------------


def test_graph_has_the_project_graph_shape(api, chain):
    body = graph_json(api, chain)
    assert set(body) == GRAPH_KEYS
    assert body["projectId"] == chain
    assert body["at"] is None and body["filteredIds"] == []
    assert node_ids(body) == CHAIN
    for node in body["nodes"]:
        assert set(node) == NODE_KEYS
        assert node["type"] == ("service" if node["id"].startswith("service--") else "messaging")
        assert node["width"] > 0 and node["height"] > 0
    labels = {node["id"]: node["label"] for node in body["nodes"]}
    assert labels == {
        "service--a": "A",
        "service--b": "B",
        "service--c": "C",
        "messaging--t1": "t1",
        "messaging--t2": "t2",
    }
    for edge in body["edges"]:
        assert set(edge) == EDGE_KEYS
        assert edge["id"] == f"{edge['source']}->{edge['target']}"
        assert len(edge["points"]) >= 2 and all(len(point) == 2 for point in edge["points"])


def test_edges_point_the_way_data_flows(api, chain):
    body = graph_json(api, chain)
    kinds = {(edge["source"], edge["target"]): edge["kind"] for edge in body["edges"]}
    assert kinds == {
        ("service--a", "messaging--t1"): "produces",
        ("messaging--t1", "service--b"): "consumes",
        ("service--b", "messaging--t2"): "produces",
        ("messaging--t2", "service--c"): "consumes",
    }


def test_node_colours_follow_their_category_and_the_legend_lists_categories_present(api, chain):
    body = graph_json(api, chain)
    nodes = {node["id"]: node for node in body["nodes"]}
    # A has the category itself; t2 gets it from B's declaration
    for node_id in ("service--a", "messaging--t2"):
        assert nodes[node_id]["category"] == "Payments"
        assert nodes[node_id]["color"] == category_color("Payments")
    for node_id in ("service--b", "service--c", "messaging--t1"):
        assert nodes[node_id]["category"] is None
        assert nodes[node_id]["color"] == NEUTRAL
    assert nodes["service--c"]["owner"] == "Team C"
    assert nodes["messaging--t1"]["owner"] == "Team C"
    assert nodes["service--a"]["owner"] is None
    assert body["categories"] == [
        {"id": "category--payments", "name": "Payments", "color": category_color("Payments")}
    ]
    # a focus without the category leaves it out of the legend
    focused = graph_json(api, chain, filteredIds="service--c", depth=0)
    assert focused["categories"] == []


def test_several_categories_each_get_their_own_colour(api, project):
    names = ["Payments", "Shipping", "Identity", "Search"]
    for index, name in enumerate(names):
        new_service(api, project, {"name": f"S{index}", "category": name})
    body = graph_json(api, project)
    assert [c["name"] for c in body["categories"]] == sorted(names)
    for category in body["categories"]:
        assert category["color"] == category_color(category["name"])
        assert category["id"] == f"category--{category['name'].lower()}"
    for node in body["nodes"]:
        assert node["color"] == category_color(node["category"])


def test_every_node_lies_inside_the_canvas(api, chain):
    new_service(api, chain, {"name": "Lonely"})
    new_service(api, chain, {"name": "Other", "produces": [{"name": "t1"}, {"name": "t3"}]})
    body = graph_json(api, chain)
    assert body["width"] > 0 and body["height"] > 0
    for node in body["nodes"]:
        assert 0 <= node["x"] and node["x"] + node["width"] <= body["width"]
        assert 0 <= node["y"] and node["y"] + node["height"] <= body["height"]
    for edge in body["edges"]:
        for x, y in edge["points"]:
            assert 0 <= x <= body["width"] and 0 <= y <= body["height"]


def test_edges_start_on_their_source_box_and_end_on_their_target_box(api, chain):
    # a cycle (C feeds A back through t3) makes the layout reverse an edge
    put(api, f"/v1/projects/{chain}/services/c", {"produces": [{"name": "t3"}]})
    put(api, f"/v1/projects/{chain}/services/a", {"consumes": [{"name": "t3"}]})
    body = graph_json(api, chain)
    boxes = {node["id"]: node for node in body["nodes"]}
    assert len(body["edges"]) == 6
    for edge in body["edges"]:
        assert on_side(edge["points"][0], boxes[edge["source"]]), edge
        assert on_side(edge["points"][-1], boxes[edge["target"]]), edge


# --- filtering (interface §10) ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("depth", "expected"),
    [
        (0, {"service--b"}),
        (1, {"service--b", "messaging--t1", "messaging--t2"}),
        (2, CHAIN),
        (5, CHAIN),
    ],
)
def test_depth_keeps_nodes_within_that_many_hops(api, chain, depth, expected):
    body = graph_json(api, chain, filteredIds="service--b", depth=depth)
    assert node_ids(body) == expected
    assert body["filteredIds"] == ["service--b"] and body["depth"] == depth
    # the edges among kept nodes, and only those
    assert edge_pairs(body) == {
        pair for pair in edge_pairs(graph_json(api, chain)) if set(pair) <= expected
    }


def test_depth_one_keeps_only_the_edges_among_kept_nodes(api, chain):
    body = graph_json(api, chain, filteredIds="service--b", depth=1)
    assert edge_pairs(body) == {("messaging--t1", "service--b"), ("service--b", "messaging--t2")}


def test_depth_defaults_to_one(api, chain):
    default = graph_json(api, chain, filteredIds="service--b")
    explicit = graph_json(api, chain, filteredIds="service--b", depth=1)
    assert default == explicit
    assert default["depth"] == 1
    assert node_ids(default) == {"service--b", "messaging--t1", "messaging--t2"}


def test_repeated_and_comma_separated_filtered_ids_are_the_same(api, chain):
    repeated = graph(api, chain, filteredIds=["service--a", "service--c"], depth=0)
    comma = graph(api, chain, filteredIds="service--a,service--c", depth=0)
    assert repeated.status_code == comma.status_code == 200
    assert repeated.json() == comma.json()
    assert node_ids(repeated.json()) == {"service--a", "service--c"}
    assert repeated.json()["filteredIds"] == ["service--a", "service--c"]
    for fmt in ("graph/mermaid", "graph/svg"):
        assert (
            graph(api, chain, fmt, filteredIds=["service--a", "service--c"], depth=0).content
            == graph(api, chain, fmt, filteredIds="service--a,service--c", depth=0).content
        )


def test_filtered_ids_written_as_an_array_by_axios_or_php_are_the_same(api, chain):
    """`filteredIds[]=a&filteredIds[]=b` (axios, jQuery and PHP write arrays so) was
    ignored: the whole graph came back with a 200, as if no focus had been asked."""
    bracketed = graph(api, chain, **{"filteredIds[]": ["service--a", "service--c"]}, depth=0)
    repeated = graph(api, chain, filteredIds=["service--a", "service--c"], depth=0)
    assert bracketed.status_code == 200
    assert bracketed.json() == repeated.json()
    assert node_ids(bracketed.json()) == {"service--a", "service--c"}
    assert graph(api, chain, **{"filteredIds[]": "nonsense"}).status_code == 400


def test_topic_id_seeds_the_topic(api, chain):
    body = graph_json(api, chain, filteredIds="messaging--t1", depth=1)
    assert node_ids(body) == {"messaging--t1", "service--a", "service--b"}


@pytest.mark.parametrize(
    ("seed", "expected", "edges"),
    [
        # A carries it; t2 through B's declaration
        ("category--payments", {"service--a", "messaging--t2"}, set()),
        # C carries it; t1 through A's declaration
        ("owner--team-c", {"service--c", "messaging--t1"}, set()),
        # B carries it; t1 through A's declaration (and B consumes t1)
        ("flow--checkout", {"service--b", "messaging--t1"}, {("messaging--t1", "service--b")}),
    ],
)
def test_category_owner_and_flow_seed_every_service_and_topic_carrying_them(
    api, chain, seed, expected, edges
):
    body = graph_json(api, chain, filteredIds=seed, depth=0)
    assert node_ids(body) == expected
    assert edge_pairs(body) == edges


def test_category_seed_widens_with_depth(api, chain):
    body = graph_json(api, chain, filteredIds="category--payments", depth=1)
    # A and t2 are seeds; t1, B and C are one hop from them
    assert node_ids(body) == CHAIN


def test_well_formed_id_naming_nothing_gives_an_empty_graph(api, chain):
    for seed in ("service--nope", "messaging--nope", "category--nope", "owner--nope", "flow--nope"):
        for fmt in FORMATS:
            response = graph(api, chain, fmt, filteredIds=seed)
            assert response.status_code == 200, (seed, fmt)
        body = graph_json(api, chain, filteredIds=seed)
        assert body["nodes"] == [] and body["edges"] == [] and body["categories"] == []
        assert body["filteredIds"] == [seed]
    mermaid = graph(api, chain, "graph/mermaid", filteredIds="service--nope").content.decode()
    assert "service__" not in mermaid and "-->" not in mermaid


def test_no_filtered_ids_gives_the_whole_project_whatever_the_depth(api, chain):
    whole = graph_json(api, chain)
    assert node_ids(whole) == CHAIN
    assert whole["depth"] is None
    for depth in (0, 1, 5):
        body = graph_json(api, chain, depth=depth)
        assert node_ids(body) == CHAIN
        assert edge_pairs(body) == edge_pairs(whole)


def test_mermaid_and_svg_show_the_same_focus(api, chain):
    mermaid = graph(api, chain, "graph/mermaid", filteredIds="service--b", depth=0)
    assert mermaid.content.decode().splitlines()[1:2] == ['    service__b["B"]']
    assert "messaging__" not in mermaid.content.decode()
    root = parse_svg(graph(api, chain, "graph/svg", filteredIds="service--b", depth=0))
    ids = [g.get("data-entity-id") for g in root.iter(f"{SVG}g") if g.get("data-entity-id")]
    assert ids == ["service--b"]


def test_category_ids_of_a_focus_are_the_project_ids(api, project):
    """Two categories whose names slug alike have hash-suffixed ids in the project (interface
    §6); a focus that shows only one of them must still use the project's id, so that the id
    read from the legend focuses on that category."""
    new_service(api, project, {"name": "X", "category": "Payments"})
    new_service(api, project, {"name": "Y", "category": "payments"})
    entities = api.get(f"/v1/projects/{project}/entities").json()
    by_name = {c["name"]: c["id"] for c in entities["categories"].values()}
    assert by_name["Payments"] != "category--payments"  # suffixed in the project
    whole = graph_json(api, project)
    assert {c["name"]: c["id"] for c in whole["categories"]} == by_name
    focused = graph_json(api, project, filteredIds="service--x", depth=0)
    assert focused["categories"] == [
        {"id": by_name["Payments"], "name": "Payments", "color": category_color("Payments")}
    ]
    legend_id = focused["categories"][0]["id"]
    assert node_ids(graph_json(api, project, filteredIds=legend_id, depth=0)) == {"service--x"}


# --- at ---------------------------------------------------------------------------------------


def test_graph_at_a_past_time_shows_the_state_then(api, project):
    created = new_service(
        api, project, {"name": "Orders", "produces": [{"name": "orders.created"}]}
    )
    put(
        api,
        f"/v1/projects/{project}/services/orders",
        {
            "name": "Order Service",
            "produces": [{"name": "orders.created"}, {"name": "orders.paid"}],
        },
    )
    new_service(api, project, {"name": "Billing", "consumes": [{"name": "orders.paid"}]})
    at = created["validFrom"]

    then = graph_json(api, project, at=at)
    assert then["at"] == at
    assert {n["id"]: n["label"] for n in then["nodes"]} == {
        "service--orders": "Orders",
        "messaging--orders-created": "orders.created",
    }
    now = graph_json(api, project)
    assert node_ids(now) == {
        "service--order-service",
        "service--billing",
        "messaging--orders-created",
        "messaging--orders-paid",
    }

    mermaid = graph(api, project, "graph/mermaid", at=at).content.decode()
    assert 'service__orders["Orders"]' in mermaid and "billing" not in mermaid

    root = parse_svg(graph(api, project, "graph/svg", at=at))
    when = next(t for t in root.iter(f"{SVG}text") if t.get("class") == "when")
    # `at` is like 2024-05-01T10:20:30.123456Z: the header shows it to the second
    assert when.text == f"As of {at[:10]} {at[11:19]} UTC"
    ids = {g.get("data-entity-id") for g in root.iter(f"{SVG}g") if g.get("data-entity-id")}
    assert ids == {"service--orders", "messaging--orders-created"}


def test_current_svg_header_shows_the_project_name_and_current_state(api, chain):
    root = parse_svg(graph(api, chain, "graph/svg"))
    texts = {t.get("class"): t.text for t in root.iter(f"{SVG}text") if t.get("class")}
    assert texts["title"] == "Shop"
    assert texts["when"].startswith("Current state")


def test_an_early_at_is_echoed_with_a_four_digit_year(api, project):
    """RFC 3339 years have four digits: the year 999 is `0999`, not `999`."""
    new_service(api, project, {"name": "Orders"})
    graph = graph_json(api, project, at="0999-05-01T00:00:00Z")
    assert graph["at"] == "0999-05-01T00:00:00.000000Z"
    assert graph["nodes"] == []


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("at", ["yesterday", "2024-13-01T00:00:00Z", "2024-01-01T25:00:00", "1"])
def test_unparsable_at_is_400(api, chain, fmt, at):
    response = graph(api, chain, fmt, at=at)
    assert response.status_code == 400
    assert response.json()["code"] == "bad_request"


# --- bad queries ------------------------------------------------------------------------------


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("depth", ["-1", "6", "x", "1.5", ""])
def test_depth_out_of_range_or_not_an_integer_is_400(api, chain, fmt, depth):
    response = graph(api, chain, fmt, filteredIds="service--b", depth=depth)
    assert response.status_code == 400
    body = response.json()
    assert body["code"] == "bad_request" and body["status"] == 400
    assert "depth" in body["message"]


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize(
    "value",
    [
        "nonsense",
        "unknown--x",
        "service--",
        "Service--a",
        "service--A",
        "service-a",
        "--a",
        "service--a b",
        "service--b,nonsense",
    ],
)
def test_malformed_filtered_id_is_400(api, chain, fmt, value):
    response = graph(api, chain, fmt, filteredIds=value)
    assert response.status_code == 400
    body = response.json()
    assert body["code"] == "bad_request" and body["status"] == 400
    assert "filteredIds" in body["message"]


def test_an_id_copied_from_mermaid_is_told_its_api_form(api, chain):
    """Mermaid's output writes `--` as `__` (interface §6); copied from there, an id was
    refused with no word of why."""
    response = graph(api, chain, filteredIds="service__a")
    assert response.status_code == 400
    assert response.json()["message"].endswith(
        "Mermaid writes ids with __ for --: this one is 'service--a'."
    )
    assert "Mermaid" not in graph(api, chain, filteredIds="nonsense").json()["message"]


def test_malformed_id_among_repeated_ids_is_400(api, chain):
    response = graph(api, chain, filteredIds=["service--a", "unknown--x"])
    assert response.status_code == 400 and response.json()["code"] == "bad_request"


# --- formats and headers ----------------------------------------------------------------------


def test_svg_is_served_as_an_image_with_a_locked_down_policy(api, chain):
    response = graph(api, chain, "graph/svg")
    assert response.status_code == 200
    assert response["Content-Type"] == "image/svg+xml"
    assert response["Content-Security-Policy"] == "default-src 'none'; style-src 'unsafe-inline'"
    assert response["X-Content-Type-Options"] == "nosniff"
    root = parse_svg(response)
    assert root.tag == f"{SVG}svg"


def test_mermaid_is_plain_text_starting_with_the_flowchart_header(api, chain):
    response = graph(api, chain, "graph/mermaid")
    assert response.status_code == 200
    assert response["Content-Type"] == "text/plain; charset=utf-8"
    lines = response.content.decode().splitlines()
    assert lines[0] == "flowchart LR"
    assert "    service__a --> messaging__t1" in lines
    assert "    messaging__t2 --> service__c" in lines
    assert '    messaging__t1(["t1"])' in lines


def test_json_graph_is_json(api, chain):
    response = graph(api, chain)
    assert response["Content-Type"].startswith("application/json")
    assert response["X-Content-Type-Options"] == "nosniff"


# --- tenancy ----------------------------------------------------------------------------------


@pytest.mark.parametrize("fmt", FORMATS)
def test_foreign_and_missing_projects_are_404(api, factory, fmt):
    other = factory.key_client(factory.org("other"))
    foreign = new_project(other, "Secret")
    new_service(other, foreign, {"name": "Hidden"})
    assert graph(other, foreign, fmt).status_code == 200  # its owner sees it
    for project_id in (foreign, "missing-abcdefgh", "x"):
        response = graph(api, project_id, fmt)
        assert response.status_code == 404, project_id
        assert response.json()["code"] == "project_not_found"
        assert b"Hidden" not in response.content


@pytest.mark.parametrize("fmt", FORMATS)
def test_missing_project_is_404_before_a_bad_query(api, fmt):
    response = graph(api, "missing-abcdefgh", fmt, depth="x")
    assert response.status_code == 404
    assert response.json()["code"] == "project_not_found"


def test_empty_project_renders_in_every_format(api, project):
    body = graph_json(api, project)
    assert body["nodes"] == [] and body["edges"] == [] and body["categories"] == []
    assert body["width"] > 0 and body["height"] > 0
    mermaid = graph(api, project, "graph/mermaid")
    assert mermaid.status_code == 200
    assert mermaid.content.decode().splitlines() == ["flowchart LR"]
    svg = graph(api, project, "graph/svg")
    assert svg.status_code == 200
    root = parse_svg(svg)
    texts = [t.text for t in root.iter(f"{SVG}text")]
    assert any(text and text.startswith("Nothing to show") for text in texts)


# --- determinism and shared coordinates -------------------------------------------------------


@pytest.mark.parametrize("fmt", FORMATS)
def test_two_requests_give_identical_bytes(api, chain, fmt):
    new_service(
        api,
        chain,
        {
            "name": "D",
            "consumes": [{"name": "t1"}, {"name": "t2"}],
            "category": "Search",
            "produces": [{"name": "t0"}],
        },
    )
    first = graph(api, chain, fmt)
    second = graph(api, chain, fmt)
    assert first.status_code == second.status_code == 200
    assert first.content == second.content


def test_json_and_svg_share_coordinates(api, chain):
    new_service(api, chain, {"name": "Lonely", "category": "Search"})
    body = graph_json(api, chain)
    root = parse_svg(graph(api, chain, "graph/svg"))
    groups = {g.get("data-entity-id"): g for g in root.iter(f"{SVG}g") if g.get("data-entity-id")}
    assert set(groups) == node_ids(body)
    root_width = float(root.get("width"))
    root_height = float(root.get("height"))
    assert (root_width, root_height) == (body["width"], body["height"])
    for node in body["nodes"]:
        rect = groups[node["id"]].find(f"{SVG}rect")
        assert float(rect.get("x")) == node["x"] and float(rect.get("y")) == node["y"]
        assert float(rect.get("width")) == node["width"]
        assert float(rect.get("height")) == node["height"]
        assert rect.get("fill") == node["color"]
    paths = {
        (p.get("data-source"), p.get("data-target"))
        for p in root.iter(f"{SVG}path")
        if p.get("data-source")
    }
    assert paths == edge_pairs(body)


# --- query budget -----------------------------------------------------------------------------


@pytest.mark.parametrize("count", [2, 12])
def test_graph_reads_in_a_constant_number_of_queries(
    api, project, django_assert_max_num_queries, count
):
    for index in range(count):
        new_service(
            api,
            project,
            {
                "name": f"Svc {index}",
                "category": f"Cat {index % 3}",
                "produces": [{"name": f"topic.{index}"}],
                "consumes": [{"name": f"topic.{(index + 1) % count}"}],
            },
        )
    with django_assert_max_num_queries(4):
        body = graph_json(api, project)
    assert len(body["nodes"]) == 2 * count
    with django_assert_max_num_queries(4):
        assert graph(api, project, "graph/svg").status_code == 200
    with django_assert_max_num_queries(4):
        assert graph(api, project, "graph/mermaid").status_code == 200


# --- control characters -----------------------------------------------------------------------


def test_names_with_control_characters_are_refused_so_the_svg_stays_well_formed(api, project):
    response = api.post(
        f"/v1/projects/{project}/services",
        {"name": "Bell\x07Service", "produces": [{"name": "esc\x1b[31mred"}]},
        content_type="application/json",
    )
    assert response.status_code == 400
    assert {v["field"] for v in response.json()["violations"]} == {"name", "produces[0].name"}
    new_service(api, project, {"name": "Tab\tand space", "description": "two\nlines"})
    parse_svg(graph(api, project, "graph/svg"))


@pytest.mark.parametrize(
    "breaking", ["\n", "\r", "\u2028", "\u2029", "\u0085", "\u202e", "\u202a", "\u2066", "\u2069"]
)
def test_a_name_is_one_line_without_bidi_overrides(api, project, breaking):
    """A browser's text box drops a line break, so the editor's next save renamed such a
    service; a name's line break made a fake "owner:" line in its tooltip; and an override
    turned the text around it ("evil\u202etxt.exe" reads "evilexe.txt"). Every name is
    refused so: the service's, its category, owner and flows, a topic's and its extras'
    keys. A description may have lines."""
    name = f"evil{breaking}txt"
    body = {
        "name": name,
        "category": name,
        "owner": name,
        "flows": [name],
        "description": f"fine{breaking}here",
        "extras": {name: "v"},
        "produces": [{"name": name, "category": name, "owner": name, "flows": [name]}],
    }
    response = api.post(f"/v1/projects/{project}/services", body, content_type="application/json")
    assert response.status_code == 400, response.content
    fields = {v["field"] for v in response.json()["violations"]}
    assert fields == {
        "name",
        "category",
        "owner",
        "flows[0]",
        f"extras.{name}",
        "produces[0].name",
        "produces[0].category",
        "produces[0].owner",
        "produces[0].flows[0]",
    }
    assert "one line" in response.json()["violations"][0]["message"]
    assert api.get(f"/v1/projects/{project}/services").json() == []
    # the marks right-to-left names need are names' characters, and a break at either end
    # is trimmed, as spaces are (a name read from a file)
    new_service(api, project, {"name": "\u05e9\u05dc\u05d5\u05dd API\u200f"})
    assert new_service(api, project, {"name": "Checkout\n"})["name"] == "Checkout"


def test_a_time_before_the_project_existed_says_so_in_the_header(api, project):
    """The graph of 2020 was a bare "Nothing to show yet", which did not say why."""
    created = api.get(f"/v1/projects/{project}").json()["createdAt"]
    root = parse_svg(graph(api, project, "graph/svg", at="2020-01-01T00:00:00Z"))
    when = next(t for t in root.iter(f"{SVG}text") if t.get("class") == "when")
    assert when.text == (
        "As of 2020-01-01 00:00:00 UTC, before the project was created "
        f"({created[:10]} {created[11:16]} UTC)"
    )
    assert any(t.text == "Nothing to show yet." for t in root.iter(f"{SVG}text"))


def test_a_focus_that_matches_nothing_says_so_not_that_the_project_is_empty(api, project):
    new_service(api, project, {"name": "Checkout"})
    root = parse_svg(graph(api, project, "graph/svg", filteredIds="service--gone"))
    empty = [t.text for t in root.iter(f"{SVG}text") if t.get("class") == "empty"]
    assert empty == ["Nothing in the project matches this focus."]


@pytest.mark.parametrize(
    "path, renders",
    [
        ("graph", ["application/json"]),
        ("graph/mermaid", ["text/plain"]),
        ("graph/svg", ["image/svg+xml"]),
    ],
)
def test_options_says_what_each_rendering_sends_and_that_it_takes_no_body(
    api, project, path, renders
):
    response = api.options(f"/v1/projects/{project}/{path}")
    assert response.status_code == 200
    assert response.json()["renders"] == renders
    assert "parses" not in response.json()  # GET only: nothing to send


def test_options_on_a_writable_path_says_it_parses_json(api, project):
    response = api.options(f"/v1/projects/{project}/services")
    assert response.json()["renders"] == ["application/json"]
    assert response.json()["parses"] == ["application/json"]


@pytest.mark.parametrize(
    "path", ["graph", "graph/svg", "services", "history", "", "public-share-token", "pinned"]
)
def test_options_on_a_project_that_is_not_there_is_404_as_get_is(api, factory, path):
    """It answered 200 with the route's description for any id; every other method is 404."""
    other = factory.org("other")
    from diagrams.models import Project

    Project.objects.create(id="theirs-aaaaaaaa", organization=other, name="Theirs")
    for project in ("nope-aaaaaaaa", "theirs-aaaaaaaa", "NOT-A-VALID-ID"):
        url = f"/v1/projects/{project}/{path}".rstrip("/")
        if path == "pinned":
            url = f"/v1/pinned/{project}"
        response = api.options(url)
        assert response.status_code == 404, url
        other = api.delete(url) if path == "pinned" else api.get(url)
        assert response.json()["code"] == other.json()["code"] == "project_not_found"
