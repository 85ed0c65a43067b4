"""The render budget (RENDER_BUDGET_SECONDS): every `at` and every focus is its own render,
so without a budget one caller could make every read a new render of seconds (found by a
security review). An organization's members and keys share one budget a minute, a share
link's anonymous readers one per address; past it a read that would render is 429 with
Retry-After, while cached reads and the member's own project page still answer."""

import time
from datetime import UTC, datetime, timedelta

import pytest
from django.test import Client

from archsvc.render_budget import BUDGET_WINDOW
from diagrams.tests.helpers import new_project, new_service, post


@pytest.fixture
def tight(settings):
    settings.RENDER_BUDGET_SECONDS = 0.001  # the first render spends it
    # the budget is a minute's (render_budget.BUDGET_WINDOW): a test that began in its last
    # seconds would see a new minute's budget halfway through
    into_minute = time.time() % BUDGET_WINDOW
    if into_minute > BUDGET_WINDOW - 10:
        time.sleep(BUDGET_WINDOW - into_minute + 0.1)


@pytest.fixture
def shop(factory, org):
    membership = factory.member(org, role="admin")
    member = factory.member_client(membership, enforce_csrf=False)
    project = new_project(member)
    for name in ("Cart", "Checkout", "Billing"):
        new_service(member, project, {"name": name, "produces": [{"name": f"{name}.events"}]})
    return {"member": member, "project": project}


def past(seconds: int) -> str:
    return (datetime.now(UTC) - timedelta(seconds=seconds)).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def assert_budget_spent(response):
    assert response.status_code == 429, response.content
    assert 1 <= int(response["Retry-After"]) <= 60


def test_an_organization_past_its_budget_gets_429_for_new_renders_only(tight, factory, org, shop):
    key = factory.key_client(org, "ci")
    graph = f"/v1/projects/{shop['project']}/graph"
    first_url = f"{graph}?at={past(1)}"
    assert key.get(first_url).status_code == 200
    refused = key.get(f"{graph}?at={past(2)}")
    assert_budget_spent(refused)
    body = refused.json()
    assert (body["code"], body["retryAfter"]) == ("rate_limited", int(refused["Retry-After"]))
    # the same read again is cached: it costs nothing and answers
    assert key.get(first_url).status_code == 200
    # the organization's members share the budget; the member's own page still shows
    assert_budget_spent(shop["member"].get(f"{graph}/svg?at={past(3)}"))
    assert shop["member"].get(f"/projects/{shop['project']}/").status_code == 200
    # another organization has its own
    other = factory.org("other")
    other_key = factory.key_client(other, "ci")
    other_project = new_project(other_key, "Theirs")
    assert other_key.get(f"/v1/projects/{other_project}/graph?at={past(4)}").status_code == 200


def test_with_the_render_cache_off_every_render_is_budgeted_and_logged(
    tight, settings, factory, org, shop, caplog
):
    """RENDER_CACHE_SECONDS=0 keeps nothing; it does not lift the budget, nor hide what
    renders cost from the logs."""
    settings.RENDER_CACHE_SECONDS = 0
    key = factory.key_client(org, "ci")
    graph = f"/v1/projects/{shop['project']}/graph"
    with caplog.at_level("INFO", logger="diagrams.render_cache"):
        assert key.get(graph).status_code == 200
    assert [r.getMessage().split(" in ")[0] for r in caplog.records] == [
        f"render computed: json of {shop['project']}"
    ]
    assert_budget_spent(key.get(graph))  # the same read again: nothing was kept


def test_share_links_are_budgeted_per_address(tight, shop):
    token = post(shop["member"], f"/v1/projects/{shop['project']}/public-share-token").json()[
        "token"
    ]
    reader = Client(REMOTE_ADDR="10.0.0.1")
    svg = f"/share/{token}/graph.svg"
    assert reader.get(f"{svg}?filteredIds=service--cart").status_code == 200
    assert_budget_spent(reader.get(f"{svg}?filteredIds=service--checkout"))
    embed = reader.get(f"/share/{token}/embed/?filteredIds=service--billing")
    assert_budget_spent(embed)
    assert b"retry" in embed.content
    assert reader.get(f"{svg}?filteredIds=service--cart").status_code == 200  # cached
    elsewhere = Client(REMOTE_ADDR="10.0.0.2")
    assert elsewhere.get(f"{svg}?filteredIds=service--checkout").status_code == 200


def test_without_a_budget_every_render_answers(settings, factory, org, shop):
    settings.RENDER_BUDGET_SECONDS = 0
    key = factory.key_client(org, "ci")
    for seconds in range(1, 6):
        response = key.get(f"/v1/projects/{shop['project']}/graph?at={past(seconds)}")
        assert response.status_code == 200


def test_the_project_page_after_a_write_counts_against_the_budget(tight, factory, org, shop):
    """A write then a reload is a new state to draw: once the organization's budget is
    spent, the page still opens (its tables, its history) and says when the graph is back."""
    page = shop["member"].get(f"/projects/{shop['project']}/")
    graph = b'aria-label="Architecture of'  # the graph's own <svg> (icons are svg too)
    assert page.status_code == 200 and graph in page.content  # the first drawing: within
    new_service(shop["member"], shop["project"], {"name": "Refunds"})
    page = shop["member"].get(f"/projects/{shop['project']}/")
    assert page.status_code == 200
    assert graph not in page.content
    assert b"redrawn too often" in page.content
    assert b'data-focus-id="service--refunds"' in page.content  # the tables are there


def test_the_current_services_and_entities_answer_with_the_budget_spent(tight, factory, org, shop):
    """Data, not drawings: a script that writes and then reads the services is not refused
    for the organization's time travel. Past states stay budgeted (each `at` is a read)."""
    key = factory.key_client(org, "ci")
    base = f"/v1/projects/{shop['project']}"
    assert key.get(f"{base}/graph?at={past(1)}").status_code == 200  # spends the budget
    assert_budget_spent(key.get(f"{base}/graph/svg?at={past(2)}"))
    new_service(key, shop["project"], {"name": "Refunds"})  # a new state: nothing cached
    services = key.get(f"{base}/services")
    assert services.status_code == 200 and "Refunds" in {s["name"] for s in services.json()}
    assert "service--refunds" in key.get(f"{base}/entities").json()["services"]
    assert_budget_spent(key.get(f"{base}/services?at={past(3)}"))
    assert_budget_spent(key.get(f"{base}/graph"))  # the drawing of the new state still is


def test_a_spent_budget_says_so_in_its_message_and_its_rate_limit_fields(tight, factory, org, shop):
    """The 429 said the read budget's RateLimit-Remaining and -Reset (593 left, reset in
    40 s) beside a Retry-After of 58, and "Too many requests": a script pacing itself on
    those fields met 429 after 429, not knowing why."""
    key = factory.key_client(org, "ci")
    graph = f"/v1/projects/{shop['project']}/graph"
    assert key.get(f"{graph}?at={past(1)}").status_code == 200
    refused = key.get(f"{graph}?at={past(2)}")
    assert_budget_spent(refused)
    wait = refused["Retry-After"]
    assert refused["RateLimit-Remaining"] == "0"
    assert refused["RateLimit-Reset"] == wait
    message = refused.json()["message"]
    assert message.startswith("This organization's new drawings took their share")
    assert message.endswith(f"Retry in {wait} second{'' if wait == '1' else 's'}.")
    # an ordinary read still counts against, and says, its own budget
    allowed = key.get(f"/v1/projects/{shop['project']}")
    assert int(allowed["RateLimit-Remaining"]) > 0
