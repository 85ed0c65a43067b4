#!/usr/bin/env python
"""The API under load: gunicorn (2 sync workers, the production gunicorn.conf.py) on
PostgreSQL + Redis, loaded by wrk from a second process on 127.0.0.1, for the main read
endpoints of a 200-service project (domains-200), the warm SVG and a service update, each
against the stack's ceiling: a bare DRF view that touches nothing (bench/ceiling_urls.py),
served by the same gunicorn in the same run. Prints the table and writes it into
docs/benchmarks.md.

Throughput on a shared machine drifts, so each endpoint is measured in rounds bracketed by the
ceiling: each run is compared with the mean of the ceiling runs around it, the median of those
shares being its figure. wrk runs alone on the last CPU, the server and services on the others
(taskset, put back after), so receiving big bodies is not charged to the server's CPU.

Long because it builds and tears down the whole stack itself (database, Redis pinning, gunicorn,
wrk) so that a run is reproducible from one command.

    .venv/bin/python bench/api.py                       # 5 rounds of 4 s per endpoint
    .venv/bin/python bench/api.py --shared-cpus         # every process on every CPU
    .venv/bin/python bench/api.py --quick --no-write    # 2 rounds of 2 s, docs untouched

Needs PostgreSQL on 127.0.0.1:5432 (user postgres; database archsvc_apibench is dropped and
made again), Redis on 127.0.0.1:6379 and wrk.
"""

import argparse
import os
import re
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
import uuid
from pathlib import Path
from statistics import median

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.seeds import architecture as load_architecture  # noqa: E402

DATABASE = "archsvc_apibench"
DATABASE_URL = f"postgres://postgres@127.0.0.1:5432/{DATABASE}"
REDIS_URL = "redis://127.0.0.1:6379/0"
WORKERS = 2
THREADS, CONNECTIONS = 2, 16
ARCHITECTURE = "domains-200"
SMALL_PROJECTS = 5

# Targets (the issue): reads >= 50% of the ceiling's req/s, warm SVG >= 40%, read p99 < 100 ms.
READ_SHARE, SVG_SHARE, P99_MS = 0.50, 0.40, 100.0

GZIP = ("Accept-Encoding: gzip",)

# `taskset -c <cpus>` before wrk's and gunicorn's commands: the load generator on a core of
# its own, the server (gunicorn, PostgreSQL and Redis) on the others, so that what wrk
# spends reading a 335 KB body is not taken from the server it measures (docs/benchmarks.md)
WRK_PREFIX: list[str] = []
SERVER_PREFIX: list[str] = []
# the processes of the PostgreSQL and Redis the bench uses, by their names
SERVICES = ("postgres", "redis-server")


def _pids(name: str) -> list[str]:
    found = subprocess.run(["pgrep", "-x", name], capture_output=True, text=True)
    return found.stdout.split()


def services_pinned(cpus: str) -> dict[str, str]:
    """PostgreSQL's and Redis's processes (every thread; backends forked later inherit the
    postmaster's) on `cpus`; their CPU lists before, to put back (`services_restored`)."""
    before = {}
    for name in SERVICES:
        for pid in _pids(name):
            shown = subprocess.run(
                ["taskset", "-c", "-p", pid], capture_output=True, text=True
            ).stdout
            if ":" in shown:
                before[name] = shown.rsplit(":", 1)[1].strip()
            subprocess.run(["taskset", "-a", "-c", "-p", cpus, pid], capture_output=True)
    return before


def services_restored(before: dict[str, str]) -> None:
    for name, cpus in before.items():
        for pid in _pids(name):  # the backends forked meanwhile too
            subprocess.run(["taskset", "-a", "-c", "-p", cpus, pid], capture_output=True)


def cpu_split(shared: bool) -> tuple[str, str] | None:
    """(server CPUs, wrk's CPU): wrk on the last CPU alone, the rest for the server; None
    when the bench shares every CPU (--shared-cpus, one CPU, or no taskset)."""
    count = os.cpu_count() or 1
    if shared or count < 2 or subprocess.run(["which", "taskset"], capture_output=True).returncode:
        return None
    last = count - 1
    return (f"0-{last - 1}" if last > 1 else "0"), str(last)


