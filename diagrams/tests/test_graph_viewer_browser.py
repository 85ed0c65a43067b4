"""The graph viewer in a real browser (Playwright driving Debian's Chromium), on the demo
project (20 services, a graph about ten times wider than high): the whole graph fits on load
and on Fit, zooming keeps it in view, the keys pan and zoom, every control says what the
graph shows, a vertical swipe on a phone scrolls the page, and a shared page offers no past."""

import re
from datetime import timedelta

import pytest
from django.template.loader import render_to_string
from django.utils import timezone
from playwright.sync_api import expect

from accounts.services import session_start
from conftest import requires_chromium
from diagrams.tests.helpers import new_project, new_service, post

pytestmark = [
    pytest.mark.browser,
    requires_chromium,
]

DESKTOP = {"width": 1366, "height": 800}
PHONE = {"width": 390, "height": 844}


def member_page(browser, demo, **options):
    context = browser.new_context(**options)
    context.add_cookies(
        [
            {
                "name": "__session",
                "value": session_start(membership=demo["membership"]),
                "url": demo["url"],
            }
        ]
    )
    page = context.new_page()
    errors = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(f"{demo['url']}/projects/{demo['project']}/")
    expect(page.locator(".graph-stage g.node").first).to_be_visible()
    return context, page, errors


def boxes(page):
    """The stage's box and the graph's (its white background covers all it draws)."""
    stage = page.locator(".graph-stage").bounding_box()
    graph = page.locator(".graph-stage svg > rect").first.bounding_box()
    return stage, graph


def inside(graph, stage, slack=1.5) -> bool:
    return (
        graph["x"] >= stage["x"] - slack
        and graph["y"] >= stage["y"] - slack
        and graph["x"] + graph["width"] <= stage["x"] + stage["width"] + slack
        and graph["y"] + graph["height"] <= stage["y"] + stage["height"] + slack
    )


def fills(graph, stage) -> bool:
    """Fitted: the graph spans (nearly) the stage's whole width or whole height."""
    return graph["width"] >= 0.95 * (stage["width"] - 2) or graph["height"] >= 0.95 * (
        stage["height"] - 2
    )


def opens_readable(page, graph, stage) -> bool:
    """A graph too big to read fitted into the frame opens at the smallest readable size (1.25
    units a pixel), bigger than the frame; one that can be read whole opens whole. (The demo
    was a strip 4242 x 398 units that opened readable at its left; since the drawings are
    folded into rows of a screen's shape, such a view opens on the busiest part.)"""
    width, height = (
        float(page.locator(".graph-stage svg > rect").first.get_attribute(side))
        for side in ("width", "height")
    )
    inner = page.locator(".graph-stage").evaluate("s => [s.clientWidth, s.clientHeight]")
    if max(width / inner[0], height / inner[1], 1) <= 1.25 * 1.01:
        return inside(graph, stage) and fills(graph, stage)
    return graph["width"] == pytest.approx(width / 1.25, rel=0.02) and (
        graph["width"] > stage["width"] or graph["height"] > stage["height"]
    )


def centred(graph, stage, slack=2.0) -> bool:
    return (
        abs(graph["x"] + graph["width"] / 2 - stage["x"] - stage["width"] / 2) <= slack
        and abs(graph["y"] + graph["height"] / 2 - stage["y"] - stage["height"] / 2) <= slack
    )


