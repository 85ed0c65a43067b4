"""Logs as an operator's log shipper reads them: every line gunicorn and the app write is
one JSON object, and every line written while serving a request carries its id, the one
echoed in X-Request-Id."""

import json
import logging
import os
import socket
import subprocess
import sys
import time

import pytest
from django.test import Client

from archsvc.middleware import RequestIdFilter
from archsvc.tests.servers import AppServer
from conftest import requires_postgres


def _request_line(port: int, line: str) -> bytes:
    """A raw request, as urllib would not send it: its answer's first bytes."""
    with socket.create_connection(("127.0.0.1", port), timeout=10) as conn:
        conn.sendall(f"{line}\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n".encode())
        return conn.recv(64)


class Kept(logging.Handler):
    def __init__(self):
        super().__init__()
        self.addFilter(RequestIdFilter())
        self.records: list[logging.LogRecord] = []

    def emit(self, record):
        self.records.append(record)


@pytest.fixture
def django_request_lines():
    handler, logger = Kept(), logging.getLogger("django.request")
    logger.addHandler(handler)
    try:
        yield handler.records
    finally:
        logger.removeHandler(handler)


def test_djangos_own_line_for_a_refused_request_carries_its_id(db, django_request_lines):
    """Django writes "Unauthorized: /v1/limits" after every middleware has returned; it
    went out with request_id "-", so a 401 or 404 could not be traced to its request."""
    response = Client().get("/v1/limits", HTTP_X_REQUEST_ID="lb-7f3a")
    assert response.status_code == 401 and response["X-Request-Id"] == "lb-7f3a"
    missing = Client().get("/v1/nowhere")
    [refused, not_found] = django_request_lines
    assert refused.getMessage() == "Unauthorized: /v1/limits"
    assert refused.request_id == "lb-7f3a"
    assert not_found.request_id == missing["X-Request-Id"] != "lb-7f3a"
    # and a line written after the request is over belongs to no request
    logging.getLogger("django.request").warning("between requests")
    assert django_request_lines[-1].request_id == "-"


def test_a_refusal_is_logged_as_its_line_without_a_traceback(db, django_request_lines):
    """Each 403 in admin wrote the PermissionDenied's whole traceback (some 3.5 KB of JSON):
    a refusal is expected, its line says it."""
    from accounts.models import User

    looker = User.objects.create_user(email="look@example.com", password="look-password-1")
    looker.is_staff = True
    looker.save()
    client = Client()
    client.force_login(looker)
    assert client.get("/admin/billing/aicredits/xyz/delete/").status_code == 403
    [refused] = [r for r in django_request_lines if r.status_code == 403]
    assert refused.getMessage().startswith("Forbidden")
    assert refused.exc_info is None and refused.exc_text is None


@requires_postgres
@pytest.mark.django_db(transaction=True)
def test_every_line_gunicorn_and_the_app_write_is_one_json_object(factory):
    token = factory.key(factory.org("logs"), "logs")
    with AppServer(env={"LOG_LEVEL": "INFO"}) as server:
        # a path with a backslash, a quote and a non-ASCII letter; one that is refused
        odd = server.request("GET", "/v1/x%5Cq%22caf%C3%A9", token)
        refused = server.request("GET", "/v1/limits")
        whole_url = _request_line(server.port, "GET http://elsewhere.example/v1/p?q=1 HTTP/1.1")
        served = server.request("GET", "/v1/limits", token)
        # gunicorn writes a request's access line after its response has gone: on a busy
        # machine the last one came after the log was read
        deadline = time.monotonic() + 5
        log = server.log_text()
        while served[1]["X-Request-Id"] not in log and time.monotonic() < deadline:
            time.sleep(0.05)
            log = server.log_text()
    lines = [json.loads(line) for line in log.splitlines() if line.strip()]
    access = {line["path"]: line for line in lines if line["logger"] == "gunicorn.access"}
    odd_line = access['/v1/x\\q"café']
    assert odd_line["status"] == odd[0] == 404
    assert odd_line["request_id"] == odd[1]["X-Request-Id"]
    served_line = [line for line in lines if line.get("request_id") == served[1]["X-Request-Id"]]
    assert [(line["status"], line["method"]) for line in served_line] == [(200, "GET")]
    assert served_line[0]["bytes"] == len(served[2]) and served_line[0]["ms"] >= 0
    unauthorized = [line for line in lines if line.get("message") == "Unauthorized: /v1/limits"]
    assert [line["request_id"] for line in unauthorized] == [refused[1]["X-Request-Id"]]
    assert any(line["message"].startswith("Booting worker") for line in lines)
    # no control socket in $HOME: the image's user has none, and servers here share one
    assert not any("control socket" in line.get("message", "").lower() for line in lines)
    # a request line with a whole URL is logged by its path, without the host it named
    assert whole_url.startswith(b"HTTP/1.1 ")
    assert "/v1/p" in access and not any("elsewhere" in path for path in access)


def test_a_line_of_djangos_is_written_once_with_debug_on():
    """With DEBUG on (make run) Django's default logging config wrote each of its lines in
    plain text too: the dev server said "Watching for file changes" twice, a 500's traceback
    came twice, once not as JSON."""
    env = {k: v for k, v in os.environ.items() if k != "DJANGO_SETTINGS_MODULE"}
    env.update(DEBUG="1", DJANGO_SETTINGS_MODULE="archsvc.settings")
    said = subprocess.run(
        [
            sys.executable,
            "-c",
            "import django, logging; django.setup(); "
            "logging.getLogger('django.utils.autoreload').info('Watching for file changes')",
        ],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert said.returncode == 0, said.stderr
    lines = [line for line in (said.stdout + said.stderr).splitlines() if line.strip()]
    assert len(lines) == 1, lines
    assert json.loads(lines[0])["message"] == "Watching for file changes"
