"""The shared graph in a real browser (Playwright driving Debian's Chromium): the share page
and the embed inside an iframe of a page from another origin, with no cookies; a replaced
token is 404 at once."""

import json
import re
import threading
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from playwright.sync_api import expect

from conftest import requires_chromium
from diagrams.tests.helpers import new_project, new_service

pytestmark = [
    pytest.mark.browser,
    requires_chromium,
]


@pytest.fixture
def shared(live_server, factory):
    org = factory.org("acme")
    token_key = factory.key(org, "sharer", ["projects:manage"])
    from django.test import Client

    client = Client(HTTP_AUTHORIZATION=f"Bearer {token_key}")
    project = new_project(client, "Checkout platform")
    new_service(
        client,
        project,
        {"name": "Cart", "category": "commerce", "produces": [{"name": "cart.events"}]},
    )
    new_service(
        client,
        project,
        {
            "name": "Checkout",
            "consumes": [{"name": "cart.events"}],
            "produces": [{"name": "orders.placed"}],
        },
    )
    new_service(client, project, {"name": "Billing", "consumes": [{"name": "orders.placed"}]})
    token = client.post(f"/v1/projects/{project}/public-share-token").json()["token"]

    def rotate() -> str:
        request = urllib.request.Request(
            f"{live_server.url}/v1/projects/{project}/public-share-token",
            method="POST",
            headers={"Authorization": f"Bearer {token_key}"},
        )
        with urllib.request.urlopen(request, timeout=10) as response:
            return json.loads(response.read())["token"]

    return {"url": live_server.url, "token": token, "rotate": rotate}


@pytest.fixture
def other_origin(shared):
    """A page on another origin (another port of 127.0.0.1) that embeds the graph."""
    html = (
        f"<!doctype html><title>Partner wiki</title><h1>Our platform</h1>"
        f'<iframe src="{shared["url"]}/share/{shared["token"]}/embed/" width="900" '
        f'height="500"></iframe>'
    ).encode()

    class Page(BaseHTTPRequestHandler):
        def do_GET(self):  # noqa: N802 - http.server's name
            self.send_response(200)
            self.send_header("Content-Type", "text/html")
            self.end_headers()
            self.wfile.write(html)

        def log_message(self, *args):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Page)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/"
    server.shutdown()


def test_share_page_shows_an_interactive_graph_without_cookies(browser, shared):
    context = browser.new_context()
    page = context.new_page()
    errors = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(f"{shared['url']}/share/{shared['token']}/")
    assert page.locator("h1").inner_text() == "Checkout platform"
    nodes = page.locator(".graph-stage g.node")
    assert nodes.count() == 5  # three services, two topics
    assert page.locator(".graph-stage .legend text").first.text_content() == "commerce"
    before = page.locator(".graph-stage svg").get_attribute("viewBox")
    page.locator("[data-zoom=in]").click()
    assert page.locator(".graph-stage svg").get_attribute("viewBox") != before
    # focus on Billing, then depth 0 (depth applies to a focus): Billing alone
    page.locator('g.node[data-entity-id="service--billing"]').dispatch_event("click")
    expect(page.locator(".graph-stage g.node")).to_have_count(2)  # and orders.placed
    page.select_option("[data-depth-select]", "0")
    expect(page.locator(".graph-stage g.node")).to_have_count(1)
    assert page.locator("[data-focus-name]").inner_text() == "Billing"
    page.locator("[data-clear-focus]").click()
    expect(page.locator(".graph-stage g.node")).to_have_count(5)
    assert context.cookies() == []
    assert errors == []
    context.close()


def test_embed_in_another_origin_then_404_after_the_token_is_replaced(
    browser, shared, other_origin
):
    context = browser.new_context()
    page = context.new_page()
    page.goto(other_origin)
    frame = page.frame_locator("iframe")
    frame.locator("g.node").first.wait_for()
    assert frame.locator("g.node").count() == 5
    assert frame.locator("a.open-full").get_attribute("target") == "_blank"
    # a host that does not allow full screen gets no Full screen button (a dead one showed:
    # the button's display overrode its `hidden`)
    expect(frame.locator("[data-zoom=fit]")).to_be_visible()
    expect(frame.locator("[data-fullscreen]")).to_be_hidden()
    new_token = shared["rotate"]()
    page.reload()
    frame = page.frame_locator("iframe")
    frame.locator("h1").wait_for()
    assert frame.locator("h1").inner_text() == "Not available"
    assert frame.locator("g.node").count() == 0
    response = page.goto(f"{shared['url']}/share/{shared['token']}/")
    assert response.status == 404
    response = page.goto(f"{shared['url']}/share/{new_token}/")
    assert response.status == 200
    assert page.locator(".graph-stage g.node").count() == 5
    context.close()


