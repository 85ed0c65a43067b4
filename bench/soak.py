#!/usr/bin/env python
"""Soak: a bounded, mixed load of reads (project list, services, graph, SVG, history) and
writes (service create, update, rename, delete) from several API keys in three
organizations against gunicorn (2 sync workers) on PostgreSQL + Redis, then the checks:
no 5xx, no dropped connection, no unexpected status, the workers' memory flat after the
warm-up, and every project's history consistent (one current snapshot per service,
versions without gaps, each snapshot ending where the next begins, `updatedAt` and the
service count moved with every write) and equal to what the clients were told.

    make soak                                      # SOAK_SECONDS (default 180) of load
    .venv/bin/python bench/soak.py --seconds 30 --no-write

Needs PostgreSQL on 127.0.0.1:5432 (user postgres; the database archsvc_soak is made
afresh and dropped afterwards) and Redis on 127.0.0.1:6379 (keys under a prefix of their
own). The figures go into docs/benchmarks.md unless --no-write. The same load, 20 s of it,
runs in CI: archsvc/tests/test_load.py.
"""

import argparse
import os
import subprocess
import sys
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.consistency import client_problems, history_problems  # noqa: E402
from bench.load import (  # noqa: E402
    KEYS_PER_ORG,
    LOAD_ENV,
    ORGS,
    WORKERS,
    LoadClient,
    projects_create,
    run_load,
)

DATABASE = "archsvc_soak"

# Memory is flat when, after the warm-up, no worker grows by more than its render cache may
# hold (RENDER_LOCAL_CACHE_BYTES: bounded by design, filled as new states are rendered) plus
# RSS_SLACK_KIB, and, in a run long enough to fill that cache, its last third adds at most
# RSS_TAIL_LIMIT_KIB.
RSS_SLACK_KIB = 16 * 1024
RSS_TAIL_LIMIT_KIB = 8 * 1024
# Each worker's render memory: small (production: 32 MiB), so that it is full within the
# warm-up and what grows after it is not a cache filling. RENDER_LOCAL_CACHE_BYTES overrides.
RENDER_CACHE_BYTES = 4 * 2**20


# --- report -----------------------------------------------------------------------------


def mib(kib: int) -> str:
    return f"{kib / 1024:.1f} MiB"


