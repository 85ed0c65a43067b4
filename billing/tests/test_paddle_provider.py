"""The Paddle provider against a real HTTP server on 127.0.0.1 that answers like Paddle
Billing's API (recorded example payloads): portal sessions and subscription updates."""

import json
import socket
import threading
import time
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from billing.models import Subscription
from billing.tests.helpers import deliver, member_api, paddle_event, post, subscription_state

SUB = "sub_01hv8x29kz0t586xy6zn1a62ny"
CTM = "ctm_01hv6y1jedq4p1n0yqn5ba3ky4"
OVERVIEW = (
    "https://customer-portal.paddle.com/cpl_01j7zbyqs3vah3c4a8gnz3cmaz/overview"
    "?action=overview&token=pga_eyJhbGciOiJFZERTQSIsImtpZCI6Imp3a18wMWhkazgzdGp"
)
SWITCH = "/v1/billing/subscription/switch-cycle"
PORTAL = "/v1/billing/portal-session"


def portal_session_example(customer_id: str) -> dict:
    return {
        "data": {
            "id": "cpls_01h4ge9r64c22exjsx0fy8b48b",
            "customer_id": customer_id,
            "urls": {
                "general": {"overview": OVERVIEW},
                "subscriptions": [
                    {
                        "id": SUB,
                        "cancel_subscription": "https://customer-portal.paddle.com/"
                        "cpl_01j7zbyqs3vah3c4a8gnz3cmaz/subscriptions/"
                        f"{SUB}/cancel?token=pga_x",
                        "update_subscription_payment_method": "https://customer-portal.paddle.com/"
                        "cpl_01j7zbyqs3vah3c4a8gnz3cmaz/"
                        f"subscriptions/{SUB}/"
                        "update-payment-method?token=pga_x",
                    }
                ],
            },
            "created_at": "2025-03-10T15:37:54.167814Z",
        },
        "meta": {"request_id": "9e1c5b6d-4a4a-4f3c-8e59-8d4e1b7f2a10"},
    }


def subscription_update_example(subscription_id: str, price_id: str) -> dict:
    return {
        "data": {
            "id": subscription_id,
            "status": "active",
            "customer_id": CTM,
            "address_id": "add_01hv8gq3318ktkfengj2r75gfx",
            "business_id": None,
            "currency_code": "USD",
            "created_at": "2025-03-01T10:00:00.000000Z",
            "updated_at": "2025-03-10T15:38:01.112358Z",
            "started_at": "2025-03-01T10:00:00.000000Z",
            "first_billed_at": "2025-03-01T10:00:00.000000Z",
            "next_billed_at": "2026-03-10T15:38:00.5Z",
            "paused_at": None,
            "canceled_at": None,
            "collection_mode": "automatic",
            "billing_details": None,
            "current_billing_period": {
                "starts_at": "2025-03-10T15:38:00.5Z",
                "ends_at": "2026-03-10T15:38:00.5Z",
            },
            "billing_cycle": {"interval": "year", "frequency": 1},
            "scheduled_change": None,
            "items": [
                {
                    "status": "active",
                    "quantity": 1,
                    "recurring": True,
                    "created_at": "2025-03-01T10:00:00.000000Z",
                    "updated_at": "2025-03-10T15:38:01.112358Z",
                    "previously_billed_at": "2025-03-10T15:38:00.5Z",
                    "next_billed_at": "2026-03-10T15:38:00.5Z",
                    "price": {
                        "id": price_id,
                        "product_id": "pro_01hv8p2sr2y1hq4ztqcwd1pxhj",
                        "billing_cycle": {"interval": "year", "frequency": 1},
                    },
                }
            ],
            "custom_data": {"organization": "acme", "plan": "team"},
            "management_urls": {"update_payment_method": None, "cancel": None},
            "discount": None,
            "import_meta": None,
        },
        "meta": {"request_id": "5b3c2a11-0c5e-4c39-9a0e-1b07d2b0c6f4"},
    }


class FakePaddle:
    """A ThreadingHTTPServer on 127.0.0.1 that records each request and answers like
    Paddle; `fail_with` makes every answer that status with Paddle's error body."""

    def __init__(self):
        self.requests: list[dict] = []
        self.fail_with: int | None = None
        self.answer_raw: bytes | None = None
        self.delay = 0.0
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def _handle(self):
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length) if length else b""
                fake.requests.append(
                    {
                        "method": self.command,
                        "path": self.path,
                        "headers": {k.lower(): v for k, v in self.headers.items()},
                        "body": json.loads(raw) if raw else None,
                    }
                )
                time.sleep(fake.delay)
                status, body = fake.answer(self.command, self.path, raw)
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            do_POST = do_PATCH = do_GET = _handle  # noqa: N815

            def log_message(self, *args):
                pass

            def handle_one_request(self):
                try:
                    super().handle_one_request()
                except OSError:  # the client gave up waiting (the timeout test)
                    self.close_connection = True

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.base_url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(
            target=self.server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )

    def answer(self, method: str, path: str, raw: bytes) -> tuple[int, bytes]:
        if self.fail_with:
            return self.fail_with, json.dumps(
                {
                    "error": {
                        "type": "api_error",
                        "code": "internal_error",
                        "detail": "An internal error has occurred.",
                        "documentation_url": "https://developer.paddle.com/v1/errors/"
                        "shared/internal_error",
                    },
                    "meta": {"request_id": "0d7e3f1c-1111-4d1e-9a9a-222233334444"},
                }
            ).encode()
        if self.answer_raw is not None:
            return 200, self.answer_raw
        parts = path.strip("/").split("/")
        if (
            method == "POST"
            and len(parts) == 3
            and parts[0] == "customers"
            and parts[2] == "portal-sessions"
        ):
            return 201, json.dumps(portal_session_example(parts[1])).encode()
        if method == "PATCH" and len(parts) == 2 and parts[0] == "subscriptions":
            price = json.loads(raw)["items"][0]["price_id"]
            return 200, json.dumps(subscription_update_example(parts[1], price)).encode()
        return 404, json.dumps({"error": {"type": "request_error", "code": "not_found"}}).encode()


