"""OpenAPI at /v1/schema and a docs page at /v1/docs whose assets are served by us."""

import json
import re

from django.test import Client


def test_schema_lists_limits_with_error_responses(db):
    response = Client().get("/v1/schema", HTTP_ACCEPT="application/json")
    assert response.status_code == 200
    schema = json.loads(response.content)
    operation = schema["paths"]["/v1/limits"]["get"]
    assert {"200", "401", "429", "500"} <= set(operation["responses"])
    components = schema["components"]["schemas"]
    assert components["RateLimitError"]["required"] == ["status", "code", "message", "retryAfter"]
    assert "violations" in components["ValidationError"]["properties"]
    assert {"apiKey", "session"} <= set(schema["components"]["securitySchemes"])
    # every answer documents the rate-limit fields a script paces itself by
    for status in ("200", "429"):
        headers = operation["responses"][status]["headers"]
        remaining = headers["RateLimit-Remaining"]
        assert remaining == {"$ref": "#/components/headers/RateLimit-Remaining"}
    assert schema["components"]["headers"]["RateLimit-Reset"]["schema"] == {"type": "integer"}


def test_the_docs_group_operations_in_reading_order_each_group_described(db):
    """Projects first, billing last (not A to Z), and no operation in a group the docs do not
    describe."""
    schema = json.loads(Client().get("/v1/schema", HTTP_ACCEPT="application/json").content)
    tags = [tag["name"] for tag in schema["tags"]]
    assert tags[0] == "projects" and tags[-1] == "billing"
    assert all(tag["description"] for tag in schema["tags"])
    used = {
        tag
        for operations in schema["paths"].values()
        for operation in operations.values()
        for tag in operation.get("tags", [])
    }
    assert used <= set(tags)


def test_docs_page_uses_only_self_hosted_assets(db):
    client = Client()
    response = client.get("/v1/docs")
    assert response.status_code == 200
    html = response.content.decode()
    assets = re.findall(r'(?:src|href)="([^"]+)"', html)
    assert assets, "the docs page loads Swagger UI"
    for asset in assets:
        assert asset.startswith("/static/"), asset
        assert client.get(asset).status_code == 200, asset


# Every path of the spec (interface.md), with its parameter names.
SPEC_PATHS = {
    "/v1/billing/ai-credits",
    "/v1/billing/portal-session",
    "/v1/billing/subscription",
    "/v1/billing/subscription/switch-cycle",
    "/v1/limits",
    "/v1/pinned",
    "/v1/pinned/{projectId}",
    "/v1/projects",
    "/v1/projects/{projectId}",
    "/v1/projects/{projectId}/ai/chat",
    "/v1/projects/{projectId}/duplicate",
    "/v1/projects/{projectId}/entities",
    "/v1/projects/{projectId}/graph",
    "/v1/projects/{projectId}/graph/mermaid",
    "/v1/projects/{projectId}/graph/svg",
    "/v1/projects/{projectId}/history",
    "/v1/projects/{projectId}/history/{snapshotId}/diff",
    "/v1/projects/{projectId}/public-share-token",
    "/v1/projects/{projectId}/services",
    "/v1/projects/{projectId}/services/{serviceSlug}",
    "/v1/projects/{projectId}/services/{serviceSlug}/raw",
}


def test_schema_paths_are_the_specs_with_each_path_parameter_declared_once(db):
    """A client generated from /v1/schema gets the spec's paths and parameter names, and
    every operation declares exactly the variables of its path template."""
    schema = json.loads(Client().get("/v1/schema", HTTP_ACCEPT="application/json").content)
    assert set(schema["paths"]) == SPEC_PATHS
    for path, path_item in schema["paths"].items():
        variables = sorted(re.findall(r"{(\w+)}", path))
        for method, operation in path_item.items():
            parameters = operation.get("parameters", [])
            declared = sorted(p["name"] for p in parameters if p["in"] == "path")
            assert declared == variables, (method, path)