def test_without_scripts_the_shared_drawing_scrolls_and_offers_no_dead_controls(browser, shared):
    """With scripts off, the share page showed the drawing's middle at half its size in a
    frame nothing could pan, under Show, Depth, zoom buttons and a "drag to pan" hint that
    did nothing. The frame now scrolls over the drawing at its own size, from its top
    left, and offers only what works without a script (Download SVG)."""
    context = browser.new_context(java_script_enabled=False, viewport={"width": 390, "height": 844})
    page = context.new_page()
    for path in ("", "embed/"):
        page.goto(f"{shared['url']}/share/{shared['token']}/{path}")
        stage = page.locator(".graph-stage")
        frame = stage.evaluate(
            "s => ({scroll: s.scrollWidth, width: s.clientWidth,"
            " overflow: getComputedStyle(s).overflowX,"
            " drawn: s.querySelector('svg').getBoundingClientRect().width,"
            " units: s.querySelector('svg').viewBox.baseVal.width})"
        )
        assert frame["overflow"] == "auto", path
        assert frame["scroll"] > frame["width"], path  # wider than a phone: it scrolls
        assert frame["drawn"] == pytest.approx(frame["units"], abs=1), path  # a unit a pixel
        first = page.locator('g.node[data-entity-id="messaging--cart-events"]')
        left = stage.bounding_box()["x"]
        assert left <= first.bounding_box()["x"] < left + frame["width"], path  # in view
        stage.evaluate("s => { s.scrollLeft = s.scrollWidth; }")  # to its right end
        assert stage.evaluate("s => s.scrollLeft") == frame["scroll"] - frame["width"], path
        assert first.bounding_box()["x"] < left, path  # scrolled out of view to the left
        for control in ("[data-zoom=in]", "[data-depth-select]", ".viewer-hint"):
            expect(page.locator(control)).to_be_hidden()
    page.goto(f"{shared['url']}/share/{shared['token']}/")
    expect(page.locator("[data-group-filter]")).to_be_hidden()
    expect(page.locator("[data-download]")).to_be_visible()
    context.close()


def test_the_share_page_cannot_be_framed(browser, shared):
    """Only the embed may be framed: the full page refuses to load in another site."""
    context = browser.new_context()
    page = context.new_page()
    page.set_content(f'<iframe src="{shared["url"]}/share/{shared["token"]}/"></iframe>')
    page.wait_for_timeout(500)
    frame = page.frames[-1]
    assert (
        frame.url != f"{shared['url']}/share/{shared['token']}/"
        or frame.locator("g.node").count() == 0
    )
    context.close()


def test_a_graph_too_big_to_inline_is_fetched_by_the_shared_page(browser, shared, settings):
    """Past SHARE_INLINE_SVG_BYTES (a project of thousands of services) the page does not
    carry its graph, which every anonymous view would compress anew, but fetches it from the
    cached SVG: the reader sees the same graph, the focus in the address kept."""
    settings.SHARE_INLINE_SVG_BYTES = 100
    html = urllib.request.urlopen(f"{shared['url']}/share/{shared['token']}/", timeout=10).read()
    assert b'aria-label="Architecture of' not in html and b"data-load" in html
    assert f'<a href="/share/{shared["token"]}/graph.svg">'.encode() in html  # no script
    context = browser.new_context()
    page = context.new_page()
    errors = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    asked = []
    page.on("request", lambda request: asked.append(request.url))
    page.goto(f"{shared['url']}/share/{shared['token']}/")
    expect(page.locator(".graph-stage g.node")).to_have_count(5)
    # (in the frame's shape: graph-viewer.js sends its aspect with every drawing it reads)
    assert any(
        re.search(rf"/share/{shared['token']}/graph\.svg\?aspect=\d+(\.\d+)?$", url)
        for url in asked
    ), asked
    page.goto(
        f"{shared['url']}/share/{shared['token']}/embed/?filteredIds=service--billing&depth=0"
    )
    expect(page.locator(".graph-stage g.node")).to_have_count(1)
    assert errors == []
    context.close()


