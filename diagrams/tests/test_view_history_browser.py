"""Back and Forward on the graph's views, in a real browser (Playwright driving Debian's
Chromium), on the demo project: another subject (a focus, the whole project again, a step
into the past or back to now) is a new entry in the browser's history, so Back returns to
the view before it instead of leaving the page; a new depth or another moment of the past
rewrites the entry shown; a page opened on an asked view adds no entry of its own. The
clicks and keys here are the browser's own input, as a member's are (Chromium's Back skips
entries a page added without them)."""

import re
from urllib.parse import parse_qs, urlparse

import pytest
from playwright.sync_api import expect

from accounts.services import session_start
from conftest import requires_chromium

pytestmark = [pytest.mark.browser, requires_chromium]

DESKTOP = {"width": 1366, "height": 800}


def member_page(browser, demo, address=""):
    context = browser.new_context(viewport=DESKTOP)
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
    page.goto(f"{demo['url']}/projects/{demo['project']}/{address}")
    expect(page.locator(".graph-stage g.node").first).to_be_visible()
    return context, page, errors


def asked(page) -> dict:
    return {key: values[0] for key, values in parse_qs(urlparse(page.url).query).items()}


def entries(page) -> int:
    return page.evaluate("history.length")


def settled(page):
    expect(page.locator("[data-status]")).to_have_text("")


def focus_from_table(page, entity_id: str):
    """A click (the browser's own) on a name in the Services or Topics table."""
    page.locator(f'[data-entity-lists] [data-focus-id="{entity_id}"]').first.click()


def test_back_and_forward_step_through_the_views_of_the_project_page(browser, demo):
    context, page, errors = member_page(browser, demo)
    nodes = page.locator(".graph-stage g.node")
    name = page.locator("[data-focus-name]")
    everything = nodes.count()
    opened = entries(page)

    focus_from_table(page, "service--checkout")
    expect(name).to_have_text("Checkout")
    settled(page)
    assert asked(page) == {"focus": "service--checkout", "depth": "1"}
    assert entries(page) == opened + 1

    # a depth is the same subject seen wider: the entry is rewritten, not added
    page.locator("[data-depth-select]").select_option("2")
    expect(page).to_have_url(re.compile(r"depth=2"))
    settled(page)
    assert entries(page) == opened + 1
    wider = nodes.count()

    page.locator("[data-group-filter]").focus()
    page.keyboard.press("End")  # the menu's last choice, by the keyboard
    chosen = page.locator("[data-group-filter]").input_value()
    assert chosen.startswith("flow--")
    expect(page).to_have_url(re.compile(f"focus={re.escape(chosen)}"))
    settled(page)
    assert entries(page) == opened + 2

    page.go_back()
    expect(name).to_have_text("Checkout")
    settled(page)
    assert asked(page) == {"focus": "service--checkout", "depth": "2"}
    expect(nodes).to_have_count(wider)
    assert page.locator("[data-depth-select]").input_value() == "2"
    assert page.locator("[data-group-filter]").input_value() == "service--checkout"

    page.go_back()
    expect(name).to_have_text("whole project")
    expect(nodes).to_have_count(everything)
    assert asked(page) == {}
    assert page.locator("[data-group-filter]").input_value() == ""

    page.go_forward()
    expect(name).to_have_text("Checkout")
    settled(page)
    assert asked(page)["focus"] == "service--checkout"
    assert entries(page) == opened + 2  # Back and Forward add nothing
    assert errors == []
    context.close()


def test_back_leaves_the_past_for_the_moment_before_and_keeps_what_find_holds(browser, demo):
    context, page, errors = member_page(browser, demo)
    nodes = page.locator(".graph-stage g.node")
    label = page.locator("[data-timeline-label]")
    everything = nodes.count()
    opened = entries(page)

    slider = page.locator("[data-timeline]")
    slider.focus()
    page.keyboard.press("ArrowLeft")  # into the past: a new entry
    expect(label).not_to_have_text("now")
    expect(page).to_have_url(re.compile(r"[?&]at="))  # drawn once the keys rest
    settled(page)
    first = asked(page)["at"]
    assert entries(page) == opened + 1
    page.keyboard.press("ArrowLeft")  # further back: the same entry, another moment
    expect(page).not_to_have_url(re.compile(re.escape(first.replace(":", "%3A"))))
    settled(page)
    assert entries(page) == opened + 1

    page.locator("#table-find").fill("pay")
    expect(page).to_have_url(re.compile(r"find=pay"))

    page.go_back()
    expect(label).to_have_text("now")
    expect(nodes).to_have_count(everything)
    expect(page.locator("[data-service-count]")).not_to_contain_text("then")
    assert "at" not in asked(page)
    # Find narrows the tables; it is not a place Back returns from
    assert asked(page).get("find") == "pay"
    assert page.locator("#table-find").input_value() == "pay"

    page.go_forward()
    expect(label).not_to_have_text("now")
    settled(page)
    assert asked(page)["at"] != first
    assert slider.input_value() == str(int(slider.get_attribute("max")) - 2)
    assert errors == []
    context.close()


