"""Numbers and names as people read them: token counts, costs, durations, one-line titles.

One home for these, so the message view, the tree, the exports and the diff say the same thing about the
same number (the tree once showed 3,600 tokens as "4k" while the message view said "3.6k").
"""

from __future__ import annotations

import re

__all__ = [
    "dollars",
    "duration",
    "one_line",
    "short_cost",
    "short_duration",
    "short_tokens",
    "title",
    "total_cost",
    "whole_tokens",
]


def short_tokens(value: float | None) -> str:
    """A token count in a few characters, as the reference's ``formatTokens`` shows it.

    Args:
        value: the count; None when it is unknown.

    Returns:
        ``"950"``, ``"3.6k"`` (one decimal below 10,000), ``"148k"``, ``"1.2M"``; ``"?"`` for None.
    """
    if value is None:
        return "?"
    if value < 1000:
        # An int needs no float formatting (every assistant heading says four of these).
        return str(value) if type(value) is int and value >= 0 else f"{value:g}"
    if value < 10_000:
        return f"{value / 1000:.1f}k"
    if value < 1_000_000:
        return f"{round(value / 1000)}k"
    return f"{value / 1_000_000:.1f}M"


def whole_tokens(value: float) -> str:
    """A token count in full with thousands separators: ``"148,213"``.

    An int is written exactly (however large); a float is rounded to a whole number.
    """
    if isinstance(value, int):
        return f"{value:,}"
    return f"{value:,.0f}"


def short_cost(value: float) -> str:
    """A cost in dollars for one message: ``"$0.0176"`` below a dollar, ``"$1.23"`` from a dollar up."""
    return f"${value:.2f}" if value >= 1 else f"${value:.4f}"


def dollars(value: float) -> str:
    """A cost in dollars and cents with thousands separators, as lists show it: ``"$1,234.56"``."""
    return f"${value:,.2f}"


def total_cost(value: float) -> str:
    """A cost in dollars to four decimals, as totals are shown: ``"$0.0176"``, ``"$12.3400"``."""
    return f"${value:.4f}"


def duration(ms: float | None) -> str:
    """A duration in whole seconds, minutes or hours.

    Args:
        ms: milliseconds; None when unknown.

    Returns:
        ``"42 s"``, ``"3 min 07 s"``, ``"2 h 05 min"``; ``"-"`` for None.
    """
    if ms is None:
        return "-"
    seconds = int(ms // 1000)
    if seconds < 60:
        return f"{seconds} s"
    minutes, seconds = divmod(seconds, 60)
    if minutes < 60:
        return f"{minutes} min {seconds:02d} s"
    hours, minutes = divmod(minutes, 60)
    return f"{hours} h {minutes:02d} min"


# Every character of the Unicode categories Cc (controls), Zl and Zp (line and paragraph separators).
_NOT_ONE_LINE = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029]")


def one_line(text: str) -> str:
    """``text`` on one line: control characters (newlines, tabs, ...) and line separators become spaces.

    One regular expression, not a test per character: the session list takes the title of 20,000
    sessions at start (2.5 s a character at a time, on the GUI thread).
    """
    return _NOT_ONE_LINE.sub(" ", text).strip()


def title(name: str | None, first_message: str, width: int = 80) -> str:
    """How a session is named to a reader: its name, else its first message, on one line, cut to ``width``.

    Returns ``""`` when the session has neither (callers fall back to the file name).
    """
    text = one_line(name or first_message)
    return text if len(text) <= width else text[: width - 1] + "…"


def short_duration(ms: float | None) -> str:
    """How long one model call or tool run took, to the precision that matters at its size.

    Args:
        ms: milliseconds (``durationMs`` of a message); None when unknown.

    Returns:
        ``"850 ms"``, ``"4.2 s"`` (one decimal below a minute), then :func:`duration`'s
        ``"3 min 07 s"``; ``"-"`` for None.
    """
    if ms is None:
        return "-"
    if ms < 1000:
        return f"{max(0, round(ms))} ms"
    if ms < 60_000:
        return f"{ms // 100 / 10:.1f} s"  # cut, not rounded: 59,960 ms is not "60.0 s"
    return duration(ms)
