"""What the project page opens on, in a real browser (Playwright driving Debian's Chromium):
labels one can read, an overview of a drawing too big to read whole (which follows the view
and moves it), and a step in time that glides the boxes to their new places, unless the
member asked for less motion."""

import os
import shutil
from pathlib import Path
from urllib.parse import parse_qs, urlparse

import pytest
from playwright.sync_api import expect

from conftest import requires_chromium
from diagrams.tests.helpers import new_project, new_service, signed_in, write_services

pytestmark = [
    pytest.mark.browser,
    requires_chromium,
]

LAPTOP = {"width": 1280, "height": 720}
ROOT = Path(__file__).resolve().parents[2]
SCREENSHOT = "demo-1280x720.png"

# The on-screen height of each box label wholly inside the part of the graph's frame the
# window shows (a label hidden as too small, svg.far, has no height and is not counted).
LABELS_IN_VIEW = """() => {
  const stage = document.querySelector('.graph-stage').getBoundingClientRect();
  const top = Math.max(stage.top, 0), bottom = Math.min(stage.bottom, window.innerHeight);
  return [...document.querySelectorAll('.graph-stage g.node text')].map((t) => {
    return t.getBoundingClientRect();
  }).filter((b) => b.height > 0 && b.left >= stage.left && b.right <= stage.right &&
                   b.top >= top && b.bottom <= bottom).map((b) => b.height);
}"""
SETTLED = "() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))"


def project_page(browser, membership, url: str, project: str, **options):
    context = signed_in(browser, membership, url, viewport=options.pop("viewport", LAPTOP))
    page = context.new_page()
    errors = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(f"{url}/projects/{project}/")
    expect(page.locator(".graph-stage g.node").first).to_be_visible()
    page.evaluate(SETTLED)
    return context, page, errors


def test_the_demo_opens_with_labels_one_can_read(browser, demo):
    """At 1280 x 720 the demo opens on labels at least 9 px high (12 px text at the readable
    scale, 1.25 graph units a pixel, is 9.6 px): whole, or on its busiest part. A screenshot
    of it goes to test-results/, and to docs/screenshots/ with UPDATE_SCREENSHOTS=1."""
    context, page, errors = project_page(browser, demo["membership"], demo["url"], demo["project"])
    heights = page.evaluate(LABELS_IN_VIEW)
    assert len(heights) >= 5, heights  # boxes in view, with their words
    assert min(heights) >= 9, heights
    results = ROOT / "test-results"
    results.mkdir(exist_ok=True)
    page.screenshot(path=str(results / SCREENSHOT))
    if os.environ.get("UPDATE_SCREENSHOTS") == "1":
        (ROOT / "docs" / "screenshots").mkdir(parents=True, exist_ok=True)
        shutil.copyfile(results / SCREENSHOT, ROOT / "docs" / "screenshots" / SCREENSHOT)
    assert errors == []
    context.close()


def view_frame(page) -> dict:
    return page.locator("[data-overview-view]").bounding_box()


def test_a_drawing_too_big_to_read_whole_has_an_overview_that_follows_and_moves_the_view(
    browser, demo
):
    """A project of 180 services (60 chains of three) opens readable on part of it: the
    overview in the frame's corner shows the whole, its frame moves as the graph is panned,
    and a click in it takes the view there."""
    project = new_project(demo["client"], "Big")
    write_services(
        demo["membership"],
        project,
        [
            {
                "name": f"Chain {chain:02d} step {step}",
                "category": f"area {chain % 7}",
                "consumes": [{"name": f"c{chain}.{step}"}] if step else [],
                "produces": [{"name": f"c{chain}.{step + 1}"}] if step < 2 else [],
            }
            for chain in range(60)
            for step in range(3)
        ],
    )
    context, page, errors = project_page(browser, demo["membership"], demo["url"], project)
    overview = page.get_by_role("img", name="Overview of the whole drawing")
    expect(overview).to_be_visible()
    opened = view_frame(page)
    box = overview.bounding_box()
    assert opened["width"] < box["width"] or opened["height"] < box["height"]  # a part of it

    # the graph panned with the keys: the frame follows
    page.locator(".graph-stage").focus()
    for key in ("ArrowRight", "ArrowDown"):
        page.keyboard.press(key)
    page.evaluate(SETTLED)
    panned = view_frame(page)
    assert (panned["x"], panned["y"]) != (opened["x"], opened["y"])

    # a click in the overview, outside its frame, brings that place into view
    stage = page.locator(".graph-stage")
    viewbox = stage.locator("svg").get_attribute("viewBox")
    box = overview.bounding_box()  # (the page may have scrolled the graph into view)
    x0, y0 = box["x"], box["y"]
    candidates = [(fx, fy) for fx in (0.1, 0.5, 0.9) for fy in (0.15, 0.5, 0.85)]

    def outside(point):
        return not (
            panned["x"] <= point[0] <= panned["x"] + panned["width"]
            and panned["y"] <= point[1] <= panned["y"] + panned["height"]
        )

    points = [(x0 + fx * box["width"], y0 + fy * box["height"]) for fx, fy in candidates]
    x, y = max(
        filter(outside, points),
        key=lambda p: (
            abs(p[0] - panned["x"] - panned["width"] / 2)
            + abs(p[1] - panned["y"] - panned["height"] / 2)
        ),
    )
    page.mouse.click(x, y)
    page.evaluate(SETTLED)
    expect(stage.locator("svg")).not_to_have_attribute("viewBox", viewbox)
    moved = view_frame(page)
    assert moved["x"] - 1 <= x <= moved["x"] + moved["width"] + 1, (x, moved)
    assert moved["y"] - 1 <= y <= moved["y"] + moved["height"] + 1, (y, moved)
    # Fit shows the whole drawing: no overview then
    page.get_by_role("button", name="Fit").click()
    expect(overview).to_be_hidden()
    assert errors == []
    context.close()


