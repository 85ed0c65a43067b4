#!/usr/bin/env python
"""Render the seeded architectures (../shared/bench/architectures) with our layered layout
and SVG writer, and with Graphviz `dot -Tsvg` on the same graphs; print per graph our time,
dot's time, the ratio, edge crossings for both (counted the same way, bench/crossings.py)
and peak memory; write the table into docs/benchmarks.md.

    .venv/bin/python bench/render.py                    # every graph; dot up to 1000 services
    .venv/bin/python bench/render.py domains-200 random-200 --dot-timeout 120

Each measurement runs in a child process of its own, so its peak memory (ru_maxrss) is its
own. Our time covers layout + SVG, after loading the graph.
"""

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.seeds import ARCHITECTURES, architecture  # noqa: E402

DEFAULT = [
    "domains-50",
    "domains-200",
    "random-50",
    "random-200",
    "domains-1000",
    "random-1000",
    "domains-3000",
    "random-3000",
    "dense-1000",
    "dense-3000",
]
# dense-N (generated here, not in ../shared): N services, each producing 5 and consuming 5
# of N topics at random (10 for dense-3000: 20 each). Far over the layout's budget
# (diagrams/rendering/layout.py LAYOUT_BUDGET), they show what a huge tangled project costs.
DENSE_TOPICS = {"dense-1000": 5, "dense-3000": 10}


def load_states(name: str):
    from diagrams.entities import ServiceState, topic_normal

    if name in DENSE_TOPICS:
        return dense_states(int(name.rsplit("-", 1)[1]), DENSE_TOPICS[name])
    data = architecture(name)
    return [
        ServiceState(
            slug=s["name"],
            name=s["name"],
            description=s.get("description"),
            category=s.get("category"),
            owner=s.get("owner"),
            flows=tuple(s.get("flows") or ()),
            produces=tuple(topic_normal(t) for t in s.get("produces", [])),
            consumes=tuple(topic_normal(t) for t in s.get("consumes", [])),
            extras=s.get("extras") or {},
        )
        for s in data["services"]
    ]


def dense_states(services: int, per_side: int):
    import random

    from diagrams.entities import ServiceState, topic_normal

    rng = random.Random(services)
    states = []
    for i in range(services):
        chosen = [
            topic_normal({"name": f"topic-{t:05d}"})
            for t in rng.sample(range(services), 2 * per_side)
        ]
        name = f"svc-{i:05d}"
        states.append(
            ServiceState(
                slug=name,
                name=name,
                produces=tuple(chosen[:per_side]),
                consumes=tuple(chosen[per_side:]),
            )
        )
    return states


def measure_ours(name: str) -> None:
    """Child process: load, then time layout + SVG; print one JSON line."""
    from bench.crossings import count_crossings
    from diagrams.rendering.graph import project_graph
    from diagrams.rendering.layout import layout_layered
    from diagrams.rendering.svg import graph_origin, svg_document

    graph, _ = project_graph(load_states(name))
    started = time.perf_counter()
    layout = layout_layered(graph, origin=graph_origin())
    laid_out = time.perf_counter()
    svg = svg_document(graph, layout, title=name, when="benchmark")
    finished = time.perf_counter()
    rendered_kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss  # before counting
    ranks = [box.x + box.width / 2 for box in layout.nodes.values()]
    crossings = count_crossings(ranks, [list(edge.points) for edge in layout.edges])
    print(
        json.dumps(
            {
                "nodes": graph.number_of_nodes(),
                "edges": graph.number_of_edges(),
                "layout": laid_out - started,
                "svg": finished - laid_out,
                "total": finished - started,
                "crossings": crossings,
                "layers": layout.layers,
                "dummies": layout.dummies,
                "simplified": layout.simplified,
                "rss_kb": rendered_kb,
                "svg_bytes": len(svg),
            }
        )
    )


