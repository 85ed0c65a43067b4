"""The organization settings pages: members and roles, API keys, billing."""

import re
from datetime import timedelta
from html import unescape

import pytest
from django.core.management import call_command
from django.test import Client
from django.utils import timezone

from accounts.models import ApiKey, AuthSession, Membership, User
from billing.models import Subscription


@pytest.fixture
def admin(factory, org):
    return factory.member(org, email="admin@example.com", role="admin")


@pytest.fixture
def admin_client(factory, admin):
    return factory.member_client(admin, enforce_csrf=False)


@pytest.fixture
def member(factory, org):
    return factory.member(org, email="member@example.com", role="member")


@pytest.fixture
def member_client(factory, member):
    return factory.member_client(member, enforce_csrf=False)


# --- access -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "path", ["/settings/", "/settings/members/", "/settings/api-keys/", "/settings/billing/"]
)
def test_pages_need_login(db, path):
    response = Client().get(path)
    assert response.status_code == 302
    assert response["Location"] == f"/accounts/login/?next={path}"


def test_posts_need_login(db, org):
    response = Client().post("/settings/members/", {"action": "add", "email": "x@example.com"})
    assert response.status_code == 302
    assert not User.objects.filter(email="x@example.com").exists()


def test_posts_need_csrf(factory, admin):
    client = factory.member_client(admin, enforce_csrf=True)
    response = client.post(
        "/settings/members/", {"action": "add", "email": "x@example.com", "role": "member"}
    )
    assert response.status_code == 403
    assert not User.objects.filter(email="x@example.com").exists()


def test_overview_links_the_sections(admin_client):
    body = admin_client.get("/settings/").content.decode()
    for link in ("/settings/members/", "/settings/api-keys/", "/settings/billing/"):
        assert link in body


# --- members ------------------------------------------------------------------------------


def test_members_page_lists_only_this_organization(factory, org, admin_client, member):
    other = factory.org("other")
    factory.member(other, email="stranger@example.com", role="admin")
    body = admin_client.get("/settings/members/").content.decode()
    assert "admin@example.com" in body and "member@example.com" in body
    assert "stranger@example.com" not in body


def test_admin_adds_a_new_user_without_password(org, admin_client):
    response = admin_client.post(
        "/settings/members/", {"action": "add", "email": " New@Example.com ", "role": "member"}
    )
    assert response.status_code == 200
    page = response.content.decode()
    # invited, not a member yet: the page says so, not "is now a member"
    assert "new@example.com is invited (member): send them the link below" in page
    assert "is now a member" not in page
    row = page.split("<td>new@example.com", 1)[1].split("</tr>", 1)[0]
    assert "invited, not joined yet" in row and "not yet" in row
    membership = Membership.objects.get(user__email="new@example.com", organization=org)
    assert membership.role == "member"
    assert not membership.user.has_usable_password()


def test_an_existing_user_added_is_invited_not_a_member_yet(factory, org, admin_client):
    other = factory.org("other")
    factory.member(other, email="known@example.com", password="correct-horse-battery")
    response = admin_client.post(
        "/settings/members/", {"action": "add", "email": "known@example.com", "role": "admin"}
    )
    assert response.status_code == 200
    page = response.content.decode()
    assert "they join when they open the link below while logged in with that e-mail" in page
    assert "/accounts/join/" in page and "/accounts/welcome/" not in page
    assert "invited, not joined yet" in page
    membership = Membership.objects.get(user__email="known@example.com", organization=org)
    assert membership.role == "admin" and membership.is_pending
    assert User.objects.get(email="known@example.com").check_password("correct-horse-battery")
    # logging in still starts where they are a member
    known = Client()
    login = known.post(
        "/accounts/login/", {"email": "known@example.com", "password": "correct-horse-battery"}
    )
    assert login.status_code == 302
    assert "Settings · Other" in known.get("/settings/").content.decode()


def test_adding_an_existing_member_is_a_clear_error(org, admin_client, member):
    response = admin_client.post(
        "/settings/members/", {"action": "add", "email": "member@example.com", "role": "admin"}
    )
    assert response.status_code == 409
    assert "already a member" in response.content.decode()
    assert Membership.objects.get(pk=member.pk).role == "member"


def test_adding_a_bad_email_or_role_is_refused(org, admin_client):
    response = admin_client.post(
        "/settings/members/", {"action": "add", "email": "not-an-email", "role": "member"}
    )
    assert response.status_code == 400
    response = admin_client.post(
        "/settings/members/", {"action": "add", "email": "ok@example.com", "role": "owner"}
    )
    assert response.status_code == 400
    assert not User.objects.filter(email="ok@example.com").exists()


def test_user_text_is_escaped(org, admin_client):
    response = admin_client.post(
        "/settings/members/",
        {"action": "add", "email": "<script>alert(1)</script>@x.com", "role": "member"},
    )
    assert "<script>alert(1)</script>" not in response.content.decode()


def test_member_cannot_add_remove_or_change_roles(org, admin, member, member_client):
    body = member_client.get("/settings/members/").content.decode()
    assert "admin@example.com" in body and "Add member" not in body
    response = member_client.post(
        "/settings/members/", {"action": "add", "email": "x@example.com", "role": "admin"}
    )
    assert response.status_code == 403
    assert not User.objects.filter(email="x@example.com").exists()
    response = member_client.post(
        "/settings/members/", {"action": "remove", "membership": admin.pk}
    )
    assert response.status_code == 403
    response = member_client.post(
        "/settings/members/", {"action": "role", "membership": member.pk, "role": "admin"}
    )
    assert response.status_code == 403
    assert Membership.objects.get(pk=admin.pk).role == "admin"
    assert Membership.objects.get(pk=member.pk).role == "member"


def test_admin_removes_a_member_and_their_sessions_end(factory, org, admin_client, member):
    member_client = factory.member_client(member, enforce_csrf=False)
    assert member_client.get("/settings/").status_code == 200
    response = admin_client.post(
        "/settings/members/", {"action": "remove", "membership": member.pk}
    )
    assert response.status_code == 200
    assert not Membership.objects.filter(pk=member.pk).exists()
    assert not AuthSession.objects.filter(membership_id=member.pk).exists()
    assert member_client.get("/settings/").status_code == 302
    assert User.objects.filter(email="member@example.com").exists()


