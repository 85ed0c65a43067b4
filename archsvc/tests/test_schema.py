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
