"""The operators' commands: create_member, create_api_key, revoke_api_key, seed_demo."""

import io
from datetime import timedelta

import pytest
from django.core.management import CommandError, call_command
from django.test import Client
from django.utils.dateparse import parse_datetime

from accounts.models import ApiKey, Membership, Organization, User
from diagrams.demo import DEMO_HISTORY


def run(*args) -> str:
    out = io.StringIO()
    call_command(*args, stdout=out, stderr=io.StringIO())
    return out.getvalue()


def test_create_member_makes_org_user_and_membership(db):
    run(
        "create_member",
        "ada@example.com",
        "--org",
        "acme",
        "--role",
        "admin",
        "--password",
        "pw-123456",
    )
    membership = Membership.objects.get(user__email="ada@example.com")
    assert membership.role == "admin" and membership.organization.slug == "acme"
    assert membership.user.check_password("pw-123456")
    run("create_member", "ada@example.com", "--org", "acme", "--role", "member")
    assert Membership.objects.get().role == "member"
    assert User.objects.count() == 1 and Organization.objects.count() == 1


def test_a_member_of_a_new_organization_is_told_it_has_no_admin(db):
    """A mistyped --org made a new organization whose only member could not invite, share or
    pay, without a word."""
    err = io.StringIO()
    call_command(
        "create_member", "eve@example.com", "--org", "acmee", stdout=io.StringIO(), stderr=err
    )
    assert "acmee is a new organization, and has no admin" in err.getvalue()
    err = io.StringIO()  # an existing organization (as typed or as its slug reads it), or a
    # new one's admin: nothing to say
    call_command(
        "create_member", "cy@example.com", "--org", "ACMEE", stdout=io.StringIO(), stderr=err
    )
    call_command(
        "create_member", "bob@example.com", "--org", "acmee", stdout=io.StringIO(), stderr=err
    )
    call_command(
        "create_member",
        "ada@example.com",
        "--org",
        "beta",
        "--role",
        "admin",
        stdout=io.StringIO(),
        stderr=err,
    )
    assert err.getvalue() == ""


@pytest.mark.parametrize(
    "password, said",
    [("short", "too short"), ("ada@example.com", "too similar"), ("83920174", "numeric")],
)
def test_create_member_holds_a_password_to_the_rules_people_are_held_to(db, password, said):
    with pytest.raises(CommandError, match=said):
        run("create_member", "ada@example.com", "--org", "acme", "--password", password)
    assert not User.objects.exists() and not Organization.objects.exists()


def test_a_password_set_by_create_member_ends_the_members_open_sessions(db):
    """Django admin's password form ends the user's sessions (the old password may be known
    to someone); the command, the other way operators set one, left them open."""
    from accounts.services import session_start

    run("create_member", "ada@example.com", "--org", "acme", "--password", "First-pass-123")
    old = Client()
    old.cookies["__session"] = session_start(membership=Membership.objects.get())
    assert old.get("/v1/limits").status_code == 200
    run("create_member", "ada@example.com", "--org", "acme", "--password", "Second-pass-456")
    assert old.get("/v1/limits").status_code == 401
    assert User.objects.get().check_password("Second-pass-456")
    again = Client()
    again.cookies["__session"] = session_start(membership=Membership.objects.get())
    run("create_member", "ada@example.com", "--org", "acme", "--role", "admin")  # no password
    assert again.get("/v1/limits").status_code == 200  # a role's change ends nothing
    run("create_member", "ada@example.com", "--org", "acme", "--password", "Second-pass-456")
    assert again.get("/v1/limits").status_code == 200  # nor the same password again


def test_create_api_key_prints_a_working_key_on_its_last_line(db):
    run("create_member", "ada@example.com", "--org", "acme")
    output = run(
        "create_api_key",
        "--org",
        "acme",
        "--name",
        "deploy",
        "--permission",
        "projects:manage",
        "--expires-in-days",
        "30",
    )
    token = output.strip().splitlines()[-1]
    key = ApiKey.objects.get(name="deploy")
    assert key.permissions == ["projects:manage"] and key.expires_at is not None
    assert Client(HTTP_AUTHORIZATION=f"Bearer {token}").get("/v1/limits").status_code == 200


def test_duplicate_key_name_and_unknown_org_are_refused(db):
    run("create_member", "ada@example.com", "--org", "acme")
    run("create_api_key", "--org", "acme", "--name", "deploy")
    with pytest.raises(CommandError, match="is named “deploy” already"):
        run("create_api_key", "--org", "acme", "--name", "deploy")
    with pytest.raises(CommandError, match="No organization"):
        run("create_api_key", "--org", "nope", "--name", "x")