def test_someone_removed_from_their_last_organization_is_told_so_and_can_start_one(
    admin_client, member
):
    """Their password is right, but no organization holds them: the log-in said the e-mail
    and password matched no account, and the sign-up that the account exists: a loop."""
    admin_client.post("/settings/members/", {"action": "remove", "membership": member.pk})
    login = {"email": "member@example.com", "password": "correct-horse-battery"}
    refused = Client().post("/accounts/login/", login)
    html = refused.content.decode()
    assert refused.status_code == 400 and "do not match" not in html
    assert "Your account is in no organization now" in html
    assert "sign up with this e-mail and password" in html
    # the password was right: its box is not marked wrong
    password = re.search(r'<input id="id_password"[^>]*>', html).group(0)
    assert "aria-invalid" not in password
    # a wrong password is still a plain refusal, and signs nobody up
    wrong = {**login, "password": "not-the-password"}
    assert "do not match" in Client().post("/accounts/login/", wrong).content.decode()
    taken = Client().post("/accounts/signup/", {**wrong, "organization": "Mine"})
    assert "An account with this e-mail exists" in taken.content.decode()
    # their own password: an organization of their own, on the same account
    guest = Client()
    signed = guest.post("/accounts/signup/", {**login, "organization": "Mine"})
    assert signed.status_code == 302 and "__session" in signed.cookies
    mine = Membership.objects.get(user__email="member@example.com")
    assert mine.organization.name == "Mine" and mine.role == "admin"
    assert User.objects.filter(email="member@example.com").count() == 1
    assert Client().post("/accounts/login/", login).status_code == 302
    # once in an organization, the address is taken for sign-ups again
    again = Client().post("/accounts/signup/", {**login, "organization": "Second"})
    assert again.status_code == 400 and "exists" in again.content.decode()


def test_last_admin_cannot_be_removed_or_demoted(org, admin, admin_client, member):
    response = admin_client.post("/settings/members/", {"action": "remove", "membership": admin.pk})
    assert response.status_code == 400
    assert "at least one admin" in response.content.decode()
    response = admin_client.post(
        "/settings/members/", {"action": "role", "membership": admin.pk, "role": "member"}
    )
    assert response.status_code == 400
    assert Membership.objects.get(pk=admin.pk).role == "admin"


def test_an_admin_added_by_address_counts_as_one_only_once_they_choose_a_password(
    factory, org, admin, admin_client
):
    """The only admin who had joined added a new address as admin, then demoted (or
    removed) themselves: the organization was left to someone who had not come yet, with a
    link of three days, and no one could act for it (billing, keys, members)."""
    admin_client.post(
        "/settings/members/", {"action": "add", "email": "cto@example.com", "role": "admin"}
    )
    invited = Membership.objects.get(user__email="cto@example.com")
    page = admin_client.get("/settings/members/").content.decode()
    assert "last admin" in page  # the admin's own row: the invited one does not count
    for data in (
        {"action": "role", "membership": admin.pk, "role": "member"},
        {"action": "remove", "membership": admin.pk},
    ):
        response = admin_client.post("/settings/members/", data)
        assert response.status_code == 400, data
        assert "at least one admin" in response.content.decode()
    assert Membership.objects.get(pk=admin.pk).role == "admin"
    # the overview counts who is in, and says who is invited
    overview = admin_client.get("/settings/").content.decode()
    assert "1 member · 1 invited, not joined yet." in overview
    # a deactivated account is neither
    gone = factory.member(org, email="gone@example.com").user
    gone.is_active = False
    gone.save()
    overview = admin_client.get("/settings/").content.decode()
    assert "1 member · 1 invited, not joined yet." in overview
    # once they have chosen a password they count, and the first admin may step down
    invited.user.set_password("a-new-password-1")
    invited.user.save()
    assert "2 members." in admin_client.get("/settings/").content.decode()
    response = admin_client.post(
        "/settings/members/", {"action": "role", "membership": admin.pk, "role": "member"}
    )
    assert response.status_code == 200
    page = response.content.decode()
    # drawn for the role they have now: no admin's controls, each of which answered 403
    assert "You are now member: only admins add and remove members." in page
    assert 'value="remove"' not in page and "Add member" not in page
    assert Membership.objects.get(pk=admin.pk).role == "member"


def test_admin_promotes_then_the_old_admin_may_leave(org, admin, admin_client, member):
    response = admin_client.post(
        "/settings/members/", {"action": "role", "membership": member.pk, "role": "admin"}
    )
    assert response.status_code == 200
    assert f"{member.user.email} is now admin." in response.content.decode()
    assert Membership.objects.get(pk=member.pk).role == "admin"
    response = admin_client.post(
        "/settings/members/", {"action": "role", "membership": member.pk, "role": "admin"}
    )
    page = response.content.decode()
    assert f"{member.user.email} is already admin; nothing changed." in page
    response = admin_client.post("/settings/members/", {"action": "remove", "membership": admin.pk})
    assert response.status_code == 302 and response["Location"] == "/accounts/login/"
    assert not Membership.objects.filter(pk=admin.pk).exists()


def test_another_organizations_membership_is_not_found(factory, org, admin_client):
    other = factory.org("other")
    foreign = factory.member(other, email="foreign@example.com", role="member")
    factory.member(other, email="boss@example.com", role="admin")
    for data in (
        {"action": "remove", "membership": foreign.pk},
        {"action": "role", "membership": foreign.pk, "role": "admin"},
        {"action": "remove", "membership": "nonsense"},
    ):
        response = admin_client.post("/settings/members/", data)
        assert response.status_code == 404
    assert Membership.objects.get(pk=foreign.pk).role == "member"


