"""Entities (interface §6, 8, 9): ids, merged topic attributes, complete relationships."""

from datetime import UTC, datetime, timedelta

from diagrams.entities import (
    NEUTRAL,
    PALETTE,
    ServiceState,
    category_color,
    entity_ids,
    project_entities,
)
from diagrams.slugs import entity_slug, sha1_hex
from diagrams.tests.helpers import new_project, new_service, put

T0 = datetime(2026, 1, 1, tzinfo=UTC)


def state(slug, minutes=0, **fields):
    return ServiceState(
        slug=slug,
        name=fields.pop("name", slug),
        updated_at=T0 + timedelta(minutes=minutes),
        **fields,
    )


def test_entity_slug_rules():
    assert entity_slug("Orders.Created v2") == "orders-created-v2"
    assert entity_slug("--Payments__EU--") == "payments-eu"
    assert entity_slug("日本") == sha1_hex("日本")[:8]  # nothing slug-able: the name's hash


def test_names_that_share_a_slug_each_get_a_hash_suffix():
    ids = entity_ids("messaging", ["Orders", "orders", "payments"])
    assert ids["payments"] == "messaging--payments"
    assert ids["Orders"].startswith("messaging--orders-") and len(ids["Orders"]) == 24
    assert ids["orders"].startswith("messaging--orders-") and ids["orders"] != ids["Orders"]


def test_a_suffixed_id_that_is_another_names_id_is_made_longer():
    """ "a" and "A" share a slug, so "a" is `a-86f7e4`: exactly the id of a topic named
    "a-86f7e4". Every name keeps an id of its own (one of them had vanished from the graph)."""
    clash = "a-" + sha1_hex("a")[:6]
    ids = entity_ids("messaging", ["A", "a", clash])
    assert len(set(ids.values())) == 3
    assert ids[clash] == f"messaging--{clash}"  # a slug of its own: the contract's id
    assert ids["A"] == "messaging--a-" + sha1_hex("A")[:6]  # no clash: as before
    assert ids["a"] == "messaging--a-" + sha1_hex("a")[:12]


def test_two_clashing_names_get_distinct_entities_in_the_graph(api):
    project = new_project(api)
    clash = "a-" + sha1_hex("a")[:6]
    new_service(
        api,
        project,
        {"name": "collider", "category": "a", "produces": [{"name": n} for n in ("A", "a", clash)]},
    )
    new_service(api, project, {"name": "other", "category": clash, "consumes": [{"name": "a"}]})
    new_service(api, project, {"name": "third", "category": "A"})
    entities = api.get(f"/v1/projects/{project}/entities").json()
    topics = {t["name"]: entity_id for entity_id, t in entities["topics"].items()}
    assert set(topics) == {"A", "a", clash}
    assert sorted(entities["services"]["service--collider"]["produces"]) == sorted(topics.values())
    assert len(entities["categories"]) == 3
    graph = api.get(f"/v1/projects/{project}/graph").json()
    labels = sorted(n["label"] for n in graph["nodes"] if n["type"] != "service")
    assert labels == sorted(["A", "a", clash])
    assert len({c["id"] for c in graph["categories"]}) == len(graph["categories"]) == 3
    focused = api.get(
        f"/v1/projects/{project}/graph", {"filteredIds": f"category--{clash}", "depth": 0}
    ).json()
    assert [n["label"] for n in focused["nodes"] if n["type"] == "service"] == ["other"]


