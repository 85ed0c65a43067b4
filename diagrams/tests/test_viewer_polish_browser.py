"""The project page's viewer, the share and the embed pages as a UX review found them, in a
real browser (Playwright driving Debian's Chromium) on the demo project: the exports follow
what is shown, depth is off without a focus, the focus says what kind of thing it is and
stands out, time travel does not reflow its row, the embed zooms and opens readable on a
phone, and a dead embed is a bare 404 panel."""

import re
from datetime import datetime, timedelta

import pytest
from django.utils import timezone
from playwright.sync_api import expect

from accounts.services import session_start
from conftest import requires_chromium
from diagrams.tests.helpers import post, put

pytestmark = [
    pytest.mark.browser,
    requires_chromium,
]

LAPTOP = {"width": 1280, "height": 800}
PHONE_EMBED = {"width": 390, "height": 520}


def member_page(browser, demo, path: str = "", project: str | None = None, **options):
    """The member's page of the demo project (or of `project`) at `path`."""
    context = browser.new_context(**{"viewport": LAPTOP, **options})
    context.add_cookies(
        [
            {
                "name": "__session",
                "value": session_start(membership=demo["membership"]),
                "url": demo["url"],
            }
        ]
    )
    page = context.new_page()
    errors = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(f"{demo['url']}/projects/{project or demo['project']}/{path}")
    return context, page, errors


def project_page(browser, demo, **options):
    context, page, errors = member_page(browser, demo, **options)
    expect(page.locator(".graph-stage g.node").first).to_be_visible()
    return context, page, errors


def shown_ids(page) -> set[str]:
    ids = page.locator(".graph-stage g.node").evaluate_all(
        "nodes => nodes.map(n => n.getAttribute('data-entity-id'))"
    )
    return set(ids)


def settled(page) -> None:
    """The graph asked for is drawn: nothing loading, no error (a focus on what the moment
    shown does not hold draws an empty graph and says so)."""
    expect(page.locator("[data-status]")).to_have_text(
        re.compile(r"^$|is not in the project at this moment")
    )


def share_token(demo) -> str:
    return post(demo["client"], f"/v1/projects/{demo['project']}/public-share-token").json()[
        "token"
    ]


def test_download_svg_and_copy_mermaid_give_the_graph_as_shown(browser, demo):
    context, page, errors = project_page(
        browser, demo, accept_downloads=True, permissions=["clipboard-read", "clipboard-write"]
    )
    everything = shown_ids(page)
    page.select_option("[data-group-filter]", "category--fulfilment")
    expect(page.locator("[data-focus-name]")).to_have_text("fulfilment")
    page.select_option("[data-depth-select]", "0")
    settled(page)
    expect(page.locator(".graph-stage g.node")).not_to_have_count(len(everything))
    focused = shown_ids(page)
    assert focused < everything

    with page.expect_download() as download:
        page.locator("[data-download]").click()
    svg = open(download.value.path(), encoding="utf-8").read()
    assert set(re.findall(r'data-entity-id="([^"]+)"', svg)) == focused

    page.locator("[data-copy-mermaid]").click()
    expect(page.locator("[data-copy-mermaid]")).to_have_text("Copied")
    mermaid = page.evaluate("navigator.clipboard.readText()")
    defined = set(re.findall(r"^\s*([a-z]+__[a-z0-9_-]+)[\[(]", mermaid, re.MULTILINE))
    assert defined == {entity.replace("--", "__") for entity in focused}

    # back in time with the focus kept: the download is of that moment too
    slider = page.locator("[data-timeline]")
    slider.fill("3")
    slider.dispatch_event("change")
    expect(page.locator("[data-timeline-label]")).not_to_have_text("now")
    settled(page)
    then = shown_ids(page)
    with page.expect_download() as download:
        page.locator("[data-download]").click()
    svg = open(download.value.path(), encoding="utf-8").read()
    assert set(re.findall(r'data-entity-id="([^"]+)"', svg)) == then
    assert "As of" in svg

    # a text Mermaid would refuse (over its default 500 arrows) is copied, and said to be
    big = "flowchart LR\n" + "".join(f"    service__a --> messaging__t{i}\n" for i in range(501))
    page.route("**/graph/mermaid*", lambda route: route.fulfill(status=200, body=big))
    page.locator("[data-copy-mermaid]").click()
    copy = page.locator("[data-copy-mermaid]")
    expect(copy).to_have_text("Copied: over Mermaid's limits")
    expect(copy).to_have_attribute("title", re.compile(r"at most 50,000 characters and 500 arrows"))
    assert page.evaluate("navigator.clipboard.readText()") == big
    expect(copy).to_have_text("Copy Mermaid", timeout=6000)
    page.unroute("**/graph/mermaid*")

    # a failed fetch is not "Copied"
    page.route("**/graph/mermaid*", lambda route: route.fulfill(status=503, body="down"))
    page.locator("[data-copy-mermaid]").click()
    expect(page.locator("[data-copy-mermaid]")).to_have_text("Copy failed")
    assert errors == []
    context.close()


def test_depth_is_off_until_something_is_focused(browser, demo):
    context, page, errors = project_page(browser, demo)
    depth = page.locator("[data-depth-select]")
    expect(depth).to_be_disabled()
    assert "focus" in depth.get_attribute("title")
    assert "focus" in page.locator("[data-depth-label]").get_attribute("title")
    # a disabled control shows no tooltip: the hint over the graph says what Depth is for
    expect(page.locator("#viewer-hint")).to_contain_text(
        "focus on it (Depth sets how far around it)"
    )
    page.locator('g.node[data-entity-id="service--checkout"]').dispatch_event("click")
    expect(page.locator("[data-focus-name]")).to_have_text("Checkout")
    expect(depth).to_be_enabled()
    around = page.locator(".graph-stage g.node").count()
    depth.select_option("2")
    expect(page.locator(".graph-stage g.node")).not_to_have_count(around)  # it works
    page.locator("[data-clear-focus]").click()
    expect(page.locator("[data-focus-name]")).to_have_text("whole project")
    expect(depth).to_be_disabled()
    assert errors == []
    context.close()


def test_the_focus_names_its_kind_and_its_boxes_stand_out(browser, demo):
    context, page, errors = project_page(browser, demo)
    menu = page.locator("[data-group-filter]")
    # "fulfilment" is both a category and a flow: the menu groups them, the focus says which
    assert menu.locator("optgroup[label=Category] option[value='category--fulfilment']").count()
    assert menu.locator("optgroup[label=Flow] option[value='flow--fulfilment']").count()
    kind = page.locator("[data-focus-kind]")
    expect(kind).to_be_hidden()
    menu.select_option("category--fulfilment")
    expect(page.locator("[data-focus-name]")).to_have_text("fulfilment")
    expect(kind).to_have_text("category")
    expect(page.locator(".focus-label")).to_contain_text("category fulfilment")
    menu.select_option("flow--fulfilment")
    expect(kind).to_have_text("flow")
    expect(page.locator(".focus-label")).to_contain_text("flow fulfilment")

    # a service focused: its box is drawn heavier than its neighbours'
    page.locator('g.node[data-entity-id="service--checkout"]').dispatch_event("click")
    expect(kind).to_have_text("service")
    settled(page)
    focused = page.locator(".graph-stage g.node.focused")
    expect(focused).to_have_count(1)
    assert focused.get_attribute("data-entity-id") == "service--checkout"
    width = "rect => parseFloat(getComputedStyle(rect).strokeWidth)"
    neighbour = page.locator(".graph-stage g.node:not(.focused) rect").first
    assert focused.locator("rect").evaluate(width) >= 2 * neighbour.evaluate(width)
    page.locator("[data-clear-focus]").click()
    expect(page.locator(".graph-stage g.node.focused")).to_have_count(0)
    assert errors == []
    context.close()


