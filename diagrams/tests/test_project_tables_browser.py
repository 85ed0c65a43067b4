"""The project page's tables on a big project, in a real browser: they list their first
rows and say how many more there are, Show all lists the rest, Find narrows both tables to
what holds every word typed (a name, an owner, a topic), and Enter shows the first match
in the graph."""

import re

import pytest
from playwright.sync_api import expect

from accounts.actors import actor_for_membership
from conftest import requires_chromium
from diagrams.project_writes import project_create
from diagrams.service_writes import service_create
from diagrams.tests.helpers import signed_in
from diagrams.tests.test_project_tables import SIZE, big_project
from diagrams.views import TABLE_ROWS

LAPTOP = {"width": 1280, "height": 800}

pytestmark = [
    pytest.mark.browser,
    requires_chromium,
]


@pytest.fixture
def page_of_big(browser, live_server, factory):
    membership = factory.member(factory.org("big"), role="admin")
    project = big_project(membership)
    context = signed_in(browser, membership, live_server.url, viewport=LAPTOP)
    page = context.new_page()
    errors = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(f"{live_server.url}/projects/{project}/")
    expect(page.locator(".graph-stage g.node").first).to_be_visible()
    expect(page.locator("[data-entity-lists]")).not_to_have_attribute("aria-busy", "true")
    yield page
    assert errors == []
    context.close()


def test_the_tables_list_their_first_rows_and_show_all_lists_the_rest(page_of_big):
    page = page_of_big
    services = page.locator('[data-rows="services"] tr')
    topics = page.locator('[data-rows="topics"] tr')
    expect(services).to_have_count(TABLE_ROWS)
    expect(topics).to_have_count(TABLE_ROWS)
    more = page.locator('[data-more="services"]')
    expect(more).to_contain_text(f"Showing {TABLE_ROWS} of {SIZE} services.")
    more.get_by_role("link", name="Show all").click()
    expect(services).to_have_count(SIZE)
    expect(more).to_be_hidden()
    assert "rows=all" not in page.url  # listed here, not asked of the server again
    expect(services.last).to_contain_text("Worker 129")
    project_path = page.url.split("://", 1)[1].split("/", 1)[1].split("?")[0]
    expect(services.last.get_by_role("link", name="Edit Worker 129")).to_have_attribute(
        "href", re.compile(re.escape(f"/{project_path}services/worker-129/edit/") + r"\?next=")
    )
    expect(topics).to_have_count(TABLE_ROWS)  # the other table keeps its length
    expect(page.locator('[data-more="topics"]')).to_be_visible()
    # another moment lists its first rows again: after the fifth newest change, 126 services
    # (the slider's right end is now, the state the newest change left)
    slider = page.locator("[data-timeline]")
    slider.fill(str(int(slider.get_attribute("max")) - 4))
    slider.dispatch_event("change")
    expect(page.locator("[data-service-count]")).to_have_text(f"{SIZE - 4} services then")
    expect(services).to_have_count(TABLE_ROWS)
    expect(more).to_contain_text(f"Showing {TABLE_ROWS} of {SIZE - 4} services.")