def _json_schema(node, components):
    """An OpenAPI 3.0 schema as JSON Schema: references resolved, `nullable` as a type,
    objects closed to properties they do not list."""
    if isinstance(node, list):
        return [_json_schema(item, components) for item in node]
    if not isinstance(node, dict):
        return node
    if "$ref" in node:
        return _json_schema(components[node["$ref"].rsplit("/", 1)[1]], components)
    out = {key: _json_schema(value, components) for key, value in node.items()}
    if "properties" in out:
        out.setdefault("additionalProperties", False)  # an undocumented field fails
    if out.pop("nullable", False):
        if "type" in out:
            out["type"] = [out["type"], "null"]
        if "enum" in out:
            out["enum"] = [*out["enum"], None]
    return out


def test_graph_responses_match_the_schema(api):
    """The ProjectGraph the schema documents is the one sent, whole and focused."""
    import jsonschema

    from diagrams.tests.helpers import new_project, new_service

    schema = json.loads(Client().get("/v1/schema", HTTP_ACCEPT="application/json").content)
    components = schema["components"]["schemas"]
    operation = schema["paths"]["/v1/projects/{projectId}/graph"]["get"]
    graph_schema = _json_schema(
        operation["responses"]["200"]["content"]["application/json"]["schema"], components
    )
    assert set(graph_schema["required"]) == {
        "projectId", "at", "filteredIds", "depth", "width", "height", "nodes", "edges",
        "categories",
    }  # fmt: skip
    project = new_project(api, "Documented")
    new_service(
        api,
        project,
        {"name": "Orders", "category": "Core", "produces": [{"name": "orders.placed"}]},
    )
    new_service(api, project, {"name": "Mailer", "consumes": [{"name": "orders.placed"}]})
    for query in ("", "?filteredIds=service--mailer&depth=2", "?at=2020-01-01T00:00:00Z"):
        body = api.get(f"/v1/projects/{project}/graph{query}").json()
        jsonschema.validate(body, graph_schema)
        assert query.startswith("?at=") or {"service", "messaging"} <= {
            node["type"] for node in body["nodes"]
        }


def test_request_bodies_and_bounds_are_what_a_generated_client_needs(db):
    """JSON bodies (not `*/*`), a PUT's body required as the spec says, the bounds the
    views enforce on page, size and depth, and request names that do not say PATCH."""
    schema = json.loads(Client().get("/v1/schema", HTTP_ACCEPT="application/json").content)
    for path, path_item in schema["paths"].items():
        for method, operation in path_item.items():
            body = operation.get("requestBody")
            if body is None:
                continue
            assert list(body["content"]) == ["application/json"], (method, path)
            if method == "put":
                assert body["required"] is True, path
    parameters = {
        p["name"]: p["schema"]
        for p in schema["paths"]["/v1/projects/{projectId}/history"]["get"]["parameters"]
    }
    assert (parameters["size"]["minimum"], parameters["size"]["maximum"]) == (1, 100)
    assert parameters["page"]["minimum"] == 0
    graph = schema["paths"]["/v1/projects/{projectId}/graph"]["get"]["parameters"]
    depth = next(p["schema"] for p in graph if p["name"] == "depth")
    assert (depth["minimum"], depth["maximum"]) == (0, 5)
    names = set(schema["components"]["schemas"])
    assert {"ServiceUpdateRequest", "AiChatRequest"} <= names
    assert not {n for n in names if n.startswith("Patched") or n.endswith("RequestRequest")}
    assert "#/components/schemas/PatchedServiceUpdateRequest" not in json.dumps(schema)


