"""The zoom buttons in a real browser: a drawing quick to draw anew is drawn at its new size
at once; a big one (a thousand boxes and more: a quarter to half a second a view) is first
scaled as it is, in the next frame, and drawn anew, sharp, once the presses rest. And a big
drawing keeps in the page only the boxes and edges its view reaches."""

import re
import xml.etree.ElementTree as ET

import pytest
from playwright.sync_api import expect

from accounts.actors import actor_for_membership
from conftest import requires_chromium
from diagrams.project_writes import project_create
from diagrams.tests.helpers import signed_in, write_services

pytestmark = [
    pytest.mark.browser,
    requires_chromium,
]

LAPTOP = {"width": 1280, "height": 800}

# Every change to the drawing's viewBox (drawn anew) and to its transform (scaled as it is),
# and every transition set on it (a glide)
RECORD_DRAWS = """() => {
  window.draws = [];
  window.glides = [];
  if (window.recording) return;
  window.recording = true;
  var svg = document.querySelector(".graph-stage svg");
  new MutationObserver(function (changes) {
    changes.forEach(function (change) {
      if (change.attributeName === "viewBox") window.draws.push("viewBox");
      else if (svg.style.transform) window.draws.push(svg.style.transform);
      if (svg.style.transition) window.glides.push(svg.style.transition);
    });
  }).observe(svg, { attributeFilter: ["viewBox", "style"] });
}"""

STYLE = "svg => [svg.style.transform, svg.style.transition]"


def ring(membership, name: str, size: int) -> str:
    """A project of `size` services, each producing its own topic and consuming the next's."""
    project = project_create(actor=actor_for_membership(membership), name=name, description="").id
    write_services(
        membership,
        project,
        (
            {
                "name": f"Service {i}",
                "produces": [{"name": f"t{i}"}],
                "consumes": [{"name": f"t{(i + 1) % size}"}],
            }
            for i in range(size)
        ),
    )
    return project


def width(page) -> float:
    return page.locator(".graph-stage svg > rect").first.bounding_box()["width"]