@pytest.fixture
def paddle(settings):
    fake = FakePaddle()
    fake.thread.start()
    settings.BILLING_PROVIDER = "paddle"
    settings.PADDLE_API_BASE_URL = fake.base_url
    settings.PADDLE_API_KEY = "pdl_test_key"
    settings.PADDLE_TIMEOUT_SECONDS = 5
    settings.BILLING_WEBHOOK_SECRETS = ["whsec_test"]
    settings.PADDLE_PRICES = {
        "team:monthly": "pri_team_m",
        "team:annual": "pri_team_a",
        "business:monthly": "pri_biz_m",
        "business:annual": "pri_biz_a",
    }
    yield fake
    fake.server.shutdown()
    fake.server.server_close()


@pytest.fixture
def paddle_subscription(paddle, org):
    """A team monthly subscription as Paddle's webhook created it."""
    response = deliver(
        paddle_event(
            org.slug,
            event_id="evt_01",
            price="pri_team_m",
            interval="month",
            subscription_id=SUB,
            customer_id=CTM,
        )
    )
    assert response.status_code == 200
    return Subscription.objects.get(organization=org)


@pytest.fixture
def manager(factory, org):
    return factory.key_client(org, "billing", permissions=["billing:manage"])


def test_portal_session_returns_paddles_overview_url(paddle, paddle_subscription, manager):
    response = post(manager, PORTAL)
    assert response.status_code == 200
    assert response.json() == {"url": OVERVIEW}
    [request] = paddle.requests
    assert request["method"] == "POST"
    assert request["path"] == f"/customers/{CTM}/portal-sessions"
    assert request["headers"]["authorization"] == "Bearer pdl_test_key"
    assert request["headers"]["content-type"] == "application/json"
    assert request["body"] == {"subscription_ids": [SUB]}


def test_portal_session_for_an_admin_member(paddle, paddle_subscription, factory, org):
    response = post(member_api(factory, org, role="admin"), PORTAL)
    assert response.status_code == 200
    assert response.json()["url"] == OVERVIEW


def test_a_forbidden_caller_never_reaches_paddle(paddle, paddle_subscription, factory, org):
    assert post(member_api(factory, org), PORTAL).status_code == 403
    assert (
        post(factory.key_client(org, "plain"), SWITCH, {"billingCycle": "annual"}).status_code
        == 403
    )
    assert paddle.requests == []


def test_switch_cycle_updates_the_subscription_at_paddle_and_takes_its_answer(
    paddle, paddle_subscription, manager, org
):
    response = post(manager, SWITCH, {"billingCycle": "annual"})
    assert response.status_code == 200, response.content
    body = response.json()
    assert body["billingCycle"] == "annual"
    assert body["currentPeriodEnd"] == "2026-03-10T15:38:00.500000Z"
    assert body["nextBilledAt"] == "2026-03-10T15:38:00.500000Z"
    assert (body["status"], body["planName"]) == ("active", "team")
    assert (body["providerCustomerId"], body["providerSubscriptionId"]) == (CTM, SUB)
    [request] = paddle.requests
    assert request["method"] == "PATCH"
    assert request["path"] == f"/subscriptions/{SUB}"
    assert request["headers"]["authorization"] == "Bearer pdl_test_key"
    assert request["body"]["items"] == [{"price_id": "pri_team_a", "quantity": 1}]
    assert request["body"]["proration_billing_mode"] == "prorated_immediately"
    assert manager.get("/v1/billing/subscription").json() == body


def test_a_plan_change_on_the_billing_page_sets_the_plans_price_at_paddle(
    paddle, paddle_subscription, factory, org
):
    admin = factory.member_client(factory.member(org, role="admin"), enforce_csrf=False)
    response = admin.post("/settings/billing/plan/", {"plan": "business"})
    assert response.status_code == 302, response.content[:500]
    [request] = paddle.requests
    assert (request["method"], request["path"]) == ("PATCH", f"/subscriptions/{SUB}")
    assert request["body"]["items"] == [{"price_id": "pri_biz_m", "quantity": 1}]
    assert request["body"]["proration_billing_mode"] == "prorated_immediately"
    # the plan, and the rest as Paddle answered (the example's period and cycle)
    subscription = Subscription.objects.get(organization=org)
    assert subscription.plan == "business"
    assert subscription.current_period_end.isoformat().startswith("2026-03-10T15:38:00.5")