def test_a_member_is_named_by_ascii_digits_only(org, admin_client, factory):
    """int() reads "٣" (Arabic-Indic three), "0_3", "+3" and " 3 " as 3: none names a member."""
    member = factory.member(org, email="named@example.com", role="member")
    arabic = str(member.pk).translate(str.maketrans("0123456789", "٠١٢٣٤٥٦٧٨٩"))
    for raw in (arabic, f" {member.pk} ", f"+{member.pk}", f"0_{member.pk}"):
        for action in ("remove", "role", "join-link"):
            data = {"action": action, "membership": raw, "role": "admin"}
            response = admin_client.post("/settings/members/", data)
            assert response.status_code == 404, (raw, action)
            assert "No such member in this organization." in response.content.decode()
    assert Membership.objects.get(pk=member.pk).role == "member"
    data = {"action": "remove", "membership": member.pk}
    response = admin_client.post("/settings/members/", data)
    assert response.status_code == 200 and not Membership.objects.filter(pk=member.pk).exists()


# --- API keys -----------------------------------------------------------------------------


def _token_in(body: str) -> str | None:
    match = re.search(r'id="new-key-token"[^>]*value="([^"]+)"', body)
    return match.group(1) if match else None


def test_key_is_shown_once_and_authenticates_until_revoked(org, admin_client):
    response = admin_client.post(
        "/settings/api-keys/",
        {
            "action": "create",
            "name": "ci",
            "permissions": ["projects:manage"],
            "expires_in_days": "30",
        },
    )
    assert response.status_code == 200
    assert response["Cache-Control"].startswith("max-age=0")
    body = response.content.decode()
    token = _token_in(body)
    assert token and "will not be shown again" in body
    # the box the cursor is put in says what happened (a screen reader heard the name alone)
    assert '<label for="new-key-token">Key “ci” created</label>' in body
    # the form's hints are tied to their fields, and say what a key without a permission
    # may do: services in any project (interface §3), not only "the projects it created"
    assert "adds, changes and deletes services in any project" in body
    assert 'aria-describedby="expires-hint"' in body and 'id="expires-hint"' in body
    assert 'aria-describedby="permissions-hint"' in body and 'id="permissions-hint"' in body
    key = ApiKey.objects.get(organization=org, name="ci")
    assert key.permissions == ["projects:manage"] and key.expires_at is not None

    again = admin_client.get("/settings/api-keys/").content.decode()
    assert token not in again and "ci" in again and "projects:manage" in again

    bearer = Client(HTTP_AUTHORIZATION=f"Bearer {token}")
    assert bearer.get("/v1/limits").status_code == 200

    response = admin_client.post("/settings/api-keys/", {"action": "revoke", "key": key.pk})
    assert response.status_code == 200
    assert bearer.get("/v1/limits").status_code == 401
    assert ApiKey.objects.get(pk=key.pk).revoked_at is not None


def test_key_without_expiry_and_errors(org, admin_client):
    response = admin_client.post("/settings/api-keys/", {"action": "create", "name": "ops"})
    assert response.status_code == 200
    assert ApiKey.objects.get(name="ops").expires_at is None
    # a key with nothing ticked is no key without permissions: it reads, creates and manages
    # its own projects (it was listed as "none" beside a hint saying it reads everything)
    listed = admin_client.get("/settings/api-keys/").content.decode()
    assert ">none<" not in listed and "no permissions" not in listed
    assert ">basic</span>" in listed and "basic permissions ·" in listed
    response = admin_client.post("/settings/api-keys/", {"action": "create", "name": "ops"})
    assert response.status_code == 409 and _token_in(response.content.decode()) is None
    response = admin_client.post(
        "/settings/api-keys/", {"action": "create", "name": "x", "expires_in_days": "-3"}
    )
    assert response.status_code == 400
    response = admin_client.post(
        "/settings/api-keys/", {"action": "create", "name": "y", "permissions": ["root"]}
    )
    assert response.status_code == 400
    assert not ApiKey.objects.filter(name__in=["x", "y"]).exists()


def test_an_expired_key_is_listed_apart_and_gives_its_name_to_a_new_key(org, admin_client):
    """A CI key rotated under its name once it had expired was refused ("An active API key is
    named ... already"), while no page listed the expired key or could revoke it."""
    admin_client.post(
        "/settings/api-keys/", {"action": "create", "name": "ci-deploy", "expires_in_days": "1"}
    )
    old = ApiKey.objects.get(organization=org, name="ci-deploy")
    ApiKey.objects.filter(pk=old.pk).update(expires_at=timezone.now() - timedelta(hours=1))
    page = admin_client.get("/settings/api-keys/").content.decode()
    active, expired = page.split('id="expired-heading"')
    assert "ci-deploy" not in active.split('id="create-key"')[0]
    assert "ci-deploy" in expired and "Remove the expired key ci-deploy" in expired

    response = admin_client.post("/settings/api-keys/", {"action": "create", "name": "ci-deploy"})
    assert response.status_code == 200 and _token_in(response.content.decode())
    old.refresh_from_db()
    assert old.revoked_at is not None
    new = ApiKey.objects.get(organization=org, name="ci-deploy", revoked_at__isnull=True)
    assert new.pk != old.pk and new.expires_at is None
    assert 'id="expired-heading"' not in admin_client.get("/settings/api-keys/").content.decode()


def test_an_expired_key_is_removed_from_the_page(org, admin_client):
    admin_client.post(
        "/settings/api-keys/", {"action": "create", "name": "nightly", "expires_in_days": "1"}
    )
    key = ApiKey.objects.get(organization=org, name="nightly")
    ApiKey.objects.filter(pk=key.pk).update(expires_at=timezone.now() - timedelta(days=2))
    response = admin_client.post("/settings/api-keys/", {"action": "revoke", "key": key.pk})
    assert response.status_code == 200
    assert "The expired key “nightly” is removed." in response.content.decode()
    assert ApiKey.objects.get(pk=key.pk).revoked_at is not None
    again = admin_client.post("/settings/api-keys/", {"action": "revoke", "key": key.pk})
    assert again.status_code == 404


def test_a_long_list_of_keys_leads_to_the_form_under_it(factory, org, admin_client):
    for index in range(11):
        factory.key(org, f"job-{index:02}")
    page = admin_client.get("/settings/api-keys/").content.decode()
    assert page.index('href="#create-key"') < page.index("job-00") < page.index('id="create-key"')


