#!/usr/bin/env python
"""A burst of cold reads: right after a write to a big project, every open page and polling
script asks for the new drawing at the same moment. gunicorn with the production default of
workers on 2 cores (2 x 2 + 1 = 5 sync workers) on PostgreSQL + Redis; after each write,
16 clients ask for the SVG at once. Measured twice in the same run, alternating round by
round: with the render lock (the default: one worker renders, the others wait for its
bytes) and without it (`RENDER_LOCK_WAIT_SECONDS=0`: every worker that misses renders).
Renders are counted from the workers' logs (each one is logged), CPU from /proc. Prints the
table and writes it into docs/benchmarks.md.

    .venv/bin/python bench/burst.py                # domains-1000, 5 rounds
    .venv/bin/python bench/burst.py --no-write     # docs untouched

Needs PostgreSQL on 127.0.0.1:5432 (database archsvc_burstbench is dropped and made again)
and Redis on 127.0.0.1:6379.
"""

import argparse
import os
import sys
import threading
import time
import urllib.request
from pathlib import Path
from statistics import median

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.api import Server, database_create, request, seed  # noqa: E402
from bench.report import write_section  # noqa: E402

ARCHITECTURE = "domains-1000"
WORKERS = 5
CLIENTS = 16
TICKS = os.sysconf("SC_CLK_TCK")


def workers_cpu(server: Server) -> float:
    """CPU seconds (user + system) the server's workers have used so far."""
    pid = server.process.pid
    total = 0
    for child in Path(f"/proc/{pid}/task/{pid}/children").read_text().split():
        fields = Path(f"/proc/{child}/stat").read_text().rsplit(")", 1)[1].split()
        total += int(fields[11]) + int(fields[12])  # utime, stime
    return total / TICKS


def get(url: str, token: str) -> tuple[float, int, int]:
    """(seconds, status, body length) of one GET."""
    req = urllib.request.Request(url)
    req.add_header("Authorization", f"Bearer {token}")
    begin = time.perf_counter()
    with urllib.request.urlopen(req, timeout=120) as response:
        body = response.read()
        return time.perf_counter() - begin, response.status, len(body)


def burst(server: Server, url: str, token: str) -> dict:
    """CLIENTS GETs of `url` sent together; what they cost and how many renders ran."""
    start = threading.Barrier(CLIENTS)
    answers: list = [None] * CLIENTS

    def client(index: int) -> None:
        start.wait()
        answers[index] = get(url, token)

    log_from = Path(server.log.name).stat().st_size
    cpu = workers_cpu(server)
    threads = [threading.Thread(target=client, args=(i,)) for i in range(CLIENTS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    cpu = workers_cpu(server) - cpu
    time.sleep(0.2)  # the last log lines
    with open(server.log.name, "rb") as log:
        log.seek(log_from)
        lines = log.read().decode(errors="replace").splitlines()
    if {status for _, status, _ in answers} != {200} or len({n for *_, n in answers}) != 1:
        raise RuntimeError(f"unexpected answers: {answers}")
    times = sorted(seconds for seconds, *_ in answers)
    return {
        "last": times[-1],
        "median": median(times),
        "cpu": cpu,
        "renders": sum("render computed" in line for line in lines),
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--architecture", default=ARCHITECTURE)
    parser.add_argument("--no-write", action="store_true", help="do not update the docs")
    args = parser.parse_args()

    started = time.perf_counter()
    database_url = database_create("archsvc_burstbench")
    token, project_id, slug = seed(
        database_url=database_url, architecture=args.architecture, small_projects=0
    )
    seeded = time.perf_counter() - started
    load = os.getloadavg()[0]
    servers = {
        "lock (default)": Server(
            workers=WORKERS, database_url=database_url, env={"LOG_LEVEL": "INFO"}
        ),
        "no lock": Server(
            workers=WORKERS,
            database_url=database_url,
            env={"LOG_LEVEL": "INFO", "RENDER_LOCK_WAIT_SECONDS": "0"},
        ),
    }
    results: dict[str, list[dict]] = {name: [] for name in servers}
    alone = []
    try:
        for server in servers.values():
            server.wait()
            base = f"{server.url}/v1/projects/{project_id}"
            for _ in range(2 * WORKERS):  # every worker has loaded the renderers
                get(f"{base}/graph/svg", token)
        for round_ in range(args.rounds):
            for name, server in servers.items():
                base = f"{server.url}/v1/projects/{project_id}"
                body = f'{{"description": "burst {round_}"}}'.encode()
                if request("PUT", f"{base}/services/{slug}", token, body) != 200:
                    raise RuntimeError("the write failed")
                results[name].append(burst(server, f"{base}/graph/svg", token))
                r = results[name][-1]
                print(
                    f"round {round_ + 1}, {name}: last answer {r['last']:.2f} s, "
                    f"{r['renders']} renders, {r['cpu']:.2f} CPU s",
                    file=sys.stderr,
                )
            # One cold render with nobody else asking, for scale.
            server = servers["lock (default)"]
            base = f"{server.url}/v1/projects/{project_id}"
            request("PUT", f"{base}/services/{slug}", token, b'{"description": "alone"}')
            alone.append(get(f"{base}/graph/svg", token)[0])
    finally:
        for server in servers.values():
            server.stop()

    rows = []
    for name, runs in results.items():
        lasts = ", ".join(f"{r['last']:.2f}" for r in runs)
        renders = ", ".join(str(r["renders"]) for r in runs)
        rows.append(
            f"| {name} | {median(r['last'] for r in runs):.2f} s ({lasts}) | "
            f"{median(r['median'] for r in runs):.2f} s | "
            f"{median(r['renders'] for r in runs):.0f} ({renders}) | "
            f"{median(r['cpu'] for r in runs):.2f} s |"
        )
    services = args.architecture.rsplit("-", 1)[1]
    text = "\n".join(
        [
            "## A burst of cold reads after a write (render lock)",
            "",
            f"`bench/burst.py`: gunicorn with {WORKERS} sync workers (gunicorn.conf.py's default "
            "on 2 cores) on PostgreSQL + Redis, the project "
            f"`{args.architecture}` ({services} services; seeded in {seeded:.0f} s). Each "
            f"round writes one service, then {CLIENTS} clients ask for the SVG at the same "
            "moment; two servers on the same database, one with the render lock (the default) "
            "and one without (`RENDER_LOCK_WAIT_SECONDS=0`), take turns round by round. "
            "Renders are counted in the workers' logs, CPU is the workers' user + system time "
            f"during the burst. {args.rounds} rounds; medians, each round's figure in brackets. "
            f"A cold SVG render with nobody else asking took {median(alone):.2f} s (median). "
            f"1-minute load average before the run: {load:.2f}.",
            "",
            "| workers | last answer | median answer | renders per burst | workers' CPU |",
            "|---|---|---|---|---|",
            *rows,
        ]
    )
    print(text)
    if not args.no_write:
        write_section("burst", text)


if __name__ == "__main__":
    main()
