"""The assistant's chat panel in a real browser, as a member uses it: one question at a time
(one request, one credit), chips named whatever the graph shows, a visible wait, a question
that survives an error, the way to more credits, what a screen reader hears, a form that
stays on screen, a cited entity that brings the graph into view on a phone, and the length
limit said out loud."""

import json
import re

import pytest
from playwright.sync_api import expect

from accounts.services import session_start
from billing.services import ai_credits_spend
from conftest import requires_chromium
from diagrams.tests.helpers import new_project, new_service

pytestmark = [
    pytest.mark.browser,
    requires_chromium,
]

LAPTOP = {"width": 1280, "height": 800}
PHONE = {"width": 390, "height": 844}
CHAT = "**/ai/chat"


@pytest.fixture
def shop(live_server, factory):
    """A member of "acme" with a project of four services over three topics, each service
    with an owner: comms owns Notifier and Mailer, far from Checkout and Fraud Check."""
    org = factory.org("acme")
    membership = factory.member(org, role="admin")
    client = factory.member_client(membership, enforce_csrf=False)
    project = new_project(client, "Shop")
    for body in (
        {"name": "Checkout", "owner": "storefront", "produces": [{"name": "orders.placed"}]},
        {
            "name": "Fraud Check",
            "owner": "risk",
            "category": "security",
            "consumes": [{"name": "orders.placed"}],
            "produces": [{"name": "fraud.verdicts"}],
        },
        {"name": "Notifier", "owner": "comms", "produces": [{"name": "emails.requested"}]},
        {"name": "Mailer", "owner": "comms", "consumes": [{"name": "emails.requested"}]},
    ):
        new_service(client, project, body)
    return {
        "url": live_server.url,
        "org": org,
        "project": project,
        "session": session_start(membership=membership),
    }


@pytest.fixture
def open_page(browser, shop):
    contexts = []

    def open_(viewport=LAPTOP):
        context = browser.new_context(viewport=viewport)
        context.add_cookies([{"name": "__session", "value": shop["session"], "url": shop["url"]}])
        contexts.append(context)
        page = context.new_page()
        page.goto(f"{shop['url']}/projects/{shop['project']}/")
        expect(page.locator(".graph-stage g.node").first).to_be_visible()
        return page

    yield open_
    for context in contexts:
        context.close()


def chat_posts(page) -> list:
    """The chat requests the page sends, as they leave the browser."""
    sent = []
    page.on(
        "request",
        lambda request: (
            sent.append(request)
            if request.method == "POST" and request.url.endswith("/ai/chat")
            else None
        ),
    )
    return sent


def hold_replies(page) -> list:
    """Chat requests wait at the network's edge until the test lets them go on."""
    held = []
    page.route(CHAT, lambda route: held.append(route))
    return held


def ask(page, question: str, answers: int):
    page.fill("#chat-input", question)
    page.press("#chat-input", "Enter")
    expect(page.locator(".chat-assistant")).to_have_count(answers)


def test_enter_while_a_reply_is_pending_sends_nothing_and_spends_nothing(open_page):
    page = open_page()
    sent = chat_posts(page)
    held = hold_replies(page)
    page.fill("#chat-input", "who consumes orders placed?")
    page.press("#chat-input", "Enter")
    expect(page.locator("[data-chat-form] button")).to_be_disabled()
    # the next question typed while waiting: Enter, twice, and the Ask button do nothing
    page.fill("#chat-input", "and what breaks if checkout fails?")
    page.press("#chat-input", "Enter")
    page.press("#chat-input", "Enter")
    page.locator("[data-chat-form] button").click(force=True)
    page.wait_for_timeout(300)
    assert len(sent) == 1 and len(held) == 1
    held.pop().continue_()
    expect(page.locator(".chat-assistant .chat-text")).to_have_text(
        "Fraud Check consumes orders.placed."
    )
    expect(page.locator("[data-chat-credits]")).to_have_text("49 credits left")
    expect(page.locator(".chat-user")).to_have_count(1)
    # the second question waited in the box; sent now, it carries the first turn
    expect(page.locator("#chat-input")).to_have_value("and what breaks if checkout fails?")
    page.unroute(CHAT)
    page.press("#chat-input", "Enter")
    expect(page.locator(".chat-assistant")).to_have_count(2)
    expect(page.locator("[data-chat-credits]")).to_have_text("48 credits left")
    assert len(sent) == 2
    history = json.loads(sent[1].post_data)["history"]
    assert [turn["role"] for turn in history] == ["user", "assistant"]
    assert history[0]["content"] == "who consumes orders placed?"


