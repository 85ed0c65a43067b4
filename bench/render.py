#!/usr/bin/env python
"""Draw the seeded architectures (../shared/bench/architectures) and the demo project's final
state (diagrams/demo.py) three ways: ours (layered layout + SVG), Graphviz `dot -Tsvg`, and
the Eclipse Layout Kernel (elkjs, `layered`, bench/elk/layout.mjs); print per graph each
drawing's size, its label size when fitted on a 1280 x 720 screen, its edge crossings
(counted the same way for all three, bench/crossings.py), its total edge length, its time
and peak memory, and for ours how much of the drawing stays put after a one-edge edit; then
how much of the demo's drawing stays put between adjacent moments of its history. Writes
the figures into docs/benchmarks.md.

    .venv/bin/python bench/render.py                    # every graph; dot up to 1000 services
    .venv/bin/python bench/render.py domains-50 random-50 demo --no-write
    .venv/bin/python bench/render.py domains-200 --dot-timeout 120 --elk-timeout 120

Each drawing is made by a process of its own, timed whole (start-up included), so its peak
memory (ru_maxrss) is its own. elkjs is installed into bench/elk/node_modules on first use.
"""

import argparse
import io
import json
import math
import os
import pickle
import random
import resource
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.seeds import ARCHITECTURES, architecture  # noqa: E402

DEFAULT = [
    "demo",
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
# (diagrams/rendering/layout.py LAYOUT_BUDGET), they show what a huge tangled project costs;
# ours only.
DENSE_TOPICS = {"dense-1000": 5, "dense-3000": 10}
ELK_DIR = ROOT / "bench" / "elk"
TIME = "/usr/bin/time"  # GNU time (Debian's `time` package), for the children's peak memory
SCREEN = (1280.0, 720.0)
ASPECT = 16 / 9
LABEL_PX = 12.0  # ours and ELK's (node boxes sized by our node_size)
DOT_FONT_PT = 10.0  # `fontsize` of the .dot files (../shared/bench/gen_architectures.py)
EDITS = 10
KEPT_PX = 2.0  # a node is kept when its box's centre moved at most this far
BIG = 1000  # over this many services, kept-after-an-edit gets EDIT_BUDGET_S for its edits
EDIT_BUDGET_S = 60.0


def load_states(name: str, services_file: str | None = None):
    """The ServiceStates of `name`: a seeded architecture, a dense-N, or (with
    `services_file`) a JSON list of ServiceCreate bodies, the demo's."""
    from diagrams.entities import ServiceState, topic_normal

    if name in DENSE_TOPICS:
        return dense_states(int(name.rsplit("-", 1)[1]), DENSE_TOPICS[name])
    if services_file:
        services = json.loads(Path(services_file).read_text())
    else:
        services = architecture(name)["services"]
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
        for s in services
    ]


def dense_states(services: int, per_side: int):
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


def dot_source(services: list[dict]) -> str:
    """The .dot file ../shared/bench/gen_architectures.py writes for these services."""
    out = ["digraph arch {", "  rankdir=LR;", '  node [fontname="Helvetica", fontsize=10];']
    topics = {}
    for s in services:
        out.append(f'  "s:{s["name"]}" [shape=box, label="{s["name"]}"];')
        for t in s.get("produces", []) + s.get("consumes", []):
            topics[t["name"]] = True
    out.extend(f'  "t:{t}" [shape=box, style=rounded, label="{t}"];' for t in topics)
    for s in services:
        out.extend(f'  "s:{s["name"]}" -> "t:{t["name"]}";' for t in s.get("produces", []))
        out.extend(f'  "t:{t["name"]}" -> "s:{s["name"]}";' for t in s.get("consumes", []))
    out.append("}")
    return "\n".join(out) + "\n"


def kept_share(before, after) -> float | None:
    """Share of the nodes in both layouts whose box centre moved at most KEPT_PX."""
    common = before.nodes.keys() & after.nodes.keys()
    if not common:
        return None
    kept = 0
    for node in common:
        a, b = before.nodes[node], after.nodes[node]
        moved = math.hypot(
            (b.x + b.width / 2) - (a.x + a.width / 2), (b.y + b.height / 2) - (a.y + a.height / 2)
        )
        kept += moved <= KEPT_PX
    return kept / len(common)


