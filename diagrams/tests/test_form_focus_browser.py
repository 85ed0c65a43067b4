"""Forms in a real browser, as a keyboard or screen-reader user meets them: after a refused
submit the cursor is on the first field to fix; a destructive button asks first; the service
editor names its Remove buttons after their rows and stops offering extras at the limit;
long one-word input never widens a phone's page."""

import pytest
from playwright.sync_api import expect

from accounts.models import ApiKey
from accounts.services import session_start
from conftest import requires_chromium
from diagrams.tests.helpers import new_project, new_service

pytestmark = [pytest.mark.browser, requires_chromium]

PHONE = {"width": 390, "height": 844}
LAPTOP = {"width": 1280, "height": 800}
PAGE_WIDTH = "[document.documentElement.scrollWidth, window.innerWidth]"
FOCUSED = "document.activeElement && (document.activeElement.id || document.activeElement.name)"
LONG_WORD = "W" * 60


@pytest.fixture
def shop(live_server, factory):
    org = factory.org("acme")
    membership = factory.member(org, email="ada@example.com", role="admin")
    client = factory.member_client(membership, enforce_csrf=False)
    project = new_project(client, "Shop")
    client.put(  # one word of 200 characters as the description
        f"/v1/projects/{project}",
        {"description": "w" * 200},
        content_type="application/json",
    )
    new_project(client, LONG_WORD)
    new_service(client, project, {"name": "Checkout", "produces": [{"name": "orders.placed"}]})
    new_service(client, project, {"name": "Payments" + "X" * 52, "owner": "payments-team"})
    factory.key(org, "deploy-pipeline")
    return {
        "url": live_server.url,
        "org": org,
        "project": project,
        "session": session_start(membership=membership),
    }


def member_page(browser, shop, viewport=LAPTOP):
    context = browser.new_context(viewport=viewport)
    context.add_cookies([{"name": "__session", "value": shop["session"], "url": shop["url"]}])
    return context, context.new_page()


def submit(page):
    page.locator("main form button[type=submit]").last.click()
    page.wait_for_load_state("load")


def test_a_refused_service_puts_the_cursor_on_the_first_field_to_fix(browser, shop):
    context, page = member_page(browser, shop)
    page.goto(f"{shop['url']}/projects/{shop['project']}/services/new/")
    page.get_by_label("Name", exact=True).fill("\u200b")
    page.get_by_label("Produced topic category").first.fill("events")
    page.locator("form.editor-form button[type=submit]").click()
    page.wait_for_load_state("load")
    expect(page.get_by_role("alert")).to_contain_text("Nothing was saved")
    assert page.evaluate(FOCUSED) == "id_name"
    # the name fixed, the next submit lands on the topic row that still has no name
    page.get_by_label("Name", exact=True).fill("Inventory")
    page.locator("form.editor-form button[type=submit]").click()
    page.wait_for_load_state("load")
    assert page.evaluate(FOCUSED) == "produces-name"
    focused = page.locator(":focus")
    expect(focused).to_have_accessible_description(
        "Topic: A topic needs a name (or empty its row to leave it out)."
    )
    context.close()


def test_a_refused_project_name_puts_the_cursor_on_it(browser, shop):
    context, page = member_page(browser, shop)
    page.goto(shop["url"] + "/")
    page.get_by_label("Name", exact=True).fill("\u200b\u200b\u200b")  # passes minlength
    page.get_by_role("button", name="Create project").click()
    page.wait_for_load_state("load")
    assert page.evaluate(FOCUSED) == "id_name"
    expect(page.locator(":focus")).to_have_accessible_description(
        "Must contain a visible character, not only spaces or invisible ones."
    )
    # a name too short is said by the page, as every other refusal is, not by a bubble
    # of the browser's that a screen reader may never hear (Enter sent nothing)
    page.get_by_label("Name", exact=True).fill("ab")
    page.get_by_label("Name", exact=True).press("Enter")
    page.wait_for_load_state("load")
    assert page.evaluate(FOCUSED) == "id_name"
    expect(page.locator(":focus")).to_have_accessible_description(
        "A project's name has 3 to 60 characters."
    )
    expect(page.locator(":focus")).to_have_attribute("aria-invalid", "true")
    context.close()


