"""The Usage window's time axis: one bar per period with no period left out, and labels that never overlap.

The bars of the cost chart are days, weeks (their Mondays) or months. A day without usage used to be no
bar at all, so two days a month apart stood side by side; here every period from the first to the last is
a slot (:func:`continuous_keys`), which makes the axis a real time axis. Its labels are chosen for the
width the chart has (:func:`axis_labels`): the finest step (a day, a week, a month, a quarter, a year)
whose labels, each centred on its bar, leave room between them.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import date, timedelta
from itertools import pairwise

__all__ = ["LABEL_GAP", "axis_labels", "continuous_keys", "period_start"]

LABEL_GAP = 12  # px between two labels, at least
_MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")


def period_start(key: str) -> date | None:
    """The first day of a period's key (``2026-03-02`` for a day or a week, ``2026-03`` for a month)."""
    try:
        return date.fromisoformat(key if len(key) > 7 else f"{key}-01")
    except ValueError:
        return None


def _next(day: date, period: str) -> date:
    if period == "daily":
        return day + timedelta(days=1)
    if period == "weekly":
        return day + timedelta(days=7)
    return date(day.year + day.month // 12, day.month % 12 + 1, 1)


def _key(day: date, period: str) -> str:
    return day.isoformat()[:7] if period == "monthly" else day.isoformat()


def continuous_keys(keys: Sequence[str], period: str, limit: int = 5000) -> list[str]:
    """Every period from the first of ``keys`` to the last (``keys`` sorted, oldest first).

    Keys that are not dates are given back as they are (nothing is filled in), as are ranges of more than
    ``limit`` periods (a damaged timestamp years away would make a million empty bars).
    """
    if len(keys) < 2:
        return list(keys)
    first, last = period_start(keys[0]), period_start(keys[-1])
    if first is None or last is None or last < first:
        return list(keys)
    filled: list[str] = []
    day = first
    while day <= last:
        filled.append(_key(day, period))
        if len(filled) > limit:
            return list(keys)
        day = _next(day, period)
    known = set(filled)
    if any(key not in known for key in keys):  # a key that is not a period start: keep them as they are
        return list(keys)
    return filled


def _month(day: date, with_year: bool) -> str:
    return f"{_MONTHS[day.month - 1]} {day.year}" if with_year else _MONTHS[day.month - 1]


def _steps(period: str) -> list[tuple[Callable[[date, int], bool], Callable[[date, bool], str]]]:
    """(does slot i start a label?, its text) from the finest step to the coarsest."""

    def day_text(day: date, first: bool) -> str:
        with_year = first or (day.month == 1 and day.day <= (7 if period == "weekly" else 1))
        return f"{_MONTHS[day.month - 1]} {day.day}" + (f", {day.year}" if with_year else "")

    def month_text(day: date, first: bool) -> str:
        return _month(day, first or day.month == 1)

    def every(n: int) -> Callable[[date, int], bool]:
        return lambda _day, i: i % n == 0

    def month_starts(months: int) -> Callable[[date, int], bool]:
        if period == "daily":
            return lambda day, _i: day.day == 1 and (day.month - 1) % months == 0
        if period == "weekly":  # the week holding the 1st
            return lambda day, _i: day.day <= 7 and (day.month - 1) % months == 0
        return lambda day, _i: (day.month - 1) % months == 0

    def year_text(day: date, _first: bool) -> str:
        return str(day.year)

    steps: list[tuple[Callable[[date, int], bool], Callable[[date, bool], str]]] = []
    if period == "daily":
        steps += [(every(1), day_text), (every(2), day_text), (lambda d, _i: d.weekday() == 0, day_text)]
        steps += [(lambda d, _i: d.weekday() == 0 and (d.toordinal() // 7) % 2 == 0, day_text)]
    elif period == "weekly":
        steps += [(every(1), day_text), (every(2), day_text), (every(4), day_text)]
    steps += [(month_starts(n), month_text) for n in (1, 2, 3, 6)]
    steps.append((month_starts(12), year_text))
    return steps


def axis_labels(
    keys: Sequence[str],
    period: str,
    slot_px: float,
    text_px: Callable[[str], float],
    gap: float = LABEL_GAP,
) -> list[tuple[str, int]]:
    """The labels of a time axis of ``keys`` (one slot each, ``slot_px`` wide): ``(text, slot)`` pairs.

    The finest step whose labels, centred on their slots, are ``gap`` px apart at least; texts measured by
    ``text_px``. A step that would label fewer than two slots is passed over while a finer one fits (a
    week of days is labelled by day, not by a lone month). With keys that are not dates, every key is
    tried, then every second, fourth...
    """
    if not keys:
        return []
    days = [period_start(key) for key in keys]
    if any(day is None for day in days):
        return _spaced([(key, i) for i, key in enumerate(keys)], slot_px, text_px, gap)
    candidates: list[list[tuple[str, int]]] = []
    for starts, text in _steps(period):
        marks: list[tuple[str, int]] = []
        for i, day in enumerate(days):
            assert day is not None
            if starts(day, i):
                marks.append((text(day, not marks), i))
        if marks:
            candidates.append(marks)
    fitting = [marks for marks in candidates if _fits(marks, slot_px, text_px, gap)]
    several = [marks for marks in fitting if len(marks) >= 2]
    if several:
        return several[0]
    if fitting:
        return fitting[0]
    return candidates[-1][:1] if candidates else []


def _fits(marks: list[tuple[str, int]], slot_px: float, text_px: Callable[[str], float], gap: float) -> bool:
    for (a, i), (b, j) in pairwise(marks):
        if (j - i) * slot_px < (text_px(a) + text_px(b)) / 2 + gap:
            return False
    return True


def _spaced(
    marks: list[tuple[str, int]], slot_px: float, text_px: Callable[[str], float], gap: float
) -> list[tuple[str, int]]:
    step = 1
    while step < len(marks) and not _fits(marks[::step], slot_px, text_px, gap):
        step *= 2
    return marks[::step]