# whether the part of the label that is not its time (the change it names: "Pricing
# updated") lies within its box
CHANGE_SEEN = r"""label => {
    const text = label.firstChild, all = label.textContent;
    const time = / · \d{4}-\d\d-\d\d \d\d:\d\d$|^\d{4}-\d\d-\d\d \d\d:\d\d · /.exec(all);
    const range = document.createRange();
    range.setStart(text, time.index === 0 ? time[0].length : 0);
    range.setEnd(text, time.index === 0 ? all.length : time.index);
    return range.getBoundingClientRect().right <= label.getBoundingClientRect().right + 0.5;
}"""


def test_time_travel_keeps_its_row_still_and_explains_the_outlines(browser, demo):
    context, page, errors = project_page(browser, demo)
    tools = page.locator("[data-project-tools]")
    expect(tools.get_by_text("Time travel", exact=True)).to_be_visible()
    expect(page.get_by_role("slider", name="Time travel")).to_be_visible()
    expect(tools.get_by_text("History", exact=True)).to_have_count(0)  # that is the change log
    slider = page.locator("[data-timeline]")
    label = page.locator("[data-timeline-label]")
    copy = page.locator("[data-copy-mermaid]")
    stage = page.locator(".graph-stage")

    def where():
        return (stage.bounding_box()["y"], copy.bounding_box()["y"], label.bounding_box())

    at_rest = where()
    # Copy Mermaid shares the slider's row at a laptop's width
    assert abs(copy.bounding_box()["y"] - slider.bounding_box()["y"]) < 20
    longest = ""
    for index in range(int(slider.get_attribute("max")) + 1):
        # dragging: the label previews each change under the thumb
        slider.evaluate(
            "(s, v) => { s.value = v; s.dispatchEvent(new Event('input', {bubbles: true})); }",
            str(index),
        )
        assert where() == at_rest
        text = label.text_content()
        assert label.get_attribute("title") == text  # the whole text, however it is cut
        longest = max(longest, text, key=len)
        # at a laptop's width the change it names is seen whole, the time (in As of too)
        # cut if need be: it used to read "2026-11-10 08:15 · Pri…"
        if " · " in text:
            assert label.evaluate(CHANGE_SEEN), text
    assert len(longest) > 40

    # past changes are outlined, and a note says what the outline means; only in the past
    legend = page.locator("[data-changed-legend]")
    expect(legend).to_be_hidden()
    slider.fill(str(int(slider.get_attribute("max")) - 2))
    slider.dispatch_event("change")
    expect(legend).to_be_visible()
    expect(legend).to_have_text("outlined: changed since")
    settled(page)
    expect(page.locator(".graph-stage g.node.changed-since")).not_to_have_count(0)
    assert stage.bounding_box()["y"] == at_rest[0]
    expect(label).to_contain_text(" · ")  # beside the legend, the change is still seen whole
    assert label.evaluate(CHANGE_SEEN), label.text_content()
    page.locator("[data-now]").click()
    expect(label).to_have_text("now")
    expect(legend).to_be_hidden()
    assert errors == []
    context.close()


def test_the_embed_on_a_phone_opens_readable_and_has_zoom_buttons(browser, demo):
    token = share_token(demo)
    context = browser.new_context(viewport=PHONE_EMBED)
    page = context.new_page()
    errors = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(f"{demo['url']}/share/{token}/embed/")
    node = page.locator('.graph-stage g.node[data-entity-id="service--cart"] rect')
    expect(node).to_be_visible()
    opened = node.bounding_box()
    assert opened["height"] >= 15  # a box one can read, not a speck in a strip
    zoom_in, zoom_out, fit = (
        page.get_by_role("button", name=n) for n in ("Zoom in", "Zoom out", "Fit")
    )
    for button in (zoom_in, zoom_out, fit):
        expect(button).to_be_visible()
    zoom_in.click()
    assert node.bounding_box()["height"] > 1.3 * opened["height"]
    zoom_out.click()
    zoom_out.click()
    assert node.bounding_box()["height"] < 0.9 * opened["height"]
    fit.click()
    fitted = page.locator(".graph-stage g.node").evaluate_all(
        "nodes => nodes.filter(n => { const b = n.getBoundingClientRect();"
        " return b.left >= 0 && b.right <= innerWidth + 1; }).length"
    )
    assert fitted == page.locator(".graph-stage g.node").count()  # Fit shows them all
    # the way out to the full view is not under the zoom buttons
    link = page.get_by_role("link", name=re.compile("Open full view"))
    box = link.bounding_box()
    hit = page.evaluate(
        "([x, y]) => !!document.elementFromPoint(x, y).closest('a.open-full')",
        [box["x"] + box["width"] / 2, box["y"] + box["height"] / 2],
    )
    assert hit
    assert errors == []
    context.close()


def shaded_edges(page) -> str:
    """The sides of the graph's frame shaded as cut off: "l", "r", "t", "b" in that order."""
    return page.locator("[data-edges]").evaluate(
        "e => ['l', 'r', 't', 'b'].filter(side =>"
        " getComputedStyle(e).getPropertyValue('--' + side).trim() === '1').join('')"
    )


def test_a_cut_off_side_of_the_graph_is_shaded_until_it_is_in_view(browser, demo):
    """Opened readable on a phone, the embed shows a part of the drawing (its busiest): the
    sides past which it goes on are shaded (there is more to drag in). Panned to the end,
    the right is not; Fit shows everything and shades nothing."""
    token = share_token(demo)
    context = browser.new_context(viewport=PHONE_EMBED)
    page = context.new_page()
    page.goto(f"{demo['url']}/share/{token}/embed/")
    expect(page.locator(".graph-stage g.node").first).to_be_visible()
    # (it opened on the flow's start, its left, until the opening view went to the drawing's
    # busiest part: the drawings are folded into rows, and their left is no start of anything)
    assert "r" in shaded_edges(page)
    shade = page.locator("[data-edges]").evaluate("e => getComputedStyle(e).backgroundImage")
    assert "rgba(28, 35, 48, 0.16)" in shade  # drawn, not only flagged
    stage = page.locator("[data-stage]")
    stage.focus()
    for _ in range(60):
        stage.press("ArrowRight")
    assert "l" in shaded_edges(page) and "r" not in shaded_edges(page)
    page.get_by_role("button", name="Fit").click()
    assert shaded_edges(page) == ""
    context.close()
    # on the project page, fitted, nothing is shaded
    context, page, _ = project_page(browser, demo)
    page.get_by_role("button", name="Fit").click()
    assert shaded_edges(page) == ""
    page.get_by_role("button", name="Zoom in").click()
    assert shaded_edges(page).startswith("lr")  # zoomed into the middle: more either side
    context.close()


