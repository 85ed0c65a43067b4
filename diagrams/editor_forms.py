"""The service editor's form, pure (no request, no database): its state, the API request body
it makes, the API's errors beside its fields, and the three-way merge of a stale form."""

import re
from itertools import zip_longest

from rest_framework import serializers

from archsvc.api.errors import _violations
from diagrams.api.serializers import EXTRAS_MAX

DIRECTIONS = ("consumes", "produces")
TOPIC_FIELDS = ("name", "category", "owner")
SIMPLE_FIELDS = ("name", "description", "category", "owner", "flows")
BLANK_ROWS = 2  # empty rows offered after the filled ones (more with the page's script)

_TOPIC_PATH = re.compile(r"^(consumes|produces)\[(\d+)\](?:\.([A-Za-z]+))?", re.ASCII)
_FLOW_PATH = re.compile(r"^flows\[(\d+)\]$", re.ASCII)


# --- The form's state -----------------------------------------------------------------------


def empty_form() -> dict:
    """The form of a new service."""
    return {
        "name": "",
        "description": "",
        "category": "",
        "owner": "",
        "flows": "",
        "consumes": [],
        "produces": [],
        "extras": [],
    }


def _blank_topic() -> dict:
    return {"name": "", "category": "", "owner": "", "was": "", "errors": {}}


def _blank_extra() -> dict:
    return {"key": "", "value": "", "errors": []}


def with_blank_rows(form: dict) -> dict:
    for direction in DIRECTIONS:
        form[direction] = form[direction] + [_blank_topic() for _ in range(BLANK_ROWS)]
    # none past the most a service can have: a row offered there could only be refused
    room = max(0, min(BLANK_ROWS, EXTRAS_MAX - len(form["extras"])))
    form["extras"] = form["extras"] + [_blank_extra() for _ in range(room)]
    return form


def form_from_snapshot(snapshot) -> dict:
    """The edit form of a service as stored."""
    form = {
        "name": snapshot.name,
        "description": snapshot.description or "",
        "category": snapshot.category or "",
        "owner": snapshot.owner or "",
        "flows": ", ".join(snapshot.flows or []),
        "extras": [
            {"key": k, "value": v, "errors": []} for k, v in (snapshot.extras or {}).items()
        ],
    }
    for direction in DIRECTIONS:
        form[direction] = [
            {
                "name": t["name"],
                "category": t.get("category") or "",
                "owner": t.get("owner") or "",
                "was": t["name"],
                "errors": {},
            }
            for t in getattr(snapshot, direction) or []
        ]
    return form


def form_from_post(post) -> dict:
    """Everything the member typed, as typed; rows left wholly empty are dropped (so a
    row's index here is its index in the request body)."""
    form = {field: post.get(field, "") for field in SIMPLE_FIELDS}
    # a textarea sends a line break as CR LF: two characters against the 200 its maxlength
    # counted as one each
    form["description"] = form["description"].replace("\r\n", "\n")
    for direction in DIRECTIONS:
        columns = [post.getlist(f"{direction}-{field}") for field in (*TOPIC_FIELDS, "was")]
        rows = []
        for values in zip_longest(*columns, fillvalue=""):
            row = dict(zip((*TOPIC_FIELDS, "was"), values, strict=True))
            # a row emptied is a topic removed (where there is no script to remove it)
            if any(value.strip() for value in values[: len(TOPIC_FIELDS)]):
                rows.append({**row, "errors": {}})
        form[direction] = rows
    extras = []
    for key, value in zip_longest(
        post.getlist("extras-key"), post.getlist("extras-value"), fillvalue=""
    ):
        if key.strip() or value.strip():
            extras.append({"key": key, "value": value, "errors": []})
    form["extras"] = extras
    return form


def _emptied(typed, current, empties):
    """A cleared field is null, unless it already was an equivalent empty (no fake change)."""
    return current if current in empties else typed


