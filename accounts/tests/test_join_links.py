"""Adding someone whose account exists already: the membership is pending, and grants nothing
until the account's owner opens the join link the admin sent them while logged in, and joins.
Adding an e-mail address proves nothing about who holds its account (addresses are never
verified), so without this an admin of one organization could take over someone's
membership of another."""

import re
import time
from datetime import timedelta
from urllib.parse import quote, unquote

import jwt
import pytest
from django.core import signing
from django.core.management import call_command
from django.test import Client
from django.utils import timezone

from accounts.invitations import JOIN_LOGIN_SALT, JOIN_SALT
from accounts.models import AuthSession, Membership, User
from accounts.services import session_start
from accounts.tokens import session_token_encode
from archsvc.exceptions import Forbidden

PASSWORD = "correct-horse-battery"


# --- helpers: everything through the pages, as a person would ----------------------------


def signup(email: str, organization: str, password: str = PASSWORD) -> Client:
    client = Client()
    response = client.post(
        "/accounts/signup/",
        {"email": email, "password": password, "organization": organization},
    )
    assert response.status_code == 302, response.content
    return client


def login(client: Client, email: str, password: str = PASSWORD, next: str = ""):
    data = {"email": email, "password": password}
    if next:
        data["next"] = next
    return client.post("/accounts/login/", data)


def add_member(client: Client, email: str, role: str = "member"):
    return client.post("/settings/members/", {"action": "add", "email": email, "role": role})


def link_on(response, kind: str) -> str:
    """The path of the invitation (`welcome`) or join (`join`) link the page shows."""
    match = re.search(
        rf'value="http://testserver(/accounts/{kind}/[^"]+)"', response.content.decode()
    )
    assert match, f"no {kind} link on the page"
    return match.group(1)


def create_project(client: Client, name: str) -> str:
    response = client.post("/", {"name": name, "description": ""})
    assert response.status_code == 302, response.content
    return response["Location"].split("/")[2]


def session_org(client: Client) -> str:
    claims = jwt.decode(client.cookies["__session"].value, options={"verify_signature": False})
    return claims["org"]


def project_names(client: Client) -> list[str]:
    response = client.get("/v1/projects")
    assert response.status_code == 200, response.content
    return [project["name"] for project in response.json()["data"]]


def membership(email: str, slug: str) -> Membership:
    return Membership.objects.get(user__email=email, organization__slug=slug)


@pytest.fixture
def bcorp(db):
    """BCorp: its admin, and a project nobody else may read."""
    boss = signup("boss@bcorp.com", "BCorp")
    create_project(boss, "Acquisition plans")
    return boss


# --- the takeover the security review reproduced ------------------------------------------


def test_an_address_taken_first_gives_no_way_into_the_organization_that_adds_it(bcorp):
    # The attacker, admin of ACorp, adds cfo@bcorp.com before anyone else does (it has no
    # account yet), and sets its password through the invitation link.
    attacker = signup("mallory@acorp.example", "ACorp")
    create_project(attacker, "Decoy")
    response = add_member(attacker, "cfo@bcorp.com")
    welcome = link_on(response, "welcome")
    taken = Client().post(welcome, {"password": "mallorys-pass-1", "password2": "mallorys-pass-1"})
    assert taken.status_code == 302

    # Later BCorp's admin adds the real CFO's address: an account exists, so it is invited.
    response = add_member(bcorp, "cfo@bcorp.com", role="admin")
    assert response.status_code == 200
    page = response.content.decode()
    assert "cfo@bcorp.com is invited (admin)" in page
    assert "while logged in with that e-mail" in page
    join = link_on(response, "join")
    assert membership("cfo@bcorp.com", "bcorp").is_pending

    # The attacker logs in as cfo@bcorp.com: only ACorp is there.
    cfo = Client()
    assert login(cfo, "cfo@bcorp.com", "mallorys-pass-1").status_code == 302
    acorp_id = str(membership("mallory@acorp.example", "acorp").organization_id)
    assert session_org(cfo) == acorp_id
    assert project_names(cfo) == ["Decoy"]
    assert 'value="bcorp"' not in cfo.get("/").content.decode()  # not in the switch list
    assert "BCorp" not in cfo.get("/settings/account/").content.decode()

    # switching to BCorp is refused: the session stays in ACorp
    response = cfo.post("/accounts/switch/", {"organization": "bcorp"})
    assert response.status_code == 302
    assert session_org(cfo) == acorp_id
    assert project_names(cfo) == ["Decoy"]
    secret = bcorp.get("/v1/projects").json()["data"][0]["id"]
    assert cfo.get(f"/v1/projects/{secret}").status_code == 404
    assert cfo.get(f"/projects/{secret}/").status_code == 404

    # BCorp still lists the CFO as invited; the real CFO's link sends to the log-in (they
    # cannot log in: the address's account is the attacker's, which needs an operator)
    members = bcorp.get("/settings/members/").content.decode()
    assert "invited, not joined yet" in members
    assert Client().get(join)["Location"].startswith("/accounts/login/?next=/accounts/join/")
    assert membership("cfo@bcorp.com", "bcorp").is_pending