def test_a_dead_embed_is_a_bare_404_panel_and_no_page_invents_a_history(browser, demo):
    token = share_token(demo)
    assert (
        demo["client"].delete(f"/v1/projects/{demo['project']}/public-share-token").status_code
        == 204
    )
    context = browser.new_context(viewport=PHONE_EMBED)
    page = context.new_page()
    response = page.goto(f"{demo['url']}/share/{token}/embed/")
    assert response.status == 404
    expect(page.locator("h1")).to_have_text("Not available")
    expect(page.locator("body")).to_contain_text("This link does not work")
    for chrome in ("Sign up", "Log in"):
        expect(page.get_by_text(chrome)).to_have_count(0)
    assert page.locator("header, nav, a").count() == 0  # nothing of this site to click
    # a token that never was: neither page says it was replaced or revoked
    made_up = "1b4e28ba-2fa1-41d2-883f-0016d3cca427"
    for path in (f"/share/{made_up}/", f"/share/{made_up}/embed/"):
        response = page.goto(f"{demo['url']}{path}")
        assert response.status == 404
        body = page.locator("body")
        expect(body).to_contain_text("This link does not work (it may have been replaced")
        expect(body).not_to_contain_text("revoked")
    context.close()


def test_the_project_page_shows_its_description_and_details_name_the_project(browser, demo):
    context, page, errors = project_page(browser, demo)
    expect(page.locator(".project-description")).to_have_text(
        "An e-commerce system: orders, payments, stock, shipping and returns."
    )
    # the graph is announced as a graph, with its name
    stage = page.get_by_role("group", name="Architecture graph")
    expect(stage).to_be_visible()
    assert stage.get_attribute("aria-roledescription") == "interactive graph"
    renamed = put(
        demo["client"],
        f"/v1/projects/{demo['project']}",
        {"name": "Tom & <b>Jerry</b>", "description": ""},
    )
    assert renamed.status_code == 200, renamed.content
    page.goto(f"{demo['url']}/projects/{demo['project']}/")
    expect(page.locator(".project-description")).to_have_count(0)  # none: no empty line
    page.goto(f"{demo['url']}/projects/{demo['project']}/details/")
    expect(page.locator("h1")).to_have_text("Name and description of “Tom & <b>Jerry</b>”")
    expect(page.locator("h1 b")).to_have_count(0)
    assert errors == []
    context.close()


def test_the_address_keeps_the_view_so_a_reload_or_a_link_opens_it(browser, demo):
    """Focus, depth and moment were lost on a reload, and could not be sent to anyone."""
    context, page, errors = project_page(browser, demo)
    everything = shown_ids(page)
    page.select_option("[data-group-filter]", "category--fulfilment")
    page.select_option("[data-depth-select]", "0")
    slider = page.locator("[data-timeline]")
    slider.fill(str(int(slider.get_attribute("max")) - 1))  # after the second newest change
    slider.dispatch_event("change")
    settled(page)
    expect(page).to_have_url(re.compile(r"focus=category--fulfilment&depth=0&at=\d{4}-"))
    label = page.locator("[data-timeline-label]").text_content()
    focused = shown_ids(page)
    assert focused and focused != everything
    address = page.url

    page.reload()
    settled(page)
    expect(page.locator("[data-focus-name]")).to_have_text("fulfilment")
    expect(page.locator("[data-timeline-label]")).to_have_text(label)
    assert page.locator("[data-depth-select]").input_value() == "0"
    assert shown_ids(page) == focused
    assert page.url == address

    # a colleague opening the link sees the same; back to the whole project now, the
    # address is plain again
    other, opened, _ = member_page(browser, demo, address.split(f"/{demo['project']}/", 1)[1])
    expect(opened.locator("[data-focus-name]")).to_have_text("fulfilment")
    settled(opened)
    assert shown_ids(opened) == focused
    opened.locator("[data-clear-focus]").click()
    opened.locator("[data-now]").click()
    settled(opened)
    expect(opened).to_have_url(re.compile(rf"/projects/{demo['project']}/$"))
    # what the address cannot mean is left out
    opened.goto(f"{demo['url']}/projects/{demo['project']}/?focus=<b>&depth=9&at=yesterday")
    settled(opened)
    assert shown_ids(opened) == everything
    assert errors == []
    other.close()
    context.close()


def test_full_screen_gives_a_big_graph_the_whole_screen_and_esc_gives_it_back(browser, demo):
    context, page, errors = project_page(browser, demo)
    stage = page.locator(".graph-stage")
    in_page = stage.bounding_box()["height"]
    button = page.get_by_role("button", name="Full screen")
    expect(button).to_be_visible()
    button.click()
    # one name, "Full screen", pressed or not (a toggle that also renamed itself was heard
    # as "Leave full screen, pressed")
    expect(button).to_have_attribute("aria-pressed", "true")
    assert page.evaluate("document.fullscreenElement.hasAttribute('data-graph-viewer')")
    # the graph takes the screen's height less the toolbar, opening whole or, too wide for
    # that, readable at its start
    assert stage.bounding_box()["height"] > in_page
    svg = page.locator(".graph-stage svg")
    opened = svg.get_attribute("viewBox")
    # the toolbar still works there
    page.get_by_role("button", name="Zoom in").click()
    expect(svg).not_to_have_attribute("viewBox", opened)
    button.click()
    expect(page.get_by_role("button", name="Full screen")).to_have_attribute(
        "aria-pressed", "false"
    )
    assert page.evaluate("document.fullscreenElement") is None
    assert abs(stage.bounding_box()["height"] - in_page) < 2
    assert errors == []
    context.close()


def test_a_focus_on_a_slug_with_an_underscore_survives_a_reload(browser, demo):
    """Slugs keep underscores ("order_service"); the address check refused them."""
    made = post(
        demo["client"],
        f"/v1/projects/{demo['project']}/services",
        {"name": "order_service", "consumes": [{"name": "orders.placed"}]},
    )
    assert made.status_code == 200 and made.json()["slug"] == "order_service"
    context, page, errors = member_page(browser, demo, "?focus=service--order_service&depth=0")
    expect(page.locator("[data-focus-name]")).to_have_text("order_service")
    settled(page)
    assert shown_ids(page) == {"service--order_service"}
    assert "focus=service--order_service" in page.url
    assert errors == []
    context.close()


