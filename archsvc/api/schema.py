"""OpenAPI (drf-spectacular): the error bodies as components, the statuses every operation
may answer (401, 429, 500), and the two security schemes."""

from drf_spectacular.extensions import OpenApiAuthenticationExtension
from drf_spectacular.openapi import AutoSchema
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse
from rest_framework import serializers

from archsvc.exceptions import NO_CREDENTIALS, Conflict, Forbidden


class ErrorResponseSerializer(serializers.Serializer):
    status = serializers.IntegerField()
    code = serializers.CharField()
    message = serializers.CharField()
    details = serializers.CharField(required=False)

    class Meta:
        ref_name = "ErrorResponse"


class ViolationSerializer(serializers.Serializer):
    field = serializers.CharField()
    message = serializers.CharField()
    rejectedValue = serializers.JSONField(required=False, allow_null=True)  # noqa: N815

    class Meta:
        ref_name = "Violation"


class ValidationErrorSerializer(serializers.Serializer):
    status = serializers.IntegerField()
    code = serializers.CharField()
    message = serializers.CharField()
    violations = ViolationSerializer(many=True)

    class Meta:
        ref_name = "ValidationError"


class RateLimitErrorSerializer(serializers.Serializer):
    status = serializers.IntegerField()
    code = serializers.CharField()
    message = serializers.CharField()
    retryAfter = serializers.IntegerField()  # noqa: N815

    class Meta:
        ref_name = "RateLimitError"


class ArchsvcAutoSchema(AutoSchema):
    """Views list their own error statuses with @extend_schema; this adds nothing per view."""


def _ref(name: str) -> dict:
    return {"$ref": f"#/components/schemas/{name}"}


_BASE = {
    "status": {"type": "integer"},
    "code": {
        "type": "string",
        "enum": [
            "bad_request",
            "unauthorized",
            "payment_required",
            "forbidden",
            "not_found",
            "conflict",
            "rate_limited",
            "internal_error",
            "project_not_found",
            "project_limit_reached",
            "service_not_found",
            "service_name_conflict",
            "subscription_not_found",
            "customer_not_found",
            "insufficient_ai_credits",
            "invalid_billing_cycle",
            "validation_failed",
            "resource_already_exists",
            "public_share_token_not_found",
        ],
    },
    "message": {"type": "string"},
}
ERROR_SCHEMAS = {
    "ErrorResponse": {
        "type": "object",
        "properties": {**_BASE, "details": {"type": "string"}},
        "required": ["status", "code", "message"],
    },
    "Violation": {
        "type": "object",
        "properties": {
            "field": {"type": "string"},
            "message": {"type": "string"},
            "rejectedValue": {"nullable": True},
        },
        "required": ["field", "message"],
    },
    "ValidationError": {
        "type": "object",
        "properties": {
            **_BASE,
            "violations": {"type": "array", "items": {"$ref": "#/components/schemas/Violation"}},
        },
        "required": ["status", "code", "message", "violations"],
    },
    "RateLimitError": {
        "type": "object",
        "properties": {**_BASE, "retryAfter": {"type": "integer"}},
        "required": ["status", "code", "message", "retryAfter"],
    },
}

COMMON = {
    "401": ("Missing, invalid or expired credentials.", "ErrorResponse"),
    "429": ("Rate limit exceeded; see Retry-After.", "RateLimitError"),
    "500": ("Internal error.", "ErrorResponse"),
    "503": ("The database cannot be reached for a moment; see Retry-After.", "ErrorResponse"),
}

# Operations that call the billing provider (billing/services.py): their 503 may be its.
PROVIDER_CALLS = {"createPortalSession", "switchSubscriptionCycle"}
PROVIDER_UNAVAILABLE = (
    "The database cannot be reached for a moment (see Retry-After), or the billing provider "
    "could not be reached or refused the change (no Retry-After; nothing was changed)."
)


RATE_LIMIT_HEADERS = {
    "RateLimit-Limit": "Requests the caller's budget allows a window (reads, writes and the "
    "assistant each have their own budget; this is the one the request counted against).",
    "RateLimit-Remaining": "Requests left in the current window.",
    "RateLimit-Reset": "Seconds until the window frees.",
    "RateLimit-Policy": "The budget as `<requests>;w=<window seconds>`, e.g. `600;w=60`.",
}