def test_signing_up_with_someone_elses_address_gives_no_way_in_either(bcorp):
    squatter = signup("cfo@bcorp.com", "Shell Co")
    add_member(bcorp, "cfo@bcorp.com")
    assert membership("cfo@bcorp.com", "bcorp").is_pending
    squatter.post("/accounts/switch/", {"organization": "bcorp"})
    assert session_org(squatter) == str(membership("cfo@bcorp.com", "shell-co").organization_id)
    assert project_names(squatter) == []
    again = Client()
    assert login(again, "cfo@bcorp.com").status_code == 302
    assert project_names(again) == []


def test_the_organization_list_leaves_out_an_invitation(factory, bcorp):
    ada = signup("ada@acorp.example", "ACorp")
    factory.member(factory.org("globex"), email="ada@acorp.example", password=PASSWORD)
    add_member(bcorp, "ada@acorp.example")
    projects = ada.get("/").content.decode()
    assert 'value="acorp"' in projects and 'value="globex"' in projects
    assert 'value="bcorp"' not in projects
    account = ada.get("/settings/account/").content.decode()
    assert "Globex" in account and "BCorp" not in account


def test_a_pending_membership_is_never_a_session(factory, org):
    """Nothing makes a session for a pending membership; one that existed anyway (a row
    written by hand) is refused by pages and the API alike."""
    factory.member(factory.org("home"), email="ada@example.com")
    pending = Membership.objects.create(
        user=User.objects.get(email="ada@example.com"), organization=org, accepted_at=None
    )
    with pytest.raises(Forbidden):
        session_start(membership=pending)
    now = timezone.now()
    session = AuthSession.objects.create(membership=pending, created_at=now, last_seen_at=now)
    client = Client()
    client.cookies["__session"] = session_token_encode(
        user_id=pending.user_id, org_id=org.pk, session_id=str(session.pk), now=now
    )
    assert client.get("/v1/limits").status_code == 401
    assert client.get("/v1/projects").status_code == 401
    assert client.get("/settings/").status_code == 302


# --- the real flow -------------------------------------------------------------------------


