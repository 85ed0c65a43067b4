"""The projects list in the browser's terms (server-rendered pages): search, filters,
paging, pin, create, archive, duplicate and delete with a confirmation naming the project."""

import re
from html import unescape
from urllib.parse import quote

import pytest

from diagrams.models import Pin, Project, PublicShareToken


@pytest.fixture
def member(factory, org):
    return factory.member(org, role="admin", email="ada@example.com")


@pytest.fixture
def browser(factory, member):
    return factory.member_client(member, enforce_csrf=False)


def create(client, name, description=""):
    return client.post("/", {"name": name, "description": description})


def test_list_search_and_create(browser, settings):
    settings.PLANS = {**settings.PLANS, "free": {"max_projects": 50, "ai_credits": 50}}
    response = create(browser, "Checkout platform", "Orders and payments")
    project = Project.objects.get(name="Checkout platform")
    assert response.status_code == 302 and response["Location"] == f"/projects/{project.id}/"
    create(browser, "Data lake")
    page = browser.get("/").content.decode()
    assert "Checkout platform" in page and "Data lake" in page and "2 of 50" in page
    page = browser.get("/?q=CHECK").content.decode()
    assert "Checkout platform" in page and "Data lake" not in page


def test_the_projects_folder_of_an_address_is_the_projects_list(browser):
    """/projects/ (a project's address cut back, or typed) was a 404."""
    response = browser.get("/projects/?q=data")
    assert response.status_code == 302 and response["Location"] == "/?q=data"
    assert browser.get("/projects/", follow=True).status_code == 200


def test_bad_names_and_the_plan_limit_are_explained_and_kept(browser):
    response = create(browser, "ab", "kept description")
    assert response.status_code == 400
    assert "3 to 60 characters" in response.content.decode()
    assert 'value="kept description"' in response.content.decode()
    for name in ("One", "Two", "Three"):
        create(browser, name)
    # at the limit the form says so before anything is typed, and its button is off
    html = browser.get("/").content.decode()
    assert "All 3 projects of your plan are in use" in html
    assert re.search(r'<button type="submit" class="button" disabled[^>]*>Create project', html)
    assert '<fieldset class="bare" disabled>' in html  # nothing to type into in vain
    # nor a duplicate to make: pressed, Duplicate says why where it was pressed (it was off,
    # its reason in a tooltip, which a phone does not show), and makes nothing
    duplicates = re.findall(
        r'<button type="submit" class="link" aria-label="Duplicate [^"]*"([^>]*)>', html
    )
    assert duplicates == [' aria-describedby="limit-note"'] * 3
    three = Project.objects.get(name="Three")
    pressed = browser.post(f"/projects/{three.id}/duplicate/", {"next": "/?q=t"}, follow=True)
    assert pressed.redirect_chain == [("/?q=t", 302)]
    assert (
        '<div data-action-result class="alert" role="alert">“Three” was not duplicated: all 3 '
        "projects of your plan are in use (archived ones count too). Delete a project you no "
        'longer need, or <a href="/settings/billing/">see the plans</a>.</div>'
    ) in pressed.content.decode()
    assert Project.objects.count() == 3
    response = create(browser, "Four")  # a form posted anyway is refused as before
    assert response.status_code == 400 and "allows 3 projects" in response.content.decode()
    assert Project.objects.count() == 3
    Project.objects.filter(name="Three").delete()
    html = browser.get("/").content.decode()
    assert "projects of your plan are in use" not in html and " disabled" not in html


def test_pin_archive_and_filters(browser, member):
    create(browser, "Alpha")
    create(browser, "Beta")
    alpha, beta = Project.objects.get(name="Alpha"), Project.objects.get(name="Beta")
    browser.post(f"/projects/{alpha.id}/pin/", {"next": "/"})
    assert Pin.objects.filter(project=alpha).count() == 1
    assert "Beta" not in browser.get("/?pinned=yes").content.decode()
    archived = browser.post(f"/projects/{alpha.id}/archive/", {"next": "/"}, follow=True)
    assert "“Alpha” is archived" in archived.content.decode()  # said once, where it vanished
    assert "Alpha" not in browser.get("/").content.decode()  # archived are hidden by default
    assert "Alpha" in browser.get("/?archived=yes").content.decode()
    # its own page says so, and offers the way back
    page = browser.get(f"/projects/{alpha.id}/").content.decode()
    assert "This project is archived" in page
    assert f'action="/projects/{alpha.id}/unarchive/"' in page
    assert "This project is archived" not in browser.get(f"/projects/{beta.id}/").content.decode()
    # unarchived from the archived ones, where it vanishes: said where it went, with the way
    back = browser.post(f"/projects/{alpha.id}/unarchive/", {"next": "/?archived=yes"}, follow=True)
    assert '“Alpha” is unarchived: it is back in the <a href="/">projects list</a>.' in (
        back.content.decode()
    )
    assert "This project is archived" not in browser.get(f"/projects/{alpha.id}/").content.decode()
    browser.post(f"/projects/{alpha.id}/unpin/", {"next": "/"})
    assert not Pin.objects.filter(project=alpha).exists()
    assert "Alpha" in browser.get("/").content.decode()


