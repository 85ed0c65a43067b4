"""The pages on a phone (390x844) and a desktop (1366x800) in a real browser: no page is wider
than the screen, wide tables scroll inside their own box, the header says which organization
the member is in, and long one-word names break instead of widening the page."""

import re

import pytest
from playwright.sync_api import expect

from accounts.services import session_start
from conftest import requires_chromium
from diagrams.tests.helpers import new_project, new_service, put

pytestmark = [
    pytest.mark.browser,
    requires_chromium,
]

PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1366, "height": 800}
LONG_NAME = "PaymentReconciliationSettlementLedgerServiceForTheEuropeanUnion"[:60]
PAGE_WIDTH = "[document.documentElement.scrollWidth, window.innerWidth]"


@pytest.fixture
def shop(live_server, factory):
    """An admin of "acme" who also belongs to "globex", in a project whose services have long
    names and topics, with an API key, a second member and a share link."""
    org = factory.org("acme")
    membership = factory.member(org, email="grace.hopper@example.com", role="admin")
    factory.member(factory.org("globex"), email="grace.hopper@example.com", role="member")
    factory.member(org, email="a.colleague.with.a.long.address@example.com")
    factory.key(org, "deploy-pipeline", ["projects:manage"])
    client = factory.member_client(membership, enforce_csrf=False)
    project = new_project(client, "Shop")
    new_service(
        client,
        project,
        {
            "name": "Checkout",
            "description": "Takes the orders",
            "extras": {"language": "kotlin"},
            "owner": "checkout-team",
            "consumes": [{"name": "cart.events"}, {"name": "payments.settled"}],
            "produces": [{"name": "orders.placed"}],
        },
    )
    new_service(
        client,
        project,
        {
            "name": "Payment Reconciliation Settlement Service",
            "owner": "payments-platform-team",
            "consumes": [{"name": "orders.placed"}],
            "produces": [{"name": "payments.settled"}],
        },
    )
    long_one = {"name": LONG_NAME, "produces": [{"name": "payments.reconciliation.settled.v2"}]}
    slug = new_service(client, project, long_one)["slug"]
    changed = put(
        client,
        f"/v1/projects/{project}/services/{slug}",
        {**long_one, "owner": "payments-platform-team"},
    )
    assert changed.status_code == 200, changed.content
    token = client.post(f"/v1/projects/{project}/public-share-token").json()["token"]
    return {
        "url": live_server.url,
        "project": project,
        "token": token,
        "session": session_start(membership=membership),
        "long_slug": slug,
        "client": client,
    }


def member_page(browser, shop, viewport):
    context = browser.new_context(viewport=viewport)
    context.add_cookies([{"name": "__session", "value": shop["session"], "url": shop["url"]}])
    return context, context.new_page()


def test_no_page_is_wider_than_a_phone(browser, shop):
    project = f"/projects/{shop['project']}"
    member_paths = [
        "/",
        f"{project}/",
        f"{project}/services/",
        f"{project}/services/new/",
        f"{project}/services/checkout/edit/",
        f"{project}/services/checkout/delete/",
        f"{project}/history/",
        f"{project}/history/?service=checkout",
        f"{project}/share/",
        "/settings/",
        "/settings/members/",
        "/settings/api-keys/",
        "/settings/billing/",
        "/settings/account/",
    ]
    anonymous_paths = ["/accounts/login/", "/accounts/signup/", f"/share/{shop['token']}/"]
    too_wide = {}
    context, page = member_page(browser, shop, PHONE)
    anonymous = browser.new_context(viewport=PHONE).new_page()
    for tab, paths in ((page, member_paths), (anonymous, anonymous_paths)):
        for path in paths:
            response = tab.goto(shop["url"] + path)
            assert response.status == 200, path
            tab.wait_for_load_state("networkidle")
            width, screen = tab.evaluate(PAGE_WIDTH)
            if width > screen:
                too_wide[path] = width
    anonymous.context.close()
    context.close()
    assert too_wide == {}, f"wider than the 390px screen: {too_wide}"


