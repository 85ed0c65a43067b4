"""What operators do in Django admin, found by a review of it in a browser: each record
link shows one organization's rows only; a password set by an operator ends the user's
sessions; keys are revoked with an action and never made a 500 by a name; a project's
delete says what goes, counted; credits are added, not overwritten; nothing that other
systems key on (an organization's slug, an invitation's time) is edited by accident."""

import logging
import re

from django.test import Client
from django.utils import timezone

from accounts.models import ApiKey, AuthSession, Membership, Organization
from accounts.services import session_start
from archsvc.tests.helpers import refused_delete
from billing.models import AiCredits, WebhookEvent
from billing.services import ai_credits_current, ai_credits_spend
from diagrams.models import Pin, Project, PublicShareToken, Service, ServiceSnapshot
from diagrams.tests.helpers import new_project, new_service, put


def staff_client(email: str, permissions: list[str]):
    """A logged-in staff member holding only these permissions (codenames), and the user."""
    from django.contrib.auth.models import Permission

    from accounts.models import User

    staff = User.objects.create_user(email=email, password="staff-password-1")
    staff.is_staff = True
    staff.save()
    staff.user_permissions.set(Permission.objects.filter(codename__in=permissions))
    client = Client()
    client.force_login(staff)
    return client, staff


def listed(response) -> list[str]:
    """The primary keys of a changelist's rows."""
    return [str(row.pk) for row in response.context["cl"].result_list]


def test_an_organizations_links_show_its_rows_only(operator, factory):
    acme, acme50 = factory.org("acme-5"), factory.org("acme-50")
    for org in (acme, acme50):
        api = factory.key_client(org, "ci")
        new_project(api, f"Shop of {org.slug}")
        session_start(membership=factory.member(org))
    page = operator.get(f"/admin/accounts/organization/{acme.pk}/change/").content.decode()
    links = dict(
        (label, href.replace("&amp;", "&"))
        for href, label in re.findall(r'<a href="(/admin/[^"]+\?[^"]+)">([^<]+)</a>', page)
    )
    assert set(links) >= {"projects", "API keys", "sessions", "AI credits", "webhook events"}
    for label in ("projects", "API keys", "sessions"):
        rows = listed(operator.get(links[label]))
        assert len(rows) == 1, (label, rows)
    projects = operator.get(links["projects"]).content.decode()
    assert "Shop of acme-5" in projects and "Shop of acme-50" not in projects
    # the page sums the organization up: plan, projects, credits
    assert "free plan · 1 of 3 projects · AI credits:" in page


def test_an_organizations_slug_is_not_edited_here(operator, factory):
    org = factory.org("acme")
    admin = factory.member(org, role="admin")
    response = operator.post(
        f"/admin/accounts/organization/{org.pk}/change/",
        {
            "slug": "renamed",
            "name": "Acme Inc",
            "memberships-TOTAL_FORMS": "1",
            "memberships-INITIAL_FORMS": "1",
            "memberships-0-id": admin.pk,
            "memberships-0-organization": org.pk,
            "memberships-0-user": admin.user_id,
            "memberships-0-role": "admin",
            "memberships-0-invited_at_0": "2001-01-01",
            "memberships-0-invited_at_1": "00:00:00",
            "new_memberships-TOTAL_FORMS": "0",
            "new_memberships-INITIAL_FORMS": "0",
        },
    )
    errors = response.context and [
        response.context["inline_admin_formsets"][0].formset.non_form_errors(),
        response.context["errors"],
    ]
    assert response.status_code == 302, (response.context["adminform"].form.errors, errors)
    org.refresh_from_db()
    assert (org.slug, org.name) == ("acme", "Acme Inc")
    admin.refresh_from_db()
    assert admin.invited_at is None  # an invitation's time is the app's, not typed here


def test_a_password_set_by_an_operator_ends_the_users_sessions(operator, factory):
    org = factory.org("acme")
    membership = factory.member(org, email="ada@example.com")
    token = session_start(membership=membership)
    member = Client()
    member.cookies["__session"] = token
    assert member.get("/settings/").status_code == 200
    response = operator.post(
        f"/admin/accounts/user/{membership.user_id}/password/",
        {"password1": "a-new-strong-password-9", "password2": "a-new-strong-password-9"},
        follow=True,
    )
    assert "session(s) of this user in the app were ended" in response.content.decode()
    assert not AuthSession.objects.filter(ended_at__isnull=True).exists()
    assert member.get("/settings/").status_code == 302  # back to the log-in


def test_keys_are_revoked_by_an_action_and_a_taken_name_is_a_form_error(operator, factory):
    org = factory.org("acme")
    token = factory.key(org, "deploy")
    factory.key(org, "ci")
    key = ApiKey.objects.get(name="deploy")
    changelist = operator.get("/admin/accounts/apikey/")
    actions = [v for v, _ in changelist.context["action_form"].fields["action"].choices]
    assert "revoke_keys" in actions and "delete_selected" not in actions
    # renamed onto another active key's name: said on the form, not a 500
    response = operator.post(f"/admin/accounts/apikey/{key.pk}/change/", {"name": "ci"})
    assert response.status_code == 200
    assert "An active API key of this organization has this name." in response.content.decode()
    # expiry and revocation are not typed (the token carries its expiry)
    operator.post(
        f"/admin/accounts/apikey/{key.pk}/change/",
        {"name": "deploy", "expires_at_0": "2999-01-01", "expires_at_1": "00:00:00"},
    )
    key.refresh_from_db()
    assert key.expires_at is None and key.revoked_at is None
    client = Client(HTTP_AUTHORIZATION=f"Bearer {token}")
    assert client.get("/v1/limits").status_code == 200
    operator.post(
        "/admin/accounts/apikey/", {"action": "revoke_keys", "_selected_action": [key.pk]}
    )
    key.refresh_from_db()
    assert key.revoked_at is not None
    assert client.get("/v1/limits").status_code == 401
    assert ApiKey.objects.get(name="ci").revoked_at is None


