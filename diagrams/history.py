"""Field-level changes between two snapshots of a service (ServiceSnapshotDiff, CONTRACT 9).
Plain data in, plain data out."""

FIELDS = ("name", "description", "category", "owner", "flows", "consumes", "produces")


def _is_set(value) -> bool:
    return value is not None and value != [] and value != {}


def snapshot_changes(before: dict | None, after: dict | None) -> list[dict]:
    """`[{field, before, after}]`: request fields, and `extras.<key>` for each extra. With no
    `before` (a first snapshot) every field it sets; with no `after` (a tombstone) every
    field it ends."""
    changes = []
    for name in FIELDS:
        old = before.get(name) if before else None
        new = after.get(name) if after else None
        if before is None or after is None:
            if _is_set(old) or _is_set(new):
                changes.append(
                    {
                        "field": name,
                        "before": old if _is_set(old) else None,
                        "after": new if _is_set(new) else None,
                    }
                )
        elif old != new and (_is_set(old) or _is_set(new)):  # null and [] read the same
            changes.append({"field": name, "before": old, "after": new})
    old_extras = (before or {}).get("extras") or {}
    new_extras = (after or {}).get("extras") or {}
    for key in sorted(set(old_extras) | set(new_extras)):
        if old_extras.get(key) != new_extras.get(key):
            changes.append(
                {
                    "field": f"extras.{key}",
                    "before": old_extras.get(key),
                    "after": new_extras.get(key),
                }
            )
    return changes


def listed_names(names) -> str:
    """Names joined by commas; each quoted where one holds a comma or a semicolon, so that
    "checkout, EU" reads as one flow, not two."""
    names = [str(name) for name in names]
    if any("," in name or ";" in name for name in names):
        return ", ".join(f"“{name}”" for name in names)
    return ", ".join(names)


def topic_line(topic: dict) -> str:
    """A topic as a line of text, its attributes in brackets (the history page's diffs,
    a snapshot's page in Django admin): `orders.placed (owner: shop; flows: buy)`."""
    parts = []
    for key in ("category", "owner"):
        if topic.get(key):
            parts.append(f"{key}: {topic[key]}")
    if topic.get("flows"):
        parts.append("flows: " + listed_names(topic["flows"]))
    if topic.get("extras"):
        parts.append("extras: " + ", ".join(f"{k}={v}" for k, v in topic["extras"].items()))
    return f"{topic.get('name')} ({'; '.join(parts)})" if parts else str(topic.get("name"))
