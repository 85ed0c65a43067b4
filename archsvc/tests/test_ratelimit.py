"""Rate limits (interface §11): per actor, counted in the shared cache, 429 with the
RateLimitError body and a Retry-After equal to retryAfter."""

import json
import uuid

import pytest
from django.test import Client

from accounts.services import api_key_revoke
from archsvc.tests.servers import AppServer
from conftest import requires_postgres, requires_redis


def assert_rate_limited(response):
    assert response.status_code == 429
    body = response.json()
    assert set(body) == {"status", "code", "message", "retryAfter"}
    assert body["status"] == 429 and body["code"] == "rate_limited"
    assert 1 <= body["retryAfter"] <= 3600
    assert response["Retry-After"] == str(body["retryAfter"])


def test_reads_over_the_limit_are_429_per_key(factory, org, settings):
    settings.RATE_LIMIT_READ = "3/h"
    first, second = factory.key_client(org, "one"), factory.key_client(org, "two")
    for _ in range(3):
        assert first.get("/v1/limits").status_code == 200
    assert_rate_limited(first.get("/v1/limits"))
    # another key of the same organization has its own budget
    assert second.get("/v1/limits").status_code == 200


def test_writes_have_their_own_budget(factory, org, settings):
    settings.RATE_LIMIT_READ = "2/h"
    settings.RATE_LIMIT_WRITE = "1/h"
    client = factory.key_client(org)
    assert client.post("/v1/limits").status_code == 405
    assert_rate_limited(client.post("/v1/limits"))
    assert client.get("/v1/limits").status_code == 200


def test_members_are_counted_per_member(factory, org, settings):
    settings.RATE_LIMIT_READ = "2/h"
    ada = factory.member_client(factory.member(org))
    bob = factory.member_client(factory.member(org))
    ada.get("/v1/limits")
    ada.get("/v1/limits")
    assert_rate_limited(ada.get("/v1/limits"))
    assert bob.get("/v1/limits").status_code == 200


def test_a_members_posts_through_the_pages_share_their_write_budget(factory, org, settings):
    """The pages were a way around RATE_LIMIT_WRITE (140 services made through the editor in
    2 s, where the API refused past 120), and the Members form told anyone, unlimited,
    whether an address has an account. Pages and API count in one budget per member."""
    from diagrams.models import Project

    settings.RATE_LIMIT_WRITE = "3/h"
    settings.PLANS = {**settings.PLANS, "free": {"max_projects": 50, "ai_credits": 50}}
    member = factory.member(org, role="admin")
    browser = factory.member_client(member, enforce_csrf=False)
    for name in ("One", "Two"):
        assert browser.post("/", {"name": name}).status_code == 302
    api = factory.member_client(member, enforce_csrf=False)
    body = {"name": "Three", "description": ""}
    created = api.post("/v1/projects", body, content_type="application/json")
    assert created.status_code == 200, created.json()  # the third write of the member's budget
    refused = browser.post("/", {"name": "Four"}, HTTP_ACCEPT="text/html,*/*")
    assert refused.status_code == 429 and int(refused["Retry-After"]) >= 1
    assert "Nothing was saved: try again in" in refused.content.decode()
    assert_rate_limited(browser.post("/settings/members/", {"email": "who@example.com"}))
    assert not Project.objects.filter(name="Four").exists()
    # a colleague has a budget of their own; log-out always works
    colleague = factory.member_client(factory.member(org), enforce_csrf=False)
    assert colleague.post("/", {"name": "Five"}).status_code == 302
    # whoever holds a stolen session cannot keep its owner from the password change that
    # ends it (it has a budget of its own), nor from switching or leaving
    changed = browser.post(
        "/settings/account/",
        {"current": "wrong-password", "password": "x", "password2": "x"},
        HTTP_ACCEPT="text/html",
    )
    assert changed.status_code != 429
    assert browser.post("/accounts/switch/", {"organization": org.slug}).status_code != 429
    assert browser.post("/accounts/logout/").status_code == 302


