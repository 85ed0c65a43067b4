"""The one place where errors become the spec's bodies: ErrorResponse, ValidationError
(with `violations`) and RateLimitError. Domain code raises the typed exceptions below."""

import logging
import math
import re

from django.conf import settings
from django.core.exceptions import PermissionDenied as DjangoPermissionDenied
from django.core.exceptions import RequestDataTooBig, SuspiciousOperation
from django.db import DatabaseError, InterfaceError, OperationalError
from django.http import Http404, JsonResponse
from django.http.request import UnreadablePostError
from rest_framework import exceptions as drf
from rest_framework.response import Response

from archsvc.api.ratelimit import refused_rate_limit_hit, seconds_text
from archsvc.exceptions import NO_CREDENTIALS, ApiError, Forbidden, ProjectNotFound
from archsvc.logging import one_line, reason_logged
from archsvc.render_budget import RenderBudgetSpent

logger = logging.getLogger("archsvc.api")

# The code of a violation whose fault is a property's name (an extras key too long), not its
# value: its rejectedValue is the name.
NAME_REJECTED = "name_rejected"

WWW_AUTHENTICATE = 'Bearer realm="archsvc", Cookie realm="archsvc" name="__session"'


def database_unreachable(exc: BaseException | None) -> bool:
    """Whether `exc` means the database cannot be reached for now (down, slow to answer, a lost
    connection): a 503 with Retry-After, from the API here and the pages (handler500)."""
    return isinstance(exc, (OperationalError, InterfaceError))


def database_unreachable_logged(request, exc: BaseException) -> None:
    """One warning line with the reason for each such 503, and no other (no traceback, no
    Django "Service Unavailable" line): an outage is expected, and says why in a line."""
    request = getattr(request, "_request", request)  # Django's, under DRF's wrapper
    logging.getLogger("archsvc.request").warning(
        "database unavailable, %s answered 503: %s", request.path, one_line(exc)
    )
    reason_logged(request)


def error_body(status: int, code: str, message: str, details: str | None = None) -> dict:
    body = {"status": status, "code": code, "message": message}
    if details:
        body["details"] = details
    return body


def error_json(status: int, code: str, message: str, **headers: str) -> JsonResponse:
    """A JSON error outside DRF (unknown paths, Django's 404/500 handlers)."""
    response = JsonResponse(
        error_body(status, code, message),
        status=status,
        json_dumps_params={"separators": (",", ":")},  # as DRF writes every other body
    )
    for name, value in headers.items():
        response[name.replace("_", "-")] = value
    return response


def _violations(detail, path: str = "", name=None) -> list[dict]:
    """Flatten DRF's nested error detail into violations named by JSON path (`produces[1].name`);
    `name`, the path's last property, is kept for violations coded NAME_REJECTED."""
    if isinstance(detail, dict):
        out = []
        for key, value in detail.items():
            if key in ("non_field_errors", "__all__"):
                child = path or "body"
            elif isinstance(key, int):  # DRF reports list items by index
                child = f"{path}[{key}]"
            else:
                child = f"{path}.{key}" if path else str(key)
            out.extend(_violations(value, child, key))
        return out
    if isinstance(detail, list):
        if detail and all(isinstance(item, (str, drf.ErrorDetail)) for item in detail):
            out = [{"field": path or "body", "message": str(item)} for item in detail]
            for violation, item in zip(out, detail, strict=True):
                if getattr(item, "code", None) == NAME_REJECTED and isinstance(name, str):
                    violation[NAME_REJECTED] = name
            return out
        out = []
        for index, item in enumerate(detail):
            if item:
                out.extend(_violations(item, f"{path}[{index}]"))
        return out
    return [{"field": path or "body", "message": str(detail)}]


def _rejected_value(data, field: str):
    """The value at a violation's JSON path in the request body, when one can be found
    (property names holding `.` or `[` make the path ambiguous: then none)."""
    try:
        return _walk(data, field)
    except (ValueError, TypeError, KeyError, IndexError):
        return None