def test_on_a_phone_each_service_is_a_card_with_edit_on_its_line(browser, shop):
    """The services table scrolled sideways on a phone, Produces, Owner and Edit off-screen.
    Each row is now a card: the name and Edit on its first line, each other column on a line
    of its own named as its header; the page and the table are the screen's width, and a
    screen reader still reads a table with its headers."""
    context, page = member_page(browser, shop, PHONE)
    page.goto(f"{shop['url']}/projects/{shop['project']}/")
    services = page.get_by_role("region", name="Services")
    assert services.evaluate("e => e.scrollWidth - e.clientWidth") == 0
    row = services.locator("tr", has=page.get_by_role("button", name="Checkout", exact=True))
    name = row.get_by_role("button", name="Checkout", exact=True)
    edit = row.get_by_role("link", name="Edit Checkout")
    name.scroll_into_view_if_needed()  # down the page to it: and Edit is there too
    expect(edit).to_be_in_viewport(ratio=1)
    assert abs(edit.bounding_box()["y"] - name.bounding_box()["y"]) < 8  # on the name's line
    labels = row.locator("td").evaluate_all(
        "cells => cells.map(c => getComputedStyle(c, '::before').content)"
    )
    # seen, not read (`/ ""`): a screen reader has the column's header
    assert labels[1:4] == ['"Consumes" / ""', '"Produces" / ""', '"Owner" / ""']
    cells = [box["y"] for box in (row.locator("td").nth(i).bounding_box() for i in range(1, 4))]
    assert cells == sorted(cells) and cells[0] < cells[1] < cells[2]  # a line each
    expect(row.locator("td").nth(3)).to_have_text("checkout-team")
    # a service that produces nothing has no Produces line, and its owner keeps its header
    topics = page.get_by_role("region", name="Topics")
    topic = topics.locator("tr", has=page.get_by_role("button", name="cart.events"))
    expect(topic.locator("td").nth(1)).to_contain_text("none")  # no producer: said
    assert page.evaluate(PAGE_WIDTH)[0] <= PHONE["width"]
    # a name that wraps onto several lines stays left-aligned
    long_name = services.get_by_role("button", name="Payment Reconciliation Settlement Service")
    left, lines = long_name.evaluate(
        """e => { const range = document.createRange(); range.selectNodeContents(e);
        return [e.getBoundingClientRect().left, [...range.getClientRects()].map(r => r.left)]; }"""
    )
    assert all(abs(line - left) < 1 for line in lines), (left, lines)
    # Chromium still gives the cells a table's roles (a display change can take them away)
    tree = context.new_cdp_session(page).send("Accessibility.getFullAXTree")["nodes"]
    roles = [n["role"]["value"] for n in tree if not n.get("ignored") and "role" in n]
    assert roles.count("table") == 2 and roles.count("columnheader") == 8
    edit.click()
    edit_url = f"{shop['url']}/projects/{shop['project']}/services/checkout/edit/"
    expect(page).to_have_url(re.compile(re.escape(edit_url) + r"\?next="))  # (back to here)
    context.close()


def test_the_services_table_shows_edit_on_a_laptop_without_scrolling(browser, shop):
    """At a laptop's 1280 pixels the services table has the page's width: Edit is on screen
    without scrolling the table, and a two-word name in a tag stays on one line."""
    context, page = member_page(browser, shop, {"width": 1280, "height": 800})
    page.goto(f"{shop['url']}/projects/{shop['project']}/")
    services = page.get_by_role("region", name="Services")
    assert services.evaluate("e => e.scrollWidth - e.clientWidth") == 0
    edit = services.get_by_role("link", name="Edit").first
    box, right = edit.bounding_box(), services.bounding_box()
    assert box["x"] + box["width"] <= right["x"] + right["width"]
    topics = page.get_by_role("region", name="Topics")
    tag = topics.locator(".tag", has_text="Payment Reconciliation Settlement Service").first
    lines = tag.evaluate(
        "e => { const r = document.createRange(); r.selectNodeContents(e);"
        " return new Set([...r.getClientRects()].map(c => Math.round(c.top))).size; }"
    )
    assert lines == 1
    context.close()