def test_the_tables_and_the_count_follow_the_moment_the_graph_shows(browser, demo):
    # 30 days ago Legacy Mailer (deleted 14 days ago) was there, and Search Indexer was
    # still called Search Worker (renamed 26 days ago)
    then = (timezone.now() - timedelta(days=30)).strftime("%Y-%m-%dT%H:%M:%SZ")
    context, page, errors = member_page(browser, demo, f"?at={then}")
    expect(page.locator(".graph-stage g.node").first).to_be_visible()
    services = page.locator('[data-rows="services"]')
    topics = page.locator('[data-rows="topics"]')
    heading = page.get_by_role("heading", name=re.compile("^Services"))
    expect(heading).to_have_text(f"Services as of {then[:10]} {then[11:16]} UTC")
    expect(page.get_by_role("heading", name=re.compile("^Topics"))).to_have_text(
        f"Topics as of {then[:10]} {then[11:16]} UTC"
    )
    expect(page.locator("[data-service-count]")).to_have_text("21 services then")
    mailer = services.locator("tr", has=page.get_by_role("button", name="Legacy Mailer"))
    expect(mailer).to_have_count(1)
    expect(mailer.get_by_role("link")).to_have_count(0)  # no editor: it is gone now
    expect(mailer.locator(".tag")).to_have_text(["refunds.issued"])
    expect(services.get_by_role("button", name="Search Worker")).to_have_count(1)
    expect(services.get_by_role("button", name="Search Indexer")).to_have_count(0)
    checkout = services.locator("tr", has=page.get_by_role("button", name="Checkout"))
    expect(checkout.get_by_role("link", name="Edit Checkout")).to_have_attribute(
        "href",
        re.compile(re.escape(f"/projects/{demo['project']}/services/checkout/edit/") + r"\?next="),
    )
    # the services changed since are marked, as the graph outlines them
    for name in ("Legacy Mailer", "Search Worker", "Loyalty"):
        row = services.locator("tr", has=page.get_by_role("button", name=name))
        expect(row.locator(".changed-swatch")).to_be_visible()
        expect(row.locator("td").first).to_contain_text("(changed since)")
    expect(checkout.locator(".changed-swatch")).to_have_count(0)
    refunds = topics.locator("tr", has=page.get_by_role("button", name="refunds.issued"))
    expect(refunds.locator("td").nth(2)).to_contain_text("Legacy Mailer")
    expect(page.locator("[data-now-note]")).to_be_hidden()

    # a name in the past table focuses the graph on it, at that moment
    services.get_by_role("button", name="Legacy Mailer").click()
    focused = page.locator(".graph-stage g.node.focused")
    expect(focused).to_have_attribute("data-entity-id", "service--legacy-mailer")

    # back to now: the tables and count as the project is now; the focus on a service
    # deleted since says why the graph is empty
    page.locator("[data-now]").click()
    expect(page.locator("[data-timeline-label]")).to_have_text("now")
    expect(page.locator("[data-status]")).to_have_text(
        "Legacy Mailer is not in the project at this moment: show all to see what is."
    )
    expect(heading).to_have_text("Services")
    expect(page.locator("[data-service-count]")).to_have_text("20 services")
    expect(services.get_by_role("button", name="Legacy Mailer")).to_have_count(0)
    expect(services.get_by_role("button", name="Search Indexer")).to_have_count(1)
    page.locator("[data-clear-focus]").click()
    expect(page.locator("[data-status]")).to_have_text("")
    expect(page.locator("[data-entity-lists]")).not_to_have_attribute("aria-busy", "true")

    # when the moment's entities cannot be read, the tables stay as they were and say so
    page.route("**/entities?*", lambda route: route.abort())
    slider = page.locator("[data-timeline]")
    slider.fill("1")
    slider.dispatch_event("change")
    note = page.locator("[data-now-note]")
    expect(note).to_be_visible()
    expect(note).to_contain_text("could not be read for it")
    expect(heading).to_have_text("Services")
    expect(page.locator("[data-service-count]")).to_have_text("20 services")
    expect(services.get_by_role("button", name="Legacy Mailer")).to_have_count(0)
    # and back at now the note goes
    page.locator("[data-now]").click()
    expect(page.locator("[data-timeline-label]")).to_have_text("now")
    expect(note).to_be_hidden()
    assert errors == []
    context.close()


def test_a_moment_served_with_the_page_keeps_its_rows_and_says_what_a_failed_reading_left(
    browser, demo
):
    """The rows of a past moment asked for come with the page (the script reads nothing for
    them). When the entities of another moment cannot be read, the rows listed stay, and the
    count and the note say of which moment they are: after Now's failed reading left the
    count of now, a second failure said the count was of the moment listed, and it was not."""
    then = (timezone.now() - timedelta(days=30)).strftime("%Y-%m-%dT%H:%M:%SZ")
    context, page, errors = member_page(browser, demo)
    read = []
    page.on("request", lambda request: "/entities" in request.url and read.append(request.url))
    page.goto(f"{demo['url']}/projects/{demo['project']}/?at={then}")
    settled(page)
    count = page.locator("[data-service-count]")
    heading = page.get_by_role("heading", name=re.compile("^Services"))
    services = page.locator('[data-rows="services"]')
    expect(count).to_have_text("21 services then")
    expect(heading).to_have_text(f"Services as of {then[:10]} {then[11:16]} UTC")
    slider = page.locator("[data-timeline]")
    served = slider.input_value()
    assert int(served) < int(slider.get_attribute("max"))  # not "now"
    expect(page.locator("[data-timeline-label]")).not_to_have_text("now")
    page.wait_for_timeout(300)
    assert read == []  # the page's rows are the moment's
    # and back to it from now, they are listed again as they came, not read anew
    page.locator("[data-now]").click()
    expect(heading).to_have_text("Services")
    page.go_back()
    expect(heading).to_have_text(f"Services as of {then[:10]} {then[11:16]} UTC")
    expect(count).to_have_text("21 services then")
    settled(page)
    page.wait_for_timeout(300)
    assert [url for url in read if "at=" in url] == []
    mailer = services.locator("tr", has=page.get_by_role("button", name="Legacy Mailer"))
    expect(mailer.locator(".changed-swatch")).to_be_visible()

    page.route("**/entities*", lambda route: route.abort())
    page.locator("[data-now]").click()
    note = page.locator("[data-now-note]")
    expect(note).to_have_text(
        "The graph shows the project now; the tables below could not be read for it and "
        f"still list the project as of {then[:10]} {then[11:16]} UTC."
    )
    expect(count).to_have_text("20 services")  # the page knows the count of now
    expect(services.get_by_role("button", name="Legacy Mailer")).to_have_count(1)
    # Show all, opened in a tab of its own or copied, is to the view shown now
    href = page.locator('[data-more="services"] [data-show-all]').evaluate(
        "link => { link.dispatchEvent(new PointerEvent('pointerdown'));"
        " return link.getAttribute('href'); }"
    )
    assert "at=" not in href and "rows=all" in href and href.endswith("#services-heading")

    slider.fill(str(int(served) - 1))
    slider.dispatch_event("change")
    expect(note).to_have_text(
        "The graph shows an earlier moment; the tables below and the count above could not "
        f"be read for it and still list the project as of {then[:10]} {then[11:16]} UTC."
    )
    expect(count).to_have_text("21 services then")  # the count of the moment listed
    expect(heading).to_have_text(f"Services as of {then[:10]} {then[11:16]} UTC")
    assert errors == []
    context.close()


SLOW_ENTITIES = """
const plain = window.fetch;
window.fetch = (url, options) => String(url).includes("/entities")
  ? new Promise(resolve => setTimeout(resolve, 1500)).then(() => plain(url, options))
  : plain(url, options);
"""