def test_a_page_opened_on_an_asked_view_adds_no_entry_and_back_returns_to_it(browser, demo):
    context, page, errors = member_page(browser, demo)
    plain = entries(page)  # a new tab's blank page, then the page
    context.close()
    context, page, errors = member_page(browser, demo, "?focus=category--fulfilment&depth=0")
    name = page.locator("[data-focus-name]")
    expect(name).to_have_text("fulfilment")
    assert entries(page) == plain

    focus_from_table(page, "service--checkout")
    expect(name).to_have_text("Checkout")
    settled(page)
    assert entries(page) == plain + 1

    page.go_back()
    expect(name).to_have_text("fulfilment")
    assert asked(page) == {"focus": "category--fulfilment", "depth": "0"}
    assert page.locator("[data-depth-select]").input_value() == "0"
    assert errors == []
    context.close()


def test_an_address_asking_for_a_moment_to_come_opens_now_and_says_so(browser, demo):
    """A hand-edited (or long-kept) address with a moment still to come showed "as of
    2999" with "N services then" over the project as it is now; a moment to come typed into
    As of shows now. The address opens now too, and says so: the moment leaves it."""
    context, page, errors = member_page(browser, demo)
    count = page.locator("[data-service-count]").inner_text()
    plain = entries(page)
    context.close()
    for address, focus in (
        ("?at=2999-01-01T00:00:00Z", {}),
        (
            "?focus=category--fulfilment&depth=2&at=2999-01-01T00:00:00Z",
            {"focus": "category--fulfilment", "depth": "2"},
        ),
    ):
        context, page, errors = member_page(browser, demo, address)
        settled(page)
        expect(page).not_to_have_url(re.compile(r"at="))
        assert asked(page) == focus
        assert page.locator("[data-service-count]").inner_text() == count  # no "then"
        assert page.locator("[data-at]").input_value() == ""
        assert page.locator("[data-chat-past]").is_hidden()
        if focus:
            expect(page.locator("[data-focus-name]")).to_have_text("fulfilment")
        assert entries(page) == plain  # the address rewritten, not a new entry
        assert errors == []
        context.close()


@pytest.fixture
def share_token(demo):
    response = demo["client"].post(f"/v1/projects/{demo['project']}/public-share-token")
    return response.json()["token"]


def test_back_and_forward_step_through_the_views_of_a_shared_page(browser, demo, share_token):
    context = browser.new_context(viewport=DESKTOP)
    page = context.new_page()
    errors = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(f"{demo['url']}/share/{share_token}/")
    nodes = page.locator(".graph-stage g.node")
    expect(nodes.first).to_be_visible()
    everything = nodes.count()
    name = page.locator("[data-focus-name]")
    opened = entries(page)

    page.locator("[data-group-filter]").focus()
    page.keyboard.press("ArrowDown")  # the first category, by the keyboard
    chosen = page.locator("[data-group-filter]").input_value()
    assert chosen.startswith("category--")
    expect(page).to_have_url(re.compile(f"filteredIds={re.escape(chosen)}"))
    settled(page)
    assert entries(page) == opened + 1

    page.go_back()
    expect(name).to_have_text("whole project")
    expect(nodes).to_have_count(everything)
    assert asked(page) == {}

    page.go_forward()
    expect(page.locator("[data-group-filter]")).to_have_value(chosen)
    expect(nodes).not_to_have_count(everything)
    assert asked(page) == {"filteredIds": chosen, "depth": "1"}
    assert errors == []
    context.close()