def _walk(data, field: str):
    current = data
    for part in field.replace("[", ".[").split("."):
        if part == "" or part == "body":
            continue
        if part.startswith("["):
            index = int(part[1:-1])
            if not isinstance(current, list) or index >= len(current):
                return None
            current = current[index]
        else:
            if not isinstance(current, dict) or part not in current:
                return None
            current = current[part]
    return current


_UNENCODABLE = re.compile("[\ud800-\udfff]")


def _printable(text: str) -> str:
    """Client text echoed in an error body: lone surrogates cannot be encoded as UTF-8."""
    return _UNENCODABLE.sub("\ufffd", text)


def validation_response(
    detail, data=None, *, code="validation_failed", message: str | None = None
) -> Response:
    violations = _violations(detail)
    for violation in violations:
        violation["field"] = _printable(violation["field"])
        violation["message"] = _printable(violation["message"])
        if NAME_REJECTED in violation:
            value = violation.pop(NAME_REJECTED)
        elif data is not None and violation["field"] != "body":
            value = _rejected_value(data, violation["field"])
        else:
            value = None
        if isinstance(value, (str, int, float, bool)) and not (
            (isinstance(value, str) and len(value) > 1000)
            # 1e400 parses as inf, which JSON cannot carry back
            or (isinstance(value, float) and not math.isfinite(value))
        ):
            violation["rejectedValue"] = _printable(value) if isinstance(value, str) else value
    body = {
        "status": 400,
        "code": code,
        "message": message
        or (
            "The request body is invalid."
            if code == "validation_failed"
            else "The request body is not valid JSON."
        ),
        "violations": violations,
    }
    return Response(body, status=400)


def rate_limited_body(message: str, retry_after: int) -> dict:
    """RateLimitError (interface §11): the error body with `retryAfter`, which the response's
    Retry-After header repeats."""
    body = error_body(429, "rate_limited", message)
    body["retryAfter"] = retry_after
    return body


def rate_limited_response(
    wait: float | None, message: str = "Too many requests; retry later."
) -> Response:
    retry_after = max(1, math.ceil(wait or 1))
    body = rate_limited_body(message, retry_after)
    return Response(body, status=429, headers={"Retry-After": str(retry_after)})


# A read refused because its organization's new drawings took RENDER_BUDGET_SECONDS this
# minute (archsvc/render_budget.py), not because of its request budget.
RENDER_BUDGET_MESSAGE = (
    "This organization's new drawings took their share of rendering time this minute; "
    "drawings already made (the same query on the same state) are still served. Retry in "
    "{seconds}."
)


def _render_budget_spent(exc, request) -> Response:
    """The 429 of a spent render budget, its RateLimit-* fields saying what refused it (none
    left until Retry-After), not the request budget, so a script pacing on them waits enough."""
    retry_after = max(1, math.ceil(exc.wait or 1))
    django_request = getattr(request, "_request", request)
    state = getattr(django_request, "rate_limit_state", None)
    if state is not None:
        limit, _remaining, _reset, window = state
        django_request.rate_limit_state = (limit, 0, retry_after, window)
    return rate_limited_response(
        retry_after, RENDER_BUDGET_MESSAGE.format(seconds=seconds_text(retry_after))
    )


def wants_page(request) -> bool:
    """A browser's navigation (its Accept names text/html) is answered with a page; anything
    else (a script, curl's `*/*`, an <img>) with the JSON body interface §11 gives every 429."""
    return "text/html" in request.headers.get("Accept", "")


def rate_limited_json(message: str, retry_after: int) -> JsonResponse:
    """A 429 outside DRF (share pages, log-in and sign-up posts) for a client that is not a
    browser: RateLimitError, as the API's."""
    retry_after = max(1, int(retry_after))
    response = JsonResponse(
        rate_limited_body(message, retry_after),
        status=429,
        json_dumps_params={"separators": (",", ":")},
    )
    response["Retry-After"] = str(retry_after)
    return response