def test_the_tables_follow_the_last_moment_asked_not_the_last_answer(browser, demo):
    context, page, errors = member_page(browser, demo)
    page.evaluate(SLOW_ENTITIES)
    settled(page)
    heading = page.get_by_role("heading", name=re.compile("^Services"))
    count = page.locator("[data-service-count]")
    slider = page.locator("[data-timeline]")
    label = page.locator("[data-timeline-label]")
    # a past moment, then Now before its reading arrives: the tables stay at now
    slider.fill("3")
    slider.dispatch_event("change")
    expect(label).not_to_have_text("now")
    expect(page.locator("[data-entity-lists]")).to_have_attribute("aria-busy", "true")
    page.locator("[data-now]").click()
    expect(label).to_have_text("now")
    page.wait_for_timeout(3500)  # both readings have arrived by now
    expect(heading).to_have_text("Services")
    expect(count).to_have_text("20 services")
    # moment A shown, B asked, A again before B arrives: the tables show A
    slider.fill("5")
    slider.dispatch_event("change")
    expect(count).to_have_text(re.compile("then$"), timeout=10_000)
    shown_a = heading.text_content()
    count_a = count.text_content()
    slider.fill("26")
    slider.dispatch_event("change")
    page.wait_for_timeout(300)
    slider.fill("5")
    slider.dispatch_event("change")
    page.wait_for_timeout(3500)
    expect(heading).to_have_text(shown_a)
    expect(count).to_have_text(count_a)
    assert errors == []
    context.close()


def test_a_past_row_edits_the_same_service_under_its_name_now(browser, demo):
    # Search Worker was renamed Search Indexer 26 days ago; a new service now takes the
    # old name (and slug)
    made = post(
        demo["client"],
        f"/v1/projects/{demo['project']}/services",
        {"name": "Search Worker", "consumes": [{"name": "catalog.updated"}]},
    )
    assert made.status_code == 200, made.content
    then = (timezone.now() - timedelta(days=30)).strftime("%Y-%m-%dT%H:%M:%SZ")
    context, page, errors = member_page(browser, demo, f"?at={then}")
    services = page.locator('[data-rows="services"]')
    old = services.locator("tr", has=page.get_by_role("button", name="Search Worker"))
    expect(old).to_have_count(1)
    expect(old.get_by_role("link", name="Edit Search Worker")).to_have_attribute(
        "href",
        re.compile(
            re.escape(f"/projects/{demo['project']}/services/search-indexer/edit/") + r"\?next="
        ),
    )
    mailer = services.locator("tr", has=page.get_by_role("button", name="Legacy Mailer"))
    expect(mailer.get_by_role("link")).to_have_count(0)  # deleted since: nothing to edit
    assert errors == []
    context.close()


def test_a_long_focus_name_keeps_the_graph_controls_on_one_row(browser, demo):
    context, page, errors = project_page(browser, demo)
    long_name = "domain-042.customer-account.shipped.v3"
    page.evaluate(
        """name => document.dispatchEvent(new CustomEvent("archsvc:focus",
            {detail: {id: "messaging--shipments-dispatched", name: name}}))""",
        long_name,
    )
    name = page.locator("[data-focus-name]")
    expect(name).to_have_text(long_name)
    expect(name).to_have_attribute("title", long_name)  # whole, however it is cut
    settled(page)
    middles = [
        (lambda box: box["y"] + box["height"] / 2)(page.locator(selector).bounding_box())
        for selector in (".focus-label", "[data-depth-select]", "[data-at]", "[data-now]")
    ]
    assert max(middles) - min(middles) < 12  # Now used to fall onto a second row at 1280
    # the zoom buttons and Full screen sit in the graph's frame, not on the toolbar
    frame = page.locator(".graph-frame").bounding_box()
    for button in ("Zoom in", "Zoom out", "Fit"):
        box = page.get_by_role("button", name=button).bounding_box()
        assert frame["y"] < box["y"] and box["y"] + box["height"] < frame["y"] + frame["height"]
    # nothing covers the graph's own controls
    for control in ("Zoom in", "Zoom out", "Fit", "Full screen"):
        box = page.get_by_role("button", name=control).bounding_box()
        hit = page.evaluate(
            "([x, y]) => { const b = document.elementFromPoint(x, y).closest('button');"
            " return b && (b.getAttribute('aria-label') || b.textContent); }",
            [box["x"] + box["width"] / 2, box["y"] + box["height"] / 2],
        )
        assert hit == control
    # on a phone the focus takes a row of its own and nothing leaves the screen
    page.set_viewport_size({"width": 390, "height": 800})
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    assert name.bounding_box()["width"] > 120
    assert errors == []
    context.close()


def test_the_show_menu_shows_a_focus_chosen_in_the_tables_whole_and_keeps_its_row(browser, demo):
    """A topic focused from the Topics table is the Show menu's choice: it read "orders.placed
    (topi" in a menu of 11.5 rem, with half the row empty beside it at a laptop's width."""
    context, page, errors = project_page(browser, demo)
    menu = page.locator("[data-group-filter]")
    tools = page.locator("[data-project-tools]")
    stage = page.locator(".graph-stage")

    def placed():  # the row's height, and where the graph starts on the page
        return tools.bounding_box()["height"], stage.evaluate(
            "stage => stage.getBoundingClientRect().top + window.scrollY"
        )

    at_rest = placed()
    page.locator('[data-entity-lists] [data-focus-id="messaging--orders-placed"]').first.click()
    expect(menu).to_have_value("messaging--orders-placed")
    settled(page)
    text, room = menu.evaluate(
        """menu => { const style = getComputedStyle(menu), text = menu.selectedOptions[0].text;
            const measure = document.createElement("canvas").getContext("2d");
            measure.font = style.font;
            return [text, menu.clientWidth - parseFloat(style.paddingLeft)
                    - parseFloat(style.paddingRight) - 16 - measure.measureText(text).width]; }"""
    )
    assert text == "orders.placed (topic)"
    assert room >= 0, room  # the text and the menu's arrow fit
    assert placed() == at_rest

    # a name longer than the row has room for is cut at its end, and moves nothing
    long_name = "customer-notification.preferences.updated.v2.of.the.customer-account"
    page.evaluate(
        """name => document.dispatchEvent(new CustomEvent("archsvc:focus",
            {detail: {id: "messaging--shipments-dispatched", name: name}}))""",
        long_name,
    )
    expect(menu).to_have_value("messaging--shipments-dispatched")
    settled(page)
    assert placed() == at_rest
    apart = page.evaluate(  # at once: the page may still be scrolling the graph into view
        """() => ["[data-timeline]", "[data-copy-mermaid]"].map(other =>
            document.querySelector(other).getBoundingClientRect().top
            - document.querySelector("[data-group-filter]").getBoundingClientRect().top)"""
    )
    assert all(abs(gap) < 20 for gap in apart), apart  # Time travel and Copy share its row
    page.set_viewport_size({"width": 390, "height": 800})
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    assert menu.bounding_box()["x"] + menu.bounding_box()["width"] <= 390
    assert errors == []
    context.close()


