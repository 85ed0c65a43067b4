"""Every answer a client meets is the one /v1/schema documents, so that a client generated
from the schema (openapi-generator, datamodel-code-generator, a typed SDK) can read it.

One organization walks through every operation: its success, and the errors a caller
meets (a bad query, a bad body, a missing project, a taken name, a refused permission,
an exhausted plan, no credentials, a rate limit, a current ETag). Each response is checked
against its operation's entry for that status: the status is listed, the content type is
the one listed, and a JSON body validates against the listed schema, with every object
closed to properties the schema does not name (an undocumented field fails too)."""

import json
import re

import jsonschema
import pytest
from django.test import Client

from archsvc.tests.test_schema import _json_schema
from billing.models import AiCredits
from billing.tests.helpers import member_api, subscribe

JSON = "application/json"


@pytest.fixture
def documented(db):
    return Documented(json.loads(Client().get("/v1/schema", HTTP_ACCEPT=JSON).content))


class Documented:
    """Calls an operation by its schema path and checks the answer against the schema."""

    def __init__(self, schema: dict):
        self.paths = schema["paths"]
        self.components = schema["components"]["schemas"]
        self.met: set[tuple[str, str, str]] = set()  # (method, path, status)

    def call(self, client: Client, method: str, path: str, *, query="", body=None, **headers):
        """`path` as the schema writes it; `{name}` filled from the keyword of that name
        among `headers` (what is left are request headers, `HTTP_...`)."""
        names = re.findall(r"{(\w+)}", path)
        url = path.format(**{name: headers.pop(name) for name in names}) + query
        data = {} if body is None else {"data": json.dumps(body), "content_type": JSON}
        response = getattr(client, method.lower())(url, **data, **headers)
        self.check(method, path, response)
        return response

    def check(self, method: str, path: str, response) -> None:
        operation = self.paths[path][method.lower()]
        status = str(response.status_code)
        where = f"{method} {path} answered {status}: {response.content[:300]!r}"
        assert status in operation["responses"], f"undocumented status: {where}"
        self.met.add((method, path, status))
        if "ETag" in operation["responses"][status].get("headers", {}):
            assert response.has_header("ETag"), f"no ETag: {where}"
        content = operation["responses"][status].get("content")
        if status in {"204", "304"}:
            assert response.content == b"" and not content, where
            return
        media_type = response["Content-Type"].split(";")[0].strip()
        assert content and media_type in content, f"undocumented content type: {where}"
        schema = content[media_type].get("schema")
        if media_type != JSON:
            assert schema == {"type": "string"}, where
            return
        try:
            jsonschema.validate(response.json(), _json_schema(schema, self.components))
        except jsonschema.ValidationError as exc:
            raise AssertionError(f"{where}\n{exc.message} at {list(exc.absolute_path)}") from None

    def operations(self):
        for path, path_item in self.paths.items():
            for method in path_item:
                yield method.upper(), path


P = "/v1/projects/{projectId}"
S = P + "/services/{serviceSlug}"


