#!/usr/bin/env python
"""Where the machine's time goes, per request, under bench/api.py's load: the CPU that the
gunicorn workers (user and kernel), wrk, PostgreSQL and Redis spend, the kernel's softirq
time (loopback TCP) and the time both cores sit idle, each divided by the requests answered.
For the ceiling, a project, and the big cached bodies plain and gzip-compressed.

bench/api.py gives each read's share of the ceiling. With wrk on the same two cores as the
server, that share also carries what the load generator spends receiving the body: this
splits the two. Endpoints run in alternated rounds; each figure is the median of its rounds.

    .venv/bin/python bench/api_cpu.py              # 3 rounds of 4 s per endpoint
    .venv/bin/python bench/api_cpu.py --no-write   # docs untouched

Needs what bench/api.py needs (PostgreSQL, Redis and wrk on 127.0.0.1). Run it alone: the
PostgreSQL and Redis columns count every such process on the machine (a CI run's too).
"""

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path
from statistics import median

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench import api  # noqa: E402

TICK = os.sysconf("SC_CLK_TCK")
PARTS = ("gunicorn", "gunicorn kernel", "wrk", "PostgreSQL", "Redis", "softirq", "idle")


def process_seconds(pids: list[int], fields=(14, 15)) -> float:
    """utime (14) and/or stime (15) of the processes, in seconds (proc(5), 1-based)."""
    total = 0
    for pid in pids:
        try:
            stat = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except (FileNotFoundError, ProcessLookupError):
            continue
        total += sum(int(stat[field - 3]) for field in fields)
    return total / TICK