# Statuses any operation may answer besides COMMON's, where it does not list its own.
BAD_QUERY = "A query parameter is malformed; any parameter, asked for or not, holding U+0000 too."
NO_CSRF = "A member's session cookie without the CSRF token in X-CSRFToken."


def _bad_request_schema(operation: dict) -> dict:
    """A 400's body: an ErrorResponse for a bad query parameter, or, where the operation takes a
    request body, a ValidationError for a body that fails validation or cannot be read."""
    if "requestBody" not in operation:
        return _ref("ErrorResponse")
    return {"anyOf": [_ref("ValidationError"), _ref("ErrorResponse")]}


def add_common_responses(result, generator, request, public):
    """Postprocessing hook: the answers any operation may give besides its own (401, 429, 500,
    503, a query's 400, a write's CSRF 403, interface §2), each with the rate-limit fields."""
    components = result.setdefault("components", {})
    schemas = components.setdefault("schemas", {})
    schemas.update(ERROR_SCHEMAS)
    components.setdefault("headers", {}).update(
        {
            name: {
                "schema": {"type": "string" if name == "RateLimit-Policy" else "integer"},
                "description": description,
            }
            for name, description in RATE_LIMIT_HEADERS.items()
        }
    )
    for path_item in result.get("paths", {}).values():
        for method, operation in path_item.items():
            if method not in {"get", "post", "put", "delete", "patch"}:
                continue
            responses = operation.setdefault("responses", {})
            responses.setdefault("400", {"description": BAD_QUERY})
            responses["400"]["content"] = {
                "application/json": {"schema": _bad_request_schema(operation)}
            }
            if method != "get":
                forbidden = responses.setdefault("403", {"description": NO_CSRF})
                forbidden.setdefault(
                    "content", {"application/json": {"schema": _ref("ErrorResponse")}}
                )
            for status, (description, component) in COMMON.items():
                if status not in responses:
                    if status == "503" and operation.get("operationId") in PROVIDER_CALLS:
                        description = PROVIDER_UNAVAILABLE
                    entry = {
                        "description": description,
                        "content": {"application/json": {"schema": _ref(component)}},
                    }
                    if status in {"429", "503"}:
                        entry["headers"] = {
                            "Retry-After": {
                                "schema": {"type": "integer"},
                                "description": "Seconds to wait before trying again.",
                            }
                        }
                    if status == "401":
                        entry["headers"] = {"WWW-Authenticate": {"schema": {"type": "string"}}}
                    responses[status] = entry
            names = {p.get("name") for p in operation.get("parameters", [])}
            tagged = None
            if operation.get("operationId") in SERVICE_TAGGED:
                tagged = "service"
            elif "If-None-Match" in names:
                tagged = "body"
            if tagged and "200" in responses:
                responses["200"].setdefault("headers", {})["ETag"] = {
                    "schema": {"type": "string"},
                    "description": ETAG_DESCRIPTION[tagged],
                }
            for response in responses.values():
                headers = response.setdefault("headers", {})
                for name in RATE_LIMIT_HEADERS:
                    headers.setdefault(name, {"$ref": f"#/components/headers/{name}"})
            operation["responses"] = dict(sorted(responses.items()))
    for path, path_item in result.get("paths", {}).items():
        for method, operation in path_item.items():
            if method in {"get", "post", "put", "delete", "patch"}:
                _error_examples(path, operation)
    return result


# What an error answer holds, by status, for the docs page's examples: generated from the
# schema alone, every error read `{"status": 0, "code": "bad_request", ...}`
# (in the words the server says them: a script matching on a message met other ones)
_ERROR_EXAMPLES = {
    "400": ("bad_request", "Query parameter 'depth' must be between 0 and 5."),
    "401": ("unauthorized", NO_CREDENTIALS),
    "402": ("payment_required", "This plan does not allow it."),
    "403": ("forbidden", Forbidden.message),
    "404": ("not_found", "Not found."),
    "409": ("conflict", Conflict.message),
    "429": ("rate_limited", "Too many requests; retry later."),
    "500": ("internal_error", "Something went wrong on our side; nothing was changed."),
    "503": ("internal_error", "The service is unavailable for a moment; retry shortly."),
}