def test_sessions_are_ended_by_an_action(operator, factory):
    org = factory.org("acme")
    session_start(membership=factory.member(org))
    session = AuthSession.objects.get()
    operator.post(
        "/admin/accounts/authsession/", {"action": "end_sessions", "_selected_action": [session.pk]}
    )
    session.refresh_from_db()
    assert session.ended_at is not None
    live = operator.get("/admin/accounts/authsession/?ended_at__isempty=1")
    assert listed(live) == []


def test_a_projects_delete_counts_what_goes_and_takes_it(operator, factory, caplog):
    org = factory.org("acme")
    api = factory.key_client(org, "ci")
    project = new_project(api, "Shop")
    new_service(api, project, {"name": "Checkout"})
    put(api, f"/v1/projects/{project}/services/checkout", {"description": "v2"})
    new_service(api, project, {"name": "Billing"})
    api.post(f"/v1/projects/{project}/public-share-token")
    form = operator.get("/admin/diagrams/project/").context["action_form"]
    assert form is None or "delete_selected" not in dict(form.fields["action"].choices)
    page = operator.get(f"/admin/diagrams/project/{project}/delete/")
    assert page.status_code == 200
    html = page.content.decode()
    assert "2 service(s) and their whole history: 3 snapshot(s)" in html
    assert "permission" not in html.lower().split("<body", 1)[1].split("</h1>", 1)[1][:2000]
    with caplog.at_level(logging.INFO, logger="archsvc.projects"):
        operator.post(f"/admin/diagrams/project/{project}/delete/", {"post": "yes"})
    assert not Project.objects.filter(pk=project).exists()
    # the log says who deleted what, as for a delete in the app
    assert (
        f"project deleted: {project} ('Shop') of acme, 2 services, 3 changes in its history, "
        "by operator op@example.com"
    ) in caplog.text
    assert not Service.objects.exists() and not ServiceSnapshot.objects.exists()
    assert not PublicShareToken.objects.exists() and not Pin.objects.exists()


def test_a_rename_here_says_who_and_a_save_of_nothing_moves_nothing(operator, factory):
    org = factory.org("acme")
    project = new_project(factory.key_client(org, "ci"), "Shop")
    before = Project.objects.get(pk=project)
    url = f"/admin/diagrams/project/{project}/change/"
    operator.post(url, {"name": "Shop", "description": before.description})
    unchanged = Project.objects.get(pk=project)
    assert unchanged.updated_at == before.updated_at and unchanged.updated_by == "ci"
    operator.post(url, {"name": "Webshop", "description": before.description})
    renamed = Project.objects.get(pk=project)
    assert renamed.name == "Webshop" and renamed.updated_at > before.updated_at
    assert renamed.updated_by == "operator op@example.com"


def _form_fields(page: str) -> dict:
    """A change form's inputs as the browser sends them back, unchanged."""
    fields = dict(re.findall(r'<input type="(?:text|hidden)" name="(\w+)" value="([^"]*)"', page))
    fields.update(re.findall(r'<textarea name="(\w+)"[^>]*>\s*([^<]*)</textarea>', page))
    return fields


def test_an_operators_save_does_not_undo_a_change_made_meanwhile(operator, factory):
    """The operator opens a project; meanwhile the customer renames it through the API;
    the operator saves a new description. The admin wrote the whole row back: the name was
    the old one again, in the admin's history as the operator's change."""
    org = factory.org("acme")
    api = factory.key_client(org, "ci")
    project = new_project(api, "Shop")
    url = f"/admin/diagrams/project/{project}/change/"
    form = _form_fields(operator.get(url).content.decode())
    assert form["name"] == "Shop" and form["seen"]
    assert put(api, f"/v1/projects/{project}", {"name": "Webshop"}).status_code == 200
    response = operator.post(url, {**form, "description": "Sells things"})
    page = response.content.decode()
    assert response.status_code == 200 and "The project was changed meanwhile, by ci" in page
    assert Project.objects.get(pk=project).name == "Webshop"
    assert Project.objects.get(pk=project).description == ""
    # opened again, the form shows the rename, and the description is saved beside it
    form = _form_fields(operator.get(url).content.decode())
    assert form["name"] == "Webshop"
    response = operator.post(url, {**form, "description": "Sells things"})
    assert response.status_code == 302
    saved = Project.objects.get(pk=project)
    assert (saved.name, saved.description) == ("Webshop", "Sells things")
    assert saved.updated_by == "operator op@example.com"
    from django.contrib.admin.models import LogEntry

    # the history names the field edited, not the form's own hidden one
    assert LogEntry.objects.get().get_change_message() == "Changed Description."


def test_a_services_page_says_what_it_is_now_and_links_its_history(operator, factory):
    org = factory.org("acme")
    api = factory.key_client(org, "ci")
    project = new_project(api, "Shop")
    new_service(api, project, {"name": "Checkout"})
    new_service(api, project, {"name": "Gone"})
    api.delete(f"/v1/projects/{project}/services/gone")
    page = operator.get(f"/admin/diagrams/service/?project__exact={project}").content.decode()
    assert "Checkout (checkout)" in page and "Gone (gone) <strong>deleted</strong>" in page
    gone = ServiceSnapshot.objects.filter(slug="gone").first().service_id
    detail = operator.get(f"/admin/diagrams/service/{gone}/change/").content.decode()
    assert f"/admin/diagrams/servicesnapshot/?service__exact={gone}" in detail
    history = operator.get(f"/admin/diagrams/servicesnapshot/?service__exact={gone}")
    assert len(listed(history)) == 2  # created, deleted


