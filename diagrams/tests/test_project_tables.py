"""The project page's tables on a big project: the first TABLE_ROWS rows of each, how many
more there are, and every row when asked (`?rows=all`, what Show all follows without the
page's script)."""

import re

import pytest

from accounts.actors import actor_for_membership
from diagrams.project_writes import project_create
from diagrams.service_writes import service_create
from diagrams.views import TABLE_ROWS

SIZE = TABLE_ROWS + 30


def big_project(membership) -> str:
    """SIZE services "Worker 000"... each producing its own topic and consuming its parent's
    (a tree), owned by four teams."""
    actor = actor_for_membership(membership)
    project = project_create(actor=actor, name="Big", description="")
    for i in range(SIZE):
        service_create(
            actor=actor,
            project_id=project.id,
            data={
                "name": f"Worker {i:03d}",
                "owner": f"team-{i % 4}",
                "produces": [{"name": f"jobs.{i:03d}"}],
                "consumes": [{"name": f"jobs.{i // 2:03d}"}] if i else [],
            },
        )
    return project.id


@pytest.fixture
def big(factory):
    membership = factory.member(factory.org("big"), role="admin")
    return factory.member_client(membership), big_project(membership)


def names(html: str, kind: str) -> list[str]:
    body = re.search(rf'<tbody data-rows="{kind}"[^>]*>(.*?)</tbody>', html, re.S).group(1)
    return re.findall(r"data-focus-id=\"[^\"]+\">([^<]+)</button>", body)


def test_the_tables_list_their_first_rows_and_say_how_many_there_are(big):
    client, project = big
    html = client.get(f"/projects/{project}/").content.decode()
    assert names(html, "services") == [f"Worker {i:03d}" for i in range(TABLE_ROWS)]
    assert names(html, "topics") == [f"jobs.{i:03d}" for i in range(TABLE_ROWS)]
    assert f"Showing {TABLE_ROWS} of {SIZE} services." in html
    assert f"Showing {TABLE_ROWS} of {SIZE} topics." in html
    assert 'href="?rows=all#services-heading"' in html
    # the script still learns every service's slug (which past rows can be edited)
    slugs = re.search(r'data-now-slugs="([^"]*)"', html).group(1).split()
    assert len(slugs) == SIZE and "worker-129" in slugs


def test_rows_all_lists_every_row(big):
    client, project = big
    html = client.get(f"/projects/{project}/?rows=all").content.decode()
    assert names(html, "services") == [f"Worker {i:03d}" for i in range(SIZE)]
    assert len(names(html, "topics")) == SIZE
    assert re.search(r'<p class="table-more hint" data-more="services" hidden>', html)
    assert re.search(r'<p class="table-more hint" data-more="topics" hidden>', html)


def test_a_small_project_lists_everything_and_says_nothing_more(factory):
    membership = factory.member(factory.org("small"), role="admin")
    actor = actor_for_membership(membership)
    project = project_create(actor=actor, name="Small", description="")
    service_create(actor=actor, project_id=project.id, data={"name": "Checkout"})
    html = factory.member_client(membership).get(f"/projects/{project.id}/").content.decode()
    assert names(html, "services") == ["Checkout"]
    assert re.search(r'<p class="table-more hint" data-more="services" hidden>', html)
    assert re.search(r'<p class="table-more hint" data-more="topics" hidden>', html)


def test_the_tables_list_by_name_whatever_the_script(factory):
    """By id, a name with no letter a slug keeps ("注文", `service-<hash>`) sat among the
    others by its hash; the editor's list was by name already."""
    membership = factory.member(factory.org("names"), role="admin")
    actor = actor_for_membership(membership)
    project = project_create(actor=actor, name="Names", description="")
    for name, topic in [("Zeta", "z.t"), ("注文", "受注"), ("alpha", "A.t"), ("Beta", "b.t")]:
        service_create(
            actor=actor, project_id=project.id, data={"name": name, "produces": [{"name": topic}]}
        )
    html = factory.member_client(membership).get(f"/projects/{project.id}/").content.decode()
    assert names(html, "services") == ["alpha", "Beta", "Zeta", "注文"]
    assert names(html, "topics") == ["A.t", "b.t", "z.t", "受注"]