def test_a_keyboard_reaches_every_focus_and_the_address_keeps_it(browser, shared):
    """A shared page could be focused only by a click on a box (no keyboard route), and a
    reload or a link passed on lost the focus. The Show menu lists what the drawing names,
    by kind; choosing from it focuses the graph, and the address, Download SVG and a reload
    follow."""
    context = browser.new_context()
    page = context.new_page()
    errors = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(f"{shared['url']}/share/{shared['token']}/")
    menu = page.get_by_role("combobox", name="Show: focus on a category, owner, service or topic")
    groups = menu.locator("optgroup").evaluate_all(
        "groups => groups.map(g => [g.label, Array.from(g.children, o => o.textContent)])"
    )
    assert groups == [
        ["Category", ["commerce (category)"]],
        ["Service", ["Billing (service)", "Cart (service)", "Checkout (service)"]],
        ["Topic", ["cart.events (topic)", "orders.placed (topic)"]],
    ]
    # by keyboard alone: Tab reaches the menu before the graph
    for _ in range(10):
        page.keyboard.press("Tab")
        if page.evaluate("document.activeElement.matches('[data-group-filter]')"):
            break
    assert page.evaluate("document.activeElement.matches('[data-group-filter]')")
    menu.select_option("service--checkout")
    expect(page.locator("[data-focus-name]")).to_have_text("Checkout")
    expect(page.locator(".graph-stage g.node")).to_have_count(3)  # and its two topics
    expect(page).to_have_url(
        f"{shared['url']}/share/{shared['token']}/?filteredIds=service--checkout&depth=1"
    )
    download = page.get_by_role("link", name="Download SVG")
    expect(download).to_have_attribute(
        "href", f"/share/{shared['token']}/graph.svg?filteredIds=service--checkout&depth=1"
    )
    # the address opens the same view: drawn by the server, the menu saying what it is
    page.select_option("[data-depth-select]", "0")
    expect(page.locator(".graph-stage g.node")).to_have_count(1)
    expect(page).to_have_url(re.compile(r"\?filteredIds=service--checkout&depth=0$"))
    page.reload()
    expect(page.locator(".graph-stage g.node")).to_have_count(1)
    expect(menu).to_have_value("service--checkout")
    expect(page.locator("[data-depth-select]")).to_have_value("0")
    expect(download).to_have_attribute(
        "href", re.compile(r"filteredIds=service--checkout&depth=0$")
    )
    # a click in the graph is said in the menu too; show all clears it, and the address
    page.select_option("[data-depth-select]", "1")
    expect(page.locator(".graph-stage g.node")).to_have_count(3)
    page.locator('g.node[data-entity-id="messaging--orders-placed"]').dispatch_event("click")
    expect(menu).to_have_value("messaging--orders-placed")
    page.locator("[data-clear-focus]").click()
    expect(page.locator(".graph-stage g.node")).to_have_count(5)
    expect(menu).to_have_value("")
    expect(page).to_have_url(f"{shared['url']}/share/{shared['token']}/")
    expect(download).to_have_attribute("href", f"/share/{shared['token']}/graph.svg")
    assert errors == []
    context.close()


def test_download_after_the_link_was_replaced_says_so_on_the_page(browser, shared):
    """The download of a link replaced meanwhile was the browser's "Failed - No file", with
    nothing on the page; while it works, it saves the drawing as before."""
    context = browser.new_context(accept_downloads=True)
    page = context.new_page()
    page.goto(f"{shared['url']}/share/{shared['token']}/")
    expect(page.locator(".graph-stage g.node").first).to_be_visible()
    download = page.get_by_role("link", name="Download SVG")
    with page.expect_download() as saved:
        download.click()
    assert saved.value.suggested_filename == "checkout-platform.svg"
    svg = open(saved.value.path(), encoding="utf-8").read()
    assert svg.startswith("<svg") and 'data-entity-id="service--checkout"' in svg
    shared["rotate"]()
    downloads = []
    page.on("download", lambda saved: downloads.append(saved))
    download.click()
    expect(page.locator("[data-status]")).to_have_text(
        "This link does not work (it may have been replaced or turned off): ask whoever "
        "shared it for a new one."
    )
    assert downloads == []
    context.close()