def test_the_header_shows_the_organization_on_a_phone(browser, shop):
    context, page = member_page(browser, shop, PHONE)
    page.goto(f"{shop['url']}/")
    who = page.locator("header .who")
    expect(who).to_be_visible()
    expect(who).to_contain_text("Acme")  # its name, not its slug
    box = who.bounding_box()
    assert box["x"] >= 0 and box["x"] + box["width"] <= PHONE["width"]
    # switching organization shows the other one
    page.select_option("#id_org", "globex")
    page.get_by_role("button", name="Switch").click()
    expect(who).to_contain_text("Globex")
    expect(who).to_be_visible()
    context.close()


def test_history_with_a_long_one_word_name_fits_a_phone(browser, shop):
    context, page = member_page(browser, shop, PHONE)
    page.goto(f"{shop['url']}/projects/{shop['project']}/history/")
    head = page.locator(".history-head", has_text=LONG_NAME).first
    expect(head).to_be_visible()
    assert page.evaluate(PAGE_WIDTH)[0] <= PHONE["width"]
    right = head.evaluate(
        """e => { const range = document.createRange(); range.selectNodeContents(e);
        return Math.max(...[...range.getClientRects()].map(r => r.right)); }"""
    )
    assert right <= PHONE["width"]
    # the column headers keep their words whole ("After", not "Aft" over "er")
    broken = page.locator(".history-changes thead th").evaluate_all(
        """ths => ths.filter(th => { const range = document.createRange();
        range.selectNodeContents(th); return range.getClientRects().length > 1; })
        .map(th => th.textContent)"""
    )
    assert broken == []
    # field names keep their words whole too ("description", not "descripti" over "on"):
    # "extras.language" may break after its dot only, between two text nodes
    fields = page.locator(".history-changes tbody th").evaluate_all(
        """ths => ths.flatMap(th => [...th.childNodes].filter(n => n.nodeType === 3)
        .map(n => { const range = document.createRange(); range.selectNodeContents(n);
        return [n.textContent, range.getClientRects().length]; }))"""
    )
    assert ["description", 1] in fields and ["language", 1] in fields
    assert [name for name, lines in fields if lines > 1] == []
    context.close()


def test_the_service_editor_on_a_desktop(browser, shop):
    context, page = member_page(browser, shop, DESKTOP)
    page.goto(f"{shop['url']}/projects/{shop['project']}/services/checkout/edit/")
    row = page.locator("[data-rows=consumes] [data-row]").first
    remove = row.get_by_role("button", name="Remove")
    expect(remove).to_be_visible()
    name, button = row.locator("input").first.bounding_box(), remove.bounding_box()
    assert button["y"] < name["y"] + name["height"]  # on the line of the inputs
    page.get_by_role("link", name="Delete this service…").click()
    delete = page.get_by_role("button", name="Delete “Checkout”")
    expect(delete).to_have_css("background-color", "rgb(192, 57, 43)")  # the danger red
    context.close()


# Each control of a list's rows (topic, category, owner and Remove; extras' key, value and
# Remove): its box, whether its column head shows, and its head's box.
ROW_CONTROLS = """group => [...group.querySelectorAll('[data-row]')].map(row =>
    [...row.querySelectorAll('input:not([type=hidden]), button')].map(control => {
        const box = control.getBoundingClientRect();
        const head = control.closest('label')?.querySelector('.row-field-label');
        const shown = head && head.getBoundingClientRect().height > 0;
        return {x: box.x, y: box.y, width: box.width, height: box.height,
                head: shown ? head.textContent : null,
                headX: shown ? head.getBoundingClientRect().x : null};
    }))"""


def _in_reading_order(controls):
    """Each control after the first is on its line to the right, or on a lower line."""
    return all(
        after["y"] >= before["y"] + before["height"] - 1
        or (abs(after["y"] - before["y"]) < before["height"] and after["x"] > before["x"])
        for before, after in zip(controls, controls[1:], strict=False)
    )


LONG_WORD = "C" * 60  # a category or owner of one 60-letter word
LONG_TOPIC = "com.example.commerce.inventory.reservation-allocation-confirmed.v3"


@pytest.fixture
def long_words(shop):
    new_service(
        shop["client"],
        shop["project"],
        {
            "name": "Reservations",
            "category": LONG_WORD,
            "owner": "team-" + "o" * 55,
            "consumes": [{"name": LONG_TOPIC}],
        },
    )
    return shop