def test_the_show_menu_lists_the_groups_of_the_moment_shown(browser, demo):
    made = post(
        demo["client"],
        f"/v1/projects/{demo['project']}/services",
        {"name": "Gift Cards", "category": "giftcards", "flows": ["gifting"]},
    )
    assert made.status_code == 200, made.content
    then = (timezone.now() - timedelta(days=30)).strftime("%Y-%m-%dT%H:%M:%SZ")
    context, page, errors = member_page(browser, demo, f"?at={then}")
    expect(page.locator("[data-service-count]")).to_have_text("21 services then")
    menu = page.locator("[data-group-filter]")
    expect(menu.locator('option[value="category--giftcards"]')).to_have_count(0)
    expect(menu.locator('option[value="flow--gifting"]')).to_have_count(0)
    expect(menu.locator('option[value="category--fulfilment"]')).to_have_text(
        "fulfilment (category)"
    )
    # a group of that moment still focuses the graph
    menu.select_option("category--fulfilment")
    expect(page.locator("[data-focus-name]")).to_have_text("fulfilment")
    settled(page)
    # back to now: the groups of now, the focus kept and named
    page.locator("[data-now]").click()
    expect(page.locator("[data-service-count]")).to_have_text("21 services")
    expect(menu.locator('option[value="category--giftcards"]')).to_have_text("giftcards (category)")
    expect(menu).to_have_value("category--fulfilment")
    assert errors == []
    context.close()


def changes(demo, slug: str, n: int) -> None:
    """`n` updates of one service's description, as its member would make them (written
    directly: through the API they would meet the write rate limit)."""
    from accounts.actors import actor_for_membership
    from diagrams.service_writes import service_update

    actor = actor_for_membership(demo["membership"])
    for number in range(n):
        service_update(
            actor=actor,
            project_id=demo["project"],
            slug=slug,
            data={"description": f"Revision {number}"},
        )


def history_events(demo) -> list[dict]:
    events, number = [], 0
    while True:
        body = (
            demo["client"]
            .get(f"/v1/projects/{demo['project']}/history?size=100&page={number}")
            .json()
        )
        events += body["data"]
        if body["last"]:
            return events
        number += 1


def test_a_moment_older_than_the_newest_100_changes_is_marked_as_one_inside_them(browser, demo):
    # 120 changes to Checkout today push what happened 14 to 26 days ago (Legacy Mailer
    # deleted, Search Worker renamed Search Indexer, Loyalty changed) out of the newest 100
    # changes the page comes with
    changes(demo, "checkout", 120)
    history = history_events(demo)
    total = len(history)
    assert total > 120  # the demo's own changes and these
    then = (timezone.now() - timedelta(days=30)).strftime("%Y-%m-%dT%H:%M:%SZ")
    context, page, errors = member_page(browser, demo, f"?at={then}")
    expect(page.locator(".graph-stage g.node").first).to_be_visible()
    services = page.locator('[data-rows="services"]')
    expect(page.locator("[data-service-count]")).to_have_text("21 services then")
    for name in ("Legacy Mailer", "Search Worker", "Loyalty", "Checkout"):
        row = services.locator("tr", has=page.get_by_role("button", name=name))
        expect(row.locator(".changed-swatch")).to_be_visible()
    gateway = services.locator("tr", has=page.get_by_role("button", name="Payment Gateway"))
    expect(gateway).to_have_count(1)
    expect(gateway.locator(".changed-swatch")).to_have_count(0)
    # the graph outlines the same services, under the slugs they had then
    for slug in ("legacy-mailer", "search-worker", "loyalty", "checkout"):
        node = page.locator(f'.graph-stage g.node[data-entity-id="service--{slug}"]')
        expect(node).to_have_class(re.compile(r"\bchanged-since\b"))
    legend = page.locator("[data-changed-legend]")
    expect(legend).to_be_visible()
    expect(legend).to_have_text("outlined: changed since")
    # the row of a service renamed since edits it under its name now
    worker = services.locator("tr", has=page.get_by_role("button", name="Search Worker"))
    expect(worker.get_by_role("link", name="Edit Search Worker")).to_have_attribute(
        "href",
        re.compile(
            re.escape(f"/projects/{demo['project']}/services/search-indexer/edit/") + r"\?next="
        ),
    )
    # the slider reaches back over what was read, and stands at the moment shown
    slider = page.locator("[data-timeline]")
    expect(slider).to_have_attribute("max", str(total - 1))
    last_then = next(e for e in history if e["at"] <= then)  # the state shown is the one it left
    label = page.locator("[data-timeline-label]")
    expect(label).to_have_text(
        f"{last_then['serviceName']} {last_then['action']} · "
        f"{last_then['at'][:10]} {last_then['at'][11:16]}"
    )
    assert 0 < int(slider.input_value()) < total
    assert errors == []
    context.close()

    # from now, the slider's left end reads what came before it
    context, page, errors = member_page(browser, demo)
    settled(page)
    slider = page.locator("[data-timeline]")
    expect(slider).to_have_attribute("max", "99")  # 100 changes: the last is now
    slider.fill("0")
    slider.dispatch_event("change")
    expect(slider).to_have_attribute("max", str(total - 1))
    expect(slider).to_have_value(str(total - 100))  # the same moment, further right
    assert errors == []
    context.close()

    # a history that cannot be read leaves the graph's outlines of what is known, and says
    # so; the tables came marked in full from the server, which knows every change; read
    # again at the next redraw, the outlines are in full too
    context, page, errors = member_page(browser, demo)
    settled(page)
    refused = []

    def refuse_once(route):
        if refused:
            route.continue_()
        else:
            refused.append(route.request.url)
            route.fulfill(status=500, body="")

    page.route("**/history?*", refuse_once)
    page.goto(f"{demo['url']}/projects/{demo['project']}/?at={then}")
    expect(page.locator("[data-service-count]")).to_have_text("21 services then")
    legend = page.locator("[data-changed-legend]")
    expect(legend).to_have_text("outlined: changed since (of the newest 100 changes)")
    # the slider's left end is the newest change read: the label names the moment instead
    expect(page.locator("[data-timeline-label]")).to_have_text(f"as of {then[:10]} {then[11:16]}")
    services = page.locator('[data-rows="services"]')
    mailer = services.locator("tr", has=page.get_by_role("button", name="Legacy Mailer"))
    checkout = services.locator("tr", has=page.get_by_role("button", name="Checkout"))
    expect(checkout.locator(".changed-swatch")).to_be_visible()
    expect(mailer.locator(".changed-swatch")).to_be_visible()
    node = page.locator('.graph-stage g.node[data-entity-id="service--legacy-mailer"]')
    expect(node).not_to_have_class(re.compile(r"\bchanged-since\b"))
    page.select_option("[data-group-filter]", "category--fulfilment")
    settled(page)
    expect(legend).to_have_text("outlined: changed since")
    expect(mailer.locator(".changed-swatch")).to_be_visible()
    worker = services.locator("tr", has=page.get_by_role("button", name="Search Worker"))
    expect(worker.get_by_role("link", name="Edit Search Worker")).to_be_visible()
    assert errors == []
    context.close()


def test_changes_made_after_the_page_came_stay_out_of_the_sliders_older_end(browser, demo):
    """More than a page of changes made while the page is open: reading further back, the
    page brought them back at the slider's old end (positions out of time order, labels
    and drawings apart)."""
    changes(demo, "checkout", 120)
    total = len(history_events(demo))
    oldest = history_events(demo)[-1]
    context, page, errors = member_page(browser, demo)
    settled(page)
    changes(demo, "payment-gateway", 130)  # while the page is open
    slider = page.locator("[data-timeline]")
    expect(slider).to_have_attribute("max", "99")
    slider.fill("0")
    slider.dispatch_event("change")
    expect(slider).to_have_attribute("max", str(total - 1))  # the changes of before, only
    expect(slider).to_have_value(str(total - 100))
    slider.fill("0")  # the left end: the project's first change, not one made since
    slider.dispatch_event("input")
    expect(page.locator("[data-timeline-label]")).to_have_text(
        f"{oldest['serviceName']} {oldest['action']} · {oldest['at'][:10]} {oldest['at'][11:16]}"
    )
    assert errors == []
    context.close()