def test_chips_show_names_when_the_graph_does_not_draw_them(open_page):
    page = open_page()
    ask(page, "what does comms own?", 1)
    owner_chip = page.locator(".chat-assistant .chip", has_text="comms")
    expect(owner_chip).to_have_text("comms")
    owner_chip.click()
    expect(page.locator("[data-focus-name]")).to_have_text("comms")
    nodes = page.locator(".graph-stage g.node")
    expect(nodes).to_have_count(3)  # Notifier, Mailer and emails.requested
    expect(
        page.locator('.graph-stage g.node[data-entity-id="service--fraud-check"]')
    ).to_have_count(0)
    ask(page, "who consumes orders placed?", 2)
    chips = page.locator(".chat-assistant").last.locator(".chip")
    expect(chips).to_have_text(["orders.placed", "Fraud Check"])
    chips.last.click()
    expect(page.locator("[data-focus-name]")).to_have_text("Fraud Check")


def test_a_pending_reply_shows_thinking_and_a_disabled_button_until_it_arrives(open_page):
    page = open_page()
    ask_button = page.locator("[data-chat-form] button")
    color = "b => getComputedStyle(b).backgroundColor"
    enabled_color = ask_button.evaluate(color)
    held = hold_replies(page)
    page.fill("#chat-input", "who owns fraud check?")
    ask_button.click()
    page.mouse.move(0, 0)  # not hovered: the colour is the button's own
    pending = page.locator(".chat-log .chat-pending")
    expect(pending).to_have_text("Thinking…")
    expect(page.locator("[data-chat-log]")).to_have_attribute("aria-busy", "true")
    expect(ask_button).to_be_disabled()
    assert ask_button.evaluate(color) != enabled_color
    assert ask_button.evaluate("b => getComputedStyle(b).cursor") == "not-allowed"
    page.wait_for_timeout(100)
    held.pop().continue_()
    expect(page.locator(".chat-assistant .chat-text")).to_have_text("Fraud Check is owned by risk.")
    expect(pending).to_have_count(0)
    expect(page.locator("[data-chat-log]")).not_to_have_attribute("aria-busy", "true")
    expect(ask_button).to_be_enabled()
    assert ask_button.evaluate(color) == enabled_color


def test_a_failed_request_gives_the_question_back(open_page):
    page = open_page()
    page.route(CHAT, lambda route: route.abort("connectionrefused"))
    page.fill("#chat-input", "what breaks if checkout fails?")
    page.press("#chat-input", "Enter")
    error = page.locator(".chat-error")
    expect(error).to_contain_text("could not be reached")
    expect(error).to_have_attribute("role", "alert")
    expect(page.locator(".chat-pending")).to_have_count(0)
    expect(page.locator("#chat-input")).to_have_value("what breaks if checkout fails?")
    page.unroute(CHAT)
    page.press("#chat-input", "Enter")  # sent again as it was
    expect(page.locator(".chat-assistant")).to_contain_text("If Checkout fails")
    expect(page.locator("#chat-input")).to_have_value("")
    expect(page.locator("[data-chat-credits]")).to_have_text("49 credits left")


