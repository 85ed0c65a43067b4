"""Time travel on the project page in a real browser (Playwright driving Debian's Chromium), at
a phone's 390 x 844 and a laptop's 1280 x 800, as a member review found it: the first step back
wrote "3 services then" into the header, which pushed its links onto a new line, and the
slider's label and the "changed since" legend took more lines, so the graph and everything
under it dropped by some 80 pixels; and two changes made in the same minute had the same
label."""

from datetime import datetime, timedelta

import pytest
from django.utils import timezone
from playwright.sync_api import expect

from conftest import requires_chromium
from diagrams.demo import _backdate
from diagrams.models import Project
from diagrams.tests.helpers import new_project, new_service, put, signed_in

pytestmark = [
    pytest.mark.browser,
    requires_chromium,
]

PHONE = {"width": 390, "height": 844}
LAPTOP = {"width": 1280, "height": 800}
LONG_NAME = "Payment Reconciliation Settlement"

# Every frame, where the graph's frame is: a move in between two readings counts too.
WATCH_FRAME = """() => {
    const frame = document.querySelector(".graph-frame");
    window.frameTops = new Set();
    const look = () => {
        window.frameTops.add(frame.getBoundingClientRect().top);
        requestAnimationFrame(look);
    };
    look();
}"""


@pytest.fixture
def payments(live_server, factory):
    """A project of 3 services whose newest change is yesterday's; before it, one of the long
    name, and before that two changes of Pricing 35 seconds apart in one minute. At 390
    pixels its header held the links beside "3 services" but not beside "3 services then"."""
    org = factory.org("acme")
    membership = factory.member(org, role="admin")
    client = factory.member_client(membership, enforce_csrf=False)
    days = timezone.now().replace(second=0, microsecond=0)

    def day(ago: int, hour: int, minute: int, second: int = 0) -> datetime:
        return (days - timedelta(days=ago)).replace(hour=hour, minute=minute, second=second)

    project = new_project(client, "Payments platform")
    moments = {}

    def happened(when: datetime) -> None:
        moments[Project.objects.get(pk=project).updated_at] = when

    happened(day(20, 9, 0))
    pricing = {"name": "Pricing", "produces": [{"name": "prices.changed"}]}
    ledger = {"name": "Ledger", "consumes": [{"name": "payments.settled"}]}
    settlement = {
        "name": LONG_NAME,
        "consumes": [{"name": "prices.changed"}],
        "produces": [{"name": "payments.settled"}],
    }
    slugs = {}
    for minute, body in ((5, pricing), (10, ledger), (20, settlement)):
        slugs[body["name"]] = new_service(client, project, body)["slug"]
        happened(day(20, 9, minute))
    changes = [
        (day(3, 8, 15, 7), pricing, {"owner": "pricing-team"}),
        (day(3, 8, 15, 42), pricing, {"owner": "pricing-squad"}),
        (day(2, 10, 0), settlement, {"owner": "payments-team"}),
        (day(1, 16, 45), ledger, {"owner": "ledger-team"}),
    ]
    for when, body, change in changes:
        path = f"/v1/projects/{project}/services/{slugs[body['name']]}"
        changed = put(client, path, {**body, **change})
        assert changed.status_code == 200, changed.content
        happened(when)
    _backdate(Project.objects.get(pk=project), moments)
    return {
        "url": live_server.url,
        "project": project,
        "membership": membership,
        "pricing": [day(3, 8, 15, 7), day(3, 8, 15, 42)],
        "settlement": day(2, 10, 0),
    }


def project_page(browser, payments, viewport):
    context = signed_in(browser, payments["membership"], payments["url"], viewport=viewport)
    page = context.new_page()
    errors = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(f"{payments['url']}/projects/{payments['project']}/")
    expect(page.locator(".graph-stage g.node").first).to_be_visible()
    page.wait_for_load_state("networkidle")
    return context, page, errors


def shown(page, label: str) -> None:
    """The moment asked for is drawn, and the tables and the count say it."""
    expect(page.locator("[data-timeline-label]")).to_have_text(label)
    expect(page.locator("[data-service-count]")).to_have_text("3 services then")
    expect(page.locator("[data-entity-lists]")).not_to_have_attribute("aria-busy", "true")
    expect(page.locator("[data-status]")).to_have_text("")
    page.wait_for_load_state("networkidle")
    page.wait_for_timeout(200)  # a few frames for the watch