def test_credits_are_added_not_overwritten(operator, factory):
    org = factory.org("acme")
    credits = ai_credits_current(organization=org)
    start = credits.remaining
    page = operator.get(f"/admin/billing/aicredits/{credits.pk}/change/")  # the form opens
    assert page.status_code == 200
    ai_credits_spend(organization=org, amount=3)  # a member asks while the page is open
    operator.post(f"/admin/billing/aicredits/{credits.pk}/change/", {"add": "100"})
    assert AiCredits.objects.get(pk=credits.pk).remaining == start - 3 + 100
    operator.post(f"/admin/billing/aicredits/{credits.pk}/change/", {"add": "-100000"})
    assert AiCredits.objects.get(pk=credits.pk).remaining == 0
    # the history says what the balance did ("Added -100,000 credits" had taken 147)
    from django.contrib.admin.models import LogEntry

    said = [entry.get_change_message() for entry in LogEntry.objects.order_by("action_time")]
    assert said[-2].startswith(f"Added 100 credits: {start - 3 + 100} left until")
    assert said[-1].startswith(
        f"Took {start - 3 + 100} credits (-100,000 asked; a balance stays at 0 or more): 0 left"
    ), said[-1]


def test_webhook_events_are_found_by_organization_and_read_indented(operator, factory):
    org, other = factory.org("acme"), factory.org("globex")
    for index, owner in enumerate((org, other)):
        WebhookEvent.objects.create(
            event_id=f"evt_{index}",
            event_type="subscription.updated",
            occurred_at=timezone.now(),
            outcome="applied",
            payload={"data": {"status": "active", "custom_data": {"organization": owner.slug}}},
            organization=owner,
        )
    found = operator.get("/admin/billing/webhookevent/?q=globex").content.decode()
    assert "evt_1" in found and "evt_0" not in found
    event = WebhookEvent.objects.get(event_id="evt_1")
    detail = operator.get(f"/admin/billing/webhookevent/{event.pk}/change/").content.decode()
    assert "<pre" in detail and "  &quot;data&quot;: {\n    &quot;custom_data&quot;" in detail


def test_membership_rows_keep_their_dates(operator, factory):
    org = factory.org("acme")
    admin = factory.member(org, role="admin")
    invited = timezone.now().replace(microsecond=123456)
    Membership.objects.filter(pk=admin.pk).update(invited_at=invited)
    page = operator.get(f"/admin/accounts/organization/{org.pk}/change/").content.decode()
    assert 'name="memberships-0-invited_at' not in page  # shown, not an input
    assert Organization.objects.get(pk=org.pk).slug == "acme"
    assert Membership.objects.get(pk=admin.pk).invited_at == invited


def test_an_ended_session_stays_ended(operator, factory):
    """Emptying `ended_at` here brought back a session its user had logged out of (or one
    a password reset had ended): the old cookie worked again."""
    org = factory.org("acme")
    cookie = session_start(membership=factory.member(org))
    session = AuthSession.objects.get()
    AuthSession.objects.filter(pk=session.pk).update(ended_at=timezone.now())
    page = operator.get(f"/admin/accounts/authsession/{session.pk}/change/").content.decode()
    assert 'name="ended_at' not in page  # shown, not an input
    operator.post(f"/admin/accounts/authsession/{session.pk}/change/", {"ended_at": ""})
    assert AuthSession.objects.get(pk=session.pk).ended_at is not None
    browser = Client()
    browser.cookies["__session"] = cookie
    assert browser.get("/v1/projects").status_code == 401


def test_a_deactivated_admin_is_no_admin_and_the_last_one_stays_active(operator, factory):
    org = factory.org("acme")
    boss = factory.member(org, email="boss@acme.example", role="admin")
    # the only admin cannot be deactivated
    page = operator.get(f"/admin/accounts/user/{boss.user_id}/change/")
    form = page.context["adminform"].form
    data = {k: v for k, v in form.initial.items() if k in ("email", "password")}
    data.update({"date_joined_0": "2026-01-01", "date_joined_1": "00:00:00"})
    response = operator.post(f"/admin/accounts/user/{boss.user_id}/change/", data)
    assert response.status_code == 200 and "at least one admin" in response.content.decode()
    assert "only one of acme" in response.content.decode()
    boss.user.refresh_from_db()
    assert boss.user.is_active
    # a second admin who is deactivated does not count: the first still cannot be removed
    other = factory.member(org, email="other@acme.example", role="admin")
    other.user.is_active = False
    other.user.save()
    refused_delete(
        operator,
        f"/admin/accounts/membership/{boss.pk}/delete/",
        "Not deleted: boss@acme.example is the only admin of",
    )
    response = operator.post(f"/admin/accounts/membership/{boss.pk}/change/", {"role": "member"})
    assert "at least one admin" in response.content.decode()
    refused_delete(
        operator,
        f"/admin/accounts/user/{boss.user_id}/delete/",
        "make another member admin there first",
    )
    # once the second is active again, either may go
    other.user.is_active = True
    other.user.save()
    assert operator.get(f"/admin/accounts/membership/{boss.pk}/delete/").status_code == 200


def test_the_only_admin_s_password_cannot_be_disabled(operator, factory):
    """The password page's "Disabled" left the organization with no admin who could log
    in: an admin without a password is no admin for the last-admin rule."""
    org = factory.org("acme")
    boss = factory.member(org, email="boss@acme.example", role="admin")
    page = f"/admin/accounts/user/{boss.user_id}/password/"
    disable = {"usable_password": "false", "password1": "", "password2": "", "unset-password": "1"}
    response = operator.post(page, disable)
    assert response.status_code == 200
    assert "This user is the only one of acme." in response.content.decode()
    boss.user.refresh_from_db()
    assert boss.user.has_usable_password()
    # a new password is still set as ever; with another admin in, disabling is allowed
    new = {"usable_password": "true", "password1": "a-new-pass-99", "password2": "a-new-pass-99"}
    assert operator.post(page, new).status_code == 302
    factory.member(org, email="other@acme.example", role="admin")
    assert operator.post(page, disable).status_code == 302
    boss.user.refresh_from_db()
    assert not boss.user.has_usable_password()


