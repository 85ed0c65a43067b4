#!/usr/bin/env python
"""How the graph on the project page answers a member's hand, in Debian's Chromium (headless,
software-drawn, as in the browser tests), on projects of 200, 1,000 and 3,000 services
(domains-N) served by gunicorn: the time from a press of +, − or Fit, a hover over a box,
a key press, to the next frame painted (the browser's Event Timing, as Interaction to Next
Paint counts it), to the drawing shown sharp again (its viewBox set and painted), and the
longest main-thread task meanwhile (what holds up the next press); a drag's time per pointer
step. Most rows go on from the whole graph (Fit); the last four (a hover, + and a drag)
start from the view a page opens with (a big graph: readable, at its left, where a big
drawing keeps only what is in view in the page). A hover over a box is measured where a box
is big enough for the pointer to find (far out, a box under a pixel high is missed by
Chromium's hit test, as by a hand). Medians of N tries. Writes the figures into
docs/benchmarks.md.

    .venv/bin/python bench/viewer.py [--repeat 5] [--sizes 200,1000,3000] [--no-write]
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

from bench.seeds import architecture  # noqa: E402

VIEWPORT = {"width": 1400, "height": 900}

# Installed before the page's own scripts: every interaction's time to the next paint, each
# long task, and when a new viewBox (the drawing laid out anew) was first painted.
PROBE = """
window.probe = { events: [], tasks: [], sharp: [] };
new PerformanceObserver(function (list) {
  list.getEntries().forEach(function (e) {
    window.probe.events.push({ name: e.name, at: e.startTime, duration: e.duration });
  });
}).observe({ type: "event", durationThreshold: 16, buffered: true });
new PerformanceObserver(function (list) {
  list.getEntries().forEach(function (e) {
    window.probe.tasks.push({ at: e.startTime, duration: e.duration });
  });
}).observe({ type: "longtask", buffered: true });
document.addEventListener("DOMContentLoaded", function () {
  var watch = function () {
    var svg = document.querySelector(".graph-stage svg");
    if (!svg) { setTimeout(watch, 20); return; }
    new MutationObserver(function () {
      requestAnimationFrame(function () {
        requestAnimationFrame(function () { window.probe.sharp.push(performance.now()); });
      });
    }).observe(svg, { attributeFilter: ["viewBox"] });
  };
  watch();
});
"""

START = (
    "() => { window.probe.events = []; window.probe.tasks = []; window.probe.sharp = [];"
    " window.probe.started = performance.now(); }"
)
READ = "() => window.probe"


def seed(sizes: list[int]) -> tuple[dict[int, str], object]:
    from django.core.management import call_command

    from accounts.actors import actor_for_membership
    from accounts.models import Membership
    from diagrams.project_writes import project_create
    from diagrams.service_writes import service_create

    call_command("migrate", verbosity=0)
    call_command("seed_demo", stdout=open(os.devnull, "w"))
    membership = Membership.objects.get(user__email="demo@example.com")
    actor = actor_for_membership(membership)
    projects = {}
    for size in sizes:
        data = architecture(f"domains-{size}")
        projects[size] = project_create(actor=actor, name=f"Domains {size}", description="").id
        for service in data["services"]:
            service_create(actor=actor, project_id=projects[size], data=service)
    return projects, membership


def measure(page, action) -> dict:
    """Run `action` and wait until the page is still: its time to the next paint (0 when
    under Event Timing's 16 ms floor), to the drawing painted sharp, its longest task."""
    page.evaluate(START)
    action()
    page.wait_for_timeout(900)  # past any settling redraw
    probe = page.evaluate(READ)
    started = probe["started"]
    paint = max((e["duration"] for e in probe["events"]), default=0.0)
    sharp = max((t - started for t in probe["sharp"]), default=None)
    task = max((t["duration"] for t in probe["tasks"]), default=0.0)
    return {"paint": paint, "sharp": sharp, "task": task}


def visible_node(page) -> tuple[float, float]:
    """The middle, in page pixels, of a box shown whole in the frame and window that the pointer
    finds there; its rect, not its group, whose text bounds Chromium may draw past the box."""
    return page.evaluate(
        """() => {
      var frame = document.querySelector(".graph-stage").getBoundingClientRect();
      var nodes = document.querySelectorAll(".graph-stage g.node rect");
      for (var i = 0; i < nodes.length; i++) {
        var r = nodes[i].getBoundingClientRect();
        if (r.left > frame.left + 40 && r.right < frame.right - 40 &&
            r.top > Math.max(frame.top, 0) + 40 &&
            r.bottom < Math.min(frame.bottom, window.innerHeight) - 40) {
          var x = r.left + r.width / 2, y = r.top + r.height / 2;
          var under = document.elementFromPoint(x, y);  // a box a pixel high may be missed
          if (under && under.closest("g.node") === nodes[i].parentNode) return [x, y];
        }
      }
      return null;
    }"""
    )


def lit(page, spot) -> None:
    """Stop the bench if the hover at `spot` lit no box: its figures would time nothing."""
    if not page.locator("[data-hover-veil]").count():
        under = page.evaluate(
            "([x, y]) => { var e = document.elementFromPoint(x, y);"
            " return e ? e.outerHTML.slice(0, 200) : null; }",
            spot,
        )
        raise SystemExit(f"the hover at {spot} lit no box: under it {under}")


def run(base: str, cookie: str, project: str, repeat: int) -> dict[str, dict]:
    """Each interaction tried `repeat` times on one project page; medians."""
    from playwright.sync_api import sync_playwright

    from conftest import CHROMIUM, CHROMIUM_ARGS

    tries: dict[str, list[dict]] = {}

    def note(name: str, figures: dict) -> None:
        tries.setdefault(name, []).append(figures)

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        context = browser.new_context(viewport=VIEWPORT, bypass_csp=True)
        context.add_cookies([{"name": "__session", "value": cookie, "url": base}])
        context.add_init_script(PROBE)
        page = context.new_page()
        for _ in range(repeat + 1):  # the first load renders the project: not counted
            started = time.perf_counter()
            page.goto(f"{base}/projects/{project}/")
            page.locator(".graph-stage svg g.node").first.wait_for()
            loaded = (time.perf_counter() - started) * 1000
            if _:
                note("open the page: the graph in it", {"paint": loaded})
        page.wait_for_timeout(500)
        stage = page.locator(".graph-stage").bounding_box()
        middle = (stage["x"] + stage["width"] / 2, stage["y"] + stage["height"] / 2)

        def drag():
            page.mouse.move(*middle)
            page.mouse.down()
            started = time.perf_counter()
            page.mouse.move(middle[0] - 300, middle[1] - 60, steps=40)
            drag.step = (time.perf_counter() - started) * 1000 / 40
            page.mouse.up()

        button = page.locator
        for _ in range(repeat):
            note("+ (button)", measure(page, lambda: button("[data-zoom=in]").click()))
            note("+ again", measure(page, lambda: button("[data-zoom=in]").click()))
            note("− (button)", measure(page, lambda: button("[data-zoom=out]").click()))
            spot = visible_node(page)
            if spot:
                note("hover over a box", measure(page, lambda s=spot: page.mouse.move(*s)))
                lit(page, spot)
                note("hover off it", measure(page, lambda: page.mouse.move(*middle)))
            note("Fit (button)", measure(page, lambda: button("[data-zoom=fit]").click()))
            page.locator(".graph-stage").focus()
            note("+ (key)", measure(page, lambda: page.keyboard.press("+")))
            figures = measure(page, drag)
            note("drag, 40 pointer moves", {**figures, "step": drag.step})
            button("[data-zoom=fit]").click()
            page.wait_for_timeout(500)
        # the rows above start from the whole graph (Fit) after the first round; these from
        # the view a page opens with: a big graph readable, at its left (a few hundred of
        # its boxes and edges in view)
        for _ in range(repeat):
            page.goto(f"{base}/projects/{project}/")
            page.locator(".graph-stage svg g.node").first.wait_for()
            page.wait_for_timeout(500)
            spot = visible_node(page)
            note(
                "hover over a box, at the opening view",
                measure(page, lambda s=spot: page.mouse.move(*s)),
            )
            lit(page, spot)
            note(
                "hover off it, at the opening view", measure(page, lambda: page.mouse.move(*middle))
            )
            note(
                "+ (button), at the opening view",
                measure(page, lambda: button("[data-zoom=in]").click()),
            )
            page.goto(f"{base}/projects/{project}/")
            page.locator(".graph-stage svg g.node").first.wait_for()
            page.wait_for_timeout(500)
            figures = measure(page, drag)
            note("drag, at the opening view", {**figures, "step": drag.step})
        browser.close()
    return {
        name: {key: median([t.get(key) for t in figures]) for key in figures[0]}
        for name, figures in tries.items()
    }


def median(values):
    values = [v for v in values if v is not None]
    return statistics.median(values) if values else None


def ms(value) -> str:
    if value is None:
        return "–"
    return "< 16 ms" if value < 16 else f"{value:,.0f} ms"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--sizes", default="200,1000,3000")
    parser.add_argument("--no-write", action="store_true")
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    database = f"sqlite:///{Path(tempfile.mkdtemp()) / 'viewer.sqlite3'}"
    os.environ["DATABASE_URL"] = database
    os.environ["RATE_LIMIT_ENABLED"] = "0"
    os.environ["PLAN_FREE_MAX_PROJECTS"] = "10"
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "archsvc.settings")
    import django

    django.setup()
    from accounts.services import session_start
    from archsvc.tests.servers import AppServer

    projects, membership = seed(sizes)
    cookie = session_start(membership=membership)
    env = {"DATABASE_URL": database, "RATE_LIMIT_ENABLED": "0"}
    results = {}
    with AppServer(env=env, workers=2) as server:
        for size, project in projects.items():
            results[size] = run(server.url, cookie, project, args.repeat)
            print(f"domains-{size}")
            for name, figures in results[size].items():
                print(f"  {name:32} " + "  ".join(f"{k} {ms(v)}" for k, v in figures.items()))
    lines = [
        f"Measured {time.strftime('%Y-%m-%d')} by `bench/viewer.py` (median of {args.repeat}):",
        "Debian's Chromium, headless and drawn in software (no GPU), a 1400 x 900 window, the",
        "project page served by gunicorn (2 workers, SQLite). *Next paint*: from the press",
        "to the next frame shown, pixels drawn (Event Timing; under 16 ms it is not reported;",
        "for a drag, each pointer move's share of the drag). *Sharp*: from the start of the",
        "action (a drag's: the pointer going down) to the drawing laid out anew at its new view",
        "by the main thread; a view moved by the compositor first is laid out once the moves",
        "have rested 150 ms. *Longest task*: the longest the page's main thread was busy",
        "meanwhile (what a next press waits behind).",
        "",
        "| services | interaction | next paint | sharp | longest task |",
        "|---|---|---|---|---|",
    ]
    for size, rows in results.items():
        for name, figures in rows.items():
            paint = ms(figures["paint"])
            if "step" in figures:
                paint = f"{ms(figures['step'])} a move"
            lines.append(
                f"| {size:,} | {name} | {paint} | {ms(figures.get('sharp'))} "
                f"| {ms(figures.get('task'))} |"
            )
    if not args.no_write:
        from bench.report import write_section

        write_section(
            "viewer", "## The graph in the hand (project page, Chromium)\n\n" + "\n".join(lines)
        )
    print("\n".join(lines))


if __name__ == "__main__":
    main()
