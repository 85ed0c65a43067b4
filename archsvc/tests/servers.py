"""Real processes for tests that cross process boundaries: gunicorn on a free port of
127.0.0.1, on the test run's database and cache; and, for the fault tests, a PostgreSQL
cluster and a Redis server of the test's own that it may stop, crash and restart (the
machine's shared PostgreSQL and Redis are never touched)."""

import os
import pwd
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
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
    return f"postgres://{s['USER']}@{s['HOST'] or '127.0.0.1'}:{s['PORT'] or 5432}/{s['NAME']}"


def manage(*args: str, env: dict[str, str] | None = None) -> str:
    """`manage.py <args>` in a child process (e.g. on a private database); its stdout."""
    done = subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        env={**os.environ, **(env or {})},
        timeout=120,
    )
    if done.returncode:
        raise RuntimeError(f"manage.py {' '.join(args)}: {done.stderr[-2000:]}")
    return done.stdout


class AppServer:
    """`with AppServer(env={...}) as server: server.get("/v1/limits", token)`."""

    def __init__(self, *, env: dict[str, str] | None = None, workers: int = 1):
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.env = {
            **os.environ,
            "DATABASE_URL": database_url(),
            "DEBUG": "0",
            "LOG_LEVEL": "WARNING",
            **(env or {}),
        }
        self.workers = workers
        self.process: subprocess.Popen | None = None
        # A file, not a pipe: a pipe nobody reads fills up under a flood of error logs (a
        # database outage) and would block the workers that write to it.
        self.log = tempfile.NamedTemporaryFile(prefix="archsvc-gunicorn-", suffix=".log")

    def __enter__(self) -> "AppServer":
        self.process = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "gunicorn",
                "archsvc.wsgi",
                "-b",
                f"127.0.0.1:{self.port}",
                "-w",
                str(self.workers),
                "--timeout",
                "30",
            ],
            cwd=ROOT,
            env=self.env,
            stdout=self.log,  # access lines
            stderr=self.log,
        )
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(self.log_text()[-2000:])
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
        self.log.close()

    def log_text(self) -> str:
        """What gunicorn and the app wrote so far (stdout and stderr)."""
        return Path(self.log.name).read_text(errors="replace")

    def worker_pids(self) -> list[int]:
        """The gunicorn workers now serving (children of the master process)."""
        return child_pids(self.process.pid)

    def request(
        self,
        method: str,
        path: str,
        token: str | None = None,
        body: bytes | None = None,
        headers: dict[str, str] | None = None,
    ) -> tuple[int, dict[str, str], bytes]:
        req = urllib.request.Request(f"{self.url}{path}", method=method, data=body)
        for name, value in (headers or {}).items():
            req.add_header(name, value)
        if token:
            req.add_header("Authorization", f"Bearer {token}")
        if body is not None:
            req.add_header("Content-Type", "application/json")
        try:
            with urllib.request.urlopen(req, timeout=30) as response:
                return response.status, dict(response.headers), response.read()
        except urllib.error.HTTPError as error:
            return error.code, dict(error.headers), error.read()


def child_pids(pid: int) -> list[int]:
    try:
        return sorted(int(p) for p in Path(f"/proc/{pid}/task/{pid}/children").read_text().split())
    except OSError:
        return []