def test_find_narrows_both_tables_and_enter_shows_the_first_match(page_of_big):
    page = page_of_big
    services = page.locator('[data-rows="services"] tr')
    topics = page.locator('[data-rows="topics"] tr')
    find = page.get_by_label("Find")
    count = page.locator("[data-find-count]")
    # a topic's name: the topic, its producer and its consumers (workers 2x and 2x+1)
    find.fill("jobs.060")
    expect(services).to_have_count(3)
    expect(services.get_by_role("button")).to_have_text(["Worker 060", "Worker 120", "Worker 121"])
    expect(topics.get_by_role("button")).to_have_text(["jobs.060"])
    expect(count).to_have_text("3 services, 1 topic")
    expect(page.locator('[data-more="services"]')).to_be_hidden()
    # typed key by key, the count is said once, when typing pauses (a screen reader heard
    # a count at every key: 13 for "orders.placed")
    said = page.locator("[data-find-said]")
    expect(said).to_have_text("3 services, 1 topic")
    assert count.get_attribute("aria-live") is None
    page.evaluate(
        """() => { const said = document.querySelector('[data-find-said]');
        window.saidTexts = [];
        new MutationObserver(() => window.saidTexts.push(said.textContent))
          .observe(said, {childList: true, characterData: true, subtree: true}); }"""
    )
    find.fill("")
    find.press_sequentially("team-0", delay=60)
    expect(said).to_have_text("33 services, 0 topics")
    assert page.evaluate("window.saidTexts") == ["33 services, 0 topics"]
    # every word must be there, anywhere in the row: an owner, part of a name (or of a
    # topic: Worker 025 consumes jobs.012), beyond the first 100 rows too
    find.fill("team-1 worker 12")
    expect(services.get_by_role("button")).to_have_text(
        ["Worker 025", "Worker 121", "Worker 125", "Worker 129"]
    )
    # more matches than the tables list: they say so, and Show all lists them
    find.fill("team-0")
    expect(count).to_have_text("33 services, 0 topics")  # topics: names of services only
    expect(services).to_have_count(33)
    find.fill("worker")
    expect(services).to_have_count(TABLE_ROWS)
    more = page.locator('[data-more="services"]')
    expect(more).to_contain_text(f"Showing {TABLE_ROWS} of {SIZE} matching services.")
    more.get_by_role("link", name="Show all").click()
    expect(services).to_have_count(SIZE)
    # nothing matches: said in each table
    find.fill("zebra")
    expect(services).to_have_text(["No services match “zebra”."])
    expect(topics).to_have_text(["No topics match “zebra”."])
    expect(count).to_have_text("0 services, 0 topics")
    # Enter shows the first match in the graph
    find.fill("Worker 125")
    find.press("Enter")
    expect(page.locator(".graph-stage g.node.focused")).to_have_attribute(
        "data-entity-id", "service--worker-125"
    )
    expect(page.locator("[data-focus-name]")).to_have_text("Worker 125")
    # a topic's exact name shows the topic, not the first service on it
    find.fill("jobs.060")
    find.press("Enter")
    expect(page.locator(".graph-stage g.node.focused")).to_have_attribute(
        "data-entity-id", "messaging--jobs-060"
    )
    # emptied, the tables list their first rows again
    find.fill("")
    expect(services).to_have_count(TABLE_ROWS)
    expect(count).to_have_text("")


def test_the_address_keeps_what_find_holds(page_of_big):
    """A reload, a bookmark or a link sent to a colleague lists the rows Find listed."""
    page = page_of_big
    services = page.locator('[data-rows="services"] tr')
    find = page.get_by_label("Find")
    find.fill("team-1 worker 12")
    expect(services).to_have_count(4)
    page.wait_for_url("**/?find=team-1+worker+12")
    page.reload()
    expect(find).to_have_value("team-1 worker 12")
    expect(services.get_by_role("button")).to_have_text(
        ["Worker 025", "Worker 121", "Worker 125", "Worker 129"]
    )
    expect(page.locator("[data-find-count]")).to_have_text("4 services, 0 topics")
    # with a focus in the address too, both hold
    page.locator('[data-rows="services"] [data-focus-id="service--worker-121"]').click()
    page.wait_for_url("**/?find=team-1+worker+12&focus=service--worker-121*")
    find.fill("")
    page.wait_for_url("**/?focus=service--worker-121*")
    expect(services).to_have_count(TABLE_ROWS)

    # with a moment in the address: its rows, read once (not the present's first as well)
    from datetime import UTC, datetime

    moment = datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    asked = []
    page.on("request", lambda r: asked.append(r.url) if "/entities" in r.url else None)
    page.goto(page.url.split("?")[0] + f"?find=team-1+worker+12&at={moment}")
    expect(services.get_by_role("button")).to_have_text(
        ["Worker 025", "Worker 121", "Worker 125", "Worker 129"]
    )
    expect(page.locator("[data-find-count]")).to_have_text("4 services, 0 topics")
    assert len(asked) == 1 and "at=" in asked[0], asked


