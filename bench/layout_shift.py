#!/usr/bin/env python
"""How much the project page and the shared page move as they load (Cumulative Layout
Shift), in Debian's Chromium (headless, software-drawn, as in the browser tests), served by
gunicorn on the demo project (seed_demo): the page as a member opens it, with an address
that asks for a view (a focus and a depth; the same at a past moment; a past moment alone),
and the shared page, whole and with a focus. A layout-shift observer is installed before
any of the page's scripts; each load is a first visit (a new browser context: nothing
cached), counted once the page has loaded, the network has been idle and 1.5 s more have
passed, so that late shifts count too. The sum of the load's layout-shift entries but
those Chromium marks `hadRecentInput` (as CLS counts; the sum of them all is reported too).
At 1280 x 800 and on a phone (390 x 844, mobile, touch, 3 device pixels a CSS pixel); the
worst and the median of N loads. Decided: 0 (docs/decisions.md, "laid out once"); Chrome's
"good" is at most 0.1. Writes the figures, and what moved, into docs/benchmarks.md; every
shift is printed with its sources (the node, its rectangle before and after).

    .venv/bin/python bench/layout_shift.py [--repeat 3] [--no-write]
"""

import argparse
import os
import sys
import tempfile
import time
from datetime import UTC
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

VIEWPORTS = {
    "1280 x 800": {"viewport": {"width": 1280, "height": 800}},
    "390 x 844 (phone)": {
        "viewport": {"width": 390, "height": 844},
        "is_mobile": True,
        "has_touch": True,
        "device_scale_factor": 3,
    },
}
FOCUS = "category--fulfilment"  # a category of the demo (diagrams/demo.py)
SETTLE_MS = 1500  # after load and an idle network: a late shift still counts

# Installed before the page's own scripts (all `defer`): every layout shift, with what moved,
# and whether the graph's drawing was in the page as the server sent it: when parsing ends
# (readyState "interactive"), before the deferred scripts run and DOMContentLoaded fires.
PROBE = """
(function () {
  var probe = window.layoutShift = { cls: 0, all: 0, entries: [], parsed: null };
  function rect(r) {
    return r ? { x: r.x, y: r.y, width: r.width, height: r.height } : null;
  }
  function describe(node) {
    if (!node) return "(a node since removed)";
    if (node.nodeType !== 1) {
      return "#text " + JSON.stringify((node.textContent || "").trim().slice(0, 30)) +
        " in " + describe(node.parentElement);
    }
    var text = node.tagName.toLowerCase();
    if (node.id) text += "#" + node.id;
    var classes = node.getAttribute("class");
    if (classes) text += "." + classes.trim().split(/\\s+/).join(".");
    for (var i = 0; i < node.attributes.length; i++) {
      var a = node.attributes[i];
      if (a.name.indexOf("data-") === 0) text += "[" + a.name + "]";
    }
    var parent = node.parentElement;
    if (parent && parent !== document.body && !node.id) {
      text = (parent.id ? parent.tagName.toLowerCase() + "#" + parent.id
        : parent.tagName.toLowerCase() + (parent.getAttribute("class")
          ? "." + parent.getAttribute("class").trim().split(/\\s+/).join(".") : "")) +
        " > " + text;
    }
    return text;
  }
  new PerformanceObserver(function (list) {
    list.getEntries().forEach(function (e) {
      if (!e.hadRecentInput) probe.cls += e.value;
      probe.all += e.value;
      probe.entries.push({
        value: e.value,
        at: e.startTime,
        hadRecentInput: e.hadRecentInput,
        lastInputTime: e.lastInputTime,
        sources: (e.sources || []).map(function (s) {
          return {
            node: describe(s.node),
            previousRect: rect(s.previousRect),
            currentRect: rect(s.currentRect),
          };
        }),
      });
    });
  }).observe({ type: "layout-shift", buffered: true });
  function drawn() { return !!document.querySelector(".graph-stage svg"); }
  document.addEventListener("readystatechange", function () {
    if (document.readyState === "interactive") probe.parsed = drawn();
  });
})();
"""


def moment_between_changes(project) -> tuple[str, str]:
    """An instant (in the address's form) halfway between the first later change to a service
    of FOCUS's category and the change before it, and what it lies between."""
    from django.utils import timezone

    from diagrams.selectors import history_page

    events, total = history_page(project=project, page=0, size=1000)
    assert total == len(events), total
    events.reverse()  # oldest first
    category = FOCUS.split("--", 1)[1]
    for before, change in zip(events, events[1:], strict=False):
        if change.action == "updated" and (change.category or "").lower() == category:
            middle = before.valid_from + (change.valid_from - before.valid_from) / 2
            today = timezone.now().date()
            said = (
                f"between {before.name} {before.action} and {change.name} {change.action} "
                f"({(today - before.valid_from.date()).days} and "
                f"{(today - change.valid_from.date()).days} days before the seeding)"
            )
            return middle.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"), said
    raise SystemExit(f"no later change to a service of {FOCUS} in the demo's history")


