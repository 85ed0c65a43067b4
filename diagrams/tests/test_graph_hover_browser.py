"""Hovering a box in the graph, in a real browser: the box, its edges and the boxes at their
other ends stand out, everything else fades behind a veil, and leaving the box gives the
graph back as it was, to the pixel and in its document."""

import base64

import pytest
from playwright.sync_api import expect

from conftest import requires_chromium
from diagrams.tests.helpers import new_project, new_service, signed_in

LAPTOP = {"width": 1280, "height": 800}

pytestmark = [
    pytest.mark.browser,
    requires_chromium,
]

MEAN = """async (png) => {
  const image = new Image();
  image.src = "data:image/png;base64," + png;
  await image.decode();
  const canvas = document.createElement("canvas");
  canvas.width = image.width; canvas.height = image.height;
  const context = canvas.getContext("2d");
  context.drawImage(image, 0, 0);
  const data = context.getImageData(0, 0, canvas.width, canvas.height).data;
  let sum = 0;
  for (let i = 0; i < data.length; i += 4) sum += data[i] + data[i + 1] + data[i + 2];
  return sum / (data.length / 4) / 3;
}"""


def test_hover_lights_a_box_and_its_neighbours_and_veils_the_rest(browser, live_server, factory):
    membership = factory.member(factory.org("hover"), role="admin")
    client = factory.member_client(membership, enforce_csrf=False)
    project = new_project(client, "Two lines")
    for body in (
        {"name": "Alpha", "category": "c1", "produces": [{"name": "one"}]},
        {"name": "Bravo", "category": "c1", "consumes": [{"name": "one"}]},
        {"name": "Charlie", "category": "c1", "produces": [{"name": "two"}]},
        {"name": "Delta", "category": "c1", "consumes": [{"name": "two"}]},
    ):
        new_service(client, project, body)
    context = signed_in(browser, membership, live_server.url, viewport=LAPTOP)
    page = context.new_page()
    scratch = context.new_page()  # decodes screenshots (the app's pages forbid data: images)
    errors = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(f"{live_server.url}/projects/{project}/")
    nodes = page.locator(".graph-stage g.node")
    expect(nodes).to_have_count(6)
    page.mouse.move(0, 0)

    def box(entity_id):
        return page.locator(f'.graph-stage g.node[data-entity-id="{entity_id}"]')

    def shot(entity_id) -> bytes:
        return box(entity_id).locator("rect").screenshot(animations="disabled")

    def brightness(png: bytes) -> float:
        return scratch.evaluate(MEAN, base64.b64encode(png).decode())

    svg = page.locator(".graph-stage svg")
    document_before = svg.evaluate("svg => svg.innerHTML")
    before = {name: shot(f"service--{name}") for name in ("bravo", "charlie", "delta")}
    title = page.locator(".graph-stage g.header text.title")
    title_before = title.screenshot(animations="disabled")
    box("service--alpha").hover()
    # its edge and its neighbours are lit; the rest is behind the veil
    lit = page.locator(".graph-stage .lit")
    expect(lit).to_have_count(3)  # Alpha, the edge to "one", "one"
    assert {
        e.get_attribute("data-entity-id") for e in page.locator(".graph-stage g.node.lit").all()
    } == {"service--alpha", "messaging--one"}
    expect(page.locator(".graph-stage path.edge.lit")).to_have_attribute(
        "data-target", "messaging--one"
    )
    expect(nodes).to_have_count(6)  # moved above the veil, not copied
    # Bravo is two steps away (Alpha -> one -> Bravo): veiled like Charlie's line
    for name in ("bravo", "charlie", "delta"):
        veiled = shot(f"service--{name}")
        assert brightness(veiled) > brightness(before[name]) + 40, name
    # the title is no part of the graph: not veiled
    assert title.screenshot(animations="disabled") == title_before
    # the lit edge is drawn in the accent colour, over the veil
    assert page.locator(".graph-stage path.edge.lit").evaluate(
        "edge => getComputedStyle(edge).stroke"
    ) != page.locator(".graph-stage path.edge:not(.lit)").first.evaluate(
        "edge => getComputedStyle(edge).stroke"
    )
    # leaving gives the graph back as it was
    page.mouse.move(0, 0)
    expect(lit).to_have_count(0)
    assert svg.evaluate("svg => svg.innerHTML") == document_before
    for name in ("bravo", "charlie", "delta"):
        assert shot(f"service--{name}") == before[name]
    # hovering from one box straight onto another lights the second alone
    box("service--charlie").hover()
    expect(page.locator(".graph-stage g.node.lit")).to_have_count(2)
    box("service--delta").hover()
    assert {
        e.get_attribute("data-entity-id") for e in page.locator(".graph-stage g.node.lit").all()
    } == {"service--delta", "messaging--two"}
    expect(page.locator("[data-hover-veil]")).to_have_count(1)
    assert errors == []
    context.close()
