"""One JSON object per log line, so that log shippers need no parsing rules."""

import json
import logging
import threading
import time
from datetime import UTC, datetime


class JsonFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        entry = {
            "time": datetime.fromtimestamp(record.created, UTC).isoformat(),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
            "request_id": getattr(record, "request_id", "-"),
        }
        if record.exc_info:
            entry["exception"] = self.formatException(record.exc_info)
        return json.dumps(entry, default=str)


def one_line(exc: BaseException) -> str:
    """An exception's message on one line (psycopg's span several), for a warning that
    says why without a traceback."""
    return " ".join(str(exc).split()) or type(exc).__name__


class Every:
    """A warning said at most once per `every` seconds in a process, with how many times it came
    about since: for what can happen on every request while it lasts (e.g. the cache down)."""

    def __init__(self, logger: logging.Logger, every: float, message: str) -> None:
        self.logger = logger
        self.every = every
        self.message = message  # formatted with (count, reason)
        self.last: float | None = None
        self.count = 0
        self.lock = threading.Lock()

    def __call__(self, reason: BaseException | str) -> None:
        with self.lock:
            self.count += 1
            now = time.monotonic()
            if self.last is not None and now - self.last < self.every:
                return
            count, self.count, self.last = self.count, 0, now
        text = reason if isinstance(reason, str) else one_line(reason)
        self.logger.warning(self.message, count, text)


def reason_logged(request) -> None:
    """Says that the reason for this request's 4xx or 5xx answer was logged already, in
    one line: Django's own line for it (`ReasonLoggedFilter`) is dropped."""
    request.archsvc_reason_logged = True


class ReasonLoggedFilter(logging.Filter):
    """On `django.request`: drops the line of a request whose reason was logged already
    (`reason_logged`), such as an expected 503, and the traceback of a 4xx."""

    def filter(self, record: logging.LogRecord) -> bool:
        request = getattr(record, "request", None)
        if getattr(request, "archsvc_reason_logged", False):
            return False
        status = getattr(record, "status_code", None)
        if isinstance(status, int) and status < 500:
            # a refusal is its line ("Forbidden (Permission denied): /admin/..."), not the
            # traceback of the exception that said it: 3.5 KB of JSON for each 403
            record.exc_info = record.exc_text = None
        return True