def test_paging(browser, settings):
    settings.PLANS = {**settings.PLANS, "free": {"max_projects": 50, "ai_credits": 50}}
    for i in range(23):
        create(browser, f"Project {i:02d}")
    first = browser.get("/").content.decode()
    # pinned projects come first, so a next page may hold newer ones: not "Older"
    assert "Page 1 of 2" in first and ">Next →</a>" in first and "Older" not in first
    second = browser.get("/?page=2").content.decode()
    assert second.count('class="project-row') == 3
    # counted from 1, as the Services and History pages count
    assert "Page 2 of 2" in second and 'href="?q=&amp;pinned=&amp;archived=no&amp;page=1"' in second
    assert browser.get("/?page=1").content.decode().count('class="project-row') == 20


def test_duplicate_and_delete_with_confirmation(browser):
    create(browser, "Source")
    source = Project.objects.get(name="Source")
    response = browser.post(f"/projects/{source.id}/duplicate/")
    # the copy is told apart from its source in the list, and says what it is
    copy = Project.objects.exclude(pk=source.pk).get()
    assert copy.name == "Source (copy)"
    assert response["Location"] == f"/projects/{copy.id}/"
    assert "This is a copy of “Source”" in browser.get(response["Location"]).content.decode()
    page = browser.get(f"/projects/{copy.id}/delete/").content.decode()
    assert "Delete “Source (copy)”?" in page
    assert browser.post(f"/projects/{copy.id}/delete/", {"confirm_name": "nope"}).status_code == 400
    assert Project.objects.filter(pk=copy.pk).exists()
    deleted = browser.post(
        f"/projects/{copy.id}/delete/", {"confirm_name": "Source (copy)"}, follow=True
    )
    assert not Project.objects.filter(pk=copy.pk).exists()
    assert "“Source (copy)” and its history are deleted" in deleted.content.decode()


def test_a_long_name_still_fits_once_copied(browser):
    create(browser, "N" * 60)
    source = Project.objects.get()
    browser.post(f"/projects/{source.id}/duplicate/")
    copy = Project.objects.exclude(pk=source.pk).get()
    # one word: cut where it must, and said to be cut
    assert copy.name == "N" * 52 + "… (copy)" and len(copy.name) == 60


@pytest.mark.parametrize(
    "name, copied",
    [
        ("Payments", "Payments (copy)"),
        ("A" * 53, "A" * 53 + " (copy)"),  # 60 exactly
        (
            "Customer Notification Preferences And Delivery Scheduler XYZ",
            "Customer Notification Preferences And Delivery… (copy)",
        ),
        ("Platform - Payments - Europe - West - Settlement - Ledger", None),
    ],
)
def test_a_copys_name_is_cut_after_a_whole_word(name, copied):
    from diagrams.project_views import copy_name

    said = copy_name(name)
    assert len(said) <= 60
    if copied:
        assert said == copied
    else:  # separators are not left dangling before the ellipsis
        assert said.endswith("Settlement… (copy)")


def test_rename_and_describe_a_project(browser):
    create(browser, "Old name")
    project = Project.objects.get()
    page = browser.get(f"/projects/{project.id}/").content.decode()
    assert f"/projects/{project.id}/details/" in page
    response = browser.post(
        f"/projects/{project.id}/details/", {"name": "x", "description": "kept"}
    )
    assert response.status_code == 400
    body = response.content.decode()
    assert "name has 3 to 60 characters." in body and 'value="kept"' in body
    assert Project.objects.get().name == "Old name"
    response = browser.post(
        f"/projects/{project.id}/details/",
        {"name": "New name", "description": "What it is"},
        follow=True,
    )
    project.refresh_from_db()
    assert (project.name, project.description) == ("New name", "What it is")
    assert response.redirect_chain[-1][0] == f"/projects/{project.id}/"  # same address
    assert "Saved." in response.content.decode()


def test_a_new_organization_is_welcomed_not_told_nothing_matches(browser):
    page = browser.get("/").content.decode()
    assert "No projects yet" in page and "No projects match" not in page
    # nothing to search or filter yet: the form to create the first is next, not filters
    assert 'role="search"' not in page and 'name="pinned"' not in page
    assert page.index("No projects yet") < page.index("New project")
    create(browser, "Alpha")
    assert 'role="search"' in browser.get("/").content.decode()
    page = browser.get("/?q=zzz").content.decode()
    assert "No projects match these filters" in page and "No projects yet" not in page
    assert 'role="search"' in page
    alpha = Project.objects.get(name="Alpha")
    browser.post(f"/projects/{alpha.id}/archive/", {"next": "/"}, follow=True)
    page = browser.get("/").content.decode()
    assert "Every project of this organization is archived" in page
    assert "No projects yet" not in page
    page = browser.get("/?page=8").content.decode()
    assert "There is no page 8" in page and "archived" not in page.split("There is no page")[1][:80]


def test_a_login_redirect_keeps_the_whole_address(db):
    from django.test import Client

    response = Client().get("/?q=shop&archived=all")
    assert response.status_code == 302
    assert response["Location"] == "/accounts/login/?next=%2F%3Fq%3Dshop%26archived%3Dall"


