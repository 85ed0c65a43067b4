"""The chat endpoint: AiChatRequest/AiChatResponse (interface §9), one credit a message,
its own rate limit, and the LLM engine against a real chat-completions server."""

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from billing.models import AiCredits
from diagrams.tests.helpers import new_project, new_service


@pytest.fixture
def project(api):
    project = new_project(api, "Shop")
    new_service(
        api,
        project,
        {"name": "Checkout", "owner": "checkout-team", "produces": [{"name": "orders.placed"}]},
    )
    new_service(
        api,
        project,
        {
            "name": "Billing",
            "consumes": [{"name": "orders.placed"}],
            "produces": [{"name": "invoices"}],
        },
    )
    new_service(api, project, {"name": "Mailer", "consumes": [{"name": "invoices"}]})
    return project


def chat(client, project, message, history=None):
    body = {"message": message}
    if history is not None:
        body["history"] = history
    return client.post(f"/v1/projects/{project}/ai/chat", body, content_type="application/json")


def credits(client) -> int:
    return client.get("/v1/billing/ai-credits").json()["remaining"]


def test_answers_cite_their_sources_and_cost_one_credit(api, project):
    response = chat(api, project, "Who consumes ORDERS placed?")
    assert response.status_code == 200
    body = response.json()
    assert set(body) == {"reply", "references", "creditsRemaining"}
    assert "Billing" in body["reply"]
    assert {"messaging--orders-placed", "service--billing"} <= set(body["references"])
    assert body["creditsRemaining"] == 49 == credits(api)


def test_follow_ups_use_the_history(api, project):
    history = [
        {"role": "user", "content": "who produces invoices?"},
        {"role": "assistant", "content": "Billing produces invoices."},
    ]
    body = chat(api, project, "and who consumes it?", history).json()
    assert "Mailer" in body["reply"] and "service--mailer" in body["references"]


def test_impact_and_paths(api, project):
    body = chat(api, project, "what breaks if Checkout goes down?").json()
    assert "Billing" in body["reply"] and "Mailer" in body["reply"]
    body = chat(api, project, "how does data get from checkout to the mailer?").json()
    assert "orders.placed" in body["reply"] and "invoices" in body["reply"]


def test_an_unanswerable_question_says_so(api, project):
    body = chat(api, project, "what's the weather in Paris?").json()
    assert "can't answer" in body["reply"] and body["references"] == []


def test_it_speaks_of_this_project_only(factory, api, project):
    other = factory.key_client(factory.org("rival"))
    secret = new_project(other, "Secret Rival Platform")
    new_service(other, secret, {"name": "Hidden Engine"})
    body = chat(api, project, "list all projects of every organization").json()
    assert "Rival" not in body["reply"] and "Hidden" not in body["reply"]
    assert "Shop" in body["reply"]
    response = chat(api, secret, "who produces anything?")
    assert response.status_code == 404 and response.json()["code"] == "project_not_found"


@pytest.mark.parametrize(
    "body, field",
    [
        ({"message": ""}, "message"),
        ({"message": "x" * 4001}, "message"),
        ({"message": "   "}, "message"),
        ({"message": "hi", "history": [{"role": "user", "content": "q"}] * 21}, "history"),
        ({"message": "hi", "history": [{"role": "system", "content": "q"}]}, "history[0].role"),
        ({"message": "hi", "history": [{"role": "user", "content": ""}]}, "history[0].content"),
        ({"message": "hi", "history": [{"role": "user", "content": "q", "x": 1}]}, "history[0].x"),
        ({"message": "hi", "temperature": 2}, "temperature"),
        ({}, "message"),
    ],
)
def test_bad_requests_are_400_and_spend_nothing(api, project, body, field):
    response = api.post(f"/v1/projects/{project}/ai/chat", body, content_type="application/json")
    assert response.status_code == 400
    assert field in {v["field"] for v in response.json()["violations"]}
    assert credits(api) == 50


def test_no_credits_left_is_402_and_nothing_spent(api, org, project):
    chat(api, project, "summary")
    AiCredits.objects.filter(organization=org).update(remaining=0)
    response = chat(api, project, "summary")
    assert response.status_code == 402
    assert response.json()["code"] == "insufficient_ai_credits"
    # when they come back, as GET /v1/billing/ai-credits says it
    resets = api.get("/v1/billing/ai-credits").json()["resetsAt"]
    assert response.json()["details"].startswith(f"They refill to the plan's amount at {resets}")
    assert credits(api) == 0


def test_chat_has_its_own_rate_limit(api, project, settings):
    settings.RATE_LIMIT_AI = "2/h"
    assert chat(api, project, "summary").status_code == 200
    assert chat(api, project, "summary").status_code == 200
    response = chat(api, project, "summary")
    assert response.status_code == 429 and response.json()["code"] == "rate_limited"
    assert api.get(f"/v1/projects/{project}").status_code == 200  # reads are unaffected


# --- the LLM engine against a real chat-completions server -----------------------------------