def test_the_request_limits_the_schema_states_are_the_ones_enforced(api):
    """A client generated from the schema knows what the server refuses: each stated limit
    is accepted at its edge and refused one past it, and an unknown property is refused as
    every request object says (`additionalProperties: false`)."""
    schema = json.loads(Client().get("/v1/schema", HTTP_ACCEPT="application/json").content)
    components = schema["components"]["schemas"]
    requests = [name for name in components if name.endswith("Request")]
    assert {"ServiceCreateRequest", "MessagingTopicRequest", "AiChatRequest"} <= set(requests)
    for name in requests:
        assert components[name]["additionalProperties"] is False, name
    service = components["ServiceCreateRequest"]["properties"]
    topics, extras = service["consumes"]["maxItems"], service["extras"]
    history = components["AiChatRequest"]["properties"]["history"]["maxItems"]
    assert components["MessagingTopicRequest"]["properties"]["extras"]["maxProperties"] > 0
    pid = api.post(
        "/v1/projects", {"name": "Limits", "description": ""}, content_type="application/json"
    ).json()["id"]

    def create(body):
        return api.post(f"/v1/projects/{pid}/services", body, content_type="application/json")

    def fields(response):
        assert response.status_code == 400, response.content
        return {v["field"] for v in response.json()["violations"]}

    many = [{"name": f"t{i}"} for i in range(topics + 1)]
    assert create({"name": "A", "consumes": many[:topics]}).status_code == 200
    assert fields(create({"name": "B", "consumes": many})) == {"consumes"}
    pairs = {f"k{i}": "v" for i in range(extras["maxProperties"] + 1)}
    assert fields(create({"name": "C", "extras": pairs})) == {"extras"}
    pairs = {"k" * (extras["propertyNames"]["maxLength"] + 1): "v"}
    assert fields(create({"name": "D", "extras": pairs})) == {f"extras.{next(iter(pairs))}"}
    assert fields(create({"name": "E", "colour": "red"})) == {"colour"}
    turns = [{"role": "user", "content": "hi"}] * (history + 1)
    chat = api.post(
        f"/v1/projects/{pid}/ai/chat",
        {"message": "What is here?", "history": turns},
        content_type="application/json",
    )
    assert fields(chat) == {"history"}


def test_a_503_of_the_operations_that_call_the_billing_provider_says_it_may_be_its(db):
    schema = json.loads(Client().get("/v1/schema", HTTP_ACCEPT="application/json").content)
    for path in ("/v1/billing/portal-session", "/v1/billing/subscription/switch-cycle"):
        assert (
            "billing provider" in schema["paths"][path]["post"]["responses"]["503"]["description"]
        )
    assert "billing" not in schema["paths"]["/v1/limits"]["get"]["responses"]["503"]["description"]


def test_the_patterns_the_schema_states_are_the_ones_the_server_holds_to(api):
    """A client that checks its requests against the schema sent what the server refused:
    a pinned projectId and filteredIds had no pattern, billingCycle was any string."""
    schema = json.loads(Client().get("/v1/schema", HTTP_ACCEPT="application/json").content)
    components = schema["components"]["schemas"]
    project_id = re.compile(
        components["PinnedProjectRequest"]["properties"]["projectId"]["pattern"]
    )
    graph = schema["paths"]["/v1/projects/{projectId}/graph"]["get"]["parameters"]
    ids = next(p["schema"] for p in graph if p["name"] == "filteredIds")
    assert ids["type"] == "array"
    filtered = re.compile(ids["items"]["pattern"])
    cycle = components["SubscriptionSwitchCycleRequest"]["properties"]["billingCycle"]
    assert components[cycle["$ref"].rsplit("/", 1)[1]]["enum"] == ["monthly", "annual"]
    pid = api.post(
        "/v1/projects", {"name": "Patterns", "description": ""}, content_type="application/json"
    ).json()["id"]
    api.post(f"/v1/projects/{pid}/services", {"name": "Cart"}, content_type="application/json")
    for value in ("Bad Id!!", "-abcdefgh", "abcdefgh-", pid):
        response = api.post("/v1/pinned", {"projectId": value}, content_type="application/json")
        assert (response.status_code != 400) == bool(project_id.match(value)), value
    for value in (
        "service--cart",
        " service--cart , messaging--orders.v1",
        "service--cart,,owner--payments",
        "",
        "bogus",
        "service--Cart",
        "service--cart,bogus",
        "team--cart",
    ):
        response = api.get(f"/v1/projects/{pid}/graph", {"filteredIds": value})
        assert (response.status_code == 200) == bool(filtered.match(value)), value