def test_a_paused_subscriptions_cycle_is_switched_without_a_charge(
    paddle, paddle_subscription, manager, org
):
    """Paddle takes only do_not_bill for a paused subscription (400
    subscription_incorrect_proration_on_paused_subscription): the switch was a 503 with
    Paddle, and the page asked to charge a price for a plan not in force."""
    Subscription.objects.filter(organization=org).update(status="paused")
    response = post(manager, SWITCH, {"billingCycle": "annual"})
    assert response.status_code == 200, response.content
    [request] = paddle.requests
    assert request["body"]["proration_billing_mode"] == "do_not_bill"


def test_switch_cycle_to_the_same_cycle_does_not_call_paddle(
    paddle, paddle_subscription, manager, org
):
    before = subscription_state(org)
    response = post(manager, SWITCH, {"billingCycle": "monthly"})
    assert response.status_code == 200
    assert paddle.requests == []
    assert subscription_state(org) == before


def test_an_invalid_cycle_does_not_call_paddle(paddle, paddle_subscription, manager):
    assert post(manager, SWITCH, {"billingCycle": "weekly"}).status_code == 400
    assert post(manager, SWITCH, {"billingCycle": "annual", "x": 1}).status_code == 400
    assert paddle.requests == []


@pytest.mark.parametrize("status", [500, 502, 429, 400])
def test_when_paddle_fails_the_api_answers_503_and_nothing_changes(
    paddle, paddle_subscription, manager, org, status
):
    paddle.fail_with = status
    before = subscription_state(org)
    for path, body in ((SWITCH, {"billingCycle": "annual"}), (PORTAL, None)):
        response = post(manager, path, body)
        assert response.status_code == 503, path
        assert response.json()["code"] == "internal_error"
        assert "pdl_test_key" not in response.content.decode()
    assert len(paddle.requests) == 2
    assert subscription_state(org) == before


@pytest.mark.parametrize(
    "raw",
    [b"<html>Bad gateway</html>", b'{"meta": {}}', b'{"data": null}', b'{"data": {"urls": {}}}'],
)
def test_when_paddle_answers_nonsense_the_portal_session_is_503(
    paddle, paddle_subscription, manager, raw
):
    paddle.answer_raw = raw
    response = post(manager, PORTAL)
    assert response.status_code == 503
    assert response.json()["code"] == "internal_error"


def test_when_paddle_is_unreachable_the_api_answers_503_and_nothing_changes(
    paddle, paddle_subscription, manager, org, settings
):
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        closed_port = probe.getsockname()[1]
    settings.PADDLE_API_BASE_URL = f"http://127.0.0.1:{closed_port}"
    before = subscription_state(org)
    for path, body in ((SWITCH, {"billingCycle": "annual"}), (PORTAL, None)):
        response = post(manager, path, body)
        assert response.status_code == 503, path
        assert response.json()["code"] == "internal_error"
    assert subscription_state(org) == before


def test_when_paddle_is_too_slow_the_api_answers_503(
    paddle, paddle_subscription, manager, org, settings
):
    settings.PADDLE_TIMEOUT_SECONDS = 1
    paddle.delay = 1.5
    before = subscription_state(org)
    response = post(manager, SWITCH, {"billingCycle": "annual"})
    assert response.status_code == 503
    assert subscription_state(org) == before


def test_a_cycle_without_a_configured_price_is_503_without_a_request(
    paddle, paddle_subscription, manager, org, settings
):
    settings.PADDLE_PRICES = {**settings.PADDLE_PRICES, "team:annual": ""}
    before = subscription_state(org)
    response = post(manager, SWITCH, {"billingCycle": "annual"})
    assert response.status_code == 503
    # the variable an operator sets, not the settings' dict (PADDLE_PRICES) behind it
    assert response.json()["message"].endswith("PADDLE_PRICE_TEAM_ANNUAL.")
    assert paddle.requests == []
    assert subscription_state(org) == before


@pytest.mark.parametrize(
    "base_url", ["http://api.paddle.com", "http://10.0.0.5:8080", "http://127.0.0.1.example.com"]
)
def test_a_non_https_base_url_is_refused_without_a_request(
    paddle, paddle_subscription, manager, org, settings, monkeypatch, base_url
):
    settings.PADDLE_API_BASE_URL = base_url
    opened = []
    monkeypatch.setattr(
        urllib.request, "urlopen", lambda *args, **kwargs: opened.append(args) or None
    )
    before = subscription_state(org)
    assert post(manager, SWITCH, {"billingCycle": "annual"}).status_code == 503
    assert post(manager, PORTAL).status_code == 503
    assert opened == []
    assert paddle.requests == []
    assert subscription_state(org) == before
