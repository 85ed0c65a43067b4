"""The projects list in the browser's terms (server-rendered pages): search, filters,
paging, pin, create, archive, duplicate and delete with a confirmation naming the project."""

import pytest

from diagrams.models import Pin, Project


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


def test_bad_names_and_the_plan_limit_are_explained_and_kept(browser):
    response = create(browser, "ab", "kept description")
    assert response.status_code == 400
    assert "3 to 60 characters" in response.content.decode()
    assert 'value="kept description"' in response.content.decode()
    for name in ("One", "Two", "Three"):
        create(browser, name)
    response = create(browser, "Four")
    assert response.status_code == 400 and "allows 3 projects" in response.content.decode()
    assert Project.objects.count() == 3


def test_pin_archive_and_filters(browser, member):
    create(browser, "Alpha")
    create(browser, "Beta")
    alpha = Project.objects.get(name="Alpha")
    browser.post(f"/projects/{alpha.id}/pin/", {"next": "/"})
    assert Pin.objects.filter(project=alpha).count() == 1
    assert "Beta" not in browser.get("/?pinned=yes").content.decode()
    browser.post(f"/projects/{alpha.id}/archive/", {"next": "/"})
    assert "Alpha" not in browser.get("/").content.decode()  # archived are hidden by default
    assert "Alpha" in browser.get("/?archived=yes").content.decode()
    browser.post(f"/projects/{alpha.id}/unarchive/", {"next": "/"})
    browser.post(f"/projects/{alpha.id}/unpin/", {"next": "/"})
    assert not Pin.objects.filter(project=alpha).exists()
    assert "Alpha" in browser.get("/").content.decode()


def test_paging(browser, settings):
    settings.PLANS = {**settings.PLANS, "free": {"max_projects": 50, "ai_credits": 50}}
    for i in range(23):
        create(browser, f"Project {i:02d}")
    first = browser.get("/").content.decode()
    assert "Page 1 of 2" in first and "Older" in first
    second = browser.get("/?page=1").content.decode()
    assert second.count('class="project-row') == 3


def test_duplicate_and_delete_with_confirmation(browser):
    create(browser, "Source")
    source = Project.objects.get(name="Source")
    response = browser.post(f"/projects/{source.id}/duplicate/")
    assert Project.objects.filter(name="Source").count() == 2
    copy = Project.objects.exclude(pk=source.pk).get()
    assert response["Location"] == f"/projects/{copy.id}/"
    page = browser.get(f"/projects/{copy.id}/delete/").content.decode()
    assert "Delete “Source”?" in page
    assert browser.post(f"/projects/{copy.id}/delete/", {"confirm_name": "nope"}).status_code == 400
    assert Project.objects.filter(pk=copy.pk).exists()
    browser.post(f"/projects/{copy.id}/delete/", {"confirm_name": "Source"})
    assert not Project.objects.filter(pk=copy.pk).exists()


def test_members_cannot_change_others_projects_and_other_orgs_are_404(factory, org, browser):
    create(browser, "Admins project")
    project = Project.objects.get()
    member = factory.member_client(factory.member(org, role="member"), enforce_csrf=False)
    response = member.post(f"/projects/{project.id}/archive/", {"next": "/"})
    assert response.status_code == 403
    assert not Project.objects.get().archived
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
