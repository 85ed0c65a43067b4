"""A database that cannot be reached, under a real gunicorn: one that accepts connections and
never answers (a network partition, a firewall dropping packets) is given up on after
DB_CONNECT_TIMEOUT, and one that refuses them is answered at once. Either way /healthz is
503, the API its 503 body and the pages a 503 page, each with Retry-After, logged as one
warning with the reason: no worker held until gunicorn kills it, no 500, no traceback."""

import ast
import json
import os
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
import uuid
from datetime import UTC, datetime

from accounts.tokens import api_key_token_encode, session_token_encode
from archsvc.tests.servers import ROOT, AppServer, free_port


class SilentDatabase:
    """A server on 127.0.0.1 that accepts TCP connections and never says a word."""

    def __init__(self):
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(64)
        self.url = f"postgres://postgres@127.0.0.1:{self.sock.getsockname()[1]}/archsvc"
        self.held: list[socket.socket] = []
        self.thread = threading.Thread(target=self._accept, daemon=True)

    def _accept(self) -> None:
        while True:
            try:
                self.held.append(self.sock.accept()[0])
            except OSError:  # closed: the test is over
                return

    def __enter__(self) -> "SilentDatabase":
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.sock.close()
        for conn in self.held:
            conn.close()


def fetch(
    server: AppServer,
    path: str,
    *,
    data: bytes | None = None,
    headers: dict[str, str] | None = None,
    timeout: float,
) -> tuple[int, dict[str, str], bytes]:
    request = urllib.request.Request(f"{server.url}{path}", data=data, headers=headers or {})
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            return response.status, dict(response.headers), response.read()
    except urllib.error.HTTPError as error:
        return error.code, dict(error.headers), error.read()


def api_key() -> str:
    """A key this server signed: only the database can say whether it is still valid."""
    return api_key_token_encode(
        key_id=uuid.uuid4().hex, org_id=1, issued_at=datetime.now(UTC), expires_at=None
    )


def log_lines(server: AppServer) -> list[dict]:
    return [json.loads(line) for line in server.log_text().splitlines() if line.strip()]


def test_a_database_that_accepts_and_never_answers_is_a_503_within_seconds():
    with SilentDatabase() as silent, AppServer(env={"DATABASE_URL": silent.url}) as server:
        started = time.monotonic()
        status, _, body = fetch(server, "/healthz", timeout=10)
        took = time.monotonic() - started
        assert status == 503, body[:300]
        assert json.loads(body)["database"] == "unavailable"
        # the connection was made, and then no answer came: what libpq's timeout covers
        assert silent.held
        # an API request tries twice (a kept connection may only have died): still seconds
        started = time.monotonic()
        status, headers, body = fetch(
            server, "/v1/projects", headers={"Authorization": f"Bearer {api_key()}"}, timeout=20
        )
        api_took = time.monotonic() - started
        assert status == 503 and json.loads(body)["code"] == "internal_error", body[:300]
        assert headers["Retry-After"] == "1"
        lines = log_lines(server)
    print(f"\n/healthz answered in {took:.1f} s, the API in {api_took:.1f} s")
    assert took < 5  # DB_CONNECT_TIMEOUT (3 s) once
    assert api_took < 10
    assert not any("WORKER TIMEOUT" in line.get("message", "") for line in lines)
    [health] = [line for line in lines if line["logger"] == "archsvc.health"]
    assert health["level"] == "WARNING"
    assert health["message"] == "healthz: database unavailable: connection timeout expired"


def test_pages_answer_a_503_page_while_the_database_refuses_connections():
    closed = f"postgres://postgres@127.0.0.1:{free_port()}/archsvc"
    csrf = "a" * 32  # a CSRF secret of our own, in the cookie and in the form alike
    session = session_token_encode(
        user_id=1, org_id=1, session_id=str(uuid.uuid4()), now=datetime.now(UTC)
    )
    with AppServer(env={"DATABASE_URL": closed}) as server:
        answers = {
            "GET /share/": fetch(server, f"/share/{uuid.uuid4()}/", timeout=10),
            "POST /accounts/login/": fetch(
                server,
                "/accounts/login/",
                data=f"csrfmiddlewaretoken={csrf}&email=ada%40example.com&password=pw".encode(),
                headers={"Cookie": f"csrftoken={csrf}"},
                timeout=10,
            ),
            "POST /admin/login/": fetch(
                server,
                "/admin/login/",
                data=f"csrfmiddlewaretoken={csrf}&username=op%40example.com&password=pw".encode(),
                headers={"Cookie": f"csrftoken={csrf}"},
                timeout=10,
            ),
            "GET /projects/": fetch(
                server,
                "/projects/shop-1234567/",
                headers={"Cookie": f"__session={session}"},
                timeout=10,
            ),
        }
        health = fetch(server, "/healthz", timeout=10)
        api = fetch(
            server, "/v1/projects", headers={"Authorization": f"Bearer {api_key()}"}, timeout=10
        )
        lines = log_lines(server)

    for name, (status, headers, body) in answers.items():
        page = body.decode()
        assert status == 503, (name, status, page[:300])
        assert headers["Retry-After"] == "1", name
        assert headers["Content-Type"].startswith("text/html"), name
        assert "briefly unavailable: try again in a moment" in page, name
        assert "/static/css/app.css" in page, name  # the site's look
    assert health[0] == 503 and json.loads(health[2])["database"] == "unavailable"
    assert api[0] == 503 and api[1]["Retry-After"] == "1"

    app = [line for line in lines if line["logger"] != "gunicorn.access"]
    refused = [line for line in app if line["logger"] == "archsvc.request"]
    assert len(refused) == len(answers) + 1, refused  # each page, and the API's
    for line in refused:
        assert line["level"] == "WARNING" and "exception" not in line, line
        assert line["message"].startswith("database unavailable, /"), line
        assert "Connection refused" in line["message"] and "\n" not in line["message"]
    [probe] = [line for line in app if line["logger"] == "archsvc.health"]
    assert probe["level"] == "WARNING" and "Connection refused" in probe["message"]
    # no second line for any of these answers: not Django's "Internal Server Error" with a
    # traceback, nor its "Service Unavailable: /healthz" at ERROR
    assert not [line for line in app if line["logger"] == "django.request"], app
    assert not [line for line in app if line["level"] == "ERROR"], app


def connect_timeout(env: dict[str, str]) -> object:
    """The connect_timeout the settings give psycopg under `env`."""
    inherited = {k: v for k, v in os.environ.items() if k not in ("DB_CONNECT_TIMEOUT",)}
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            "from archsvc import settings; "
            "print(repr(settings.DATABASES['default']['OPTIONS'].get('connect_timeout')))",
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        env={**inherited, **env},
        timeout=60,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return ast.literal_eval(done.stdout.strip())


def test_the_connect_timeout_is_db_connect_timeout_unless_database_url_names_one():
    url = "postgres://postgres@db.example:5432/archsvc"
    assert connect_timeout({"DATABASE_URL": url}) == 3
    assert connect_timeout({"DATABASE_URL": url, "DB_CONNECT_TIMEOUT": "10"}) == 10
    named = {"DATABASE_URL": f"{url}?connect_timeout=7", "DB_CONNECT_TIMEOUT": "10"}
    assert connect_timeout(named) == 7