def test_the_graph_opens_readable_fits_on_fit_and_zooming_keeps_it_in_view(browser, demo):
    context, page, errors = member_page(browser, demo, viewport=DESKTOP)
    stage, graph = boxes(page)
    assert opens_readable(page, graph, stage)
    # a flat, wide graph gets a low frame, not a band of white under it
    assert stage["height"] <= max(graph["height"] + 4, 12 * 16 + 2)
    page.locator("[data-zoom=fit]").click()
    stage, graph = boxes(page)
    assert inside(graph, stage) and fills(graph, stage) and centred(graph, stage)

    # + zooms around the centre of what is visible: the centre stays the centre
    page.locator("[data-zoom=in]").click()
    page.locator("[data-zoom=in]").click()
    stage, zoomed = boxes(page)
    assert zoomed["width"] > 1.9 * graph["width"]
    assert centred(zoomed, stage)

    # dragging far to the right stops when the graph's left edge reaches the frame's
    page.mouse.move(stage["x"] + 100, stage["y"] + stage["height"] / 2)
    page.mouse.down()
    page.mouse.move(stage["x"] + 900, stage["y"] + stage["height"] / 2, steps=8)
    page.mouse.up()
    stage, dragged = boxes(page)
    assert dragged["x"] != zoomed["x"]
    assert stage["x"] - 1 <= dragged["x"] <= stage["x"] + 1.5
    assert dragged["x"] + dragged["width"] > stage["x"] + stage["width"]

    # − as often as one likes: the graph stays in the frame, never drifts out of it
    for _ in range(4):
        page.locator("[data-zoom=out]").click()
        stage, graph = boxes(page)
        assert graph["x"] <= stage["x"] + stage["width"] and graph["x"] + graph["width"] >= 0
    assert inside(graph, stage) and fills(graph, stage)

    page.locator("[data-zoom=in]").click()
    page.locator("[data-zoom=fit]").click()
    stage, graph = boxes(page)
    assert inside(graph, stage) and fills(graph, stage) and centred(graph, stage)

    # a fitted graph stays fitted when the window changes size
    page.set_viewport_size({"width": 1000, "height": 700})
    page.wait_for_timeout(200)
    stage, graph = boxes(page)
    assert stage["width"] < 800
    assert inside(graph, stage) and fills(graph, stage) and centred(graph, stage)
    assert errors == []
    context.close()


def first_layout(context, url: str, *, script: bool) -> dict:
    """Where the page lays out the graph's frame, the drawing in it and the tables under it:
    as first laid out, before graph-viewer.js and project-page.js (held back), or once the
    scripts have placed them."""
    page = context.new_page()
    if not script:
        page.route(
            re.compile(r".*/(graph-viewer|project-page|share-page)[^/]*\.js$"),
            lambda r, q: r.abort(),
        )
    page.goto(url)
    stage = page.locator(".graph-stage")
    expect(stage.locator("g.node").first).to_be_attached()
    if script:  # sizeStage writes the height it computed
        expect(stage).to_have_attribute("style", re.compile(r"(^|;)\s*height: \d"))
        if "at=" in url:  # and whatever the page would read for a moment has come
            page.wait_for_load_state("networkidle")
    svg = stage.locator("svg").first.bounding_box()
    heading = page.locator("#services-heading")
    focus = page.locator(".focus-label").bounding_box()
    chat = page.locator("[data-chat-form]")
    links = page.locator(".project-links")
    found = {
        "frame": stage.bounding_box()["height"],
        "drawing": (svg["x"], svg["y"], svg["width"], svg["height"]),
        "tables": heading.bounding_box()["y"] if heading.count() else None,
        # the Services table's columns, and what it lists (the rows of a moment asked for)
        "columns": page.locator(".services-table th").evaluate_all(
            "cells => cells.map(cell => cell.getBoundingClientRect().x)"
        ),
        "rows": page.locator('[data-rows="services"]').all_inner_texts(),
        "headings": page.locator(".entity-lists h2").all_inner_texts(),
        # Time travel's place and words for the moment shown
        "slider": page.locator("[data-timeline]").evaluate(
            "slider => [slider.value, slider.getAttribute('aria-valuetext'),"
            " document.querySelector('[data-timeline-label]').textContent]"
        )
        if page.locator("[data-timeline]").count()
        else None,
        # the Show menu's choice, as wide as it (and what follows it on the row)
        "menu": page.locator("[data-group-filter]").evaluate(
            "menu => [menu.value, menu.selectedOptions[0].text, menu.getBoundingClientRect().width,"
            " menu.closest('label').nextElementSibling.getBoundingClientRect().x]"
        ),
        # the toolbar's words for the focus, the chat under its note of a past moment, the
        # links beside the count of services then
        "focus": (page.locator(".focus-label").inner_text(), focus["x"], focus["width"]),
        "chat": chat.bounding_box()["y"] if chat.count() else None,
        "links": links.bounding_box()["x"] if links.count() else None,
    }
    page.close()
    return found


