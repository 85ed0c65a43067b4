"""What a member does, in a real browser (Playwright + Debian's Chromium): sign up, create
a project, add three services that share topics, see them in the graph, focus on one, move
the time control back, read a diff, share the project and open the link logged out, create
and revoke an API key. Screenshots of the main pages at 1280 and 390 pixels wide go to
$SCREENSHOTS_DIR (`make screenshots` sets it to docs/screenshots/), else to a temporary
directory, so a test run leaves the tracked files alone."""

import os
import tempfile
from pathlib import Path

import pytest
from playwright.sync_api import expect

from conftest import requires_chromium

SCREENSHOTS = os.environ.get("SCREENSHOTS_DIR")
pytestmark = [
    pytest.mark.browser,
    requires_chromium,
]


def shoot(page, name: str) -> None:
    """The page at 1280 and at 390 pixels wide."""
    global SCREENSHOTS
    if SCREENSHOTS is None:
        SCREENSHOTS = tempfile.mkdtemp(prefix="archsvc-screenshots-")
    Path(SCREENSHOTS).mkdir(parents=True, exist_ok=True)
    for width, height in ((1280, 860), (390, 844)):
        page.set_viewport_size({"width": width, "height": height})
        page.wait_for_timeout(150)
        page.screenshot(path=str(Path(SCREENSHOTS) / f"{name}-{width}.png"))
    page.set_viewport_size({"width": 1280, "height": 860})


def add_service(page, base: str, project: str, name: str, consumes=(), produces=()) -> None:
    page.goto(f"{base}/projects/{project}/services/new/")
    page.fill("input[name=name]", name)
    for direction, topics in (("consumes", consumes), ("produces", produces)):
        for index, topic in enumerate(topics):
            page.locator(f"[data-rows={direction}] input[name={direction}-name]").nth(index).fill(
                topic
            )
    page.click("main form button[type=submit]")
    expect(page.locator("body")).to_contain_text(name)


def test_a_member_from_sign_up_to_sharing(browser, live_server):
    base = live_server.url
    context = browser.new_context(viewport={"width": 1280, "height": 860})
    page = context.new_page()
    errors = []
    page.on("pageerror", lambda error: errors.append(str(error)))

    # sign up: the projects page, empty
    page.goto(f"{base}/accounts/signup/")
    shoot(page, "signup")
    page.fill("#id_email", "grace@example.com")
    page.fill("#id_password", "a-long-password")
    page.fill("#id_organization", "Hopper Labs")
    page.click("main form button[type=submit]")
    expect(page.locator("h1")).to_have_text("Projects")

    # create a project
    page.fill("#id_name", "Webshop")
    page.fill("#id_description", "Where orders come from")
    page.click("section.card form button[type=submit]")
    expect(page.locator("h1")).to_have_text("Webshop")
    project = page.url.rstrip("/").rsplit("/", 1)[1]

    # three services sharing topics
    add_service(page, base, project, "Cart", produces=["cart.events"])
    add_service(
        page, base, project, "Checkout", consumes=["cart.events"], produces=["orders.placed"]
    )
    add_service(page, base, project, "Billing", consumes=["orders.placed"])
    page.goto(f"{base}/projects/{project}/services/billing/edit/")
    shoot(page, "service-editor")

    # the graph has them all
    page.goto(f"{base}/projects/{project}/")
    nodes = page.locator(".graph-stage g.node")
    expect(nodes).to_have_count(5)
    shoot(page, "project")

    # focus on Billing: it and its direct neighbour
    page.locator('g.node[data-entity-id="service--billing"]').dispatch_event("click")
    expect(nodes).to_have_count(2)
    expect(page.locator("[data-focus-name]")).to_have_text("Billing")
    page.locator("[data-clear-focus]").click()
    expect(nodes).to_have_count(5)

    # the time control, back to just after the first change: only Cart and its topic
    page.locator("[data-timeline]").fill("0")
    page.locator("[data-timeline]").dispatch_event("change")
    expect(nodes).to_have_count(2)
    expect(page.locator('g.node[data-entity-id="service--cart"]')).to_have_count(1)

    # a diff, field by field
    page.goto(f"{base}/projects/{project}/history/")
    expect(page.locator("body")).to_contain_text("orders.placed")
    expect(page.locator("body")).to_contain_text("consumes")
    shoot(page, "history")

    # share, then open the link logged out
    page.goto(f"{base}/projects/{project}/share/")
    page.click("main form button[type=submit]")
    link = page.locator("#share-page").input_value()
    shoot(page, "sharing")
    visitor = browser.new_context()
    public = visitor.new_page()
    public.goto(link)
    expect(public.locator(".graph-stage g.node")).to_have_count(5)
    assert visitor.cookies() == []
    shoot(public, "shared-view")
    visitor.close()

    # an API key, shown once, then revoked
    page.goto(f"{base}/settings/api-keys/")
    page.fill("#id_name", "ci-deploy")
    page.check("input[name=permissions][value='projects:manage']")
    page.click(".settings-form button[type=submit]")
    token = page.locator("#new-key-token").input_value()
    assert token.count(".") == 2  # a JWT
    shoot(page, "api-keys")
    page.reload()
    assert token not in page.content()
    page.once("dialog", lambda dialog: dialog.accept())  # "Revoke the key …? …"
    page.locator("tr", has_text="ci-deploy").locator("button", has_text="Revoke").click()
    expect(page.locator("tr", has_text="ci-deploy")).to_have_count(0)  # gone from the list

    page.goto(f"{base}/")
    shoot(page, "projects")
    page.goto(f"{base}/settings/billing/")
    shoot(page, "billing")
    assert errors == []
    context.close()
