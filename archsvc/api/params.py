"""Query parameters: parsed strictly, and a bad one is 400 `bad_request` naming it."""

import re
from datetime import UTC, datetime

from django.utils.dateparse import parse_datetime

from archsvc.exceptions import BadRequest


def query_params(request):
    """DRF's query_params, or a plain Django request's GET (the public pages use these too)."""
    return getattr(request, "query_params", None) or request.GET


# ASCII digits, at most 9: no page or size needs more, and an OFFSET past 2**63 was a 500
_INTEGER = re.compile(r"-?[0-9]{1,9}")


PAST_ANY_PAGE = 10**6


def page_number(raw: str | None, *, default: int, minimum: int = 0) -> int:
    """A page number on the HTML pages, forgivingly: ASCII digits only, more than 6 of them a page
    past any end (`PAST_ANY_PAGE`, keeping OFFSET in range); else, or below `minimum`, `default`."""
    raw = (raw or "").strip()
    if not (raw.isascii() and raw.isdigit()):
        return default
    digits = raw.lstrip("0")
    value = PAST_ANY_PAGE if len(digits) > 6 else int(digits or "0")
    return value if value >= minimum else default


def query_int(request, name: str, *, default: int, minimum: int, maximum: int | None = None) -> int:
    raw = query_params(request).get(name)
    if raw is None:
        return default
    if not _INTEGER.fullmatch(raw.strip()):  # not int(): it takes "٣", "1_0" and 4,000 digits
        raise BadRequest(f"Query parameter '{name}' must be an integer.")
    value = int(raw.strip())
    if value < minimum or (maximum is not None and value > maximum):
        bounds = f"between {minimum} and {maximum}" if maximum is not None else f">= {minimum}"
        raise BadRequest(f"Query parameter '{name}' must be {bounds}.")
    return value


_DECIMAL = re.compile(r"[0-9]{1,6}(\.[0-9]{0,9})?|\.[0-9]{1,9}", re.ASCII)


def query_number(request, name: str, *, minimum: float, maximum: float) -> float | None:
    """A decimal number (ASCII digits and a point, no sign, exponent, `nan` or `inf`)
    between `minimum` and `maximum`, or None when absent."""
    raw = query_params(request).get(name)
    if raw is None:
        return None
    text = raw.strip()
    if not _DECIMAL.fullmatch(text) or not minimum <= float(text) <= maximum:
        raise BadRequest(
            f"Query parameter '{name}' must be a number from {minimum:g} to {maximum:g}."
        )
    return float(text)


def query_bool(request, name: str) -> bool | None:
    raw = query_params(request).get(name)
    if raw is None:
        return None
    value = raw.strip().lower()
    if value in ("true", "1"):
        return True
    if value in ("false", "0"):
        return False
    raise BadRequest(f"Query parameter '{name}' must be true or false.")


def query_text(request, name: str, *, max_length: int = 200) -> str | None:
    raw = query_params(request).get(name)
    if raw is None:
        return None
    if len(raw) > max_length or "\x00" in raw:
        raise BadRequest(f"Query parameter '{name}' is too long or not text.")
    return raw


# a time, then a space where an offset's "+" was (an address that did not escape it: "+"
# in a query string is a space), then that offset's digits
_PLUS_AS_SPACE = re.compile(r"(.*[0-9][Tt ][0-9:.,]*[0-9]) ([0-9]{2}(?::?[0-9]{2})?)", re.ASCII)
_LATEST = datetime.max.replace(tzinfo=UTC)
_EARLIEST = datetime.min.replace(tzinfo=UTC)


def query_at(request) -> datetime | None:
    """`at`: any ISO 8601 date-time (RFC 3339's lower-case too), no offset meaning UTC (interface
    §7); past either end of the calendar in UTC, the latest (current state) or earliest moment."""
    raw = query_params(request).get("at")
    if raw is None:
        return None
    text = raw.strip()
    if text.endswith("z"):
        text = text[:-1] + "Z"
    spaced = _PLUS_AS_SPACE.fullmatch(text)
    if spaced:
        text = f"{spaced[1]}+{spaced[2]}"
    try:
        value = parse_datetime(text)
    except ValueError:
        value = None
    if value is None:
        raise BadRequest("Query parameter 'at' must be an ISO 8601 date-time.")
    if value.tzinfo is None:
        value = value.replace(tzinfo=UTC)
    try:
        return value.astimezone(UTC)
    except (OverflowError, ValueError):  # its UTC is past either end of the calendar
        return _LATEST if value.year == datetime.max.year else _EARLIEST


def iso(value: datetime | None) -> str | None:
    """Every date-time in a response: UTC, microseconds, `Z` (interface §7); four-digit years
    (strftime's %Y writes the year 999 as `999`, which is not RFC 3339)."""
    if value is None:
        return None
    if value.tzinfo is not UTC:  # as both databases give them, a list's dozens at no cost
        value = value.astimezone(UTC)
    return value.isoformat(timespec="microseconds")[:-6] + "Z"
