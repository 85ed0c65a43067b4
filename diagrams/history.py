"""History in words: field-level changes between two snapshots of a service
(ServiceSnapshotDiff, interface §9), what a change did, and whether a moment is the present."""

from datetime import datetime

from django.utils import timezone

FIELDS = ("name", "description", "category", "owner", "flows", "consumes", "produces")


def _is_set(value) -> bool:
    return value is not None and value != [] and value != {}


def snapshot_changes(before: dict | None, after: dict | None) -> list[dict]:
    """`[{field, before, after}]` of request fields and `extras.<key>`; with no `before` (a first
    snapshot) every field it sets, with no `after` (a tombstone) every field it ends."""
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


def is_current(at: datetime | None) -> bool:
    """Whether a read `at` this time is of the current state (no time, or one not yet
    come); the render cache keys on it too."""
    return at is None or at >= timezone.now()


def _topic_names(topics) -> list[str]:
    return [topic["name"] for topic in topics or () if isinstance(topic, dict) and "name" in topic]


def change_words(old, new, *, most: int = 4) -> str:
    """What a change did in a few words ("renamed from Warehouse", "owner a -> b"), from the
    snapshot before it (None: unknown, or a creation); at most `most` parts, then how many more."""
    if old is None or new.action in ("created", "deleted"):
        return ""
    parts = []
    if old.name != new.name:
        parts.append(f"renamed from {old.name}")
    for direction, word in (("consumes", "consuming"), ("produces", "producing")):
        was, now = _topic_names(getattr(old, direction)), _topic_names(getattr(new, direction))
        gone = [name for name in was if name not in now]
        came = [name for name in now if name not in was]
        if gone:
            parts.append(f"stopped {word} {', '.join(gone)}")
        if came:
            parts.append(f"started {word} {', '.join(came)}")
    for field in ("owner", "category"):
        was, now = getattr(old, field), getattr(new, field)
        if was != now:
            parts.append(f"{field} {was or 'none'} -> {now or 'none'}")
    for field, label in (("description", "description"), ("flows", "flows"), ("extras", "extras")):
        if (getattr(old, field) or None) != (getattr(new, field) or None):
            parts.append(f"{label} changed")
    if not parts and (old.consumes, old.produces) != (new.consumes, new.produces):
        # a topic's category or owner, as this service declares it
        return "topic details changed"
    more = len(parts) - most
    return "; ".join(parts[:most]) + (f"; and {more} more" if more > 0 else "")
