"""The Mermaid text as the real Mermaid 11 reads it, in Debian's Chromium: it parses, every
node and arrow is drawn once, and hostile names show as plain text that runs nothing."""

import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from diagrams.rendering.graph import project_graph
from diagrams.rendering.mermaid import mermaid_flowchart
from diagrams.tests.test_rendering_mermaid import (
    HOSTILE_NAMES,
    demo_services,
    hostile_services,
    shown,
)

pytestmark = pytest.mark.browser

MERMAID_VERSION = "11.17.2"  # latest 11.x on npm when written: `npm view mermaid@11 version`
REPO_ROOT = Path(__file__).resolve().parents[2]
NPM_PREFIX = REPO_ROOT / ".cache" / "npm-mermaid"  # git-ignored (/.cache/)
MERMAID_PACKAGE = NPM_PREFIX / "node_modules" / "mermaid"
MERMAID_JS = MERMAID_PACKAGE / "dist" / "mermaid.min.js"
CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
]

# Renders into #out the way a page would show it (innerHTML), then reports what was drawn.
# Mermaid 11 draws a node as `g.node` with id `<svg id>-flowchart-<node id>-<n>`, and an
# arrow as `path.flowchart-link` (also `data-edge="true"`) with id `<svg id>-L_<src>_<dst>_<n>`.
RENDER = """async (text) => {
  const out = document.getElementById('out');
  out.innerHTML = '';
  let svg;
  try {
    svg = (await mermaid.render('g1', text)).svg;
  } catch (error) {
    return {error: String((error && error.message) || error)};
  }
  out.innerHTML = svg;
  await new Promise((resolve) => setTimeout(resolve, 100));
  const root = out.querySelector('svg');
  const all = [...root.querySelectorAll('*')];
  return {
    nodes: [...root.querySelectorAll('g.node')].map((n) => ({
      id: n.id, text: n.textContent, classes: n.getAttribute('class')})),
    edges: [...root.querySelectorAll('path.flowchart-link')].map((e) => e.id),
    dataEdges: root.querySelectorAll('path[data-edge]').length,
    tags: [...new Set(all.map((el) => el.localName))].sort(),
    handlers: all.flatMap((el) => [...el.attributes]
      .filter((a) => a.name.startsWith('on')).map((a) => el.localName + ' ' + a.name)),
    links: all.flatMap((el) => [...el.attributes]
      .filter((a) => /href|src/i.test(a.name) || /javascript:/i.test(a.value))
      .map((a) => el.localName + ' ' + a.name + '=' + a.value)),
    markup: out.innerHTML,
    pwned: window.__pwned === undefined ? null : String(window.__pwned),
  };
}"""

# What Mermaid's strict sanitising may leave in a drawing; anything else is a finding.
DRAWING_TAGS = {
    "svg",
    "g",
    "path",
    "rect",
    "polygon",
    "circle",
    "ellipse",
    "line",
    "text",
    "tspan",
    "marker",
    "style",
    "defs",
    "foreignObject",
    "filter",
    "feDropShadow",
    "div",
    "span",
    "p",
    "br",
    "title",
    "desc",
}
NODE_CLASSES = re.compile(r"^node default( (cat[0-9]+|nocat))?( topic)?$")


def _installed_version() -> str | None:
    try:
        return json.loads((MERMAID_PACKAGE / "package.json").read_text())["version"]
    except (OSError, ValueError, KeyError):
        return None


@pytest.fixture(scope="session")
def mermaid_js() -> Path:
    """mermaid.min.js of the pinned version, installed once with npm into the cache."""
    if not CHROMIUM.exists():
        pytest.skip(f"no Chromium at {CHROMIUM}")
    if MERMAID_JS.exists() and _installed_version() == MERMAID_VERSION:
        return MERMAID_JS
    npm = shutil.which("npm")
    if npm is None:
        # as a missing Chromium is: said in the run's summary (-ra); .ci/run installs npm,
        # and there it must have (MERMAID_REQUIRED)
        if os.environ.get("MERMAID_REQUIRED"):
            pytest.fail(f"npm is needed to install mermaid@{MERMAID_VERSION} (apt-get install npm)")
        pytest.skip(
            f"npm is not installed: it fetches mermaid@{MERMAID_VERSION} (apt-get install npm)"
        )
    NPM_PREFIX.mkdir(parents=True, exist_ok=True)
    command = [
        npm,
        "install",
        "--no-audit",
        "--no-fund",
        "--prefix",
        str(NPM_PREFIX),
        f"mermaid@{MERMAID_VERSION}",
    ]
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=600)
    except subprocess.TimeoutExpired:
        pytest.fail(f"`{' '.join(command)}` took over 600 s")
    if done.returncode != 0 or not MERMAID_JS.exists():
        pytest.fail(
            f"`{' '.join(command)}` failed (exit {done.returncode}):\n{done.stderr[-2000:]}"
        )
    return MERMAID_JS