def test_back_then_forward_at_once_shows_the_entry_gone_to(browser, demo):
    """Back asks for a drawing; Forward, before it came, used to be taken for the view on
    screen and asked nothing: the late drawing of Back then showed, and was pushed as a new
    entry over the one Forward went to."""
    context, page, errors = member_page(browser, demo)
    name = page.locator("[data-focus-name]")
    focus_from_table(page, "service--checkout")
    expect(name).to_have_text("Checkout")
    settled(page)
    focus_from_table(page, "service--cart")
    expect(name).to_have_text("Cart")
    settled(page)
    opened = entries(page)

    held = []
    page.route(re.compile(r".*/graph/svg\?.*"), lambda route, request: held.append(route))
    page.go_back()  # to Checkout: its drawing held back
    expect(page).to_have_url(re.compile(r"focus=service--checkout"))
    page.go_forward()  # to Cart again, before Checkout's drawing came
    expect(page).to_have_url(re.compile(r"focus=service--cart"))
    page.wait_for_timeout(200)
    for route in held:  # Checkout's drawing, then Cart's
        route.continue_()
    settled(page)
    page.wait_for_timeout(300)
    expect(name).to_have_text("Cart")
    assert asked(page)["focus"] == "service--cart"
    assert entries(page) == opened
    assert errors == []
    context.close()


def test_a_drawing_that_fails_after_back_leaves_the_history_as_it_was(browser, demo):
    context, page, errors = member_page(browser, demo)
    name = page.locator("[data-focus-name]")
    focus_from_table(page, "service--checkout")
    settled(page)
    focus_from_table(page, "service--cart")
    expect(name).to_have_text("Cart")
    settled(page)
    opened = entries(page)

    page.route(re.compile(r".*/graph/svg\?.*"), lambda route, request: route.abort())
    page.go_back()
    expect(page.locator("[data-status]")).not_to_have_text("")  # the failure, said
    expect(name).to_have_text("Cart")  # still on screen, and said so
    assert asked(page)["focus"] == "service--checkout"  # the entry Back went to
    assert entries(page) == opened  # nothing pushed over Forward's entry
    page.unroute(re.compile(r".*/graph/svg\?.*"))
    page.go_forward()
    assert asked(page)["focus"] == "service--cart"
    assert errors == []
    context.close()


def test_a_frame_opened_on_a_small_focus_takes_the_whole_projects_height_after(browser, demo):
    """The frame's bounds in the stylesheet were the first drawing's: after an address
    focused on one small service, the whole project (Back, show all) stayed as low."""
    context, page, errors = member_page(browser, demo)
    whole = page.locator(".graph-stage").bounding_box()["height"]
    context.close()
    context, page, errors = member_page(browser, demo, "?focus=category--fulfilment&depth=0")
    small = page.locator(".graph-stage").bounding_box()["height"]
    page.locator("[data-clear-focus]").click()
    expect(page.locator("[data-focus-name]")).to_have_text("whole project")
    settled(page)
    # the whole drawing's bounds (its width in units), then its height
    units = demo["client"].get(f"/v1/projects/{demo['project']}/graph").json()["width"]
    expect(page.locator(".graph-stage")).to_have_attribute(
        "style", re.compile(rf"--graph-w: {re.escape(f'{units:g}')}[0-9]*;")
    )
    page.wait_for_timeout(100)
    assert page.locator(".graph-stage").bounding_box()["height"] == pytest.approx(whole, abs=1)
    assert small != pytest.approx(whole, abs=1)  # (else this would show nothing)
    assert errors == []
    context.close()


def test_a_shared_page_names_a_category_focus_as_its_show_menu_does(browser, demo):
    """The server named it "Payments & Billing"; the script, with no names on a shared page,
    renamed it to its id's tail as it ran, and after every Back."""
    from diagrams.tests.helpers import new_project, new_service, post

    client = demo["client"]
    project = new_project(client, "Named")
    for name, category in (("Ledger", "Payments & Billing"), ("Mailer", "Mail")):
        new_service(
            client, project, {"name": name, "category": category, "produces": [{"name": "t"}]}
        )
    entities = client.get(f"/v1/projects/{project}/entities").json()
    category = next(i for i, c in entities["categories"].items() if c["name"].startswith("Pay"))
    token = post(client, f"/v1/projects/{project}/public-share-token").json()["token"]

    context = browser.new_context(viewport=DESKTOP)
    page = context.new_page()
    errors = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(f"{demo['url']}/share/{token}/?filteredIds={category}&depth=0")
    name = page.locator("[data-focus-name]")
    expect(name).to_have_text("Payments & Billing")
    expect(page.locator(".graph-stage g.node").first).to_be_attached()
    page.wait_for_timeout(300)  # the scripts have run
    expect(name).to_have_text("Payments & Billing")

    page.locator("[data-clear-focus]").click()
    expect(name).to_have_text("whole project")
    settled(page)
    page.go_back()
    expect(page).to_have_url(re.compile(re.escape(category)))
    settled(page)
    expect(name).to_have_text("Payments & Billing")
    assert errors == []
    context.close()


