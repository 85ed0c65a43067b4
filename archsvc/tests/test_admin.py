"""Django admin for operators: what it lets them see and do, and what it must not let them
break (history, sharing, keys, the last admin, billing state)."""

import pytest
from django.test import Client
from django.utils import timezone

from accounts.models import ApiKey, AuthSession, Membership, Organization, User
from accounts.services import session_start
from archsvc.tests.helpers import refused_delete
from billing.models import AiCredits, Subscription, WebhookEvent
from diagrams.models import Project, PublicShareToken, Service, ServiceSnapshot
from diagrams.tests.helpers import new_project, new_service, put


@pytest.fixture
def project(api):
    project = new_project(api, "Shop")
    new_service(api, project, {"name": "Checkout", "produces": [{"name": "orders"}]})
    put(api, f"/v1/projects/{project}/services/checkout", {"description": "v2"})
    put(api, f"/v1/projects/{project}/services/checkout", {"description": "v3"})
    return project


def actions(response) -> list[str]:
    form = response.context["action_form"]
    return [value for value, _ in form.fields["action"].choices] if form else []


def test_history_pins_and_billing_records_cannot_be_deleted_or_edited(operator, api, project, org):
    snapshot = ServiceSnapshot.objects.filter(project_id=project).order_by("version")[1]
    service = Service.objects.get(project_id=project)
    call = api.post("/v1/pinned", {"projectId": project}, content_type="application/json")
    assert call.status_code == 200
    Subscription.objects.create(organization=org, plan="team", status="active")
    WebhookEvent.objects.create(
        event_id="evt_1",
        event_type="subscription.created",
        occurred_at=timezone.now(),
        outcome="applied",
        payload={},
        organization=org,
    )
    for model, pk in (
        ("diagrams/servicesnapshot", snapshot.pk),
        ("diagrams/service", service.pk),
        ("billing/subscription", Subscription.objects.get().pk),
        ("billing/webhookevent", WebhookEvent.objects.get().pk),
    ):
        assert operator.get(f"/admin/{model}/{pk}/change/").status_code == 200  # readable
        assert operator.get(f"/admin/{model}/{pk}/delete/").status_code == 403
        assert operator.post(f"/admin/{model}/{pk}/delete/", {"post": "yes"}).status_code == 403
        changelist = operator.get(f"/admin/{model}/")
        assert changelist.status_code == 200 and "delete_selected" not in actions(changelist)
    response = operator.post(
        "/admin/diagrams/servicesnapshot/",
        {"action": "delete_selected", "_selected_action": [snapshot.pk], "post": "yes"},
    )
    assert ServiceSnapshot.objects.filter(project_id=project).count() == 3
    assert Service.objects.filter(pk=service.pk).exists()
    # the history still reads whole through the API
    events = api.get(f"/v1/projects/{project}/history").json()["data"]
    assert sorted(e["action"] for e in events) == ["created", "updated", "updated"]
    assert response.status_code in (200, 302)


def test_projects_are_made_in_the_app_and_stay_in_their_organization(operator, project, factory):
    assert operator.get("/admin/diagrams/project/add/").status_code == 403
    other = factory.org("other")
    response = operator.post(
        f"/admin/diagrams/project/{project}/change/",
        {"name": "Renamed by support", "description": "", "organization": other.pk},
    )
    assert response.status_code == 302
    moved = Project.objects.get(pk=project)
    assert moved.name == "Renamed by support" and moved.organization.slug == "acme"


def test_share_links_and_sessions_are_not_made_by_hand(operator, api, project, factory, org):
    assert operator.get("/admin/diagrams/publicsharetoken/add/").status_code == 403
    assert operator.get("/admin/accounts/authsession/add/").status_code == 403
    token = api.post(f"/v1/projects/{project}/public-share-token").json()["token"]
    share = PublicShareToken.objects.get()
    other = new_project(api, "Other")
    operator.post(f"/admin/diagrams/publicsharetoken/{share.pk}/change/", {"project": other})
    assert PublicShareToken.objects.get().project_id == project  # not pointed elsewhere
    # revoking is a delete, and the link stops at once
    assert Client().get(f"/share/{token}/").status_code == 200
    operator.post(f"/admin/diagrams/publicsharetoken/{share.pk}/delete/", {"post": "yes"})
    assert Client().get(f"/share/{token}/").status_code == 404
    # sessions can be found by e-mail and ended
    membership = factory.member(org, email="ada@example.com")
    session_start(membership=membership)
    page = operator.get("/admin/accounts/authsession/?q=ada@example.com").content.decode()
    assert "ada@example.com" in page
    assert AuthSession.objects.count() == 1