def exception_handler(exc, context):
    """DRF's EXCEPTION_HANDLER: every error that leaves a /v1 view goes through here."""
    from rest_framework.views import set_rollback  # DRF's views import this module

    request = context.get("request")
    set_rollback()
    if isinstance(exc, ProjectNotFound):
        # the id asked for, said back: using a project's name as its id is a first mistake
        asked = (context.get("kwargs") or {}).get("project_id")
        if isinstance(asked, str) and exc.message == ProjectNotFound.message:
            shown = asked.encode("utf-8", "replace").decode("utf-8")[:100]
            exc = ProjectNotFound(
                f"No project '{shown}' in this organization (GET /v1/projects lists the ids)."
            )
    if isinstance(exc, ApiError):
        return Response(
            error_body(exc.status, exc.code, exc.message, exc.details),
            status=exc.status,
            headers={"WWW-Authenticate": WWW_AUTHENTICATE} if exc.status == 401 else None,
        )
    if isinstance(exc, drf.ValidationError):
        data = getattr(request, "_full_data", None) if request is not None else None
        return validation_response(exc.detail, data)
    if isinstance(exc, drf.ParseError):
        return validation_response({"body": [str(exc.detail)]}, code="bad_request")
    if isinstance(exc, (drf.NotAuthenticated, drf.AuthenticationFailed)):
        if request is not None:
            wait = refused_rate_limit_hit(request, context.get("view"))
            if wait is not None:
                return rate_limited_response(wait)
        message = NO_CREDENTIALS
        if isinstance(exc, drf.AuthenticationFailed) and exc.get_codes() == "explained":
            message = str(exc.detail)  # what the caller can fix (accounts/authentication.py)
        return Response(
            error_body(401, "unauthorized", message),
            status=401,
            headers={"WWW-Authenticate": WWW_AUTHENTICATE},
        )
    if isinstance(exc, (drf.PermissionDenied, DjangoPermissionDenied)):
        message = str(getattr(exc, "detail", "")) or Forbidden.message
        return Response(error_body(403, "forbidden", message), status=403)
    if isinstance(exc, RequestDataTooBig):  # over DATA_UPLOAD_MAX_MEMORY_SIZE
        limit = settings.DATA_UPLOAD_MAX_MEMORY_SIZE
        return validation_response(
            {"body": [f"The body is larger than the limit of {limit:,} bytes."]},
            code="bad_request",
            message="The request body is too large.",
        )
    if isinstance(exc, SuspiciousOperation):
        return validation_response(
            {"body": ["The request is malformed."]},
            code="bad_request",
            message="The request is malformed.",
        )
    if isinstance(exc, UnreadablePostError):  # the client went away while sending the body
        logger.warning("request body unreadable: %s", exc)
        return Response(
            error_body(400, "bad_request", "The request body could not be read."), status=400
        )
    if isinstance(exc, (drf.NotFound, Http404)):
        return Response(error_body(404, "not_found", "Not found."), status=404)
    if isinstance(exc, drf.MethodNotAllowed):
        return Response(error_body(405, "bad_request", str(exc.detail)), status=405)
    if isinstance(exc, drf.UnsupportedMediaType):
        return validation_response(
            {"body": ["Send the body as JSON with Content-Type: application/json."]},
            code="bad_request",
        )
    if isinstance(exc, RenderBudgetSpent):
        return _render_budget_spent(exc, request)
    if isinstance(exc, drf.Throttled):
        return rate_limited_response(exc.wait)
    if isinstance(exc, drf.APIException):
        status = exc.status_code
        code = "bad_request" if status < 500 else "internal_error"
        return Response(error_body(status, code, str(exc.detail)), status=status)
    if database_unreachable(exc):
        if request is not None:
            database_unreachable_logged(request, exc)
        return Response(
            error_body(503, "internal_error", "The service is briefly unavailable; retry."),
            status=503,
            headers={"Retry-After": "1"},
        )
    if isinstance(exc, DatabaseError):
        logger.exception("database error")
    else:
        logger.exception("unhandled error")
    return Response(error_body(500, "internal_error", "An internal error occurred."), status=500)