def measure_ours(name: str, services_file: str | None, out: str) -> None:
    """Child process: load, lay out, write the SVG; the drawing goes to `out` (a pickle)."""
    from diagrams.rendering.graph import project_graph
    from diagrams.rendering.layout import layout_layered
    from diagrams.rendering.svg import graph_origin, svg_document, svg_size

    graph, _ = project_graph(load_states(name, services_file))
    started = time.perf_counter()
    layout = layout_layered(graph, origin=graph_origin(), aspect=ASPECT)
    laid_out = time.perf_counter()
    svg_document(graph, layout, title=name, when="benchmark")  # its time counts, as dot's SVG's
    canvas = svg_size(graph, layout, title=name, when="benchmark")
    drawn = {
        "layout_s": laid_out - started,
        "canvas": canvas,
        "simplified": layout.simplified,
        # the drawing's own peak, before the bench's pickle of it
        "rss_kb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss,
        "paths": [edge.points for edge in layout.edges],
    }
    Path(out).write_bytes(pickle.dumps(drawn, protocol=5))


def measure_kept(name: str, services_file: str | None) -> None:
    """Child process: lay the graph out, then EDITS times add one consuming edge to a copy
    and lay it out from the first layout; print the kept shares and how many of those
    layouts were laid out anew, as JSON."""
    from diagrams.rendering.graph import project_graph
    from diagrams.rendering.layout import layout_layered
    from diagrams.rendering.stable import layout_next
    from diagrams.rendering.svg import graph_origin

    graph, _ = project_graph(load_states(name, services_file))
    first = layout_layered(graph, origin=graph_origin(), aspect=ASPECT)
    rng = random.Random(name)
    services = sorted(n for n, kind in graph.nodes(data="type") if kind == "service")
    topics = sorted(n for n, kind in graph.nodes(data="type") if kind == "messaging")
    shares = []
    relaid = 0
    for _ in range(EDITS):
        service = rng.choice(services)
        touched = set(graph.predecessors(service)) | set(graph.successors(service))
        topic = rng.choice([t for t in topics if t not in touched])
        edited = graph.copy()
        edited.add_edge(topic, service, kind="consumes")
        after = layout_next(first, edited, origin=graph_origin(), aspect=ASPECT)
        shares.append(kept_share(first, after))
        relaid += after.relaid
    print(json.dumps({"kept": shares, "relaid": relaid}))


def measure_history() -> None:
    """Child process: seed the demo into a temporary SQLite database, draw the demo project
    at every moment of its history as the product does, print per moment its node count,
    whether it was relaid, and the kept share against the moment before (of how many nodes
    in both), as JSON."""
    os.environ["DATABASE_URL"] = f"sqlite:///{Path(tempfile.mkdtemp()) / 'render.sqlite3'}"
    os.environ["DJANGO_SETTINGS_MODULE"] = "archsvc.settings"
    os.environ["RATE_LIMIT_ENABLED"] = "0"
    import django

    django.setup()
    from django.core.management import call_command

    from diagrams.demo import DEMO_PROJECT_NAME
    from diagrams.drawings import project_graph_view
    from diagrams.models import Project, ServiceSnapshot

    call_command("migrate", verbosity=0)
    call_command("seed_demo", stdout=io.StringIO())  # stdout carries the figures
    project = Project.objects.get(name=DEMO_PROJECT_NAME)
    moments = (
        ServiceSnapshot.objects.filter(project=project)
        .values_list("valid_from", flat=True)
        .distinct()
        .order_by("valid_from")
    )
    drawings = []
    previous = None
    for moment in moments:
        _, layout, _ = project_graph_view(
            project=project, at=moment, filtered_ids=[], depth=None, aspect=ASPECT
        )
        drawings.append(
            {
                "at": moment.isoformat(),
                "nodes": len(layout.nodes),
                "relaid": layout.relaid,
                "kept": None if previous is None else kept_share(previous, layout),
                "both": 0 if previous is None else len(previous.nodes.keys() & layout.nodes.keys()),
            }
        )
        previous = layout
    print(json.dumps(drawings))


