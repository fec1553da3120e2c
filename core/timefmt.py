"""Timestamps the way the reference (JavaScript ``Date``) reads and writes them."""

from __future__ import annotations

import math
from datetime import UTC, datetime, timedelta

_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_MS = timedelta(milliseconds=1)
_fromisoformat = datetime.fromisoformat


def js_date_ms(value: object) -> int | float | None:
    """Return what ``new Date(value).getTime()`` gives, or None where JavaScript gives NaN.

    Strings are ISO 8601 (``Z`` or an offset; a missing offset is read as UTC). Numbers are
    already milliseconds. Anything else is NaN, which JSON serialises as null.
    """
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, int | float):
        return value if math.isfinite(value) else None
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