def test_with_no_credits_the_panel_says_so_and_links_to_billing(open_page, shop):
    ai_credits_spend(organization=shop["org"], amount=50)
    page = open_page()
    expect(page.locator("[data-chat-credits]")).to_have_text("0 credits left")
    notice = page.locator("[data-chat-out]")
    expect(notice).to_be_visible()
    expect(notice).to_contain_text("no AI credits left until 20")
    expect(notice.get_by_role("link", name="Settings, Billing")).to_have_attribute(
        "href", "/settings/billing/"
    )
    # the box stays usable (a plan changed in another tab adds credits at once); asking
    # anyway says why nothing happened and keeps the question
    page.fill("#chat-input", "who owns fraud check?")
    page.press("#chat-input", "Enter")
    error = page.locator(".chat-error")
    expect(error).to_have_text(
        "No AI credits left. Nothing was spent. Your question is back in the box to send again."
    )
    expect(page.locator("#chat-input")).to_have_value("who owns fraud check?")
    # said once: the note below holds the date and the way to more (it was said twice)
    panel = page.locator("[data-chat]")
    expect(panel.get_by_text("refill", exact=False)).to_have_count(0)
    expect(panel.get_by_role("link", name="Settings, Billing")).to_have_count(1)
    notice.get_by_role("link", name="Settings, Billing").click()
    expect(page).to_have_url(f"{shop['url']}/settings/billing/")


@pytest.mark.parametrize("typed", ["   \n  ", ""])
def test_a_question_of_spaces_is_told_to_type_one_and_sends_nothing(open_page, typed):
    """An empty box got the browser's own bubble ("Please fill out this field"), which
    stayed on screen over the next answer; the panel says it as it does for spaces."""
    page = open_page()
    sent = chat_posts(page)
    page.fill("#chat-input", typed)
    page.press("#chat-input", "Enter")
    expect(page.locator("[data-chat-length]")).to_have_text("Type a question first.")
    assert page.evaluate("document.activeElement.id") == "chat-input"
    page.wait_for_timeout(200)
    assert sent == [] and page.locator(".chat-user").count() == 0
    page.fill("#chat-input", "who owns fraud check?")  # typing takes the words away
    expect(page.locator("[data-chat-length]")).to_have_text("")


def test_too_many_questions_say_how_long_to_wait(open_page, settings):
    settings.RATE_LIMIT_ENABLED = True
    settings.RATE_LIMIT_AI = "1/h"
    page = open_page()
    ask(page, "who owns fraud check?", 1)
    page.fill("#chat-input", "what breaks if checkout fails?")
    page.press("#chat-input", "Enter")
    error = page.locator(".chat-error")
    expect(error).to_contain_text("Too many questions in a short time: ask again in ")
    # the hour's window ends in minutes, or (asked in its last two) seconds
    wait = re.search(r"ask again in (\d+) (seconds?|minutes)\.", error.inner_text())
    assert wait, error.inner_text()
    seconds = int(wait.group(1)) * (60 if wait.group(2) == "minutes" else 1)
    assert 1 <= seconds <= 3600, error.inner_text()
    expect(page.locator("#chat-input")).to_have_value("what breaks if checkout fails?")
    expect(page.locator("[data-chat-credits]")).to_have_text("49 credits left")


def test_credits_running_out_during_the_conversation_show_the_notice(open_page, shop):
    ai_credits_spend(organization=shop["org"], amount=49)
    page = open_page()
    expect(page.locator("[data-chat-out]")).to_be_hidden()
    ask(page, "who owns fraud check?", 1)
    expect(page.locator("[data-chat-credits]")).to_have_text("0 credits left")
    expect(page.locator("[data-chat-out]")).to_be_visible()


def test_a_screen_reader_hears_the_reply_and_the_credits_not_the_question(open_page):
    page = open_page()
    log = page.locator("[data-chat-log]")
    assert log.get_attribute("aria-live") is None
    assert log.get_attribute("role") != "log"
    # the reply is said first, then the credits left (they came first, before the answer)
    page.evaluate(
        """() => { window.liveOrder = [];
        for (const region of document.querySelectorAll('[data-chat-said], [data-chat-credits]'))
          new MutationObserver(() => { if (region.textContent)
            window.liveOrder.push(region.hasAttribute('data-chat-said') ? 'reply' : 'credits'); })
            .observe(region, {childList: true, characterData: true, subtree: true}); }"""
    )
    ask(page, "who consumes orders placed?", 1)
    said = page.locator("[data-chat-said]")
    expect(said).to_have_attribute("aria-live", "polite")
    expect(said).to_have_text("Fraud Check consumes orders.placed.")
    credits = page.locator("[data-chat-credits]")
    expect(credits).to_have_attribute("aria-live", "polite")
    expect(credits).to_have_text("49 credits left")
    assert page.evaluate("window.liveOrder") == ["reply", "credits"]
    # neither the question nor the chips are inside a live region
    in_live_region = "e => !!e.closest('[aria-live], [role=alert], [role=status], [role=log]')"
    assert page.locator(".chat-user").evaluate(in_live_region) is False
    assert page.locator(".chat-assistant .chip").first.evaluate(in_live_region) is False