def test_a_member_of_one_organization_joins_another_through_the_link(bcorp):
    ada = signup("ada@acorp.example", "ACorp")
    create_project(ada, "Storefront")
    response = add_member(bcorp, "ada@acorp.example")
    join = link_on(response, "join")

    # opened while logged out: the log-in, and back
    browser = Client()
    sent = browser.get(join)
    assert sent.status_code == 302
    assert unquote(sent["Location"]) == f"/accounts/login/?next={join}"
    # which says who to log in as, and to join what (it was a plain log-in page)
    page = browser.get(sent["Location"]).content.decode()
    assert "Log in as <strong>ada@acorp.example</strong> to join BCorp." in page
    assert 'value="ada@acorp.example"' in page
    assert (
        "to join"
        not in browser.get("/accounts/login/?next=/accounts/join/forged/").content.decode()
    )
    logged_in = login(browser, "ada@acorp.example", next=unquote(sent["Location"].split("=")[1]))
    assert logged_in.status_code == 302 and logged_in["Location"] == join
    page = browser.get(join)
    assert page.status_code == 200
    body = page.content.decode()
    assert "BCorp invites <strong>ada@acorp.example</strong> to join as member" in body
    assert "You stay a member of ACorp" in body
    assert membership("ada@acorp.example", "bcorp").is_pending  # looking is not joining

    joined = browser.post(join)
    assert joined.status_code == 302 and joined["Location"] == "/"
    assert not membership("ada@acorp.example", "bcorp").is_pending
    bcorp_id = str(membership("boss@bcorp.com", "bcorp").organization_id)
    assert session_org(browser) == bcorp_id
    assert project_names(browser) == ["Acquisition plans"]
    assert "You joined BCorp." in browser.get("/").content.decode()
    assert (
        AuthSession.objects.filter(
            membership__user__email="ada@acorp.example", ended_at__isnull=True
        ).count()
        == 2
    )  # this browser's, and the sign-up's in `ada`

    # both organizations now, either way round
    assert 'value="acorp"' in browser.get("/").content.decode()
    browser.post("/accounts/switch/", {"organization": "acorp"})
    assert project_names(browser) == ["Storefront"]
    browser.post("/accounts/switch/", {"organization": "bcorp"})
    assert project_names(browser) == ["Acquisition plans"]
    members = bcorp.get("/settings/members/").content.decode()
    assert "ada@acorp.example" in members and "not joined yet" not in members

    # the link is used up
    assert browser.get(join).status_code == 404
    assert "no longer works" in browser.get(join).content.decode()


def test_joining_needs_the_forms_csrf_token(bcorp):
    signup("ada@acorp.example", "ACorp")
    join = link_on(add_member(bcorp, "ada@acorp.example"), "join")
    browser = Client(enforce_csrf_checks=True)
    browser.get("/accounts/login/")
    csrf = browser.cookies["csrftoken"].value
    browser.post(
        "/accounts/login/",
        {"email": "ada@acorp.example", "password": PASSWORD, "csrfmiddlewaretoken": csrf},
    )
    assert browser.post(join).status_code == 403
    assert membership("ada@acorp.example", "bcorp").is_pending
    page = browser.get(join).content.decode()
    assert 'name="csrfmiddlewaretoken"' in page
    csrf = browser.cookies["csrftoken"].value
    assert browser.post(join, {"csrfmiddlewaretoken": csrf}).status_code == 302
    assert not membership("ada@acorp.example", "bcorp").is_pending


def test_an_account_in_no_organization_yet_logs_in_and_joins_in_one_go(factory, bcorp):
    """Someone removed from their only organization can still log in to join another: the
    log-in has no session to give them, so it shows the join page itself."""
    home = factory.org("home")
    lone = factory.member(home, email="lone@example.com")
    lone.delete()
    join = link_on(add_member(bcorp, "lone@example.com"), "join")

    refused = login(Client(), "lone@example.com")  # no join link in hand
    assert refused.status_code == 400
    assert "in no organization yet: open the join link" in refused.content.decode()
    assert "in no organization" not in login(Client(), "lone@example.com", "wrong").content.decode()

    browser = Client()
    next_ = unquote(browser.get(join)["Location"].split("next=")[1])
    page = login(browser, "lone@example.com", next=next_)
    assert page.status_code == 200 and "__session" not in page.cookies
    body = page.content.decode()
    assert "Join BCorp?" in body and f'action="{join}"' in body
    proof = re.search(r'name="proof" value="([^"]+)"', body).group(1)

    # the proof alone is for this link only, and does nothing without the button
    assert membership("lone@example.com", "bcorp").is_pending
    joined = browser.post(join, {"proof": proof})
    assert joined.status_code == 302 and joined["Location"] == "/"
    assert project_names(browser) == ["Acquisition plans"]