def test_the_graph_frame_is_laid_out_before_the_scripts_run_so_nothing_jumps(browser, demo):
    """The page used to open with a frame the height of the window, which the script then
    made the graph's own (for the demo at 1366 x 800: 608 pixels to 251), and everything under
    it jumped up; the drawing moved inside it, and Find appeared above the tables and moved
    them down. Wide, tall and tiny drawings, on a laptop, a small window and a phone, on a
    member's page and a shared one: the same layout before the scripts as after."""
    client = demo["client"]
    tall = new_project(client, "Pairs")  # twelve separate pairs, stacked: higher than wide
    for i in range(12):
        new_service(client, tall, {"name": f"Svc {i}", "produces": [{"name": f"topic.{i}"}]})
    tiny = new_project(client, "Tiny")
    new_service(client, tiny, {"name": "Alone"})
    token = post(client, f"/v1/projects/{demo['project']}/public-share-token").json()["token"]
    pages = [f"/projects/{p}/" for p in (demo["project"], tall, tiny)] + [f"/share/{token}/"]
    # an address asking for a view (a link from the history page, a reload, a bookmark): the
    # server draws that view in the page too (it was left to the script, and shifted 0.125)
    then = (timezone.now() - timedelta(days=30)).strftime("%Y-%m-%dT%H:%M:%SZ")
    pages += [
        f"/projects/{demo['project']}/?focus=category--fulfilment&depth=1",
        f"/projects/{demo['project']}/?at={then}",
        f"/projects/{demo['project']}/?focus=category--fulfilment&depth=0&at={then}",
        f"/projects/{demo['project']}/?focus=service--legacy-mailer&at={then}",  # deleted since
        f"/share/{token}/?filteredIds=category--fulfilment&depth=1",
    ]
    for viewport in (DESKTOP, {"width": 1000, "height": 700}, PHONE):
        context = browser.new_context(viewport=viewport)
        context.add_cookies(
            [
                {
                    "name": "__session",
                    "value": session_start(membership=demo["membership"]),
                    "url": demo["url"],
                }
            ]
        )
        for path in pages:
            before = first_layout(context, demo["url"] + path, script=False)
            after = first_layout(context, demo["url"] + path, script=True)
            where = (viewport, path, before, after)
            assert after["frame"] == pytest.approx(before["frame"], abs=2), where
            assert after["drawing"] == pytest.approx(before["drawing"], abs=2), where
            assert after["focus"][0] == before["focus"][0], where
            assert after["focus"][1:] == pytest.approx(before["focus"][1:], abs=1), where
            assert after["chat"] == pytest.approx(before["chat"], abs=1), where
            assert after["links"] == pytest.approx(before["links"], abs=1), where
            assert after["menu"][:2] == before["menu"][:2], where
            if before["slider"] and "at=" in path:
                assert after["slider"] == before["slider"], where
            elif before["slider"]:
                assert (after["slider"][0], after["slider"][2]) == (before["slider"][0], "now"), (
                    where
                )
            assert after["menu"][2:] == pytest.approx(before["menu"][2:], abs=1), where
            if path.startswith("/projects/"):
                assert after["tables"] == pytest.approx(before["tables"], abs=2), where
                assert after["columns"] == pytest.approx(before["columns"], abs=1), where
                assert (after["rows"], after["headings"]) == (before["rows"], before["headings"])
        context.close()