def report(result: dict, checks: dict) -> str:
    """The figures as markdown (printed by the test, written to docs by `make soak`)."""
    pids = sorted(result["rss_end"])
    lines = [
        "| figure | value |",
        "|---|---|",
        f"| duration | {result['seconds']:.0f} s ({result['warmup']:.0f} s warm-up) |",
        f"| clients | {result['clients']} API keys in {result['orgs']} organizations, "
        f"{result['projects']} projects (keys of one organization share its projects) |",
        f"| requests | {result['requests']:,} ({result['reads']:,} reads, "
        f"{result['writes']:,} writes) |",
        f"| throughput | {result['rps']:.0f} req/s |",
        f"| latency, all | p50 {result['p50']:.1f} ms, p99 {result['p99']:.1f} ms, "
        f"max {result['max']:.0f} ms |",
        f"| latency, reads | p50 {result['read_p50']:.1f} ms, p99 {result['read_p99']:.1f} ms |",
        f"| latency, writes | p50 {result['write_p50']:.1f} ms, p99 {result['write_p99']:.1f} ms |",
        f"| 5xx / dropped connections / other unexpected statuses | "
        f"{result['server_errors']} / {result['dropped']} / "
        f"{len(result['failures']) - result['server_errors'] - result['dropped']} |",
    ]
    for n, pid in enumerate(pids, 1):
        lines.append(
            f"| worker {n} RSS: idle / after warm-up / end (max) | "
            f"{mib(result['rss_start'].get(pid, 0))} / {mib(result['rss_warm'].get(pid, 0))} / "
            f"{mib(result['rss_end'][pid])} ({mib(result['rss_max'][pid])}); "
            f"{result['rss_growth'].get(pid, 0) / 1024:+.1f} MiB after warm-up, "
            f"{result['rss_tail_growth'].get(pid, 0) / 1024:+.1f} MiB in the last third |"
        )
    samples = result["rss_samples"]
    step = max(1, len(samples) // 6)
    timeline = [(0.0, result["rss_start"])] + samples[step - 1 :: step]
    lines.append(
        "| RSS over the run, worker 1 / worker 2 | "
        + ", ".join(
            f"{t:.0f} s: " + " / ".join(f"{rss.get(pid, 0) / 1024:.0f}" for pid in pids)
            for t, rss in timeline
        )
        + " MiB |"
    )
    lines += [
        f"| afterwards in the database | {checks['projects']} projects, "
        f"{checks['services']:,} services, {checks['snapshots']:,} snapshots; "
        f"{len(checks['problems'])} history problems; {checks['writes']:,} writes checked "
        f"against what the clients were told: {len(checks['client_problems'])} problems |",
    ]
    return "\n".join(lines)


def check(cursor, result: dict) -> dict:
    """The database after the load: history_problems and client_problems."""
    problems, counts = history_problems(cursor)
    mismatches, writes = client_problems(cursor, result["workers"])
    return {**counts, **writes, "problems": problems, "client_problems": mismatches}


def verdict(result: dict, checks: dict, *, render_cache_bytes: int, tail: bool = True) -> list[str]:
    """Why the run failed, or nothing: the acceptance of the soak and of its CI form (too
    short to judge its last third: `tail=False`)."""
    reasons = []
    if result["server_errors"] or result["dropped"] or result["failures"]:
        reasons.append(
            f"{len(result['failures'])} unexpected responses, first: {result['failures'][:3]}"
        )
    limit = render_cache_bytes // 1024 + RSS_SLACK_KIB
    grown = {pid: kib for pid, kib in result["rss_growth"].items() if kib > limit}
    if grown:
        reasons.append(f"workers grew after the warm-up by more than {limit} KiB: {grown}")
    still = {pid: kib for pid, kib in result["rss_tail_growth"].items() if kib > RSS_TAIL_LIMIT_KIB}
    if tail and still:
        reasons.append(f"workers still growing in the last third (KiB): {still}")
    if len(result["rss_end"]) != WORKERS or result["workers_replaced"]:
        reasons.append(
            f"{len(result['rss_end'])} workers at the end, "
            f"{result['workers_replaced']} replaced during the run"
        )
    if checks["problems"] or checks["client_problems"]:
        reasons.append(f"inconsistent: {(checks['problems'] + checks['client_problems'])[:5]}")
    return reasons


def flat_from(result: dict, within_kib: int = 2048) -> float | None:
    """The first sample time from which every worker stays within `within_kib` of its final
    RSS, or None when none does before the end."""
    end = result["rss_end"]
    for t, _ in result["rss_samples"]:
        later = [r for u, r in result["rss_samples"] if u >= t]
        if all(abs(r.get(pid, 0) - kib) <= within_kib for r in later for pid, kib in end.items()):
            return t
    return None


def doc_section(
    seconds: int, result: dict, table: str, load: float, reasons: list[str], render_cache_bytes: int
) -> str:
    outcome = "**failed**: " + "; ".join(reasons) if reasons else "passed"
    flat = flat_from(result)
    memory = (
        f"Each worker's RSS stayed within 2 MiB of its final value from {flat:.0f} s to the end."
        if flat is not None and flat < seconds * 0.9
        else "Each worker's RSS was still moving at the end of the run."
    )
    about = " ".join(
        [
            f"gunicorn with {WORKERS} sync workers on PostgreSQL 15 (`DB_CONN_MAX_AGE` 60) and",
            "Redis (renders cached there and in each worker's memory, `RENDER_LOCAL_CACHE_BYTES`",
            f"{render_cache_bytes / 2**20:.0f} MiB: production's 32 MiB would take minutes of",
            "this load to fill, and a cache filling looks like a leak), rate limits off, and",
            "worker recycling off (`GUNICORN_MAX_REQUESTS=0`, as in production since this run",
            "showed memory flat) so that a leak would show. Loaded from a second process on",
            "127.0.0.1 by",
            f"{result['clients']}",
            "threads, one per API key (two keys in each of three organizations), each sending its",
            "next request as soon as the last is answered: about two thirds reads (project list,",
            "services, graph, SVG, history) and one third service writes (create, update, rename,",
            "delete) on the two projects its organization shares with its other key. Each",
            "worker's RSS is read from /proc once a second. Passing means: no 5xx, no dropped",
            "connection, no unexpected status; after the warm-up no worker grows by more than its",
            f"render cache may hold plus {RSS_SLACK_KIB // 1024} MiB, nor by more than",
            f"{RSS_TAIL_LIMIT_KIB // 1024} MiB in the last third; afterwards every project's",
            "history is consistent in the database (one current snapshot per service, versions",
            "without gaps, each snapshot ending where the next begins, service count and",
            "`updatedAt` moved with every write) and equal to what the clients were told.",
            f"{memory} 1-minute load average before the run: {load:.2f}. `make soak`",
            "(`bench/soak.py`; `RENDER_LOCAL_CACHE_BYTES=33554432 make soak` runs with",
            "production's render memory); CI runs 20 s of the same load with a 2 MiB render",
            f"cache (`archsvc/tests/test_load.py`). Result: {outcome}.",
        ]
    )
    return f"""## Soak: {seconds} s of mixed reads and writes (gunicorn + PostgreSQL + Redis)

{about}

{table}
"""


# --- make soak --------------------------------------------------------------------------


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--seconds", type=int, default=int(os.environ.get("SOAK_SECONDS", 180)))
    parser.add_argument("--warmup", type=int, default=30)
    parser.add_argument("--no-write", action="store_true", help="do not update the docs")
    args = parser.parse_args()
    render_cache_bytes = int(os.environ.get("RENDER_LOCAL_CACHE_BYTES") or RENDER_CACHE_BYTES)
    database_url = f"postgres://postgres@127.0.0.1:5432/{DATABASE}"
    redis_url = os.environ.get("REDIS_URL") or "redis://127.0.0.1:6379/0"

    import psycopg

    admin = "postgresql://postgres@127.0.0.1:5432/postgres"
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f"DROP DATABASE IF EXISTS {DATABASE} WITH (FORCE)")
        conn.execute(f"CREATE DATABASE {DATABASE}")
    subprocess.run(
        [sys.executable, "manage.py", "migrate", "-v", "0"],
        cwd=ROOT,
        check=True,
        env={**os.environ, "DATABASE_URL": database_url},
    )
    os.environ.update({"DATABASE_URL": database_url, "DJANGO_SETTINGS_MODULE": "archsvc.settings"})
    os.environ.pop("REDIS_URL", None)  # this process only seeds and checks

    import django

    django.setup()
    from django.db import connection

    from accounts.models import ApiKey
    from accounts.services import api_key_create, member_create
    from archsvc.tests.servers import AppServer

    clients = []
    for o in range(1, ORGS + 1):
        org = member_create(
            email=f"soak{o}@example.com", org_slug=f"soak-{o}", role="admin"
        ).organization
        for k in range(1, KEYS_PER_ORG + 1):
            _, token = api_key_create(
                organization=org, name=f"soak-{k}", permissions=[ApiKey.PERMISSION_PROJECTS_MANAGE]
            )
            clients.append(LoadClient(f"o{o}k{k}", org.slug, token))
    connection.close()
    load = os.getloadavg()[0]
    env = {
        "DATABASE_URL": database_url,
        "REDIS_URL": redis_url,
        **LOAD_ENV,
        "CACHE_KEY_PREFIX": f"soak-{uuid.uuid4().hex[:8]}",
        "RENDER_LOCAL_CACHE_BYTES": str(render_cache_bytes),
    }
    try:
        with AppServer(env=env, workers=WORKERS) as server:
            projects_create(server.url, clients)
            result = run_load(
                server.url,
                clients,
                seconds=args.seconds,
                warmup=args.warmup,
                master_pid=server.process.pid,
            )
        with connection.cursor() as cursor:
            checks = check(cursor, result)
    finally:
        connection.close()
        with psycopg.connect(admin, autocommit=True) as conn:
            conn.execute(f"DROP DATABASE IF EXISTS {DATABASE} WITH (FORCE)")
    table = report(result, checks)
    print(table)
    reasons = verdict(result, checks, render_cache_bytes=render_cache_bytes)
    for reason in reasons:
        print(f"FAILED: {reason}", file=sys.stderr)
    if not args.no_write:
        from bench.report import write_section

        write_section(
            "soak", doc_section(args.seconds, result, table, load, reasons, render_cache_bytes)
        )
    return 1 if reasons else 0


if __name__ == "__main__":
    sys.exit(main())