def test_members_cannot_change_others_projects_and_other_orgs_are_404(factory, org, browser):
    create(browser, "Admins project")
    project = Project.objects.get()
    member = factory.member_client(factory.member(org, role="member"), enforce_csrf=False)
    response = member.post(f"/projects/{project.id}/archive/", {"next": "/"})
    assert response.status_code == 403
    assert not Project.objects.get().archived
    # the member is not offered what would be refused: no archive or delete in the list,
    # and the delete and rename pages say no before anything is typed
    listing = member.get("/").content.decode()
    assert "Admins project" in listing and "Duplicate Admins project" in listing
    assert "Archive Admins project" not in listing and "Delete Admins project" not in listing
    for path in ("delete", "details"):
        refused = member.get(f"/projects/{project.id}/{path}/")
        assert refused.status_code == 403 and "Only an admin" in refused.content.decode()
    assert (
        f"/projects/{project.id}/details/"
        not in member.get(f"/projects/{project.id}/").content.decode()
    )
    assert "Archive Admins project" in browser.get("/").content.decode()  # the admin is
    stranger = factory.member_client(
        factory.member(factory.org("other"), role="admin"), enforce_csrf=False
    )
    assert stranger.post(f"/projects/{project.id}/pin/").status_code == 404
    assert stranger.get(f"/projects/{project.id}/delete/").status_code == 404
    assert stranger.get(f"/projects/{project.id}/").status_code == 404
    assert "Admins project" not in stranger.get("/").content.decode()


def test_login_required(db):
    from django.test import Client

    response = Client().get("/")
    assert response.status_code == 302 and response["Location"].startswith("/accounts/login/")


def test_the_assistant_panel_speaks_of_this_project_and_shows_the_credits(browser):
    from diagrams.tests.helpers import new_service

    create(browser, "Empty one")
    project = Project.objects.get()
    page = browser.get(f"/projects/{project.id}/").content.decode()
    assert "data-chat" not in page  # a new project: nothing to ask about yet
    new_service(browser, project.id, {"name": "Ledger", "produces": [{"name": "ledger.posted"}]})
    new_service(browser, project.id, {"name": "Audit", "consumes": [{"name": "ledger.posted"}]})
    page = browser.get(f"/projects/{project.id}/").content.decode()
    assert "“who consumes ledger.posted?”" in page and "50 credits left" in page
    assert "“what breaks if Audit fails?”" in page or "“what breaks if Ledger fails?”" in page


def test_a_new_project_says_what_to_do_first_and_shows_no_tools_yet(browser):
    create(browser, "Fresh start")
    project = Project.objects.get(name="Fresh start")
    html = browser.get(f"/projects/{project.id}/").content.decode()
    assert "No services yet" in html
    assert f'href="/projects/{project.id}/services/new/">Add the first service</a>' in html
    assert f"/v1/projects/{project.id}/services" in html  # the same from a script
    # nothing to draw, ask about or travel through yet
    for tool in ("data-graph-viewer", "data-chat", "data-timeline", "data-project-tools"):
        assert tool not in html
    post = browser.post(
        f"/v1/projects/{project.id}/services", {"name": "Checkout"}, content_type="application/json"
    )
    assert post.status_code == 200
    html = browser.get(f"/projects/{project.id}/").content.decode()
    assert "No services yet" not in html and "data-graph-viewer" in html and "data-chat" in html
    # a project whose services were all deleted has a history to travel through: the tools stay
    assert browser.delete(f"/v1/projects/{project.id}/services/checkout").status_code == 204
    html = browser.get(f"/projects/{project.id}/").content.decode()
    assert "Add the first service" not in html and "data-timeline" in html


def test_a_missing_page_of_a_project_leads_back_to_it_and_tells_nothing_of_others(browser, factory):
    create(browser, "Shop")
    project = Project.objects.get(name="Shop")
    response = browser.get(f"/projects/{project.id}/services/no-such-service/edit/")
    assert response.status_code == 404
    html = response.content.decode()
    assert f'<a href="/projects/{project.id}/">Back to Shop</a>' in html and "Go home" in html
    # someone of another organization gets the plain page, with nothing of the project
    stranger = factory.member_client(factory.member(factory.org("other")))
    html = stranger.get(f"/projects/{project.id}/services/no-such-service/edit/").content.decode()
    assert "Back to" not in html and "Shop" not in html


def test_logging_in_from_a_link_to_a_view_opens_that_view(factory, member, browser):
    """A colleague's link to a focus or a past moment, opened logged out, leads there once
    logged in, not to the project as it is now."""
    from django.test import Client

    create(browser, "Alpha")
    alpha = Project.objects.get(name="Alpha")
    view = f"/projects/{alpha.id}/?focus=service--checkout&depth=2&at=2026-01-01T00:00:00Z"
    for path in (view, f"/projects/{alpha.id}/share/?x=1", "/settings/api-keys/?y=2"):
        response = Client().get(path)
        assert response.status_code == 302
        login = response["Location"]
        anonymous = Client()
        anonymous.get(login)
        answer = anonymous.post(
            login, {"email": "ada@example.com", "password": "correct-horse-battery"}
        )
        assert answer.status_code == 302 and answer["Location"] == path, (path, login)


def test_the_share_page_after_creating_a_link_reloads_as_itself(browser):
    """A reload or Back after Create share link asks for the page again (forms.js,
    data-reload-as-get); sending the form again would replace the link just copied."""
    create(browser, "Alpha")
    alpha = Project.objects.get(name="Alpha")
    made = browser.post(f"/projects/{alpha.id}/share/", {"action": "rotate"}).content.decode()
    assert "data-reload-as-get" in made and "/share/" in made
    assert "data-reload-as-get" not in browser.get(f"/projects/{alpha.id}/share/").content.decode()


