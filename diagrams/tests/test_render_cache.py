"""Renders come from the shared cache while the project is unchanged; any write, a rename, a
share-token change or new rendering code is seen at once."""

import gzip

from django.core.cache import cache
from django.test import Client

from diagrams import drawings, render_cache
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
    from diagrams import drawing_history, entities, selectors, slugs
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
        drawings.project_graph_view,
        drawings._when_label,
        drawing_history.followed_layout,
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


class Render:
    """A render that takes as long as the test says, and counts how often it ran."""

    def __init__(self, value: bytes, *, fail: bool = False):
        import threading

        self.value = value
        self.fail = fail
        self.started = threading.Event()
        self.release = threading.Event()
        self.calls = 0

    def __call__(self):
        self.calls += 1
        self.started.set()
        assert self.release.wait(10), "the test never released the render"
        if self.fail:
            raise RuntimeError("render failed")
        return self.value


def in_thread(function):
    import threading

    result = {}

    def run():
        try:
            result["value"] = function()
        except Exception as error:  # noqa: BLE001 - the test looks at it
            result["error"] = error

    thread = threading.Thread(target=run)
    thread.start()
    return thread, result


def test_a_missing_render_is_made_once_for_everyone_who_asks_meanwhile():
    """After a write to a big project, every open page asks for the new state at once: one
    worker renders it, the others wait for its bytes instead of rendering them again."""
    key = "render:test:burst"
    first, others = Render(b"<svg>1</svg>"), [Render(b"other") for _ in range(3)]
    leader, led = in_thread(lambda: render_cache.cached(key, first))
    assert first.started.wait(10)
    followers = [in_thread(lambda r=r: render_cache.cached(key, r)) for r in others]
    followers[0][0].join(0.3)  # they are waiting, not rendering
    assert [r.calls for r in others] == [0, 0, 0]
    first.release.set()
    for thread, _ in [(leader, led), *followers]:
        thread.join(10)
    assert first.calls == 1 and [r.calls for r in others] == [0, 0, 0]
    assert [led["value"]] + [f[1]["value"] for f in followers] == [b"<svg>1</svg>"] * 4
    assert cache.get(f"{key}:lock") is None  # released


def test_a_failed_render_leaves_the_others_to_render_for_themselves():
    key = "render:test:failing"
    failing, second = Render(b"", fail=True), Render(b"<svg>2</svg>")
    second.release.set()
    leader, led = in_thread(lambda: render_cache.cached(key, failing))
    assert failing.started.wait(10)
    follower, followed = in_thread(lambda: render_cache.cached(key, second))
    follower.join(0.2)
    failing.release.set()
    leader.join(10), follower.join(10)
    assert isinstance(led["error"], RuntimeError)  # the failing request fails as before
    assert followed["value"] == b"<svg>2</svg>" and second.calls == 1


def test_a_render_that_takes_too_long_is_not_waited_for_past_the_limit(settings):
    settings.RENDER_LOCK_WAIT_SECONDS = 0.2
    key = "render:test:slow"
    slow, impatient = Render(b"slow"), Render(b"own")
    impatient.release.set()
    leader, led = in_thread(lambda: render_cache.cached(key, slow))
    assert slow.started.wait(10)
    assert render_cache.cached(key, impatient) == b"own" and impatient.calls == 1
    slow.release.set()
    leader.join(10)
    assert led["value"] == b"slow"


def test_locks_left_by_a_dead_worker_are_waited_for_once_not_once_each(settings, caplog):
    """A worker killed mid-render (out of memory) leaves the locks of a gzip render, its plain
    bytes and its layout, which expire only after RENDER_LOCK_SECONDS. A waiter gave up on
    the first after RENDER_LOCK_WAIT_SECONDS, then waited out the second anew: past
    gunicorn's timeout on a big project. The request waits once, in all."""
    import time

    settings.RENDER_LOCK_WAIT_SECONDS = 1.0
    settings.RENDER_LOCK_SECONDS = 30
    key = "render:test:orphaned"
    for held in (f"{key}:gzip", key):  # taken by a worker that then died
        assert cache.add(f"{held}:lock", 1, 30)
    started = time.monotonic()
    with caplog.at_level("INFO", logger="archsvc.render_cache"):
        body = render_cache.cached_encoded(key, lambda: "<svg>mine</svg>", gzipped=True)
    waited = time.monotonic() - started
    said = [(r.levelname, r.getMessage()) for r in caplog.records if "lock" in r.getMessage()]
    assert [level for level, _ in said] == ["WARNING", "INFO"], said  # one wait is one warning
    assert gzip.decompress(body) == b"<svg>mine</svg>"
    assert 0.9 <= waited < 1.5, waited  # one wait (1 s), not one for each lock (2 s)