def test_a_log_in_proof_is_for_its_user_and_link_only(factory, bcorp):
    signup("eve@example.com", "Eve Co")
    lone = factory.member(factory.org("home"), email="lone@example.com")
    lone.delete()
    join = link_on(add_member(bcorp, "lone@example.com"), "join")
    pending = membership("lone@example.com", "bcorp")
    eve = User.objects.get(email="eve@example.com")
    for proof in (
        "forged",
        signing.dumps({"u": eve.pk, "m": pending.pk}, salt=JOIN_LOGIN_SALT),  # another user
        signing.dumps({"u": pending.user_id, "m": pending.pk + 1}, salt=JOIN_LOGIN_SALT),
        signing.dumps({"u": pending.user_id, "m": pending.pk}, salt="another-salt"),
    ):
        response = Client().post(join, {"proof": proof})
        assert response.status_code in (302, 403), proof
        assert response.status_code == 403 or response["Location"].startswith("/accounts/login/")
    assert membership("lone@example.com", "bcorp").is_pending


# --- links that do nothing -----------------------------------------------------------------


def test_a_link_opened_by_another_account_does_nothing(bcorp):
    signup("ada@acorp.example", "ACorp")
    join = link_on(add_member(bcorp, "ada@acorp.example"), "join")
    other = signup("eve@example.com", "Eve Co")
    page = other.get(join)
    assert page.status_code == 403
    assert "This link is for another account" in page.content.decode()
    assert "ada@acorp.example" not in page.content.decode()
    assert "BCorp" not in page.content.decode()
    assert other.post(join).status_code == 403
    assert membership("ada@acorp.example", "bcorp").is_pending
    eve_org = str(membership("eve@example.com", "eve-co").organization_id)
    assert session_org(other) == eve_org
    # the right account still can
    ada = Client()
    login(ada, "ada@acorp.example")
    assert ada.post(join).status_code == 302


def test_an_expired_replaced_unknown_or_withdrawn_link_no_longer_works(bcorp, settings):
    ada = signup("ada@acorp.example", "ACorp")
    first = link_on(add_member(bcorp, "ada@acorp.example"), "join")
    pending = membership("ada@acorp.example", "bcorp")

    # expired: the same link, signed as if PASSWORD_RESET_TIMEOUT and a second ago
    class SignedLongAgo(signing.TimestampSigner):
        def timestamp(self):
            return signing.b62_encode(int(time.time()) - settings.PASSWORD_RESET_TIMEOUT - 1)

    old = SignedLongAgo(salt=JOIN_SALT).sign_object(
        {"m": pending.pk, "at": pending.invited_at.isoformat()}
    )
    assert ada.get(first).status_code == 200
    assert ada.get(f"/accounts/join/{old}/").status_code == 404

    # replaced by a new link from the members list
    response = bcorp.post("/settings/members/", {"action": "join-link", "membership": pending.pk})
    assert response.status_code == 200
    assert "A new join link for ada@acorp.example" in response.content.decode()
    second = link_on(response, "join")
    assert second != first
    gone = ada.get(first)
    assert gone.status_code == 404 and "no longer works" in gone.content.decode()
    assert ada.post(first).status_code == 404
    assert ada.get(second).status_code == 200

    # unknown, forged, or an invitation link's token posing as a join link
    invite_salted = signing.dumps(
        {"m": pending.pk, "at": membership("ada@acorp.example", "bcorp").invited_at.isoformat()},
        salt="archsvc.accounts.invite",
    )
    unknown = signing.dumps({"m": 99999, "at": "2026-01-01T00:00:00+00:00"}, salt=JOIN_SALT)
    for token in ("nonsense", unknown, invite_salted, "a" * 2000):
        assert ada.get(f"/accounts/join/{token}/").status_code == 404, token
        assert ada.post(f"/accounts/join/{token}/").status_code == 404, token

    # withdrawn: the admin removes them from the list
    response = bcorp.post("/settings/members/", {"action": "remove", "membership": pending.pk})
    assert response.status_code == 200
    assert "no longer invited; their join link no longer works" in response.content.decode()
    assert ada.get(second).status_code == 404
    assert ada.post(second).status_code == 404
    assert not Membership.objects.filter(pk=pending.pk).exists()
    assert User.objects.filter(email="ada@acorp.example").exists()