def test_api_key_permissions_are_chosen_not_typed(operator, factory, org):
    token = factory.key(org, "ci")
    key = ApiKey.objects.get(name="ci")
    url = f"/admin/accounts/apikey/{key.pk}/change/"
    for bad in ("123", '"projects:manage"', "root"):
        response = operator.post(url, {"name": "ci", "permissions": [bad]})
        assert response.status_code == 200  # the form again, with the error
        assert "is not one of the available choices" in response.content.decode()
    key.refresh_from_db()
    assert key.permissions == []
    assert operator.post(url, {"name": "ci", "permissions": ["projects:manage"]}).status_code == 302
    key.refresh_from_db()
    assert key.permissions == ["projects:manage"]
    assert operator.post(url, {"name": "ci"}).status_code == 302  # all unticked: none
    key.refresh_from_db()
    assert key.permissions == []
    client = Client(HTTP_AUTHORIZATION=f"Bearer {token}")
    assert client.get("/v1/limits").status_code == 200
    assert org.api_keys.count() == 1


def test_users_added_here_can_log_in_and_are_not_duplicated(operator):
    response = operator.post(
        "/admin/accounts/user/add/",
        {
            "email": "Carol@Example.com",
            "password1": "a-long-password-9",
            "password2": "a-long-password-9",
            "usable_password": "true",
        },
    )
    assert response.status_code == 302, response.content.decode()[:2000]
    assert User.objects.filter(email="carol@example.com").exists()
    response = operator.post(
        "/admin/accounts/user/add/",
        {
            "email": "CAROL@example.com",
            "password1": "a-long-password-9",
            "password2": "a-long-password-9",
            "usable_password": "true",
        },
    )
    assert (
        response.status_code == 200
        and "A user with this e-mail exists" in response.content.decode()
    )
    assert User.objects.filter(email__iexact="carol@example.com").count() == 1
    carol = User.objects.get(email="carol@example.com")
    organization = Organization.objects.create(slug="carols", name="Carols")
    Membership.objects.create(user=carol, organization=organization, role="admin")
    login = Client().post(
        "/accounts/login/", {"email": "Carol@Example.com", "password": "a-long-password-9"}
    )
    assert login.status_code == 302


def test_an_organization_keeps_an_admin_and_its_data(operator, factory, org, project):
    admin = factory.member(org, email="boss@example.com", role="admin")
    # demoting the only admin
    response = operator.post(f"/admin/accounts/membership/{admin.pk}/change/", {"role": "member"})
    assert response.status_code == 200 and "at least one admin" in response.content.decode()
    assert Membership.objects.get(pk=admin.pk).role == "admin"
    # deleting it
    refused_delete(
        operator,
        f"/admin/accounts/membership/{admin.pk}/delete/",
        "Not deleted: boss@example.com is the only admin of",
    )
    # through the organization's inline
    response = operator.post(
        f"/admin/accounts/organization/{org.pk}/change/",
        {
            "slug": org.slug,
            "name": org.name,
            "memberships-TOTAL_FORMS": "1",
            "memberships-INITIAL_FORMS": "1",
            "memberships-0-id": admin.pk,
            "memberships-0-organization": org.pk,
            "memberships-0-user": admin.user_id,
            "memberships-0-role": "admin",
            "memberships-0-DELETE": "on",
            "new_memberships-TOTAL_FORMS": "0",
            "new_memberships-INITIAL_FORMS": "0",
        },
    )
    # (its members are listed there, not deleted there: on each one's page, as above)
    assert response.status_code == 302
    assert Membership.objects.filter(pk=admin.pk).exists()
    page = operator.get(f"/admin/accounts/organization/{org.pk}/change/").content.decode()
    assert 'name="memberships-0-DELETE"' not in page and 'name="memberships-0-role"' not in page
    # nor by deleting the user who is its only admin
    refused_delete(
        operator,
        f"/admin/accounts/user/{admin.user_id}/delete/",
        "Not deleted: boss@example.com is the only admin of",
    )
    # an organization with projects is not deleted in a click
    refused_delete(
        operator,
        f"/admin/accounts/organization/{org.pk}/delete/",
        "has projects (1), and each would take its whole history",
    )
    empty = factory.org("empty")
    assert operator.get(f"/admin/accounts/organization/{empty.pk}/delete/").status_code == 200
    assert AiCredits.objects.filter(organization=org).count() <= 1