def test_pinned_projects_come_first_on_the_page_not_in_the_api(factory, org, member, browser):
    """Pinning moved nothing: the pinned project stayed where its last update put it."""
    for name in ("Alpha", "Beta", "Gamma"):
        create(browser, name)
    alpha = Project.objects.get(name="Alpha")  # the least recently updated
    browser.post(f"/projects/{alpha.id}/pin/", {"next": "/"})
    page = browser.get("/").content.decode()
    order = sorted(("Alpha", "Beta", "Gamma"), key=lambda name: page.index(f">{name}<"))
    assert order == ["Alpha", "Gamma", "Beta"]
    # the API keeps its order (most recently updated first) for every caller
    listed = browser.get("/v1/projects").json()["data"]
    assert [p["name"] for p in listed] == ["Gamma", "Beta", "Alpha"]


@pytest.mark.parametrize(
    "elsewhere", ["//evil.example/", "/\\evil.example/", "https://evil.example/"]
)
def test_an_action_goes_back_only_to_a_page_of_this_site(browser, elsewhere):
    create(browser, "Alpha")
    alpha = Project.objects.get(name="Alpha")
    response = browser.post(f"/projects/{alpha.id}/pin/", {"next": elsewhere})
    assert response.status_code == 302 and response["Location"] == "/"
    back = browser.post(f"/projects/{alpha.id}/unpin/", {"next": "/?archived=all"})
    assert back["Location"] == "/?archived=all"


def test_an_address_asking_for_a_view_gets_that_view_drawn_in_the_page(browser, caplog):
    """The history page's links, a reload and a bookmark name a focus or a moment: the page
    comes with that view drawn, and says which it is, so its script asks for nothing more.
    It used to come empty, for the script to fetch the view (a wait, then the page moved);
    before that it drew the whole project now as well (11 MB for nothing at 3,000 services).
    What the script would not take as a view (a malformed focus) leaves the page as it is:
    drawn now; a moment in another form is read as the API reads it (below). A moment the
    calendar does not hold is left to the script, which shows the API's word for it."""
    import logging

    from diagrams.tests.helpers import new_service

    create(browser, "Viewed")
    project = Project.objects.get()
    new_service(browser, project.id, {"name": "Ledger", "produces": [{"name": "ledger.posted"}]})
    graph = 'aria-label="Architecture of'
    base = f"/projects/{project.id}/"
    for query in ("", "?focus=Ledger", "?focus=x--y"):
        page = browser.get(base + query).content.decode()
        assert graph in page and "data-asked" not in page, query
        assert 'data-focus=""' in page and "data-view-at" not in page, query
    # a moment the API reads goes to its UTC form, one no one reads goes away, said
    # (test_a_moment_in_the_address_is_read_as_the_api_reads_it)
    assert browser.get(base + "?at=2026-01-01T00:00:00")["Location"] == (
        f"{base}?at=2026-01-01T00%3A00%3A00Z"
    )
    assert browser.get(base + "?at=yesterday")["Location"] == base
    for query, drawn, view in (
        (
            "?at=2026-01-01T00:00:00Z",
            "at 2026-01-01T00:00:00.000000Z",
            'data-focus="" data-depth="1" data-view-at="2026-01-01T00:00:00Z"',
        ),
        (
            "?focus=service--ledger&depth=2",
            "1 filtered ids, depth 2",
            'data-focus="service--ledger" data-depth="2" data-asked',
        ),
        (
            "?focus=category--core",
            "1 filtered ids, depth 1",
            'data-focus="category--core" data-depth="1" data-asked',
        ),
        (
            "?at=2026-01-01T00:00:00.123456Z&focus=nonsense&depth=3",
            "at 2026-01-01T00:00:00.123456Z in",
            'data-focus="" data-depth="1" data-view-at="2026-01-01T00:00:00.123456Z"',
        ),
    ):
        with caplog.at_level(logging.INFO, logger="archsvc.render_cache"):
            caplog.clear()
            page = browser.get(base + query).content.decode()
        assert graph in page and "data-asked" in page, query
        assert view in page, query
        rendered = [
            r.getMessage() for r in caplog.records if "render computed: svg" in r.getMessage()
        ]
        assert len(rendered) == 1 and drawn in rendered[0], (query, rendered)
    page = browser.get(base + "?at=2026-13-01T00:00:00Z").content.decode()
    assert graph not in page and "data-asked" in page and "data-view-at" not in page


