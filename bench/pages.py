#!/usr/bin/env python
"""How fast the main pages load on the demo project (seed_demo), in-process through the whole
stack (middleware, session, selectors, rendering, templates); median of N loads after a
warm-up. Writes the figures into docs/benchmarks.md.

    .venv/bin/python bench/pages.py [--repeat 20] [--no-write]
"""

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=20)
    parser.add_argument("--no-write", action="store_true")
    args = parser.parse_args()
    os.environ["DATABASE_URL"] = f"sqlite:///{Path(tempfile.mkdtemp()) / 'pages.sqlite3'}"
    os.environ["RATE_LIMIT_ENABLED"] = "0"
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "archsvc.settings")
    import django

    django.setup()
    from django.core.management import call_command
    from django.test import Client

    from accounts.models import Membership
    from accounts.services import session_start
    from diagrams.models import Project

    call_command("migrate", verbosity=0)
    call_command("seed_demo", stdout=open(os.devnull, "w"))
    membership = Membership.objects.get(user__email="demo@example.com")
    client = Client()
    client.cookies["__session"] = session_start(membership=membership)
    project = Project.objects.get(organization=membership.organization)
    client.post(f"/v1/projects/{project.id}/public-share-token")
    from diagrams.models import PublicShareToken

    token = PublicShareToken.objects.get(project=project).token
    pages = {
        "projects list": "/",
        "project page (graph, tables, chat)": f"/projects/{project.id}/",
        "service editor": f"/projects/{project.id}/services/order-service/edit/",
        "history": f"/projects/{project.id}/history/",
        "shared view": f"/share/{token}/",
        "settings: billing": "/settings/billing/",
    }
    rows = []
    for label, path in pages.items():
        response = client.get(path)
        assert response.status_code == 200, (path, response.status_code)
        timings = []
        for _ in range(args.repeat):
            started = time.perf_counter()
            client.get(path)
            timings.append((time.perf_counter() - started) * 1000)
        rows.append((label, statistics.median(timings), max(timings)))
    lines = [
        "## Pages on the demo project (20 services)",
        "",
        "`bench/pages.py`: in-process through the whole stack, SQLite, median and worst "
        f"of {args.repeat} loads after a warm-up. Target: under 300 ms.",
        "",
        "| page | median | worst |",
        "|---|---|---|",
        *(f"| {label} | {median:.0f} ms | {worst:.0f} ms |" for label, median, worst in rows),
    ]
    text = "\n".join(lines)
    print(text)
    if not args.no_write:
        from bench.report import write_section

        write_section("pages", text)


if __name__ == "__main__":
    main()