def test_an_organization_made_here_with_members_has_an_admin_among_them(operator, factory):
    user = factory.member(factory.org("elsewhere")).user
    form = {
        "slug": "newco",
        "name": "NewCo",
        "created_at_0": "2026-11-28",
        "created_at_1": "10:00:00",
        "new_memberships-TOTAL_FORMS": "1",
        "new_memberships-INITIAL_FORMS": "0",
        "new_memberships-0-user": user.pk,
        "new_memberships-0-role": "member",
        "memberships-TOTAL_FORMS": "0",
        "memberships-INITIAL_FORMS": "0",
    }
    response = operator.post("/admin/accounts/organization/add/", form)
    assert response.status_code == 200 and "at least one admin" in response.content.decode()
    assert not Organization.objects.filter(slug="newco").exists()
    response = operator.post(
        "/admin/accounts/organization/add/", {**form, "new_memberships-0-role": "admin"}
    )
    assert response.status_code == 302
    made = Membership.objects.get(organization__slug="newco")
    assert made.role == "admin" and made.user == user and not made.is_pending
    # an organization that has one takes plain members
    other = factory.member(factory.org("third")).user
    org = Organization.objects.get(slug="newco")
    response = operator.post(
        f"/admin/accounts/organization/{org.pk}/change/",
        {
            **form,
            "new_memberships-0-user": other.pk,
            "memberships-TOTAL_FORMS": "1",
            "memberships-INITIAL_FORMS": "1",
            "memberships-0-id": made.pk,
            "memberships-0-organization": org.pk,
        },
    )
    assert response.status_code == 302, response.content.decode()[:2000]
    assert Membership.objects.filter(organization=org).count() == 2


def test_adding_someone_already_in_the_organization_is_a_form_error(operator, factory):
    """The "add members" rows do not show who is in (the rows above do): picking a member
    again was a 500 (the unique membership), and now says so on the row."""
    org = factory.org("acme")
    boss = factory.member(org, role="admin")
    ana = factory.member(org, role="member")
    newcomer = factory.member(factory.org("elsewhere")).user
    url = f"/admin/accounts/organization/{org.pk}/change/"
    form = _change_form(operator, url)
    again = {
        **form,
        "new_memberships-TOTAL_FORMS": "1",
        "new_memberships-0-user": ana.user.pk,
        "new_memberships-0-role": "admin",
    }
    response = operator.post(url, again)
    assert response.status_code == 200
    assert f"{ana.user.email} is a member already" in response.content.decode()
    assert Membership.objects.get(pk=ana.pk).role == "member"
    twice = {
        **form,
        "new_memberships-TOTAL_FORMS": "2",
        "new_memberships-0-user": newcomer.pk,
        "new_memberships-0-role": "member",
        "new_memberships-1-user": newcomer.pk,
        "new_memberships-1-role": "member",
    }
    response = operator.post(url, twice)
    assert response.status_code == 200 and "duplicate" in response.content.decode()
    assert not Membership.objects.filter(organization=org, user=newcomer).exists()
    assert Membership.objects.filter(organization=org).count() == 2 and boss.role == "admin"


def test_an_organizations_page_lists_its_members_in_a_few_queries(
    operator, factory, django_assert_max_num_queries
):
    org = factory.org("acme")
    factory.member(org, role="admin")
    for _ in range(40):
        factory.member(org)
    with django_assert_max_num_queries(25):
        page = operator.get(f"/admin/accounts/organization/{org.pk}/change/")
    assert page.status_code == 200
    assert page.content.decode().count("/admin/accounts/membership/") >= 41  # each one's page


def test_an_organization_without_projects_or_subscription_is_deleted_with_its_members(
    operator, factory
):
    """Its admin's membership, its credits and a canceled subscription, whose own pages
    refuse a delete alone, made every organization with an admin undeletable (403)."""
    from billing.models import Subscription

    org = factory.org("gone")
    admin_ = factory.member(org, role="admin")
    session_start(membership=admin_)
    ai_credits_current(organization=org)
    Subscription.objects.create(organization=org, plan="team", status="paused")
    # a paused subscription may resume: not yet
    refused_delete(
        operator,
        f"/admin/accounts/organization/{org.pk}/delete/",
        "is paused, and the billing provider would not be told",
    )
    Subscription.objects.filter(organization=org).update(status="canceled")
    assert operator.get(f"/admin/accounts/organization/{org.pk}/delete/").status_code == 200
    response = operator.post(f"/admin/accounts/organization/{org.pk}/delete/", {"post": "yes"})
    assert response.status_code == 302
    assert not Organization.objects.filter(pk=org.pk).exists()
    assert not Membership.objects.filter(pk=admin_.pk).exists()
    assert not AiCredits.objects.filter(organization_id=org.pk).exists()
    assert not Subscription.objects.filter(organization_id=org.pk).exists()
    admin_.user.refresh_from_db()  # the user stays (they may belong elsewhere)


def test_keys_are_found_by_id_and_filtered_by_state(operator, factory):
    org = factory.org("acme")
    factory.key(org, "deploy")
    factory.key(org, "old")
    ApiKey.objects.filter(name="old").update(revoked_at=timezone.now())
    deploy = ApiKey.objects.get(name="deploy")
    for term in (str(deploy.pk), f"key:{deploy.pk}"):
        found = operator.get("/admin/accounts/apikey/", {"q": term})
        assert listed(found) == [str(deploy.pk)], term
    assert listed(operator.get("/admin/accounts/apikey/", {"state": "revoked"})) == [
        str(ApiKey.objects.get(name="old").pk)
    ]
    assert listed(operator.get("/admin/accounts/apikey/", {"state": "active"})) == [str(deploy.pk)]
    page = operator.get("/admin/accounts/apikey/").content.decode()
    assert page.count("By revoked at") <= 1


