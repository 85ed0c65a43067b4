"""Public sharing: the token endpoints, their permissions, and the public pages (interface §3,
12, 14)."""

import uuid
from urllib.parse import quote

import pytest
from django.test import Client

from diagrams.tests.helpers import new_project, new_service

TOKEN = "/v1/projects/{}/public-share-token"


@pytest.fixture
def manager(factory, org):
    return factory.key_client(org, "manager", ["projects:manage"])


@pytest.fixture
def project(manager):
    project = new_project(manager, "Payments")
    new_service(
        manager,
        project,
        {
            "name": "Gateway",
            "category": "edge",
            "produces": [{"name": "payments"}],
            "extras": {"secret-note": "do not leak this"},
        },
    )
    new_service(manager, project, {"name": "Ledger", "consumes": [{"name": "payments"}]})
    return project


def share(client, project) -> str:
    response = client.post(TOKEN.format(project))
    assert response.status_code == 200, response.content
    return response.json()["token"]


def test_create_read_replace_and_revoke(manager, project):
    response = manager.post(TOKEN.format(project))
    body = response.json()
    assert set(body) == {"token", "createdAt"}
    assert uuid.UUID(body["token"]).version == 4
    assert body["createdAt"].endswith("Z")
    assert manager.get(TOKEN.format(project)).json() == body
    replaced = manager.post(TOKEN.format(project)).json()
    assert replaced["token"] != body["token"]
    assert manager.get(TOKEN.format(project)).json()["token"] == replaced["token"]
    response = manager.delete(TOKEN.format(project))
    assert response.status_code == 204 and response.content == b""
    response = manager.get(TOKEN.format(project))
    assert response.status_code == 404
    assert response.json()["code"] == "public_share_token_not_found"
    response = manager.delete(TOKEN.format(project))
    assert response.json()["code"] == "public_share_token_not_found"


def test_permissions_follow_contract_3(factory, org, manager, project):
    plain_key = factory.key_client(org, "reader")
    member = factory.member_client(factory.member(org, role="member"), enforce_csrf=False)
    admin = factory.member_client(factory.member(org, role="admin"), enforce_csrf=False)
    for client in (plain_key, member):
        response = client.post(TOKEN.format(project))
        assert response.status_code == 403 and response.json()["code"] == "forbidden"
    token = share(admin, project)
    for client in (plain_key, member):
        assert client.get(TOKEN.format(project)).json()["token"] == token  # reading is fine
        assert client.delete(TOKEN.format(project)).status_code == 403
    assert manager.get(TOKEN.format(project)).json()["token"] == token
    own = new_project(plain_key, "Mine")
    assert plain_key.post(TOKEN.format(own)).status_code == 200  # a key's own project


def test_foreign_and_missing_projects_are_404(factory, project, manager):
    other = factory.key_client(factory.org("other"), "theirs", ["projects:manage"])
    for method in ("post", "get", "delete"):
        for project_id in (project, "missing-abcdefgh", "BAD"):
            response = getattr(other, method)(TOKEN.format(project_id))
            assert response.status_code == 404
            assert response.json()["code"] == "project_not_found"


def test_the_share_page_shows_the_graph_and_nothing_else(manager, project):
    token = share(manager, project)
    response = Client().get(f"/share/{token}/")
    assert response.status_code == 200
    html = response.content.decode()
    assert "Payments" in html and 'data-entity-id="service--gateway"' in html
    assert "do not leak this" not in html and "secret-note" not in html
    assert response["X-Frame-Options"] == "DENY"
    assert "frame-ancestors 'none'" in response["Content-Security-Policy"]
    assert "script-src 'self'" in response["Content-Security-Policy"]
    assert response["X-Content-Type-Options"] == "nosniff"
    assert response["Cache-Control"] == "no-store"
    assert response["Referrer-Policy"] == "no-referrer"
    # nor for search engines, the bare SVG included (the pages said it in a meta tag only)
    for path in ("", "embed/", "graph.svg"):
        assert Client().get(f"/share/{token}/{path}")["X-Robots-Tag"] == "noindex"
    # read-only: a form posted to it is not allowed, not an expired form (403)
    for path in ("", "embed/", "graph.svg"):
        response = Client(enforce_csrf_checks=True).post(f"/share/{token}/{path}")
        assert response.status_code == 405 and response["Allow"] == "GET, HEAD"