@pytest.fixture(scope="module")
def mermaid_page(mermaid_js):
    """A blank page in Chromium with Mermaid loaded, strict security, no auto start."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            page = browser.new_page()
            page.set_content("<html><body><div id=out></div></body></html>")
            page.add_script_tag(path=str(mermaid_js))
            version = page.evaluate(
                "mermaid.initialize({startOnLoad: false, securityLevel: 'strict'});"
                "mermaid.mermaidAPI.getConfig().securityLevel"
            )
            assert version == "strict"
            yield page
        finally:
            browser.close()


def render(page, graph) -> dict:
    """Render the graph's Mermaid text; fail on a parse error."""
    drawn = page.evaluate(RENDER, mermaid_flowchart(graph))
    assert "error" not in drawn, drawn.get("error")
    return drawn


def drawn_node_ids(drawn: dict) -> list[str]:
    ids = []
    for node in drawn["nodes"]:
        match = re.fullmatch(r"g1-flowchart-(.+)-[0-9]+", node["id"])
        assert match, node["id"]
        ids.append(match[1])
    return ids


def assert_drawn_exactly(graph, drawn: dict) -> None:
    """One node per graph node, one arrow per graph edge, no phantom ones."""
    mids = {node: node.replace("--", "__") for node in graph.nodes}
    assert len(drawn["nodes"]) == graph.number_of_nodes()
    assert sorted(drawn_node_ids(drawn)) == sorted(mids.values())
    assert len(drawn["edges"]) == drawn["dataEdges"] == graph.number_of_edges()
    assert sorted(drawn["edges"]) == sorted(f"g1-L_{mids[s]}_{mids[t]}_0" for s, t in graph.edges)


def test_demo_project_draws_every_node_and_arrow(mermaid_page):
    graph, _ = project_graph(demo_services())
    drawn = render(mermaid_page, graph)
    assert_drawn_exactly(graph, drawn)
    texts = dict(zip(drawn_node_ids(drawn), (n["text"] for n in drawn["nodes"]), strict=True))
    assert texts["service__order-api"] == "Order API"
    assert texts["messaging__orders-created"] == "orders.created"
    assert texts["service__audit-log"] == "Audit log (v2)"
    classes = dict(zip(drawn_node_ids(drawn), (n["classes"] for n in drawn["nodes"]), strict=True))
    assert classes["service__audit-log"] == "node default nocat"
    assert classes["messaging__orders-created"].endswith(" topic")
    assert drawn["pwned"] is None


def test_hostile_names_are_drawn_as_text_and_run_nothing(mermaid_page):
    graph, _ = project_graph(hostile_services())
    drawn = render(mermaid_page, graph)
    assert_drawn_exactly(graph, drawn)
    texts = dict(zip(drawn_node_ids(drawn), (n["text"] for n in drawn["nodes"]), strict=True))
    for node, data in graph.nodes(data=True):
        # Mermaid trims a label's ends; inside, every character is the user's, as text.
        assert texts[node.replace("--", "__")] == shown(data["label"]).strip()
    all_text = "\n".join(texts.values())
    for name in HOSTILE_NAMES:
        assert shown(name) in all_text
    assert "<script>alert(1)</script>" in all_text
    for node in drawn["nodes"]:
        assert NODE_CLASSES.match(node["classes"]), node["classes"]
    assert set(drawn["tags"]) <= DRAWING_TAGS, set(drawn["tags"]) - DRAWING_TAGS
    assert drawn["handlers"] == []
    assert drawn["links"] == []
    markup = drawn["markup"].lower()
    for raw in ("<script", "<img", "<svg onload", "<a ", "<iframe", "<object"):
        assert raw not in markup  # as text these are &lt;...
    mermaid_page.wait_for_timeout(200)
    assert drawn["pwned"] is None
    assert mermaid_page.evaluate("window.__pwned") is None
    assert mermaid_page.evaluate("document.scripts.length") == 1  # Mermaid itself


def test_the_payloads_would_run_if_they_were_markup(mermaid_page):
    """The canary works: the same names put in as HTML set window.__pwned."""
    mermaid_page.evaluate(
        """(names) => { const probe = document.createElement('div');
        probe.innerHTML = names.join(''); document.body.append(probe); }""",
        [name for name in HOSTILE_NAMES if "__pwned" in name],
    )
    mermaid_page.wait_for_function("window.__pwned !== undefined", timeout=5000)
    mermaid_page.evaluate("delete window.__pwned; document.body.lastChild.remove()")