@pytest.mark.parametrize("width", [1366, 1440, 1600])
def test_a_long_one_word_category_keeps_the_tables_in_the_page(browser, long_words, width):
    """A 60-letter category and owner kept whole made the services list 1,750 px wide, its
    names a column of 5 letters; and at 1,440 pixels the project's tables were side by side,
    the services one 102 px past its half, its Owner and Edit out of sight."""
    shop = long_words
    context, page = member_page(browser, shop, {"width": width, "height": 900})
    page.goto(f"{shop['url']}/projects/{shop['project']}/services/")
    table = page.locator(".editor-table")
    assert page.evaluate(PAGE_WIDTH)[0] <= width
    name = table.locator("tbody td:first-child").first.bounding_box()
    assert name["width"] >= 150  # whole words of a name, not 5 letters a line
    page.goto(f"{shop['url']}/projects/{shop['project']}/")
    for region in ("Services", "Topics"):
        box = page.get_by_role("region", name=region)
        assert box.evaluate("e => e.scrollWidth - e.clientWidth") == 0, region
    context.close()


def test_on_a_phone_a_long_topics_tag_ends_inside_its_card(browser, long_words):
    shop = long_words
    context, page = member_page(browser, shop, PHONE)
    page.goto(f"{shop['url']}/projects/{shop['project']}/")
    services = page.get_by_role("region", name="Services")
    assert services.evaluate("e => e.scrollWidth - e.clientWidth") == 0
    tag = services.locator(".tag", has_text=LONG_TOPIC[:30]).first
    box, card = tag.bounding_box(), services.bounding_box()
    assert box["x"] + box["width"] <= card["x"] + card["width"]
    context.close()


def test_on_a_phone_a_projects_actions_start_under_its_name_evenly_spaced(browser, shop):
    """The actions were indented 2rem where the name starts at 3.5, the star sat at the
    middle of the whole row, and Archive to Duplicate was wider than Duplicate to Delete
    (a form's margin added to the gap)."""
    context, page = member_page(browser, shop, PHONE)
    page.goto(f"{shop['url']}/")
    row = page.locator(".project-row").first
    name = row.locator(".project-name").bounding_box()
    star = row.locator(".pin").bounding_box()
    actions = [
        row.get_by_role(role, name=f"{word} Shop").bounding_box()
        for role, word in (("button", "Archive"), ("button", "Duplicate"), ("link", "Delete"))
    ]
    assert abs(actions[0]["x"] - name["x"]) < 2
    assert star["y"] < name["y"] + name["height"] / 2 < star["y"] + star["height"]
    gaps = [b["x"] - (a["x"] + a["width"]) for a, b in zip(actions, actions[1:], strict=False)]
    assert abs(gaps[0] - gaps[1]) < 2, gaps
    context.close()


def test_on_a_phone_the_way_back_keeps_its_arrow_with_a_long_name(browser, shop):
    """A project named with one long word left "←" alone on the back link's first line."""
    from diagrams.tests.helpers import new_project

    project = new_project(shop["client"], LONG_NAME)
    context, page = member_page(browser, shop, PHONE)
    for path in ("services/", "history/"):
        page.goto(f"{shop['url']}/projects/{project}/{path}")
        back = page.locator(".editor-nav a").first
        first_line = back.evaluate(
            """a => { const range = document.createRange(); range.selectNodeContents(a);
            const rects = [...range.getClientRects()];
            return rects.filter(r => Math.abs(r.top - rects[0].top) < 2)
                        .reduce((w, r) => w + r.width, 0); }"""
        )
        assert first_line > 100, (path, first_line)  # the arrow and the name's start
    context.close()


