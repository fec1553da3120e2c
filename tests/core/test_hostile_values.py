"""One hostile value in one file costs that line, never the list (issue 29).

An outside audit put values nested 1,000 levels deep, integers of 2**63, times of 1.5e308 into single
fields of real sessions: the list, search and usage ended in an internal error for every session, and
``check``, ``show``, ``tree`` and the exports of that file failed. Each case here writes the value into
one field of a small session beside the demo sessions and runs every reading command
(:func:`tests.core.hostile_sessions.run_everything`): none may fail, the session is listed, the demo
sessions show exactly what they show alone, and the value is dealt with as the issue asks.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from core.session.jsonl import FOLDED, MAX_DEPTH
from tests.core.hostile_sessions import (
    NAME,
    SESSION_ID,
    demo_folder,
    hostile_file,
    listed,
    nested,
    run,
    run_everything,
    summary_facts,
    usage_rows,
)


@pytest.fixture(scope="module")
def alone(
    tmp_path_factory: pytest.TempPathFactory,
) -> tuple[dict[str, tuple[object, ...]], dict[str, object]]:
    """What the list and the session usage report show of the demo sessions alone."""
    base = tmp_path_factory.mktemp("alone")
    folder = demo_folder(base / "sessions")
    catalogue = ("--catalogue", base / "catalogue")
    summaries = {
        str(s["id"]): summary_facts(s) for s in json.loads(run("list", "--json", folder, *catalogue).out)
    }
    return summaries, usage_rows(run("usage", "session", folder, "--json", *catalogue))


def _everything(tmp_path: Path, field: str, raw: bytes, alone: tuple[dict, dict]) -> dict:  # type: ignore[type-arg]
    folder = demo_folder(tmp_path / "sessions")
    path = hostile_file(folder, field, raw)
    before = path.read_bytes()
    ran = run_everything(folder, path, tmp_path / "catalogue", tmp_path / "out")
    summaries, usage = alone
    shown = listed(ran)
    assert SESSION_ID in shown, f"the session with a hostile {field} is not listed"
    assert {sid: summary_facts(s) for sid, s in shown.items() if sid != SESSION_ID} == summaries
    files = {str(s["id"]) for s in json.loads(ran["list-files"].out)}
    assert files == {*summaries, SESSION_ID}
    others = {name: row for name, row in usage_rows(ran["usage-session"]).items() if name != NAME}
    assert others == usage
    assert path.read_bytes() == before  # reading never writes
    return {"path": path, "ran": ran, "out": tmp_path / "out", "listed": shown[SESSION_ID]}


# ---------------------------------------------------------------------------- deep values
DEEP = nested(1000)
DEEP_CASES = [
    ("header.extra", DEEP, False),
    ("header.cwd", DEEP, False),
    ("user.content", DEEP, True),  # content that is neither text nor blocks: its JSON
    ("assistant.text", DEEP, False),  # a text block whose text is not text: left out
    ("assistant.arguments", DEEP, False),  # read's arguments are not an object: no path shown
    ("assistant.lookup-arguments", b'{"q":' + DEEP + b"}", True),  # an unknown tool's: its JSON
    ("assistant.usage", DEEP, False),
    ("result.content", DEEP, False),
    ("result.details", DEEP, False),
    ("label.label", DEEP, True),
    ("name.name", DEEP, False),
]


@pytest.mark.parametrize(("field", "raw", "shown"), DEEP_CASES, ids=[case[0] for case in DEEP_CASES])
def test_a_value_nested_1000_levels_deep_costs_only_its_line(
    tmp_path: Path,
    field: str,
    raw: bytes,
    shown: bool,
    alone: tuple,  # type: ignore[type-arg]
) -> None:
    # orjson parses up to 1,024 levels; str(), repr() and json.dumps of such a value recursed.
    done = _everything(tmp_path, field, raw, alone)
    ran, line = done["ran"], {"header": 1, "user": 2, "assistant": 3, "result": 4, "label": 5, "name": 6}
    number = line[field.split(".")[0]]
    assert f"{done['path']}:{number}: warning deep-value: A value on this line is nested" in ran["check"].out
    # Where the value is shown, it is shown down to MAX_DEPTH levels, then the fold's note.
    markdown = (done["out"] / "tree.md").read_text("utf-8")
    assert (FOLDED in markdown) == shown


def test_a_line_nested_deeper_than_orjson_reads_is_reported_and_skipped(tmp_path: Path, alone: tuple) -> None:  # type: ignore[type-arg]
    done = _everything(tmp_path, "assistant.arguments", nested(1030), alone)
    assert f"{done['path']}:3: error invalid-json: The line is not valid JSON; it was skipped." in (
        done["ran"]["check"].out
    )


def test_deep_values_are_folded_at_max_depth_and_no_deeper() -> None:
    from core.session.jsonl import decode_line, fold_deep

    value, _note = decode_line(nested(MAX_DEPTH))  # exactly MAX_DEPTH levels: kept whole
    assert fold_deep(value) == MAX_DEPTH
    value, _note = decode_line(nested(MAX_DEPTH + 1))
    inner = value
    for level in range(MAX_DEPTH - 1):
        inner = inner[0] if level % 2 == 0 else inner["k"]  # type: ignore[index]
    assert inner == {"k": FOLDED}  # the 100th level holds the note where the 101st was


# ---------------------------------------------------------------------------- numbers too large
@pytest.mark.parametrize(
    ("field", "raw"),
    [
        ("assistant.input", b"9223372036854775808"),  # 2**63: SQLite INTEGER ends at 2**63 - 1
        ("assistant.total-tokens", b"18446744073709551615"),  # 2**64 - 1, the largest orjson reads
        ("assistant.cost", b"1.5e308"),
        ("branch.usage-output", b"-9223372036854775809"),
        ("header.version", b"9223372036854775808"),
        ("header.cwd", b"9223372036854775808"),
        ("label.label", b"9223372036854775808"),
        ("user.timestamp", b"9223372036854775808"),
        ("assistant.timestamp", b"18446744073709551615"),
        ("result.details", b'{"usage": 9223372036854775808}'),
    ],
)
def test_an_integer_of_2_63_or_more_costs_only_its_figure(
    tmp_path: Path, field: str, raw: bytes, alone: tuple
) -> None:  # type: ignore[type-arg]
    done = _everything(tmp_path, field, raw, alone)
    ran = done["ran"]
    # The figures that are added up leave such a value out, with a diagnostic: the other reply counts.
    if field in ("assistant.total-tokens", "assistant.cost"):
        assert "warning invalid-field: A usage figure is out of range" in ran["check"].out
    tokens = done["listed"]["totalTokens"]
    assert isinstance(tokens, int) and 0 <= tokens < 2**53
    # Shown as recorded where the entry is shown.
    if field == "assistant.input":
        assert "9223372036854.8M in" in (done["out"] / "tree.md").read_text("utf-8")


# ---------------------------------------------------------------------------- times out of range
@pytest.mark.parametrize(
    ("field", "raw", "dated"),
    [
        ("assistant.timestamp", b"1.5e308", True),  # beyond JavaScript's Date: no time; the entry's counts
        ("assistant.entry-timestamp", b"-1e18", True),  # no time either; the message's own counts
        ("branch.entry-timestamp", b"1e15", False),  # year 33,658: a Date, but on no calendar here
        ("branch.entry-timestamp", b"-1e14", False),  # year -1,199
        ("header.timestamp", b"1e15", True),
        ("user.entry-timestamp", b'"0001-01-01T00:00:00.000Z"', True),
    ],
)
def test_a_time_outside_the_calendar_is_left_out_of_the_dates_with_a_note(
    tmp_path: Path,
    field: str,
    raw: bytes,
    dated: bool,
    alone: tuple,  # type: ignore[type-arg]
) -> None:
    done = _everything(tmp_path, field, raw, alone)
    ran = done["ran"]
    daily = json.loads(ran["usage-daily"].out)
    every = json.loads(ran["usage-session"].out)
    on_days = sum(row["totalCost"] for row in daily["daily"])
    if dated:
        assert "left out of the dates" not in ran["usage-daily"].err
        assert on_days == pytest.approx(every["totals"]["totalCost"])
    else:
        # The reply of the second branch (year 33,658) is on no day; the session report counts it.
        assert "Usage dated outside the years 1 to 9999 ($0.0015, 420 tokens, in 1 session)" in (
            ran["usage-daily"].err
        )
        assert on_days == pytest.approx(every["totals"]["totalCost"] - 0.0015)
        assert daily["totals"]["totalCost"] == pytest.approx(on_days)
        blocks = json.loads(ran["usage-blocks"].out)
        assert sum(row["totalCost"] for row in blocks["blocks"]) == pytest.approx(on_days)
