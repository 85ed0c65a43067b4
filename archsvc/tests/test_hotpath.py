"""The hand-written hot-path reads (archsvc/hotpath.py) give the same model instances as the
ORM: every field's value and type, timestamps aware and in UTC, on SQLite and PostgreSQL."""

from datetime import timedelta

from django.test import Client

from accounts.models import ApiKey, Organization
from diagrams.models import Project
from diagrams.selectors import api_key_actor_and_project, api_key_actor_and_project_page


def assert_same_as_orm(instance, model):
    stored = model.objects.get(pk=instance.pk)
    for field in model._meta.concrete_fields:
        ours, orm = getattr(instance, field.attname), getattr(stored, field.attname)
        assert ours == orm, field.name
        assert type(ours) is type(orm), field.name
        if hasattr(ours, "tzinfo") and ours is not None:
            assert ours.tzinfo == orm.tzinfo and ours.utcoffset() == timedelta(0), field.name


def test_key_and_project_read_as_the_orm_reads_them(factory, org):
    token = factory.key(org, "reader", ["projects:manage"])
    client = factory.key_client(org, "writer", ["projects:manage"])
    project_id = client.post(
        "/v1/projects", {"name": "Same", "description": "d"}, content_type="application/json"
    ).json()["id"]
    Client(HTTP_AUTHORIZATION=f"Bearer {token}").post(
        "/v1/pinned", {"projectId": project_id}, content_type="application/json"
    )

    actor, project = api_key_actor_and_project(token=token, project_id=project_id)
    assert_same_as_orm(project, Project)
    assert project.is_pinned is True
    assert_same_as_orm(actor.organization, Organization)
    key = ApiKey.objects.get(name="reader")
    assert (actor.api_key_id, actor.name, actor.permissions) == (
        str(key.pk),
        "reader",
        frozenset(key.permissions),
    )

    actor, page = api_key_actor_and_project_page(token=token, page=0, size=20)
    projects, total = page
    assert total == 1 and [p.pk for p in projects] == [project_id]
    assert_same_as_orm(projects[0], Project)
    assert projects[0].is_pinned is True
    assert_same_as_orm(actor.organization, Organization)


def test_page_of_an_organization_without_projects_still_names_the_key(factory, org):
    token = factory.key(org, "lonely")
    actor, page = api_key_actor_and_project_page(token=token, page=0, size=20)
    assert actor.name == "lonely" and page == ([], 0)