def test_the_service_editors_rows_say_what_each_field_is(browser, shop):
    """A filled row's placeholders are gone: the first row of each list heads its columns
    (Topic, Category, Owner; Key, Value), over the fields they name, and only once."""
    context, page = member_page(browser, shop, DESKTOP)
    page.goto(f"{shop['url']}/projects/{shop['project']}/services/checkout/edit/")
    for group, heads in (
        ("consumes", ["Topic", "Category", "Owner"]),
        ("extras", ["Key", "Value"]),
    ):
        rows = page.locator(f"[data-rows={group}]").evaluate(ROW_CONTROLS)
        assert len(rows) >= 2
        first = [control for control in rows[0] if control["head"]]
        assert [control["head"] for control in first] == heads
        assert all(abs(control["headX"] - control["x"]) < 2 for control in first)
        assert [control["head"] for row in rows[1:] for control in row] == [None] * sum(
            len(row) for row in rows[1:]
        )
        assert all(_in_reading_order(row) for row in rows)
    field = page.get_by_role("combobox", name="Consumed topic category").first
    expect(field).to_have_value("")
    context.close()


def test_on_a_phone_the_editors_rows_read_in_tab_order_with_room_for_a_word(browser, shop):
    """On a phone a topic row is its name, then category, owner and Remove: in the order Tab
    takes them (Remove had been beside the name, reached after the owner), and the category
    and owner wide enough for "fulfilment"; Remove is a finger's size, named for its row."""
    context, page = member_page(browser, shop, PHONE)
    page.goto(f"{shop['url']}/projects/{shop['project']}/services/checkout/edit/")
    for group in ("consumes", "produces", "extras"):
        for row in page.locator(f"[data-rows={group}]").evaluate(ROW_CONTROLS):
            assert _in_reading_order(row), (group, row)
            assert all(control["x"] + control["width"] <= PHONE["width"] for control in row)
            *fields, remove = row
            assert remove["width"] >= 44 and remove["height"] >= 44
            assert all(field["width"] >= 110 for field in fields), (group, fields)
    # Delete under Save, where it starts (a rule for links after a button moved it 10 px)
    save = page.get_by_role("button", name="Save changes").bounding_box()
    delete = page.get_by_role("link", name="Delete this service…").bounding_box()
    assert delete["y"] > save["y"] + save["height"] and abs(delete["x"] - save["x"]) < 1
    remove = page.get_by_role("button", name="Remove consumed topic cart.events")
    expect(remove).to_be_visible()
    remove.click()
    expect(page.get_by_role("combobox", name="Consumed topic name").first).to_be_focused()
    expect(page.get_by_role("combobox", name="Consumed topic name").first).to_have_value(
        "payments.settled"
    )
    context.close()


def test_on_a_phone_each_member_is_a_card_with_its_buttons_on_screen(browser, shop):
    """The members table scrolled sideways to its role menu and Remove button, and the last
    admin's hint, in a narrow column, made its row a screen high."""
    context, page = member_page(browser, shop, PHONE)
    page.goto(f"{shop['url']}/settings/members/")
    table = page.locator(".settings-table")
    assert table.evaluate("e => e.scrollWidth - e.clientWidth") == 0
    colleague = "a.colleague.with.a.long.address@example.com"
    for control in (
        page.get_by_role("combobox", name=f"Role of {colleague}"),
        page.get_by_role("button", name=f"Change the role of {colleague}"),
        page.get_by_role("button", name=f"Remove {colleague}"),
    ):
        expect(control).to_be_in_viewport(ratio=1)
    expect(page.get_by_text("Member since").first).to_be_visible()
    boss = table.locator("tr", has_text="grace.hopper@example.com")
    assert boss.bounding_box()["height"] < 160
    assert page.evaluate(PAGE_WIDTH)[0] <= PHONE["width"]
    context.close()