def test_with_the_wait_off_every_worker_that_misses_renders(settings):
    settings.RENDER_LOCK_WAIT_SECONDS = 0
    key = "render:test:off"
    slow, other = Render(b"a"), Render(b"b")
    other.release.set()
    leader, _ = in_thread(lambda: render_cache.cached(key, slow))
    assert slow.started.wait(10)
    assert render_cache.cached(key, other) == b"b"
    slow.release.set()
    leader.join(10)


def test_each_render_is_logged_with_what_it_drew(api, caplog):
    """Operators read what renders cost, and of which project, from the logs; warm reads log
    nothing."""
    project = new_project(api)
    new_service(api, project, {"name": "Alpha"})
    with caplog.at_level("INFO", logger="archsvc.render_cache"):
        api.get(f"/v1/projects/{project}/graph?filteredIds=service--alpha&depth=2")
        api.get(f"/v1/projects/{project}/graph/svg", HTTP_ACCEPT_ENCODING="gzip")
        api.get(f"/v1/projects/{project}/graph/svg", HTTP_ACCEPT_ENCODING="gzip")
    messages = [r.getMessage() for r in caplog.records]
    assert [m.split(" in ")[0] for m in messages] == [
        f"render computed: json of {project}, 1 filtered ids, depth 2",
        f"render computed: svg of {project}",
        f"render computed: svg of {project}, gzip",
    ]
    assert all("bytes (render:" in m for m in messages)


def test_the_pages_and_the_api_share_one_entities_render_and_see_every_write(factory, org, caplog):
    """The project page and the service editor read the project's entities (tables, the Show
    menu, the editor's suggestions) from the same cached render as `GET .../entities`: made
    once while the project is unchanged, made again after a write, which the page shows."""
    membership = factory.member(org, role="admin")
    client = factory.member_client(membership, enforce_csrf=False)
    project = new_project(client)
    new_service(client, project, {"name": "Alpha", "owner": "storefront"})
    with caplog.at_level("INFO", logger="archsvc.render_cache"):
        page = client.get(f"/projects/{project}/")
        editor = client.get(f"/projects/{project}/services/new/")
        api = client.get(f"/v1/projects/{project}/entities")
        assert (page.status_code, editor.status_code, api.status_code) == (200, 200, 200)
        assert b"storefront" in page.content and b"storefront" in editor.content
        new_service(client, project, {"name": "Beta", "owner": "fulfilment"})
        page = client.get(f"/projects/{project}/")
    assert b'data-focus-id="service--beta"' in page.content  # in the table under the graph
    assert b'value="owner--fulfilment"' in page.content  # and in the Show menu
    computed = [
        r.getMessage()
        for r in caplog.records
        if r.getMessage().startswith(f"render computed: entities of {project}")
    ]
    assert len(computed) == 2  # one for each state of the project


def layouts_computed(caplog) -> int:
    return sum(r.getMessage().startswith("render computed: layout of") for r in caplog.records)