def frame_tops(page) -> list[float]:
    return sorted(page.evaluate("[...window.frameTops]"))


def stamp(when: datetime, seconds: bool = False) -> str:
    return when.strftime("%Y-%m-%d %H:%M:%S" if seconds else "%Y-%m-%d %H:%M")


@pytest.mark.parametrize("viewport", [PHONE, LAPTOP], ids=["phone", "laptop"])
def test_stepping_back_in_time_does_not_move_the_graph(browser, payments, viewport):
    context, page, errors = project_page(browser, payments, viewport)
    frame = page.locator(".graph-frame")
    at_rest = frame.evaluate("frame => frame.getBoundingClientRect().top")
    page.evaluate(WATCH_FRAME)
    slider = page.locator("[data-timeline]")
    slider.focus()
    slider.press("ArrowLeft")  # before yesterday's change: the long name's
    shown(page, f"{LONG_NAME} updated · {stamp(payments['settlement'])}")
    expect(page.locator("[data-changed-legend]")).to_be_visible()
    stepped = frame.evaluate("frame => frame.getBoundingClientRect().top")
    assert stepped == at_rest, f"{viewport}: the graph's frame moved from {at_rest} to {stepped}"
    slider.press("ArrowLeft")
    shown(page, f"Pricing updated · {stamp(payments['pricing'][1], seconds=True)}")
    assert frame_tops(page) == [at_rest], viewport
    # nothing of the moment was hidden to keep the graph still: the count, the label and the
    # legend are on the screen, each on one line
    for said in ("[data-service-count]", "[data-timeline-label]", "[data-changed-text]"):
        box = page.locator(said).bounding_box()
        assert box["x"] >= 0 and box["x"] + box["width"] <= viewport["width"], said
        assert box["height"] < 30, said
    page.locator("[data-now]").click()
    expect(page.locator("[data-timeline-label]")).to_have_text("now")
    expect(page.locator("[data-service-count]")).to_have_text("3 services")
    page.wait_for_load_state("networkidle")
    assert frame_tops(page) == [at_rest], viewport
    assert errors == []
    context.close()


def test_as_of_on_a_phone_does_not_move_the_graph(browser, payments):
    context, page, errors = project_page(browser, payments, PHONE)
    at_rest = page.locator(".graph-frame").evaluate("frame => frame.getBoundingClientRect().top")
    page.evaluate(WATCH_FRAME)
    moment = payments["pricing"][0] + timedelta(seconds=20)  # between Pricing's two changes
    page.locator("[data-at]").fill(moment.strftime("%Y-%m-%dT%H:%M:%S"))
    page.locator("[data-at]").press("Enter")
    shown(page, f"Pricing updated · {stamp(payments['pricing'][0], seconds=True)}")
    assert frame_tops(page) == [at_rest]
    assert errors == []
    context.close()


def test_two_changes_in_one_minute_have_labels_that_tell_them_apart(browser, payments):
    """Both read "Pricing updated · <day> 08:15": the seconds are said where a neighbouring
    change lies in the same minute, and only there, so the labels stay short for a phone."""
    context, page, errors = project_page(browser, payments, PHONE)
    slider = page.locator("[data-timeline]")
    label = page.locator("[data-timeline-label]")
    heading = page.get_by_role("heading", name="Services as of")
    first, second = payments["pricing"]
    slider.focus()
    slider.press("ArrowLeft")
    shown(page, f"{LONG_NAME} updated · {stamp(payments['settlement'])}")  # alone in its minute
    labels = []
    for when in (second, first):
        slider.press("ArrowLeft")
        shown(page, f"Pricing updated · {stamp(when, seconds=True)}")
        expect(heading).to_have_text(f"Services as of {stamp(when, seconds=True)} UTC")
        labels.append(label.text_content())
        # seen whole on the phone: nothing of it cut
        assert label.evaluate("label => label.scrollWidth <= label.clientWidth"), labels[-1]
    assert labels[0] != labels[1]
    assert errors == []
    context.close()