PUT_SCRIPT = """wrk.method = "PUT"
wrk.body = '{"description": "bench"}'
wrk.headers["Content-Type"] = "application/json"
"""


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def database_create(database: str = DATABASE) -> str:
    """A new, migrated database of that name (dropped first when it exists); its URL."""
    import psycopg

    with psycopg.connect("postgresql://postgres@127.0.0.1:5432/postgres", autocommit=True) as conn:
        conn.execute(f"DROP DATABASE IF EXISTS {database} WITH (FORCE)")
        conn.execute(f"CREATE DATABASE {database}")
    url = f"postgres://postgres@127.0.0.1:5432/{database}"
    subprocess.run(
        [sys.executable, "manage.py", "migrate", "-v", "0"],
        cwd=ROOT,
        check=True,
        env={**os.environ, "DATABASE_URL": url},
    )
    return url


def seed(
    *,
    database_url: str = DATABASE_URL,
    architecture: str = ARCHITECTURE,
    small_projects: int = SMALL_PROJECTS,
) -> tuple[str, str, str]:
    """Org, key (projects:manage), the big project and a few small ones, in this process.
    The API key's token, the big project's id and the slug of the service PUT updates."""
    os.environ["DATABASE_URL"] = database_url
    os.environ["DJANGO_SETTINGS_MODULE"] = "archsvc.settings"
    os.environ["RATE_LIMIT_ENABLED"] = "0"
    os.environ["PLAN_FREE_MAX_PROJECTS"] = str(small_projects + 10)
    os.environ.pop("REDIS_URL", None)

    import django

    django.setup()
    from django.db import connection, transaction

    from accounts.actors import actor_for_api_key
    from accounts.models import ApiKey
    from accounts.services import api_key_create, member_create
    from diagrams.project_writes import project_create
    from diagrams.service_writes import service_create

    membership = member_create(email="bench@example.com", org_slug="bench", role="admin")
    key, token = api_key_create(
        organization=membership.organization,
        name="bench",
        permissions=[ApiKey.PERMISSION_PROJECTS_MANAGE],
    )
    actor = actor_for_api_key(key)
    data = load_architecture(architecture)
    with transaction.atomic():
        big = project_create(
            actor=actor,
            name=f"Bench {architecture}",
            description=f"{len(data['services'])} services",
        )
    slug = None
    for service in data["services"]:
        snapshot = service_create(actor=actor, project_id=big.id, data=service)
        slug = slug or snapshot.slug
    for index in range(small_projects):
        with transaction.atomic():
            small = project_create(actor=actor, name=f"Small {index}", description="small")
        for service in data["services"][:3]:
            service_create(actor=actor, project_id=small.id, data=service)
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE")
    connection.close()
    return token, big.id, slug


class Server:
    """gunicorn on a free port with bench/ceiling_settings.py (the app plus /bench/ceiling)."""

    def __init__(
        self,
        *,
        workers: int = WORKERS,
        database_url: str = DATABASE_URL,
        env: dict[str, str] | None = None,
    ) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.log = tempfile.NamedTemporaryFile(
            prefix="apibench-gunicorn-", suffix=".log", delete=False
        )
        env = {
            **os.environ,
            "DJANGO_SETTINGS_MODULE": "bench.ceiling_settings",
            "DATABASE_URL": database_url,
            "REDIS_URL": REDIS_URL,
            "CACHE_KEY_PREFIX": f"apibench-{uuid.uuid4().hex[:8]}",
            "RATE_LIMIT_ENABLED": "0",
            "DEBUG": "0",
            "DB_CONN_MAX_AGE": "600",
            "LOG_LEVEL": "WARNING",
            **(env or {}),
        }
        self.process = subprocess.Popen(
            [
                *SERVER_PREFIX,
                sys.executable,
                "-m",
                "gunicorn",
                "archsvc.wsgi",
                "-c",
                "gunicorn.conf.py",
                "-b",
                f"127.0.0.1:{self.port}",
                "-w",
                str(workers),
                "--timeout",
                "120",
            ],
            cwd=ROOT,
            env=env,
            stdout=self.log,
            stderr=subprocess.STDOUT,
        )

    def wait(self) -> None:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(Path(self.log.name).read_text()[-2000:])
            try:
                urllib.request.urlopen(f"{self.url}/bench/ceiling", timeout=2)
                return
            except (urllib.error.URLError, ConnectionError, OSError):
                time.sleep(0.2)
        raise RuntimeError("gunicorn did not answer in 30 s")

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.log.close()