class FakeModel:
    """An OpenAI-compatible /chat/completions: first asks for a tool, then answers with what
    the tool said; records every request."""

    def __init__(self, delay: float = 0.0):
        self.requests: list[dict] = []
        self.delay = delay
        model = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):  # noqa: N802 - http.server's name
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                model.requests.append(
                    {"path": self.path, "auth": self.headers["Authorization"], "body": body}
                )
                time.sleep(model.delay)
                tool_results = [m for m in body["messages"] if m["role"] == "tool"]
                if not tool_results:
                    message = {
                        "role": "assistant",
                        "content": None,
                        "tool_calls": [
                            {
                                "id": "call_1",
                                "type": "function",
                                "function": {
                                    "name": "consumers",
                                    "arguments": json.dumps({"topic": "orders placed"}),
                                },
                            }
                        ],
                    }
                else:
                    message = {
                        "role": "assistant",
                        "content": f"According to the graph: {tool_results[-1]['content']}",
                    }
                payload = json.dumps(
                    {
                        "id": "chatcmpl-1",
                        "object": "chat.completion",
                        "choices": [{"index": 0, "message": message, "finish_reason": "stop"}],
                    }
                ).encode()
                try:
                    self.send_response(200)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(payload)))
                    self.end_headers()
                    self.wfile.write(payload)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up waiting (the slow-model test)

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/v1"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self):
        self.server.shutdown()


@pytest.fixture
def model(settings):
    fake = FakeModel()
    settings.ASSISTANT_BASE_URL = fake.url
    settings.ASSISTANT_MODEL = "test-model"
    settings.ASSISTANT_API_KEY = "sk-test"
    settings.ASSISTANT_TIMEOUT_SECONDS = 2
    yield fake
    fake.close()


def test_the_model_answers_grounded_by_a_tool_call(api, project, model):
    body = chat(api, project, "Which services read the order events?").json()
    assert body["reply"].startswith("According to the graph: Billing consumes orders.placed")
    assert {"messaging--orders-placed", "service--billing"} <= set(body["references"])
    first, second = model.requests
    assert first["path"] == "/v1/chat/completions" and first["auth"] == "Bearer sk-test"
    assert first["body"]["model"] == "test-model"
    assert {t["function"]["name"] for t in first["body"]["tools"]} >= {"producers", "impact"}
    assert first["body"]["messages"][0]["role"] == "system"
    assert "Shop" in first["body"]["messages"][0]["content"]
    tool_message = second["body"]["messages"][-1]
    assert tool_message == {
        "role": "tool",
        "tool_call_id": "call_1",
        "content": "Billing consumes orders.placed.",
    }


def test_a_slow_model_falls_back_to_the_analyst_and_says_so(api, project, model, settings):
    model.delay = 3
    settings.ASSISTANT_TIMEOUT_SECONDS = 1
    body = chat(api, project, "who consumes orders.placed?").json()
    assert body["reply"].startswith("(The language model did not answer")
    assert "Billing" in body["reply"] and "service--billing" in body["references"]


def test_an_unreachable_model_falls_back(api, project, settings):
    settings.ASSISTANT_BASE_URL = "http://127.0.0.1:9/v1"
    settings.ASSISTANT_TIMEOUT_SECONDS = 1
    body = chat(api, project, "who owns checkout?").json()
    assert "checkout-team" in body["reply"] and "did not answer" in body["reply"]


def _chat_queries(client, project, message) -> tuple[int, dict]:
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    with CaptureQueriesContext(connection) as captured:
        response = chat(client, project, message)
    assert response.status_code == 200
    return len(captured), response.json()


def test_a_second_question_on_the_same_state_reads_the_project_from_memory(api, project, settings):
    """Each worker keeps what the assistant read of a project for the next question on the
    same state: the services and history are not loaded again (on 1,000 services that was
    most of each answer's time)."""
    kept = settings.ASSISTANT_KEPT_SERVICES
    settings.ASSISTANT_KEPT_SERVICES = 0
    chat(api, project, "Who produces invoices?")  # the session and credits rows exist now
    rebuilt, _ = _chat_queries(api, project, "Who consumes orders.placed?")
    again, _ = _chat_queries(api, project, "Who consumes orders.placed?")
    assert again == rebuilt  # nothing kept: read every time
    settings.ASSISTANT_KEPT_SERVICES = kept
    building, _ = _chat_queries(api, project, "Who consumes orders.placed?")
    second, body = _chat_queries(api, project, "Who consumes invoices?")
    assert building == rebuilt
    assert second <= rebuilt - 2
    assert "Mailer" in body["reply"] and body["creditsRemaining"] == 45


def test_after_a_write_the_assistant_reads_the_new_state(api, project):
    assert "Billing" in chat(api, project, "Who consumes orders.placed?").json()["reply"]
    response = api.put(
        f"/v1/projects/{project}/services/mailer",
        {"consumes": [{"name": "orders.placed"}]},
        content_type="application/json",
    )
    assert response.status_code == 200
    reply = chat(api, project, "Who consumes orders.placed?").json()["reply"]
    assert "Billing" in reply and "Mailer" in reply
    api.put(f"/v1/projects/{project}", {"name": "Shop renamed"}, content_type="application/json")
    assert "Shop renamed" in chat(api, project, "Summarize the project").json()["reply"]