def test_an_address_asking_for_a_view_opens_on_it_without_asking_again(browser, demo):
    """A link to a focus at a moment (the history page's, a colleague's) opened on an empty
    frame, and the script fetched the view: a wait, then the page moved. The server draws
    it in the page, and the controls say what it is before anything else is asked."""
    # (seconds other than 0: a datetime-local input shows 04:20:00 as 04:20)
    then = (timezone.now() - timedelta(days=30)).replace(second=17).strftime("%Y-%m-%dT%H:%M:%SZ")
    context, page, errors = member_page(browser, demo, viewport=DESKTOP)
    asked = []
    page.on("request", lambda request: "/graph/svg" in request.url and asked.append(request.url))
    page.goto(
        f"{demo['url']}/projects/{demo['project']}/?focus=category--fulfilment&depth=0&at={then}"
    )
    expect(page.locator("[data-focus-name]")).to_have_text("fulfilment")
    expect(page.locator("[data-depth-select]")).to_have_value("0")
    expect(page.locator("[data-at]")).to_have_value(then[:19])
    expect(page.locator("[data-timeline-label]")).not_to_have_text("now")
    expect(page.get_by_role("heading", name=re.compile("^Services"))).to_contain_text("as of")
    ids = page.locator(".graph-stage g.node").evaluate_all(
        "nodes => nodes.map(n => n.getAttribute('data-entity-id'))"
    )
    # the view asked for, as the API draws it (the category's own services and topics)
    graph = demo["client"].get(
        f"/v1/projects/{demo['project']}/graph",
        {"filteredIds": "category--fulfilment", "depth": 0, "at": then},
    )
    assert sorted(ids) == sorted(node["id"] for node in graph.json()["nodes"])
    assert 0 < len(ids) < 15  # (the whole project: 40)
    # the count of then came with the page; Now says the count of now again, at once (from
    # the page, before the rows of now are read: held back here)
    count = page.locator("[data-service-count]")
    expect(count).to_have_text(re.compile(r"^\d+ services? then$"))
    page.route(re.compile(r".*/entities$"), lambda route, request: route.abort())
    page.locator("[data-now]").click()
    expect(count).to_have_text(re.compile(r"^\d+ services?$"))
    page.unroute(re.compile(r".*/entities$"))
    assert len(asked) == 1  # (Now's drawing)
    asked.clear()
    # Legacy Mailer, deleted 14 days ago, is in the project then: the drawing is of then
    page.goto(f"{demo['url']}/projects/{demo['project']}/?focus=service--legacy-mailer&at={then}")
    expect(page.locator("[data-focus-name]")).to_have_text("Legacy Mailer")
    expect(
        page.locator('.graph-stage g.node[data-entity-id="service--legacy-mailer"]')
    ).to_be_attached()
    expect(page.locator("[data-status]")).to_have_text("")
    # now it is not: said at once, as when the member chose it
    page.goto(f"{demo['url']}/projects/{demo['project']}/?focus=service--legacy-mailer")
    expect(page.locator("[data-status]")).to_have_text(
        re.compile("^Legacy Mailer is not in the project at this moment")
    )
    page.wait_for_timeout(300)
    assert asked == []
    # and from there on the controls draw as before
    page.locator("[data-clear-focus]").click()
    expect(page.locator(".graph-stage g.node").first).to_be_attached()
    assert len(asked) == 1
    assert errors == []
    context.close()


def test_a_plain_wheel_scrolls_the_page_and_ctrl_wheel_zooms(browser, demo):
    context, page, errors = member_page(browser, demo, viewport=DESKTOP)
    stage, graph = boxes(page)
    page.mouse.move(stage["x"] + stage["width"] / 2, stage["y"] + stage["height"] / 2)
    page.mouse.wheel(0, 200)
    expect(page.locator("[data-wheel-hint]")).to_be_visible()  # how to zoom instead
    page.wait_for_timeout(300)
    assert page.evaluate("window.scrollY") > 0
    _, after = boxes(page)
    assert after["width"] == pytest.approx(graph["width"], abs=0.5)

    page.evaluate("window.scrollTo(0, 0)")
    stage, graph = boxes(page)
    page.mouse.move(stage["x"] + stage["width"] / 2, stage["y"] + stage["height"] / 2)
    page.keyboard.down("Control")
    page.mouse.wheel(0, -300)
    page.keyboard.up("Control")
    page.wait_for_timeout(200)
    _, zoomed = boxes(page)
    assert zoomed["width"] > 1.15 * graph["width"]  # one notch: about a fifth
    assert page.evaluate("window.scrollY") == 0
    assert errors == []
    context.close()


