"""Joining another organization in a real browser (Playwright + Debian's Chromium): the
admin adds someone who has an account and copies the join link; that person opens it logged
out, logs in, joins, and is in the new organization. Every page on the way, and the pages of
a link that does nothing, pass axe-core's audit as the other pages do."""

import re

import pytest
from playwright.sync_api import expect

from conftest import requires_chromium
from diagrams.tests.test_accessibility_browser import VIEWPORTS, assert_no_problems, audit

pytestmark = [
    pytest.mark.browser,
    requires_chromium,
]

PASSWORD = "correct-horse-battery"


def log_in(page, base: str, email: str) -> None:
    page.goto(f"{base}/accounts/login/")
    page.get_by_label("E-mail").fill(email)
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Log in").click()
    expect(page.locator("h1")).to_have_text("Projects")


@pytest.mark.parametrize("width", VIEWPORTS)
def test_an_existing_account_joins_through_the_link(browser, live_server, factory, width):
    base = live_server.url
    bcorp = factory.org("bcorp")
    factory.member(bcorp, email="boss@bcorp.com", role="admin", password=PASSWORD)
    factory.member(factory.org("acorp"), email="ada@acorp.example", password=PASSWORD)
    factory.member(factory.org("eve-co"), email="eve@example.com", password=PASSWORD)
    found = {}

    admin = browser.new_context(viewport=VIEWPORTS[width], bypass_csp=True).new_page()
    log_in(admin, base, "boss@bcorp.com")
    admin.goto(f"{base}/settings/members/")
    admin.locator("#id_email").fill("ada@acorp.example")
    admin.get_by_role("button", name="Add member").click()
    expect(admin.locator("#join-heading")).to_contain_text("ada@acorp.example")
    expect(admin.locator("main")).to_contain_text("invited, not joined yet")
    found["members page with a join link"] = audit(admin)
    link = admin.locator("#join-link").input_value()
    assert re.fullmatch(rf"{re.escape(base)}/accounts/join/[^/]+/", link)

    # someone else, logged in, opens it: nothing happens
    other = browser.new_context(viewport=VIEWPORTS[width], bypass_csp=True).new_page()
    log_in(other, base, "eve@example.com")
    other.goto(link)
    expect(other.locator("h1")).to_have_text("This link is for another account")
    found["join link of another account"] = audit(other)

    # the person it was sent to opens it logged out, logs in, and joins
    page = browser.new_context(viewport=VIEWPORTS[width], bypass_csp=True).new_page()
    page.goto(link)
    expect(page.locator("h1")).to_have_text("Log in")
    page.get_by_label("E-mail").fill("ada@acorp.example")
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Log in").click()
    expect(page.locator("h1")).to_have_text("Join Bcorp?")
    found["join page"] = audit(page)
    page.get_by_role("button", name="Join Bcorp").click()
    expect(page.locator("h1")).to_have_text("Projects")
    expect(page.locator("main")).to_contain_text("You joined Bcorp.")
    expect(page.locator("#id_org")).to_have_value("bcorp")

    # the link is used up
    page.goto(link)
    expect(page.locator("h1")).to_have_text("This link no longer works")
    found["used join link"] = audit(page)
    assert_no_problems(found)
