"""A project's state as plain data, and what derives from it (interface §6, 8, 9): entity ids,
topics merged from every declaration, categories with colours, owners, flows. No ORM."""

import hashlib
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from datetime import datetime

from diagrams.slugs import entity_slug, sha1_hex

# 12 colours that stay distinct from each other and readable under dark text.
PALETTE = [
    "#8ecae6",
    "#ffb703",
    "#90be6d",
    "#f4a261",
    "#cdb4db",
    "#e9c46a",
    "#84a59d",
    "#f28482",
    "#a2d2ff",
    "#b5e48c",
    "#ffafcc",
    "#c9ada7",
]
NEUTRAL = "#e5e7eb"


@dataclass(frozen=True)
class ServiceState:
    """One live service as of some time: what the graph, entities and assistant read."""

    slug: str
    name: str
    description: str | None = None
    category: str | None = None
    owner: str | None = None
    flows: tuple[str, ...] = ()
    consumes: tuple[dict, ...] = ()
    produces: tuple[dict, ...] = ()
    extras: dict = field(default_factory=dict)
    updated_at: datetime | None = None


def topic_normal(topic: dict) -> dict:
    """A MessagingTopic as stored: every attribute present, nulls kept, flows de-duplicated."""
    flows = topic.get("flows")
    return {
        "name": topic["name"],
        "category": topic.get("category"),
        "owner": topic.get("owner"),
        "flows": list(dict.fromkeys(flows)) if flows is not None else None,
        "extras": dict(topic.get("extras") or {}),
    }


def category_color(name: str | None) -> str:
    """A stable colour per category name; the neutral colour for none."""
    if not name:
        return NEUTRAL
    digest = hashlib.sha1(name.encode(), usedforsecurity=False).digest()
    return PALETTE[int.from_bytes(digest[:4], "big") % len(PALETTE)]


def entity_ids(prefix: str, names: Iterable[str]) -> dict[str, str]:
    """Entity id per distinct name: `<prefix>--<slug>`, plus a part of its SHA-1 on every name
    whose slug another of its kind shares, long enough that every name has an id of its own."""
    by_slug: dict[str, list[str]] = {}
    for name in dict.fromkeys(names):
        by_slug.setdefault(entity_slug(name), []).append(name)
    ids, suffixed = {}, {}
    for slug, group in by_slug.items():
        for name in group:
            if len(group) == 1:
                ids[name] = f"{prefix}--{slug}"
            else:
                suffixed[name] = slug
                ids[name] = f"{prefix}--{slug}-{sha1_hex(name)[:6]}"
    # a suffixed id can still be another name's ("a" and "A" beside a topic named "a-86f7e4"):
    # the clashing suffixed names take six more characters of their hash, until none clash
    length = 6
    while suffixed and length < 40:
        holders: dict[str, list[str]] = {}
        for name, entity_id in ids.items():
            holders.setdefault(entity_id, []).append(name)
        clashing = [
            name
            for group in holders.values()
            if len(group) > 1
            for name in group
            if name in suffixed
        ]
        if not clashing:
            break
        length += 6
        for name in clashing:
            ids[name] = f"{prefix}--{suffixed[name]}-{sha1_hex(name)[:length]}"
    return ids


def service_id(slug: str) -> str:
    """The entity id of a service."""
    return f"service--{slug}"


def _unique(items: Iterable[str]) -> list[str]:
    return list(dict.fromkeys(items))


def merged_topics(services: list[ServiceState]) -> dict[str, dict]:
    """Every topic services name, with its producers and consumers: the latest non-null category
    and owner of its declarations, their flows united and extras merged key by key."""
    topics: dict[str, dict] = {}
    ordered = sorted(
        services,
        key=lambda s: (
            s.updated_at is not None,
            s.updated_at.timestamp() if s.updated_at else 0.0,
            s.slug,
        ),
    )
    for service in ordered:
        for direction, declarations in (
            ("producers", service.produces),
            ("consumers", service.consumes),
        ):
            for declaration in declarations:
                topic = topics.setdefault(
                    declaration["name"],
                    {
                        "name": declaration["name"],
                        "category": None,
                        "owner": None,
                        "flows": [],
                        "extras": {},
                        "producers": [],
                        "consumers": [],
                    },
                )
                for attribute in ("category", "owner"):
                    if declaration.get(attribute) is not None:
                        topic[attribute] = declaration[attribute]
                topic["flows"] = _unique([*topic["flows"], *(declaration.get("flows") or [])])
                topic["extras"].update(declaration.get("extras") or {})
                topic[direction].append(service.slug)
    for topic in topics.values():
        topic["producers"] = sorted(set(topic["producers"]))
        topic["consumers"] = sorted(set(topic["consumers"]))
    return topics