def test_keys_pan_and_zoom_the_focused_graph(browser, demo):
    context, page, errors = member_page(browser, demo, viewport=DESKTOP)
    page.locator("[data-zoom=fit]").click()
    stage, fitted = boxes(page)
    page.locator(".graph-stage").focus()
    page.keyboard.press("+")
    page.keyboard.press("=")
    _, zoomed = boxes(page)
    assert zoomed["width"] > 1.9 * fitted["width"]
    page.keyboard.press("ArrowRight")
    _, right = boxes(page)
    assert right["x"] < zoomed["x"] - 50  # the view moved right: the graph left
    page.keyboard.press("ArrowLeft")
    _, left = boxes(page)
    assert left["x"] == pytest.approx(zoomed["x"], abs=1)
    page.keyboard.press("-")
    _, smaller = boxes(page)
    assert smaller["width"] < zoomed["width"]
    scroll = page.evaluate("window.scrollY")
    page.keyboard.press("ArrowDown")  # the key moves the graph, not the page
    assert page.evaluate("window.scrollY") == scroll
    page.keyboard.press("0")
    stage, graph = boxes(page)
    assert inside(graph, stage) and fills(graph, stage)
    assert errors == []
    context.close()


COUNT_REDRAWS = """() => {
  window.redraws = 0;
  if (window.counting) return;
  window.counting = true;
  new MutationObserver((changes) => { window.redraws += changes.length; })
    .observe(document.querySelector(".graph-stage svg"), { attributeFilter: ["viewBox"] });
}"""


def test_a_drag_moves_the_drawing_with_the_pointer_and_draws_it_anew_once_at_rest(browser, demo):
    """A big graph is slow to lay out (some 200 ms at 3,000 services): while the pointer
    moves, the drawing is moved as it is, and drawn anew (its viewBox) once the drag ends,
    where it was left, sharp."""
    context, page, errors = member_page(browser, demo, viewport=DESKTOP)
    page.locator("[data-zoom=in]").click()
    stage, before = boxes(page)
    page.evaluate(COUNT_REDRAWS)
    x, y = stage["x"] + stage["width"] / 2, stage["y"] + stage["height"] / 2
    page.mouse.move(x, y)
    page.mouse.down()
    page.mouse.move(x - 120, y - 30, steps=6)
    _, moving = boxes(page)
    # the graph follows the pointer (as far as it can go up: it may be at its top)
    assert moving["x"] == pytest.approx(before["x"] - 120, abs=1.5)
    assert before["y"] - 30 - 1.5 <= moving["y"] <= before["y"] + 1.5
    assert page.evaluate("window.redraws") == 0
    page.mouse.up()
    # let go: drawn at once (no transform left on it)
    assert page.locator(".graph-stage svg").evaluate("svg => svg.style.transform") == ""
    _, rested = boxes(page)
    assert page.evaluate("window.redraws") == 1
    assert rested["x"] == pytest.approx(moving["x"], abs=1.5)
    assert rested["y"] == pytest.approx(moving["y"], abs=1.5)
    # Ctrl + wheel zooms live too, and the drawing is drawn anew once the wheel rests
    page.evaluate(COUNT_REDRAWS)
    page.keyboard.down("Control")
    for _ in range(3):
        page.mouse.wheel(0, -60)
    page.keyboard.up("Control")
    _, zooming = boxes(page)
    assert zooming["width"] > rested["width"] * 1.2
    page.wait_for_timeout(600)
    _, zoomed = boxes(page)
    assert page.evaluate("window.redraws") == 1
    assert zoomed["width"] == pytest.approx(zooming["width"], rel=0.01)
    assert errors == []
    context.close()


def test_arrow_keys_on_the_slider_draw_once_they_rest(browser, demo):
    """Each arrow key on the slider was a `change`, and each a drawing of the whole project
    asked at once: on 1,000 services ten presses were ten 2 MB drawings, which spent the
    organization's drawing budget and ended in a 429 that put the slider back. The graph
    now follows once the keys rest; the label follows every key."""
    context, page, errors = member_page(browser, demo, viewport=DESKTOP)
    asked = []
    page.on(
        "request",
        lambda request: asked.append(request.url) if "/graph/svg?" in request.url else None,
    )
    slider = page.locator("[data-timeline]")
    label = page.locator("[data-timeline-label]")
    top = int(slider.get_attribute("max"))
    slider.focus()
    for step in range(1, 6):
        page.keyboard.press("ArrowLeft")
        assert slider.input_value() == str(top - step)
        assert label.inner_text() != "now"  # the label previews each step
        page.wait_for_timeout(60)
    expect(page.locator("[data-at]")).not_to_have_value("")  # drawn, once the keys rested
    page.wait_for_timeout(800)
    assert len(asked) == 1, asked
    assert slider.input_value() == str(top - 5)  # where the keys left it
    shown = page.locator("[data-at]").input_value()
    assert "at=" + shown[:16].replace(":", "%3A") in asked[0]
    # a key, then leaving the slider, draws at once
    page.keyboard.press("ArrowLeft")
    page.keyboard.press("Tab")
    expect(page.locator("[data-at]")).not_to_have_value(shown)
    page.wait_for_timeout(800)
    assert len(asked) == 2
    assert slider.input_value() == str(top - 6)
    assert errors == []
    context.close()