def test_the_question_box_stays_on_screen_as_answers_pile_up(open_page):
    page = open_page(LAPTOP)
    questions = [
        "summary",
        "what breaks if checkout fails?",
        "what changed in the last 7 days?",
        "who consumes orders placed?",
        "what does comms own?",
    ]
    for count, question in enumerate(questions, start=1):
        ask(page, question, count)
        for control in ("#chat-input", "[data-chat-form] button", "[data-chat-credits]"):
            expect(page.locator(control)).to_be_in_viewport(ratio=1)
        expect(page.locator(".chat-assistant").last).to_be_in_viewport()
    box = page.locator("[data-chat]").bounding_box()
    assert box["y"] + box["height"] <= LAPTOP["height"]
    assert page.evaluate("window.scrollY") == 0
    log = page.locator("[data-chat-log]")
    assert log.evaluate("l => l.scrollHeight > l.clientHeight")  # it scrolls inside the panel


def test_on_a_phone_a_cited_entity_brings_the_graph_into_view(open_page):
    page = open_page(PHONE)
    ask(page, "who consumes orders placed?", 1)
    stage = page.locator(".graph-stage")
    page.locator("[data-chat]").evaluate("chat => chat.scrollIntoView({block: 'start'})")
    expect(stage).not_to_be_in_viewport()
    page.locator(".chat-assistant .chip", has_text="Fraud Check").click()
    expect(stage).to_be_in_viewport(ratio=0.5)
    expect(page.locator("[data-focus-name]")).to_have_text("Fraud Check")


def test_a_long_paste_says_where_the_limit_is(open_page):
    page = open_page()
    hint = page.locator("[data-chat-length]")
    expect(hint).to_have_text("")
    page.fill("#chat-input", "x" * 3700)
    expect(hint).to_have_text("3700 of 4000 characters at most.")
    page.fill("#chat-input", "")
    page.locator("#chat-input").focus()
    page.keyboard.insert_text("y" * 5000)  # what a paste types
    expect(page.locator("#chat-input")).to_have_js_property("value", "y" * 4000)
    expect(hint).to_have_text("4000 characters at most: the rest is cut off.")
    expect(page.locator("#chat-input")).to_have_attribute("aria-describedby", "chat-length")


def test_the_conversation_survives_a_reload_and_is_forgotten_at_log_out(open_page):
    """A reload (the address now keeps the graph's view) lost the whole conversation, and a
    follow-up had nothing to follow."""
    page = open_page()
    ask(page, "who consumes orders.placed?", 1)
    expect(page.locator(".chat-assistant")).to_contain_text("Fraud Check")
    page.reload()
    expect(page.locator(".chat-user .chat-text")).to_have_text(["who consumes orders.placed?"])
    expect(page.locator(".chat-assistant")).to_contain_text("Fraud Check")
    expect(page.locator(".chat-assistant .chip").first).to_be_visible()  # its chips too
    sent = chat_posts(page)
    ask(page, "and who produces it?", 2)
    assert json.loads(sent[0].post_data)["history"][0] == {
        "role": "user",
        "content": "who consumes orders.placed?",
    }
    expect(page.locator(".chat-assistant").nth(1)).to_contain_text("Checkout produces")
    page.get_by_role("button", name="Log out").click()
    expect(page.get_by_role("heading", name="Log in")).to_be_visible()
    assert page.evaluate("Object.keys(sessionStorage).filter(k => k.startsWith('archsvc:'))") == []


