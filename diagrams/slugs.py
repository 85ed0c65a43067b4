"""Identifiers of interface §6: project ids, service slugs, entity slugs."""

import hashlib
import re
import secrets
import unicodedata

PROJECT_ID_RE = re.compile(r"^[a-z0-9][a-z0-9-]*[a-z0-9]$")
_NON_ALNUM = re.compile(r"[^a-z0-9]+")
_SUFFIX_CHARS = "abcdefghijklmnopqrstuvwxyz0123456789"
_NOT_SLUG = re.compile(r"[^\w\s-]")
_SLUG_GAPS = re.compile(r"[-\s]+")


def sha1_hex(name: str) -> str:
    """Identifiers only, not security: interface §6 names SHA-1."""
    return hashlib.sha1(name.encode(), usedforsecurity=False).hexdigest()


def _ascii_slug(name: str) -> str:
    text = unicodedata.normalize("NFKD", name).encode("ascii", "ignore").decode("ascii")
    return _NON_ALNUM.sub("-", text.lower()).strip("-")


def project_id_new(name: str) -> str:
    """`<slug of the name>-<8 random [a-z0-9]>`, at most 60 characters in all."""
    base = _ascii_slug(name)[:51].strip("-") or "project"
    return f"{base}-{''.join(secrets.choice(_SUFFIX_CHARS) for _ in range(8))}"


def is_project_id(value: str) -> bool:
    return 8 <= len(value) <= 60 and bool(PROJECT_ID_RE.match(value))


SERVICE_SLUG_MAX = 100


def slugify(name: str) -> str:
    """Django's `slugify`, written out here: a service's slug is part of the interface and must
    not move with a library upgrade (and the renderers stay free of Django)."""
    text = unicodedata.normalize("NFKD", name).encode("ascii", "ignore").decode("ascii")
    return _SLUG_GAPS.sub("-", _NOT_SLUG.sub("", text.lower())).strip("-_")


def service_slug(name: str) -> str:
    """Django's slugify of the name, or `service-<sha1[:8]>` when empty; past SERVICE_SLUG_MAX
    (Unicode folding can lengthen a name) it is cut and `-<sha1[:8]>` keeps it unique."""
    slug = slugify(name)
    if not slug:
        return f"service-{sha1_hex(name)[:8]}"
    if len(slug) > SERVICE_SLUG_MAX:
        slug = f"{slug[: SERVICE_SLUG_MAX - 9].rstrip('-_')}-{sha1_hex(name)[:8]}"
    return slug


def entity_slug(name: str) -> str:
    """Topics, categories, owners, flows: lower-case, runs outside [a-z0-9] become one
    hyphen, trimmed; the first 8 hex of the name's SHA-1 when nothing is left."""
    return _NON_ALNUM.sub("-", name.lower()).strip("-") or sha1_hex(name)[:8]
