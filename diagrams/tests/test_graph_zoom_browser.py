"""The zoom buttons in a real browser: a drawing quick to draw anew is drawn at its new size
at once; a big one (a thousand boxes and more: a quarter to half a second a view) is first
scaled as it is, in the next frame, and drawn anew, sharp, once the presses rest."""

import pytest
from playwright.sync_api import expect

from accounts.actors import actor_for_membership
from conftest import requires_chromium
from diagrams.services import project_create
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
    expect(page.locator(".graph-stage g.node")).to_have_count(1000)
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
    expect(page.locator(".graph-stage g.node")).to_have_count(1000)
    page.evaluate(RECORD_DRAWS)
    page.locator("[data-zoom=in]").click()
    page.wait_for_timeout(800)
    draws = page.evaluate("window.draws")
    assert any("scale(1.4" in d for d in draws) and draws[-1] == "viewBox", draws
    assert page.evaluate("window.glides") == []
    context.close()
