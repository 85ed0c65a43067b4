"""Serializer bases of the API: request objects reject unknown properties at every depth
(spec: "Request objects reject unknown properties"), a violation per property."""

import re
import unicodedata

from rest_framework import serializers

# Fields the API sends and no request sets: a script that PUTs back the body it read
# learns what to drop, not only that a property is unknown.
RESPONSE_ONLY = frozenset(
    {
        "id", "slug", "serviceId", "snapshotId", "projectId", "version", "deleted",
        "createdBy", "createdByType", "createdAt", "updatedBy", "updatedByType",
        "updatedAt", "validFrom", "validUntil", "serviceCount", "pinned",
    }
)  # fmt: skip


class StrictSerializer(serializers.Serializer):
    def to_internal_value(self, data):
        errors = {}
        if isinstance(data, dict):
            for key in data:
                if key not in self.fields or self.fields[key].read_only:
                    errors[str(key)] = [
                        "Read-only: the API sends this field, a request does not set it."
                        if key in RESPONSE_ONLY
                        else "Unknown property."
                    ]
        try:
            value = super().to_internal_value(data)
        except serializers.ValidationError as exc:
            if isinstance(exc.detail, dict):
                exc.detail.update(errors)
            raise
        if errors:
            raise serializers.ValidationError(errors)
        return value


# C0 controls other than tab, newline and carriage return, DEL, lone surrogates and the two
# non-characters: none is valid in XML or encodable in UTF-8, so none may be stored.
FORBIDDEN_TEXT = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f\ud800-\udfff\ufffe\uffff]")


def check_text(value: str) -> None:
    if FORBIDDEN_TEXT.search(value):
        raise serializers.ValidationError(
            "Text may not contain control characters or invalid Unicode (a lone surrogate)."
        )


# What a reader cannot see: separators and spaces (Z*), controls (Cc) and format characters
# (Cf: zero-width space and joiners, bidi marks, the BOM).
INVISIBLE_CATEGORIES = frozenset({"Zs", "Zl", "Zp", "Cc", "Cf"})


# What a name (one line, drawn in a box, a table cell, a menu) may not hold: line breaks (a
# browser's text box drops them, so the editor's next save renamed the service; a tooltip
# grew a fake "owner:" line) and the bidi embeddings, overrides and isolates, which turn
# the text around them ("evil\u202etxt.exe" reads "evilexe.txt"; in the Show menu the owner's
# override reversed the words after it). The marks (U+200E, U+200F) stay: right-to-left
# names need them.
NAME_BREAKS = re.compile("[\n\r\u0085\u2028\u2029\u202a-\u202e\u2066-\u2069]")
NAME_BREAKS_MESSAGE = (
    "A name is one line: no line breaks, and no bidi embedding, override or isolate "
    "characters (U+202A-U+202E, U+2066-U+2069)."
)


def is_visible(value: str) -> bool:
    """Whether the text shows anything: a name of zero-width spaces would be a link or a box
    nobody can see or click."""
    return any(unicodedata.category(char) not in INVISIBLE_CATEGORIES for char in value)


def text_problem(value: str, *, name: bool = True) -> str | None:
    """What is wrong with a text typed outside the API (admin, settings, sign-up) by the API's
    rules (StrictCharField), or None when it is fine."""
    if FORBIDDEN_TEXT.search(value):
        return "May not contain control characters or invalid Unicode (a lone surrogate)."
    if name and NAME_BREAKS.search(value):
        return NAME_BREAKS_MESSAGE
    if name and value and not is_visible(value):
        return "Must contain a visible character, not only spaces or invisible ones."
    return None


class StrictCharField(serializers.CharField):
    """A JSON string only (DRF would take 12 as "12"), without control characters or lone
    surrogates; `visible=True` (names): on one line, with a character a reader can see."""

    default_error_messages = {
        "invisible": "Must contain a visible character, not only spaces or invisible ones.",
        "breaks": NAME_BREAKS_MESSAGE,
    }

    def __init__(self, *, visible: bool = False, **kwargs):
        self.visible = visible
        super().__init__(**kwargs)

    def to_internal_value(self, data):
        if not isinstance(data, str):
            self.fail("invalid")
        check_text(data)
        value = super().to_internal_value(data)
        # a name, once trimmed ("Checkout\n" read from a file is Checkout, as before)
        if self.visible and NAME_BREAKS.search(value):
            self.fail("breaks")
        if self.visible and value and not is_visible(value):
            self.fail("invisible")
        return value


class StrictBooleanField(serializers.BooleanField):
    """JSON true or false only (DRF would accept "yes", "1", 1)."""

    default_error_messages = {"invalid": "Must be true or false."}

    def to_internal_value(self, data):
        if not isinstance(data, bool):
            self.fail("invalid")
        return data