@pytest.mark.parametrize(
    "section, current",
    [
        ("members", "Members"),
        ("api-keys", "API keys"),
        ("billing", "Billing"),
        ("account", "Your account"),
    ],
)
def test_the_settings_tabs_are_one_row_on_a_phone_showing_the_pages_own(
    browser, shop, section, current
):
    """ "Your account" sat alone on a second row, under the current tab's underline: the row
    now scrolls sideways, and the page's own tab is in view (the last one included)."""
    context, page = member_page(browser, shop, PHONE)
    page.goto(f"{shop['url']}/settings/{section}/")
    tabs = page.get_by_role("navigation", name="Settings").get_by_role("link")
    assert len({round(tabs.nth(i).bounding_box()["y"]) for i in range(tabs.count())}) == 1
    own = page.get_by_role("link", name=current, exact=True)
    expect(own).to_have_attribute("aria-current", "page")
    nav = page.get_by_role("navigation", name="Settings").bounding_box()
    box = own.bounding_box()
    assert nav["x"] <= box["x"] and box["x"] + box["width"] <= nav["x"] + nav["width"]
    assert page.evaluate("window.scrollY") == 0  # the row moved, not the page
    # each tab, the page's own as it opens and any reached with the keyboard, is clear of
    # the row's fades (the page's own could stay under one)
    clear = (
        "e => { const r = e.parentNode.getBoundingClientRect(), b = e.getBoundingClientRect();"
        " return b.left >= r.left + 40 - 1 || e.parentNode.scrollLeft < 1"
        " ? (b.right <= r.right - 40 + 1 || e.parentNode.scrollLeft >="
        " e.parentNode.scrollWidth - e.parentNode.clientWidth - 1) : false; }"
    )
    assert own.evaluate(clear)
    # the row fades out at the edge with more tabs past it, and only there ("Your account"
    # was cut at "Your" with nothing saying the row scrolls)
    row = page.get_by_role("navigation", name="Settings")
    faded = "e => [e.hasAttribute('data-more-before'), e.hasAttribute('data-more-after')]"
    mask = "e => getComputedStyle(e).maskImage"
    if current == "Your account":
        assert row.evaluate(faded) == [True, False]
    row.evaluate("e => { e.scrollLeft = 0; }")
    assert row.evaluate(mask) != "none"
    expect(row).to_have_attribute("data-more-after", "")
    assert row.evaluate(faded) == [False, True]
    row.evaluate("e => { e.scrollLeft = e.scrollWidth; }")
    expect(row).to_have_attribute("data-more-before", "")
    assert row.evaluate(faded) == [True, False]
    # each tab reached with the keyboard comes clear of the fades, both ways
    for name in ("Overview", "Members", "API keys", "Billing", "Your account"):
        tab = row.get_by_role("link", name=name, exact=True)
        tab.focus()
        assert tab.evaluate(clear), name
    for name in ("Billing", "API keys", "Members", "Overview"):
        tab = row.get_by_role("link", name=name, exact=True)
        tab.focus()
        assert tab.evaluate(clear), name
    assert page.evaluate(PAGE_WIDTH)[0] <= PHONE["width"]
    context.close()


def test_an_api_keys_revoke_button_is_on_a_phones_screen_without_scrolling(browser, shop):
    """The keys table scrolled sideways to its Revoke button; what does not fit (the
    permissions, created, expires) is said under the name instead."""
    context, page = member_page(browser, shop, PHONE)
    page.goto(f"{shop['url']}/settings/api-keys/")
    expect(page.get_by_role("button", name="Revoke deploy-pipeline")).to_be_in_viewport()
    expect(page.get_by_text("projects:manage · created ")).to_be_visible()
    expect(page.get_by_role("columnheader", name="Expires")).to_be_hidden()
    table = page.locator(".settings-table")
    assert table.evaluate("e => e.scrollWidth - e.clientWidth") == 0
    context.close()


def test_the_share_link_takes_a_phones_width_so_its_token_shows(browser, shop):
    context, page = member_page(browser, shop, PHONE)
    page.goto(f"{shop['url']}/projects/{shop['project']}/share/")
    link = page.locator("#share-page")
    expect(link).to_have_value(re.compile(shop["token"]))
    box = link.bounding_box()
    assert box["width"] > 0.8 * PHONE["width"]
    copy = page.get_by_role("button", name="Copy").first.bounding_box()
    assert copy["y"] >= box["y"] + box["height"]  # Copy under it, not squeezing it
    assert page.evaluate(PAGE_WIDTH)[0] <= PHONE["width"]
    context.close()


