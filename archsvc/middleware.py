"""Request ids: every request gets one (or keeps the one its load balancer sent), it is
echoed in `X-Request-Id` and attached to every log line written while serving it."""

import contextvars
import io
import logging
import re
import uuid

from django.conf import settings
from django.core.exceptions import RequestDataTooBig
from django.core.handlers.wsgi import LimitedStream
from django.core.signals import request_finished
from django.http import HttpResponseBadRequest, HttpResponseNotFound
from django.http.request import UnreadablePostError
from django.template.loader import render_to_string

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
        # kept until the response is closed (request_finished, below), not reset on the way
        # out: Django logs a 4xx or 5xx ("Unauthorized: /v1/limits") after every
        # middleware has returned, and those lines went out with request_id "-"
        _request_id.set(request_id)
        request.request_id = request_id
        response = self.get_response(request)
        response["X-Request-Id"] = request_id
        return response


def _forget_request_id(**kwargs) -> None:
    """Lines logged between requests (a worker starting, a signal) carry no request's id."""
    _request_id.set("-")


request_finished.connect(_forget_request_id, dispatch_uid="archsvc.forget_request_id")


class RequestIdFilter(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        record.request_id = _request_id.get()
        return True


class CompleteBodyMiddleware:
    """A body shorter than its Content-Length is refused (400) before any view: a cut body that
    happens to parse would save a half-sent edit. A chunked body is read in full here first."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        meta = request.META
        # Django reads only as far as Content-Length says, so a chunked body would read as none:
        # read it here where the server ends the input at the body's end, else refuse
        if "chunked" in meta.get("HTTP_TRANSFER_ENCODING", "").lower() and not meta.get(
            "CONTENT_LENGTH"
        ):
            refused = _read_chunked(request)
            if refused is not None:
                return refused
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


def _read_chunked(request):
    """Read a chunked body into the request, as a body of that length; or a refusal."""
    meta = request.META
    if not meta.get("wsgi.input_terminated"):
        return error_json(
            400,
            "bad_request",
            "This server cannot read a chunked request body: send the body with its "
            "Content-Length.",
        )
    limit = settings.DATA_UPLOAD_MAX_MEMORY_SIZE
    try:
        # one byte past the limit is enough for request.body to refuse it as too large
        body = meta["wsgi.input"].read(-1 if limit is None else limit + 1)
    except Exception:  # noqa: BLE001 - the server's chunk parser on a malformed or cut body
        logging.getLogger("archsvc.request").warning("unreadable chunked body", exc_info=True)
        return error_json(
            400, "bad_request", "The chunked request body is malformed or was cut off."
        )
    meta["CONTENT_LENGTH"] = str(len(body))
    request._stream = LimitedStream(io.BytesIO(body), len(body))
    return None


def _has_nul(values) -> str | None:
    """The first name whose name or values hold U+0000, of (name, [values]) pairs."""
    for name, items in values:
        if "\x00" in name or any("\x00" in item for item in items):
            return name.replace("\x00", "\\0")[:100]
    return None


def _sealed(response):
    """A refusal made before the security middleware runs carries its headers all the same."""
    response["Content-Security-Policy"] = PAGES_CSP
    response["X-Content-Type-Options"] = "nosniff"
    response["X-Frame-Options"] = "DENY"
    return response


class RefuseNulMiddleware:
    """U+0000 is in nothing anyone means and PostgreSQL text cannot hold it: refused before any
    view (a path 404, a query or form field 400, a cookie dropped), JSON by the serializers."""

    FORMS = ("application/x-www-form-urlencoded", "multipart/form-data")

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        # a cookie holding it is no cookie: Django reads `sessionid="a\\000b"` as U+0000,
        # and the admin's session lookup sent it to PostgreSQL, before any log-in
        for name in [n for n, v in request.COOKIES.items() if "\x00" in n or "\x00" in v]:
            del request.COOKIES[name]
        api = request.path.startswith("/v1")
        if "\x00" in request.path:
            if api:
                return _sealed(
                    error_json(404, "not_found", "Not found: the path holds a NUL character.")
                )
            return _sealed(
                HttpResponseNotFound(
                    render_to_string("404.html", request=request), content_type="text/html"
                )
            )
        query = request.GET.lists()
        if request.path.startswith("/admin/"):  # its search form refuses q itself, and says so
            query = [(k, v) for k, v in query if k != "q"]
        where, name = "Query parameter", _has_nul(query)
        if name is None and request.content_type in self.FORMS and request.method == "POST":
            try:
                where, name = "Form field", _has_nul(request.POST.lists())
            except Exception:  # noqa: BLE001 - a malformed form is the view's to refuse
                name = None
        if name is not None:
            message = f"{where} '{name}' holds a NUL character (U+0000)."
            if api:
                return _sealed(error_json(400, "bad_request", message))
            return _sealed(
                HttpResponseBadRequest(message, content_type="text/plain; charset=utf-8")
            )
        return self.get_response(request)


# Scripts only from our own files (no inline script, no eval), nothing loaded from elsewhere,
# never framed (the share embed sends its own policy, which allows frames). No form-action:
# choosing a plan posts to us, and we redirect to the payment provider's checkout.
PAGES_CSP = (
    "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; "
    "img-src 'self' data:; connect-src 'self'; base-uri 'none'; frame-ancestors 'none'"
)


class PagesCspMiddleware:
    """Every HTML page of ours carries a Content-Security-Policy, defence in depth against an
    escaping bug; share pages, Django admin and the API docs (inline script) keep their own."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        response = self.get_response(request)
        if (
            not response.has_header("Content-Security-Policy")
            and response.get("Content-Type", "").startswith("text/html")
            and not request.path.startswith(("/admin/", "/v1/docs"))
        ):
            response["Content-Security-Policy"] = PAGES_CSP
        return response


class HeadAsGetMiddleware:
    """HEAD of a page answered as its GET, the server leaving out the body (RFC 9110 9.3.2), as
    most page views allow only GET and POST; the API's views answer HEAD themselves."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        if request.method != "HEAD" or request.path.startswith("/v1/"):
            return self.get_response(request)
        request.method = "GET"
        try:
            return self.get_response(request)
        finally:
            request.method = "HEAD"  # what the server and the rest go by: no body