def test_the_embed_can_be_framed_by_any_site(manager, project):
    token = share(manager, project)
    response = Client().get(f"/share/{token}/embed/")
    assert response.status_code == 200
    assert "X-Frame-Options" not in response
    assert "frame-ancestors *" in response["Content-Security-Policy"]
    assert f"/share/{token}/" in response.content.decode()  # the "open full view" link
    # which opens the view the embed shows (it opened the whole project)
    focused = Client().get(f"/share/{token}/embed/?filteredIds=service--ledger&depth=2")
    assert (
        f'class="open-full" href="/share/{token}/?filteredIds=service--ledger&amp;depth=2"'
        in focused.content.decode()
    )


def test_the_bare_svg_and_its_parameters(manager, project):
    token = share(manager, project)
    response = Client().get(f"/share/{token}/graph.svg")
    assert response.status_code == 200
    assert response["Content-Type"] == "image/svg+xml"
    assert response["Content-Security-Policy"] == "default-src 'none'; style-src 'unsafe-inline'"
    focused = Client().get(f"/share/{token}/graph.svg?filteredIds=service--ledger&depth=0")
    assert b'data-entity-id="service--ledger"' in focused.content
    assert b'data-entity-id="service--gateway"' not in focused.content
    for bad in ("depth=9", "filteredIds=nonsense", "at=garbage", "depth=x"):
        assert Client().get(f"/share/{token}/graph.svg?{bad}").status_code == 400


def test_past_states_are_not_shared(manager, project):
    """interface §12: history is not reachable with the token. A deleted service must not
    come back through `at`, on the page, the embed or the bare SVG."""
    token = share(manager, project)
    first = manager.get(f"/v1/projects/{project}/services/gateway/raw").json()["validFrom"]
    assert manager.delete(f"/v1/projects/{project}/services/gateway").status_code == 204
    for path in ("/share/{}/", "/share/{}/embed/", "/share/{}/graph.svg"):
        response = Client().get(path.format(token) + f"?at={quote(first)}")
        assert response.status_code == 400
        assert b"as it is now" in response.content
        assert b"service--gateway" not in response.content
        if not path.endswith(".svg"):  # a page is a way on to the view it can show
            assert (
                f'<a href="{path.format(token)}">See the whole project as it is now</a>'
                in response.content.decode()
            )
        now = Client().get(path.format(token))
        assert now.status_code == 200
        assert b"service--gateway" not in now.content and b"service--ledger" in now.content
    page = Client().get(f"/share/{token}/").content.decode()
    assert "data-at" not in page and "As of" not in page


def test_flows_are_not_shared(manager, project):
    """The drawing does not show flows and the Show menu leaves them out, but a focus on a
    guessed flow name drew the services carrying it: refused as a past moment is."""
    assert (
        manager.put(
            f"/v1/projects/{project}/services/ledger",
            {"flows": ["Month end"]},
            content_type="application/json",
        ).status_code
        == 200
    )
    token = share(manager, project)
    for path in ("/share/{}/", "/share/{}/embed/", "/share/{}/graph.svg"):
        for focus in ("flow--month-end", "service--gateway,flow--nothing"):
            response = Client().get(path.format(token) + f"?filteredIds={focus}")
            assert response.status_code == 400, (path, focus)
            assert b"does not show flows" in response.content
            assert b"service--ledger" not in response.content
    kept = Client().get(f"/share/{token}/graph.svg?filteredIds=service--ledger&depth=0")
    assert kept.status_code == 200


def test_replaced_revoked_and_unknown_tokens_are_404_at_once(manager, project):
    old = share(manager, project)
    new = share(manager, project)
    for path in ("/share/{}/", "/share/{}/embed/", "/share/{}/graph.svg"):
        assert Client().get(path.format(old)).status_code == 404
        assert Client().get(path.format(new)).status_code == 200
    manager.delete(TOKEN.format(project))
    for path in ("/share/{}/", "/share/{}/embed/", "/share/{}/graph.svg"):
        assert Client().get(path.format(new)).status_code == 404
        assert Client().get(path.format(uuid.uuid4())).status_code == 404
        assert Client().get(path.format("not-a-token")).status_code == 404
    # with the visitor's way on: the one who shared it can make a new link
    page = Client().get(f"/share/{new}/").content.decode()
    assert "ask whoever shared it for a new one." in page


def test_deleting_the_project_kills_its_share(manager, project):
    token = share(manager, project)
    manager.delete(f"/v1/projects/{project}")
    assert Client().get(f"/share/{token}/").status_code == 404


