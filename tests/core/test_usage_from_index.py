"""The usage the index keeps: every place usage is recorded is added up from it, never from lines read again.

Opening a session works out each subtree's usage and the split between the current path and abandoned
branches (the branch tree's tooltips, the line above it). They used to come from the usage records,
which read every line that may record usage back from the file, twice (1.8 GB read again after a 978 MB
session opened). Now they come from what the index kept while it read the file; the records remain the
truth they must equal, on every sample, corpus and generated file.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from core.kinds import kind_of
from core.session import Session, load_session
from core.session.jsonl import decode_line
from core.session.usage import usage_totals
from core.usage import entries_usage, iter_usage, path_split, subtree_usage
from tests.conftest import CORPUS, DEMO, SHARED

SAMPLE_ROOTS = [
    SHARED / "reference" / "samples",
    SHARED / "reference" / "samples-latest",
    SHARED / "corpus" / "real",
    SHARED / "corpus" / "wild",
    CORPUS,
    DEMO,
    Path(__file__).parent / "kind_samples",
]


def _files() -> list[Path]:
    found = {p.resolve() for root in SAMPLE_ROOTS if root.is_dir() for p in root.rglob("*.jsonl")}
    return sorted(found)


FILES = _files()


def _records_subtrees(session: Session) -> dict[str, tuple[int, float]]:
    """Each subtree's usage as the records give it (what subtree_usage computed before the index kept it)."""
    own: dict[str, tuple[int, float]] = {}
    for record in iter_usage(session):
        tokens, cost = own.get(record.entry_id, (0, 0.0))
        own[record.entry_id] = (tokens + record.total, cost + record.cost)
    totals: dict[str, tuple[int, float]] = {}
    for entry_id in reversed(session.tree.order):
        tokens, cost = own.get(entry_id, (0, 0.0))
        for child in session.tree.children_of(entry_id):
            child_tokens, child_cost = totals[child.id]
            tokens += child_tokens
            cost += child_cost
        totals[entry_id] = (tokens, cost)
    for entry_id, value in own.items():
        if entry_id not in totals and entry_id not in session.by_id:
            totals[entry_id] = value
    return totals


def _records_split(session: Session) -> tuple[tuple[int, float], tuple[int, float]]:
    current, abandoned = [0, 0.0], [0, 0.0]
    for record in iter_usage(session):
        side = current if record.current else abandoned
        side[0] += record.total
        side[1] += record.cost
    return (int(current[0]), float(current[1])), (int(abandoned[0]), float(abandoned[1]))


def _body_totals(session: Session) -> tuple[int | float, float]:
    """The session's totals with the bodies read back (what entries_usage did before the index kept them)."""
    tokens: int | float = 0
    cost = 0.0
    overrides = session.usage_overrides
    for entry, raw in zip(session.entries, session.raw_lines(session.entries), strict=True):
        kind = kind_of(entry)
        if not kind.has_usage:
            continue
        obj, _note = decode_line(raw)
        source = kind.usage_source(obj) if isinstance(obj, dict) else None
        usage = overrides.get(entry.id) if not kind.usage_in_body else None
        if usage is None:
            usage = source.usage if source is not None else None
        entry_tokens, entry_cost = usage_totals(usage)
        tokens += entry_tokens
        cost += entry_cost
    return tokens, cost


def _same(session: Session) -> None:
    assert subtree_usage(session) == _records_subtrees(session)
    assert path_split(session, session.leaf_id) == _records_split(session)
    assert entries_usage(session, session.entries) == _body_totals(session)


@pytest.mark.parametrize("path", FILES, ids=[p.name for p in FILES])
def test_the_index_gives_what_the_records_give(path: Path) -> None:
    _same(load_session(path))


def test_every_place_is_compared(tmp_path: Path) -> None:
    """With the five places' file, the comparisons cover every place usage is recorded in."""
    five = _five_places(tmp_path / "five.jsonl")
    _same(load_session(five))
    places = set()
    for path in [*FILES, five]:
        places |= {r.kind for r in iter_usage(load_session(path))}
    assert {"assistant", "tool_result", "usage", "compaction", "branch_summary"} <= places