def test_a_drawing_read_whole_has_no_overview(browser, demo):
    """Two services fit the frame at a size one reads: nothing to find one's way in."""
    project = new_project(demo["client"], "Pair")
    new_service(demo["client"], project, {"name": "Maker", "produces": [{"name": "made"}]})
    new_service(demo["client"], project, {"name": "Taker", "consumes": [{"name": "made"}]})
    context, page, errors = project_page(browser, demo["membership"], demo["url"], project)
    assert page.locator("[data-overview]").is_hidden()
    for _ in range(4):  # a part of it: now there is
        page.get_by_role("button", name="Zoom in").click()
    expect(page.locator("[data-overview]")).to_be_visible()
    page.get_by_role("button", name="Fit").click()
    expect(page.locator("[data-overview]")).to_be_hidden()
    assert errors == []
    context.close()


# Every transition of a box's place or opacity that starts, from now on.
WATCH_TRANSITIONS = """() => {
  window.glides = [];
  if (window.watching) return;
  window.watching = true;
  document.addEventListener('transitionrun', (event) => {
    const node = event.target.closest && event.target.closest('.graph-stage g.node');
    if (node) window.glides.push([node.getAttribute('data-entity-id'), event.propertyName]);
  }, true);
}"""


def step_back(page, changes: int) -> None:
    """Some changes back on the Time travel slider, and their drawing shown."""
    at = page.locator("[data-at]")
    before = at.input_value()
    slider = page.locator("[data-timeline]")
    slider.focus()
    for _ in range(changes):
        slider.press("ArrowLeft")
    slider.press("Tab")  # leaving the slider draws at once
    expect(at).not_to_have_value(before)
    expect(page.locator("[data-status]")).to_have_text("")


def test_a_step_in_time_glides_the_boxes_unless_less_motion_is_asked_for(browser, demo):
    """The same view at another moment: the boxes in both move from their old places to
    their new ones, new ones fade in. With reduced motion asked for, they are simply there.
    Three changes back, before Legacy Mailer was deleted: the demo's last change (Loyalty
    reading one topic more) adds an edge and moves no box: nothing is animated there."""
    context, page, errors = project_page(browser, demo["membership"], demo["url"], demo["project"])
    asked = []
    page.on("request", lambda request: "/graph/svg" in request.url and asked.append(request.url))
    page.evaluate(WATCH_TRANSITIONS)
    step_back(page, 3)
    # a step in time keeps the shape of the drawing shown (the page's own drawing is the
    # server's 16:9): the whole project's drawing follows itself only within one shape
    assert "aspect" not in parse_qs(urlparse(asked[-1]).query)
    page.evaluate(SETTLED)  # (a transition starts in the frame after its change)
    glides = page.evaluate("() => window.glides")
    assert glides, "no box moved or faded in"
    assert {prop for _, prop in glides} <= {"transform", "opacity"}
    expect(page.locator(".graph-stage g.node[style*='transition']")).to_have_count(0)

    page.emulate_media(reduced_motion="reduce")
    page.locator("[data-now]").click()  # back to now, and the same step again
    expect(page.locator("[data-at]")).to_have_value("")
    expect(page.locator("[data-timeline-label]")).to_have_text("now")
    page.evaluate(WATCH_TRANSITIONS)
    step_back(page, 3)
    page.evaluate(SETTLED)
    assert page.evaluate("() => window.glides") == []
    assert page.locator(".graph-stage g.node[style*='transition']").count() == 0
    assert errors == []
    context.close()