def test_the_view_drawn_in_the_page_is_named_there_as_the_script_names_it(browser):
    """The toolbar's focus ("category core show all"), the depth on, As of, the count of
    the moment ("1 service then") and the chat's note of a past moment came from the
    scripts alone, and moved under the reader as the page opened (bench/layout_shift.py)."""
    from django.utils import timezone

    from diagrams.tests.helpers import new_service, put

    create(browser, "Named")
    project = Project.objects.get()
    base = f"/projects/{project.id}/"
    new_service(
        browser,
        project.id,
        {"name": "Ledger & Co", "category": "core", "produces": [{"name": "ledger.posted"}]},
    )
    then = timezone.now()
    new_service(browser, project.id, {"name": "Mailer"})
    put(browser, f"/v1/projects/{project.id}/services/mailer", {"name": "Old Mailer"})
    at = then.strftime("%Y-%m-%dT%H:%M:%S.%fZ")

    def toolbar(html):
        label = re.search(r'<span class="focus-label">(.*?)</button></span>', html, re.S)[1]
        return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", label)).strip()

    html = browser.get(base).content.decode()
    assert toolbar(html) == "Focus: whole project show all"  # (show all hidden)
    assert re.search(r"data-clear-focus hidden>", html)
    assert re.search(r"<select data-depth-select[^>]* disabled>", html)
    assert re.search(r"data-chat-past hidden></p>", html)
    assert re.search(r"data-service-count[^>]*>2 services</span>", html)

    html = browser.get(base + "?focus=category--core&depth=2").content.decode()
    assert toolbar(html) == "Focus: category core show all"
    assert not re.search(r"data-clear-focus hidden", html)
    assert not re.search(r"<select data-depth-select[^>]* disabled>", html)
    # the Show menu has the focus chosen: its option, or one of its own after the first
    assert '<option value="category--core" selected data-name="core">' in html
    # a service by its name as drawn, escaped once
    html = browser.get(base + "?focus=service--ledger-co").content.decode()
    assert toolbar(html) == "Focus: service Ledger &amp; Co show all"
    assert re.search(
        r'<option value="">the whole project</option>\s*<option data-shown-focus '
        r'value="service--ledger-co" data-name="Ledger &amp; Co" selected>'
        r"Ledger &amp; Co \(service\)</option><optgroup",
        html,
    )
    assert re.search(r"<select data-group-filter.*?</select>", html, re.S)[0].count("selected") == 1

    # a past moment: one service then, the chat says the graph is of then, As of holds it
    html = browser.get(base + f"?at={at}").content.decode()
    assert re.search(r"data-service-count[^>]*>1 service then</span>", html)
    assert 'data-count-now="2 services"' in html  # back to now, the script says so again
    assert f"The graph shows {at[:16].replace('T', ' ')} UTC; answers are about" in html
    assert re.search(f'<input [^>]*data-at [^>]*value="{at[:19]}">', html)

    # a moment still to come (a hand-edited address): the project now, shown as now, as a
    # moment to come typed into As of is; with a focus, the focus alone
    html = browser.get(base + "?at=2999-01-01T00:00:00Z").content.decode()
    assert re.search(r"data-service-count[^>]*>2 services</span>", html)
    assert re.search(r"data-chat-past hidden></p>", html)
    assert re.search(
        r'<input [^>]*data-at [^>]*"As of \(UTC\): show the project at this time">', html
    )
    assert "data-asked" not in html
    html = browser.get(base + "?at=2999-01-01T00:00:00Z&focus=category--core").content.decode()
    assert toolbar(html) == "Focus: category core show all"
    assert re.search(r"data-service-count[^>]*>2 services</span>", html)
    assert "data-view-at" not in html
    # the first paint waits for the page to be parsed, but for a page of every row
    assert 'rel="expect"' in html and 'id="page-end"' in html
    assert 'rel="expect"' not in browser.get(base + "?rows=all").content.decode()

    # a service deleted since, focused now: named by its last name in the page's history
    assert browser.delete(f"/v1/projects/{project.id}/services/old-mailer").status_code == 204
    html = browser.get(base + "?focus=service--old-mailer").content.decode()
    assert toolbar(html) == "Focus: service Old Mailer show all"
    html = browser.get(base + "?focus=service--mailer").content.decode()  # its first slug
    assert toolbar(html) == "Focus: service Mailer show all"

    # a shared page says its focus too
    token = browser.post(f"/v1/projects/{project.id}/public-share-token").json()["token"]
    html = browser.get(f"/share/{token}/?filteredIds=category--core&depth=1").content.decode()
    assert toolbar(html) == "Focus: category core show all"
    assert '<option value="category--core" selected data-name="core">' in html
    html = browser.get(
        f"/share/{token}/?filteredIds=service--ledger-co,messaging--ledger-posted"
    ).content.decode()
    assert (
        '<option data-shown-focus value="service--ledger-co,messaging--ledger-posted" '
        'data-name="Ledger &amp; Co, ledger.posted" selected>'
        "Ledger &amp; Co, ledger.posted (service)</option>"
    ) in html
    assert toolbar(browser.get(f"/share/{token}/").content.decode()) == (
        "Focus: whole project show all"
    )