def test_a_step_back_reads_the_tables_beside_the_drawing_not_after_it(browser, demo):
    """A step of the slider read the tables' entities of its moment once the drawing had
    come, one after the other (on 1,000 services 0.5 s, then 0.25 s more): they are now
    asked at once, beside it, and once."""
    context, page, errors = member_page(browser, demo, viewport=DESKTOP)
    seen = []
    page.on(
        "request",
        lambda request: (
            seen.append(("asked", request.url))
            if "/entities?at=" in request.url or "/graph/svg?at=" in request.url
            else None
        ),
    )
    page.on(
        "response",
        lambda response: (
            seen.append(("drawn", response.url)) if "/graph/svg?at=" in response.url else None
        ),
    )
    slider = page.locator("[data-timeline]")
    slider.fill(str(int(slider.get_attribute("max")) - 2))  # (its input and change events)
    expect(page.locator("[data-service-count]")).to_contain_text("then")  # the tables came
    asked = [i for i, (what, url) in enumerate(seen) if "/entities?at=" in url]
    drawn = [i for i, (what, url) in enumerate(seen) if what == "drawn"]
    assert len(asked) == 1 and len(drawn) == 1, seen
    assert asked[0] < drawn[0], seen
    assert errors == []
    context.close()


def test_every_control_says_what_the_graph_shows(browser, demo):
    context, page, errors = member_page(browser, demo, viewport=DESKTOP)
    nodes = page.locator(".graph-stage g.node")
    slider = page.locator("[data-timeline]")
    label = page.locator("[data-timeline-label]")
    count = int(slider.get_attribute("max"))
    everything = nodes.count()

    # back in time with the slider, then Now: slider and label come back to now
    slider.fill("2")
    slider.dispatch_event("change")
    expect(nodes).not_to_have_count(everything)
    expect(label).not_to_have_text("now")
    assert page.locator("[data-at]").input_value() != ""
    page.locator("[data-now]").click()
    expect(nodes).to_have_count(everything)
    expect(label).to_have_text("now")
    assert slider.input_value() == str(count)
    assert page.locator("[data-at]").input_value() == ""

    # a typed As of before the first change: an empty graph, the slider at its start
    page.locator("[data-at]").fill("2001-02-03T04:05:06")
    page.locator("[data-at]").dispatch_event("change")
    expect(nodes).to_have_count(0)
    expect(label).to_contain_text("before")
    assert slider.input_value() == "0"
    page.locator("[data-now]").click()
    expect(label).to_have_text("now")

    # a typed As of still to come is now, as the API reads it: not "as of" a future date
    slider.fill("2")
    slider.dispatch_event("change")
    expect(nodes).not_to_have_count(everything)
    page.locator("[data-at]").fill("2999-01-01T00:00:00")
    page.locator("[data-at]").press("Enter")
    expect(label).to_have_text("now")
    expect(nodes).to_have_count(everything)
    expect(page.locator("[data-at]")).to_have_value("")
    expect(page.locator("[data-service-count]")).not_to_contain_text("then")
    assert slider.input_value() == str(count)

    # Show a category: the closed menu says its kind, the focus reads its name; show all: Show
    # goes back too
    page.select_option("[data-group-filter]", "category--commerce")
    assert page.locator("[data-group-filter] option:checked").inner_text() == "commerce (category)"
    expect(page.locator("[data-focus-name]")).to_have_text("commerce")
    expect(nodes).not_to_have_count(everything)
    page.locator("[data-clear-focus]").click()
    expect(nodes).to_have_count(everything)
    expect(page.locator("[data-focus-name]")).to_have_text("whole project")
    assert page.locator("[data-group-filter]").input_value() == ""

    # a click in the graph focuses a service: Show names it too
    page.locator('g.node[data-entity-id="service--checkout"]').dispatch_event("click")
    expect(page.locator("[data-focus-name]")).to_have_text("Checkout")
    assert page.locator("[data-group-filter]").input_value() == "service--checkout"
    assert page.locator("[data-group-filter] option:checked").inner_text() == "Checkout (service)"
    page.select_option("[data-group-filter]", "")
    expect(page.locator("[data-focus-name]")).to_have_text("whole project")
    expect(page.locator("[data-group-filter] option[data-shown-focus]")).to_have_count(0)
    assert errors == []
    context.close()