def _error_example(path: str, operation: dict, status: str) -> dict:
    """An example body for `status` of this operation: its own code where the path says
    which (a service's 404 is service_not_found, a project's project_not_found, ...)."""
    code, message = _ERROR_EXAMPLES[status]
    operation_id = operation.get("operationId", "")
    if status == "404":
        if "{slug}" in path:
            code, message = "service_not_found", "No service 'order-api' in this project."
        elif "public-share-token" in path:
            code, message = "public_share_token_not_found", "The project is not shared."
        elif "{project_id}" in path:
            code, message = (
                "project_not_found",
                "No project 'checkout-platform-k3x9q2ab' in this organization "
                "(GET /v1/projects lists the ids).",
            )
        elif "/billing/" in path:
            code, message = "subscription_not_found", "The organization has no subscription."
    elif status == "402" and "/ai/chat" in path:
        code, message = "insufficient_ai_credits", "No AI credits left; nothing was spent."
    elif status == "402":
        code, message = "project_limit_reached", "The plan's project limit is reached."
    elif status == "409" and ("services" in path or "service" in operation_id):
        code = "service_name_conflict"
        message = (
            "A service named 'Order API' exists in this project, at the slug 'order-api' "
            "(PUT .../services/order-api changes it)."
        )
    body = {"status": int(status), "code": code, "message": message}
    if status == "429":
        body["retryAfter"] = 12
    return body


def _error_examples(path: str, operation: dict) -> None:
    for status, response in operation.get("responses", {}).items():
        if status not in _ERROR_EXAMPLES:
            continue
        content = response.get("content", {}).get("application/json")
        if not content or content.get("schema") not in (
            _ref("ErrorResponse"),
            _ref("RateLimitError"),
        ):
            continue
        content.setdefault("example", _error_example(path, operation, status))


# The URL kwargs the views take, and the names the spec gives those path parameters.
SPEC_PATH_PARAMETERS = {
    "project_id": "projectId",
    "slug": "serviceSlug",
    "snapshot_id": "snapshotId",
}


def spec_path_parameters(result, generator, request, public):
    """Postprocessing hook: a path takes the spec's parameter names (`{projectId}`, not the URL
    kwarg's `{project_id}`) where its operations declare them, each declared once."""
    paths = {}
    for path, path_item in result.get("paths", {}).items():
        operations = [op for op in path_item.values() if isinstance(op, dict)]
        declared = {
            p.get("name")
            for op in operations
            for p in op.get("parameters", [])
            if p.get("in") == "path"
        }
        renames = {
            kwarg: name
            for kwarg, name in SPEC_PATH_PARAMETERS.items()
            if kwarg in declared and name in declared and f"{{{kwarg}}}" in path
        }
        for kwarg, name in renames.items():
            path = path.replace(f"{{{kwarg}}}", f"{{{name}}}")
        for operation in operations:
            if "parameters" in operation:
                operation["parameters"] = [
                    p
                    for p in operation["parameters"]
                    if not (p.get("in") == "path" and p.get("name") in renames)
                ]
        paths[path] = path_item
    result["paths"] = paths
    return result


class ApiKeyScheme(OpenApiAuthenticationExtension):
    target_class = "accounts.authentication.ApiKeyAuthentication"
    name = "apiKey"

    def get_security_definition(self, auto_schema):
        return {"type": "http", "scheme": "bearer", "bearerFormat": "JWT"}


class SessionScheme(OpenApiAuthenticationExtension):
    target_class = "accounts.authentication.SessionCookieAuthentication"
    name = "session"

    def get_security_definition(self, auto_schema):
        return {"type": "apiKey", "in": "cookie", "name": "__session"}


def error_responses(*statuses: int) -> dict:
    """`@extend_schema(responses={200: X, **error_responses(400, 404)})`: 400 is a
    ValidationError body, any other status an ErrorResponse."""
    return {
        status: ValidationErrorSerializer if status == 400 else ErrorResponseSerializer
        for status in statuses
    }