def test_member_sees_keys_but_cannot_create_or_revoke(factory, org, member_client):
    factory.key(org, "deploy")
    key = ApiKey.objects.get(name="deploy")
    body = member_client.get("/settings/api-keys/").content.decode()
    assert "deploy" in body and "Create key" not in body
    response = member_client.post("/settings/api-keys/", {"action": "create", "name": "mine"})
    assert response.status_code == 403
    assert not ApiKey.objects.filter(name="mine").exists()
    response = member_client.post("/settings/api-keys/", {"action": "revoke", "key": key.pk})
    assert response.status_code == 403
    assert ApiKey.objects.get(pk=key.pk).revoked_at is None


def test_another_organizations_key_is_neither_listed_nor_revoked(factory, org, admin_client):
    other = factory.org("other")
    factory.key(other, "secret-elsewhere")
    key = ApiKey.objects.get(name="secret-elsewhere")
    assert "secret-elsewhere" not in admin_client.get("/settings/api-keys/").content.decode()
    response = admin_client.post("/settings/api-keys/", {"action": "revoke", "key": key.pk})
    assert response.status_code == 404
    assert ApiKey.objects.get(pk=key.pk).revoked_at is None


# --- billing ------------------------------------------------------------------------------


def test_billing_page_shows_plan_limits_and_credits(org, member_client):
    body = member_client.get("/settings/billing/").content.decode()
    assert "free" in body
    assert "0 of 3" in body
    assert "50 left of 50" in body
    assert 'name="cycle"' not in body


def test_an_admin_moves_the_subscription_to_another_plan(org, admin_client, member_client):
    """Subscribed, a team admin could not see what business gives, nor move to it (Paddle's
    portal changes no plan, though the page said it did)."""
    call_command("set_subscription", "--org", org.slug, "--plan", "team", "--status", "active")
    body = admin_client.get("/settings/billing/").content.decode()
    assert "<strong>business</strong>: 250 projects, 10,000 AI credits a month" in body
    form = re.search(r'action="/settings/billing/plan/"[^>]*data-confirm="([^"]*)"', body)
    assert form and "Move to the business plan now?" in form.group(1)
    assert "prorated" in form.group(1) and "Move to team" not in body
    assert "change plan" not in body  # the portal's words no longer promise it
    # a member sees the plans, and no button
    page = member_client.get("/settings/billing/").content.decode()
    assert "<strong>business</strong>: 250" in page and "/settings/billing/plan/" not in page
    assert member_client.post("/settings/billing/plan/", {"plan": "business"}).status_code == 403
    assert Subscription.objects.get(organization=org).plan == "team"
    response = admin_client.post("/settings/billing/plan/", {"plan": "business"})
    assert response.status_code == 302 and response["Location"] == "/settings/billing/"
    page = admin_client.get("/settings/billing/").content.decode()
    assert "The organization is on the business plan: 250 projects, 10,000 AI credits" in page
    assert "0 of 250" in page and " left of 10,000 a month" in page
    assert admin_client.post("/settings/billing/plan/", {"plan": "platinum"}).status_code == 400
    assert Subscription.objects.get(organization=org).plan == "business"


def test_a_move_to_a_plan_of_fewer_projects_says_what_it_leaves(
    org, admin_client, factory, settings
):
    """ "Move to team" said only "its limits apply at once: 25 projects" to an organization
    of 300: not that no project could be made until 276 were deleted."""
    from diagrams.models import Project

    settings.PLANS = {**settings.PLANS, "team": {**settings.PLANS["team"], "max_projects": 2}}
    call_command("set_subscription", "--org", org.slug, "--plan", "business", "--status", "active")
    for index in range(3):
        Project.objects.create(id=f"p{index}-aaaaaaaa", organization=org, name=f"P{index}")
    page = admin_client.get("/settings/billing/").content.decode()
    question = unescape(re.search(r'data-confirm="(Move to the team plan now\?[^"]*)"', page)[1])
    assert "This organization has 3 projects, 1 more than that" in question
    assert "none can be created until 2 are deleted" in question
    Project.objects.filter(pk="p0-aaaaaaaa").delete()
    page = admin_client.get("/settings/billing/").content.decode()
    question = unescape(re.search(r'data-confirm="(Move to the team plan now\?[^"]*)"', page)[1])
    assert "2 projects, all that plan allows: none can be created until one is" in question


@pytest.mark.parametrize("case", ["past_due", "given by hand"])
def test_no_plan_move_is_offered_where_the_provider_would_refuse_it(
    org, admin_client, settings, case
):
    """An overdue payment (Paddle answers 409), or a plan the operators gave by hand on a
    Paddle server (no subscription of Paddle's to change): the buttons could only fail, with
    "try again in a few minutes"."""
    status = "past_due" if case == "past_due" else "active"
    call_command("set_subscription", "--org", org.slug, "--plan", "team", "--status", status)
    if case != "past_due":
        settings.BILLING_PROVIDER = "paddle"
    page = admin_client.get("/settings/billing/").content.decode()
    assert "/settings/billing/plan/" not in page
    said = "update the payment method" if case == "past_due" else "ask them to change it"
    assert said in page
    response = admin_client.post("/settings/billing/plan/", {"plan": "business"})
    assert response.status_code == 409 and said in response.content.decode()
    assert Subscription.objects.get(organization=org).plan == "team"


def test_a_plan_changed_here_credits_the_rest_of_the_month_only(org, admin_client):
    """Billed prorated, so credited so: moving up near the month's end, then down, gave a
    whole month of the bigger plan's credits for a few cents, and could be done again."""
    from billing.services import ai_credits_current

    call_command("set_subscription", "--org", org.slug, "--plan", "team", "--status", "active")
    row = ai_credits_current(organization=org)
    assert (row.remaining, row.granted) == (1000, 1000)
    before = timezone.now()
    admin_client.post("/settings/billing/plan/", {"plan": "business"})
    after = timezone.now()
    row.refresh_from_db()
    start = (row.resets_at - timedelta(days=1)).replace(
        day=1, hour=0, minute=0, second=0, microsecond=0
    )
    whole = (row.resets_at - start).total_seconds()
    most = 1000 + int(9000 * (row.resets_at - before).total_seconds() / whole)
    least = 1000 + int(9000 * (row.resets_at - after).total_seconds() / whole) - 1
    assert least <= row.remaining <= most and row.granted == 10000
    # down keeps the balance; up again gives nothing more this month
    given = row.remaining
    admin_client.post("/settings/billing/plan/", {"plan": "team"})
    admin_client.post("/settings/billing/plan/", {"plan": "business"})
    row.refresh_from_db()
    assert row.remaining == given