@pytest.mark.parametrize(
    "path",
    [
        "/admin/accounts/user/",
        "/admin/diagrams/project/",
        "/admin/diagrams/servicesnapshot/",
        "/admin/accounts/membership/",
    ],
)
def test_searches_of_any_length_answer(operator, project, path):
    for query in ("x" * 50_000, " ".join(["word"] * 2_000), "%'\\_\"", "\x00"):
        assert operator.get(path, {"q": query}).status_code == 200


def test_the_webhook_list_does_not_grow_in_queries(
    operator, factory, django_assert_max_num_queries
):
    for index in range(30):
        WebhookEvent.objects.create(
            event_id=f"evt_{index}",
            event_type="subscription.updated",
            occurred_at=timezone.now(),
            outcome="applied",
            payload={},
            organization=factory.org(f"org-x{index}"),
        )
    with django_assert_max_num_queries(10):
        assert operator.get("/admin/billing/webhookevent/").status_code == 200


def test_the_list_of_every_snapshot_reads_no_date_of_the_whole_table(operator, api, project):
    """Operators' "who changed what": the date hierarchy read every snapshot's month on each
    load (SELECT DISTINCT over the table: 5.5 s of 8.4 at 960,000 rows); the list is now in
    the order of the index snapshot_recent, filtered by date without reading any (0.7 s)."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    for path in (
        "/admin/diagrams/servicesnapshot/",
        "/admin/diagrams/servicesnapshot/?valid_from__gte=2020-01-01+00:00:00%2B00:00",
    ):
        with CaptureQueriesContext(connection) as queries:
            response = operator.get(path)
        assert response.status_code == 200 and "Checkout" in response.content.decode()
        assert not [q["sql"] for q in queries if "DISTINCT" in q["sql"].upper()]
        assert len(queries) <= 8


def test_the_models_and_their_migrations_agree(db):
    """A model change without its migration (an index, a field) fails here, not in a
    deploy's migrate."""
    from django.core.management import call_command

    call_command("makemigrations", "--check", "--dry-run", verbosity=0)


def test_an_organizations_page_links_to_its_records(operator, org, project):
    page = operator.get(f"/admin/accounts/organization/{org.pk}/change/").content.decode()
    assert f'href="/admin/diagrams/project/?organization__exact={org.pk}"' in page
    projects = operator.get(f"/admin/diagrams/project/?organization__exact={org.pk}")
    assert "Shop" in projects.content.decode()


def test_pins_say_whose_they_are(
    operator, api, project, factory, org, django_assert_max_num_queries
):
    """The pins' list showed "member:1" and "key:37f5…", which an operator had to look up."""
    from diagrams.models import Pin

    call = api.post("/v1/pinned", {"projectId": project}, content_type="application/json")
    assert call.status_code == 200
    key = ApiKey.objects.get(pk=Pin.objects.get().actor_ref.removeprefix("key:"))
    member = factory.member(org, email="pinner@example.com")
    Pin.objects.create(project_id=project, actor_ref=f"member:{member.user_id}")
    Pin.objects.create(project_id=project, actor_ref="key:not-a-key")
    for index in range(30):  # refs that name nobody (a user since deleted) are looked up once
        Pin.objects.create(project_id=project, actor_ref=f"member:{900000 + index}")
    with django_assert_max_num_queries(12):  # the names in two queries, not two a row
        listed = operator.get("/admin/diagrams/pin/").content.decode()
    assert "pinner@example.com" in listed and f"API key “{key.name}”" in listed
    assert "key:not-a-key" in listed  # a ref that names nothing is shown as it is
    with django_assert_max_num_queries(12):  # a page where no ref names anyone: the same
        nobody = operator.get("/admin/diagrams/pin/?q=member:9000").content.decode()
    assert "member:900029" in nobody
    pin = Pin.objects.get(actor_ref=f"member:{member.user_id}")
    page = operator.get(f"/admin/diagrams/pin/{pin.pk}/change/").content.decode()
    assert "pinner@example.com" in page