def test_signup_puts_the_cursor_on_the_field_in_question_not_the_email(browser, live_server):
    page = browser.new_page(viewport=LAPTOP)
    page.goto(live_server.url + "/accounts/signup/")
    page.get_by_label("E-mail").fill("new.person@example.com")
    page.get_by_label("Password").fill("short")
    page.get_by_label("Organization name").fill("Initech")
    page.get_by_role("button", name="Create organization").click()
    page.wait_for_load_state("load")
    assert page.evaluate(FOCUSED) == "id_password"
    page.close()


def test_a_refused_log_in_puts_the_cursor_on_the_password_not_the_email(browser, shop):
    """The e-mail was kept (the usual mistake is the password, which is emptied): typing
    again goes where the correction is, not into the e-mail to be tabbed out of."""
    page = browser.new_page(viewport=LAPTOP)
    page.goto(shop["url"] + "/accounts/login/")
    assert page.evaluate(FOCUSED) == "id_email"  # an empty form starts at the top
    page.get_by_label("E-mail").fill("nobody@example.com")
    page.get_by_label("Password").fill("wrong password")
    page.get_by_role("button", name="Log in").click()
    page.wait_for_load_state("load")
    expect(page.get_by_role("alert")).to_be_visible()
    assert page.get_by_label("E-mail").input_value() == "nobody@example.com"
    assert page.evaluate(FOCUSED) == "id_password"
    page.close()


def test_revoking_a_key_asks_first(browser, shop):
    context, page = member_page(browser, shop)
    page.goto(shop["url"] + "/settings/api-keys/")
    revoke = page.get_by_role("button", name="Revoke deploy-pipeline")
    questions = []

    def answer(accept):
        def on_dialog(dialog):
            questions.append(dialog.message)
            dialog.accept() if accept else dialog.dismiss()

        return on_dialog

    page.once("dialog", answer(False))
    revoke.click()
    page.wait_for_timeout(300)  # a dismissed confirm sends nothing: give a POST time to show
    assert questions and "Revoke the key “deploy-pipeline”?" in questions[0]
    assert ApiKey.objects.filter(name="deploy-pipeline", revoked_at__isnull=True).exists()
    page.once("dialog", answer(True))
    revoke.click()
    expect(page.get_by_role("status")).to_contain_text("is revoked")
    assert not ApiKey.objects.filter(name="deploy-pipeline", revoked_at__isnull=True).exists()
    context.close()


def test_making_an_admin_or_stepping_down_asks_first(browser, shop, factory):
    """A role changed on one click: a member made admin (members, keys, billing), or the
    admin's own role lowered, which they could not undo. Other changes are not asked."""
    from accounts.models import Membership

    bob = factory.member(shop["org"], email="bob@example.com")
    factory.member(shop["org"], email="cy@example.com", role="admin")
    context, page = member_page(browser, shop)
    page.goto(shop["url"] + "/settings/members/")
    questions = []

    def answer(dialog):
        questions.append(dialog.message)
        dialog.dismiss()

    page.on("dialog", answer)
    page.get_by_label("Role of bob@example.com", exact=True).select_option("admin")
    page.get_by_role("button", name="Change the role of bob@example.com").click()
    page.wait_for_timeout(300)
    assert questions == [
        "Make bob@example.com an admin? They can then add and remove members, make API keys "
        "and manage billing."
    ]
    assert Membership.objects.get(pk=bob.pk).role == "member"
    page.get_by_label("Role of ada@example.com", exact=True).select_option("member")
    page.get_by_role("button", name="Change the role of ada@example.com").click()
    page.wait_for_timeout(300)
    assert questions[1].startswith("Make yourself a member?")
    assert Membership.objects.get(user__email="ada@example.com").role == "admin"
    # leaving is said as leaving
    page.get_by_role("button", name="Remove ada@example.com").click()
    page.wait_for_timeout(300)
    assert questions[2] == (
        "Leave Acme? You are logged out at once, and only an admin can add you again."
    )
    # lowering someone else's role is not asked
    page.get_by_label("Role of cy@example.com", exact=True).select_option("member")
    page.get_by_role("button", name="Change the role of cy@example.com").click()
    expect(page.get_by_role("status")).to_contain_text("cy@example.com is now member.")
    assert len(questions) == 3
    context.close()


