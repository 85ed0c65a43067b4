"""Headers every page carries: a Content-Security-Policy on our HTML pages (scripts only from
our own files, never framed; the share embed frameable), and HEAD answered where GET is."""

from django.test import Client

from diagrams.tests.helpers import new_project, post


def test_member_pages_carry_a_policy_that_runs_only_our_scripts(factory, org):
    membership = factory.member(org, role="admin")
    member = factory.member_client(membership, enforce_csrf=False)
    project = new_project(member)
    for path in ("/", f"/projects/{project}/", "/settings/api-keys/", "/accounts/login/"):
        policy = member.get(path)["Content-Security-Policy"]
        assert "script-src 'self';" in policy and "unsafe-eval" not in policy, path
        assert "frame-ancestors 'none'" in policy, path
    token = post(member, f"/v1/projects/{project}/public-share-token").json()["token"]
    embed = Client().get(f"/share/{token}/embed/")["Content-Security-Policy"]
    assert embed.endswith("frame-ancestors *")  # its own: frameable by any site
    # Swagger UI runs an inline script of its own: the docs page is left to it
    assert "Content-Security-Policy" not in Client().get("/v1/docs")


def test_head_is_answered_where_get_is(factory, org):
    member = factory.member_client(factory.member(org, role="admin"), enforce_csrf=False)
    project = new_project(member)
    token = post(member, f"/v1/projects/{project}/public-share-token").json()["token"]
    for path in (f"/share/{token}/", f"/share/{token}/embed/", f"/share/{token}/graph.svg"):
        response = Client().head(path)
        assert response.status_code == 200, path
        assert response.content == b""
    assert member.head(f"/projects/{project}/").status_code == 200


def test_head_of_a_page_is_its_get_without_the_body(factory, org):
    """An uptime monitor's HEAD of the projects, the log-in or a settings page was a 405
    (those views allow GET and POST); it is the GET's status and headers, no body."""
    from django.test import Client

    membership = factory.member(org, role="admin")
    client = factory.member_client(membership)
    for path in ("/", "/settings/", "/settings/members/", "/settings/account/"):
        got, head = client.get(path), client.head(path)
        assert head.status_code == got.status_code == 200, path
        assert head["Content-Type"] == got["Content-Type"] and head.content == b""
    anonymous = Client()
    assert anonymous.head("/accounts/login/").status_code == 200
    assert anonymous.head("/accounts/signup/").status_code == 200
    assert anonymous.head("/").status_code == 302  # to the log-in, as its GET
    # nothing is done by a HEAD of a form's address: it is never its POST
    assert client.head("/settings/billing/portal/").status_code == 405
    assert client.head("/accounts/switch/").status_code == 405
