"""core.formatting: token counts, costs and durations as text."""

from __future__ import annotations

import pytest

from core.formatting import duration, short_cost, short_tokens, total_cost, whole_tokens


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (None, "?"),
        (0, "0"),
        (950, "950"),
        (3600, "3.6k"),
        (9_999, "10.0k"),
        (148_213, "148k"),
        (1_234_567, "1.2M"),
    ],
)
def test_short_tokens(value: float | None, text: str) -> None:
    assert short_tokens(value) == text


def test_whole_tokens_costs_and_durations() -> None:
    assert whole_tokens(148_213) == "148,213"
    assert whole_tokens(10**20 + 1) == "100,000,000,000,000,000,001"  # an int exactly, not as a float
    assert whole_tokens(1234.6) == "1,235"
    assert short_cost(0.0176) == "$0.0176" and short_cost(12.345) == "$12.35"
    assert total_cost(12.34) == "$12.3400"
    assert duration(None) == "-"
    assert duration(42_999) == "42 s"
    assert duration(187_000) == "3 min 07 s"
    assert duration(7_500_000) == "2 h 05 min"


def test_one_line_turns_exactly_the_control_and_separator_characters_into_spaces() -> None:
    import sys
    import unicodedata

    from core.formatting import one_line

    every = "".join(chr(c) for c in range(sys.maxunicode + 1) if not 0xD800 <= c <= 0xDFFF)
    wanted = "".join(" " if unicodedata.category(ch) in ("Cc", "Zl", "Zp") else ch for ch in every).strip()
    assert one_line(every) == wanted
    assert one_line("\n a\tb\u2028c\u2029d\x85e \r\n") == "a b c d e"