def test_every_operation_answers_as_documented(documented, factory, settings):
    org = factory.org("documented")
    key = factory.key_client(org, "ci", ["projects:manage", "billing:manage"])
    plain = factory.key_client(org, "plain")  # no permissions: 403 on another's project
    call = documented.call

    # account, limits and billing before any subscription
    for path in ("/v1/limits", "/v1/billing/subscription", "/v1/billing/ai-credits"):
        call(key, "GET", path)
    call(key, "POST", "/v1/billing/portal-session")  # 404 subscription_not_found
    call(key, "POST", "/v1/billing/subscription/switch-cycle", body={"billingCycle": "annual"})

    # projects
    project = call(key, "POST", "/v1/projects", body={"name": "Shop", "description": "d"})
    project = project.json()["id"]
    assert call(key, "POST", "/v1/projects", body={"name": ""}).status_code == 400
    assert call(key, "POST", "/v1/projects", body=["not", "an", "object"]).status_code == 400
    call(key, "GET", "/v1/projects", query="?page=0&size=5&query=sh&archived=false")
    assert call(key, "GET", "/v1/projects", query="?size=0").status_code == 400
    call(key, "GET", P, projectId=project)
    assert call(key, "GET", P, projectId="no-such-project").status_code == 404
    call(key, "PUT", P, projectId=project, body={"name": "Shop 2", "archived": False})
    assert call(key, "PUT", P, projectId=project, body={"name": 7}).status_code == 400
    assert call(plain, "PUT", P, projectId=project, body={"name": "x"}).status_code == 403
    call(key, "PUT", P, projectId="no-such-project", body={"name": "Elsewhere"})

    # services, with everything a service can hold
    orders = {
        "name": "Orders",
        "description": "takes orders",
        "category": "Core",
        "owner": "Team A",
        "flows": ["Checkout"],
        "extras": {"tier": "1"},
        "produces": [{"name": "orders.placed", "category": "Events", "extras": {"v": "2"}}],
        "consumes": [{"name": "payments.done"}],
    }
    services = P + "/services"
    call(key, "POST", services, projectId=project, body=orders)
    payments = {"name": "Payments", "produces": [{"name": "payments.done"}]}
    call(key, "POST", services, projectId=project, body=payments)
    assert call(key, "POST", services, projectId=project, body=orders).status_code == 409
    assert call(key, "POST", services, projectId=project, body={"nam": "x"}).status_code == 400
    call(key, "POST", services, projectId="no-such-project", body=orders)
    listed = call(key, "GET", services, projectId=project)
    call(key, "GET", services, projectId=project, HTTP_IF_NONE_MATCH=listed["ETag"])
    call(key, "GET", services, projectId=project, query="?at=2000-01-01T00:00:00Z")
    call(key, "GET", services, projectId="no-such-project")
    assert call(key, "GET", services, projectId=project, query="?at=soon").status_code == 400
    call(key, "GET", S, projectId=project, serviceSlug="orders")
    call(key, "GET", S, projectId=project, serviceSlug="orders", query="?at=yesterday")
    assert call(key, "GET", S, projectId=project, serviceSlug="nobody").status_code == 404
    call(key, "GET", S + "/raw", projectId=project, serviceSlug="orders")
    call(key, "GET", S + "/raw", projectId=project, serviceSlug="orders", query="?at=x")
    call(key, "GET", S + "/raw", projectId=project, serviceSlug="nobody")
    call(key, "PUT", S, projectId=project, serviceSlug="orders", body={"owner": "Team B"})
    call(key, "PUT", S, projectId=project, serviceSlug="orders", body={"name": "Payments"})
    call(key, "PUT", S, projectId=project, serviceSlug="orders", body={"extras": "no"})
    call(key, "PUT", S, projectId=project, serviceSlug="nobody", body={"owner": "x"})
    call(key, "PUT", S, projectId=project, serviceSlug="orders", body={"name": "Order Desk"})
    read = call(key, "GET", S, projectId=project, serviceSlug="order-desk")
    tag = {"HTTP_IF_MATCH": read["ETag"]}
    call(key, "PUT", S, projectId=project, serviceSlug="order-desk", body={"owner": "C"}, **tag)
    call(key, "PUT", S, projectId=project, serviceSlug="order-desk", body={"owner": "D"}, **tag)
    call(key, "PUT", S, projectId=project, serviceSlug="order-desk", HTTP_IF_MATCH="x", body={})
    gone = call(key, "POST", services, projectId=project, body={"name": "Gone"})
    call(key, "DELETE", S, projectId=project, serviceSlug="gone", HTTP_IF_MATCH=read["ETag"])
    call(key, "DELETE", S, projectId=project, serviceSlug="gone", HTTP_IF_MATCH=gone["ETag"])
    call(key, "DELETE", S, projectId=project, serviceSlug="gone")  # 404

    # history: an event of every kind, and the diff of each
    history = call(key, "GET", P + "/history", projectId=project, query="?size=100").json()
    assert {event["action"] for event in history["data"]} == {
        "created", "updated", "renamed", "deleted"
    }  # fmt: skip
    call(key, "GET", P + "/history", projectId=project, query="?size=101")
    call(key, "GET", P + "/history", projectId="no-such-project")
    diff = P + "/history/{snapshotId}/diff"
    for event in history["data"]:
        call(key, "GET", diff, projectId=project, snapshotId=event["snapshotId"])
    call(key, "GET", diff, projectId=project, snapshotId="00000000-0000-0000-0000-000000000000")
    call(key, "GET", diff, projectId=project, snapshotId="not-a-snapshot")

    # renderings, each with a focus, a past moment, a current ETag and a bad query
    for rendering in ("/entities", "/graph", "/graph/mermaid", "/graph/svg"):
        path = P + rendering
        first = call(key, "GET", path, projectId=project)
        call(key, "GET", path, projectId=project, HTTP_IF_NONE_MATCH=first["ETag"])
        call(key, "GET", path, projectId=project, query="?filteredIds=service--order-desk")
        call(key, "GET", path, projectId=project, query="?at=2000-01-01T00:00:00Z&depth=2")
        call(key, "GET", path, projectId=project, query="?at=the-day-before")  # 400
        if rendering != "/entities":
            bad = call(key, "GET", path, projectId=project, query="?filteredIds=orders")
            assert bad.json()["message"].startswith("filteredIds: 'orders'")
        call(key, "GET", path, projectId="no-such-project")

    # pins
    call(key, "POST", "/v1/pinned", body={"projectId": project})
    call(key, "POST", "/v1/pinned", body={"projectId": "no-such-project"})
    call(key, "POST", "/v1/pinned", body={})
    call(key, "GET", "/v1/pinned")
    call(key, "GET", "/v1/projects", query="?pinned=true")
    call(key, "DELETE", "/v1/pinned/{projectId}", projectId=project)
    call(key, "DELETE", "/v1/pinned/{projectId}", projectId=project)  # 404

    # sharing
    token = P + "/public-share-token"
    call(key, "GET", token, projectId=project)  # none yet
    call(key, "POST", token, projectId=project)
    call(key, "GET", token, projectId=project)
    call(plain, "POST", token, projectId=project)  # 403
    call(key, "POST", token, projectId="no-such-project")
    call(plain, "DELETE", token, projectId=project)  # 403
    call(key, "DELETE", token, projectId=project)
    call(key, "DELETE", token, projectId="no-such-project")

    # the assistant
    chat = P + "/ai/chat"
    asked = {"message": "Who consumes orders.placed?"}
    call(key, "POST", chat, projectId=project, body=asked)
    turns = [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "Hello."}]
    call(key, "POST", chat, projectId=project, body={**asked, "history": turns})
    call(key, "POST", chat, projectId=project, body={"message": ""})
    call(key, "POST", chat, projectId="no-such-project", body=asked)
    AiCredits.objects.filter(organization=org).update(remaining=0)
    assert call(key, "POST", chat, projectId=project, body=asked).status_code == 402

    # duplicates, up to the plan's limit and past it
    dup = P + "/duplicate"
    call(key, "POST", dup, projectId=project, body={"name": "Shop copy"})
    call(key, "POST", dup, projectId=project, body={"name": 3})
    call(key, "POST", dup, projectId="no-such-project", body={})
    call(key, "POST", "/v1/projects", body={"name": "Third", "description": ""})
    assert call(key, "POST", dup, projectId=project, body={}).status_code == 402
    assert (
        call(key, "POST", "/v1/projects", body={"name": "Fourth", "description": ""}).status_code
        == 402
    )

    # a subscription
    subscribe(org, plan="team", cycle="monthly")
    for path in ("/v1/limits", "/v1/billing/subscription", "/v1/billing/ai-credits"):
        call(key, "GET", path)
    switch = "/v1/billing/subscription/switch-cycle"
    call(key, "POST", switch, body={"billingCycle": "annual"})
    call(key, "POST", switch, body={"billingCycle": "weekly"})  # invalid_billing_cycle
    call(key, "POST", switch, body={})
    call(plain, "POST", switch, body={"billingCycle": "monthly"})  # 403
    call(key, "POST", "/v1/billing/portal-session")
    call(plain, "POST", "/v1/billing/portal-session")  # 403
    call(member_api(factory, org, role="admin"), "GET", "/v1/billing/subscription")

    # deletes, then no credentials and a rate limit anywhere
    call(plain, "DELETE", P, projectId=project)  # 403
    call(key, "DELETE", P, projectId=project)
    call(key, "DELETE", P, projectId=project)  # 404
    anonymous, no_csrf = Client(), factory.member_client(factory.member(org, role="admin"))
    for method, path in documented.operations():
        ids = {name: "x" for name in re.findall(r"{(\w+)}", path)}
        body = {} if method in {"POST", "PUT"} else None
        response = call(anonymous, method, path, body=body, **ids)
        assert response.status_code == 401, (method, path)
        response = call(key, method, path, query="?utm=%00", body=body, **ids)
        assert response.json()["code"] == "bad_request", (method, path)
        if method != "GET":
            response = call(no_csrf, method, path, body=body, **ids)
            assert response.json()["code"] == "forbidden", (method, path)
    settings.RATE_LIMIT_READ = "1/h"
    reader = factory.key_client(org, "reader")
    call(reader, "GET", "/v1/projects")
    assert call(reader, "GET", "/v1/projects").status_code == 429

    # every status every operation lists was met and answered as listed, but for 500 and
    # 503 (test_faults) and 429 (one budget's refusal above: every operation shares it)
    unmet = {
        (method, path, status)
        for method, path in documented.operations()
        for status in documented.paths[path][method.lower()]["responses"]
        if status not in {"429", "500", "503"}
    } - documented.met
    assert unmet == set()