def test_a_forged_page_post_counts_nothing(factory, org, settings):
    settings.RATE_LIMIT_WRITE = "1/h"
    member = factory.member(org)
    forged = factory.member_client(member, enforce_csrf=True)
    for _ in range(3):
        assert forged.post("/", {"name": "Forged"}).status_code == 403  # no CSRF token
    honest = factory.member_client(member, enforce_csrf=False)
    assert honest.post("/", {"name": "Honest"}).status_code == 302


def test_login_posts_are_limited_per_ip(factory, org, settings):
    settings.RATE_LIMIT_LOGIN = "2/h"
    factory.member(org, email="ada@example.com")
    client = Client()
    for _ in range(2):
        response = client.post(
            "/accounts/login/", {"email": "ada@example.com", "password": "wrong-one"}
        )
        assert response.status_code == 400
    response = client.post(
        "/accounts/login/", {"email": "ada@example.com", "password": "correct-horse-battery"}
    )
    assert_rate_limited(response)  # a script posting the form: RateLimitError
    assert "__session" not in response.cookies
    page = client.post(
        "/accounts/login/",
        {"email": "ada@example.com", "password": "correct-horse-battery"},
        HTTP_ACCEPT="text/html,*/*;q=0.8",
    )
    assert page.status_code == 429 and "Too many attempts" in page.content.decode()
    response = client.post(
        "/accounts/signup/",
        {"email": "x@example.com", "password": "a-long-password", "organization": "X"},
    )
    assert response.status_code == 429  # log-in and sign-up share one budget per IP
    other_ip = Client(REMOTE_ADDR="10.9.8.7")
    assert (
        other_ip.post(
            "/accounts/login/", {"email": "ada@example.com", "password": "correct-horse-battery"}
        ).status_code
        == 302
    )


def test_refused_requests_are_limited_per_ip(factory, org, settings):
    """Requests without valid credentials count against their client IP (interface §11), so
    guessing tokens or replaying a revoked key is not free of limits. They never eat into
    a real actor's budget, even from the same address."""
    settings.RATE_LIMIT_READ = "3/h"
    settings.RATE_LIMIT_WRITE = "2/h"
    anonymous = Client()
    guessing = Client(HTTP_AUTHORIZATION="Bearer not.a.token")
    assert anonymous.get("/v1/limits").status_code == 401
    assert guessing.get("/v1/projects").status_code == 401
    assert anonymous.get("/v1/projects/x/graph").status_code == 401
    assert_rate_limited(guessing.get("/v1/limits"))
    assert_rate_limited(anonymous.get("/v1/limits"))
    # writes have their own budget
    assert guessing.post("/v1/projects", {}, content_type="application/json").status_code == 401
    assert anonymous.delete("/v1/projects/x").status_code == 401
    assert_rate_limited(anonymous.post("/v1/projects", {}, content_type="application/json"))
    # another address, and a valid key from this one, are untouched
    assert Client(REMOTE_ADDR="10.9.8.7").get("/v1/limits").status_code == 401
    assert factory.key_client(org).get("/v1/limits").status_code == 200


def test_a_revoked_key_replayed_is_limited_per_ip(factory, org, settings):
    settings.RATE_LIMIT_READ = "2/h"
    token = factory.key(org, "leaked")
    client = Client(HTTP_AUTHORIZATION=f"Bearer {token}")
    assert client.get("/v1/limits").status_code == 200  # its own budget: 1 of 2
    api_key_revoke(organization=org, name="leaked")
    client = Client(HTTP_AUTHORIZATION=f"Bearer {token}")
    for _ in range(2):
        assert client.get("/v1/limits").status_code == 401
    assert_rate_limited(client.get("/v1/limits"))


def budget(response) -> tuple[int, int, int, str]:
    return (
        int(response["RateLimit-Limit"]),
        int(response["RateLimit-Remaining"]),
        int(response["RateLimit-Reset"]),
        response["RateLimit-Policy"],
    )