def request(method: str, url: str, token: str | None, body: bytes | None = None) -> int:
    req = urllib.request.Request(url, method=method, data=body)
    if token:
        req.add_header("Authorization", f"Bearer {token}")
    if body is not None:
        req.add_header("Content-Type", "application/json")
    try:
        with urllib.request.urlopen(req, timeout=120) as response:
            response.read()
            return response.status
    except urllib.error.HTTPError as error:
        return error.code


def etag(url: str, token: str) -> str:
    req = urllib.request.Request(url)
    req.add_header("Authorization", f"Bearer {token}")
    with urllib.request.urlopen(req, timeout=120) as response:
        response.read()
        return response.headers["ETag"]


UNITS = {"us": 0.001, "ms": 1.0, "s": 1000.0, "m": 60000.0}


def to_ms(value: str) -> float:
    number, unit = re.fullmatch(r"([\d.]+)(us|ms|s|m)", value).groups()
    return float(number) * UNITS[unit]


def parse_wrk(output: str) -> dict:
    latency = {
        int(p): to_ms(v)
        for p, v in re.findall(r"^\s+(50|75|90|99)%\s+(\S+)\s*$", output, re.MULTILINE)
    }
    non2xx = re.search(r"Non-2xx or 3xx responses:\s+(\d+)", output)
    errors = re.search(
        r"Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)", output
    )
    total = re.search(r"(\d+) requests in", output)
    return {
        "rps": float(re.search(r"Requests/sec:\s+([\d.]+)", output).group(1)),
        "p50": latency[50],
        "p99": latency[99],
        "requests": int(total.group(1)),
        "non2xx": int(non2xx.group(1)) if non2xx else 0,
        "errors": sum(map(int, errors.groups())) if errors else 0,
    }


def wrk(
    url: str,
    token: str | None,
    duration: int,
    script: str | None = None,
    headers: tuple[str, ...] = (),
) -> dict:
    command = [*WRK_PREFIX, "wrk", f"-t{THREADS}", f"-c{CONNECTIONS}", f"-d{duration}s"]
    command += ["--latency"]
    if token:
        command += ["-H", f"Authorization: Bearer {token}"]
    for header in headers:
        command += ["-H", header]
    if script:
        command += ["-s", script]
    result = subprocess.run(command + [url], capture_output=True, text=True, check=True)
    try:
        return parse_wrk(result.stdout)
    except (AttributeError, KeyError) as exc:
        raise RuntimeError(f"cannot read wrk's output:\n{result.stdout}") from exc


def _share(share: float, target: float) -> str:
    """A share in whole percent; with a decimal where whole percent would put it on its
    target's line (49.6% read as "50%" beside a "no")."""
    if round(share * 100) == round(target * 100) and share != target:
        return f"{share:.1%}"
    return f"{share:.0%}"