def project_entities(services: list[ServiceState]) -> dict:
    """ProjectEntities (interface §9): services, topics, categories, owners and flows, each
    keyed by entity id, with relationships in both directions."""
    services = sorted(
        (replace(s, flows=tuple(_unique(s.flows))) for s in services), key=lambda s: s.slug
    )
    topics = merged_topics(services)
    topic_ids = entity_ids("messaging", topics)
    carriers = [
        *services,
        *(
            {"category": t["category"], "owner": t["owner"], "flows": t["flows"]}
            for t in topics.values()
        ),
    ]

    def names(attribute: str) -> list[str]:
        out = []
        for carrier in carriers:
            value = (
                getattr(carrier, attribute)
                if isinstance(carrier, ServiceState)
                else carrier[attribute]
            )
            if attribute == "flows":
                out.extend(value or ())
            elif value:
                out.append(value)
        return sorted(set(out))

    category_ids = entity_ids("category", names("category"))
    owner_ids = entity_ids("owner", names("owner"))
    flow_ids = entity_ids("flow", names("flows"))

    categories = {
        category_ids[n]: {
            "id": category_ids[n],
            "name": n,
            "color": category_color(n),
            "services": [],
            "topics": [],
        }
        for n in category_ids
    }
    owners = {
        owner_ids[n]: {"id": owner_ids[n], "name": n, "services": [], "topics": []}
        for n in owner_ids
    }
    flows = {
        flow_ids[n]: {"id": flow_ids[n], "name": n, "services": [], "topics": []} for n in flow_ids
    }

    out_services = {}
    for service in services:
        sid = service_id(service.slug)
        out_services[sid] = {
            "id": sid,
            "type": "service",
            "slug": service.slug,
            "name": service.name,
            "description": service.description,
            "category": service.category,
            "categoryId": category_ids.get(service.category),
            "owner": service.owner,
            "ownerId": owner_ids.get(service.owner),
            "flows": list(service.flows),
            "flowIds": [flow_ids[f] for f in service.flows],
            "extras": dict(service.extras),
            "produces": [topic_ids[t["name"]] for t in service.produces],
            "consumes": [topic_ids[t["name"]] for t in service.consumes],
        }
        if service.category:
            categories[category_ids[service.category]]["services"].append(sid)
        if service.owner:
            owners[owner_ids[service.owner]]["services"].append(sid)
        for flow in service.flows:
            flows[flow_ids[flow]]["services"].append(sid)

    out_topics = {}
    for name, topic in topics.items():
        tid = topic_ids[name]
        out_topics[tid] = {
            "id": tid,
            "type": "messaging",
            "name": name,
            "category": topic["category"],
            "categoryId": category_ids.get(topic["category"]),
            "owner": topic["owner"],
            "ownerId": owner_ids.get(topic["owner"]),
            "flows": topic["flows"],
            "flowIds": [flow_ids[f] for f in topic["flows"]],
            "extras": topic["extras"],
            "producers": [service_id(s) for s in topic["producers"]],
            "consumers": [service_id(s) for s in topic["consumers"]],
        }
        if topic["category"]:
            categories[category_ids[topic["category"]]]["topics"].append(tid)
        if topic["owner"]:
            owners[owner_ids[topic["owner"]]]["topics"].append(tid)
        for flow in topic["flows"]:
            flows[flow_ids[flow]]["topics"].append(tid)

    for group in (*categories.values(), *owners.values(), *flows.values()):
        group["services"].sort()
        group["topics"].sort()

    def by_id(items: dict) -> dict:
        return dict(sorted(items.items()))

    return {
        "services": by_id(out_services),
        "topics": by_id(out_topics),
        "categories": by_id(categories),
        "owners": by_id(owners),
        "flows": by_id(flows),
    }