def test_the_keyboard_down_the_show_menu_adds_one_entry(browser, demo):
    """Each option the arrow keys pass is a view: each was an entry, so Back went one
    option up, and a member scanning twenty options needed twenty Backs."""
    context, page, errors = member_page(browser, demo)
    opened = entries(page)
    menu = page.locator("[data-group-filter]")
    # and the graph is drawn once, where the keys rest: it was drawn (and the view said
    # aloud) at every option passed
    drawn = []
    page.on(
        "request", lambda request: drawn.append(request.url) if "/graph" in request.url else None
    )
    menu.focus()
    for _ in range(4):
        page.keyboard.press("ArrowDown")
    chosen = menu.input_value()
    expect(page).to_have_url(re.compile(f"focus={re.escape(chosen)}"))
    settled(page)
    assert entries(page) == opened + 1
    assert len(drawn) == 1 and f"filteredIds={chosen}&" in drawn[0], drawn
    expect(page.locator("[data-focus-name]")).to_have_text(
        menu.locator("option:checked").get_attribute("data-name")
    )
    page.go_back()
    expect(page.locator("[data-focus-name]")).to_have_text("whole project")
    assert errors == []
    context.close()


def test_a_drawing_that_arrives_while_the_keys_move_on_does_not_take_their_choice_back(
    browser, demo
):
    """The option the arrow keys rest on is the one drawn, even when the drawing of the
    option before it arrives meanwhile: it set the menu back to its own, and that option
    was drawn again."""
    context, page, errors = member_page(browser, demo)
    menu = page.locator("[data-group-filter]")
    held = []
    # the first drawing asked for waits until the test lets it go on; the rest go at once
    page.route("**/graph/svg*", lambda route: route.continue_() if held else held.append(route))
    menu.focus()
    page.keyboard.press("ArrowDown")
    first = menu.input_value()
    page.wait_for_timeout(700)  # rested: the first option's drawing is asked for
    assert len(held) == 1 and f"filteredIds={first}&" in held[0].request.url
    page.keyboard.press("ArrowDown")
    second = menu.input_value()
    assert second != first
    held[0].continue_()  # the first option's drawing arrives while the second waits
    settled(page)
    expect(page).to_have_url(re.compile(f"focus={re.escape(second)}"))
    expect(menu).to_have_value(second)
    expect(page.locator("[data-focus-name]")).to_have_text(
        menu.locator("option:checked").get_attribute("data-name")
    )
    assert errors == []
    context.close()


def test_back_shows_the_graph_it_redraws(browser, demo):
    """The browser brings back where the page was scrolled when the entry was left: under
    the graph (a name clicked in the Topics table), so Back seemed to do nothing."""
    context, page, errors = member_page(browser, demo)
    focus_from_table(page, "service--checkout")
    settled(page)
    topic = page.locator('[data-entity-lists] [data-focus-id="messaging--stock-low"]').first
    topic.scroll_into_view_if_needed()
    page.wait_for_timeout(300)
    topic.click()  # the page goes up to the graph
    expect(page.locator("[data-focus-name]")).to_have_text("stock.low")
    settled(page)
    page.wait_for_timeout(800)  # the smooth scroll up has ended
    page.go_back()
    expect(page.locator("[data-focus-name]")).to_have_text("Checkout")
    expect(page.locator(".graph-stage")).to_be_in_viewport(ratio=0.5)
    assert errors == []
    context.close()


def test_back_to_the_whole_project_shows_the_depth_its_address_opens_with(browser, demo):
    """The disabled Depth kept the last focus's 2, and the next box clicked was focused at
    2, where the same address opened anew shows 1."""
    context, page, errors = member_page(browser, demo)
    focus_from_table(page, "service--checkout")
    settled(page)
    page.locator("[data-depth-select]").select_option("2")
    expect(page).to_have_url(re.compile(r"depth=2"))
    settled(page)
    page.go_back()
    expect(page.locator("[data-focus-name]")).to_have_text("whole project")
    expect(page.locator("[data-depth-select]")).to_have_value("1")
    assert errors == []
    context.close()