def test_public_pages_are_rate_limited_per_ip(manager, project, settings):
    settings.RATE_LIMIT_PUBLIC = "2/h"
    token = share(manager, project)
    visitor = Client(REMOTE_ADDR="10.1.2.3")
    assert visitor.get(f"/share/{token}/").status_code == 200
    assert visitor.get(f"/share/{token}/graph.svg").status_code == 200
    response = visitor.get(f"/share/{token}/embed/")
    assert response.status_code == 429 and int(response["Retry-After"]) >= 1
    assert Client(REMOTE_ADDR="10.9.9.9").get(f"/share/{token}/").status_code == 200
    # to a script, each is RateLimitError as every 429 (interface §11; graph.svg was plain
    # text, the pages HTML); a browser's page says it in words
    for path in ("", "graph.svg", "embed/"):
        response = visitor.get(f"/share/{token}/{path}")
        assert response.status_code == 429 and response["Content-Type"] == "application/json"
        body = response.json()
        assert set(body) == {"status", "code", "message", "retryAfter"}
        assert body["code"] == "rate_limited" and response["Retry-After"] == str(body["retryAfter"])
    browser = {"HTTP_ACCEPT": "text/html,application/xhtml+xml,*/*;q=0.8"}
    for path in ("", "embed/"):
        response = visitor.get(f"/share/{token}/{path}", **browser)
        assert response.status_code == 429 and response["Content-Type"].startswith("text/html")
        # saying how long to wait, as the member's pages do ("retry later" said nothing)
        wait = response["Retry-After"]
        said = f"Too many requests: try again in {wait} second{'' if wait == '1' else 's'}."
        assert said in response.content.decode()


def test_a_token_reaches_no_api(manager, project):
    token = share(manager, project)
    client = Client(HTTP_AUTHORIZATION=f"Bearer {token}")
    assert client.get(f"/v1/projects/{project}").status_code == 401
    assert client.get(f"/v1/projects/{project}/history").status_code == 401


def test_members_manage_sharing_on_a_page_with_an_embed_snippet(factory, org):
    admin = factory.member(org, role="admin")
    client = factory.member_client(admin, enforce_csrf=False)
    project = new_project(client, 'Shop "quoted" <b>')
    page = client.get(f"/projects/{project}/share/")
    assert page.status_code == 200 and b"not shared" in page.content
    page = client.post(f"/projects/{project}/share/", {"action": "rotate"})
    html = page.content.decode()
    token = client.get(TOKEN.format(project)).json()["token"]
    assert f"/share/{token}/embed/" in html and "&lt;iframe" in html
    assert "allow=&quot;fullscreen&quot;" in html  # its Full screen button works there
    # the snippet people paste holds the name escaped once (shown escaped again in the page)
    assert "Shop &amp;quot;quoted&amp;quot; &amp;lt;b&amp;gt;" in html
    # good news reads as good news, not in the error box
    assert '<div class="notice" role="status" data-action-result>The project is shared' in html
    assert 'class="alert"' not in html
    # with a link in use, replacing or turning it off asks first (no script needed)
    assert html.count('<details class="confirm">') == 2
    assert "every embed now in use stop working" in html
    html = client.post(f"/projects/{project}/share/", {"action": "rotate"}).content.decode()
    assert '<div class="notice" role="status" data-action-result>A new link is ready' in html
    html = client.post(f"/projects/{project}/share/", {"action": "revoke"}).content.decode()
    assert '<div class="notice" role="status" data-action-result>Sharing is off' in html
    assert client.get(TOKEN.format(project)).status_code == 404
    member = factory.member_client(factory.member(org, role="member"), enforce_csrf=False)
    page = member.post(f"/projects/{project}/share/", {"action": "rotate"})
    assert page.status_code == 403
    assert 'class="alert" role="alert"' in page.content.decode()
    assert client.get(TOKEN.format(project)).status_code == 404
    assert Client().get(f"/projects/{project}/share/").status_code == 302  # log in first


def test_a_link_or_change_made_by_an_api_key_says_so(factory, org, manager, project):
    """ "Shared since … by manager." read as a person's name; so did the projects list's
    "updated … by manager"."""
    share(manager, project)
    member = factory.member_client(factory.member(org, role="admin"), enforce_csrf=False)
    page = member.get(f"/projects/{project}/share/").content.decode()
    assert " UTC by manager (API key).</p>" in page
    listing = member.get("/").content.decode()
    assert " UTC by manager (API key)" in listing