def test_reloading_after_a_form_shows_the_page_and_sends_nothing_again(browser, shop):
    """A reload after creating a key used to post the form again: "An active API key with
    this name exists", and the key just shown was gone."""
    context, page = member_page(browser, shop)
    page.goto(shop["url"] + "/settings/api-keys/")
    page.get_by_label("Name", exact=True).fill("nightly-export")
    page.get_by_role("button", name="Create key").click()
    expect(page.locator("[data-focus-select]")).to_be_visible()
    methods = []
    page.on("request", lambda request: methods.append((request.method, request.url)))
    response = page.reload()
    assert response.request.method == "GET"
    assert ("POST", shop["url"] + "/settings/api-keys/") not in methods
    expect(page.get_by_role("heading", name="API keys")).to_be_visible()
    expect(page.locator("main")).not_to_contain_text("exists")
    expect(page.locator("[data-focus-select]")).to_have_count(0)  # shown once, as it says
    assert ApiKey.objects.filter(name="nightly-export").count() == 1
    context.close()


def test_the_editor_names_remove_buttons_and_stops_at_twenty_extras(browser, shop):
    context, page = member_page(browser, shop)
    page.goto(f"{shop['url']}/projects/{shop['project']}/services/checkout/edit/")
    expect(page.get_by_role("button", name="Remove produced topic orders.placed")).to_be_visible()
    page.get_by_label("Consumed topic name").first.fill("cart.updated")
    expect(page.get_by_role("button", name="Remove consumed topic cart.updated")).to_be_visible()
    add = page.get_by_role("button", name="Add an extra")
    extras = page.locator("[data-rows=extras] [data-row]")
    while extras.count() < 20:
        expect(add).to_be_enabled()
        add.click()
    expect(add).to_be_disabled()
    expect(page.get_by_text("That is the most a service can have: 20 extras.")).to_be_visible()
    page.get_by_role("button", name="Remove extra").first.click()
    expect(add).to_be_enabled()
    context.close()


@pytest.mark.parametrize("viewport", [PHONE, LAPTOP], ids=["phone", "laptop"])
def test_long_one_word_input_never_widens_the_page(browser, shop, viewport):
    context, page = member_page(browser, shop, viewport)
    page.goto(shop["url"] + "/")
    expect(page.get_by_role("link", name=LONG_WORD, exact=True)).to_be_visible()
    assert page.evaluate(PAGE_WIDTH)[0] <= viewport["width"]
    page.goto(f"{shop['url']}/projects/{shop['project']}/services/")
    assert page.evaluate(PAGE_WIDTH)[0] <= viewport["width"]
    header = page.get_by_role("columnheader", name="Name")
    assert header.evaluate("e => e.getClientRects().length") == 1
    if viewport is PHONE:  # the columns that do not fit are said under the name instead
        expect(page.get_by_role("columnheader", name="Category")).to_be_hidden()
        expect(page.get_by_text("payments-team · consumes 0, produces 0")).to_be_visible()
    page.goto(f"{shop['url']}/projects/{shop['project']}/")
    expect(page.locator(".project-description")).to_be_visible()
    assert page.evaluate(PAGE_WIDTH)[0] <= viewport["width"]
    page.goto(f"{shop['url']}/projects/{shop['project']}/services/new/")
    page.get_by_label("Name", exact=True).fill("Search")
    page.get_by_label("Flows").fill("f" * 300)
    page.locator("form.editor-form button[type=submit]").click()
    page.wait_for_load_state("load")
    expect(page.get_by_text("Flow 1 (“" + "f" * 39 + "…”)")).to_be_visible()
    assert page.evaluate(PAGE_WIDTH)[0] <= viewport["width"]
    context.close()


def test_the_first_tab_skips_to_the_content(browser, shop):
    context, page = member_page(browser, shop)
    page.goto(f"{shop['url']}/settings/api-keys/")
    skip = page.get_by_role("link", name="Skip to content")
    expect(skip).not_to_be_in_viewport()
    page.keyboard.press("Tab")
    expect(skip).to_be_focused()
    expect(skip).to_be_in_viewport()
    page.keyboard.press("Enter")
    page.keyboard.press("Tab")  # past the header's five stops, into the page
    assert page.evaluate("document.activeElement.closest('main') !== null")
    context.close()