def test_names_typed_here_follow_the_apps_rules(operator, factory):
    """A project named "ab" or "Shop\\x01Name" here came back so from the API, which refuses
    both; a key's or an organization's name took control characters too."""
    from accounts.services import api_key_create
    from archsvc.exceptions import BadRequest

    org = factory.org("acme")
    client = factory.member_client(factory.member(org, role="admin"), enforce_csrf=False)
    project = new_project(client, "Shop")
    for name in ("ab", "\u200b\u200b\u200b", "Shop\x01\x02Name"):
        response = operator.post(
            f"/admin/diagrams/project/{project}/change/", {"name": name, "description": ""}
        )
        assert response.status_code == 200, name  # the form again, with the error
        assert response.context["adminform"].form.errors["name"], name
    response = operator.post(
        f"/admin/diagrams/project/{project}/change/", {"name": "Shop", "description": "a\x07b"}
    )
    assert response.context["adminform"].form.errors["description"]
    assert client.get(f"/v1/projects/{project}").json()["name"] == "Shop"
    response = operator.post(
        f"/admin/accounts/organization/{org.pk}/change/",
        {
            "name": "x\x07",
            "memberships-TOTAL_FORMS": "0",
            "memberships-INITIAL_FORMS": "0",
            "new_memberships-TOTAL_FORMS": "0",
            "new_memberships-INITIAL_FORMS": "0",
        },
    )
    assert response.context["adminform"].form.errors["name"]
    factory.key(org, "deploy")
    key = ApiKey.objects.get(name="deploy")
    response = operator.post(f"/admin/accounts/apikey/{key.pk}/change/", {"name": "bad\x01name"})
    assert response.context["adminform"].form.errors["name"]
    # the settings page and create_api_key (api_key_create) refuse it too
    try:
        api_key_create(organization=org, name="bad\x01name", permissions=[])
        raise AssertionError("a control character in a key's name was taken")
    except BadRequest as refused:
        assert "control characters" in str(refused)


def test_a_share_link_is_not_shown_whole_here_but_found_by_it(operator, factory):
    org = factory.org("acme")
    client = factory.member_client(factory.member(org, role="admin"), enforce_csrf=False)
    project = new_project(client, "Shop")
    token = client.post(f"/v1/projects/{project}/public-share-token").json()["token"]
    share = PublicShareToken.objects.get()
    for page in (
        "/admin/diagrams/publicsharetoken/",
        f"/admin/diagrams/publicsharetoken/{share.pk}/change/",
    ):
        body = operator.get(page).content.decode()
        assert token not in body and f"{token[:8]}…" in body, page
    assert listed(operator.get("/admin/diagrams/publicsharetoken/", {"q": token})) == [
        str(share.pk)
    ]
    for term in ("Shop", "acme", "nonsense", token[:8]):
        assert operator.get("/admin/diagrams/publicsharetoken/", {"q": term}).status_code == 200


# --- from an operator's walk through the admin (2026-11-29) --------------------------------


def test_credits_granted_on_a_row_past_its_refill_are_not_wiped(operator, factory):
    """The row refills at the app's first read after `resets_at`: a grant added to a stale
    row was set back to the plan's amount by the next read. The page shows the balance as
    the app reads it, the grant lands on it, and the log says how many and until when."""
    org = factory.org("acme")
    credits = ai_credits_current(organization=org)
    past = timezone.now() - timezone.timedelta(days=3)
    AiCredits.objects.filter(pk=credits.pk).update(remaining=5, resets_at=past)
    page = operator.get(f"/admin/billing/aicredits/{credits.pk}/change/").content.decode()
    # as the app reads it: refilled (50 on the free plan, its next date), not 5 and a past day
    assert '<div class="readonly">50</div>' in page
    operator.post(f"/admin/billing/aicredits/{credits.pk}/change/", {"add": "100"})
    now = ai_credits_current(organization=org)  # the app's next read
    assert now.remaining == 50 + 100 and now.resets_at > timezone.now()
    history = operator.get(f"/admin/billing/aicredits/{credits.pk}/history/").content.decode()
    assert "Added 100 credits: 150 left until" in history


def test_a_leaked_key_is_found_by_the_key_itself(operator, factory):
    org = factory.org("acme")
    token = factory.key(org, "deploy")
    factory.key(org, "other")
    deploy = ApiKey.objects.get(name="deploy")
    for term in (token, f"Bearer {token}", f"  {token} "):
        assert listed(operator.get("/admin/accounts/apikey/", {"q": term})) == [str(deploy.pk)]
    # revoked on its own page, and in its history, as by the list's action
    page = operator.get(f"/admin/accounts/apikey/{deploy.pk}/change/").content.decode()
    assert "Revoke this key" in page
    operator.post(
        f"/admin/accounts/apikey/{deploy.pk}/change/",
        {"name": "deploy", "revoke": "on"},
    )
    deploy.refresh_from_db()
    assert deploy.revoked_at is not None
    assert Client(HTTP_AUTHORIZATION=f"Bearer {token}").get("/v1/limits").status_code == 401
    other = ApiKey.objects.get(name="other")
    operator.post(
        "/admin/accounts/apikey/", {"action": "revoke_keys", "_selected_action": [other.pk]}
    )
    history = operator.get(f"/admin/accounts/apikey/{other.pk}/history/").content.decode()
    assert "Revoked." in history
    # nothing that is no key finds one by accident
    assert listed(operator.get("/admin/accounts/apikey/", {"q": "a.b.c"})) == []


def _change_form(operator, url: str) -> dict:
    """What an admin change page posts back untouched: its form's fields and each inline's
    management form and rows."""
    context = operator.get(url).context
    form = context["adminform"].form
    data = {
        name: value
        for name, value in form.initial.items()
        if name in form.fields and not form.fields[name].disabled and value is not None
    }
    data = {k: ("on" if v is True else v) for k, v in data.items() if v is not False}
    for inline in context["inline_admin_formsets"]:
        formset = inline.formset
        management = formset.management_form
        for name in management.fields:
            data[f"{formset.prefix}-{name}"] = management.initial.get(name, 0)
        for row in formset.forms:
            data[row.add_prefix("id")] = row.instance.pk
            for name, value in row.initial.items():
                if value is not None:
                    data[row.add_prefix(name)] = value
    return data