def test_revoke_api_key_refuses_the_key_and_frees_the_name(db):
    run("create_member", "ada@example.com", "--org", "acme")
    token = run("create_api_key", "--org", "acme", "--name", "deploy").strip().splitlines()[-1]
    run("revoke_api_key", "--org", "acme", "--name", "deploy")
    assert Client(HTTP_AUTHORIZATION=f"Bearer {token}").get("/v1/limits").status_code == 401
    with pytest.raises(CommandError):
        run("revoke_api_key", "--org", "acme", "--name", "deploy")
    fresh = run("create_api_key", "--org", "acme", "--name", "deploy").strip().splitlines()[-1]
    assert Client(HTTP_AUTHORIZATION=f"Bearer {fresh}").get("/v1/limits").status_code == 200


def test_seed_demo_is_idempotent_and_the_demo_user_logs_in(db):
    run("seed_demo")
    run("seed_demo")
    assert Organization.objects.filter(slug="demo").count() == 1
    assert Membership.objects.filter(user__email="demo@example.com", role="admin").count() == 1
    client = Client()
    response = client.post("/accounts/login/", {"email": "demo@example.com", "password": "demo"})
    assert response.status_code == 302 and client.cookies["__session"].value


def test_seed_demo_makes_a_sample_architecture_once(db):
    from diagrams.models import Project

    run("seed_demo")
    run("seed_demo")
    project = Project.objects.get(organization__slug="demo")
    assert 15 <= project.service_count <= 30
    assert project.snapshots.count() == project.service_count + len(DEMO_HISTORY)


def test_the_demo_has_a_past_to_travel_to(db):
    """A newcomer's first look at history: months of changes by three people, the newest
    this week; going back shows the services as they were (a name since changed, a service
    since deleted), and the stored history holds every invariant a real one does."""
    from django.db import connection
    from django.utils import timezone

    from bench.consistency import history_problems
    from diagrams.demo import DEMO_SERVICES

    run("seed_demo")
    key = run("create_api_key", "--org", "demo", "--name", "t").strip().splitlines()[-1]
    client = Client(HTTP_AUTHORIZATION=f"Bearer {key}")
    project = client.get("/v1/projects").json()["data"][0]["id"]
    history = client.get(f"/v1/projects/{project}/history", {"size": 100}).json()
    assert history["total"] == len(DEMO_SERVICES) + len(DEMO_HISTORY)
    newest, oldest = history["data"][0], history["data"][-1]
    assert (newest["serviceName"], newest["action"], newest["actor"]) == (
        "Loyalty",
        "updated",
        "ana@example.com",
    )
    now = timezone.now()
    assert timedelta(days=2) < now - parse_datetime(newest["at"]) < timedelta(days=7)
    assert now - parse_datetime(oldest["at"]) > timedelta(days=150)
    assert {e["actor"] for e in history["data"]} == {
        "demo@example.com",
        "ana@example.com",
        "ben@example.com",
    }
    # the colleagues are members (not pending invitations) since before the first change
    for email in ("ana@example.com", "ben@example.com"):
        member = Membership.objects.get(user__email=email, organization__slug="demo")
        assert member.user.has_usable_password()
        assert member.created_at < parse_datetime(oldest["at"])
    actions = {(e["serviceName"], e["action"]) for e in history["data"]}
    assert {("Search Indexer", "renamed"), ("Legacy Mailer", "deleted")} <= actions

    def names(**query):
        response = client.get(f"/v1/projects/{project}/services", query)
        assert response.status_code == 200, response.content
        return {service["name"] for service in response.json()}

    assert names() == {service["name"] for service in DEMO_SERVICES}
    month_ago = names(at=(now - timedelta(days=30)).isoformat())
    assert {"Search Worker", "Legacy Mailer"} <= month_ago
    assert "Search Indexer" not in month_ago
    assert names(at=(now - timedelta(days=200)).isoformat()) == set()
    diff = client.get(f"/v1/projects/{project}/history/{newest['snapshotId']}/diff").json()
    [change] = diff["changes"]  # the diff of this week's change: Loyalty's new topic
    assert change["field"] == "consumes"
    assert [t["name"] for t in change["before"]] == ["orders.confirmed"]
    assert [t["name"] for t in change["after"]] == ["orders.confirmed", "orders.cancelled"]
    problems, _ = history_problems(connection.cursor())
    assert problems == []