# The JSON type of every field the spec's resource tables list (interface.md, Resources and
# their fields): a client generated from our schema must type each as the spec does.
SPEC_FIELD_TYPES = {
    "Project": {
        "id": "string",
        "name": "string",
        "description": "string",
        "archived": "boolean",
        "pinned": "boolean",
        "serviceCount": "integer",
        "isOwner": "boolean",
        "createdBy": "string",
        "createdAt": "string",
        "updatedBy": "string",
        "updatedAt": "string",
    },
    "ProjectPage": {
        "data": "array",
        "page": "integer",
        "size": "integer",
        "total": "integer",
        "totalPages": "integer",
        "first": "boolean",
        "last": "boolean",
    },
    "PinnedProject": {"projectId": "string", "pinnedAt": "string"},
    "MessagingTopic": {
        "name": "string",
        "category": "string",
        "owner": "string",
        "flows": "array",
        "extras": "object",
    },
    "Service": {
        "slug": "string",
        "name": "string",
        "description": "string",
        "category": "string",
        "owner": "string",
        "flows": "array",
        "consumes": "array",
        "produces": "array",
        "extras": "object",
        "createdBy": "string",
        "createdAt": "string",
        "updatedBy": "string",
        "updatedAt": "string",
        "validFrom": "string",
        "validUntil": "string",
    },
    "PublicShareToken": {"token": "string", "createdAt": "string"},
    "Limits": {"currentProjects": "integer", "maxProjects": "integer"},
    "AiCredits": {"remaining": "number", "resetsAt": "string"},
    "Subscription": {
        "status": "string",
        "planName": "string",
        "currentPeriodEnd": "string",
        "providerCustomerId": "string",
        "providerSubscriptionId": "string",
        "billingCycle": "string",
        "nextBilledAt": "string",
    },
    "PortalSession": {"url": "string"},
}


def test_every_field_of_the_spec_has_the_specs_json_type(db):
    schema = json.loads(Client().get("/v1/schema", HTTP_ACCEPT="application/json").content)
    components = schema["components"]["schemas"]
    wrong = {}
    for resource, fields in SPEC_FIELD_TYPES.items():
        properties = components[resource]["properties"]
        for field, json_type in fields.items():
            declared = properties[field]
            if "type" not in declared:  # an enum or a nested resource: a $ref
                continue
            types = declared["type"] if isinstance(declared["type"], list) else [declared["type"]]
            if json_type not in types:
                wrong[f"{resource}.{field}"] = declared["type"]
    assert wrong == {}


def test_each_error_answer_has_an_example_of_its_own_status_and_code(db):
    """Generated from the schema alone, the docs page showed every error as
    `{"status": 0, "code": "bad_request"}`, a 404 and a 500 alike."""
    schema = json.loads(Client().get("/v1/schema", HTTP_ACCEPT="application/json").content)
    codes = set(schema["components"]["schemas"]["ErrorResponse"]["properties"]["code"]["enum"])
    examples = 0
    for path, item in schema["paths"].items():
        for method, operation in item.items():
            for status, response in operation.get("responses", {}).items():
                content = response.get("content", {}).get("application/json", {})
                if (
                    content.get("schema", {})
                    .get("$ref", "")
                    .endswith(("/ErrorResponse", "/RateLimitError"))
                ):
                    example = content["example"]
                    assert example["status"] == int(status), (path, method, status)
                    assert example["code"] in codes and example["message"]
                    examples += 1
    assert examples > 100
    service = schema["paths"]["/v1/projects/{projectId}/services/{serviceSlug}"]["get"]
    assert service["responses"]["404"]["content"]["application/json"]["example"]["code"] == (
        "service_not_found"
    )
    limits = schema["paths"]["/v1/limits"]["get"]["responses"]["429"]
    assert limits["content"]["application/json"]["example"]["retryAfter"] == 12


def test_the_idempotency_key_is_described_as_the_server_takes_it(db):
    """The parameter was a bare string: a generated client (and schemathesis) sent keys the
    server refuses with 400 (empty, non-ASCII, a tab, over 255)."""
    import re

    schema = json.loads(Client().get("/v1/schema", HTTP_ACCEPT="application/json").content)
    (parameter,) = [
        p
        for p in schema["paths"]["/v1/projects"]["post"]["parameters"]
        if p["name"] == "Idempotency-Key"
    ]
    rule = parameter["schema"]

    def allowed(key: str) -> bool:
        return rule["minLength"] <= len(key) <= rule["maxLength"] and bool(
            re.fullmatch(rule["pattern"], key)
        )

    for refused in ["", " ", "x" * 256, "naïve", "a\tb"]:  # the server's 400s
        assert not allowed(refused), refused
    for taken in ["a", "3f2b8c1e-6d4a-4f0e-9b7a-1c2d3e4f5a6b", "x" * 255, "run 42"]:
        assert allowed(taken), taken
