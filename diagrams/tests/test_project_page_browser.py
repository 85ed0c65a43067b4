"""The project page in a real browser: the graph, and the assistant's chat panel whose cited
entities focus the graph."""

import re

import pytest
from playwright.sync_api import expect

from conftest import requires_chromium
from diagrams.tests.helpers import new_project, new_service, signed_in

pytestmark = [
    pytest.mark.browser,
    requires_chromium,
]

# a shop's first services: Checkout places orders, Billing and Mailer take them
SHOP = [
    {"name": "Checkout", "produces": [{"name": "orders.placed"}]},
    {"name": "Billing", "consumes": [{"name": "orders.placed"}]},
    {"name": "Mailer", "consumes": [{"name": "orders.placed"}]},
]


def shop(factory, services: int):
    """An admin of a new organization, their API client, and a project "Shop" holding the
    first `services` of SHOP."""
    membership = factory.member(factory.org("acme"), role="admin")
    client = factory.member_client(membership, enforce_csrf=False)
    project = new_project(client, "Shop")
    for body in SHOP[:services]:
        new_service(client, project, body)
    return membership, client, project


def test_ask_the_assistant_and_focus_a_cited_service(browser, live_server, factory):
    membership, client, project = shop(factory, 3)
    context = signed_in(browser, membership, live_server.url)
    page = context.new_page()
    page.goto(f"{live_server.url}/projects/{project}/")
    expect(page.locator(".graph-stage g.node")).to_have_count(4)
    page.fill("#chat-input", "who consumes orders placed?")
    page.click("[data-chat-form] button")
    reply = page.locator(".chat-assistant").last
    expect(reply).to_contain_text("Billing and Mailer consume orders.placed")
    expect(page.locator("[data-chat-credits]")).to_have_text("49 credits left")
    page.locator(".chat-assistant .chip", has_text="Billing").click()
    expect(page.locator(".graph-stage g.node")).to_have_count(2)  # Billing and its topic
    expect(page.locator("[data-focus-name]")).to_have_text("Billing")
    context.close()


def test_a_big_graph_is_fetched_by_the_page_not_inlined(browser, live_server, factory, settings):
    """Over SHARE_INLINE_SVG_BYTES the project page carries an empty frame and its script
    fetches the graph from the API's SVG address (whose gzip bytes are cached): the page is
    small, and the graph is there all the same."""
    settings.SHARE_INLINE_SVG_BYTES = 2_000
    membership, client, project = shop(factory, 2)
    html = client.get(f"/projects/{project}/").content.decode()
    assert "data-load" in html and "<svg" not in html.split("data-stage")[1].split("</div>")[0]
    context = signed_in(browser, membership, live_server.url)
    page = context.new_page()
    fetched = []
    page.on("request", lambda r: fetched.append(r.url) if "/graph/svg" in r.url else None)
    page.goto(f"{live_server.url}/projects/{project}/")
    expect(page.locator(".graph-stage g.node")).to_have_count(3)
    # in the frame's shape (graph-viewer.js aspect): the frame's width over the height the
    # window leaves it
    assert len(fetched) == 1 and fetched[0].startswith(
        f"{live_server.url}/v1/projects/{project}/graph/svg?aspect="
    ), fetched
    assert 0.2 <= float(fetched[0].split("?aspect=")[1]) <= 5
    # and it is the whole viewer: a click focuses
    page.locator('g.node[data-entity-id="service--billing"]').dispatch_event("click")
    expect(page.locator(".graph-stage g.node")).to_have_count(2)
    context.close()


# Every drawing put in the stage, as it went in, and each later change to the attributes that
# place it (its size, its viewBox): installed once a page.
PLACEMENTS = """
if (!window.placements) {
  window.placements = { inserted: [], moved: [] };
  new MutationObserver(function (records) {
    records.forEach(function (record) {
      if (record.type === "childList") {
        if (!record.target.hasAttribute || !record.target.hasAttribute("data-stage")) return;
        record.addedNodes.forEach(function (node) {
          if (node.localName !== "svg") return;
          window.placements.inserted.push({
            viewBox: node.getAttribute("viewBox"), position: node.style.position,
            width: parseFloat(node.style.width), height: parseFloat(node.style.height) });
        });
      } else if (record.target.localName === "svg" && record.target.parentNode &&
                 record.target.parentNode.hasAttribute("data-stage")) {
        window.placements.moved.push(record.attributeName);
      }
    });
  }).observe(document, { subtree: true, childList: true, attributes: true,
                         attributeFilter: ["style", "viewBox", "width", "height",
                                           "preserveAspectRatio"] });
}
"""
SETTLED = "() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))"