def test_a_service_only_updated_since_an_old_moment_keeps_its_edit_link(browser, demo):
    # Payment Gateway changed 150 times, then the moment, then Loyalty changed once and
    # Checkout 120 times: at the moment, Loyalty's last change is far behind the newest
    # 100, and its later change is all the page reads of it
    changes(demo, "payment-gateway", 150)
    then = timezone.now().strftime("%Y-%m-%dT%H:%M:%S.%fZ")
    changes(demo, "loyalty", 1)
    changes(demo, "checkout", 120)
    context, page, errors = member_page(browser, demo, f"?at={then}")
    services = page.locator('[data-rows="services"]')
    expect(page.locator("[data-service-count]")).to_have_text("20 services then")
    for name, slug in (("Loyalty", "loyalty"), ("Checkout", "checkout")):
        row = services.locator("tr", has=page.get_by_role("button", name=name))
        expect(row.locator(".changed-swatch")).to_be_visible()
        expect(row.get_by_role("link", name=f"Edit {name}")).to_have_attribute(
            "href",
            re.compile(
                re.escape(f"/projects/{demo['project']}/services/{slug}/edit/") + r"\?next="
            ),
        )
    gateway = services.locator("tr", has=page.get_by_role("button", name="Payment Gateway"))
    expect(gateway).to_have_count(1)
    expect(gateway.locator(".changed-swatch")).to_have_count(0)
    expect(page.locator("[data-changed-legend]")).to_have_text("outlined: changed since")
    assert errors == []
    context.close()


def test_older_changes_read_during_a_drag_leave_the_thumb_where_it_is(browser, demo):
    changes(demo, "checkout", 120)
    history = history_events(demo)
    total = len(history)
    context, page, errors = member_page(browser, demo)
    settled(page)
    held = []
    page.route("**/history?*", lambda route: held.append(route))
    slider = page.locator("[data-timeline]")
    label = page.locator("[data-timeline-label]")
    # the left end asks for the page before it, which is held back
    slider.fill("0")
    slider.dispatch_event("change")
    settled(page)
    for _ in range(50):  # the request for it is on its way
        if held:
            break
        page.wait_for_timeout(100)
    assert held
    # a drag to the middle; the page arrives while the thumb is held
    box = slider.bounding_box()
    y = box["y"] + box["height"] / 2
    page.mouse.move(box["x"] + 4, y)
    page.mouse.down()
    page.mouse.move(box["x"] + box["width"] * 0.5, y, steps=5)
    value = int(slider.input_value())
    assert 20 < value < 80
    under_thumb = history[100 - 1 - value]
    # to the minute, and finer where a neighbouring change is in the same minute (these 120
    # are made within a second or so)
    preview = re.compile(
        re.escape(
            f"{under_thumb['serviceName']} {under_thumb['action']} · "
            f"{under_thumb['at'][:10]} {under_thumb['at'][11:16]}"
        )
        + r"(:\d\d(\.\d+)?)?$"
    )
    expect(label).to_have_text(preview)
    for route in held:
        route.continue_()
    page.wait_for_timeout(500)
    expect(slider).to_have_attribute("max", "99")  # 100 changes: the last is now
    expect(slider).to_have_value(str(value))
    expect(label).to_have_text(preview)
    # released: the change under the thumb is shown, and then the slider takes in the page
    page.mouse.up()
    settled(page)
    expect(slider).to_have_attribute("max", str(total - 1))
    expect(slider).to_have_value(str(value + total - 100))
    expect(label).to_have_text(preview)
    assert errors == []
    context.close()


def test_a_moment_left_before_its_history_is_read_reads_no_further(browser, demo):
    changes(demo, "checkout", 220)  # three pages of history; the moment lies in the last
    then = (timezone.now() - timedelta(days=30)).strftime("%Y-%m-%dT%H:%M:%SZ")
    context, page, errors = member_page(browser, demo)
    settled(page)
    held, asked = [], []
    page.on(
        "request", lambda request: asked.append(request.url) if "/history" in request.url else None
    )
    page.route("**/history?*", lambda route: held.append(route))
    page.evaluate(
        "at => document.dispatchEvent(new CustomEvent('archsvc:at', {detail: {at}}))", then
    )
    for _ in range(50):
        if held:
            break
        page.wait_for_timeout(100)
    assert len(held) == 1
    page.locator("[data-now]").click()
    expect(page.locator("[data-timeline-label]")).to_have_text("now")
    for route in held:
        route.continue_()
    page.wait_for_timeout(1000)
    assert len(asked) == 1, asked  # the second page was never asked for
    expect(page.locator("[data-timeline]")).to_have_value(
        page.locator("[data-timeline]").get_attribute("max")
    )
    assert errors == []
    context.close()


def test_a_moment_typed_into_as_of_keeps_a_four_digit_year(browser, demo):
    """Typed field by field (month, day, year, hour...), the year stops at four digits and
    the hour goes to the hour: without a max the year took "202612" and the graph said
    the moment was not a date-time."""
    context, page, errors = project_page(browser, demo, locale="en-US")
    field = page.get_by_label("As of (UTC): show the project at this time")
    field.focus()
    for part in ("07", "01", "2026", "12", "30", "45", "P"):
        page.keyboard.type(part)
    expect(field).to_have_value("2026-07-01T12:30:45")
    expect(page.get_by_text("must be an ISO 8601 date-time")).to_have_count(0)
    assert errors == []
    context.close()


def test_a_focus_the_moment_does_not_hold_is_named_as_the_project_names_it(browser, demo):
    """A link's focus, shown at a moment before that service existed: the page says its
    name ("Analytics Pipeline"), not its address's slug."""
    created = next(
        event["at"]
        for event in history_events(demo)
        if event["serviceSlug"] == "analytics-pipeline" and event["action"] == "created"
    )
    before = (datetime.fromisoformat(created) - timedelta(hours=1)).strftime("%Y-%m-%dT%H:%M:%SZ")
    context, page, errors = member_page(
        browser, demo, f"?focus=service--analytics-pipeline&at={before}"
    )
    expect(
        page.get_by_text("Analytics Pipeline is not in the project at this moment")
    ).to_be_visible()
    expect(page.get_by_text("analytics-pipeline", exact=False)).to_have_count(0)
    shown = page.get_by_label("Show: focus on a category, owner or flow")
    expect(shown.locator("option[data-shown-focus]")).to_have_text("Analytics Pipeline (service)")
    assert errors == []
    context.close()


