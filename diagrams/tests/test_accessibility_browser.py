"""Every page, audited by axe-core (the engine behind Lighthouse's and the browsers'
accessibility checks) in a real browser, at a laptop's and a phone's width and in dark
mode: no violation of WCAG 2.2 A or AA rules, nor of axe's best practices. A failure names
each rule, the page and the elements, which is what a screen-reader or keyboard user would
trip on."""

from pathlib import Path

import axe_playwright_python
import pytest

from accounts.services import session_start
from conftest import requires_chromium
from diagrams.tests.helpers import post

pytestmark = [
    pytest.mark.browser,
    requires_chromium,
]

AXE = Path(axe_playwright_python.__file__).parent / "axe.min.js"
TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa", "best-practice"]
VIEWPORTS = {"laptop": {"width": 1280, "height": 800}, "phone": {"width": 390, "height": 844}}
# a laptop and a phone as most members see the pages, and a laptop in dark mode (the
# member's system asks for it: prefers-color-scheme), where every colour is another
LOOKS = ["laptop", "phone", "laptop-dark"]


def looked_at(browser, look: str, **options):
    """A browser context for `look`: its viewport and colour scheme."""
    width, _, scheme = look.partition("-")
    return browser.new_context(viewport=VIEWPORTS[width], color_scheme=scheme or "light", **options)


def audit(page) -> list[str]:
    """axe's violations on the page as it stands, one line per rule with its elements."""
    if not page.evaluate("() => typeof window.axe !== 'undefined'"):
        page.add_script_tag(path=str(AXE))
    result = page.evaluate(
        "tags => axe.run(document, {runOnly: {type: 'tag', values: tags}, resultTypes: "
        "['violations']})",
        TAGS,
    )
    return [
        f"{v['id']} ({v['impact']}): {v['help']} -> "
        + "; ".join(" ".join(node["target"]) for node in v["nodes"][:5])
        for v in result["violations"]
    ]


@pytest.fixture
def site(demo):
    """The demo project, with a share link and the pages a member reaches from it."""
    client = demo["client"]
    project = demo["project"]
    token = post(client, f"/v1/projects/{project}/public-share-token").json()["token"]
    slug = client.get(f"/v1/projects/{project}/services").json()[0]["slug"]
    empty = post(client, "/v1/projects", {"name": "Empty one", "description": ""}).json()["id"]
    return {**demo, "token": token, "slug": slug, "empty": empty}


def member_pages(site) -> list[str]:
    project = f"/projects/{site['project']}"
    return [
        "/",
        f"{project}/",
        f"{project}/details/",
        f"{project}/share/",
        f"{project}/delete/",
        f"{project}/services/",
        f"{project}/services/new/",
        f"{project}/services/{site['slug']}/edit/",
        f"{project}/services/{site['slug']}/delete/",
        f"{project}/history/",
        f"{project}/history/?service={site['slug']}",  # one service's
        "/settings/",
        "/settings/account/",
        "/settings/members/",
        "/settings/api-keys/",
        "/settings/billing/",
        "/projects/no-such-project/",
        f"/projects/{site['empty']}/",  # a new project: what to do first
    ]


def public_pages(site) -> list[str]:
    return [
        "/accounts/login/",
        "/accounts/signup/",
        f"/share/{site['token']}/",
        f"/share/{site['token']}/embed/",
        "/share/no-such-token/",
        "/share/no-such-token/embed/",
        "/accounts/welcome/no-such-invitation/",
        "/billing/portal/no-such-link/",
        "/no-such-page/",
    ]


def log_in(context, site) -> None:
    context.add_cookies(
        [
            {
                "name": "__session",
                "value": session_start(membership=site["membership"]),
                "url": site["url"],
            }
        ]
    )


def assert_no_problems(found: dict[str, list[str]]) -> None:
    problems = {where: lines for where, lines in found.items() if lines}
    assert not problems, "\n".join(
        f"{where}\n  " + "\n  ".join(lines) for where, lines in problems.items()
    )


@pytest.mark.parametrize("look", LOOKS)
def test_no_page_has_an_accessibility_violation(browser, site, look):
    found = {}
    context = looked_at(browser, look, bypass_csp=True)
    page = context.new_page()
    for path in public_pages(site):
        page.goto(f"{site['url']}{path}")
        found[path] = audit(page)
    log_in(context, site)
    for path in member_pages(site):
        page.goto(f"{site['url']}{path}")
        page.wait_for_load_state("networkidle")
        found[path] = audit(page)
    context.close()
    assert_no_problems(found)