@pytest.mark.parametrize(
    "status, said, unsaid",
    [
        (
            "trialing",
            "in its trial · billed monthly · the trial ends {end}, first billed {end}",
            "renews",
        ),
        ("past_due", "payment overdue · billed monthly · period ends {end}", "renews"),
        ("active", "active · billed monthly · renews {end}, billed then", "trial"),
    ],
)
def test_the_subscription_is_said_as_its_status_has_it(org, admin_client, status, said, unsaid):
    """A trial read "renews …, billed then" (it ends, and is first billed), and an overdue
    payment "renews" above the warning that it did not go through."""
    call_command("set_subscription", "--org", org.slug, "--plan", "team", "--status", status)
    end = Subscription.objects.get(organization=org).current_period_end
    page = admin_client.get("/settings/billing/").content.decode()
    facts = re.sub(
        r"<[^>]+>", "", page[page.index('<dl class="settings-facts">') : page.index("</dl>")]
    )
    assert said.format(end=f"{end:%Y-%m-%d}") in facts
    assert unsaid not in facts


def test_admin_switches_cycle_and_opens_portal(org, admin_client):
    call_command("set_subscription", "--org", org.slug, "--plan", "team", "--status", "active")
    body = admin_client.get("/settings/billing/").content.decode()
    assert "team" in body and "0 of 25" in body
    # the switch names the other cycle and asks first: with Paddle it is a prorated charge
    form = re.search(r'action="/settings/billing/" data-confirm="([^"]*)"', body)
    assert form and "annually from now" in form.group(1) and "prorated" in form.group(1)
    assert "Switch to annual billing" in body and "Switch to monthly billing" not in body
    before = Subscription.objects.get(organization=org).current_period_end
    response = admin_client.post("/settings/billing/", {"cycle": "annual"})
    # then a GET (a reload does not switch again), which says what happened
    assert response.status_code == 302 and response["Location"] == "/settings/billing/"
    subscription = Subscription.objects.get(organization=org)
    assert subscription.billing_cycle == "annual"
    # the annual period starts now (as Paddle prorates immediately): a year, not the month
    assert (subscription.current_period_end - before).days >= 330
    assert subscription.next_billed_at == subscription.current_period_end
    page = admin_client.get("/settings/billing/").content.decode()
    assert "The subscription is billed annually; the new period ends" in page
    # the period's end and the next bill on one day are said once ("period ends 2026-12-29 ·
    # next bill 2026-12-29" read as two events)
    facts = page[page.index('<dl class="settings-facts">') : page.index("</dl>")]
    # a date is not broken at its hyphens on a phone ("2026-" / "12-01")
    assert f'<span class="nowrap">{subscription.next_billed_at:%Y-%m-%d}</span>' in facts
    assert re.search(r'resets <span class="nowrap">\d{4}-\d\d-\d\d \d\d:\d\d UTC</span>', facts)
    facts = re.sub(r"<[^>]+>", "", facts)
    assert f"renews {subscription.next_billed_at:%Y-%m-%d}, billed then" in facts
    assert "next bill" not in facts and "period ends" not in facts
    assert "Switch to monthly billing" in page and "Switch to annual billing" not in page
    response = admin_client.post("/settings/billing/", {"cycle": "weekly"})
    assert response.status_code == 400
    response = admin_client.post("/settings/billing/portal/")
    assert response.status_code == 302
    assert "/billing/portal/" in response["Location"]


def test_switch_cycle_without_subscription_is_explained(org, admin_client):
    response = admin_client.post("/settings/billing/", {"cycle": "annual"})
    assert response.status_code == 404
    assert "no subscription" in response.content.decode()
    assert admin_client.post("/settings/billing/portal/").status_code == 404


def test_a_canceled_subscription_offers_plans_not_a_cycle(org, admin_client, factory):
    call_command("set_subscription", "--org", org.slug, "--plan", "team", "--status", "canceled")
    page = admin_client.get("/settings/billing/").content.decode()
    assert 'name="cycle"' not in page
    assert "Choose a plan" in page and "subscription is canceled" in page
    # a canceled subscription has no period going on, nor a bill to come; nor is the plan
    # said to be out of force "while canceled" beside its status (it is over)
    assert "period ends" not in page and "next bill" not in page
    assert "not in force" not in page
    assert 'canceled <span class="muted">(it was the team plan, billed monthly)</span>' in page
    response = admin_client.post("/settings/billing/", {"cycle": "annual"})
    assert response.status_code == 404
    assert "canceled" in response.content.decode()
    api = factory.key_client(org, "billing", ["billing:manage"])
    response = api.post(
        "/v1/billing/subscription/switch-cycle",
        {"billingCycle": "annual"},
        content_type="application/json",
    )
    assert response.status_code == 404
    assert response.json()["code"] == "subscription_not_found"
    assert Subscription.objects.get(organization=org).billing_cycle == "monthly"


def test_an_overdue_payment_is_said_in_words_with_what_to_do(org, admin_client, member_client):
    call_command("set_subscription", "--org", org.slug, "--plan", "team", "--status", "past_due")
    page = admin_client.get("/settings/billing/").content.decode()
    assert "past_due" not in page and "payment overdue · billed monthly" in page
    assert "The last payment did not go through. Update the payment method in the billing" in page
    assert "Open billing portal" in page
    seen = member_client.get("/settings/billing/").content.decode()
    assert "An admin can update the payment method in the billing portal" in seen