# Reads kept whole in the render cache answer conditional requests (archsvc/api/encoding.py).
IDEMPOTENCY_KEY = OpenApiParameter(
    "Idempotency-Key",
    # what idempotency.request_key takes, said so that a generated client checks it too
    {"type": "string", "minLength": 1, "maxLength": 255, "pattern": "^[!-~]([ -~]*[!-~])?$"},
    OpenApiParameter.HEADER,
    description="optional, 1 to 255 printable ASCII characters (a UUID): a retry with the "
    "same key and body answers the project the first request made (header "
    "`Idempotent-Replayed: true`) instead of making another, for 24 hours; the same key "
    "with another body is 400, and 409 while the first is still being answered",
)
IF_NONE_MATCH = OpenApiParameter(
    "If-None-Match",
    OpenApiTypes.STR,
    OpenApiParameter.HEADER,
    description="the ETag of an earlier response: 304 without a body while it is current",
)
NOT_MODIFIED = {
    304: OpenApiResponse(
        description="Not Modified: the If-None-Match tag is still current (no body; the "
        "ETag header repeats it)"
    )
}

# A service's PUT and DELETE write only over the state read (diagrams/api/service_views.py).
IF_MATCH = OpenApiParameter(
    "If-Match",
    OpenApiTypes.STR,
    OpenApiParameter.HEADER,
    description="the ETag of the service as last read (or several, comma-separated): the "
    "write happens only while the service is at that state, else 409 `conflict` and "
    "nothing changes. `*`, or no header, writes over any state.",
)
# Operations whose 200 carries an ETag: the reads that take If-None-Match (the tag of the
# body), and one service's reads and writes (its state, for If-Match).
SERVICE_TAGGED = {"getService", "createService", "updateService"}
ETAG_DESCRIPTION = {
    "service": "This state of the service: send it in If-Match to change or delete only it.",
    "body": "The tag of this body: send it in If-None-Match to be told 304 while it holds.",
}


# The bounds the views enforce on their integer query parameters (archsvc/api/params.py).
PARAMETER_BOUNDS = {
    "page": {"minimum": 0, "maximum": 10_000_000},
    "size": {"minimum": 1, "maximum": 100},
    "depth": {"minimum": 0, "maximum": 5},
}
# drf-spectacular's names for request bodies, as a generated client would read them:
# "Patched..." says PATCH (a PATCH is 405), and "...RequestRequest" says it twice.
COMPONENT_NAMES = {
    "PatchedServiceUpdateRequest": "ServiceUpdateRequest",
    "AiChatRequestRequest": "AiChatRequest",
}


def request_bodies(result, generator, request, public):
    """Postprocessing hook, what a generated client sends: JSON bodies, a required PUT body, the
    query bounds the views enforce, request components renamed and closed to unknown properties."""
    for path_item in result.get("paths", {}).values():
        for method, operation in path_item.items():
            if not isinstance(operation, dict):
                continue
            body = operation.get("requestBody")
            if body is not None:
                content = body.get("content", {})
                if "*/*" in content:  # the views read any content type as JSON
                    body["content"] = {"application/json": content.pop("*/*"), **content}
                if method == "put":  # required by the spec (a 400 without), each field optional
                    body["required"] = True
            for parameter in operation.get("parameters", []):
                bounds = PARAMETER_BOUNDS.get(parameter.get("name"))
                if parameter.get("in") == "query" and bounds:
                    parameter.setdefault("schema", {}).update(bounds)
    schemas = result.get("components", {}).get("schemas", {})
    renames = {old: new for old, new in COMPONENT_NAMES.items() if old in schemas}
    for old, new in renames.items():
        schemas[new] = schemas.pop(old)
    if renames:
        refs = {
            f"#/components/schemas/{old}": f"#/components/schemas/{new}"
            for old, new in renames.items()
        }
        _rename_refs(result, refs)
    for name, schema in schemas.items():  # "Request objects reject unknown properties"
        if name.endswith("Request") and schema.get("type") == "object":
            schema["additionalProperties"] = False
    return result


def _rename_refs(node, refs: dict) -> None:
    if isinstance(node, dict):
        if node.get("$ref") in refs:
            node["$ref"] = refs[node["$ref"]]
        for value in node.values():
            _rename_refs(value, refs)
    elif isinstance(node, list):
        for value in node:
            _rename_refs(value, refs)
