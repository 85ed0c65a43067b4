#!/usr/bin/env python
"""Time travel stays fast as history grows: a project of S services with N snapshots each;
`GET .../services` now vs. at a point in the middle of history, through the whole stack
(auth, selectors, serialization) in-process. Prints the figures and writes them into
docs/benchmarks.md.

    .venv/bin/python bench/time_travel.py                      # SQLite (a temporary file)
    .venv/bin/python bench/time_travel.py --postgres           # database archsvc_bench
"""

import argparse
import os
import statistics
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--services", type=int, default=200)
    parser.add_argument("--snapshots", type=int, default=500)
    parser.add_argument("--repeat", type=int, default=30)
    parser.add_argument("--postgres", action="store_true")
    parser.add_argument("--no-write", action="store_true", help="do not update the docs")
    args = parser.parse_args()

    if args.postgres:
        import psycopg

        with psycopg.connect(
            "postgresql://postgres@127.0.0.1:5432/postgres", autocommit=True
        ) as conn:
            conn.execute("DROP DATABASE IF EXISTS archsvc_bench")
            conn.execute("CREATE DATABASE archsvc_bench")
        os.environ["DATABASE_URL"] = "postgres://postgres@127.0.0.1:5432/archsvc_bench"
        engine = "PostgreSQL 15"
    else:
        path = Path(tempfile.mkdtemp()) / "bench.sqlite3"
        os.environ["DATABASE_URL"] = f"sqlite:///{path}"
        engine = "SQLite"
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "archsvc.settings")
    os.environ["RATE_LIMIT_ENABLED"] = "0"

    import django

    django.setup()
    from django.core.management import call_command
    from django.db import connection
    from django.test import Client

    call_command("migrate", verbosity=0)

    from accounts.services import api_key_create, member_create
    from diagrams.models import Project, Service, ServiceSnapshot

    membership = member_create(email="bench@example.com", org_slug="bench", role="admin")
    org = membership.organization
    _, token = api_key_create(organization=org, name="bench", permissions=[])
    t0 = datetime(2025, 1, 1, tzinfo=UTC)
    project = Project.objects.create(
        id="bench-aaaaaaaa",
        organization=org,
        name="Bench",
        created_by="bench",
        created_by_type="API_KEY",
        created_by_ref="bench",
        updated_by="bench",
        updated_by_type="API_KEY",
        service_count=args.services,
    )

    started = time.perf_counter()
    services = [
        Service(project=project, created_by="bench", created_by_type="API_KEY", created_at=t0)
        for _ in range(args.services)
    ]
    Service.objects.bulk_create(services)
    step = timedelta(seconds=1)
    batch = []
    for version in range(1, args.snapshots + 1):
        for index, service in enumerate(services):
            valid_from = t0 + step * ((version - 1) * args.services + index)
            valid_until = None if version == args.snapshots else valid_from + step * args.services
            batch.append(
                ServiceSnapshot(
                    service=service,
                    project=project,
                    version=version,
                    action="created" if version == 1 else "updated",
                    slug=f"service-{index}",
                    name=f"Service {index}",
                    description=f"version {version}",
                    category=f"domain-{index % 12}",
                    owner=f"team-{index % 20}",
                    flows=[f"flow-{index % 7}"],
                    produces=[
                        {
                            "name": f"topic-{index}-{version % 3}",
                            "category": None,
                            "owner": None,
                            "flows": None,
                            "extras": {},
                        }
                    ],
                    consumes=[
                        {
                            "name": f"topic-{(index + 1) % args.services}-0",
                            "category": None,
                            "owner": None,
                            "flows": None,
                            "extras": {},
                        }
                    ],
                    extras={"repo": f"git/service-{index}"},
                    actor="bench",
                    actor_type="API_KEY",
                    valid_from=valid_from,
                    valid_until=valid_until,
                )
            )
            if len(batch) >= 5000:
                ServiceSnapshot.objects.bulk_create(batch)
                batch = []
    ServiceSnapshot.objects.bulk_create(batch)
    if args.postgres:
        with connection.cursor() as cursor:
            cursor.execute("ANALYZE")
    seeded = time.perf_counter() - started

    middle = t0 + step * (args.snapshots // 2 * args.services + args.services // 2)
    client = Client(HTTP_AUTHORIZATION=f"Bearer {token}")
    base = f"/v1/projects/{project.id}/services"
    urls = {"now": base, "middle": f"{base}?at={middle.strftime('%Y-%m-%dT%H:%M:%SZ')}"}

    results = {}
    for label, url in urls.items():
        response = client.get(url)
        assert response.status_code == 200 and len(response.json()) == args.services, label
        queries: list[str] = []

        def count(execute, sql, params, many, context, queries=queries):
            queries.append(sql)
            return execute(sql, params, many, context)

        with connection.execute_wrapper(count):
            client.get(url)
        timings = []
        for _ in range(args.repeat):
            begin = time.perf_counter()
            client.get(url)
            timings.append((time.perf_counter() - begin) * 1000)
        results[label] = (statistics.median(timings), min(timings), len(queries))

    middle_version = response.json()[0]["description"]
    from diagrams.selectors import live_snapshots

    plan = live_snapshots(project=project, at=middle).explain()
    ratio = results["middle"][0] / results["now"][0]
    lines = [
        f"## Time travel: `GET /v1/projects/{{id}}/services` ({engine})",
        "",
        f"{args.services} services x {args.snapshots} snapshots each "
        f"({args.services * args.snapshots:,} snapshots; seeded in {seeded:.1f} s). "
        f"In-process Django test client, whole stack (auth, selectors, serialization), "
        f"median of {args.repeat} after a warm-up. `bench/time_travel.py"
        f"{' --postgres' if args.postgres else ''}`.",
        "",
        "| state | median | best | SQL queries |",
        "|---|---|---|---|",
        f"| now | {results['now'][0]:.1f} ms | {results['now'][1]:.1f} ms | {results['now'][2]} |",
        f"| middle of history (at = {middle.isoformat()}, {middle_version}) | "
        f"{results['middle'][0]:.1f} ms | {results['middle'][1]:.1f} ms | "
        f"{results['middle'][2]} |",
        "",
        f"Ratio middle / now: **{ratio:.2f}** (target <= 1.5).",
        "",
        "Plan of the past-state query (an index probe per service, no scan of history):",
        "",
        "```",
        plan,
        "```",
    ]
    text = "\n".join(lines)
    print(text)
    if not args.no_write:
        from bench.report import write_section

        write_section(f"time_travel_{'postgres' if args.postgres else 'sqlite'}", text)


if __name__ == "__main__":
    main()