def run_child(command: list[str], timeout: float) -> tuple[str | None, float, int]:
    """Run a command; its stdout (None on timeout or failure), wall time, peak RSS (KiB)."""
    started = time.perf_counter()
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, cwd=ROOT)
    deadline = started + timeout
    output = b""
    while True:
        pid, status, usage = os.wait4(process.pid, os.WNOHANG)
        if pid:
            output = process.stdout.read()
            elapsed = time.perf_counter() - started
            ok = os.waitstatus_to_exitcode(status) == 0
            return (output.decode() if ok else None), elapsed, usage.ru_maxrss
        if time.perf_counter() > deadline:
            process.kill()
            _, _, usage = os.wait4(process.pid, 0)
            return None, time.perf_counter() - started, usage.ru_maxrss
        time.sleep(0.05)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("names", nargs="*", default=DEFAULT)
    parser.add_argument("--dot-timeout", type=float, default=600.0)
    parser.add_argument(
        "--dot-max-services",
        type=int,
        default=1000,
        help="skip dot above this size (it did not finish 3000 in 900 s)",
    )
    parser.add_argument("--one", help=argparse.SUPPRESS)
    parser.add_argument("--no-write", action="store_true")
    args = parser.parse_args()
    if args.one:
        measure_ours(args.one)
        return

    for name in args.names:
        if name not in DENSE_TOPICS:
            architecture(name)  # a clear exit here, not a child's traceback
    from bench.crossings import dot_plain_crossings

    have_dot = subprocess.run(["which", "dot"], capture_output=True).returncode == 0
    rows = []
    for name in args.names:
        output, _, ours_rss = run_child([sys.executable, __file__, "--one", name], 1800)
        ours = json.loads(output)
        services = int(name.rsplit("-", 1)[1])
        dot = None
        if (
            have_dot
            and services <= args.dot_max_services
            and (ARCHITECTURES / f"{name}.dot").exists()
        ):
            with tempfile.TemporaryDirectory() as tmp:
                svg_path, plain_path = Path(tmp) / "g.svg", Path(tmp) / "g.plain"
                done, elapsed, dot_rss = run_child(
                    [
                        "dot",
                        "-Tsvg",
                        "-o",
                        str(svg_path),
                        "-Tplain",
                        "-o",
                        str(plain_path),
                        str(ARCHITECTURES / f"{name}.dot"),
                    ],
                    args.dot_timeout,
                )
                if done is not None:
                    crossings, _ = dot_plain_crossings(plain_path.read_text())
                    dot = {"time": elapsed, "crossings": crossings, "rss": dot_rss}
                else:
                    dot = {"time": None, "timeout": args.dot_timeout}
        # the render's own peak: the crossing count that follows it is the bench's, not ours
        ours_rss = ours.get("rss_kb", ours_rss)
        rows.append((name, ours, ours_rss, dot))
        print(_row(name, ours, ours_rss, dot), flush=True)

    table = "\n".join(
        [
            "## Rendering: layered layout + SVG vs. Graphviz dot",
            "",
            "`bench/render.py` on `../shared/bench/architectures/` (2 cores). Ours: layout + SVG "
            "after loading, one process per graph. Dot: `dot -Tsvg` (with `-Tplain` in the same "
            "run, to read its coordinates). Crossings are counted the same way for both "
            "(`bench/crossings.py`: ranks are the distinct x of node centres; each edge is read "
            "at every rank it spans along its drawn path; two edges cross between neighbouring "
            "ranks when their order flips). Peak memory is the child process's maximum RSS (ours: "
            "read before the crossing count). "
            "Graphs over the layout's budget (200,000 nodes + dummies, `LAYOUT_BUDGET`) are "
            "drawn simply (no dummies: straight edges, barycentre orders; "
            "docs/rendering.md); dense-N are generated (N services, each on 10 random topics "
            "of N, 20 for dense-3000) and have no dot file.",
            "",
            "| graph | nodes / edges | ours | dot | dot / ours | crossings ours | crossings dot "
            "| layers / dummies | peak memory ours / dot |",
            "|---|---|---|---|---|---|---|---|---|",
            *(_row(*row) for row in rows),
        ]
    )
    if not args.no_write:
        from bench.report import write_section

        write_section("render", table)


def _row(name: str, ours: dict, ours_rss: int, dot: dict | None) -> str:
    ours_time = f"{ours['total']:.2f} s (layout {ours['layout']:.2f})"
    if dot is None:
        dot_time = ratio = dot_crossings = dot_memory = "not run"
    elif dot.get("time") is None or "crossings" not in dot:
        dot_time = f"> {dot['timeout']:.0f} s"
        ratio = f"> {dot['timeout'] / ours['total']:.0f}x"
        dot_crossings = dot_memory = "-"
    else:
        dot_time = f"{dot['time']:.2f} s"
        ratio = f"{dot['time'] / ours['total']:.1f}x"
        dot_crossings = f"{dot['crossings']:,}"
        dot_memory = f"{dot['rss'] / 1024:.0f} MB"
    if ours.get("simplified"):
        name = f"{name} (simple drawing)"
    return (
        f"| {name} | {ours['nodes']:,} / {ours['edges']:,} | {ours_time} | {dot_time} | "
        f"{ratio} | {ours['crossings']:,} | {dot_crossings} | "
        f"{ours['layers']} / {ours['dummies']:,} | {ours_rss / 1024:.0f} MB / {dot_memory} |"
    )


if __name__ == "__main__":
    main()