def test_credits_carried_over_are_said_so(org, admin_client):
    call_command("set_subscription", "--org", org.slug, "--plan", "team", "--status", "active")
    admin_client.get("/settings/billing/")  # the team plan's credits are granted
    call_command("set_subscription", "--org", org.slug, "--plan", "team", "--status", "paused")
    page = admin_client.get("/settings/billing/").content.decode()
    assert "carried over from the earlier plan; the free plan gives 50 a month" in page


def test_member_cannot_switch_cycle_or_open_portal(org, member_client):
    call_command("set_subscription", "--org", org.slug, "--plan", "team", "--status", "active")
    response = member_client.post("/settings/billing/", {"cycle": "annual"})
    assert response.status_code == 403
    assert Subscription.objects.get(organization=org).billing_cycle == "monthly"
    assert member_client.post("/settings/billing/portal/").status_code == 403


def test_a_free_organization_sees_the_plans_and_its_admin_can_choose_one(
    org, admin_client, member_client
):
    body = admin_client.get("/settings/billing/").content.decode()
    assert "<strong>team</strong>: 25 projects" in body and "Choose a plan" in body
    assert "<strong>business</strong>: 250 projects, 10,000 AI credits a month" in body
    assert "Choose a plan" not in member_client.get("/settings/billing/").content.decode()
    assert member_client.post("/settings/billing/checkout/").status_code == 403
    # with the local provider, its portal is the checkout (no payment is taken)
    response = admin_client.post("/settings/billing/checkout/")
    assert response.status_code == 302 and "/billing/portal/" in response["Location"]
    portal = Client().post(
        response["Location"], {"plan": "team", "cycle": "annual", "status": "active"}
    )
    assert portal.status_code == 302 and response["Location"].endswith(portal["Location"])
    body = admin_client.get("/settings/billing/").content.decode()
    assert "0 of 25" in body and "billed annually" in body


def test_with_paddle_choosing_a_plan_goes_to_the_sites_checkout(org, admin_client, settings):
    settings.BILLING_PROVIDER = "paddle"
    settings.BILLING_CHECKOUT_URL = ""
    # no checkout page: no button that could only say so, and words for a customer (it
    # named a manage.py command)
    page = admin_client.get("/settings/billing/").content.decode()
    assert "Choose a plan" not in page and "manage.py" not in page
    assert "Plans are not sold online on this server yet" in page
    response = admin_client.post("/settings/billing/checkout/")  # a form posted anyway
    assert response.status_code == 503
    assert "Plans are not sold online on this server yet" in response.content.decode()
    settings.BILLING_CHECKOUT_URL = "https://example.com/pricing?ref=app"
    assert "Choose a plan" in admin_client.get("/settings/billing/").content.decode()
    response = admin_client.post("/settings/billing/checkout/")
    assert response.status_code == 302
    assert response["Location"] == f"https://example.com/pricing?ref=app&organization={org.slug}"


def invite_link(html: str) -> str:
    match = re.search(r'value="(http://testserver/accounts/welcome/[^"]+)"', html)
    assert match, "no invitation link on the page"
    return match.group(1).removeprefix("http://testserver")


def test_a_new_member_is_invited_by_a_link_that_works_once(org, admin_client):
    response = admin_client.post(
        "/settings/members/", {"action": "add", "email": "new@example.com", "role": "member"}
    )
    link = invite_link(response.content.decode())
    guest = Client()
    page = guest.get(link)
    assert page.status_code == 200 and "new@example.com" in page.content.decode()
    # the password rules apply, and nothing is set on a refusal
    refused = guest.post(link, {"password": "short", "password2": "short"})
    assert refused.status_code == 400 and "too short" in refused.content.decode()
    refused = guest.post(link, {"password": "a-long-password", "password2": "another-one"})
    assert refused.status_code == 400 and "differ" in refused.content.decode()
    assert not User.objects.get(email="new@example.com").has_usable_password()
    welcome = guest.post(link, {"password": "a-long-password", "password2": "a-long-password"})
    assert welcome.status_code == 302 and welcome["Location"] == "/"
    assert "__session" in welcome.cookies
    assert guest.get("/v1/limits").status_code == 200
    page = guest.get("/settings/").content.decode()
    assert org.name in page  # logged in to the organization that invited them
    # used once: the link is dead, and logging in works with the new password
    again = Client().get(link)
    assert again.status_code == 404 and "no longer works" in again.content.decode()
    login = Client().post(
        "/accounts/login/", {"email": "new@example.com", "password": "a-long-password"}
    )
    assert login.status_code == 302


def test_an_admin_can_make_a_new_link_and_nobody_else_can(org, admin_client, member_client):
    admin_client.post(
        "/settings/members/", {"action": "add", "email": "late@example.com", "role": "member"}
    )
    membership = Membership.objects.get(user__email="late@example.com")
    page = admin_client.get("/settings/members/").content.decode()
    assert "New invitation link" in page
    response = admin_client.post(
        "/settings/members/", {"action": "invite", "membership": membership.pk}
    )
    assert response.status_code == 200
    assert Client().get(invite_link(response.content.decode())).status_code == 200
    refused = member_client.post(
        "/settings/members/", {"action": "invite", "membership": membership.pk}
    )
    assert refused.status_code == 403
    # someone who can log in already needs no link
    own = Membership.objects.get(user__email="member@example.com")
    response = admin_client.post("/settings/members/", {"action": "invite", "membership": own.pk})
    assert response.status_code == 400 and "can log in" in response.content.decode()
    # added again before they came: invited, not "already a member", and where the link is
    again = admin_client.post(
        "/settings/members/", {"action": "add", "email": "late@example.com", "role": "member"}
    )
    assert again.status_code == 409
    assert "late@example.com is invited already and has not joined yet" in again.content.decode()
    assert "already a member" not in again.content.decode()
    # once they have set a password, they are a member
    user = User.objects.get(email="late@example.com")
    user.set_password("a-long-password")
    user.save()
    again = admin_client.post(
        "/settings/members/", {"action": "add", "email": "late@example.com", "role": "member"}
    )
    assert "already a member" in again.content.decode()