def rss_kib(pid: int) -> int | None:
    """Resident memory of a process (VmRSS, KiB), None once it is gone."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    except OSError:
        return None
    return None


def _wait_port(port: int, *, open_: bool, seconds: float = 30) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
            is_open = True
        except OSError:
            is_open = False
        if is_open == open_:
            return
        time.sleep(0.05)
    raise RuntimeError(f"port {port} did not {'open' if open_ else 'close'} in {seconds} s")


def _postgres_bin() -> Path | None:
    """PostgreSQL's server binaries: PG_BIN when set, else Debian's newest."""
    if os.environ.get("PG_BIN"):
        candidates = [Path(os.environ["PG_BIN"])]
    else:
        candidates = sorted(Path("/usr/lib/postgresql").glob("*/bin"), reverse=True)
    return next(
        (c for c in candidates if (c / "initdb").exists() and (c / "pg_ctl").exists()), None
    )


def private_postgres_missing() -> str | None:
    """Why a private PostgreSQL cluster cannot be started here, or None when it can."""
    if _postgres_bin() is None:
        return (
            "no PostgreSQL server binaries (initdb and pg_ctl in PG_BIN or "
            "/usr/lib/postgresql/*/bin)"
        )
    if os.geteuid() == 0:  # PostgreSQL refuses to run as root: run it as `postgres`
        try:
            pwd.getpwnam("postgres")
        except KeyError:
            return "running as root and there is no `postgres` user to run PostgreSQL as"
        if shutil.which("runuser") is None:
            return "running as root and `runuser` is missing"
    return None


class PrivatePostgres:
    """A PostgreSQL cluster of the test's own: initdb in a temporary directory, serving on a
    free port of 127.0.0.1 (trust authentication), that the test may stop, crash and start
    again while an app server uses it. fsync is off: only the process dies, never the
    machine, so what PostgreSQL wrote is still in the OS's page cache."""

    def __init__(self, *, database: str = "archsvc"):
        self.bin = _postgres_bin()
        self.port = free_port()
        self.database = database
        self.url = f"postgres://postgres@127.0.0.1:{self.port}/{database}"
        self.dir = Path(tempfile.mkdtemp(prefix="archsvc-pg-"))
        self.data = self.dir / "data"

    def _run(self, *command: str) -> None:
        if os.geteuid() == 0:
            command = ("runuser", "-u", "postgres", "--", *command)
        done = subprocess.run(
            command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, timeout=60
        )
        if done.returncode:
            log = self.dir / "log"
            raise RuntimeError(
                f"{' '.join(command)}: {done.stderr[-1000:]}"
                f"{log.read_text()[-1000:] if log.exists() else ''}"
            )

    def __enter__(self) -> "PrivatePostgres":
        if os.geteuid() == 0:
            shutil.chown(self.dir, "postgres", "postgres")
        try:
            self._run(
                str(self.bin / "initdb"),
                "-D",
                str(self.data),
                "-A",
                "trust",
                "-U",
                "postgres",
                "-E",
                "UTF8",
                "--no-sync",
            )
            self.start()
            import psycopg

            with psycopg.connect(
                f"postgresql://postgres@127.0.0.1:{self.port}/postgres", autocommit=True
            ) as conn:
                conn.execute(f'CREATE DATABASE "{self.database}"')
        except BaseException:
            self.__exit__(None, None, None)
            raise
        return self

    def __exit__(self, *exc) -> None:
        if (self.data / "postmaster.pid").exists():
            try:
                self.stop(mode="immediate")
            except RuntimeError:
                pass
        shutil.rmtree(self.dir, ignore_errors=True)

    def start(self) -> None:
        options = (
            f"-p {self.port} -c listen_addresses=127.0.0.1 "
            f"-c unix_socket_directories={self.dir} -c fsync=off "
            "-c shared_buffers=32MB -c max_connections=40"
        )
        self._run(
            str(self.bin / "pg_ctl"),
            "-D",
            str(self.data),
            "-l",
            str(self.dir / "log"),
            "-w",
            "-t",
            "60",
            "-o",
            options,
            "start",
        )

    def stop(self, *, mode: str = "fast") -> None:
        """`fast`: open sessions are terminated, a clean shutdown. `immediate`: every
        process quits at once, as in a crash; the next start runs crash recovery."""
        self._run(
            str(self.bin / "pg_ctl"), "-D", str(self.data), "-m", mode, "-w", "-t", "60", "stop"
        )


def private_redis_missing() -> str | None:
    if shutil.which("redis-server") is None:
        return "redis-server is not installed"
    return None


class PrivateRedis:
    """A redis-server of the test's own on a free port of 127.0.0.1. `stop()` shuts it down
    (saving its data, as an orderly restart does), `start()` brings it back with that data;
    `pause()`/`resume()` freeze it (SIGSTOP), as a hung server or a partition looks."""

    def __init__(self):
        self.port = free_port()
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self.dir = Path(tempfile.mkdtemp(prefix="archsvc-redis-"))
        self.process: subprocess.Popen | None = None

    def __enter__(self) -> "PrivateRedis":
        self.start()
        return self

    def __exit__(self, *exc) -> None:
        if self.process and self.process.poll() is None:
            self.resume()
            self.process.kill()
            self.process.wait(timeout=10)
        shutil.rmtree(self.dir, ignore_errors=True)

    def client(self):
        import redis

        return redis.Redis(host="127.0.0.1", port=self.port, socket_timeout=5)

    def start(self) -> None:
        self.process = subprocess.Popen(
            [
                "redis-server",
                "--port",
                str(self.port),
                "--bind",
                "127.0.0.1",
                "--dir",
                str(self.dir),
                "--dbfilename",
                "dump.rdb",
                "--save",
                "",
                "--appendonly",
                "no",
                "--logfile",
                str(self.dir / "log"),
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        _wait_port(self.port, open_=True)

    def stop(self, *, save: bool = True) -> None:
        import redis

        try:
            self.client().shutdown(save=save, nosave=not save)
        except redis.ConnectionError:
            pass  # the server closes the connection as it goes
        self.process.wait(timeout=30)
        _wait_port(self.port, open_=False)

    def pause(self) -> None:
        os.kill(self.process.pid, signal.SIGSTOP)

    def resume(self) -> None:
        os.kill(self.process.pid, signal.SIGCONT)