def test_back_after_logging_out_shows_the_login_not_a_redirect_loop(browser, shop):
    context, page = member_page(browser, shop)
    deep = f"/projects/{shop['project']}/services/"
    page.goto(f"{shop['url']}/accounts/login/?next={deep}")  # logged in: straight through
    expect(page).to_have_url(shop["url"] + deep)
    page.get_by_role("button", name="Log out").click()
    expect(page.get_by_role("heading", name="Log in")).to_be_visible()
    expect(page.get_by_role("status")).to_have_text("You are logged out.")
    page.go_back()
    expect(page.get_by_role("heading", name="Log in")).to_be_visible()
    assert "/accounts/login/" in page.url
    context.close()


ACTIVE = (
    "[document.activeElement.tagName, document.activeElement.textContent.trim(),"
    " document.activeElement.getAttribute('role')]"
)


def test_what_a_full_page_action_did_gets_the_focus(browser, shop):
    """After Revoke, Save or Delete the page came back with its notice in it and the focus on
    the page's body: a screen reader said nothing of the notice (a status already in a page
    that loads is not announced), and Tab started again at the header's links."""
    context, page = member_page(browser, shop)
    page.goto(shop["url"] + "/settings/api-keys/")
    page.once("dialog", lambda dialog: dialog.accept())
    page.get_by_role("button", name="Revoke deploy-pipeline").click()
    page.wait_for_load_state("load")
    expect(page.get_by_role("status")).to_contain_text("is revoked")
    tag, text, role = page.evaluate(ACTIVE)
    assert (tag, role) == ("DIV", "status") and "is revoked" in text
    # Tab goes on from the notice, in the page's content, not back at the header
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.closest('main') !== null")
    # a service saved in the editor: its "Service … saved" notice on the page it goes to
    page.goto(f"{shop['url']}/projects/{shop['project']}/services/checkout/edit/")
    # (a form left as it was saves nothing, and says so)
    page.get_by_label("Owner (team)").fill("checkout-guild")
    page.get_by_role("button", name="Save").first.click()
    page.wait_for_load_state("load")
    tag, text, role = page.evaluate(ACTIVE)
    assert role == "status" and text.startswith("Service “Checkout”"), text
    # a page whose field takes the cursor keeps it: logging out lands in the e-mail field
    page.get_by_role("button", name="Log out").click()
    page.wait_for_load_state("load")
    expect(page.get_by_role("status")).to_contain_text("logged out")
    assert page.evaluate("document.activeElement.getAttribute('type')") == "email"
    # on a page of one card the notice is above it, as wide (it stood beside the card)
    notice = page.get_by_role("status").bounding_box()
    card = page.locator("main .card").bounding_box()
    assert notice["y"] + notice["height"] <= card["y"]
    assert abs(notice["x"] - card["x"]) < 1 and abs(notice["width"] - card["width"]) < 1
    context.close()


def test_a_topic_row_shows_the_topics_category_and_owner_and_says_when_it_changes_them(
    browser, shop, factory
):
    """A topic's category and owner are merged from every service naming it, the latest
    write winning: a consumer typing another category changed the topic for everyone
    without a word, and an empty field gave no sign that it keeps what is there."""
    writer = factory.key_client(shop["org"], "writer")
    new_service(
        writer,
        shop["project"],
        {
            "name": "Inventory",
            "produces": [{"name": "stock.low", "category": "alert", "owner": "warehouse-team"}],
        },
    )
    context, page = member_page(browser, shop)
    page.goto(f"{shop['url']}/projects/{shop['project']}/services/new/")
    topic = page.get_by_label("Consumed topic name").first
    category = page.get_by_label("Consumed topic category").first
    owner = page.get_by_label("Consumed topic owner").first
    topic.fill("stock.low")
    expect(category).to_have_attribute("placeholder", "alert, kept if empty")
    expect(owner).to_have_attribute("placeholder", "warehouse-team, kept if empty")
    note = page.locator("[data-topic-note]")
    expect(note).to_have_count(0)
    category.fill("alert")  # the same: nothing to say
    expect(note).to_have_count(0)
    category.fill("event")
    expect(note).to_have_text(
        "Saving gives stock.low the category “event” (it is “alert”) for the whole project."
    )
    category.fill("")
    expect(note).to_have_count(0)
    topic.fill("brand.new")  # a topic no service names yet
    expect(category).to_have_attribute("placeholder", "category")
    context.close()