def test_a_deactivated_account_cannot_join(bcorp):
    ada = signup("ada@acorp.example", "ACorp")
    join = link_on(add_member(bcorp, "ada@acorp.example"), "join")
    User.objects.filter(email="ada@acorp.example").update(is_active=False)
    assert ada.get(join).status_code == 404
    pending = membership("ada@acorp.example", "bcorp")
    refused = bcorp.post("/settings/members/", {"action": "join-link", "membership": pending.pk})
    assert refused.status_code == 400 and "deactivated" in refused.content.decode()
    # added while deactivated: invited, without a link
    User.objects.create_user(email="gone@example.com", password=PASSWORD, is_active=False)
    response = add_member(bcorp, "gone@example.com")
    assert response.status_code == 200
    assert "gone@example.com is invited (member). gone@example.com is deactivated." in (
        response.content.decode()
    )
    assert "/accounts/join/" not in response.content.decode()


# --- the members page and its rules --------------------------------------------------------


def test_the_members_page_lists_the_invited_with_their_role(bcorp):
    signup("ada@acorp.example", "ACorp")
    add_member(bcorp, "ada@acorp.example", role="admin")
    pending = membership("ada@acorp.example", "bcorp")
    page = bcorp.get("/settings/members/").content.decode()
    row = page[page.index("ada@acorp.example") :]
    row = row[: row.index("</tr>")]
    assert "invited, not joined yet" in row and "not yet" in row
    assert '<option value="admin" selected>' in row
    assert "New join link" in row and "New invitation link" not in row
    assert "Withdraw the invitation of ada@acorp.example?" in row
    # the invited is not one, but is said
    assert "1 member · 1 invited, not joined yet." in bcorp.get("/settings/").content.decode()
    # adding them again says they are invited, not a member
    again = add_member(bcorp, "ada@acorp.example")
    assert again.status_code == 409 and "invited already" in again.content.decode()
    # an invitation (password) link is never made for them
    refused = bcorp.post("/settings/members/", {"action": "invite", "membership": pending.pk})
    assert refused.status_code == 400 and "join link" in refused.content.decode()
    # a joined member's join link is refused
    boss = membership("boss@bcorp.com", "bcorp")
    refused = bcorp.post("/settings/members/", {"action": "join-link", "membership": boss.pk})
    assert refused.status_code == 400 and "joined already" in refused.content.decode()
    # another organization's membership is not found
    ada_home = membership("ada@acorp.example", "acorp")
    response = bcorp.post("/settings/members/", {"action": "join-link", "membership": ada_home.pk})
    assert response.status_code == 404


def test_only_an_admin_makes_a_join_link(factory, bcorp):
    signup("ada@acorp.example", "ACorp")
    add_member(bcorp, "ada@acorp.example")
    pending = membership("ada@acorp.example", "bcorp")
    member = factory.member(pending.organization, email="bob@bcorp.com")
    client = factory.member_client(member, enforce_csrf=False)
    assert "New join link" not in client.get("/settings/members/").content.decode()
    refused = client.post("/settings/members/", {"action": "join-link", "membership": pending.pk})
    assert refused.status_code == 403
    assert "/accounts/join/" not in refused.content.decode()


