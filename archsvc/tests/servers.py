"""Real app-server processes for tests that cross process boundaries: gunicorn on a free
port of 127.0.0.1, on the test run's database and cache."""

import os
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

from django.db import connection

ROOT = Path(__file__).resolve().parents[2]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def database_url() -> str:
    """The URL of the database this test run uses (pytest-django's test database)."""
    s = connection.settings_dict
    return (f"postgres://{s['USER']}@{s['HOST'] or '127.0.0.1'}:{s['PORT'] or 5432}/"
            f"{s['NAME']}")


class AppServer:
    """`with AppServer(env={...}) as server: server.get("/v1/limits", token)`."""

    def __init__(self, *, env: dict[str, str] | None = None, workers: int = 1):
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.env = {**os.environ, "DATABASE_URL": database_url(), "DEBUG": "0",
                    "LOG_LEVEL": "WARNING", **(env or {})}
        self.workers = workers
        self.process: subprocess.Popen | None = None

    def __enter__(self) -> "AppServer":
        self.process = subprocess.Popen(
            [sys.executable, "-m", "gunicorn", "archsvc.wsgi", "-b", f"127.0.0.1:{self.port}",
             "-w", str(self.workers), "--timeout", "30"],
            cwd=ROOT, env=self.env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
        )
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(self.process.stderr.read().decode()[-2000:])
            try:
                urllib.request.urlopen(f"{self.url}/accounts/login/", timeout=2)
                return self
            except (urllib.error.URLError, ConnectionError, OSError):
                time.sleep(0.2)
        self.__exit__(None, None, None)
        raise RuntimeError("app server did not start")

    def __exit__(self, *exc) -> None:
        if self.process and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()

    def request(self, method: str, path: str, token: str | None = None,
                body: bytes | None = None) -> tuple[int, dict[str, str], bytes]:
        req = urllib.request.Request(f"{self.url}{path}", method=method, data=body)
        if token:
            req.add_header("Authorization", f"Bearer {token}")
        if body is not None:
            req.add_header("Content-Type", "application/json")
        try:
            with urllib.request.urlopen(req, timeout=30) as response:
                return response.status, dict(response.headers), response.read()
        except urllib.error.HTTPError as error:
            return error.code, dict(error.headers), error.read()
