#!/usr/bin/env python
"""How fast the main pages load on the demo project (seed_demo), and a project page of 200
services (domains-200), in-process through the whole stack (middleware, session, selectors,
rendering, templates, compression), asked for as a browser does (Accept-Encoding: gzip);
projects of 200, 1,000 and 3,000 services (domains-N) too, whose pages inline their SVG;
median of N loads after a warm-up, and what each page weighs, plain and as sent. Writes the
figures into docs/benchmarks.md.

    .venv/bin/python bench/pages.py [--repeat 20] [--no-write]
"""

import argparse
import gzip
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.seeds import ARCHITECTURES, architecture  # noqa: E402

BROWSER = {"HTTP_ACCEPT_ENCODING": "gzip, deflate, br, zstd"}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=20)
    parser.add_argument("--no-write", action="store_true")
    args = parser.parse_args()
    os.environ["DATABASE_URL"] = f"sqlite:///{Path(tempfile.mkdtemp()) / 'pages.sqlite3'}"
    os.environ["RATE_LIMIT_ENABLED"] = "0"
    os.environ["PLAN_FREE_MAX_PROJECTS"] = "10"
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "archsvc.settings")
    import django

    django.setup()
    from django.conf import settings
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
    big = {}
    for size in (200, 1000, 3000):
        if not (ARCHITECTURES / f"domains-{size}.json").exists():
            continue
        from accounts.actors import actor_for_membership
        from diagrams.project_writes import project_create
        from diagrams.service_writes import service_create

        actor = actor_for_membership(membership)
        big[size] = project_create(actor=actor, name=f"Domains {size}", description="").id
        data = architecture(f"domains-{size}")
        for service in data["services"]:
            service_create(actor=actor, project_id=big[size], data=service)
    from diagrams.models import ServiceSnapshot

    def middle(project_id) -> str:
        """The moment of the project's middle change: a history page's link to it."""
        snapshots = ServiceSnapshot.objects.filter(project_id=project_id).order_by("valid_from")
        moment = snapshots[snapshots.count() // 2].valid_from
        return moment.strftime("%Y-%m-%dT%H:%M:%S.%fZ")

    pages = {
        "projects list": "/",
        "project page (graph, tables, chat)": f"/projects/{project.id}/",
        # the graph, tables, count and Show menu of then (the history page's links)
        "project page at a past moment": f"/projects/{project.id}/?at={middle(project.id)}",
        "service editor": f"/projects/{project.id}/services/order-service/edit/",
        "history": f"/projects/{project.id}/history/",
        "one service's history": f"/projects/{project.id}/history/?service=order-service",
        "shared view": f"/share/{token}/",
        "settings: billing": "/settings/billing/",
    }
    for size, project_id in big.items():
        pages[f"project page, {size:,} services (domains-{size})"] = f"/projects/{project_id}/"
        # past SHARE_INLINE_SVG_BYTES the page's script fetches the graph: its own row
        pages[f"its graph (domains-{size}), fetched by the page"] = (
            f"/v1/projects/{project_id}/graph/svg"
        )
        pages[f"project page at a past moment, {size:,} services (half of them then)"] = (
            f"/projects/{project_id}/?at={middle(project_id)}"
        )
        pages[f"services list, {size:,} services (first page of 100)"] = (
            f"/projects/{project_id}/services/"
        )
        pages[f"history, {size:,} services (newest 20 events)"] = f"/projects/{project_id}/history/"
        # its shared view: the Show menu lists every category, owner, service and topic
        client.post(f"/v1/projects/{project_id}/public-share-token")
        shared = PublicShareToken.objects.get(project_id=project_id).token
        pages[f"shared view, {size:,} services (domains-{size})"] = f"/share/{shared}/"
    rows = []
    last_page = ""
    for label, path in pages.items():
        if path.startswith("/v1/") and "data-load" not in last_page:
            continue  # inlined in the page above
        response = client.get(path, **BROWSER)
        assert response.status_code == 200, (path, response.status_code)
        sent = len(response.content)
        body = (
            gzip.decompress(response.content)
            if response.has_header("Content-Encoding")
            else response.content
        )
        size = len(body)
        if not path.startswith("/v1/"):
            last_page = body.decode()
        timings = []
        for _ in range(args.repeat):
            started = time.perf_counter()
            client.get(path, **BROWSER)
            timings.append((time.perf_counter() - started) * 1000)
        rows.append((label, statistics.median(timings), max(timings), size, sent))
    lines = [
        "## Pages on the demo project (20 services)",
        "",
        "`bench/pages.py`: in-process through the whole stack, SQLite, asked for as a browser "
        "does (`Accept-Encoding: gzip`, so the times include compressing the page), median and "
        f"worst of {args.repeat} loads after a warm-up; the page's size, and what goes over "
        "the wire. The last rows are projects of 200, 1,000 and 3,000 services (domains-N), "
        "whose pages list the first 100 rows of each table and inline their graph up to "
        f"`SHARE_INLINE_SVG_BYTES` ({settings.SHARE_INLINE_SVG_BYTES:,} bytes); a bigger "
        "one the page's script fetches from the API (`graph/svg`, its gzip bytes cached), "
        "on the row under its page; the project page at the moment of its middle change (as "
        "the history page's links ask for it: the graph, tables, count and Show menu of "
        "then); their Services page (the editor's list, 100 a page); their History page "
        "(the newest 20 events, each with its changes; the demo's also for one service, "
        "`?service=`); and "
        "their shared view (whose Show menu lists every category, owner, service and topic; "
        "a big graph fetched from the share's SVG address, as the project page's). "
        "Target: under 300 ms.",
        "",
        "| page | median | worst | size | sent (gzip) |",
        "|---|---|---|---|---|",
        *(
            f"| {label} | {median:.0f} ms | {worst:.0f} ms | {size / 1024:,.0f} KB | "
            f"{sent / 1024:,.0f} KB |"
            for label, median, worst, size, sent in rows
        ),
    ]
    text = "\n".join(lines)
    print(text)
    if not args.no_write:
        from bench.report import write_section

        write_section("pages", text)


if __name__ == "__main__":
    main()