def test_topic_attributes_merge_most_recent_wins_and_null_never_erases():
    services = [
        state(
            "old",
            0,
            produces=(
                {
                    "name": "orders",
                    "category": "sales",
                    "owner": "team-a",
                    "flows": ["checkout"],
                    "extras": {"schema": "v1", "k": "a"},
                },
            ),
        ),
        state(
            "new",
            5,
            consumes=(
                {
                    "name": "orders",
                    "category": "commerce",
                    "owner": None,
                    "flows": ["refunds"],
                    "extras": {"schema": "v2"},
                },
            ),
        ),
    ]
    topic = project_entities(services)["topics"]["messaging--orders"]
    assert topic["category"] == "commerce"  # the most recently updated declaration wins
    assert topic["owner"] == "team-a"  # a null does not erase
    assert topic["flows"] == ["checkout", "refunds"]
    assert topic["extras"] == {"schema": "v2", "k": "a"}
    assert topic["producers"] == ["service--old"] and topic["consumers"] == ["service--new"]


def test_relationships_are_complete_in_both_directions():
    services = [
        state(
            "api",
            category="core",
            owner="team-a",
            flows=("checkout",),
            produces=({"name": "orders", "category": "events"},),
            consumes=({"name": "payments"},),
        ),
        state(
            "pay",
            category="core",
            owner="team-b",
            produces=({"name": "payments", "owner": "team-b", "flows": ["checkout"]},),
        ),
    ]
    e = project_entities(services)
    assert set(e) == {"services", "topics", "categories", "owners", "flows"}
    api = e["services"]["service--api"]
    assert api["produces"] == ["messaging--orders"]
    assert api["consumes"] == ["messaging--payments"]
    assert api["categoryId"] == "category--core" and api["ownerId"] == "owner--team-a"
    assert e["topics"]["messaging--payments"]["producers"] == ["service--pay"]
    assert e["topics"]["messaging--payments"]["consumers"] == ["service--api"]
    assert e["categories"]["category--core"]["services"] == ["service--api", "service--pay"]
    assert e["categories"]["category--events"]["topics"] == ["messaging--orders"]
    assert e["owners"]["owner--team-b"] == {
        "id": "owner--team-b",
        "name": "team-b",
        "services": ["service--pay"],
        "topics": ["messaging--payments"],
    }
    assert e["flows"]["flow--checkout"]["services"] == ["service--api"]
    assert e["flows"]["flow--checkout"]["topics"] == ["messaging--payments"]
    # every id referenced exists
    for service in e["services"].values():
        assert all(t in e["topics"] for t in service["produces"] + service["consumes"])
    for topic in e["topics"].values():
        assert all(s in e["services"] for s in topic["producers"] + topic["consumers"])


def test_category_colours_are_stable_and_from_the_palette():
    assert len(PALETTE) >= 12
    assert category_color("core") == category_color("core") in PALETTE
    assert category_color(None) == NEUTRAL
    assert len({category_color(f"cat-{i}") for i in range(60)}) >= 10


def test_entities_endpoint_reflects_now_and_any_past_time(api):
    project = new_project(api)
    base = f"/v1/projects/{project}/services"
    first = new_service(
        api, project, {"name": "Orders", "category": "core", "produces": [{"name": "orders"}]}
    )
    new_service(api, project, {"name": "Billing", "consumes": [{"name": "orders"}]})
    put(api, f"{base}/orders", {"produces": [{"name": "orders-v2"}]})
    now = api.get(f"/v1/projects/{project}/entities").json()
    assert set(now["services"]) == {"service--orders", "service--billing"}
    assert now["topics"]["messaging--orders"]["producers"] == []
    assert now["topics"]["messaging--orders"]["consumers"] == ["service--billing"]
    assert now["topics"]["messaging--orders-v2"]["producers"] == ["service--orders"]
    assert now["categories"]["category--core"]["color"] == category_color("core")
    past = api.get(f"/v1/projects/{project}/entities?at={first['validFrom']}").json()
    assert set(past["services"]) == {"service--orders"}
    assert set(past["topics"]) == {"messaging--orders"}


def test_entities_of_foreign_project_is_404(factory, api):
    foreign = new_project(factory.key_client(factory.org("other")))
    response = api.get(f"/v1/projects/{foreign}/entities")
    assert response.status_code == 404 and response.json()["code"] == "project_not_found"