def test_a_fetched_graph_goes_in_already_placed_so_it_is_laid_out_once(
    browser, live_server, factory, settings
):
    """A big graph read from the server is measured and placed before it goes into the page:
    placed after, it was laid out twice on opening (at its full size, then at its view),
    some 300 ms each at 3,000 services (bench/viewer.py). So a drawing goes in with its view
    set, and nothing moves it until the member does; at opening and after a click's focus."""
    settings.SHARE_INLINE_SVG_BYTES = 2_000
    membership, client, project = shop(factory, 3)
    context = signed_in(browser, membership, live_server.url)
    context.add_init_script(PLACEMENTS)
    page = context.new_page()
    page.goto(f"{live_server.url}/projects/{project}/")
    expect(page.locator(".graph-stage g.node")).to_have_count(4)
    page.evaluate(SETTLED)

    def placed_once(count):
        placements = page.evaluate("() => window.placements")
        assert len(placements["inserted"]) == count and placements["moved"] == []
        last = placements["inserted"][-1]
        assert last["position"] == "absolute"
        _, _, w, h = (float(n) for n in last["viewBox"].replace(",", " ").split())
        assert abs(w / h - last["width"] / last["height"]) < 0.01  # the view fills its frame

    placed_once(1)
    # the drawing shown is the one read: its boxes answer a hover and a click
    page.locator('g.node[data-entity-id="service--billing"]').hover()
    expect(page.locator("[data-hover-veil]")).to_have_count(1)
    page.locator('g.node[data-entity-id="service--billing"]').dispatch_event("click")
    expect(page.locator(".graph-stage g.node")).to_have_count(2)
    page.evaluate(SETTLED)
    placed_once(2)
    context.close()


def test_a_graph_that_cannot_be_read_says_so(browser, live_server, factory, settings):
    """Something between the browser and the server (a proxy's sign-in page, say) answers the
    graph's address with a page that is no drawing: the frame says the graph could not be
    read, and keeps no half-drawing."""
    settings.SHARE_INLINE_SVG_BYTES = 2_000
    membership, client, project = shop(factory, 1)
    context = signed_in(browser, membership, live_server.url)
    page = context.new_page()
    page.route(
        "**/graph/svg*",
        lambda route: route.fulfill(
            status=200, content_type="text/html", body="<html><body><p>Sign in</p></body></html>"
        ),
    )
    page.goto(f"{live_server.url}/projects/{project}/")
    expect(page.locator("[data-status]")).to_have_text("The graph could not be read.")
    expect(page.locator(".graph-stage svg")).to_have_count(0)
    context.close()


def test_a_keyboard_user_focusing_a_table_name_lands_on_the_graph_and_hears_what_it_shows(
    browser, live_server, factory
):
    """Enter on a name in the Services table: the keyboard's place goes to the graph (it
    stayed on the button, far below, and the next Tab went back into the table), and a
    screen reader is told what the graph now shows."""
    membership, client, project = shop(factory, 3)
    context = signed_in(browser, membership, live_server.url)
    page = context.new_page()
    page.goto(f"{live_server.url}/projects/{project}/")
    said = page.locator("[data-said]")
    expect(said).to_have_attribute("aria-live", "polite")
    expect(said).to_have_text("")  # the page's first drawing is not announced
    name = page.locator('[data-rows="services"] [data-focus-id="service--billing"]')
    name.focus()
    page.keyboard.press("Enter")
    expect(page.locator(".graph-stage g.node")).to_have_count(2)
    expect(page.locator("[data-stage]")).to_be_focused()
    expect(said).to_have_text(
        re.compile(r"^Focus on Billing, 1 step around: 1 service, 1 topic; Current state")
    )
    page.locator("[data-clear-focus]").click()
    expect(said).to_have_text(re.compile(r"^The whole project: 3 services, 1 topic; "))
    # each box says what it is linked to (its tooltip, which names it)
    topic = page.locator('.graph-stage [data-entity-id="messaging--orders-placed"] title')
    expect(topic).to_have_text(re.compile("produced by: Checkout\nconsumed by: Billing, Mailer$"))
    context.close()


def test_the_chat_says_who_said_what_and_ask_keeps_the_keyboards_place(
    browser, live_server, factory
):
    membership, client, project = shop(factory, 3)
    context = signed_in(browser, membership, live_server.url)
    page = context.new_page()
    page.goto(f"{live_server.url}/projects/{project}/")
    held = []
    page.route("**/ai/chat", lambda route: held.append(route))
    page.fill("#chat-input", "who consumes orders placed?")
    ask = page.locator("[data-chat-form] button")
    ask.focus()
    page.keyboard.press("Enter")
    expect(ask).to_be_disabled()
    expect(ask).to_be_focused()  # a disabled button dropped it to the page's top
    page.wait_for_timeout(100)
    held.pop().continue_()
    expect(page.locator(".chat-assistant")).to_have_count(1)
    assert page.locator(".chat-user").inner_text().startswith("You:")
    assert page.locator(".chat-assistant").inner_text().startswith("Assistant:")
    expect(page.locator(".chat-assistant .chat-text")).to_contain_text("Billing and Mailer")
    context.close()


def test_a_table_box_is_a_tab_stop_only_while_it_scrolls(browser, live_server, factory):
    membership, client, project = shop(factory, 3)
    context = signed_in(browser, membership, live_server.url)
    page = context.new_page()
    page.goto(f"{live_server.url}/projects/{project}/")
    box = page.get_by_role("region", name="Services")
    expect(box).not_to_have_attribute("tabindex", "0")  # it fits: a stop that did nothing
    box.evaluate("b => { b.style.width = '150px'; }")  # now it scrolls sideways
    expect(box).to_have_attribute("tabindex", "0")
    box.focus()
    page.keyboard.press("ArrowRight")
    expect(box).not_to_have_js_property("scrollLeft", 0)  # scrolled from the keyboard
    context.close()