def request_body(form: dict, current=None) -> tuple[dict, dict]:
    """The JSON body the API would receive, and errors only the form can make. `current`: the
    service being edited, whose every field is sent so that clearing one works."""
    form_errors: dict = {}
    body: dict = {"name": form["name"]}
    for field in ("description", "category", "owner"):
        typed = form[field]
        if field != "description":
            typed = typed.strip()
        if typed.strip():
            body[field] = typed
        elif current is not None:
            body[field] = _emptied(None, getattr(current, field), ("",))
    flows = [flow.strip() for flow in form["flows"].split(",") if flow.strip()]
    if flows:
        body["flows"] = flows
    elif current is not None:
        body["flows"] = _emptied(None, current.flows, ([],))
    for direction in DIRECTIONS:
        kept = {t["name"]: t for t in (getattr(current, direction) or [])} if current else {}
        topics = []
        for row in form[direction]:
            topic = {"name": row["name"].strip()}
            for field in ("category", "owner"):
                if row[field].strip():
                    topic[field] = row[field].strip()
            # what the form does not show (flows, extras) stays as it was, with the row the
            # stored topic began as (renamed, it kept them under its old name and lost them)
            before = kept.get(row.get("was") or topic["name"])
            if before is not None:
                if before.get("flows") is not None:
                    topic["flows"] = before["flows"]
                if before.get("extras"):
                    topic["extras"] = before["extras"]
            topics.append(topic)
        body[direction] = topics
    extras: dict = {}
    # a stored key is kept as stored (spaces around it included) when its row still holds it
    stored_keys = {key.strip(): key for key in (current.extras or {})} if current else {}
    for row in form["extras"]:
        key = row["key"].strip()
        key = stored_keys.get(key, key)
        if not key:
            row["errors"].append("A key is required.")
        elif key in extras:
            row["errors"].append("This key is listed twice.")
        else:
            extras[key] = row["value"]
        if row["errors"]:
            form_errors["extras"] = True
    if extras:
        body["extras"] = extras
    elif current is not None:
        body["extras"] = _emptied(None, current.extras, ({},))
    return body, form_errors


_PLAIN = (
    (
        re.compile(r"^Ensure this field has no more than (\d+) characters\.$"),
        "At most {} characters.",
    ),
    (re.compile(r"^Ensure this field has at least (\d+) characters\.$"), "At least {} characters."),
    (re.compile(r"^Ensure this field has no more than (\d+) elements\.$"), "At most {} of them."),
    (re.compile(r"^This field may not be blank\.$"), "Required: it cannot be empty."),
    (re.compile(r"^This field is required\.$"), "Required."),
)


def _plain(message: str) -> str:
    """The API's validation messages (DRF's, for scripts) as a form says them."""
    for pattern, plain in _PLAIN:
        match = pattern.match(message)
        if match:
            return plain.format(*match.groups())
    return message


def _place_errors(form: dict, errors: dict, violations: list[dict]) -> None:
    """Put each violation (a JSON path like `produces[1].name`) beside its field."""
    typed = form["flows"].split(",")
    flows = [flow.strip() for flow in typed if flow.strip()]
    # where each flow is in what was typed: "a, , b" sends ["a", "b"], and b is the third
    places = [place for place, flow in enumerate(typed) if flow.strip()]
    for violation in violations:
        path, message = violation["field"], _plain(violation["message"])
        topic = _TOPIC_PATH.match(path)
        flow = _FLOW_PATH.match(path)
        if topic:
            direction, index, field = topic.group(1), int(topic.group(2)), topic.group(3)
            if index < len(form[direction]):
                key = field if field in TOPIC_FIELDS else "other"
                if key == "name" and not form[direction][index]["name"].strip():
                    message = "A topic needs a name (or empty its row to leave it out)."
                if key == "other" and field:
                    message = f"{field}: {message}"
                form[direction][index]["errors"].setdefault(key, []).append(message)
                continue
            errors.setdefault(direction, []).append(message)
        elif flow:
            index = int(flow.group(1))
            name = flows[index] if index < len(flows) else ""
            place = places[index] + 1 if index < len(places) else index + 1
            errors.setdefault("flows", []).append(f"Flow {place} (“{_clip(name)}”): {message}")
        elif path.startswith("extras."):
            key = path[len("extras.") :]
            row = next((r for r in form["extras"] if r["key"].strip() == key), None)
            if row is not None:
                row["errors"].append(message)
            else:
                errors.setdefault("extras", []).append(f"“{key}”: {message}")
        elif path in (*SIMPLE_FIELDS, *DIRECTIONS, "extras"):
            errors.setdefault(path, []).append(message)
        else:
            errors.setdefault("form", []).append(message)


def _clip(text: str, length: int = 40) -> str:
    """A value quoted in a message, cut so that a 300-character mistake does not fill it."""
    return text if len(text) <= length else text[: length - 1] + "…"