def test_a_forged_or_foreign_invitation_link_is_refused(org, admin_client):
    from django.core import signing

    from accounts.invitations import INVITE_SALT

    forged = signing.dumps({"m": 1, "at": "2026-01-01T00:00:00+00:00"}, salt="other-salt")
    unknown = signing.dumps({"m": 99999, "at": "2026-01-01T00:00:00+00:00"}, salt=INVITE_SALT)
    for token in ("forged-token", "%25%25", forged, unknown, "a" * 2000):
        response = Client().get(f"/accounts/welcome/{token}/")
        assert response.status_code == 404, token
        assert (
            Client()
            .post(
                f"/accounts/welcome/{token}/",
                {"password": "a-long-pw-1", "password2": "a-long-pw-1"},
            )
            .status_code
            == 404
        )


def test_a_member_changes_their_password_and_other_sessions_end(factory, member, member_client):
    elsewhere = factory.member_client(member, enforce_csrf=False)  # another browser
    assert elsewhere.get("/v1/limits").status_code == 200
    url = "/settings/account/"
    page = member_client.get(url).content.decode()
    assert "member@example.com" in page and "Change your password" in page
    wrong = member_client.post(
        url, {"current": "nope", "password": "a-new-password-1", "password2": "a-new-password-1"}
    )
    assert wrong.status_code == 400 and "not your current password" in wrong.content.decode()
    short = member_client.post(
        url, {"current": "correct-horse-battery", "password": "short", "password2": "short"}
    )
    assert short.status_code == 400 and "too short" in short.content.decode()
    differ = member_client.post(
        url,
        {"current": "correct-horse-battery", "password": "a-new-password-1", "password2": "x"},
    )
    assert differ.status_code == 400 and "differ" in differ.content.decode()
    # every problem at once: too short, and the copies differ
    both = member_client.post(
        url, {"current": "correct-horse-battery", "password": "abc", "password2": "abd"}
    ).content.decode()
    assert "too short" in both and "differ" in both
    assert User.objects.get(email="member@example.com").check_password("correct-horse-battery")
    done = member_client.post(
        url,
        {
            "current": "correct-horse-battery",
            "password": "a-new-password-1",
            "password2": "a-new-password-1",
        },
    )
    assert done.status_code == 200
    assert "Your password is changed. 1 other session logged out." in done.content.decode()
    assert member_client.get("/v1/limits").status_code == 200  # this one stays
    assert elsewhere.get("/v1/limits").status_code == 401  # the other is gone
    old = Client().post(
        "/accounts/login/", {"email": "member@example.com", "password": "correct-horse-battery"}
    )
    assert old.status_code == 400
    new = Client().post(
        "/accounts/login/", {"email": "member@example.com", "password": "a-new-password-1"}
    )
    assert new.status_code == 302


def test_an_invitation_to_an_organization_that_removed_you_sets_nothing(org, admin_client):
    response = admin_client.post(
        "/settings/members/", {"action": "add", "email": "gone@example.com", "role": "member"}
    )
    link = invite_link(response.content.decode())
    Membership.objects.filter(user__email="gone@example.com").delete()
    refused = Client().post(link, {"password": "a-long-password", "password2": "a-long-password"})
    assert refused.status_code == 404 and "no longer works" in refused.content.decode()
    assert not User.objects.get(email="gone@example.com").has_usable_password()


def test_someone_removed_before_they_came_and_added_again_gets_an_invitation_link(
    org, admin_client
):
    """Their account (made by the first invitation, no password) is no one's: added again it
    is a new account's case. It was given a join link, to open logged in to an account
    whose password nobody ever chose: a log-in no one could pass."""
    add = {"action": "add", "email": "again@example.com", "role": "member"}
    admin_client.post("/settings/members/", add)
    first = Membership.objects.get(user__email="again@example.com")
    listed = admin_client.get("/settings/members/").content.decode()
    assert (
        'data-confirm="Withdraw the invitation of again@example.com? Their invitation link '
        'stops working."' in listed
    )
    removed = admin_client.post("/settings/members/", {"action": "remove", "membership": first.pk})
    assert removed.status_code == 200
    assert (
        "again@example.com is no longer invited; their invitation link no longer works."
        in removed.content.decode()
    )
    # and yourself: said as yourself
    own = {"action": "add", "email": "admin@example.com", "role": "member"}
    assert "is your own address" in admin_client.post("/settings/members/", own).content.decode()
    response = admin_client.post("/settings/members/", add)
    html = response.content.decode()
    assert response.status_code == 200 and "/accounts/join/" not in html
    assert "they choose a password there and are in" in html
    guest = Client()
    welcome = guest.post(
        invite_link(html), {"password": "a-long-password", "password2": "a-long-password"}
    )
    assert welcome.status_code == 302 and "__session" in welcome.cookies
    assert org.name in guest.get("/settings/").content.decode()
    assert not Membership.objects.get(user__email="again@example.com").is_pending


def test_an_admin_cannot_take_over_an_account_of_another_organization(factory, org, admin_client):
    """The link sets the password of the whole account: an account that existed before this
    organization added it gets a join link instead, which sets nothing."""
    victim_org = factory.org("victim")
    victim = factory.member(victim_org, email="cfo@victim.example", role="admin")
    victim.user.set_unusable_password()
    victim.user.save()
    # an admin of `org` adds the same person, and asks for a link
    response = admin_client.post(
        "/settings/members/", {"action": "add", "email": "cfo@victim.example", "role": "member"}
    )
    assert response.status_code == 200
    assert "/accounts/welcome/" not in response.content.decode()
    assert "/accounts/join/" in response.content.decode()
    ours = Membership.objects.get(user=victim.user, organization=org)
    assert ours.is_pending
    refused = admin_client.post("/settings/members/", {"action": "invite", "membership": ours.pk})
    assert refused.status_code == 400 and "join link" in refused.content.decode()
    assert not User.objects.get(pk=victim.user_id).has_usable_password()
    # the victim's own organization's link still works: a pending membership grants nothing
    theirs = factory.member(victim_org, email="boss@victim.example", role="admin")
    response = factory.member_client(theirs, enforce_csrf=False).post(
        "/settings/members/", {"action": "invite", "membership": victim.pk}
    )
    assert response.status_code == 200
    assert Client().get(invite_link(response.content.decode())).status_code == 200