def test_a_layout_is_made_once_per_shape_of_the_graph(api, caplog, monkeypatch):
    """The JSON and the SVG of a state share one layout; a write that leaves the graph's
    shape alone (an owner, a category, a description) is drawn anew from the same layout,
    in its new colours and tooltips, at the same places; a new edge or a new name is drawn
    by following the drawing before it (diagrams/drawing_history.py): nothing is laid out
    again, and what was there stays where it was."""
    monkeypatch.setattr(render_cache, "LAYOUT_MIN_NODES", 1)
    project = new_project(api)
    new_service(api, project, {"name": "Alpha", "produces": [{"name": "orders"}]})
    new_service(api, project, {"name": "Beta", "consumes": [{"name": "orders"}]})
    with caplog.at_level("INFO", logger="archsvc.render_cache"):
        svg = api.get(f"/v1/projects/{project}/graph/svg").content.decode()
        graph = api.get(f"/v1/projects/{project}/graph").json()
        assert layouts_computed(caplog) == 1
        put(
            api,
            f"/v1/projects/{project}/services/beta",
            {"owner": "team-b", "category": "Billing", "description": "bills"},
        )
        svg_after = api.get(f"/v1/projects/{project}/graph/svg").content.decode()
        graph_after = api.get(f"/v1/projects/{project}/graph").json()
        assert layouts_computed(caplog) == 1
        assert "owner: team-b" in svg_after and "owner: team-b" not in svg
        place = {n["id"]: (n["x"], n["y"], n["width"]) for n in graph["nodes"]}
        assert {n["id"]: (n["x"], n["y"], n["width"]) for n in graph_after["nodes"]} == place
        beta = next(n for n in graph_after["nodes"] if n["id"] == "service--beta")
        assert beta["category"] == "Billing"
        # a new edge and topic: drawn with them, the rest in place
        put(api, f"/v1/projects/{project}/services/beta", {"produces": [{"name": "bills"}]})
        assert "messaging--bills" in api.get(f"/v1/projects/{project}/graph/svg").content.decode()
        with_bills = api.get(f"/v1/projects/{project}/graph").json()["nodes"]
        assert {n["id"]: (n["x"], n["y"], n["width"]) for n in with_bills if n["id"] in place} == (
            place
        )
        assert layouts_computed(caplog) == 1
        # a new name (a wider box): that box alone goes elsewhere
        put(api, f"/v1/projects/{project}/services/alpha", {"name": "Alpha with a long name"})
        svg_renamed = api.get(f"/v1/projects/{project}/graph/svg").content.decode()
        assert "Alpha with a long name" in svg_renamed
        renamed = api.get(f"/v1/projects/{project}/graph").json()["nodes"]
        orders = next(n for n in renamed if n["id"] == "messaging--orders")
        assert (orders["x"], orders["y"], orders["width"]) == place["messaging--orders"]
        assert layouts_computed(caplog) == 1


def test_a_new_shape_is_laid_out_by_one_worker_while_the_others_wait(caplog):
    """Right after a write to a big project, its JSON and its SVG are asked for together
    (the page, the API, other workers): one of them lays the new shape out, the others wait
    for that layout instead of spending the same seconds on it."""
    import threading

    import networkx as nx

    from diagrams.rendering.layout import layout_layered

    graph = nx.DiGraph()
    for i in range(600):  # laid out in about 0.2 s: the three asks overlap
        graph.add_node(f"service--s{i}", label=f"Service {i}", type="service")
        graph.add_node(f"messaging--t{i}", label=f"topic {i}", type="messaging")
        graph.add_edge(f"service--s{i}", f"messaging--t{i}", kind="produces")
        graph.add_edge(f"messaging--t{i}", f"service--s{(i * 7 + 1) % 600}", kind="consumes")
    start = threading.Barrier(3)

    def ask():
        start.wait()
        return render_cache.layout_cached(graph, origin=(0, 40))

    with caplog.at_level("INFO", logger="archsvc.render_cache"):
        asks = [in_thread(ask) for _ in range(3)]
        for thread, _ in asks:
            thread.join(60)
    messages = [r.getMessage() for r in caplog.records]
    assert layouts_computed(caplog) == 1, messages
    assert sum(m.startswith("render awaited: layout of 1200 nodes") for m in messages) == 2
    expected = layout_layered(graph, origin=(0, 40))
    assert [result["value"] for _, result in asks] == [expected] * 3
    assert cache.get(f"{render_cache.layout_key(graph, (0, 40))}:lock") is None


def test_a_render_runs_with_the_garbage_collector_paused_and_turns_it_on_again():
    """A render makes hundreds of thousands of objects that live until it ends; the cyclic
    collector's passes over them found nothing and took a quarter of a big layout. It is
    off while a render runs and on again afterwards, even when the render fails (left off,
    a worker's garbage in cycles would never be freed)."""
    import gc

    seen = []

    def render():
        seen.append(gc.isenabled())
        return b"<svg/>"

    def failing():
        seen.append(gc.isenabled())
        raise RuntimeError("render failed")

    assert gc.isenabled()
    assert render_cache.cached("render:test:gc", render) == b"<svg/>"
    try:
        render_cache.cached("render:test:gc-failing", failing)
    except RuntimeError:
        pass
    assert seen == [False, False] and gc.isenabled()
    # a block inside another leaves it off until the outer one ends
    with render_cache.gc_paused():
        with render_cache.gc_paused():
            pass
        assert not gc.isenabled()
    assert gc.isenabled()
    assert render_cache.json_value(b'{"a":[1,{"b":null}]}') == {"a": [1, {"b": None}]}
    assert gc.isenabled()