def test_a_past_moment_asked_for_comes_with_its_own_rows_marks_and_groups(browser):
    """The tables under a graph of a past moment listed the rows of now until the script had
    read the rows of then (and the columns moved as they came): they come with the page,
    each service's Edit under its slug now (none once deleted), those changed since marked
    as the graph outlines them, the Show menu's groups and the count of then."""
    from django.utils import timezone

    from diagrams.tests.helpers import new_service, put

    create(browser, "Then")
    project = Project.objects.get()
    base = f"/projects/{project.id}/"
    v1 = f"/v1/projects/{project.id}/services"
    new_service(browser, project.id, {"name": "Ledger", "category": "core", "owner": "money"})
    new_service(browser, project.id, {"name": "Mailer", "category": "comms"})
    new_service(browser, project.id, {"name": "Steady", "produces": [{"name": "steady.ticked"}]})
    then = timezone.now()
    put(browser, f"{v1}/mailer", {"name": "Postman", "category": "comms"})
    assert browser.delete(f"{v1}/ledger").status_code == 204
    new_service(browser, project.id, {"name": "Newcomer", "category": "later"})
    at = then.strftime("%Y-%m-%dT%H:%M:%S.%fZ")

    html = browser.get(base + f"?at={at}").content.decode()
    rows = re.search(r'<tbody data-rows="services"[^>]*>(.*?)</tbody>', html, re.S)[1]
    listed = re.findall(r'data-focus-id="service--([^"]+)">([^<]+)</button>', rows)
    assert listed == [("ledger", "Ledger"), ("mailer", "Mailer"), ("steady", "Steady")]
    edits = re.findall(r'<a href="([^"?]+)\?next=[^"]+" aria-label="Edit ([^"]+)">', rows)
    assert edits == [  # Ledger is deleted since: no editor; Mailer's is under its slug now
        (f"/projects/{project.id}/services/postman/edit/", "Mailer"),
        (f"/projects/{project.id}/services/steady/edit/", "Steady"),
    ]
    marked = re.findall(
        r'data-focus-id="service--([^"]+)">[^<]+</button> <span class="changed', rows
    )
    assert marked == ["ledger", "mailer"]  # changed since; Steady was not
    assert re.search(r"data-service-count[^>]*>3 services then</span>", html)
    # to the second or finer, as the changes around it lie in the same minute
    stamps = re.findall(r"<span data-tables-at> as of ([^<]+) UTC</span>", html)
    assert len(stamps) == 2 and stamps[0] == stamps[1]
    assert at.replace("T", " ").startswith(stamps[0]) and len(stamps[0]) >= 19
    assert f'data-rows-at="{at}"' in html
    menu = re.search(r"<select data-group-filter.*?</select>", html, re.S)[0]
    assert "category--core" in menu and "category--later" not in menu  # the groups of then
    assert 'data-name="money"' in menu

    # now: the rows, the Edit links and the groups of now, nothing marked
    html = browser.get(base).content.decode()
    rows = re.search(r'<tbody data-rows="services"[^>]*>(.*?)</tbody>', html, re.S)[1]
    assert re.findall(r'aria-label="Edit ([^"]+)"', rows) == ["Newcomer", "Postman", "Steady"]
    assert "changed-swatch" not in rows and "data-rows-at" not in html
    assert "<span data-tables-at></span>" in html
    assert "category--later" in re.search(r"<select data-group-filter.*?</select>", html, re.S)[0]

    # a moment before the first service: no rows then, said so
    html = browser.get(base + "?at=2001-01-01T00:00:00Z").content.decode()
    assert "No services at that moment." in html and "No topics at that moment." in html
    assert re.search(r"data-service-count[^>]*>0 services then</span>", html)

    # Show all (hidden here: every row is listed) keeps the view asked for
    html = browser.get(base + f"?at={at}&focus=category--core").content.decode()
    show_all = re.search(r'<a href="([^"]+)#services-heading" data-show-all>', html)[1]
    assert (
        show_all.replace("&amp;", "&")
        == f"?at={at.replace(':', '%3A')}&focus=category--core&rows=all"
    )


def test_more_projects_than_the_plan_allows_says_how_many_over_and_that_they_stay(
    browser, settings
):
    # as after a downgrade: five projects made on a larger plan, then the free plan's three
    settings.PLANS = {**settings.PLANS, "free": {"max_projects": 5, "ai_credits": 50}}
    for name in ("One", "Two", "Three", "Four", "Five"):
        assert create(browser, name).status_code == 302
    settings.PLANS = {**settings.PLANS, "free": {"max_projects": 3, "ai_credits": 50}}
    html = browser.get("/").content.decode()
    assert "5 of 3 on your plan · 2 over" in html
    assert "All 3 projects of your plan are in use" not in html  # not "all in use": over
    note = re.search(r'<p class="hint" id="limit-note">(.*?)</p>', html).group(1)
    assert "5 projects, 2 more than your plan's 3" in note
    assert "stay open and editable" in note and "delete 3 you no longer need" in note
    assert re.search(r'<button type="submit" class="button" disabled[^>]*>Create project', html)
    assert browser.get("/settings/billing/").content.decode().count("2 over") == 1
    five = Project.objects.get(name="Five")
    pressed = browser.post(f"/projects/{five.id}/duplicate/", {"next": "/"}, follow=True)
    assert (
        "“Five” was not duplicated: this organization has 5 projects, 2 more than your plan's "
        "3 (archived ones count too). Delete 3 you no longer need, or"
    ) in unescape(pressed.content.decode())
    assert Project.objects.count() == 5