def test_a_link_made_first_stops_when_the_account_joins_another_organization(
    factory, org, admin_client
):
    response = admin_client.post(
        "/settings/members/", {"action": "add", "email": "new@example.com", "role": "member"}
    )
    link = invite_link(response.content.decode())
    other = factory.org("other")
    Membership.objects.create(
        user=User.objects.get(email="new@example.com"), organization=other, role="admin"
    )
    assert Client().get(link).status_code == 404
    used = Client().post(link, {"password": "a-long-password", "password2": "a-long-password"})
    assert used.status_code == 404
    assert not User.objects.get(email="new@example.com").has_usable_password()


def test_a_new_link_ends_the_earlier_one(org, admin_client):
    response = admin_client.post(
        "/settings/members/", {"action": "add", "email": "new@example.com", "role": "member"}
    )
    first = invite_link(response.content.decode())
    membership = Membership.objects.get(user__email="new@example.com")
    response = admin_client.post(
        "/settings/members/", {"action": "invite", "membership": membership.pk}
    )
    second = invite_link(response.content.decode())
    assert first != second
    assert Client().get(first).status_code == 404
    assert Client().get(second).status_code == 200
    for bad in ("abc", "", "1e3", str(10**30)):
        response = admin_client.post("/settings/members/", {"action": "invite", "membership": bad})
        assert response.status_code == 404, bad


def test_the_current_password_cannot_be_guessed_faster_than_at_log_in(
    member, member_client, settings
):
    settings.RATE_LIMIT_LOGIN = "3/h"
    for _ in range(3):
        wrong = member_client.post(
            "/settings/account/",
            {"current": "guess", "password": "a-new-password-1", "password2": "a-new-password-1"},
        )
        assert wrong.status_code == 400
    limited = member_client.post(
        "/settings/account/",
        {
            "current": "correct-horse-battery",
            "password": "a-new-password-1",
            "password2": "a-new-password-1",
        },
    )
    assert limited.status_code == 429 and int(limited["Retry-After"]) >= 1
    assert User.objects.get(pk=member.user_id).check_password("correct-horse-battery")


def test_a_subscribed_organization_is_not_sent_to_a_second_checkout(org, admin_client):
    call_command("set_subscription", "--org", org.slug, "--plan", "team", "--status", "active")
    response = admin_client.post("/settings/billing/checkout/")
    assert response.status_code == 400 and "billing portal" in response.content.decode()


def _selected(page: str, name: str) -> str:
    select = re.search(rf'<select id="id_{name}" name="{name}">(.*?)</select>', page, re.S).group(1)
    return re.search(r'<option value="([^"]*)" selected>', select).group(1)


def test_choosing_a_plan_after_a_cancellation_starts_an_active_subscription(org, admin_client):
    call_command("set_subscription", "--org", org.slug, "--plan", "team", "--status", "canceled")
    location = admin_client.post("/settings/billing/checkout/")["Location"]
    portal = Client()
    page = portal.get(location).content.decode()
    # the portal is the checkout here: it offers a new subscription, not the canceled one
    assert "Start a new subscription" in page and ">Subscribe</button>" in page
    assert _selected(page, "status") == "active"
    assert "business: 250 projects, 10,000 credits</option>" in page
    # the form sent as the page offers it
    form = {name: _selected(page, name) for name in ("plan", "cycle", "status")}
    form["plan"] = "business"
    response = portal.post(location, form)
    # a redirect: Back or a reload does not send the form again
    assert response.status_code == 302 and location.endswith(response["Location"])
    subscription = Subscription.objects.get(organization=org)
    assert (subscription.plan, subscription.status) == ("business", "active")
    page = portal.get(location).content.decode()
    assert "Saved: the organization is on the business plan, billed monthly" in page
    assert ">Save</button>" in page and _selected(page, "status") == "active"
    assert "0 of 250" in admin_client.get("/settings/billing/").content.decode()


def test_the_portal_says_when_a_saved_status_leaves_the_free_plan_in_force(org, admin_client):
    call_command("set_subscription", "--org", org.slug, "--plan", "team", "--status", "active")
    location = admin_client.post("/settings/billing/portal/")["Location"]
    portal = Client()
    response = portal.post(location, {"plan": "team", "cycle": "monthly", "status": "paused"})
    assert response.status_code == 302
    page = portal.get(location).content.decode()
    assert "Saved: the team subscription is paused, so the free plan&#x27;s limits apply" in page
    assert "changed at once" not in page
    # a refused form is answered in place, and says why
    response = portal.post(location, {"plan": "gold", "cycle": "monthly", "status": "active"})
    assert response.status_code == 400 and 'role="alert"' in response.content.decode()
    assert Subscription.objects.get(organization=org).status == "paused"


def test_a_password_too_long_to_log_in_with_is_refused_where_it_is_chosen(
    org, admin_client, member, member_client
):
    """The log-in form takes 200 characters at most: a longer password set through an
    invitation or a change could never be used again, and with no reset page the account
    was locked out for good."""
    too_long, longest = "B" * 201, "B" * 199 + "x"
    response = admin_client.post(
        "/settings/members/", {"action": "add", "email": "new@example.com", "role": "member"}
    )
    link = invite_link(response.content.decode())
    refused = Client().post(link, {"password": too_long, "password2": too_long})
    assert refused.status_code == 400 and "too long" in refused.content.decode()
    assert not User.objects.get(email="new@example.com").has_usable_password()
    changed = member_client.post(
        "/settings/account/",
        {"current": "correct-horse-battery", "password": too_long, "password2": too_long},
    )
    assert changed.status_code == 400 and "too long" in changed.content.decode()
    assert User.objects.get(email="member@example.com").check_password("correct-horse-battery")
    # the longest that is taken logs in
    welcome = Client().post(link, {"password": longest, "password2": longest})
    assert welcome.status_code == 302
    login = Client().post("/accounts/login/", {"email": "new@example.com", "password": longest})
    assert login.status_code == 302
