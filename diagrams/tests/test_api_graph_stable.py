"""The whole project's drawing through the API: screen-shaped (`aspect`), and holding still
across edits and time travel (a function of the history up to the moment drawn)."""

import re
from urllib.parse import quote

import pytest
from django.core.cache import cache

from diagrams import render_cache
from diagrams.rendering.svg import RELAID_NOTE
from diagrams.tests.helpers import new_project, new_service, put


def places(api, project, at=None, aspect=None) -> dict:
    query = []
    if at:
        query.append(f"at={quote(at)}")
    if aspect:
        query.append(f"aspect={aspect}")
    url = f"/v1/projects/{project}/graph" + ("?" + "&".join(query) if query else "")
    response = api.get(url)
    assert response.status_code == 200, response.content
    return {n["id"]: (n["x"], n["y"]) for n in response.json()["nodes"]}


def forget_drawings():
    """Every worker's and the shared cache's renders gone, as after a restart."""
    cache.clear()
    render_cache.local_renders.clear()


@pytest.fixture
def pipeline(api):
    """A project of 12 services in a chain, written one by one (12 moments)."""
    project = new_project(api)
    moments = []
    for i in range(12):
        consumes = [{"name": f"step-{i - 1}"}] if i else []
        body = {"name": f"Stage {i}", "produces": [{"name": f"step-{i}"}], "consumes": consumes}
        moments.append(new_service(api, project, body)["validFrom"])
    return project, moments


@pytest.mark.parametrize("value", ["abc", "0.1", "5.5", "nan", "inf", "1e3", "-1", "", "１"])
def test_an_aspect_out_of_range_or_not_a_number_is_a_400_naming_it(api, value):
    project = new_project(api)
    for kind in ("", "/svg", "/mermaid"):
        response = api.get(f"/v1/projects/{project}/graph{kind}?aspect={quote(value)}")
        assert response.status_code == 400, (kind, value)
        assert "aspect" in response.json()["message"]


def test_the_aspect_shapes_the_drawing_and_the_json_keeps_its_fields(api, pipeline):
    project, _ = pipeline
    wide = api.get(f"/v1/projects/{project}/graph").json()
    tall = api.get(f"/v1/projects/{project}/graph?aspect=0.5").json()
    assert set(tall) == set(wide)
    assert tall["width"] / tall["height"] < wide["width"] / wide["height"]
    svg = api.get(f"/v1/projects/{project}/graph/svg?aspect=0.5").content.decode()
    size = re.search(r'<svg[^>]* height="([0-9.]+)"[^>]* width="([0-9.]+)"', svg)
    assert (float(size[2]), float(size[1])) == (tall["width"], tall["height"])
    mermaid = api.get(f"/v1/projects/{project}/graph/mermaid?aspect=0.5")
    assert mermaid.content == api.get(f"/v1/projects/{project}/graph/mermaid").content


def test_an_edit_leaves_every_other_node_where_it_was(api, pipeline):
    project, _ = pipeline
    before = places(api, project)
    put(
        api,
        f"/v1/projects/{project}/services/stage-3",
        {"consumes": [{"name": "step-2"}, {"name": "step-9"}]},
    )
    after = places(api, project)
    assert after == before  # one more edge: no node moves
    new_service(api, project, {"name": "Auditor", "consumes": [{"name": "step-5"}]})
    grown = places(api, project)
    assert {n: p for n, p in grown.items() if n in before} == before
    assert "service--auditor" in grown


def test_adjacent_moments_place_what_did_not_change_identically(api, pipeline):
    """Unless the later one was laid out anew (rarely: the drawing had grown loose), and its
    header says so."""
    project, moments = pipeline
    drawn = [places(api, project, at=moment) for moment in moments]
    anew = [
        RELAID_NOTE in api.get(f"/v1/projects/{project}/graph/svg?at={quote(m)}").content.decode()
        for m in moments
    ]
    assert sum(anew) <= 2  # 12 moments, each a service and a topic more: 24 of 24 nodes new
    for earlier, later, relaid in zip(drawn, drawn[1:], anew[1:], strict=False):
        if not relaid:
            assert {n: p for n, p in later.items() if n in earlier} == earlier


def test_a_past_moment_draws_the_same_bytes_after_later_writes_and_a_restart(api, pipeline):
    project, moments = pipeline
    at = moments[6]
    url = f"/v1/projects/{project}/graph/svg?at={quote(at)}"
    first = api.get(url).content
    for i in range(3):
        new_service(api, project, {"name": f"Later {i}", "consumes": [{"name": "step-1"}]})
    forget_drawings()
    assert api.get(url).content == first
    # and the current drawing made cold equals the one made by following warm
    now = api.get(f"/v1/projects/{project}/graph").content
    forget_drawings()
    assert api.get(f"/v1/projects/{project}/graph").content == now


def test_the_demos_history_holds_still_but_for_two_steps_that_say_so(factory):
    """The demo as seeded (20 services written one by one, then 8 changes): at least 90% of
    its steps in time keep every node that stays where it was; the others say they were
    laid out anew. Its current drawing reads whole on 1280 x 720 (labels at least 9 px)."""
    from accounts.models import Membership
    from diagrams.demo import demo_seed
    from diagrams.models import Project, ServiceSnapshot

    org = factory.org("demo")
    membership = factory.member(org, role="admin")
    demo_seed(organization=org, membership=Membership.objects.get(pk=membership.pk))
    project = Project.objects.get(organization=org)
    api = factory.member_client(membership, enforce_csrf=False)
    moments = sorted({s.valid_from for s in ServiceSnapshot.objects.filter(project=project)})
    assert len(moments) == 28
    drawn, anew = [], []
    for moment in moments:
        at = moment.isoformat()
        drawn.append(places(api, project.id, at=at))
        svg = api.get(f"/v1/projects/{project.id}/graph/svg?at={quote(at)}").content.decode()
        anew.append(RELAID_NOTE in svg)
    # what is in both moments (a deleted or renamed service is in one) stays where it was
    kept = [
        {n: p for n, p in later.items() if n in earlier}
        == {n: p for n, p in earlier.items() if n in later}
        for earlier, later in zip(drawn, drawn[1:], strict=False)
    ]
    assert sum(kept) >= 0.9 * len(kept)
    assert all(relaid for ok, relaid in zip(kept, anew[1:], strict=False) if not ok)
    now = api.get(f"/v1/projects/{project.id}/graph").json()
    assert 12 * min(1280 / now["width"], 720 / now["height"]) >= 9