# A colour as [r, g, b], its relative luminance and two colours' contrast ratio (WCAG 2),
# for the scripts below.
COLOURS = """  const rgb = (c) => (c.match(/[\\d.]+/g) || []).map(Number);
  const lum = ([r, g, b]) => [r, g, b].map((v) => { v /= 255;
    return v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4); })
    .reduce((sum, v, i) => sum + v * [0.2126, 0.7152, 0.0722][i], 0);
  const ratio = (a, b) => { const [x, y] = [lum(a), lum(b)].sort((p, q) => q - p);
    return (x + 0.05) / (y + 0.05); };
"""


# Each visible form field whose edge contrasts with its own fill or with what surrounds it
# by less than 3:1 (WCAG 1.4.11, non-text contrast), which axe does not check: the edge is
# what says "type here".
FAINT_FIELDS = (
    """() => {
"""
    + COLOURS
    + """  const fill = (el) => { for (; el; el = el.parentElement) {
      const c = rgb(getComputedStyle(el).backgroundColor);
      if (c.length === 3 || c[3] > 0) return c.slice(0, 3); }
    return [255, 255, 255]; };
  const fields = 'input:not([type=hidden]):not([type=checkbox]):not([type=radio])' +
    ':not([type=range]):not([type=datetime-local]), select, textarea';
  return [...document.querySelectorAll(fields)].filter((f) => f.offsetParent).flatMap((f) => {
    const edge = rgb(getComputedStyle(f).borderTopColor).slice(0, 3);
    const worst = Math.min(ratio(edge, fill(f)), ratio(edge, fill(f.parentElement)));
    return worst < 3 ? [`${f.name || f.id || f.tagName}: ${worst.toFixed(2)}:1`] : [];
  });
}"""
)


@pytest.mark.parametrize("look", ["laptop", "laptop-dark"])
def test_every_form_fields_edge_stands_out(browser, site, look):
    found = {}
    context = looked_at(browser, look)
    page = context.new_page()
    page.goto(f"{site['url']}/accounts/login/")
    found["/accounts/login/"] = page.evaluate(FAINT_FIELDS)
    log_in(context, site)
    for path in member_pages(site):
        page.goto(f"{site['url']}{path}")
        found[path] = page.evaluate(FAINT_FIELDS)
    context.close()
    assert_no_problems(found)
    assert "/settings/members/" in found  # the pages with the most fields were read


# In dark mode: each visible element painting a light surface (its own background, or a
# field's), which a dark page would show as a white patch; and the graph's canvas, its
# edges' and its title's contrast against it.
LIGHT_PATCHES = (
    """() => {
"""
    + COLOURS
    + """  return [...document.querySelectorAll('body, body *:not(svg *)')].filter((el) => {
    const c = rgb(getComputedStyle(el).backgroundColor);
    const painted = c.length === 3 || c[3] > 0.5;
    return painted && el.getClientRects().length && lum(c.slice(0, 3)) > 0.3;
  }).map((el) => el.tagName.toLowerCase() + (el.className ? '.' + el.className : ''));
}"""
)
GRAPH_COLOURS = (
    """() => {
"""
    + COLOURS
    + """  const svg = document.querySelector('.graph-stage svg');
  const canvas = rgb(getComputedStyle(svg.querySelector(':scope > rect')).fill);
  const edge = rgb(getComputedStyle(svg.querySelector('path.edge')).stroke);
  const title = rgb(getComputedStyle(svg.querySelector('.header .title')).fill);
  const shown = {canvas: lum(canvas), edge: ratio(edge, canvas), title: ratio(title, canvas)};
  // a box hovered: the sheet over what is not lit, and a lit edge, on the canvas
  const veil = svg.querySelector('[data-hover-veil]');
  const lit = [...svg.querySelectorAll('path.edge.lit')];
  const unlit = getComputedStyle(svg.querySelector('path.edge:not(.lit)')).stroke;
  if (veil) shown.veil = lum(rgb(getComputedStyle(veil).fill));
  if (lit.length) {
    shown.lit = Math.min(...lit.map((e) => ratio(rgb(getComputedStyle(e).stroke), canvas)));
    shown.litKinds = [...new Set(lit.map((e) => e.classList.contains('consumes')))].length;
    shown.litUnlike = lit.every((e) => getComputedStyle(e).stroke !== unlit);
  }
  return shown;
}"""
)