def test_every_response_says_where_the_budget_stands(factory, org, settings):
    """A script can pace itself from any answer, not only learn of the limit from a 429:
    the fields count down request by request, and the 429's Reset is its Retry-After."""
    settings.RATE_LIMIT_READ = "3/h"
    settings.RATE_LIMIT_WRITE = "5/m"
    client = factory.key_client(org)
    seen = []
    for _ in range(3):
        response = client.get("/v1/limits")
        assert response.status_code == 200
        limit, remaining, reset, policy = budget(response)
        assert (limit, policy) == (3, "3;w=3600")
        assert 1 <= reset <= 3600
        seen.append(remaining)
    assert seen == [2, 1, 0]
    refused = client.get("/v1/limits")
    assert_rate_limited(refused)
    assert budget(refused)[:2] == (3, 0)
    assert refused["RateLimit-Reset"] == refused["Retry-After"]
    # a write says where the write budget stands, untouched by the reads
    response = client.post(
        "/v1/projects", {"name": "Paced", "description": ""}, content_type="application/json"
    )
    assert response.status_code == 200
    limit, remaining, reset, policy = budget(response)
    assert (limit, remaining, policy) == (5, 4, "5;w=60")
    assert 1 <= reset <= 60
    # an error still counts, and says so
    missing = client.get("/v1/projects/no-such-project")
    assert missing.status_code == 429  # the read budget is spent
    assert budget(missing)[1] == 0


def test_waiting_what_the_429_says_is_enough(factory, org, settings):
    """A script that sleeps Retry-After (or RateLimit-Reset) seconds is let through: both
    were up to a second short, and the retry met another 429."""
    import time

    settings.RATE_LIMIT_READ = "1/4s"
    client = factory.key_client(org)
    assert client.get("/v1/limits").status_code == 200
    for _ in range(8):  # until a wait of 2 s or more was tried (where a short one shows)
        refused = client.get("/v1/limits")
        assert_rate_limited(refused)
        assert refused["RateLimit-Reset"] == refused["Retry-After"]
        wait = int(refused["Retry-After"])
        time.sleep(wait)
        assert client.get("/v1/limits").status_code == 200, f"after {wait} s"
        if wait >= 2:
            break
    else:
        raise AssertionError("no wait of 2 s or more in 8 tries")


def test_refused_credentials_say_where_the_address_budget_stands(settings):
    settings.RATE_LIMIT_READ = "4/h"
    response = Client(REMOTE_ADDR="10.1.2.3").get("/v1/limits")
    assert response.status_code == 401
    assert budget(response)[:2] == (4, 3)


def test_rate_limits_can_be_switched_off(factory, org, settings):
    settings.RATE_LIMIT_READ = "1/h"
    settings.RATE_LIMIT_ENABLED = False
    client = factory.key_client(org)
    for _ in range(3):
        response = client.get("/v1/limits")
        assert response.status_code == 200
        assert "RateLimit-Limit" not in response  # nothing counted, nothing claimed


@requires_postgres
@requires_redis
@pytest.mark.django_db(transaction=True)
def test_count_holds_across_processes_sharing_redis(factory):
    org = factory.org("multi")
    first, second = factory.key(org, "one"), factory.key(org, "two")
    env = {"RATE_LIMIT_READ": "5/h", "CACHE_KEY_PREFIX": f"test-{uuid.uuid4().hex}"}
    with AppServer(env=env) as a, AppServer(env=env) as b:
        servers = [a, b]
        for i in range(5):
            status, _, _ = servers[i % 2].request("GET", "/v1/limits", first)
            assert status == 200
        for server in servers:
            status, headers, body = server.request("GET", "/v1/limits", first)
            assert status == 429
            payload = json.loads(body)
            assert payload["code"] == "rate_limited"
            assert headers["Retry-After"] == str(payload["retryAfter"])
            assert headers["RateLimit-Remaining"] == "0"
        # the other key is counted on its own, on both processes
        assert a.request("GET", "/v1/limits", second)[0] == 200
        assert b.request("GET", "/v1/limits", second)[0] == 200