def measure(
    url: str,
    token: str | None,
    ceiling_url: str,
    rounds: int,
    duration: int,
    script: str | None = None,
    headers: tuple[str, ...] = (),
) -> dict:
    """`rounds` runs of `url`, each between two runs of the ceiling: the endpoint's runs,
    the ceiling's, and the endpoint's share of the ceiling in each round."""
    ceilings = [wrk(ceiling_url, None, duration)]
    runs, shares = [], []
    for _ in range(rounds):
        runs.append(wrk(url, token, duration, script, headers=headers))
        ceilings.append(wrk(ceiling_url, None, duration))
        shares.append(runs[-1]["rps"] / ((ceilings[-2]["rps"] + ceilings[-1]["rps"]) / 2))
    return {
        "rps": median([r["rps"] for r in runs]),
        "ceiling": median([c["rps"] for c in ceilings]),
        "share": median(shares),
        "shares": shares,
        "p50": median([r["p50"] for r in runs]),
        "p99": max(r["p99"] for r in runs),
        "errors": sum(r["non2xx"] + r["errors"] for r in runs),
        "ceiling_p99": max(c["p99"] for c in ceilings),
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--duration", type=int, default=4, help="seconds per run")
    parser.add_argument("--rounds", type=int, default=5, help="runs per endpoint")
    parser.add_argument("--quick", action="store_true", help="2 rounds of 2 s")
    parser.add_argument("--no-write", action="store_true", help="do not update the docs")
    parser.add_argument(
        "--shared-cpus",
        action="store_true",
        help="wrk, gunicorn, PostgreSQL and Redis share every CPU (as runs before 2026-11-30)",
    )
    args = parser.parse_args()
    split = cpu_split(args.shared_cpus)
    if split:
        SERVER_PREFIX[:] = ["taskset", "-c", split[0]]
        WRK_PREFIX[:] = ["taskset", "-c", split[1]]
    duration, rounds = (2, 2) if args.quick else (args.duration, args.rounds)

    started = time.perf_counter()
    database_create()
    token, project_id, slug = seed()
    seeded = time.perf_counter() - started

    load = os.getloadavg()[0]
    if load > 0.5:
        print(
            f"warning: load average {load:.2f} before the run; other processes compete with "
            "gunicorn and wrk for the CPUs, figures will be low and noisy",
            file=sys.stderr,
        )
    pinned = services_pinned(split[0]) if split else {}
    server = Server()
    script = tempfile.NamedTemporaryFile("w", suffix=".lua", delete=False)
    script.write(PUT_SCRIPT)
    script.close()
    ceiling_url = f"{server.url}/bench/ceiling"
    try:
        server.wait()
        base = f"{server.url}/v1/projects/{project_id}"
        # (label, kind, method, url, headers): kind decides the target. The big cached
        # bodies are measured twice: as wrk asks by default (no Accept-Encoding) and as
        # browsers, curl --compressed and Python's requests ask (gzip).
        endpoints = [
            ("GET /v1/projects", "read", "GET", f"{server.url}/v1/projects", ()),
            ("GET /v1/projects/{id}", "read", "GET", base, ()),
            ("GET .../services", "read", "GET", f"{base}/services", ()),
            ("GET .../services (gzip)", "read", "GET", f"{base}/services", GZIP),
            ("GET .../graph", "read", "GET", f"{base}/graph", ()),
            ("GET .../graph (gzip)", "read", "GET", f"{base}/graph", GZIP),
            # A client polling with the tag of what it holds: 304, no body.
            (
                "GET .../graph (If-None-Match: 304)",
                "read",
                "GET",
                f"{base}/graph",
                (f"If-None-Match: {etag(f'{base}/graph', token)}",),
            ),
            ("GET .../graph/svg (warm)", "svg", "GET", f"{base}/graph/svg", ()),
            ("GET .../graph/svg (warm, gzip)", "svg", "GET", f"{base}/graph/svg", GZIP),
            ("PUT .../services/{slug}", "write", "PUT", f"{base}/services/{slug}", ()),
        ]
        results = {}
        warm = 2  # a short wrk burst warms both workers
        wrk(ceiling_url, None, warm)
        render_first = None
        for label, kind, method, url, headers in endpoints:
            body = b'{"description": "bench"}' if method == "PUT" else None
            begin = time.perf_counter()
            status = request(method, url, token, body)
            if kind == "svg" and render_first is None:
                render_first = time.perf_counter() - begin
            if status != 200:
                raise RuntimeError(f"{method} {url}: {status}")
            if method == "GET":
                wrk(url, token, warm, headers=headers)
            else:
                for _ in range(10):
                    request(method, url, token, body)
            results[label] = measure(
                url,
                token,
                ceiling_url,
                rounds,
                duration,
                script.name if method == "PUT" else None,
                headers=headers,
            )
            share = _share(results[label]["share"], SVG_SHARE if kind == "svg" else READ_SHARE)
            print(f"{label}: {share} of the ceiling", file=sys.stderr)
    finally:
        server.stop()
        os.unlink(script.name)
        services_restored(pinned)

    kinds = {label: kind for label, kind, *_ in endpoints}
    rows = []
    for label, r in results.items():
        kind = kinds[label]
        if kind == "read":
            mark = "yes" if r["share"] >= READ_SHARE and r["p99"] < P99_MS else "**no**"
        elif kind == "svg":
            mark = "yes" if r["share"] >= SVG_SHARE else "**no**"
        else:
            mark = "-"
        spread = ", ".join(f"{share:.0%}" for share in r["shares"])
        target = SVG_SHARE if kind == "svg" else READ_SHARE
        rows.append(
            f"| {label} | {r['rps']:,.0f} | {r['ceiling']:,.0f} | **{_share(r['share'], target)}** "
            f"({spread}) | {r['p50']:.1f} ms | {r['p99']:.1f} ms | {r['errors']} | "
            f"{mark} |"
        )
    ceiling_p99 = max(r["ceiling_p99"] for r in results.values())
    all_ceilings = [r["ceiling"] for r in results.values()]
    table = "\n".join(
        [
            "| endpoint | req/s | ceiling req/s (same rounds) | share of the ceiling "
            "(each round) | p50 | p99 (worst round) | non-2xx + socket errors | "
            "meets target |",
            "|---|---|---|---|---|---|---|---|",
            *rows,
        ]
    )
    text = "\n".join(
        [
            "## API under load (gunicorn + PostgreSQL + Redis, wrk)",
            "",
            f"gunicorn with {WORKERS} sync workers and the production `gunicorn.conf.py` (JSON "
            "access log on, no worker recycling), PostgreSQL (CONN_MAX_AGE=600) and Redis "
            f"(cache), rate limits off; loaded by `wrk -t{THREADS} -c{CONNECTIONS}` from a second "
            f"process on 127.0.0.1"
            + (
                f", wrk alone on CPU {split[1]} and the server (gunicorn, PostgreSQL and Redis) on "
                f"CPU {split[0]} (`taskset`: so that what wrk spends reading a big body is not "
                "taken from the server it measures; the ceiling runs under the same split)"
                if split
                else ", every process sharing every CPU (`--shared-cpus`)"
            )
            + f". The project is `{ARCHITECTURE}` "
            f"({ARCHITECTURE.rsplit('-', 1)[1]} services; {SMALL_PROJECTS} small projects besides "
            f"it; seeded in {seeded:.1f} s). The ceiling is a bare DRF view that touches nothing "
            "(no auth, permission, throttle, database or cache), served by the same gunicorn in "
            "the same run. Throughput on this shared machine drifts by up to a quarter from one "
            f"minute to the next, so each endpoint runs {rounds} times for {duration} s, each run "
            "between two runs of the ceiling (after a 2 s warm-up); its share is the median of "
            "its runs' shares of the mean of the two ceiling runs around them (each round's share "
            "in brackets), req/s and p50 are medians, p99 is the worst run's. PUT updates one "
            "service's description on every request (a new snapshot each time). The first "
            f"(cold) SVG render took {render_first:.2f} s. Ceiling: {min(all_ceilings):,.0f} to "
            f"{max(all_ceilings):,.0f} req/s over the run, p99 at most {ceiling_p99:.1f} ms. "
            f"1-minute load average before the run: {load:.2f}. `bench/api.py`.",
            "",
            table,
            "",
            f"Targets: reads >= {READ_SHARE:.0%} of the ceiling's req/s with p99 < {P99_MS:.0f} ms "
            f"at {CONNECTIONS} connections; the warm SVG >= {SVG_SHARE:.0%} of the ceiling. "
            "(../shared/bench/README.md measured this stack's ceiling at about 1,540 req/s for a "
            "DRF view without a database, 2,115 for a plain Django JsonResponse.)",
        ]
    )
    print(text)
    if not args.no_write:
        from bench.report import write_section

        write_section("api", text)


if __name__ == "__main__":
    main()
