"""Timestamps the way the reference (JavaScript ``Date``) reads and writes them."""

from __future__ import annotations

import math
from datetime import UTC, datetime, timedelta

_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)

JS_TIME_LIMIT = 8.64e15
"""The largest time value JavaScript's ``Date`` holds, in ms either side of the epoch: beyond it a
``Date`` is invalid (``getTime()`` is NaN), whatever number was written."""

CALENDAR_SECONDS = (-62135510400.0, 253402214399.0)
"""Epoch seconds a calendar date can be given in any time zone: 0001-01-02 to 9999-12-30 UTC.

Python's dates run from year 1 to 9999, so a time JavaScript accepts (up to 275,760 years either way)
may have no local date here; such a time is left out of anything grouped by date (:func:`on_calendar`)."""


def on_calendar(seconds: float) -> bool:
    """True when epoch ``seconds`` has a local date and hour in every time zone (see CALENDAR_SECONDS)."""
    return CALENDAR_SECONDS[0] <= seconds <= CALENDAR_SECONDS[1]


def js_time(value: object) -> int | float | None:
    """A number written as a time (ms since the epoch), or None where a JavaScript ``Date`` of it is invalid.

    None for anything but a number (booleans included), for NaN and the infinities, and for numbers
    beyond :data:`JS_TIME_LIMIT` (a hostile ``1.5e308`` or ``2**64`` is no time at all).
    """
    if type(value) is int or type(value) is float:
        return value if -JS_TIME_LIMIT <= value <= JS_TIME_LIMIT else None  # NaN compares False
    return None


_MS = timedelta(milliseconds=1)
_fromisoformat = datetime.fromisoformat


def js_date_ms(value: object) -> int | float | None:
    """Return what ``new Date(value).getTime()`` gives, or None where JavaScript gives NaN.

    Strings are ISO 8601 (``Z`` or an offset; a missing offset is read as UTC). Numbers are
    already milliseconds (within :data:`JS_TIME_LIMIT`). Anything else is NaN, which JSON serialises
    as null.
    """
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, int | float):
        return js_time(value) if math.isfinite(value) else None
    if not isinstance(value, str):
        return None
    text = value.strip()
    if not text:
        return None
    try:
        parsed = datetime.fromisoformat(text)
    except ValueError:
        return None
    if parsed.tzinfo is None:
        parsed = parsed.replace(tzinfo=UTC)
    return (parsed - _EPOCH) // _MS


def is_valid_timestamp(value: object) -> bool:
    """True when :func:`js_date_ms` gives a number; fast for the ISO strings the reference writes."""
    if type(value) is str:
        try:
            _fromisoformat(value)
            return True
        except ValueError:
            pass
    return js_date_ms(value) is not None


def iso_from_ms(ms: float | None) -> str | None:
    """Format milliseconds since the epoch like JavaScript's ``toISOString()`` (None stays None)."""
    if ms is None:
        return None
    try:
        moment = _EPOCH + timedelta(milliseconds=ms)
    except OverflowError:
        return None
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"


def now_iso() -> str:
    """The current time as the reference writes entry timestamps (``2026-03-02T09:14:07.122Z``)."""
    return iso_from_ms((datetime.now(UTC) - _EPOCH) // _MS) or ""