def test_an_invited_admin_is_no_admin_for_the_last_admin_rule(bcorp):
    signup("ada@acorp.example", "ACorp")
    add_member(bcorp, "ada@acorp.example", role="admin")
    boss, pending = membership("boss@bcorp.com", "bcorp"), membership("ada@acorp.example", "bcorp")
    page = bcorp.get("/settings/members/").content.decode()
    assert "last admin" in page  # the boss's row: the invited admin does not count
    # and it offers no role menu, whose every change could only fail; the invited one's has
    assert 'aria-label="Role of boss@bcorp.com"' not in page
    assert 'aria-label="Role of ada@acorp.example"' in page
    for data in (
        {"action": "role", "membership": boss.pk, "role": "member"},
        {"action": "remove", "membership": boss.pk},
    ):
        response = bcorp.post("/settings/members/", data)
        assert response.status_code == 400, data
        assert "at least one admin" in response.content.decode()
    assert membership("boss@bcorp.com", "bcorp").role == "admin"
    # the invited one's role may change either way: it is theirs once they join
    response = bcorp.post(
        "/settings/members/", {"action": "role", "membership": pending.pk, "role": "member"}
    )
    assert response.status_code == 200
    assert "ada@acorp.example will be member when they join." in response.content.decode()
    bcorp.post("/settings/members/", {"action": "role", "membership": pending.pk, "role": "admin"})
    # once they join, the boss may step down
    ada = Client()
    login(ada, "ada@acorp.example")
    join = link_on(
        bcorp.post("/settings/members/", {"action": "join-link", "membership": pending.pk}),
        "join",
    )
    assert ada.post(join).status_code == 302
    response = bcorp.post(
        "/settings/members/", {"action": "role", "membership": boss.pk, "role": "member"}
    )
    assert response.status_code == 200
    assert membership("boss@bcorp.com", "bcorp").role == "member"


def test_an_invitation_link_elsewhere_still_works_while_invited_here(bcorp):
    """A new account invited by ACorp, not yet with a password, is added by BCorp too: BCorp's
    pending membership does not stop ACorp's invitation link (it grants nothing), and once
    the password is set the person joins BCorp with BCorp's link."""
    acorp = signup("boss@acorp.example", "ACorp")
    welcome = link_on(add_member(acorp, "new@example.com"), "welcome")
    join = link_on(add_member(bcorp, "new@example.com"), "join")
    person = Client()
    done = person.post(welcome, {"password": "a-long-password", "password2": "a-long-password"})
    assert done.status_code == 302
    assert person.post(join).status_code == 302
    assert project_names(person) == ["Acquisition plans"]


def test_an_operator_adding_an_invited_person_makes_them_a_member(bcorp):
    ada = signup("ada@acorp.example", "ACorp")
    add_member(bcorp, "ada@acorp.example", role="admin")
    call_command("create_member", "ada@acorp.example", "--org", "bcorp", "--role", "member")
    joined = membership("ada@acorp.example", "bcorp")
    assert not joined.is_pending and joined.role == "member" and joined.invited_at is None
    ada.post("/accounts/switch/", {"organization": "bcorp"})
    assert project_names(ada) == ["Acquisition plans"]


@pytest.mark.django_db(transaction=True)
def test_memberships_made_before_join_links_stay_active():
    """The migration leaves every existing membership accepted, as of when it was made."""
    from django.db import connection
    from django.db.migrations.executor import MigrationExecutor

    before, after = (
        ("accounts", "0002_membership_invited_at"),
        ("accounts", "0003_membership_accepted_at"),
    )
    executor = MigrationExecutor(connection)
    executor.migrate([before])
    old_apps = executor.loader.project_state([before]).apps
    made = timezone.now() - timedelta(days=400)
    user = old_apps.get_model("accounts", "User").objects.create(email="old@example.com")
    org = old_apps.get_model("accounts", "Organization").objects.create(slug="old", name="Old")
    old_apps.get_model("accounts", "Membership").objects.create(
        user=user, organization=org, role="admin", created_at=made
    )
    executor = MigrationExecutor(connection)
    executor.migrate([after])
    executor.loader.build_graph()
    kept = Membership.objects.get(user__email="old@example.com")
    assert kept.accepted_at == made and not kept.is_pending