def run_child(
    command: list[str], timeout: float, stdin: Path | None = None
) -> tuple[str | None, float, int]:
    """Run a command; its stdout (None on timeout or failure), wall time, peak RSS (KiB)."""
    # Through GNU time: a child forked from this (big) process would count this process's
    # memory in its own peak; one forked from `time` starts at about 1 MB.
    with (
        tempfile.TemporaryFile() as out,
        tempfile.NamedTemporaryFile() as peak,
        open(stdin or os.devnull, "rb") as given,
    ):
        started = time.perf_counter()
        process = subprocess.Popen(
            [TIME, "-f", "%M", "-o", peak.name, *command],
            stdin=given,
            stdout=out,  # a file, not a pipe: a big output must not block the child
            stderr=subprocess.DEVNULL,
            cwd=ROOT,
            start_new_session=True,  # on a timeout, `time` and the command go together
        )
        try:
            process.wait(timeout)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
            return None, time.perf_counter() - started, 0
        elapsed = time.perf_counter() - started
        if process.returncode != 0:
            return None, elapsed, 0
        out.seek(0)
        return out.read().decode(), elapsed, int(Path(peak.name).read_text().split()[-1])


def figures(width, height, label, paths, scale=1.0) -> dict:
    """A drawing's figures, its units times `scale` (dot's points to our 12 px labels)."""
    from bench.crossings import geometric_crossings, polyline_length

    return {
        "size": (width * scale, height * scale),
        "label": label * min(SCREEN[0] / width, SCREEN[1] / height),
        "crossings": geometric_crossings(paths),
        "length": sum(polyline_length(path) for path in paths) * scale,
    }


def draw_ours(name: str, services_file: str | None) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "drawing.pickle"
        command = [sys.executable, __file__, "--one", name, "--out", str(out)]
        if services_file:
            command += ["--services", services_file]
        done, elapsed, _ = run_child(command, 1800)
        if done is None:
            raise SystemExit(f"our drawing of {name} failed: run {' '.join(command)}")
        drawn = pickle.loads(out.read_bytes())
    return {
        **figures(*drawn["canvas"], LABEL_PX, drawn["paths"]),
        "time": elapsed,
        "layout_s": drawn["layout_s"],
        "rss": drawn["rss_kb"],
        "simplified": drawn["simplified"],
    }


def draw_dot(dot_file: Path, timeout: float) -> dict:
    from bench.crossings import read_plain

    with tempfile.TemporaryDirectory() as tmp:
        svg_path, plain_path = Path(tmp) / "g.svg", Path(tmp) / "g.plain"
        done, elapsed, rss = run_child(
            ["dot", "-Tsvg", "-o", str(svg_path), "-Tplain", "-o", str(plain_path), str(dot_file)],
            timeout,
        )
        if done is None:
            return _failed(elapsed, timeout)
        width, height, paths = read_plain(plain_path.read_text())
    return {
        **figures(width, height, DOT_FONT_PT, paths, scale=LABEL_PX / DOT_FONT_PT),
        "time": elapsed,
        "rss": rss,
    }


def _failed(elapsed: float, timeout: float) -> dict:
    return {"error": f"> {timeout:.0f} s" if elapsed >= timeout else "failed"}


def elk_ready() -> bool:
    if (ELK_DIR / "node_modules" / "elkjs").exists():
        return True
    print("installing elkjs into bench/elk/node_modules (npm install)", flush=True)
    try:
        subprocess.run(
            [
                "npm",
                "install",
                "--no-audit",
                "--no-fund",
                "--no-package-lock",
                "--prefix",
                str(ELK_DIR),
            ],
            check=True,
            cwd=ROOT,
        )
    except (OSError, subprocess.CalledProcessError) as error:
        print(f"ELK skipped: npm install failed ({error})", flush=True)
        return False
    return True


def draw_elk(graph, timeout: float) -> dict:
    from diagrams.rendering.layout import node_size

    children = []
    for node, data in graph.nodes(data=True):
        width, height, _ = node_size(data.get("label", node), data.get("type", "service"))
        children.append({"id": node, "width": width, "height": height})
    edges = [
        {"id": f"e{i}", "sources": [source], "targets": [target]}
        for i, (source, target) in enumerate(graph.edges())
    ]
    with tempfile.NamedTemporaryFile("w", suffix=".json") as given:
        json.dump({"children": children, "edges": edges}, given)
        given.flush()
        done, elapsed, rss = run_child(
            ["node", str(ELK_DIR / "layout.mjs")], timeout, stdin=Path(given.name)
        )
    if done is None:
        return _failed(elapsed, timeout)
    drawn = json.loads(done)
    return {
        **figures(
            drawn["width"], drawn["height"], LABEL_PX, [edge["points"] for edge in drawn["edges"]]
        ),
        "time": elapsed,
        "rss": rss,
    }


