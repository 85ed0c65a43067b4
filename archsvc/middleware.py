"""Request ids: every request gets one (or keeps the one its load balancer sent), it is
echoed in `X-Request-Id` and attached to every log line written while serving it."""

import contextvars
import logging
import re
import uuid

from django.core.exceptions import RequestDataTooBig
from django.http.request import UnreadablePostError

from archsvc.api.errors import error_json

_request_id: contextvars.ContextVar[str] = contextvars.ContextVar("request_id", default="-")
_VALID_ID = re.compile(r"^[A-Za-z0-9._-]{1,64}$")


def current_request_id() -> str:
    return _request_id.get()


class RequestIdMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        incoming = request.META.get("HTTP_X_REQUEST_ID", "")
        request_id = incoming if _VALID_ID.match(incoming) else uuid.uuid4().hex
        token = _request_id.set(request_id)
        request.request_id = request_id
        try:
            response = self.get_response(request)
        finally:
            _request_id.reset(token)
        response["X-Request-Id"] = request_id
        return response


class RequestIdFilter(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        record.request_id = _request_id.get()
        return True


class CompleteBodyMiddleware:
    """A request whose body is shorter than its Content-Length is refused (400) before any
    view sees it. A client that goes away mid-body leaves the server holding what arrived;
    when that happens to parse (a form cut between fields, JSON missing only trailing
    whitespace), acting on it would save a half-sent edit the client never saw succeed."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        try:
            declared = int(request.META.get("CONTENT_LENGTH") or 0)
        except ValueError:
            declared = 0
        if declared > 0:
            try:
                received = len(request.body)
            except RequestDataTooBig:
                received = declared  # the view answers it (400, too large)
            except UnreadablePostError:
                received = -1
            if received != declared:
                logging.getLogger("archsvc.request").warning(
                    "incomplete body: %s of %s bytes", max(received, 0), declared
                )
                return error_json(
                    400, "bad_request", "The request body is shorter than its Content-Length."
                )
        return self.get_response(request)
