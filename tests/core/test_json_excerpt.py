"""An excerpt of a value's JSON is the start of its indented JSON, and says how much more there is.

``json_excerpt`` writes only the excerpt and counts the rest (the JSON of a 100 MB value written whole
took 4 GB): it must say exactly what cutting the whole text said.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from core.kinds.common import MAX_RAW_JSON, json_excerpt, json_text


def _cut(value: object, limit: int) -> str:
    text = json_text(value)
    return text if len(text) <= limit else text[:limit] + f"\n… ({len(text) - limit:,} more characters)"


_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=30),
    lambda inner: st.lists(inner, max_size=6) | st.dictionaries(st.text(max_size=6), inner, max_size=6),
    max_leaves=40,
)


@settings(max_examples=300, deadline=None)
@given(value=_VALUES, limit=st.integers(0, 400))
def test_an_excerpt_is_the_whole_text_cut(value: object, limit: int) -> None:
    assert json_excerpt(value, limit) == _cut(value, limit)


def test_a_value_of_millions_of_characters_is_counted_about_the_same() -> None:
    """Past a million characters the rest is counted by orjson's writing of the same JSON: "about"."""
    for value in (
        [{"i": i, "s": "é" * (i % 7), "f": i / 3, "big": 10**17 + i} for i in range(60_000)],
        {"rows": [[i, None, True, "\u2028\x01"] for i in range(80_000)], "n": float("nan")},
    ):
        excerpt, cut = json_excerpt(value), _cut(value, MAX_RAW_JSON)
        head, _, note = excerpt.rpartition("\n… (about ")
        assert head == cut.rpartition("\n… (")[0]
        counted, exact = (int(n.split()[0].replace(",", "")) for n in (note, cut.rpartition("(")[2]))
        assert abs(counted - exact) <= 2


def test_a_value_orjson_cannot_write_is_counted_exactly() -> None:
    value = [2**70] * 100_000  # beyond 64 bits: counted piece by piece
    assert json_excerpt(value) == _cut(value, MAX_RAW_JSON)