def demo_services_file(folder: Path) -> str:
    """DEMO_SERVICES as a JSON file the children read: they stay free of Django."""
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "archsvc.settings")
    import django

    django.setup()
    from diagrams.demo import DEMO_SERVICES

    path = folder / "demo.json"
    path.write_text(json.dumps(DEMO_SERVICES))
    return str(path)


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
    parser.add_argument("--elk-timeout", type=float, default=600.0)
    parser.add_argument("--one", help=argparse.SUPPRESS)
    parser.add_argument("--kept", help=argparse.SUPPRESS)
    parser.add_argument("--history", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--services", help=argparse.SUPPRESS)
    parser.add_argument("--out", help=argparse.SUPPRESS)
    parser.add_argument("--no-write", action="store_true")
    args = parser.parse_args()
    if args.one:
        measure_ours(args.one, args.services, args.out)
        return
    if args.kept:
        measure_kept(args.kept, args.services)
        return
    if args.history:
        measure_history()
        return

    for name in args.names:
        if name != "demo" and name not in DENSE_TOPICS:
            architecture(name)  # a clear exit here, not a child's traceback
    from diagrams.rendering.graph import project_graph

    if not Path(TIME).exists():
        raise SystemExit(f"{TIME} not found: the bench reads peak memory through GNU time")
    have_dot = shutil.which("dot") is not None
    have_elk = elk_ready()
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        for name in args.names:
            services_file = demo_services_file(folder) if name == "demo" else None
            graph, _ = project_graph(load_states(name, services_file))
            services = sum(1 for _, kind in graph.nodes(data="type") if kind == "service")
            ours = draw_ours(name, services_file)
            dot = elk = None
            if name not in DENSE_TOPICS:
                if have_dot and services <= args.dot_max_services:
                    dot_file = ARCHITECTURES / f"{name}.dot"
                    if services_file:
                        dot_file = folder / "demo.dot"
                        dot_file.write_text(dot_source(json.loads(Path(services_file).read_text())))
                    dot = draw_dot(dot_file, args.dot_timeout)
                if have_elk:
                    elk = draw_elk(graph, args.elk_timeout)
            kept = measure_edits(name, services_file, services, ours["time"])
            row = (name, graph.number_of_nodes(), graph.number_of_edges(), ours, dot, elk, kept)
            rows.append(row)
            print(_row(*row), flush=True)
        history = run_history() if "demo" in args.names else None

    table = "\n".join(
        [
            "## Rendering: ours vs. Graphviz dot vs. ELK",
            "",
            "`bench/render.py` on `../shared/bench/architectures/` and the demo project's final "
            "state (`diagrams/demo.py`), 2 cores. Each drawing is one process, timed whole "
            "(start-up included) with its peak RSS: ours is layout (for a 16:9 screen) + SVG "
            "in Python (in brackets: the layout alone), dot is `dot -Tsvg -Tplain` on the .dot "
            "files (the demo's written the same way), ELK is elkjs 0.12.1 in node, `layered`, "
            "direction RIGHT, polyline edges, on node boxes of our size (`bench/elk/layout.mjs`; "
            "no SVG). Ours' size is the SVG's whole canvas (header and legend too). Label at "
            "fit = label size x min(1280 / W, 720 / H): 12 px for ours and ELK; dot's labels "
            "are 10 pt, so its sizes and lengths are scaled by 12 / 10 to 12 px labels (its "
            "label at fit is dot's 10 pt at fit). Crossings (`bench/crossings.py` "
            "`geometric_crossings`, the same for all three) are the proper intersections of the "
            "edges as drawn (dot's splines flattened): edges that only touch, as at a node they "
            "share, do not cross. Edge length: the drawn polylines' sum. Kept after an edit: "
            "10 times, a random service consumes one more topic and `layout_next` lays the "
            "edited graph out from the first layout; the share of nodes whose centre moved at "
            "most 2 px (min / mean; - over 1000 services when the 10 edits took over 60 s). "
            "dense-N are generated (N services, each on 10 random topics of N, 20 for "
            "dense-3000): ours only. Dot is not run over 1000 services (-).",
            "",
            "| graph | nodes / edges | drawing (W x H) ours / dot / ELK "
            "| label at fit ours / dot / ELK | crossings ours / dot / ELK "
            "| edge length ours / dot / ELK | time ours / dot / ELK "
            "| peak memory ours / dot / ELK | kept after an edit (min / mean) |",
            "|---|---|---|---|---|---|---|---|---|",
            *(_row(*row) for row in rows),
            *_history_lines(history),
        ]
    )
    if not args.no_write:
        from bench.report import write_section

        write_section("render", table)


def measure_edits(name: str, services_file: str | None, services: int, fresh_s: float):
    """The kept child's figures, None when it ran out of time."""
    command = [sys.executable, __file__, "--kept", name]
    if services_file:
        command += ["--services", services_file]
    # the child lays the graph out once as the drawing did, then the edits get their budget
    budget = fresh_s + EDIT_BUDGET_S if services > BIG else 3600
    done, elapsed, _ = run_child(command, budget)
    if done is None:
        print(f"{name}: kept after an edit skipped (its child stopped after {elapsed:.0f} s)")
        return None
    return json.loads(done)


def run_history() -> list[dict] | None:
    done, _, _ = run_child([sys.executable, __file__, "--history"], 1800)
    if done is None:
        print("demo history: the child failed", flush=True)
        return None
    drawings = json.loads(done)
    for before, after in zip(drawings, drawings[1:], strict=False):
        print(
            f"demo {before['at']} -> {after['at']}: kept {_share(after['kept'])} of the "
            f"{after['both']} nodes in both ({before['nodes']} -> {after['nodes']})"
            f"{', relaid' if after['relaid'] else ''}",
            flush=True,
        )
    return drawings


def _history_lines(drawings: list[dict] | None) -> list[str]:
    if not drawings:
        return []
    shares = [d["kept"] for d in drawings[1:] if d["kept"] is not None]
    relaid = sum(d["relaid"] for d in drawings)
    if not shares:
        return ["", f"Demo history: {len(drawings)} moments, no pair to compare."]
    return [
        "",
        f"Kept between adjacent moments of the demo's history ({len(drawings)} moments of "
        "its snapshots' `valid_from`, each drawn by `project_graph_view` as the product "
        "draws it; nodes in both, centre moved at most 2 px): "
        f"min {_share(min(shares))}, median {_share(statistics.median(shares))}, "
        f"mean {_share(statistics.mean(shares))}; {sum(s < 0.9 for s in shares)} of "
        f"{len(shares)} pairs under 90%; {relaid} of {len(drawings)} drawings relaid.",
    ]


def _share(value: float | None) -> str:
    return "-" if value is None else f"{value:.0%}"


def _row(name, nodes, edges, ours, dot, elk, kept) -> str:
    def cells(show) -> str:
        out = []
        for drawing in (ours, dot, elk):
            if drawing is None:
                out.append("-")
            elif "error" in drawing:
                out.append(drawing["error"] if show is _time else "-")
            else:
                out.append(show(drawing))
        return " / ".join(out)

    if kept is None:
        kept_cell = "-"
    else:
        shares = kept["kept"]
        kept_cell = f"{_share(min(shares))} / {_share(statistics.mean(shares))}"
        if kept["relaid"]:
            kept_cell += f" ({kept['relaid']} of {len(shares)} relaid)"
    if ours["simplified"]:
        name = f"{name} (simple drawing)"
    return (
        f"| {name} | {nodes:,} / {edges:,} | {cells(_size)} | {cells(_label)} px "
        f"| {cells(_crossings)} | {cells(_length)} | {cells(_time)} | {cells(_memory)} MB "
        f"| {kept_cell} |"
    )


def _size(drawing: dict) -> str:
    width, height = drawing["size"]
    return f"{width:,.0f} x {height:,.0f}"


def _label(drawing: dict) -> str:
    return f"{drawing['label']:.1f}"


def _crossings(drawing: dict) -> str:
    return f"{drawing['crossings']:,}"


def _length(drawing: dict) -> str:
    length = drawing["length"]
    return f"{length / 1000:.1f}k" if length < 100_000 else f"{length / 1000:,.0f}k"


def _time(drawing: dict) -> str:
    if "layout_s" in drawing:  # ours
        return f"{drawing['time']:.2f} s (layout {drawing['layout_s']:.2f})"
    return f"{drawing['time']:.2f} s"


def _memory(drawing: dict) -> str:
    return f"{drawing['rss'] / 1024:.0f}"


if __name__ == "__main__":
    main()