def load(browser, base: str, path: str, options: dict, cookie: str | None) -> dict:
    """One first visit of `path`: its layout shifts once the page has settled."""
    context = browser.new_context(**options)
    if cookie:  # for the whole site (the page's own API reads too), not the page's path
        context.add_cookies([{"name": "__session", "value": cookie, "url": base + "/"}])
    context.add_init_script(PROBE)
    page = context.new_page()
    errors = []  # the page's script errors and failed requests, printed with what moved
    page.on("pageerror", lambda error: errors.append(f"script error: {error}"))
    page.on(
        "response",
        lambda r: r.status >= 400 and errors.append(f"{r.status} {r.request.method} {r.url}"),
    )
    page.on("requestfailed", lambda r: errors.append(f"failed {r.url}: {r.failure}"))
    url = base + path
    response = page.goto(url, wait_until="load")
    assert response.status == 200, (url, response.status)
    page.wait_for_load_state("networkidle")
    page.wait_for_timeout(SETTLE_MS)
    nodes = page.locator(".graph-stage svg g.node").count()
    probe = page.evaluate("() => window.layoutShift")
    context.close()
    if not nodes:  # a login page or an empty frame would measure nothing
        raise SystemExit(f"{url}: no graph in the page")
    return {**probe, "errors": errors}


def run(base: str, cookie: str, pages: list[tuple[str, str, bool]], repeat: int) -> list[dict]:
    """Each page at each viewport, `repeat` first visits each (after one not counted, that
    fills the server's render cache)."""
    from playwright.sync_api import sync_playwright

    from conftest import CHROMIUM, CHROMIUM_ARGS

    rows = []
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        for _, path, member in pages:
            load(browser, base, path, VIEWPORTS["1280 x 800"], cookie if member else None)
        for viewport, options in VIEWPORTS.items():
            for label, path, member in pages:
                loads = [
                    load(browser, base, path, options, cookie if member else None)
                    for _ in range(repeat)
                ]
                rows.append({"page": label, "path": path, "viewport": viewport, "loads": loads})
        browser.close()
    return rows


def cls(value: float) -> str:
    return "0" if value == 0 else f"{value:.4f}"


def yes(values: list) -> str:
    if all(v is True for v in values):
        return "yes"
    return "no" if all(v is False for v in values) else "/".join(str(v) for v in values)


def shifts(rows: list[dict]) -> list[str]:
    """What moved, load by load, wherever anything did."""
    lines = []
    for row in rows:
        for number, figures in enumerate(row["loads"], 1):
            for entry in figures["entries"]:
                lines.append(
                    f"{row['page']} | {row['viewport']} | load {number}: shift "
                    f"{entry['value']:.4f} at {entry['at']:.0f} ms"
                    + (
                        f" (hadRecentInput, input at {entry['lastInputTime']:.0f} ms: not counted)"
                        if entry["hadRecentInput"]
                        else ""
                    )
                )
                for source in entry["sources"]:
                    before, after = source["previousRect"], source["currentRect"]
                    lines.append(
                        f"    {source['node']}: "
                        f"{before['x']:.0f},{before['y']:.0f} {before['width']:.0f}x"
                        f"{before['height']:.0f} -> {after['x']:.0f},{after['y']:.0f} "
                        f"{after['width']:.0f}x{after['height']:.0f}"
                    )
            for error in figures["errors"]:
                lines.append(f"{row['page']} | {row['viewport']} | load {number}: {error}")
    return lines


