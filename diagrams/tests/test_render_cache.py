"""Renders come from the shared cache while the project is unchanged; any write, a rename, a
share-token change or new rendering code is seen at once."""

from django.test import Client

from diagrams import render_cache
from diagrams.tests.helpers import new_project, new_service, put


def test_a_warm_render_runs_only_the_lookup_queries(api, django_assert_max_num_queries):
    project = new_project(api)
    for i in range(5):
        new_service(api, project, {"name": f"S{i}", "produces": [{"name": f"t{i}"}]})
    first = api.get(f"/v1/projects/{project}/graph/svg").content
    with django_assert_max_num_queries(2):  # the API key and the project
        again = api.get(f"/v1/projects/{project}/graph/svg").content
    assert again == first
    with django_assert_max_num_queries(2):
        api.get(f"/v1/projects/{project}/graph/svg")


def test_every_write_is_seen_at_once(api):
    project = new_project(api)
    new_service(api, project, {"name": "Alpha"})
    for kind in ("graph", "graph/svg", "graph/mermaid"):
        api.get(f"/v1/projects/{project}/{kind}")  # warm
    new_service(api, project, {"name": "Beta"})
    assert "service--beta" in api.get(f"/v1/projects/{project}/graph").content.decode()
    assert b'data-entity-id="service--beta"' in api.get(f"/v1/projects/{project}/graph/svg").content
    assert b"service__beta" in api.get(f"/v1/projects/{project}/graph/mermaid").content
    put(api, f"/v1/projects/{project}/services/beta", {"name": "Gamma"})
    assert b"service__gamma" in api.get(f"/v1/projects/{project}/graph/mermaid").content
    api.delete(f"/v1/projects/{project}/services/gamma")
    assert b"service__gamma" not in api.get(f"/v1/projects/{project}/graph/mermaid").content
    put(api, f"/v1/projects/{project}", {"name": "Renamed shop"})
    assert b"Renamed shop" in api.get(f"/v1/projects/{project}/graph/svg").content


def test_query_parameters_are_part_of_the_key(api):
    project = new_project(api)
    new_service(api, project, {"name": "Alpha", "produces": [{"name": "t"}]})
    new_service(api, project, {"name": "Beta", "consumes": [{"name": "t"}]})
    whole = api.get(f"/v1/projects/{project}/graph").json()
    focused = api.get(f"/v1/projects/{project}/graph?filteredIds=service--alpha&depth=0").json()
    assert len(whole["nodes"]) == 3 and len(focused["nodes"]) == 1
    assert focused["filteredIds"] == ["service--alpha"] and focused["depth"] == 0
    assert whole["filteredIds"] == [] and whole["depth"] is None


def test_a_revoked_share_is_404_even_with_a_warm_render(factory, org):
    manager = factory.key_client(org, "m", ["projects:manage"])
    project = new_project(manager)
    new_service(manager, project, {"name": "Alpha"})
    token = manager.post(f"/v1/projects/{project}/public-share-token").json()["token"]
    assert Client().get(f"/share/{token}/graph.svg").status_code == 200  # cached now
    manager.delete(f"/v1/projects/{project}/public-share-token")
    assert Client().get(f"/share/{token}/graph.svg").status_code == 404
    assert Client().get(f"/share/{token}/").status_code == 404


def test_keys_carry_the_version_of_the_rendering_code(api):
    """A deploy of new code that makes the bytes of a cached read (or of a new format for
    cached values) changes this hash of its sources, so no key (and no ETag) of the old code
    is found again."""
    import hashlib
    import inspect
    from pathlib import Path

    from archsvc.api import params
    from diagrams import entities, selectors, slugs
    from diagrams.api import service_views
    from diagrams.models import Project
    from diagrams.rendering import document, mermaid, svg

    sources = render_cache._SOURCES
    expected = hashlib.sha256(b"".join(p.read_bytes() for p in sources)).hexdigest()[:12]
    assert render_cache.RENDER_VERSION == expected
    # Everything the cached bodies are made of is among them.
    for made_by in (
        document.project_graph_json,
        svg.svg_document,
        mermaid.mermaid_flowchart,
        entities.project_entities,
        selectors.project_graph_view,
        selectors._when_label,
        selectors.services_at,
        service_views.service_json,
        service_views.topic_json,
        params.iso,
        slugs.service_slug,
        render_cache.cached_encoded,
    ):
        assert Path(inspect.getsourcefile(made_by)).resolve() in sources, made_by
    project = Project.objects.get(pk=new_project(api))
    key = render_cache.render_key(project=project, at=None, filtered_ids=[], depth=1, kind="svg")
    assert key.startswith(f"render:{expected}:")
