#!/usr/bin/env python
"""How long the assistant takes to answer on big projects (domains-1000, domains-3000),
through `POST /v1/projects/{id}/ai/chat` in-process (auth, credits, loading the project,
the built-in analyst), SQLite. Each question is asked N times with nothing kept between
questions (ASSISTANT_KEPT_SERVICES=0: the project is loaded and indexed for every one) and
N times after one question has been asked on the same state (what a chat is: several
questions in a row). Median and worst, in ms. Writes the
figures into docs/benchmarks.md.

    .venv/bin/python bench/chat.py [--repeat 5] [--architecture domains-1000] [--no-write]
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

from bench.seeds import architecture as load_architecture  # noqa: E402


def questions(data: dict) -> dict[str, str]:
    service = data["services"][5]
    topic = (service.get("produces") or service.get("consumes"))[0]["name"]
    return {
        "who consumes a topic": f"Who consumes {topic}?",
        "what breaks if a service fails": f"What breaks if {service['name']} goes down?",
        "is a service part of a cycle": f"Is {service['name']} part of a cycle?",
        "which cycles are there": "Which cycles are there?",
        "summary": "Summarize the architecture",
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--architecture", action="append")
    parser.add_argument("--no-write", action="store_true")
    args = parser.parse_args()
    architectures = args.architecture or ["domains-1000", "domains-3000"]
    os.environ["DATABASE_URL"] = f"sqlite:///{Path(tempfile.mkdtemp()) / 'chat.sqlite3'}"
    os.environ["RATE_LIMIT_ENABLED"] = "0"
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "archsvc.settings")
    import django

    django.setup()
    from django.conf import settings
    from django.core.management import call_command
    from django.test import Client

    from accounts.actors import actor_for_api_key
    from accounts.models import ApiKey
    from accounts.services import api_key_create, member_create
    from billing.models import AiCredits
    from diagrams.assistant.project_context import assistant_contexts
    from diagrams.project_writes import project_create
    from diagrams.service_writes import service_create

    call_command("migrate", verbosity=0)
    membership = member_create(email="bench@example.com", org_slug="bench", role="admin")
    key, token = api_key_create(
        organization=membership.organization,
        name="bench",
        permissions=[ApiKey.PERMISSION_PROJECTS_MANAGE],
    )
    actor = actor_for_api_key(key)
    client = Client(HTTP_AUTHORIZATION=f"Bearer {token}")
    kept_services = settings.ASSISTANT_KEPT_SERVICES
    rows = []
    for architecture in architectures:
        data = load_architecture(architecture)
        started = time.perf_counter()
        project = project_create(actor=actor, name=architecture, description="").id
        for service in data["services"]:
            service_create(actor=actor, project_id=project, data=service)
        print(f"{architecture}: seeded in {time.perf_counter() - started:.0f} s", flush=True)

        def ask(message: str, project: str = project) -> float:
            AiCredits.objects.filter(organization=membership.organization).update(remaining=10**6)
            started = time.perf_counter()
            response = client.post(
                f"/v1/projects/{project}/ai/chat",
                {"message": message},
                content_type="application/json",
            )
            elapsed = (time.perf_counter() - started) * 1000
            assert response.status_code == 200, response.content[:300]
            return elapsed

        ask("hello")  # the credits row exists, the code is imported
        for label, message in questions(data).items():
            settings.ASSISTANT_KEPT_SERVICES = 0
            assistant_contexts.clear()
            fresh = [ask(message) for _ in range(args.repeat)]
            settings.ASSISTANT_KEPT_SERVICES = kept_services
            assistant_contexts.clear()
            ask("Who owns what?")  # the state is read once, by another question
            kept = [ask(message) for _ in range(args.repeat)]
            rows.append((architecture, label, fresh, kept))
            print(f"  {label}: {statistics.median(fresh):.0f} -> {statistics.median(kept):.0f} ms")

    lines = [
        "## Assistant: answers on big projects (`POST .../ai/chat`)",
        "",
        "`bench/chat.py`: in-process through the whole stack (auth, credits, loading the "
        "project, the built-in analyst), SQLite. *Every question reads the project*: "
        "`ASSISTANT_KEPT_SERVICES=0`, the project's services and history are loaded and its "
        "graph and name index built for each question, as before workers kept them. *Asked "
        "after another question*: the state was read by an earlier question of the chat, so "
        "the worker has it. Median (worst) of "
        f"{args.repeat} asks, in ms.",
        "",
        "| project | question | every question reads the project | asked after another |",
        "|---|---|---|---|",
        *(
            f"| {architecture} | {label} | {statistics.median(fresh):,.0f} ({max(fresh):,.0f})"
            f" | {statistics.median(kept):,.0f} ({max(kept):,.0f}) |"
            for architecture, label, fresh, kept in rows
        ),
    ]
    text = "\n".join(lines)
    print(text)
    if not args.no_write:
        from bench.report import write_section

        write_section("chat", text)


if __name__ == "__main__":
    main()