def test_on_the_biggest_plan_the_limit_points_to_no_plan(browser, settings):
    """Over or at the business plan's limit, "see the plans" led to a page with no bigger
    plan (the API's 402 already left it out)."""
    settings.PLANS = {
        name: {**limits, "max_projects": 2 if name == "free" else 1}
        for name, limits in settings.PLANS.items()
    }
    for name in ("One", "Two"):
        assert create(browser, name).status_code == 302
    note = re.search(
        r'<p class="hint" id="limit-note">(.*?)</p>', browser.get("/").content.decode()
    )
    assert "2 projects, 1 more than your plan's 1" not in note[1]  # free: the biggest, at 2
    assert "All 2 projects of your plan are in use" in note[1]
    assert "see the plans" not in note[1] and "delete a project you no longer need." in note[1]
    two = Project.objects.get(name="Two")
    pressed = browser.post(f"/projects/{two.id}/duplicate/", {"next": "/"}, follow=True)
    said = unescape(pressed.content.decode())
    assert "Delete a project you no longer need.</div>" in said and "see the plans" not in said
    settings.PLANS = {
        name: {**limits, "max_projects": 1} for name, limits in settings.PLANS.items()
    }
    note = re.search(
        r'<p class="hint" id="limit-note">(.*?)</p>', browser.get("/").content.decode()
    )
    assert "2 projects, 1 more than your plan's 1" in note[1] and "see the plans" not in note[1]


def test_a_member_at_the_limit_is_told_to_delete_what_they_may(browser, factory, org):
    """A member may delete only the projects they created: "delete a project you no longer
    need" sent them to buttons that refused them."""
    for name in ("One", "Two", "Three"):
        assert create(browser, name).status_code == 302
    plain = factory.member_client(factory.member(org, role="member"), enforce_csrf=False)
    note = re.search(r'<p class="hint" id="limit-note">(.*?)</p>', plain.get("/").content.decode())
    assert "delete a project you created and no longer need (an admin can delete any)" in note[1]
    note = re.search(
        r'<p class="hint" id="limit-note">(.*?)</p>', browser.get("/").content.decode()
    )
    assert "delete a project you no longer need." in note[1]  # an admin's: any
    one = Project.objects.get(name="One")
    pressed = plain.post(f"/projects/{one.id}/duplicate/", {"next": "/"}, follow=True)
    assert "Delete a project you created and no longer need, or" in unescape(
        pressed.content.decode()
    )


@pytest.mark.parametrize(
    "at, others, said",
    [
        ("2026-09-29T13:12:30Z", ["2026-09-29T14:00:00.000001Z"], "2026-09-29 13:12"),
        ("2026-09-29T13:12:30Z", ["2026-09-29T13:12:59Z"], "2026-09-29 13:12:30"),
        ("2026-09-29T13:12:30.25Z", ["2026-09-29T13:12:30.5Z"], "2026-09-29 13:12:30.250"),
        ("2026-09-29T13:12:30.000001Z", ["2026-09-29T13:12:30Z"], "2026-09-29 13:12:30.000001"),
        ("2026-09-29T13:12:30Z", ["2026-09-29T13:12:30.000000Z"], "2026-09-29 13:12"),  # itself
    ],
)
def test_a_moment_is_said_as_the_page_script_says_it(at, others, said):
    """The tables' "as of" the server writes is project-page.js's stamp(): to the minute, or
    finer where a change of the page's timeline lies in the same minute (second...)."""
    from diagrams.views import _stamp

    assert _stamp(at, [{"at": other} for other in others]) == said


def test_time_travel_is_served_at_the_moment_drawn_as_the_script_places_it():
    """positionOf() and labelFor() of project-page.js, for the moment the page is served at."""
    from diagrams.views import _slider

    timeline = [  # newest first, as the page's
        {"at": "2026-09-03T10:00:00Z", "name": "Cart", "action": "updated"},
        {"at": "2026-09-02T10:00:00Z", "name": "Mailer", "action": "deleted"},
        {"at": "2026-09-01T10:00:00Z", "name": "Cart", "action": "created"},
    ]
    assert _slider("2026-09-02T12:00:00Z", timeline, True) == {
        "slider_value": 1,
        "slider_label": "Mailer deleted \u00b7 2026-09-02 10:00",
    }
    assert _slider("2026-09-01T10:00:00Z", timeline, True)["slider_value"] == 0  # at a change
    # before every change in the page: the first of them, or the moment itself when older
    # changes were left out of the page
    assert _slider("2026-08-01T00:00:00Z", timeline, True) == {
        "slider_value": 0,
        "slider_label": "before Cart created \u00b7 2026-09-01 10:00",
    }
    assert _slider("2026-08-01T00:00:00Z", timeline, False)["slider_label"] == (
        "as of 2026-08-01 00:00"
    )


