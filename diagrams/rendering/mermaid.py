"""A project graph as a Mermaid 11 flowchart (interface §6, 8, 14). User text only ever appears
inside a quoted label, every character outside a safe set written as an entity code."""

import re
import string
import unicodedata

import networkx as nx

from diagrams.entities import NEUTRAL, PALETTE

# Safe as-is inside `["..."]` in Mermaid 11. Left out on purpose, among others: `"` (ends the
# label), `#` and `;` (entity codes), `:` (Mermaid rewrites `style...:...#...;` in the raw
# text before parsing, which mangles an entity code after it), `` ` `` (markdown string),
# `<` `>` `&` (HTML), `%` (comments, directives) and every bracket but `()`.
_LABEL_SAFE = frozenset(string.ascii_letters + string.digits + " .,-_/()")
# Entity ids are `<type>--<slug>` with slugs of [a-z0-9_-] and no `--` in them (interface §6).
_MERMAID_ID_RE = re.compile(r"^[a-z]+__[a-z0-9_]+(?:-[a-z0-9_]+)*$")

_NODE_STROKE = "#4b5563"
_NODE_TEXT = "#111827"


def mermaid_id(entity_id: str) -> str:
    """The Mermaid node id of an entity id: `__` in place of `--` (interface §6)."""
    mid = entity_id.replace("--", "__")
    if not _MERMAID_ID_RE.match(mid):
        raise ValueError(f"not an entity id Mermaid can take: {entity_id!r}")
    return mid


# Letters, combining marks and digits of every script mean nothing to Mermaid's grammar or to
# HTML, so "Zürich 日本" stays readable in the text people paste into their docs.
_WORD_CATEGORIES = frozenset({"Lu", "Ll", "Lt", "Lm", "Lo", "Mn", "Mc", "Nd", "Nl", "No"})


def mermaid_label(text: str) -> str:
    """Text for inside `["..."]`: safe characters as they are, whitespace and control
    characters as a space, anything else as `#<codepoint>;`."""
    out = []
    for char in text:
        if char in _LABEL_SAFE or (
            char > "\x7f" and unicodedata.category(char) in _WORD_CATEGORIES
        ):
            out.append(char)
        elif char.isspace() or unicodedata.category(char) == "Cc":
            out.append(" ")
        else:
            out.append(f"#{ord(char)};")
    # Mermaid rejects an empty quoted label.
    return "".join(out) or " "


_CLASS_COLORS = {f"cat{i}": color for i, color in enumerate(PALETTE)} | {"nocat": NEUTRAL}
_CLASS_ORDER = list(_CLASS_COLORS)


def _color_class(color: str) -> str:
    """Class names come from the palette's index, never from the graph's own strings."""
    if color in PALETTE:
        return f"cat{PALETTE.index(color)}"
    return "nocat"


def mermaid_flowchart(graph: nx.DiGraph) -> str:
    """The graph as Mermaid flowchart text; the same graph always gives the same bytes."""
    ids = {node: mermaid_id(node) for node in graph.nodes}
    lines = ["flowchart LR"]
    members: dict[str, list[str]] = {}
    topics = []
    for node, data in sorted(graph.nodes(data=True), key=lambda item: ids[item[0]]):
        mid = ids[node]
        label = mermaid_label(str(data.get("label", "")))
        if data.get("type") == "messaging":
            lines.append(f'    {mid}(["{label}"])')
            topics.append(mid)
        else:
            lines.append(f'    {mid}["{label}"]')
        members.setdefault(_color_class(data.get("color", NEUTRAL)), []).append(mid)
    for source, target in sorted((ids[s], ids[t]) for s, t in graph.edges):
        lines.append(f"    {source} --> {target}")
    used = [name for name in _CLASS_ORDER if name in members]
    for name in used:
        lines.append(
            f"    classDef {name} fill:{_CLASS_COLORS[name]},stroke:{_NODE_STROKE},"
            f"color:{_NODE_TEXT}"
        )
    if topics:
        lines.append("    classDef topic stroke-width:2px,stroke-dasharray:5 3")
    for name in used:
        lines.append(f"    class {','.join(members[name])} {name}")
    if topics:
        lines.append(f"    class {','.join(topics)} topic")
    return "\n".join(lines) + "\n"