def moves(rows: list[dict]) -> list[str]:
    """For the page: each row's moved nodes, once each, and by how much (the first time)."""
    lines = []
    for row in rows:
        seen: dict[str, str] = {}
        loads = 0
        for figures in row["loads"]:
            loads += bool(figures["entries"])
            for entry in figures["entries"]:
                for source in entry["sources"]:
                    before, after = source["previousRect"], source["currentRect"]
                    parts = []
                    for delta, less, more in (
                        (after["x"] - before["x"], "left", "right"),
                        (after["y"] - before["y"], "up", "down"),
                    ):
                        if abs(delta) >= 1:
                            parts.append(f"{abs(delta):.0f} px {less if delta < 0 else more}")
                    if abs(after["width"] - before["width"]) >= 1:
                        parts.append(f"{before['width']:.0f} to {after['width']:.0f} px wide")
                    said = ", ".join(parts) or "in place"
                    if entry["hadRecentInput"]:
                        said += " (marked `hadRecentInput`)"
                    seen.setdefault(source["node"], said)
        if seen:
            lines.append(
                f"- {row['page']}, {row['viewport']} ({loads} of {len(row['loads'])} loads): "
                + "; ".join(f"`{node}` {said}" for node, said in seen.items())
            )
    return lines


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--no-write", action="store_true")
    parser.add_argument(
        "--big",
        type=int,
        default=3000,
        help="and a project of this many services (domains-N), too big a graph to inline "
        "(the page fetches it); 0 for none",
    )
    args = parser.parse_args()
    database = f"sqlite:///{Path(tempfile.mkdtemp()) / 'layout_shift.sqlite3'}"
    os.environ["DATABASE_URL"] = database
    os.environ["RATE_LIMIT_ENABLED"] = "0"
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "archsvc.settings")
    import django

    django.setup()
    from accounts.actors import actor_for_membership
    from accounts.services import session_start
    from archsvc.tests.servers import AppServer
    from bench.viewer import median, seed
    from diagrams.drawings import project_entities_cached
    from diagrams.models import Project
    from diagrams.sharing import share_token_rotate

    big, membership = seed([args.big] if args.big else [])  # migrate, seed_demo, domains-N
    project = Project.objects.exclude(id__in=big.values()).get(organization=membership.organization)
    categories = project_entities_cached(project=project)["categories"]
    assert FOCUS in categories, (FOCUS, sorted(categories))
    token = share_token_rotate(actor=actor_for_membership(membership), project_id=project.id).token
    at, between = moment_between_changes(project)
    cookie = session_start(membership=membership)
    page = f"/projects/{project.id}/"
    pages = [  # (label, address, as the member)
        ("project page", page, True),
        (f"project page, `?focus={FOCUS}&depth=1`", f"{page}?focus={FOCUS}&depth=1", True),
        (
            f"project page, `?focus={FOCUS}&depth=0&at=<past>`",
            f"{page}?focus={FOCUS}&depth=0&at={at}",
            True,
        ),
        ("project page, `?at=<past>`", f"{page}?at={at}", True),
        ("shared page", f"/share/{token}/", False),
        (
            f"shared page, `?filteredIds={FOCUS}&depth=1`",
            f"/share/{token}/?filteredIds={FOCUS}&depth=1",
            False,
        ),
    ]
    for size, big_id in big.items():
        big_token = share_token_rotate(
            actor=actor_for_membership(membership), project_id=big_id
        ).token
        pages += [
            (f"project page, {size:,} services (graph fetched)", f"/projects/{big_id}/", True),
            (f"shared page, {size:,} services (graph fetched)", f"/share/{big_token}/", False),
        ]
    env = {"DATABASE_URL": database, "RATE_LIMIT_ENABLED": "0"}
    with AppServer(env=env, workers=2) as server:
        rows = run(server.url, cookie, pages, args.repeat)
    table = [
        "| page | viewport | worst | median | every shift, worst | graph in the page as sent |",
        "|---|---|---|---|---|---|",
    ]
    for row in rows:
        values = [figures["cls"] for figures in row["loads"]]
        every = max(figures["all"] for figures in row["loads"])
        table.append(
            f"| {row['page']} | {row['viewport']} | {cls(max(values))} | {cls(median(values))} "
            f"| {cls(every)} | {yes([f['parsed'] for f in row['loads']])} |"
        )
    moved = moves(rows)
    lines = [
        "## Layout shift as the pages load (Chromium)",
        "",
        f"Measured {time.strftime('%Y-%m-%d')} by `bench/layout_shift.py`: the Cumulative "
        f"Layout Shift of a page load, worst and median of {args.repeat} loads. Target: 0 "
        '(the page is laid out once: docs/decisions.md); Chrome\'s "good" is at most 0.1.',
        "",
        *table,
        "",
        "Debian's Chromium, headless and drawn in software (no GPU); the demo project "
        "(seed_demo, 20 services)"
        + (
            f" and a project of {args.big:,} services (domains-{args.big}, whose drawing is "
            "too big to inline: the page fetches it from the API)"
            if args.big
            else ""
        )
        + " served by gunicorn (2 workers, SQLite); the project page "
        "as its member sees it, the shared page as anyone. Each load is a first visit (a new "
        "browser context, nothing cached; one load of each address beforehand fills the "
        "server's render cache and is not counted), at 1280 x 800 or as a phone (390 x 844, "
        "`is_mobile`, touch, 3 device pixels a CSS pixel). A `layout-shift` "
        "PerformanceObserver, installed before any of the page's scripts (`add_init_script`, "
        "`buffered`), sums the load's shifts but those marked `hadRecentInput`, as CLS does; "
        "it is read once the page has loaded, the network has been idle 0.5 s and "
        f"{SETTLE_MS / 1000:g} s more have passed. Nothing is pressed, but as a phone "
        "(`is_mobile`) Chromium reports an input some 100-200 ms into the load and marks the "
        "shifts of the next half-second: *every shift* sums them all. The past moment "
        f"(`<past>`) is `{at}`, halfway {between}. *Graph in the page as sent*: the drawing "
        "was in `.graph-stage` once the page's HTML was parsed, before its (deferred) scripts "
        "ran: drawn by the server.",
    ]
    if moved:
        lines += ["", "What moved (the shifts' sources; each node once a row):", "", *moved]
    text = "\n".join(lines)
    print(text)
    every = shifts(rows)
    print("\nEvery shift:" if every else "\nNothing moved.")
    print("\n".join(every))
    if not args.no_write:
        from bench.report import write_section

        write_section("layout-shift", text)


if __name__ == "__main__":
    main()