def test_on_a_phone_a_changes_field_is_above_its_before_and_after(browser, shop, factory):
    """As three columns a topic's name had some 105 pixels, and broke after each dot
    ("payments. / settled"). The field's name now has a line of its own, Before and After
    side by side under it, each name whole; a screen reader still reads a table."""
    from django.test import Client

    client = Client()
    client.cookies["__session"] = shop["session"]
    body = {
        "name": "Checkout",
        "consumes": [{"name": "cart.events"}, {"name": "payments.settled"}],
        "produces": [{"name": "orders.placed"}, {"name": "orders.cancelled"}],
    }
    assert put(client, f"/v1/projects/{shop['project']}/services/checkout", body).status_code == 200
    context, page = member_page(browser, shop, PHONE)
    page.goto(f"{shop['url']}/projects/{shop['project']}/history/")
    table = page.locator(".history-diff").first
    row = table.locator("tbody tr", has=page.locator("th", has_text="produces"))
    field, before, after = (row.locator(":scope > *").nth(i).bounding_box() for i in range(3))
    assert field["y"] < before["y"] and before["y"] == pytest.approx(after["y"], abs=1)
    assert before["x"] < after["x"] and field["width"] > before["width"] + after["width"] - 2
    lines = row.locator("td div").evaluate_all(
        """divs => divs.map(d => { const tops = new Set(); let seen = "";
        for (const node of d.childNodes) {  // the name's text, not the unseen "added: "
          if (node.nodeType !== 3) continue;
          seen += node.textContent;
          const range = document.createRange(); range.selectNodeContents(node);
          for (const r of range.getClientRects()) tops.add(Math.round(r.top));
        }
        return [seen, tops.size]; })"""
    )
    assert ["orders.cancelled", 1] in lines, lines
    assert [text for text, n in lines if n > 1] == []
    assert page.evaluate(PAGE_WIDTH)[0] <= PHONE["width"]
    tree = context.new_cdp_session(page).send("Accessibility.getFullAXTree")["nodes"]
    roles = [n["role"]["value"] for n in tree if not n.get("ignored") and "role" in n]
    assert roles.count("rowheader") >= 3 and roles.count("columnheader") >= 3
    context.close()


def test_on_a_phone_a_created_services_field_is_above_its_value(browser, shop):
    """A created service's Field and Value were two columns: a long topic's name broke over
    five lines in half the width. The field's name is on a line of its own, its value the
    table's width under it; a screen reader still reads a table."""
    context, page = member_page(browser, shop, PHONE)
    page.goto(f"{shop['url']}/projects/{shop['project']}/history/")
    table = page.locator("table.history-created").first
    row = table.locator("tbody tr", has=page.locator("th", has_text="name"))
    field, value = (row.locator(":scope > *").nth(i).bounding_box() for i in range(2))
    whole = table.bounding_box()
    assert field["y"] + field["height"] <= value["y"] + 1
    assert value["width"] >= whole["width"] - 2
    assert page.evaluate(PAGE_WIDTH)[0] <= PHONE["width"]
    tree = context.new_cdp_session(page).send("Accessibility.getFullAXTree")["nodes"]
    roles = [n["role"]["value"] for n in tree if not n.get("ignored") and "role" in n]
    assert roles.count("rowheader") >= 3
    context.close()


def test_on_a_laptop_a_changes_field_column_is_narrow_and_a_wrapped_item_indented(browser, shop):
    """The Field column asked for `clamp(7.5rem, 28%, 11rem)`, which Chromium takes as no
    width on a table's column: the three columns came out equal, a field's name alone in a
    third of the table. A value's line that wraps goes on indented: one topic, not two."""
    context, page = member_page(browser, shop, DESKTOP)
    page.goto(f"{shop['url']}/projects/{shop['project']}/history/")
    heads = page.locator(".history-diff").first.locator("thead th")
    field, before = heads.nth(0).bounding_box(), heads.nth(1).bounding_box()
    assert field["width"] < 0.5 * before["width"], (field, before)
    indent = page.locator(".history-changes td > div").first.evaluate(
        "d => [getComputedStyle(d).textIndent, getComputedStyle(d).paddingLeft]"
    )
    assert indent == ["-16px", "16px"]
    context.close()


