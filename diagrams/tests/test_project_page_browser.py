"""The project page in a real browser: the graph, and the assistant's chat panel whose cited
entities focus the graph."""

import pytest
from playwright.sync_api import expect

from conftest import requires_chromium
from diagrams.tests.helpers import new_project, new_service, signed_in

pytestmark = [
    pytest.mark.browser,
    requires_chromium,
]


def test_ask_the_assistant_and_focus_a_cited_service(browser, live_server, factory):
    org = factory.org("acme")
    membership = factory.member(org, role="admin")
    client = factory.member_client(membership, enforce_csrf=False)
    project = new_project(client, "Shop")
    new_service(client, project, {"name": "Checkout", "produces": [{"name": "orders.placed"}]})
    new_service(client, project, {"name": "Billing", "consumes": [{"name": "orders.placed"}]})
    new_service(client, project, {"name": "Mailer", "consumes": [{"name": "orders.placed"}]})
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
    org = factory.org("acme")
    membership = factory.member(org, role="admin")
    client = factory.member_client(membership, enforce_csrf=False)
    project = new_project(client, "Shop")
    new_service(client, project, {"name": "Checkout", "produces": [{"name": "orders.placed"}]})
    new_service(client, project, {"name": "Billing", "consumes": [{"name": "orders.placed"}]})
    html = client.get(f"/projects/{project}/").content.decode()
    assert "data-load" in html and "<svg" not in html.split("data-stage")[1].split("</div>")[0]
    context = signed_in(browser, membership, live_server.url)
    page = context.new_page()
    fetched = []
    page.on("request", lambda r: fetched.append(r.url) if "/graph/svg" in r.url else None)
    page.goto(f"{live_server.url}/projects/{project}/")
    expect(page.locator(".graph-stage g.node")).to_have_count(3)
    assert fetched == [f"{live_server.url}/v1/projects/{project}/graph/svg"]
    # and it is the whole viewer: a click focuses
    page.locator('g.node[data-entity-id="service--billing"]').dispatch_event("click")
    expect(page.locator(".graph-stage g.node")).to_have_count(2)
    context.close()