def touch(cdp, kind: str, points) -> None:
    cdp.send(
        "Input.dispatchTouchEvent",
        {"type": kind, "touchPoints": [{"x": x, "y": y, "id": i} for i, (x, y) in points]},
    )


def test_on_a_phone_a_vertical_swipe_scrolls_the_page_and_fingers_still_move_the_graph(
    browser, demo
):
    context, page, errors = member_page(
        browser, demo, viewport=PHONE, is_mobile=True, has_touch=True, device_scale_factor=2
    )
    stage_element = page.locator(".graph-stage")
    assert stage_element.evaluate("e => getComputedStyle(e).touchAction") == "pan-y"
    stage_element.scroll_into_view_if_needed()
    cdp = context.new_cdp_session(page)
    stage, graph = boxes(page)
    x, y = stage["x"] + stage["width"] / 2, stage["y"] + stage["height"] / 2
    scroll = page.evaluate("window.scrollY")

    # one finger up the graph: the page scrolls, the graph stays as it was
    touch(cdp, "touchStart", [(0, (x, y))])
    for step in range(1, 11):
        touch(cdp, "touchMove", [(0, (x, y - 25 * step))])
    touch(cdp, "touchEnd", [])
    page.wait_for_timeout(400)
    assert page.evaluate("window.scrollY") > scroll + 100
    _, after = boxes(page)
    assert after["width"] == pytest.approx(graph["width"], abs=0.5)

    # two fingers apart: the graph zooms in
    stage_element.scroll_into_view_if_needed()
    stage, graph = boxes(page)
    x, y = stage["x"] + stage["width"] / 2, stage["y"] + stage["height"] / 2
    touch(cdp, "touchStart", [(0, (x - 20, y)), (1, (x + 20, y))])
    for step in range(1, 11):
        touch(cdp, "touchMove", [(0, (x - 20 - 10 * step, y)), (1, (x + 20 + 10 * step, y))])
    touch(cdp, "touchEnd", [])
    page.wait_for_timeout(200)
    stage, pinched = boxes(page)
    assert pinched["width"] > 2.5 * graph["width"]

    # one finger sideways: the graph pans
    touch(cdp, "touchStart", [(0, (x, y))])
    for step in range(1, 11):
        touch(cdp, "touchMove", [(0, (x - 10 * step, y))])
    touch(cdp, "touchEnd", [])
    page.wait_for_timeout(200)
    _, panned = boxes(page)
    assert panned["x"] < pinched["x"] - 50
    assert errors == []
    context.close()


def test_a_shared_page_has_zoom_and_fit_but_no_past(browser, demo):
    share = post(demo["client"], f"/v1/projects/{demo['project']}/public-share-token")
    token = share.json()["token"]
    context = browser.new_context(viewport=DESKTOP)
    page = context.new_page()
    errors = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(f"{demo['url']}/share/{token}/")
    expect(page.locator(".graph-stage g.node").first).to_be_visible()
    for absent in ("[data-at]", "[data-now]", "[data-timeline]"):
        assert page.locator(absent).count() == 0
    for present in ("[data-zoom=in]", "[data-zoom=out]", "[data-zoom=fit]"):
        expect(page.locator(present)).to_be_visible()
    stage, graph = boxes(page)
    assert opens_readable(page, graph, stage)
    page.locator("[data-zoom=in]").click()
    page.locator("[data-zoom=fit]").click()
    stage, graph = boxes(page)
    assert inside(graph, stage) and fills(graph, stage)

    # the embed fills its window and fits the graph in it
    page.set_viewport_size({"width": 900, "height": 500})
    page.goto(f"{demo['url']}/share/{token}/embed/")
    expect(page.locator(".graph-stage g.node").first).to_be_visible()
    stage, graph = boxes(page)
    assert stage["height"] == pytest.approx(500, abs=1)
    assert inside(graph, stage) and fills(graph, stage)
    assert errors == []
    context.close()