def test_plus_on_a_big_drawing_is_shown_at_once_and_drawn_sharp_when_the_presses_rest(
    browser, live_server, factory
):
    membership = factory.member(factory.org("zoom"), role="admin")
    small, big = ring(membership, "Small ring", 6), ring(membership, "Big ring", 500)
    context = signed_in(browser, membership, live_server.url, viewport=LAPTOP)
    page = context.new_page()
    errors = []
    page.on("pageerror", lambda error: errors.append(str(error)))

    # a small drawing: + draws it anew at once, never scaled as it is
    page.goto(f"{live_server.url}/projects/{small}/")
    page.locator("[data-zoom=fit]").click()
    before = width(page)
    page.evaluate(RECORD_DRAWS)
    page.locator("[data-zoom=in]").click()
    assert page.evaluate("window.draws") == ["viewBox"]
    assert width(page) == pytest.approx(before * 1.4, rel=0.01)
    page.locator(".graph-stage").focus()
    page.evaluate(RECORD_DRAWS)
    page.keyboard.press("+")  # the keys as the buttons
    assert page.evaluate("window.draws") == ["viewBox"]
    assert width(page) == pytest.approx(before * 1.96, rel=0.01)
    # an arrow only moves it: moved live (never blurred), drawn anew once it rests
    page.evaluate(RECORD_DRAWS)
    page.keyboard.press("ArrowRight")
    page.wait_for_timeout(500)
    draws = page.evaluate("window.draws")
    assert "translate(" in draws[0] and draws[-1] == "viewBox", draws
    assert draws.count("viewBox") == 1 and page.evaluate("window.glides") == []

    # a big one: scaled by the compositor first (+ twice: 1.4, then 1.96), drawn anew once
    page.goto(f"{live_server.url}/projects/{big}/")
    expect(page.locator(".graph-stage g.node").first).to_be_attached()
    before = width(page)
    page.evaluate(RECORD_DRAWS)
    page.locator("[data-zoom=in]").click()
    page.locator("[data-zoom=in]").click()
    page.wait_for_timeout(800)
    draws = page.evaluate("window.draws")
    assert draws[-1] == "viewBox" and draws.count("viewBox") == 1, draws
    assert any("scale(1.4" in d for d in draws) and any("scale(1.96" in d for d in draws)
    assert set(page.evaluate("window.glides")) == {"transform 120ms ease-out"}  # animated
    # and nothing of it left on the drawing (a transition left would make a drag lag)
    assert page.locator(".graph-stage svg").evaluate(STYLE) == ["", ""]
    assert width(page) == pytest.approx(before * 1.96, rel=0.01)

    # Fit, back from one press of +: scaled down first too, then drawn anew once
    page.locator("[data-zoom=fit]").click()
    page.wait_for_timeout(800)
    fitted = width(page)
    page.locator("[data-zoom=in]").click()
    page.wait_for_timeout(800)
    page.evaluate(RECORD_DRAWS)
    page.locator("[data-zoom=fit]").click()
    page.wait_for_timeout(800)
    draws = page.evaluate("window.draws")
    assert draws[-1] == "viewBox" and draws.count("viewBox") == 1, draws
    assert any("scale(0.714" in d for d in draws), draws
    assert width(page) == pytest.approx(fitted, rel=0.01)

    # the keys as the buttons: + then - is scaled twice and ends where it was drawn, so it
    # is not drawn anew (a 300 ms redraw at 3,000 services for the same picture)
    page.locator(".graph-stage").focus()
    page.evaluate(RECORD_DRAWS)
    page.keyboard.press("+")
    page.keyboard.press("-")
    page.wait_for_timeout(800)
    draws = page.evaluate("window.draws")
    assert draws.count("viewBox") == 0 and any("scale(1.4" in d for d in draws), draws
    assert page.locator(".graph-stage svg").evaluate(STYLE) == ["", ""]  # sharp: no scaling
    assert width(page) == pytest.approx(fitted, rel=0.01)
    # and one more + is drawn anew once it rests, as ever
    page.evaluate(RECORD_DRAWS)
    page.keyboard.press("+")
    page.wait_for_timeout(800)
    draws = page.evaluate("window.draws")
    assert draws[-1] == "viewBox" and draws.count("viewBox") == 1, draws
    assert width(page) == pytest.approx(fitted * 1.4, rel=0.01)
    assert errors == []
    context.close()

    # a member who asked for less motion: scaled at once, not animated
    context = signed_in(
        browser, membership, live_server.url, viewport=LAPTOP, reduced_motion="reduce"
    )
    page = context.new_page()
    page.goto(f"{live_server.url}/projects/{big}/")
    expect(page.locator(".graph-stage g.node").first).to_be_attached()
    page.evaluate(RECORD_DRAWS)
    page.locator("[data-zoom=in]").click()
    page.wait_for_timeout(800)
    draws = page.evaluate("window.draws")
    assert any("scale(1.4" in d for d in draws) and draws[-1] == "viewBox", draws
    assert page.evaluate("window.glides") == []
    context.close()


SVG = "{http://www.w3.org/2000/svg}"
# each box in the page: its id and rect; each edge: its ends; the drawing's viewBox
IN_PAGE = """() => {
  const svg = document.querySelector(".graph-stage svg");
  return {
    viewBox: svg.getAttribute("viewBox").split(/[ ,]+/).map(Number),
    nodes: [...svg.querySelectorAll("g.nodes > g.node")].map(n => {
      const r = n.querySelector("rect");
      return [n.getAttribute("data-entity-id"), ...["x", "y", "width", "height"].map(
        a => +r.getAttribute(a))];
    }),
    edges: [...svg.querySelectorAll("g.edges > path.edge")].map(
      e => e.getAttribute("data-source") + ">" + e.getAttribute("data-target")),
  };
}"""