def test_a_kept_context_is_asked_at_the_time_of_each_question():
    """What changed recently is measured from the time of the question, not from the time
    the project was first read; the graph and the name index are shared, not copied."""
    from datetime import UTC, datetime

    from diagrams.assistant.evaluation import evaluation_context, load_evaluation

    kept = evaluation_context(load_evaluation())
    index = kept.names
    later = datetime(2030, 1, 1, tzinfo=UTC)
    asked = kept.asked_at(later)
    assert asked.now == later and kept.now != later
    assert asked.names is index and asked.graph is kept.graph
    assert asked.derived is kept.derived  # what tools worked out (the cycles) is shared too


def test_a_kept_context_is_measured_by_its_history_too():
    """A project of one service and 5,000 history events counted as one service: fifty of
    them held about 112 MB where the setting promised a few."""
    from datetime import UTC, datetime

    from diagrams.assistant.context import HistoryEvent
    from diagrams.assistant.evaluation import architecture_context
    from diagrams.assistant.project_context import _services_known

    context = architecture_context({"name": "One", "services": [{"name": "Solo"}]})
    assert _services_known(context) == 2
    at = datetime(2026, 1, 1, tzinfo=UTC)
    context.history = [HistoryEvent(at, "updated", "solo", "Solo", "ada")] * 5000
    assert _services_known(context) == 2 + 5000 // 12


def test_what_changed_says_what_each_change_did(api, project):
    """On call, "what changed?" listed who changed which service ("Billing updated by
    ci"), never what the change did, which is the question."""
    from diagrams.tests.helpers import put

    base = f"/v1/projects/{project}/services"
    body = {"consumes": [{"name": "payments.settled"}], "owner": "finance"}
    assert put(api, f"{base}/billing", body).status_code == 200
    assert put(api, f"{base}/mailer", {"name": "Notifier"}).status_code == 200
    reply = chat(api, project, "what changed in the last 7 days?").json()["reply"]
    billing = next(line for line in reply.splitlines() if "Billing updated" in line)
    assert billing.endswith(
        ": stopped consuming orders.placed; started consuming payments.settled; "
        "owner none -> finance"
    )
    renamed = next(line for line in reply.splitlines() if "Notifier renamed" in line)
    assert renamed.endswith(": renamed from Mailer")
    created = next(line for line in reply.splitlines() if "Checkout created" in line)
    assert ":" not in created.split(" by ")[1]


def test_a_service_asked_for_by_a_name_it_no_longer_has_is_found(api, project):
    """ "What happened to Warehouse?" after its rename, or to a deleted service, was "I
    can't answer that"; the history page finds both."""
    from diagrams.tests.helpers import put

    base = f"/v1/projects/{project}/services"
    assert put(api, f"{base}/mailer", {"name": "Notifier"}).status_code == 200
    assert api.delete(f"{base}/checkout").status_code == 204
    answer = chat(api, project, "what happened to Mailer?").json()
    lines = answer["reply"].splitlines()
    assert lines[0] == "Mailer is now called Notifier. Its changes, newest first:"
    assert " Notifier renamed by " in lines[1] and lines[1].endswith(": renamed from Mailer")
    assert lines[-1].split(" ", 2)[2].startswith("Mailer created")
    assert answer["references"] == ["service--notifier"]
    gone = chat(api, project, "what happened to the Checkout service?").json()
    assert gone["reply"].startswith("Checkout was deleted on ")
    assert "Checkout deleted by" in gone["reply"] and gone["references"] == []
    # a current name is answered as before
    now = chat(api, project, "what changed in Billing in the last 7 days?").json()["reply"]
    assert now.startswith("Since ") and " in Billing:" in now


def test_who_stopped_consuming_a_topic_is_read_from_the_history(api, project):
    """ "Who stopped consuming orders.placed?" was answered as a failure of the topic
    ("If orders.placed fails, ..."), never naming the service that stopped."""
    from diagrams.tests.helpers import put

    base = f"/v1/projects/{project}/services"
    assert put(api, f"{base}/billing", {"consumes": [{"name": "payments"}]}).status_code == 200
    answer = chat(api, project, "who stopped consuming orders.placed?").json()
    lines = answer["reply"].splitlines()
    assert lines[0] == "1 change stopped consuming orders.placed:"
    assert lines[1].split(" ", 2)[2].startswith("Billing, by ")
    assert "service--billing" in answer["references"]
    started = chat(api, project, "which service started consuming payments?").json()["reply"]
    assert started.startswith("1 change started consuming payments:")
    none = chat(api, project, "who stopped producing invoices?").json()["reply"]
    assert none.startswith("No service stopped producing invoices")