def test_whoever_logs_in_next_in_the_tab_does_not_see_or_send_the_last_conversation(
    open_page, shop, factory
):
    """A session that ended without the Log out button (it expired, the member was removed)
    left the conversation for the next member in the tab, and sent it as their history."""
    page = open_page()
    ask(page, "who consumes orders.placed?", 1)
    other = factory.member(shop["org"], email="bob@example.com")
    page.context.clear_cookies()
    page.context.add_cookies(
        [{"name": "__session", "value": session_start(membership=other), "url": shop["url"]}]
    )
    page.reload()
    expect(page.locator(".graph-stage g.node").first).to_be_visible()
    expect(page.locator(".chat-user")).to_have_count(0)
    keys = page.evaluate("Object.keys(sessionStorage).filter(k => k.startsWith('archsvc:chat'))")
    assert keys == []  # the other member's conversation is gone from the tab too
    sent = chat_posts(page)
    ask(page, "who produces orders.placed?", 1)
    assert json.loads(sent[0].post_data).get("history", []) == []


def test_while_the_graph_shows_the_past_the_chat_says_its_answers_are_about_now(open_page):
    """The assistant answers about the project now. At a past moment the panel says so,
    and a name cited in an answer shows that entity now: at the moment shown Fraud Check
    did not exist yet, and its chip emptied the graph."""
    page = open_page()
    note = page.locator("[data-chat-past]")
    expect(note).to_be_hidden()
    slider = page.locator("[data-timeline]")
    slider.fill("0")  # the first change: only Checkout exists
    slider.dispatch_event("change")
    expect(page.locator(".graph-stage g.node")).to_have_count(2)  # Checkout, orders.placed
    expect(note).to_be_visible()
    expect(note).to_contain_text("answers are about the project now")
    ask(page, "who consumes orders placed?", 1)
    page.locator(".chat-assistant .chip", has_text="Fraud Check").click()
    expect(page.locator("[data-focus-name]")).to_have_text("Fraud Check")
    expect(page.locator("[data-timeline-label]")).to_have_text("now")
    expect(
        page.locator('.graph-stage g.node[data-entity-id="service--fraud-check"]')
    ).to_have_count(1)
    expect(note).to_be_hidden()


def test_a_reply_that_lists_things_shows_a_list(open_page):
    """The built-in analyst lists what a question reaches as "- " lines: shown as a list, each
    item wrapping under itself (it was a run of dashed lines, hard to scan); still text."""
    page = open_page()
    ask(page, "What breaks if Checkout fails?", 1)
    reply = page.locator(".chat-assistant .chat-text")
    items = reply.locator("ul.chat-list > li")
    expect(items).to_have_count(1)
    expect(items.first).to_have_text("Fraud Check (via Checkout → orders.placed → Fraud Check)")
    expect(reply.locator("p").first).to_contain_text("If Checkout fails")
    assert "- Fraud Check" not in reply.inner_text()
    # a dash in the middle of a line, and the question, are as typed
    ask(page, "who owns Fraud Check - and Mailer?", 2)
    expect(page.locator(".chat-user .chat-text").nth(1)).to_have_text(
        "who owns Fraud Check - and Mailer?"
    )


def test_showing_a_replys_other_chips_moves_focus_to_the_first_of_them(browser, shop, factory):
    """ "+N more" went away when pressed and focus fell to the page's body: the next Tab
    started again at the top of the page, and a screen reader said nothing."""
    client = factory.member_client(
        factory.member(shop["org"], email="more@example.com"), enforce_csrf=False
    )
    project = new_project(client, "Many")
    for index in range(9):
        new_service(client, project, {"name": f"Worker {index}", "owner": "comms"})
    context = browser.new_context(viewport=LAPTOP)
    context.add_cookies([{"name": "__session", "value": shop["session"], "url": shop["url"]}])
    page = context.new_page()
    page.goto(f"{shop['url']}/projects/{project}/")
    expect(page.locator(".graph-stage g.node").first).to_be_visible()
    ask(page, "what does comms own?", 1)
    reply = page.locator(".chat-assistant").last
    more = reply.locator(".chip.more")
    expect(more).to_be_visible()
    hidden = reply.locator(".chip[hidden]").count()
    assert hidden > 0
    more.focus()
    page.keyboard.press("Enter")
    expect(more).to_have_count(0)
    chips = reply.locator(".chip")
    expect(chips.nth(chips.count() - hidden)).to_be_focused()
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.tagName") != "BODY"
    context.close()