def test_deactivating_a_user_ends_their_sessions_for_good(operator, factory):
    """Their sessions were refused while inactive, and came back with Is active."""
    org = factory.org("acme")
    factory.member(org, email="boss@acme.example", role="admin")
    ada = factory.member(org, email="ada@acme.example")
    member = Client()
    member.cookies["__session"] = session_start(membership=ada)
    assert member.get("/settings/").status_code == 200
    url = f"/admin/accounts/user/{ada.user_id}/change/"
    data = _change_form(operator, url)
    response = operator.post(url, {**data, "is_active": ""}, follow=True)
    assert "session(s) of this user in the app were ended" in response.content.decode()
    operator.post(url, {**data, "is_active": "on"})
    ada.user.refresh_from_db()
    assert ada.user.is_active
    assert member.get("/settings/").status_code == 302  # logged out, not back in
    # the user's page says whether and why they can log in, and when they last did
    page = operator.get(url).content.decode()
    assert "Yes: a member of 1 organization." in page and "Its sessions</a> (0 open)" in page
    ada.user.refresh_from_db()
    assert ada.user.last_login is not None


def test_a_share_link_reported_as_its_address_is_found(operator, factory):
    org = factory.org("acme")
    client = factory.member_client(factory.member(org, role="admin"), enforce_csrf=False)
    project = new_project(client, "Shop")
    token = client.post(f"/v1/projects/{project}/public-share-token").json()["token"]
    share = PublicShareToken.objects.get()
    for link in (f"https://archsvc.example/share/{token}/", f"http://x/share/{token}/embed/"):
        assert listed(operator.get("/admin/diagrams/publicsharetoken/", {"q": link})) == [
            str(share.pk)
        ]
    page = operator.get(f"/admin/diagrams/publicsharetoken/{share.pk}/change/").content.decode()
    assert 'name="_save"' not in page  # nothing to save: a view, with Delete to turn it off


def test_the_pending_and_ended_filters_say_so_in_words(operator, factory):
    org = factory.org("acme")
    session_start(membership=factory.member(org))
    sessions = operator.get("/admin/accounts/authsession/").content.decode()
    assert "By state" in sessions and ">open</a>" in sessions and ">ended</a>" in sessions
    assert "By ended at" not in sessions
    assert listed(operator.get("/admin/accounts/authsession/?ended_at__isempty=1")) != []
    members = operator.get("/admin/accounts/membership/").content.decode()
    assert "By joined" in members and ">invited, not joined yet</a>" in members
    assert "Not empty" not in members


def test_the_organizations_list_says_each_ones_plan_and_size(
    operator, factory, django_assert_max_num_queries
):
    from django.core.management import call_command

    acme, globex = factory.org("acme"), factory.org("globex")
    factory.member(acme, role="admin")
    factory.member(acme)
    api = factory.key_client(acme, "ci")
    for name in ("One", "Two"):
        new_project(api, name)
    call_command("set_subscription", "--org", "globex", "--plan", "team", "--status", "active")
    page = operator.get("/admin/accounts/organization/")
    rows = {
        row.slug: (row.project_count, row.member_count) for row in page.context["cl"].result_list
    }
    assert rows == {"acme": (2, 2), "globex": (0, 0)}
    body = page.content.decode()
    assert "Members who joined" in body and ">team<" in body and ">free<" in body
    assert listed(operator.get("/admin/accounts/organization/", {"plan": "team"})) == [
        str(globex.pk)
    ]
    assert listed(operator.get("/admin/accounts/organization/", {"plan": "free"})) == [str(acme.pk)]
    for index in range(20):  # as many queries for 22 organizations as for 2
        factory.org(f"more-{index}")
    with django_assert_max_num_queries(12):
        operator.get("/admin/accounts/organization/")


def test_a_snapshots_page_says_its_topics_a_line_each(operator, factory):
    org = factory.org("acme")
    api = factory.key_client(org, "ci")
    project = new_project(api, "Shop")
    body = {
        "name": "Checkout",
        "consumes": [{"name": "cart.events", "owner": "team-cart"}],
        "produces": [{"name": "orders.placed", "flows": ["buy"]}, {"name": "orders.failed"}],
        "extras": {"repo": "git@x:shop.git"},
    }
    new_service(api, project, body)
    snapshot = ServiceSnapshot.objects.get()
    page = operator.get(f"/admin/diagrams/servicesnapshot/{snapshot.pk}/change/")
    assert page.status_code == 200
    html = page.content.decode()
    assert "<div>cart.events (owner: team-cart)</div>" in html
    assert "<div>orders.placed (flows: buy)</div><div>orders.failed</div>" in html
    assert "<div>repo = git@x:shop.git</div>" in html
    assert '"category": null' not in html  # no raw JSON
    assert f"/admin/diagrams/service/{snapshot.service_id}/change/" in html


def test_staff_who_may_only_look_cannot_revoke_keys_or_end_sessions(factory):
    """The two actions had no permission of their own: a staff member with only the view
    permissions revoked a customer's key (its calls went 401) and ended sessions."""

    org = factory.org("acme")
    token = factory.key(org, "deploy")
    key = ApiKey.objects.get(name="deploy")
    session_start(membership=factory.member(org))
    session = AuthSession.objects.get()
    client, _ = staff_client("look@example.com", ["view_apikey", "view_authsession"])
    for path, action, pk in (
        ("/admin/accounts/apikey/", "revoke_keys", key.pk),
        ("/admin/accounts/authsession/", "end_sessions", session.pk),
    ):
        listing = client.get(path)
        assert listing.status_code == 200
        offered = listing.context["action_form"] and [
            value for value, _ in listing.context["action_form"].fields["action"].choices
        ]
        assert action not in (offered or [])
        client.post(path, {"action": action, "_selected_action": [pk]})
    key.refresh_from_db()
    session.refresh_from_db()
    assert key.revoked_at is None and session.ended_at is None
    assert Client(HTTP_AUTHORIZATION=f"Bearer {token}").get("/v1/limits").status_code == 200