def test_a_long_one_word_name_breaks_in_notices_buttons_and_labels_on_a_phone(browser, shop):
    """A 60-character name without a space spilled past a phone's screen: in the notice
    after adding a service, on the service delete page's button, and in the project delete
    page's "Type <name> to confirm"."""
    long_project = new_project(
        shop["client"], "AcmeCorporationEnterpriseArchitectureOverviewPlatform"
    )
    context, page = member_page(browser, shop, PHONE)
    project = f"{shop['url']}/projects/{shop['project']}"
    page.goto(f"{project}/services/new/")
    page.get_by_label("Name", exact=True).fill("NotificationPreferencesAndDeliverySchedulerForEU")
    page.get_by_role("button", name="Add service").click()
    expect(page.locator(".notice")).to_contain_text("NotificationPreferences")
    for where in (
        page.url,
        f"{project}/services/{shop['long_slug']}/delete/",
        f"{shop['url']}/projects/{long_project}/delete/",
    ):
        assert page.goto(where).status == 200, where
        width, screen = page.evaluate(PAGE_WIDTH)
        assert width <= screen, (where, width)
    button = page.get_by_role("button", name=re.compile("^Delete"))
    page.goto(f"{project}/services/{shop['long_slug']}/delete/")
    box = button.bounding_box()
    assert box["x"] >= 0 and box["x"] + box["width"] <= 390
    context.close()


def test_a_touch_screen_is_told_how_to_move_the_graph_by_touch(browser, shop):
    """A phone has no Ctrl, scroll wheel or arrow keys: the hint under the toolbar (and the
    graph's description to a screen reader) said how to use them."""
    touch = browser.new_context(viewport=PHONE, has_touch=True, is_mobile=True)
    desk = browser.new_context(viewport=DESKTOP)
    for context in (touch, desk):
        page = context.new_page()
        page.goto(f"{shop['url']}/share/{shop['token']}/")
        hint = page.locator("#viewer-hint")
        said = hint.inner_text()
        described = page.locator("[data-stage]").evaluate(
            "stage => document.getElementById(stage.getAttribute('aria-describedby')).innerText"
        )
        assert described == said
        if context is touch:
            assert said == (
                "Drag sideways to pan, pinch to zoom, tap a box to focus on it (Depth sets how "
                "far around it); Fit shows the whole graph."
            )
        else:
            assert said.startswith("Drag to pan, pinch or Ctrl/⌘ + scroll to zoom")
            assert "arrow keys pan" in said and "tap" not in said
        context.close()


def test_a_copy_button_says_it_copied_to_a_screen_reader_too(browser, shop):
    """Copy changed only its own text, which a screen reader does not read out; pressed twice
    in a row it kept "Copied" as its label for good."""
    context = browser.new_context(
        viewport=DESKTOP, permissions=["clipboard-read", "clipboard-write"]
    )
    context.add_cookies([{"name": "__session", "value": shop["session"], "url": shop["url"]}])
    page = context.new_page()
    page.goto(f"{shop['url']}/projects/{shop['project']}/share/")
    copy = page.get_by_role("button", name="Copy").first
    said = page.locator("[data-copy-said]")
    expect(said).to_have_attribute("aria-live", "polite")
    copy.click()
    expect(said).to_have_text("Copied")
    expect(copy).to_have_text("Copied")
    assert shop["token"] in page.evaluate("navigator.clipboard.readText()")
    copy.click()  # again, while it says Copied
    expect(copy).to_have_text("Copy")  # back to its own word, not "Copied" for good
    expect(said).to_have_text("")
    context.close()


def test_the_services_list_keeps_its_actions_in_the_row(browser, shop):
    """The actions cell was laid out as a flex box, out of the table's layout: its border
    ran 20 px above the row's, and on a phone its links made a column, each ending in
    a stray "·"."""
    for viewport in (PHONE, DESKTOP):
        context, page = member_page(browser, shop, viewport)
        page.goto(f"{shop['url']}/projects/{shop['project']}/services/")
        row = page.locator(".editor-table tbody tr").first
        cell = row.locator("td").last
        assert cell.evaluate("td => getComputedStyle(td).display") == "table-cell"
        links = cell.locator("a")
        tops = {round(links.nth(i).bounding_box()["y"]) for i in range(links.count())}
        assert len(tops) == 1, (viewport, tops)  # Edit, History, Delete on one line
        row_box, cell_box = row.bounding_box(), cell.bounding_box()
        assert cell_box["y"] + cell_box["height"] == pytest.approx(
            row_box["y"] + row_box["height"], abs=1
        )
        context.close()