def test_a_past_moments_page_runs_as_many_queries_whatever_the_projects_size(browser):
    """The rows of then, their Edit links and marks: queries that do not grow with the
    project (the first 100 rows' services alone are read for their fate)."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext
    from django.utils import timezone

    from diagrams.tests.helpers import new_service, put

    def queries(size: int) -> int:
        create(browser, f"Size {size}")
        project = Project.objects.order_by("-created_at").first()
        for i in range(size):
            new_service(browser, project.id, {"name": f"Svc {i}", "category": f"c{i % 3}"})
        at = timezone.now().strftime("%Y-%m-%dT%H:%M:%S.%fZ")
        put(browser, f"/v1/projects/{project.id}/services/svc-0", {"name": "Renamed"})
        address = f"/projects/{project.id}/?at={at}"
        browser.get(address)  # the renders and entities of then, cached
        with CaptureQueriesContext(connection) as captured:
            html = browser.get(address).content.decode()
        assert re.search(rf"data-service-count[^>]*>{size} services then</span>", html)
        assert "/services/renamed/edit/" in html
        return len(captured)

    assert queries(3) == queries(30)


def test_a_focus_is_named_as_its_box_is_drawn_not_as_it_is_called_now():
    """At a past moment a box's drawn name (a topic deleted since, a service renamed) is
    what the script reads from its title; the server must say the same, or the toolbar's
    words change under the reader as the page opens."""
    from diagrams.entities import ServiceState
    from diagrams.rendering.graph import project_graph
    from diagrams.rendering.layout import layout_layered
    from diagrams.rendering.svg import graph_origin, svg_document
    from diagrams.views import focus_words

    services = [
        ServiceState(
            slug="old-name",
            name="Old Name",
            produces=({"name": "orders.created"},),
        )
    ]
    graph, _ = project_graph(services)
    svg = svg_document(
        graph, layout_layered(graph, origin=graph_origin()), title="Shop", when="then"
    ).encode()
    now = {"service--old-name": "New Name"}
    assert focus_words("service--old-name", svg, now)["focus_name"] == "Old Name"
    assert focus_words("messaging--orders-created", svg, {})["focus_name"] == "orders.created"
    assert focus_words("service--gone", svg, now)["focus_name"] == "gone"  # not drawn


def test_a_moment_in_the_address_is_read_as_the_api_reads_it(browser):
    """A colleague's `at=...+02:00` (or a date alone) was dropped by the page, which showed
    the present without a word; the API reads both. The page goes to the same moment in
    UTC; one that no one can read goes without it, saying so."""
    page = create(browser, "Shop")["Location"]
    assert page.startswith("/projects/") and page.endswith("/")
    for asked, moment in (
        ("2026-11-03T15:40:00+02:00", "2026-11-03T13:40:00Z"),
        ("2026-11-03T15:40:00 02:00", "2026-11-03T13:40:00Z"),  # the + read as a space
        ("2026-11-03", "2026-11-03T00:00:00Z"),
        ("2026-11-03T13:40:00.5-01:00", "2026-11-03T14:40:00.500000Z"),
    ):
        response = browser.get(page, {"at": asked, "focus": "service--x"})
        assert response.status_code == 302, asked
        assert response["Location"] == f"{page}?at={quote(moment)}&focus=service--x", asked
    # as the page's own script writes it: no detour
    assert browser.get(page, {"at": "2026-11-03T13:40:00Z"}).status_code == 200
    response = browser.get(page, {"at": "garbage", "depth": "2"}, follow=True)
    assert response.redirect_chain == [(f"{page}?depth=2", 302)]
    assert (
        "The moment in the address (“garbage”) could not be read: the project is shown as it "
        "is now." in response.content.decode()
    )


def test_shared_projects_are_marked_in_the_list_and_listed_in_settings(
    browser, factory, org, django_assert_max_num_queries
):
    """An admin auditing what anyone with a link can see had to open every project's Share
    page: the list marks them, and the settings' overview lists them with who shared each."""
    for name in ("Alpha", "Beta"):
        assert create(browser, name).status_code == 302
    alpha, beta = Project.objects.get(name="Alpha"), Project.objects.get(name="Beta")
    other = factory.org("other")
    elsewhere = Project.objects.create(
        id="elsewhere-aaaaaaaa", organization=other, name="Elsewhere"
    )
    PublicShareToken.objects.create(project=elsewhere, created_by="x", created_by_type="MEMBER")
    PublicShareToken.objects.create(project=alpha, created_by="ci", created_by_type="API_KEY")
    with django_assert_max_num_queries(7):
        html = browser.get("/").content.decode()
    rows = {name: html[html.index(f">{name}</a>") :][:400] for name in ("Alpha", "Beta")}
    assert f'href="/projects/{alpha.id}/share/"' in rows["Alpha"] and ">shared</a>" in rows["Alpha"]
    assert ">shared</a>" not in rows["Beta"]
    overview = browser.get("/settings/").content.decode()
    listed = overview[overview.index('id="shared-heading"') :]
    assert ">Alpha</a>" in listed and "(API key)" in listed
    assert "Beta" not in listed and "Elsewhere" not in listed
    assert f'href="/projects/{alpha.id}/share/"' in listed
    PublicShareToken.objects.filter(project=alpha).delete()
    assert (
        "No project of this organization is shared by link."
        in browser.get("/settings/").content.decode()
    )
    assert beta.id not in listed


def test_made_by_me_lists_the_members_own_projects(browser, factory, org, settings):
    """A big organization's list had no way to the projects one made (the API has
    createdBy); "Made by: me" is the member's, by who they are, not by a name."""
    settings.PLANS = {**settings.PLANS, "free": {"max_projects": 50, "ai_credits": 50}}
    assert create(browser, "Mine").status_code == 302
    colleague = factory.member_client(factory.member(org, role="member"), enforce_csrf=False)
    assert create(colleague, "Theirs").status_code == 302
    both = browser.get("/").content.decode()
    assert ">Mine</a>" in both and ">Theirs</a>" in both
    mine = browser.get("/?mine=yes").content.decode()
    assert ">Mine</a>" in mine and ">Theirs</a>" not in mine
    assert '<option value="yes" selected>me</option>' in mine
    assert ">Theirs</a>" in colleague.get("/?mine=yes").content.decode()
    assert "No projects match these filters." in browser.get("/?mine=yes&q=zzz").content.decode()