def test_a_users_sessions_link_lists_that_users_only(operator, factory):
    """The link searched by e-mail: bob@example.com's listed jbob@example.com's sessions,
    which "End the selected sessions" would have logged out."""
    from accounts.models import User

    org = factory.org("acme")
    session_start(membership=factory.member(org, email="bob@example.com"))
    for _ in range(2):
        session_start(membership=factory.member(org, email="jbob@example.com"))
    bob = User.objects.get(email="bob@example.com")
    page = operator.get(f"/admin/accounts/user/{bob.pk}/change/").content.decode()
    link = re.search(
        r'<a href="(/admin/accounts/authsession/\?[^"]+)">Its sessions</a> \((\d+) open', page
    )
    assert link and link[2] == "1"
    sessions = operator.get(link[1].replace("&amp;", "&"))
    assert sessions.status_code == 200
    owners = {row.membership.user.email for row in sessions.context["cl"].result_list}
    assert owners == {"bob@example.com"}


def test_an_organization_that_never_read_its_credits_has_them_to_grant_onto(operator, factory):
    """Its page said "AI credits: none yet" (it had the plan's 50) and its credits list was
    empty, with no Add: an operator could not grant credits until the app had read them."""
    org = factory.org("acme")
    assert not AiCredits.objects.filter(organization=org).exists()
    page = operator.get(f"/admin/accounts/organization/{org.pk}/change/").content.decode()
    assert "AI credits: 50 left, refill" in page
    listing = operator.get(f"/admin/billing/aicredits/?organization__exact={org.pk}")
    assert len(listed(listing)) == 1


def test_an_operator_finds_things_as_a_customer_names_them(operator, factory):
    """A customer writes in with their e-mail, a service's name or a link they were on: each
    found nothing (the searches were of ids and slugs only)."""
    org = factory.org("acme")
    factory.org("globex")
    factory.member(org, email="ada@example.com")
    api = factory.key_client(org, "ci")
    project = new_project(api, "Shop")
    new_service(api, project, {"name": "Payment Gateway"})
    service = {"id": str(Service.objects.get(project_id=project).pk)}
    found = operator.get("/admin/accounts/organization/", {"q": "ada@example.com"})
    assert [o.slug for o in found.context["cl"].result_list] == ["acme"]
    found = operator.get("/admin/accounts/organization/", {"q": project})
    assert [o.slug for o in found.context["cl"].result_list] == ["acme"]
    for term in ("Payment", "payment-gateway"):
        found = operator.get("/admin/diagrams/service/", {"q": term})
        assert listed(found) == [service["id"]], term
    for address in (
        f"https://archsvc.example.com/projects/{project}/services/payment-gateway/edit/",
        f"https://archsvc.example.com/v1/projects/{project}/graph?depth=2",
        f"/projects/{project}/",
    ):
        for path in ("/admin/diagrams/project/", "/admin/accounts/organization/"):
            found = operator.get(path, {"q": address})
            assert len(listed(found)) == 1, (path, address)


def test_an_organization_made_here_is_as_sign_up_makes_one(operator, factory):
    """Saved before: one with no member at all (no one could ever log in to it), "DEMO"
    beside "demo", a 60-character slug, and a creation time typed in."""
    factory.org("demo")
    user = factory.member(factory.org("elsewhere")).user
    form = {
        "slug": "newco",
        "name": "NewCo",
        "created_at_0": "2001-01-01",
        "created_at_1": "10:00:00",
        "new_memberships-TOTAL_FORMS": "0",
        "new_memberships-INITIAL_FORMS": "0",
        "memberships-TOTAL_FORMS": "0",
        "memberships-INITIAL_FORMS": "0",
    }
    refused = [
        ("needs its first admin", {}),
        ("Another organization has this slug.", {"slug": "demo"}),
        ("Lower-case letters, digits, hyphens and underscores only", {"slug": "DEMO"}),
        ("At most 50 characters", {"slug": "n" * 60}),
        ("Enter a valid “slug”", {"slug": "New Co"}),
    ]
    member = {
        "new_memberships-TOTAL_FORMS": "1",
        "new_memberships-0-user": user.pk,
        "new_memberships-0-role": "admin",
    }
    for said, change in refused:
        extra = {} if said == "needs its first admin" else member
        response = operator.post("/admin/accounts/organization/add/", {**form, **extra, **change})
        errors = re.findall(
            r'<ul class="errorlist[^"]*"[^>]*>(.*?)</ul>', response.content.decode()
        )
        assert response.status_code == 200 and said in " ".join(errors), (said, errors)
    assert set(Organization.objects.values_list("slug", flat=True)) == {"demo", "elsewhere"}
    response = operator.post("/admin/accounts/organization/add/", {**form, **member})
    assert response.status_code == 302
    made = Organization.objects.get(slug="newco")
    assert made.created_at > timezone.now() - timezone.timedelta(minutes=1)


def test_staff_who_may_add_organizations_but_not_members_make_none(factory):
    """The member rows were hidden from staff without the add-membership permission, so
    nothing checked them: such staff made an organization with no one in it."""
    from django.contrib.auth.models import Permission

    from accounts.models import User

    client, staff = staff_client("add@example.com", ["add_organization", "view_organization"])
    assert client.get("/admin/accounts/organization/add/").status_code == 403
    assert (
        "/admin/accounts/organization/add/"
        not in client.get("/admin/accounts/organization/").content.decode()
    )
    client.post(
        "/admin/accounts/organization/add/",
        {"slug": "orphan", "name": "Orphan", "memberships-TOTAL_FORMS": "0"},
    )
    assert not Organization.objects.filter(slug="orphan").exists()
    staff.user_permissions.add(Permission.objects.get(codename="add_membership"))
    staff = User.objects.get(pk=staff.pk)  # permissions are cached on the instance
    client.force_login(staff)
    assert client.get("/admin/accounts/organization/add/").status_code == 200