def served(page, url: str):
    """The drawing as the server sends it: every box (id, x, y, width, height) and every
    edge (its ends and its points' bounds), in drawing order."""
    root = ET.fromstring(page.request.get(url).text())
    nodes = [
        (
            g.get("data-entity-id"),
            *(float(g.find(f"{SVG}rect").get(a)) for a in "x y width height".split()),
        )
        for g in root.iter(f"{SVG}g")
        if "node" in (g.get("class") or "").split()
    ]
    edges = []
    for path in root.iter(f"{SVG}path"):
        if "edge" not in (path.get("class") or "").split():
            continue
        x = y = 0.0
        xs, ys = [], []
        for command, numbers in re.findall(r"([Mhc])([^Mhc]*)", path.get("d")):
            n = [float(v) for v in re.findall(r"-?[\d.]+", numbers)]
            if command == "M":
                x, y = n[0], n[1]
            elif command == "h":
                x += n[0]
            else:
                x, y = x + n[4], y + n[5]
            xs.append(x)
            ys.append(y)
        ends = path.get("data-source") + ">" + path.get("data-target")
        edges.append((ends, min(xs), min(ys), max(xs) - min(xs), max(ys) - min(ys)))
    return nodes, edges


def reached(items, view, pad=12):
    x, y, w, h = view
    return [
        item[0]
        for item in items
        if item[1] + item[3] >= x - pad
        and item[1] <= x + w + pad
        and item[2] + item[4] >= y - pad
        and item[2] <= y + h + pad
    ]


def ring_page(browser, live_server, factory, name: str, size: int, viewport=LAPTOP):
    """A member's page of a ring of `size` services, opened on a laptop (or `viewport`): the
    page, its browser context and the list its script errors go into."""
    membership = factory.member(factory.org(name), role="admin")
    project = ring(membership, name.capitalize() + " ring", size)
    context = signed_in(browser, membership, live_server.url, viewport=viewport)
    page = context.new_page()
    errors = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(f"{live_server.url}/projects/{project}/")
    expect(page.locator(".graph-stage g.node").first).to_be_attached()
    return page, context, errors


def test_a_big_drawing_keeps_in_the_page_only_what_its_view_reaches(browser, live_server, factory):
    """Chromium lays out every element of an SVG in the page on each new view, seen or not
    (at 3,000 services 0.7-1 s to open and 300-450 ms a zoom). A big drawing keeps in the
    page exactly the boxes and edges its drawn area reaches, in the order drawn, and brings
    the rest back as the view reaches them; hover, focus and a click work on what is shown."""
    page, context, errors = ring_page(browser, live_server, factory, "culling", 500)
    url = page.locator("[data-svg-url]").get_attribute("data-svg-url")
    nodes, edges = served(page, live_server.url + url)
    assert len(nodes) == 1000

    def shown_as_reached():
        shown = page.evaluate(IN_PAGE)
        assert [n[0] for n in shown["nodes"]] == reached(nodes, shown["viewBox"])
        assert shown["edges"] == reached(edges, shown["viewBox"])
        return shown

    # opened readable on its busiest part: some of its thousand boxes are in the page (at its
    # left, on a strip of a drawing, under 100; folded into rows and on the busiest part of
    # them, the view and its overscan reach some 300)
    shown = shown_as_reached()
    assert 0 < len(shown["nodes"]) < len(nodes) / 2 and shown["edges"]
    # a hover lights the box and its edges in view; and lets go of them where they were
    x, y, w, h = shown["viewBox"]  # the frame shows its middle half (the rest: overscan)
    first = next(
        n[0]
        for n in shown["nodes"]
        if x + w / 4 < n[1] + n[3] / 2 < x + 3 * w / 4
        and y + h / 4 < n[2] + n[4] / 2 < y + 3 * h / 4
    )
    page.locator(f'g.node[data-entity-id="{first}"]').hover()
    expect(page.locator("[data-hover-veil]")).to_have_count(1)
    expect(page.locator(".graph-stage svg > .lit").last).to_have_attribute("data-entity-id", first)
    page.mouse.move(5, 5)
    expect(page.locator("[data-hover-veil]")).to_have_count(0)
    shown_as_reached()
    # panned right by the keys: what comes into view is brought in, in drawing order
    page.locator(".graph-stage").focus()
    for _ in range(8):
        page.keyboard.press("ArrowRight")
    page.wait_for_timeout(500)
    moved = shown_as_reached()
    assert moved["viewBox"][0] > shown["viewBox"][0] and moved["nodes"] != shown["nodes"]
    # Fit: the whole drawing, every box and edge in the page in the order drawn
    page.locator("[data-zoom=fit]").click()
    page.wait_for_timeout(800)
    whole = shown_as_reached()
    assert len(whole["nodes"]) == 1000 and len(whole["edges"]) == len(edges)
    # a click on a box focuses on it: a small drawing, all of it in the page
    page.locator("[data-zoom=in]").click()
    page.wait_for_timeout(800)
    box = shown_as_reached()["nodes"][0][0]
    page.locator(f'g.node[data-entity-id="{box}"]').dispatch_event("click")
    expect(page.locator("[data-focus-name]")).not_to_have_text("whole project")
    expect(page.locator(".graph-stage g.node.focused")).to_have_count(1)
    assert page.locator(".graph-stage g.node").count() < 10
    assert errors == []
    context.close()