def machine_seconds() -> dict[str, float]:
    values = [int(v) for v in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    return {"idle": values[3] / TICK, "softirq": values[6] / TICK}


def pids_of(pattern: str) -> list[int]:
    found = subprocess.run(["pgrep", "-f", pattern], capture_output=True, text=True).stdout
    return [int(pid) for pid in found.split()]


def children(pid: int) -> list[int]:
    found = subprocess.run(["pgrep", "-P", str(pid)], capture_output=True, text=True).stdout
    return [int(child) for child in found.split()]


def one_round(url: str, token: str | None, headers: tuple[str, ...], workers, duration: int):
    """Run wrk for `duration` s; CPU microseconds a request by part, and req/s."""
    postgres, redis = pids_of("postgres"), pids_of("redis-server")
    before = {
        "gunicorn": process_seconds(workers),
        "gunicorn kernel": process_seconds(workers, (15,)),
        "PostgreSQL": process_seconds(postgres),
        "Redis": process_seconds(redis),
        **machine_seconds(),
    }
    command = ["wrk", f"-t{api.THREADS}", f"-c{api.CONNECTIONS}", f"-d{duration}s", "--latency"]
    if token:
        command += ["-H", f"Authorization: Bearer {token}"]
    for header in headers:
        command += ["-H", header]
    load = subprocess.Popen([*command, url], stdout=subprocess.PIPE, text=True)
    _, _, usage = os.wait4(load.pid, 0)
    output = load.stdout.read()
    load.stdout.close()
    after = {
        "gunicorn": process_seconds(workers),
        "gunicorn kernel": process_seconds(workers, (15,)),
        "PostgreSQL": process_seconds(postgres),
        "Redis": process_seconds(redis),
        **machine_seconds(),
    }
    result = api.parse_wrk(output)
    requests = result["requests"]
    spent = {part: after[part] - before[part] for part in before}
    spent["wrk"] = usage.ru_utime + usage.ru_stime
    return {part: spent[part] / requests * 1e6 for part in PARTS}, result["rps"]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--duration", type=int, default=4, help="seconds per round")
    parser.add_argument("--rounds", type=int, default=3, help="rounds per endpoint")
    parser.add_argument("--no-write", action="store_true", help="do not update the docs")
    args = parser.parse_args()

    api.database_create()
    token, project_id, _ = api.seed()
    load = os.getloadavg()[0]
    server = api.Server()
    try:
        server.wait()
        workers = children(server.process.pid)
        base = f"{server.url}/v1/projects/{project_id}"
        cases = [
            ("ceiling", f"{server.url}/bench/ceiling", None, ()),
            ("GET /v1/projects/{id}", base, token, ()),
            ("GET .../graph", f"{base}/graph", token, ()),
            ("GET .../graph (gzip)", f"{base}/graph", token, api.GZIP),
            ("GET .../graph/svg (warm)", f"{base}/graph/svg", token, ()),
            ("GET .../graph/svg (warm, gzip)", f"{base}/graph/svg", token, api.GZIP),
        ]
        sizes = {}
        for label, url, key, headers in cases:
            status = api.request("GET", url, key)
            if status != 200:
                raise RuntimeError(f"GET {url}: {status}")
            sizes[label] = body_bytes(url, key, headers)
            api.wrk(url, key, 2, headers=headers)  # warm both workers
        figures = {label: [] for label, *_ in cases}
        rates = {label: [] for label, *_ in cases}
        for round_index in range(args.rounds):
            order = cases if round_index % 2 == 0 else list(reversed(cases))
            for label, url, key, headers in order:
                spent, rps = one_round(url, key, headers, workers, args.duration)
                figures[label].append(spent)
                rates[label].append(rps)
                print(f"{label}: {rps:,.0f} req/s", file=sys.stderr)
    finally:
        server.stop()

    rows = []
    for label, *_ in cases:
        parts = {part: median(r[part] for r in figures[label]) for part in PARTS}
        whole = sum(parts[p] for p in PARTS if p != "gunicorn kernel")
        client = parts["wrk"] + parts["softirq"]
        rows.append(
            f"| {label} | {sizes[label]:,} | {median(rates[label]):,.0f} | "
            + " | ".join(f"{parts[part]:,.0f}" for part in PARTS)
            + f" | {whole:,.0f} | {client / whole:.0%} |"
        )
    text = "\n".join(
        [
            "### Where the time goes, per request (`bench/api_cpu.py`)",
            "",
            "The same server, load and project as the table above (2 gunicorn workers, "
            f"`wrk -t{api.THREADS} -c{api.CONNECTIONS}`, domains-200), one endpoint at a time "
            f"in {args.rounds} alternated rounds of {args.duration} s: the CPU each part spent "
            "divided by the requests answered, in microseconds (median of the rounds). "
            "*gunicorn* is both workers, user and kernel time, *gunicorn kernel* the kernel's "
            "part of it (sending the body); *wrk* the load generator; *softirq* the kernel's "
            "network work that no process is charged for; *idle* the time the two cores sat "
            "idle. *All* adds them up (the gunicorn kernel column is inside gunicorn): on two "
            "busy cores it is about 2 s divided by req/s. *wrk + softirq* is the share of that "
            "spent receiving the answers and moving bytes over loopback: time a load "
            "generator on another machine would not take from the server. Load average "
            f"before: {load:.2f}.",
            "",
            "| endpoint | body bytes | req/s | " + " | ".join(PARTS) + " | all | wrk + softirq |",
            "|---|---|---|" + "---|" * len(PARTS) + "---|---|",
            *rows,
        ]
    )
    print(text)
    if not args.no_write:
        from bench.report import write_section

        write_section("api_cpu", text)


def body_bytes(url: str, token: str | None, headers: tuple[str, ...]) -> int:
    import urllib.request

    request = urllib.request.Request(url)
    if token:
        request.add_header("Authorization", f"Bearer {token}")
    for header in headers:
        name, _, value = header.partition(": ")
        request.add_header(name, value)
    with urllib.request.urlopen(request, timeout=120) as response:
        return len(response.read())


if __name__ == "__main__":
    started = time.perf_counter()
    main()
    print(f"({time.perf_counter() - started:.0f} s)", file=sys.stderr)