def test_a_key_in_use_is_revoked_before_it_is_deleted(operator, factory):
    org = factory.org("acme")
    token = factory.key(org, "deploy")
    key = ApiKey.objects.get(name="deploy")
    page = operator.get(f"/admin/accounts/apikey/{key.pk}/change/").content.decode()
    assert f"/admin/accounts/apikey/{key.pk}/delete/" not in page
    # its delete address, typed or bookmarked, goes back to the key's page saying why (it
    # was a bare 403)
    for method in (operator.get, operator.post):
        response = method(f"/admin/accounts/apikey/{key.pk}/delete/", {"post": "yes"}, follow=True)
        assert response.redirect_chain[-1][0] == f"/admin/accounts/apikey/{key.pk}/change/"
        said = [str(message) for message in response.context["messages"]]
        assert said == [
            "Not deleted: the key “deploy” is in use. Revoke it first (the Revoke action on "
            "the list): its bearers are then refused, and the history says so."
        ]
    assert Client(HTTP_AUTHORIZATION=f"Bearer {token}").get("/v1/limits").status_code == 200
    operator.post(
        "/admin/accounts/apikey/", {"action": "revoke_keys", "_selected_action": [key.pk]}
    )
    page = operator.get(f"/admin/accounts/apikey/{key.pk}/change/").content.decode()
    assert f"/admin/accounts/apikey/{key.pk}/delete/" in page
    operator.post(f"/admin/accounts/apikey/{key.pk}/delete/", {"post": "yes"})
    assert not ApiKey.objects.filter(pk=key.pk).exists()


# --- from an operator's walk through the admin (2026-11-30) --------------------------------


def test_a_keys_page_leads_to_the_share_links_it_made(operator, factory):
    """A leaked key's share links stay open when it is revoked; they could not be found by
    who made them. Its page counts them and lists them; the list finds them by name too."""
    org = factory.org("acme")
    ci = factory.key_client(org, "ci")
    shop, other = new_project(ci, "Shop"), new_project(ci, "Other")
    for project in (shop, other):
        assert ci.post(f"/v1/projects/{project}/public-share-token").status_code == 200
    # a key of the same name elsewhere, and a member's link, are not the key's
    elsewhere = factory.key_client(factory.org("beta"), "ci")
    elsewhere.post(f"/v1/projects/{new_project(elsewhere, 'Theirs')}/public-share-token")
    key = ApiKey.objects.get(organization=org, name="ci")
    page = operator.get(f"/admin/accounts/apikey/{key.pk}/change/").content.decode()
    link = re.search(r'href="(/admin/diagrams/publicsharetoken/\?[^"]+)">2 links</a>', page)
    assert link, page[page.find("share links") - 200 : page.find("share links") + 600]
    shown = operator.get(link.group(1).replace("&amp;", "&"))
    assert shown.status_code == 200
    mine = PublicShareToken.objects.filter(project__organization=org)
    assert sorted(listed(shown)) == sorted(str(share.pk) for share in mine)
    found = operator.get("/admin/diagrams/publicsharetoken/", {"q": "ci"})
    assert len(listed(found)) == 3


def test_a_key_pasted_as_its_header_is_found_and_its_revocation_said(operator, factory):
    from accounts.services import api_key_create

    key, token = api_key_create(organization=factory.org("acme"), name="ci", permissions=[])
    found = operator.get("/admin/accounts/apikey/", {"q": f"Authorization: Bearer {token}"})
    assert listed(found) == [str(key.pk)]
    form = _change_form(operator, f"/admin/accounts/apikey/{key.pk}/change/")
    response = operator.post(
        f"/admin/accounts/apikey/{key.pk}/change/", {**form, "revoke": "on"}, follow=True
    )
    assert "The key “ci” is revoked" in response.content.decode()
    key.refresh_from_db()
    assert key.revoked_at is not None


def test_a_sessions_page_is_a_view_with_nothing_to_save(operator, factory):
    session_start(membership=factory.member(factory.org("acme")))
    session = AuthSession.objects.get()
    page = operator.get(f"/admin/accounts/authsession/{session.pk}/change/").content.decode()
    assert 'name="_save"' not in page and 'name="_continue"' not in page
    response = operator.post(f"/admin/accounts/authsession/{session.pk}/change/", {})
    assert response.status_code == 403
    # the list's End action still works
    operator.post(
        "/admin/accounts/authsession/", {"action": "end_sessions", "_selected_action": [session.pk]}
    )
    session.refresh_from_db()
    assert session.ended_at is not None


def test_a_forgotten_password_is_disabled_here_and_chosen_again_through_an_invitation(
    operator, factory
):
    """The password page spoke of single sign-on and LDAP, which there are none of; the way
    through for a member who forgot theirs is said there, and works."""
    org = factory.org("acme")
    boss = factory.member(org, role="admin", email="boss@example.com")
    ada = factory.member(org, email="ada@example.com")
    url = f"/admin/accounts/user/{ada.user_id}/password/"
    page = operator.get(url).content.decode()
    assert "LDAP" not in page and "New invitation link" in page
    response = operator.post(url, {"usable_password": "false", "unset-password": "1"}, follow=True)
    assert response.status_code == 200
    ada.user.refresh_from_db()
    assert not ada.user.has_usable_password()
    members = factory.member_client(boss).get("/settings/members/").content.decode()
    assert 'aria-label="New invitation link for ada@example.com"' in members