# the drawing's scale (graph units per CSS pixel) as drawn, and how many labels show
DRAWN = """() => {
  const svg = document.querySelector(".graph-stage svg");
  const labels = [...svg.querySelectorAll("g.node text")];
  return {
    scale: svg.viewBox.baseVal.width / svg.getBoundingClientRect().width,
    labels: labels.length,
    shown: labels.filter(t => t.getBoundingClientRect().width > 0).length,
  };
}"""


def test_far_out_the_drawing_leaves_its_labels_out_and_zoomed_in_it_has_them_back(
    browser, live_server, factory
):
    """A label under 3 pixels high is a grey smear, and laying its text out was most of a
    big drawing's redraw (at 3,000 services 200-390 ms a zoom from the whole graph, under
    60 without it): far out the boxes and lines are drawn without labels; their names are
    still in each box's tooltip, and they come back as the view gets near enough to read."""
    # drawings are folded toward the screen, so the whole must be big for its labels to be
    # under 3 px: 300 services in a small window (150 at a laptop's fit at 2.4 units a pixel)
    small = {"width": 720, "height": 560}
    page, context, errors = ring_page(browser, live_server, factory, "far", 300, small)
    # it opens readable: its labels are there
    opened = page.evaluate(DRAWN)
    assert opened["scale"] == pytest.approx(1.25, rel=0.02)
    assert opened["shown"] == opened["labels"] >= 300
    # the whole of it is far out: boxes and edges, no labels; a box still names itself
    page.locator("[data-zoom=fit]").click()
    page.wait_for_timeout(300)
    whole = page.evaluate(DRAWN)
    assert whole["scale"] > 4 and whole["shown"] == 0, whole
    expect(page.locator(".graph-stage g.node rect").first).to_be_visible()
    expect(page.locator(".graph-stage path.edge").first).to_be_visible()
    assert page.locator(".graph-stage g.service title").first.text_content().startswith("Service ")
    # + until 12-unit labels are 3 pixels or more: they are drawn again
    page.locator(".graph-stage").focus()
    while page.evaluate(DRAWN)["scale"] > 4:
        page.keyboard.press("+")
        page.wait_for_timeout(100)
    near = page.evaluate(DRAWN)
    assert near["shown"] == near["labels"], near
    assert errors == []
    context.close()