def validated(serializer_class, body: dict, form: dict, errors: dict) -> dict | None:
    serializer = serializer_class(data=body)
    try:
        serializer.is_valid(raise_exception=True)
    except serializers.ValidationError as exc:
        _place_errors(form, errors, _violations(exc.detail))
        return None
    return serializer.validated_data


def row_errors(form: dict) -> bool:
    return any(row["errors"] for direction in DIRECTIONS for row in form[direction]) or any(
        row["errors"] for row in form["extras"]
    )


def clash_message(name: str, clash: str | None) -> str:
    if clash is None or clash == name:
        return "Another service of this project has this name."
    return (
        f"Too close to the service “{clash}”: both names make the same address (slug), "
        "so they cannot both exist. Choose a more different name."
    )


def opened_as(post) -> tuple[str, int] | None:
    """The (service id, version) the edit form was opened with; None when it does not say
    (a form older than the check, or a script posting its own fields)."""
    version = post.get("version", "")
    if not (version.isascii() and version.isdigit() and len(version) <= 9):
        return None
    return post.get("service", ""), int(version)


# --- A form saved over a colleague's change ---------------------------------------------------


# what the conflict message calls each part of the form (its labels)
FIELD_NAMES = {
    "name": "name",
    "description": "description",
    "category": "category",
    "owner": "owner",
    "flows": "flows",
    "consumes": "topics it consumes",
    "produces": "topics it produces",
    "extras": "extras",
}


def comparable(form: dict, field: str):
    """A part of the form as the service would store it, to tell a change from none: text
    trimmed (CR LF as LF), flows as a list, rows without their errors."""
    value = form[field]
    if field == "flows":
        return [flow.strip() for flow in value.split(",") if flow.strip()]
    if isinstance(value, str):
        return value.replace("\r\n", "\n").strip()
    return [tuple(str(v).strip() for k, v in row.items() if k != "errors") for row in value]


def holds(form: dict, snapshot) -> bool:
    """Whether the form holds the service as `snapshot` stored it, part by part."""
    was = form_from_snapshot(snapshot)
    return all(comparable(form, field) == comparable(was, field) for field in FIELD_NAMES)


def without_parts_as_shown(body: dict, form: dict, snapshot) -> None:
    """Drop from `body` each part the member left as the form showed `snapshot`: read back
    from the form it could differ from what is stored, and so it keeps what is stored."""
    shown = form_from_snapshot(snapshot)
    for field in FIELD_NAMES:
        if comparable(form, field) == comparable(shown, field):
            body.pop(field, None)


def _listed(names: list[str]) -> str:
    return _listed_words([FIELD_NAMES[name] for name in names])


def _listed_words(words: list[str]) -> str:
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " and " + words[-1]


def merged_form(opened, current, typed: dict) -> tuple[dict, str, dict]:
    """Three-way: each part left as `opened` takes `current`'s value, each one changed keeps
    what was `typed`; with the message's words, and theirs of each part both changed."""
    was, now = form_from_snapshot(opened), form_from_snapshot(current)
    form, theirs, both = dict(typed), [], []
    for field in FIELD_NAMES:
        mine, before, after = (comparable(f, field) for f in (typed, was, now))
        if after == before:
            continue
        if mine == before:
            form[field] = now[field]
            theirs.append(field)
        elif mine != after:
            both.append(field)
    said = ""
    if theirs:
        said += f" The form below holds their {_listed(theirs)}."
    meanwhile = {field: _theirs(field, now[field]) for field in both}
    if both:
        named = [f"{FIELD_NAMES[field]} (theirs: {meanwhile[field]})" for field in both]
        said += (
            f" You both changed the {_listed_words(named)}: the form keeps what you typed there."
        )
    return form, said, meanwhile


THEIRS_SHOWN = 5  # topics or extras named of a colleague's list; the rest counted


def _theirs(field: str, value) -> str:
    """A colleague's value of a part of the form, as the conflict message quotes it."""
    if isinstance(value, str):
        text = value.replace("\r\n", "\n").strip()
        return f"“{text}”" if text else "none"
    if field == "extras":
        items = [f"{row['key']}={row['value']}" for row in value]
    else:
        items = [row["name"] for row in value]
    if not items:
        return "none"
    more = len(items) - THEIRS_SHOWN
    return ", ".join(items[:THEIRS_SHOWN]) + (f" and {more} more" if more > 0 else "")