def test_on_a_phone_the_moment_is_said_whole_and_the_zoom_buttons_cover_no_graph(browser, demo):
    """Side by side with the legend, the slider's label was cut ("2026-07-17 10:00 ·…"),
    and the zoom buttons over a phone's small graph hid its boxes."""
    context, page, errors = project_page(browser, demo, viewport={"width": 390, "height": 844})
    slider = page.locator("[data-timeline]")
    slider.fill("20")
    slider.dispatch_event("change")
    label = page.locator("[data-timeline-label]")
    expect(page.locator("[data-changed-legend]")).to_be_visible()
    expect(label).to_contain_text(" · ")
    assert label.evaluate("e => e.scrollWidth <= e.clientWidth")
    stage = page.locator(".graph-stage").bounding_box()
    for name in ("Zoom in", "Zoom out", "Fit"):
        box = page.get_by_role("button", name=name, exact=True).bounding_box()
        assert box["y"] >= stage["y"] + stage["height"], name  # under the graph
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    assert errors == []
    context.close()


def test_a_tall_graph_opens_on_boxes_not_on_empty_space(browser, demo):
    """A graph readable only in part opens on its busiest part: a chain whose end fans out
    into a tall column opens on boxes, not on blank canvas (a 3,000-service project opened
    on a phone showed no box at all). (It opened at the left, where the chain starts, until
    the opening went to where the most boxes are: the fan.)"""
    from accounts.actors import actor_for_membership
    from diagrams.project_writes import project_create
    from diagrams.service_writes import service_create

    actor = actor_for_membership(demo["membership"])
    project = project_create(actor=actor, name="Tall fan", description="")
    for index in range(6):
        consumes = [{"name": f"k{index}"}] if index else []
        service_create(
            actor=actor,
            project_id=project.id,
            data={
                "name": f"K{index}",
                "consumes": consumes,
                "produces": [{"name": f"k{index + 1}"}],
            },
        )
    for index in range(60):
        service_create(
            actor=actor,
            project_id=project.id,
            data={"name": f"F{index:02d}", "consumes": [{"name": "k6"}]},
        )
    viewport = {"width": 390, "height": 800}
    context, page, _ = member_page(browser, demo, project=project.id, viewport=viewport)
    expect(page.locator(".graph-stage g.node").first).to_be_attached()
    in_view = page.evaluate(
        """() => {
          const svg = document.querySelector('.graph-stage svg');
          const [x, y, w, h] = svg.getAttribute('viewBox').split(/[ ,]+/).map(Number);
          return [...svg.querySelectorAll('g.node > rect')].filter((r) => {
            const rx = +r.getAttribute('x'), ry = +r.getAttribute('y');
            return rx < x + w && rx + +r.getAttribute('width') > x &&
                   ry < y + h && ry + +r.getAttribute('height') > y;
          }).map((r) => r.parentNode.getAttribute('data-entity-id'));
        }"""
    )
    assert len(in_view) >= 10, in_view
    assert sum(id.startswith("service--f") for id in in_view) >= 8, in_view  # the fan
    context.close()


# The boxes whose rectangle is in the part of the frame on screen (the window's), as drawn.
BOXES_ON_SCREEN = """() => {
  const stage = document.querySelector('.graph-stage').getBoundingClientRect();
  const top = Math.max(stage.top, 0), bottom = Math.min(stage.bottom, window.innerHeight);
  const left = Math.max(stage.left, 0), right = Math.min(stage.right, window.innerWidth);
  return [...document.querySelectorAll('.graph-stage g.node > rect')].filter((r) => {
    const b = r.getBoundingClientRect();
    return b.top >= top && b.bottom <= bottom && b.left >= left && b.right <= right;
  }).length;
}"""


BOXES_IN_FRAME = BOXES_ON_SCREEN.replace("window.innerHeight", "1e9")


def test_a_big_graph_opens_on_its_boxes_in_the_part_of_the_frame_on_screen(browser, demo):
    """A graph readable only in part opens at its left, centred where the left's boxes are
    thickest and in the part of the frame the window shows. A 200-service project on a
    1440x900 desktop had opened on the frame's middle, under the window's edge, on 17 boxes
    below two-thirds of blank canvas."""
    from accounts.actors import actor_for_membership
    from diagrams.project_writes import project_create
    from diagrams.service_writes import service_create

    actor = actor_for_membership(demo["membership"])
    project = project_create(actor=actor, name="Wide and tall", description="")
    # a few producers at the left, each feeding a column of consumers: the left's boxes
    # are in a few places of a tall graph, its middle holds one
    for chain in range(4):
        service_create(
            actor=actor,
            project_id=project.id,
            data={"name": f"Source {chain}", "produces": [{"name": f"feed.{chain}"}]},
        )
        for index in range(12 if chain != 1 else 30):
            service_create(
                actor=actor,
                project_id=project.id,
                data={
                    "name": f"Reader {chain}-{index:02d}",
                    "consumes": [{"name": f"feed.{chain}"}],
                    "produces": [{"name": f"out.{chain}.{index:02d}"}],
                },
            )
    viewport = {"width": 1440, "height": 900}
    context, page, _ = member_page(browser, demo, project=project.id, viewport=viewport)
    expect(page.locator(".graph-stage g.node").first).to_be_attached()
    settled(page)
    stage = page.locator(".graph-stage").bounding_box()
    assert stage["y"] + stage["height"] > 900  # the frame goes on under the window's edge
    on_screen, in_frame = page.evaluate(BOXES_ON_SCREEN), page.evaluate(BOXES_IN_FRAME)
    # where the readers' columns are (the old opening, the graph's middle height, showed
    # 44 boxes at 1.6 units a pixel and 70 here; at today's 1.25 a view holds 0.6 of that)
    assert on_screen >= 50, (on_screen, in_frame)
    assert on_screen >= 0.9 * in_frame  # not under the window's edge
    context.close()


def test_download_after_the_session_ended_says_so_and_saves_no_error_as_the_svg(browser, demo):
    """The download went ahead whatever the answer: with the session ended, the API's 401
    body was saved as the project's .svg."""
    context, page, _ = member_page(browser, demo, accept_downloads=True)
    expect(page.locator(".graph-stage g.node").first).to_be_visible()
    context.clear_cookies()
    downloads = []
    page.on("download", lambda saved: downloads.append(saved))
    page.locator("[data-download]").click()
    expect(page.locator("[data-status]")).to_have_text(
        "Your session ended: log in again to download the graph."
    )
    assert downloads == []
    context.close()


def test_a_refused_pin_says_why_and_stays_on_the_list(browser, demo):
    """A star refused for a spent write budget posted the form instead, which met the same
    budget and left the list for a page saying so."""
    context, page, errors = member_page(browser, demo)
    page.goto(f"{demo['url']}/")
    page.route(
        "**/v1/pinned",
        lambda route: route.fulfill(
            status=429,
            headers={"Retry-After": "7", "Content-Type": "application/json"},
            body='{"status":429,"code":"rate_limited","message":"slow down","retryAfter":7}',
        ),
    )
    star = page.locator("form[data-pin] button").first
    expect(star).to_have_attribute("aria-pressed", "false")
    star.click()
    expect(page.get_by_role("status")).to_have_text(
        "Too many changes for now: nothing was pinned or unpinned. Try again in 7 seconds."
    )
    expect(star).to_have_attribute("aria-pressed", "false")
    assert page.url == f"{demo['url']}/"
    assert errors == []
    context.close()