def test_dark_mode_turns_every_surface_dark_and_the_graph_stays_legible(browser, site):
    """A member whose system is in dark mode got every page white. Now no element paints a
    light surface, and the graph's canvas is dark with its edges (3:1) and title (4.5:1)
    legible on it, hovered too; in light mode the canvas stays white. An embed stays light:
    it is inside another site's page."""
    found = {}
    context = looked_at(browser, "laptop-dark")
    page = context.new_page()
    embeds = []
    for path in public_pages(site):
        page.goto(f"{site['url']}{path}")
        if "/embed/" in path:  # inside another site's page, whose colours it cannot know
            embeds.append(page.evaluate("getComputedStyle(document.body).backgroundColor"))
            continue
        found[path] = page.evaluate(LIGHT_PATCHES)
    assert embeds == ["rgb(255, 255, 255)"] * 2, embeds  # light, as most such pages are
    log_in(context, site)
    for path in member_pages(site):
        page.goto(f"{site['url']}{path}")
        found[path] = page.evaluate(LIGHT_PATCHES)
    page.goto(f"{site['url']}/projects/{site['project']}/")
    page.locator(".graph-stage svg path.edge").first.wait_for(state="attached")
    dark = page.evaluate(GRAPH_COLOURS)
    # the assistant's Ask while it has no question: no light patch either
    found["Ask, disabled"] = page.evaluate(LIGHT_PATCHES)
    # a box hovered (Checkout: it consumes and produces) veils what it does not light,
    # and its edges of both kinds are lit alike, legible on the canvas
    page.locator('.graph-stage g.node[data-entity-id="service--checkout"]').hover()
    page.locator(".graph-stage svg [data-hover-veil]").wait_for(state="attached")
    hovered = page.evaluate(GRAPH_COLOURS)
    assert hovered["veil"] < 0.05 and hovered["lit"] >= 3 and hovered["title"] >= 4.5, hovered
    assert hovered["litKinds"] == 2 and hovered["litUnlike"], hovered
    context.close()
    assert_no_problems(found)
    assert dark["canvas"] < 0.05 and dark["edge"] >= 3 and dark["title"] >= 4.5, dark
    context = looked_at(browser, "laptop")
    log_in(context, site)
    page = context.new_page()
    page.goto(f"{site['url']}/projects/{site['project']}/")
    page.locator(".graph-stage svg path.edge").first.wait_for(state="attached")
    light = page.evaluate(GRAPH_COLOURS)
    context.close()
    assert light["canvas"] == 1 and light["edge"] >= 3 and light["title"] >= 4.5, light


@pytest.mark.parametrize("look", LOOKS)
def test_what_a_user_reaches_by_acting_has_no_accessibility_violation(browser, site, look):
    """The states the pages reach only by acting: refused forms with their messages, a focus
    on the graph, the assistant's answer with its chips, a freshly made API key shown once."""
    found = {}
    context = looked_at(browser, look, bypass_csp=True)
    page = context.new_page()
    page.goto(f"{site['url']}/accounts/login/")
    page.get_by_label("E-mail").fill("nobody@example.com")
    page.get_by_label("Password").fill("wrong-password")
    page.get_by_role("button", name="Log in").click()
    page.wait_for_selector("[role=alert]")
    found["log-in refused"] = audit(page)

    log_in(context, site)
    project = f"{site['url']}/projects/{site['project']}"
    page.goto(f"{project}/services/new/")
    page.get_by_role("button", name="Add service").click()
    page.wait_for_selector("[aria-invalid=true]")
    found["new service refused"] = audit(page)

    page.goto(f"{project}/")
    page.locator("[data-focus-id]").first.click()
    page.wait_for_selector("[data-clear-focus]:not([hidden])")
    page.wait_for_load_state("networkidle")
    found["project, a service focused"] = audit(page)
    page.fill("#chat-input", "who consumes orders.placed?")
    page.press("#chat-input", "Enter")
    page.wait_for_selector(".chat-assistant .chip")
    found["project, the assistant answered"] = audit(page)

    page.goto(f"{site['url']}/settings/api-keys/")
    page.get_by_label("Name").fill("deploy-pipeline")
    page.get_by_role("button", name="Create key").click()
    page.wait_for_selector("#new-key-token")
    found["API key made"] = audit(page)
    page.get_by_role("button", name="Create key").click()  # no name: refused
    page.wait_for_selector("[aria-invalid=true]")
    found["API key refused"] = audit(page)
    context.close()
    assert_no_problems(found)
