"""Every date-time a response carries (interface §7): UTC, six decimals, `Z`, a four-digit
year, whatever zone the value comes in."""

from datetime import UTC, datetime, timedelta, timezone
from zoneinfo import ZoneInfo

import pytest

from archsvc.api.params import iso


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (datetime(2026, 1, 1, 12, 0, 0, 5, tzinfo=UTC), "2026-01-01T12:00:00.000005Z"),
        (datetime(999, 5, 1, tzinfo=UTC), "0999-05-01T00:00:00.000000Z"),
        (datetime(9999, 12, 31, 23, 59, 59, 999999, tzinfo=UTC), "9999-12-31T23:59:59.999999Z"),
        # other zones and other objects for UTC are turned into UTC first
        (
            datetime(2026, 1, 1, 12, tzinfo=timezone(timedelta(hours=-14))),
            "2026-01-02T02:00:00.000000Z",
        ),
        (datetime(2026, 6, 1, tzinfo=ZoneInfo("Europe/Paris")), "2026-05-31T22:00:00.000000Z"),
        (datetime(2026, 6, 1, tzinfo=ZoneInfo("UTC")), "2026-06-01T00:00:00.000000Z"),
        (None, None),
    ],
)
def test_every_timestamp_is_utc_with_microseconds_and_z(value, text):
    assert iso(value) == text