def test_show_all_asks_the_server_when_the_rows_cannot_be_read_here(page_of_big):
    page = page_of_big
    page.route("**/entities*", lambda route: route.abort())
    page.locator('[data-rows="services"] [data-focus-id="service--worker-001"]').click()
    page.wait_for_url("**/?focus=service--worker-001*")
    page.locator('[data-more="topics"]').get_by_role("link", name="Show all").click()
    # what the address held is kept: the graph still shows the focus
    page.wait_for_url("**/?focus=service--worker-001&depth=1&rows=all#topics-heading")
    expect(page.locator("[data-focus-name]")).to_have_text("Worker 001")
    expect(page.locator('[data-rows="topics"] tr')).to_have_count(SIZE)
    expect(page.locator('[data-rows="services"] tr')).to_have_count(SIZE)
    expect(page.locator('[data-more="topics"]')).to_be_hidden()


def test_find_reads_the_served_rows_as_it_reads_the_project(browser, live_server, factory):
    """On a small project the page's own rows are all there is: Find reads them as it reads
    rows built from the project (a service's slug counts, the Edit link's text does not)."""
    membership = factory.member(factory.org("small"), role="admin")
    actor = actor_for_membership(membership)
    project = project_create(actor=actor, name="Small", description="")
    for name in ("Checkout API", "Billing"):
        service_create(actor=actor, project_id=project.id, data={"name": name})
    context = signed_in(browser, membership, live_server.url, viewport=LAPTOP)
    page = context.new_page()
    asked = []
    page.on("request", lambda r: asked.append(r.url) if "/entities" in r.url else None)
    page.goto(f"{live_server.url}/projects/{project.id}/")
    services = page.locator('[data-rows="services"] tr')
    find = page.get_by_label("Find")
    find.fill("checkout-api")
    expect(services.get_by_role("button")).to_have_text(["Checkout API"])
    expect(page.locator("[data-find-count]")).to_have_text("1 service, 0 topics")
    find.fill("edit")
    expect(services).to_have_text(["No services match “edit”."])
    assert asked == []  # every row was on the page: nothing to read
    context.close()


def test_find_says_so_when_the_rest_cannot_be_read(page_of_big):
    page = page_of_big
    page.route("**/entities*", lambda route: route.abort())
    page.get_by_label("Find").fill("worker 12")
    expect(page.locator("[data-find-count]")).to_have_text(
        "Only the first rows could be searched: the rest could not be read. Show all lists them."
    )
    assert "rows=all" not in page.url  # typing never leaves the page


def test_a_moment_read_by_the_page_lists_its_rows_by_name_as_the_server_does(
    browser, live_server, factory
):
    """The rows the script builds (a moment on the slider) are in the server's order, by
    name: by id, "注文" (`service-<hash>`) sat among the others by its hash."""
    membership = factory.member(factory.org("names"), role="admin")
    actor = actor_for_membership(membership)
    project = project_create(actor=actor, name="Names", description="")
    for name in ("Zeta", "Ａｂ", "注文", "alpha", "😀 grin", "Beta", "Later"):
        service_create(actor=actor, project_id=project.id, data={"name": name})
    context = signed_in(browser, membership, live_server.url, viewport=LAPTOP)
    page = context.new_page()
    page.goto(f"{live_server.url}/projects/{project.id}/")
    expect(page.locator(".graph-stage g.node").first).to_be_visible()
    rows = page.locator('[data-rows="services"] tr [data-focus-id]')
    # (as the script compares: an emoji before U+E000-U+FFFF, "Ａｂ")
    expect(rows).to_have_text(["alpha", "Beta", "Later", "Zeta", "注文", "😀 grin", "Ａｂ"])
    slider = page.locator("[data-timeline]")
    slider.fill(str(int(slider.get_attribute("max")) - 1))  # before "Later" was added
    expect(page.locator("[data-service-count]")).to_have_text("6 services then")
    expect(rows).to_have_text(["alpha", "Beta", "Zeta", "注文", "😀 grin", "Ａｂ"])
    context.close()