def test_the_history_flag_leaves_out_as_of_and_now():
    context = {"controls": True, "svg_url": "/x.svg", "depths": range(3), "depth": 1}
    with_history = render_to_string("diagrams/_viewer.html", context)
    without = render_to_string("diagrams/_viewer.html", {**context, "history": False})
    assert "data-at" in with_history and "data-now" in with_history
    assert "data-at" not in without and "data-now" not in without
    assert 'data-history="off"' in without
    assert 'data-zoom="fit"' in without and "data-depth-select" in without


def test_stepping_through_time_keeps_the_zoom_and_a_new_focus_opens_anew(browser, demo):
    context, page, errors = member_page(browser, demo, viewport=DESKTOP)
    node = page.locator('.graph-stage g.node[data-entity-id="service--checkout"]')
    page.locator("[data-zoom=in]").click()
    page.locator("[data-zoom=in]").click()
    zoomed = node.bounding_box()
    slider = page.locator("[data-timeline]")
    slider.fill(str(int(slider.get_attribute("max")) - 1))  # one change back
    slider.dispatch_event("change")
    expect(page.locator("[data-timeline-label]")).not_to_have_text("now")
    expect(page.locator("[data-status]")).to_have_text("")
    earlier = node.bounding_box()
    assert earlier["width"] == pytest.approx(zoomed["width"], rel=0.02)  # same zoom
    page.locator("[data-now]").click()
    expect(page.locator("[data-timeline-label]")).to_have_text("now")
    # a new focus is a new drawing: it opens fitted or readable, not at the old zoom
    page.select_option("[data-group-filter]", "category--commerce")
    expect(page.locator("[data-focus-name]")).to_have_text("commerce")
    expect(page.locator("[data-status]")).to_have_text("")
    focused = node.bounding_box()
    assert focused is None or focused["width"] < 0.8 * zoomed["width"]
    assert errors == []
    context.close()


def test_services_changed_since_the_moment_shown_are_outlined_renamed_ones_too(browser, demo):
    from diagrams.tests.helpers import put

    renamed = put(
        demo["client"],
        f"/v1/projects/{demo['project']}/services/checkout",
        {"name": "Checkout Service"},
    )
    assert renamed.status_code == 200
    context, page, errors = member_page(browser, demo, viewport=DESKTOP)
    slider = page.locator("[data-timeline]")
    # one step back from now is the project before the newest change, the rename (its last
    # position used to be the state the rename left, the same as now)
    slider.fill(str(int(slider.get_attribute("max")) - 1))
    slider.dispatch_event("change")
    expect(page.locator("[data-timeline-label]")).not_to_have_text("now")
    old = page.locator('.graph-stage g.node[data-entity-id="service--checkout"]')
    expect(old).to_have_count(1)  # drawn under its name of then
    expect(old).to_have_class(re.compile(r"\bchanged-since\b"))
    others = page.locator(".graph-stage g.node.changed-since")
    assert others.count() == 1  # only what changed after the moment shown
    assert errors == []
    context.close()


def test_the_history_page_opens_the_project_as_it_was_after_a_change(browser, demo):
    context, page, errors = member_page(browser, demo, viewport=DESKTOP)
    nodes = page.locator(".graph-stage g.node")
    everything = nodes.count()
    page.goto(f"{demo['url']}/projects/{demo['project']}/history/?page=2")  # the oldest changes
    event = page.locator(".history-event").last  # an early change: far fewer services then
    when = event.locator("time").get_attribute("datetime")
    event.get_by_role("link", name="See the project after this change").click()
    expect(page.locator("[data-timeline-label]")).not_to_have_text("now")
    expect(nodes).not_to_have_count(everything)
    assert 0 < nodes.count() < everything
    # the As of field and the slider say the moment of that change
    assert page.locator("[data-at]").input_value()[:16] == when[:16]
    page.locator("[data-now]").click()
    expect(nodes).to_have_count(everything)
    assert errors == []
    context.close()