def _five_places(path: Path) -> Path:
    def usage(tokens: int, cost: float) -> dict[str, object]:
        return {"input": tokens, "output": 0, "cacheRead": 0, "cacheWrite": 0, "totalTokens": tokens,
                "cost": {"total": cost}}  # fmt: skip

    def message(eid: str, parent: str | None, role: str, **fields: object) -> dict[str, object]:
        return {"type": "message", "id": eid, "parentId": parent, "timestamp": "2026-05-01T10:00:00.000Z",
                "message": {"role": role, "content": [], "timestamp": 0, **fields}}  # fmt: skip

    when = "2026-05-01T10:00:00.000Z"
    rows = [
        {"type": "session", "version": 3, "id": "s1", "timestamp": when, "cwd": "/p"},
        message("u1", None, "user", content="go"),
        message("a1", "u1", "assistant", provider="p", model="m", usage=usage(100, 1.0)),
        message("t1", "a1", "toolResult", toolCallId="c", usage=usage(7, 0.07)),
        {"type": "usage", "id": "w1", "parentId": "t1", "timestamp": when, "usage": usage(5, 0.05)},
        {"type": "compaction", "id": "c1", "parentId": "w1", "timestamp": when, "summary": "s",
         "firstKeptEntryId": "w1", "tokensBefore": 9, "usage": usage(3, 0.03)},
        message("a2", "u1", "assistant", provider="p", model="m", usage=usage(50, 0.5)),
        {"type": "branch_summary", "id": "b1", "parentId": "c1", "timestamp": when, "fromId": "a2",
         "summary": "x", "usage": usage(2, 0.02)},
        {"type": "child_usage_attributed", "id": "k1", "parentId": "b1", "timestamp": when, "targetId": "a1",
         "childUsage": usage(30, 0.3), "aggregateUsage": usage(130, 1.3)},
    ]  # fmt: skip
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def test_opening_reads_no_line_again_for_usage(tmp_path: Path) -> None:
    """Once loaded, the file may be gone: every figure comes from what the load read."""
    path = _five_places(tmp_path / "s.jsonl")
    session = load_session(path)
    expected = (_records_subtrees(session), _records_split(session), _body_totals(session))
    os.unlink(path)  # a read now fails
    split = path_split(session, session.leaf_id)
    found = (subtree_usage(session), split, entries_usage(session, session.entries))
    assert found == expected
    (current, current_cost), (abandoned, abandoned_cost) = found[1]
    assert (current, abandoned) == (147, 50)  # a1's aggregate, t1, w1, c1 and b1 on the path to the leaf
    assert (current_cost, abandoned_cost) == (pytest.approx(1.47), 0.5)


def test_a_huge_line_keeps_its_usage_in_the_skeleton(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A line indexed from its skeleton (streamed, never built whole) keeps the usage figures too."""
    from core.session import skeleton

    monkeypatch.setattr(skeleton, "HUGE_LINE", 64)
    monkeypatch.setattr(skeleton, "DENSE", 10**9)  # stream every huge line
    path = _five_places(tmp_path / "s.jsonl")
    streamed = load_session(path)
    monkeypatch.undo()
    whole = load_session(path)
    assert [e.info for e in streamed.entries] == [e.info for e in whole.entries]
    _same(streamed)


# ---------------------------------------------------------------------------------------- generated
_FIGURE = st.one_of(
    st.integers(-5, 10**6),
    st.floats(allow_nan=True, allow_infinity=True, width=64),
    st.just(2**60),
    st.text(max_size=2),
    st.none(),
)
_USAGE = st.one_of(
    st.none(),
    st.text(max_size=3),
    st.fixed_dictionaries(
        {},
        optional={
            "input": _FIGURE,
            "output": _FIGURE,
            "cacheRead": _FIGURE,
            "cacheWrite": _FIGURE,
            "totalTokens": _FIGURE,
            "cost": st.one_of(st.fixed_dictionaries({}, optional={"total": _FIGURE}), _FIGURE),
        },
    ),
)
_IDS = st.sampled_from(["a", "b", "c", "d", "e", "f"])


@st.composite
def _entry(draw: st.DrawFn) -> dict[str, object]:
    shape = draw(st.sampled_from(["assistant", "toolResult", "user", "usage", "compaction", "branch_summary",
                                  "child_usage_attributed", "branchSummary"]))  # fmt: skip
    entry: dict[str, object] = {"id": draw(_IDS), "parentId": draw(st.one_of(st.none(), _IDS)),
                                "timestamp": "2026-05-01T10:00:00.000Z"}  # fmt: skip
    usage = draw(_USAGE)
    if shape in ("assistant", "toolResult", "user", "branchSummary"):
        message: dict[str, object] = {"role": shape, "content": []}
        if usage is not None:
            message["usage"] = usage
        return {"type": "message", **entry, "message": message}
    if shape == "child_usage_attributed":
        return {"type": shape, **entry, "targetId": draw(_IDS), "aggregateUsage": usage, "childUsage": usage}
    return {"type": shape, **entry, **({"usage": usage} if usage is not None else {})}


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(entries=st.lists(_entry(), max_size=14), version=st.sampled_from([3, 2]))
def test_generated_sessions_give_what_the_records_give(
    tmp_path: Path, entries: list[dict[str, object]], version: int
) -> None:
    header = {"type": "session", "version": version, "id": "s", "timestamp": "2026-05-01T10:00:00.000Z"}
    path = tmp_path / "g.jsonl"
    path.write_text("".join(json.dumps(o) + "\n" for o in [header, *entries]))
    _same(load_session(path))