def test_django_admin_keeps_an_admin_who_has_joined(operator, factory, org):
    """An operator's last-admin rule is the settings pages' one: an invited admin is none."""
    boss = factory.member(org, email="boss@example.com", role="admin")
    factory.member(factory.org("home"), email="ada@example.com")
    pending = Membership.objects.create(
        user=User.objects.get(email="ada@example.com"),
        organization=org,
        role="admin",
        accepted_at=None,
    )
    response = operator.post(f"/admin/accounts/membership/{boss.pk}/change/", {"role": "member"})
    assert response.status_code == 200 and "at least one admin" in response.content.decode()
    # refused, saying why, on the object's page (it was a bare 403)
    for path in (f"membership/{boss.pk}", f"user/{boss.user_id}"):
        refused = operator.get(f"/admin/accounts/{path}/delete/", follow=True)
        assert refused.redirect_chain == [(f"/admin/accounts/{path}/change/", 302)]
        assert "Not deleted: boss@example.com is the only admin of" in refused.content.decode()
    assert Membership.objects.filter(pk=boss.pk).exists()
    response = operator.post(
        f"/admin/accounts/organization/{org.pk}/change/",
        {
            "slug": org.slug,
            "name": org.name,
            "memberships-TOTAL_FORMS": "2",
            "memberships-INITIAL_FORMS": "2",
            "memberships-0-id": boss.pk,
            "memberships-0-organization": org.pk,
            "memberships-0-user": boss.user_id,
            "memberships-0-role": "member",
            "memberships-1-id": pending.pk,
            "memberships-1-organization": org.pk,
            "memberships-1-user": pending.user_id,
            "memberships-1-role": "admin",
            "new_memberships-TOTAL_FORMS": "0",
            "new_memberships-INITIAL_FORMS": "0",
        },
    )
    # the organization's page lists its members; roles are changed on each one's own page
    assert response.status_code == 302
    assert Membership.objects.get(pk=boss.pk).role == "admin"
    # the invited admin may go, and be demoted
    assert operator.get(f"/admin/accounts/membership/{pending.pk}/delete/").status_code == 200
    response = operator.post(f"/admin/accounts/membership/{pending.pk}/change/", {"role": "member"})
    assert response.status_code == 302
    assert Membership.objects.get(pk=pending.pk).role == "member"


def test_a_wrong_password_keeps_the_join_notice_and_where_to_go(bcorp):
    ada = signup("ada@acorp.example", "ACorp")
    assert ada  # an account of its own, then added to BCorp
    join = link_on(add_member(bcorp, "ada@acorp.example"), "join")
    browser = Client()
    refused = browser.post(
        "/accounts/login/",
        {"email": "ada@acorp.example", "password": "wrong-password", "next": join},
    )
    assert refused.status_code == 400
    page = refused.content.decode()
    assert "Log in as <strong>ada@acorp.example</strong> to join BCorp." in page
    # the form posts to an address that keeps `next`, so a reload (a GET) keeps it too
    assert f'action="/accounts/login/?next={quote(join, safe="/")}"' in page


def test_the_members_list_says_until_when_a_link_works_and_since_when_one_is_in(bcorp):
    """Members were told a link works three days, and the list never said when it ended;
    "Member since" of someone added by address was the day the admin typed it."""
    from datetime import timedelta

    from django.utils import timezone

    welcome = link_on(add_member(bcorp, "new@example.com"), "welcome")
    invited = membership("new@example.com", "bcorp")
    until = invited.invited_at + timedelta(days=3)
    row = member_row(bcorp, "new@example.com")
    assert f'link works until <span class="nowrap">{until:%Y-%m-%d %H:%M} UTC</span>' in row
    # once it is past, it says so
    Membership.objects.filter(pk=invited.pk).update(
        invited_at=timezone.now() - timedelta(days=4),
        created_at=timezone.now() - timedelta(days=4),
        accepted_at=timezone.now() - timedelta(days=4),
    )
    assert "not yet · link expired" in member_row(bcorp, "new@example.com")
    # a new link, used: in from today
    welcome = link_on(
        bcorp.post("/settings/members/", {"action": "invite", "membership": invited.pk}),
        "welcome",
    )
    done = Client().post(welcome, {"password": "a-long-password", "password2": "a-long-password"})
    assert done.status_code == 302
    row = member_row(bcorp, "new@example.com")
    assert f'data-label="Member since">{timezone.now():%Y-%m-%d}</td>' in row
    assert "link" not in row.split('data-label="Member since"')[1].split("</td>")[0]


def member_row(client: Client, email: str) -> str:
    page = client.get("/settings/members/").content.decode()
    row = page[page.index(f"<td>{email}") :]
    return row[: row.index("</tr>")]
