"""What other entries say about an entry follows a growing session from the appended entries alone.

A live session appends a few entries at a time; the notes (context edits, child runs, child sessions)
used to be gathered again from every entry after each append, on the GUI thread (42 ms at 520,000
entries). :meth:`SessionNotes.grow` takes only the appended ones; the result must be what a fresh pass
over the whole file gives, whatever the appends hold: edits and attributions of earlier entries,
repeated ids, labels and names that retarget earlier entries, legacy files whose ids are made on load.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from core.kinds.notes import SessionNotes, session_notes
from core.session import Session, load_session

WHEN = "2026-05-01T10:00:00.000Z"
_IDS = st.sampled_from(["a", "b", "c", "k"])  # few: ids repeat, targets meet their entries
_USAGE = st.one_of(
    st.none(),
    st.fixed_dictionaries(
        {},
        optional={
            "input": st.integers(0, 99),
            "totalTokens": st.integers(0, 999),
            "cost": st.fixed_dictionaries({}, optional={"total": st.floats(0, 9)}),
        },
    ),
)


@st.composite
def _entry(draw: st.DrawFn) -> dict[str, object]:
    shape = draw(
        st.sampled_from(
            ["assistant", "user", "context_edit", "child_usage_attributed", "label", "session_info"]
        )
    )
    entry: dict[str, object] = {
        "id": draw(_IDS),
        "parentId": draw(st.one_of(st.none(), _IDS)),
        "timestamp": WHEN,
    }
    if shape in ("assistant", "user"):
        message: dict[str, object] = {"role": shape, "content": "hi"}
        if shape == "assistant":
            message["usage"] = draw(_USAGE)
        return {"type": "message", **entry, "message": message}
    target = draw(st.one_of(_IDS, st.none(), st.integers(0, 3)))
    if shape == "context_edit":
        replacement = draw(st.one_of(st.none(), st.just({"content": "edited"})))
        return {"type": shape, **entry, "targetId": target, "replacement": replacement}
    if shape == "child_usage_attributed":
        origin = draw(st.one_of(st.none(), st.sampled_from(["task", "review", ""])))
        return {
            "type": shape,
            **entry,
            "targetId": target,
            "origin": origin,
            "childUsage": draw(_USAGE),
            "aggregateUsage": draw(_USAGE),
        }
    if shape == "label":
        return {"type": shape, **entry, "targetId": target, "label": draw(st.sampled_from(["", "keep", "x"]))}
    return {"type": shape, **entry, "name": draw(st.sampled_from(["", "Named", " Other "]))}


def _lines(objs: list[dict[str, object]]) -> bytes:
    return "".join(json.dumps(o) + "\n" for o in objs).encode()


def _state(notes: SessionNotes, session: Session) -> tuple[object, ...]:
    ids = sorted({e.id for e in session.entries} | {"a", "b", "c", "k"})
    return (
        notes.edits,
        notes.edit_by_id,
        notes.children,
        notes.sessions,
        notes.has_edits,
        [notes.get(i) for i in ids],
    )


def _grown_equals_fresh(path: Path, header: dict[str, object], chunks: list[list[dict[str, object]]]) -> int:
    """Append ``chunks`` one by one: after each, grown notes equal a fresh pass. Returns the full passes."""
    passes: list[Session] = []
    make = SessionNotes.__init__

    def counted(self: SessionNotes, session: Session) -> None:
        passes.append(session)
        make(self, session)

    path.write_bytes(_lines([header, *chunks[0]]))
    live = load_session(path)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(SessionNotes, "__init__", counted)
        session_notes(live)
        for chunk in chunks[1:]:
            with open(path, "ab") as handle:
                handle.write(_lines(chunk))
            result = live.refresh()
            assert not result.reloaded
            grown = session_notes(live)
            fresh_session = load_session(path)
            assert _state(grown, live) == _state(SessionNotes(fresh_session), fresh_session)
    return sum(1 for s in passes if s is live)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    chunks=st.lists(st.lists(_entry(), max_size=6), min_size=2, max_size=5),
    version=st.sampled_from([3, 1]),
)
def test_grown_notes_are_a_fresh_pass(
    tmp_path: Path, chunks: list[list[dict[str, object]]], version: int
) -> None:
    header = {"type": "session", "version": version, "id": "s", "timestamp": WHEN}
    assert _grown_equals_fresh(tmp_path / "g.jsonl", header, chunks) == 1  # the first, never again


def test_an_append_never_gathers_the_notes_again(tmp_path: Path) -> None:
    """Edits, attributions, a repeated attribution id and a later aggregate: one pass, at the first use."""
    header = {"type": "session", "version": 3, "id": "s", "timestamp": WHEN}
    one = {"totalTokens": 10, "cost": {"total": 0.1}}
    two = {"totalTokens": 20, "cost": {"total": 0.2}}

    def message(eid: str, parent: str | None, role: str) -> dict[str, object]:
        return {"type": "message", "id": eid, "parentId": parent, "timestamp": WHEN,
                "message": {"role": role, "content": "x", "usage": one}}  # fmt: skip

    def attribution(eid: str, target: str, usage: dict[str, object]) -> dict[str, object]:
        return {"type": "child_usage_attributed", "id": eid, "parentId": None, "timestamp": WHEN,
                "targetId": target, "origin": eid, "childUsage": usage, "aggregateUsage": usage}  # fmt: skip

    chunks = [
        [message("u", None, "user"), message("a", "u", "assistant"), attribution("k1", "a", one)],
        [
            {
                "type": "context_edit",
                "id": "e1",
                "parentId": "a",
                "timestamp": WHEN,
                "targetId": "u",
                "replacement": None,
            }
        ],
        [attribution("k2", "a", two), message("b", "a", "assistant")],
        [attribution("k1", "b", two)],  # a repeated id moves its run from a to b
        [{"type": "label", "id": "l", "parentId": "b", "timestamp": WHEN, "targetId": "a", "label": "x"}],
    ]
    assert _grown_equals_fresh(tmp_path / "s.jsonl", header, chunks) == 1
    notes = session_notes(load_session(tmp_path / "s.jsonl"))
    assert notes.children["a"].runs == 1 and notes.children["a"].origins == ("k2",)
    assert notes.children["b"].runs == 1 and notes.children["b"].aggregate == two
    assert notes.edits["u"][0].dropped


def test_a_reload_gathers_them_again(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    header = {"type": "session", "version": 3, "id": "s", "timestamp": WHEN}
    edit = {"type": "context_edit", "id": "e1", "parentId": None, "timestamp": WHEN, "targetId": "u",
            "replacement": None}  # fmt: skip
    path.write_bytes(_lines([header, edit]))
    session = load_session(path)
    assert session_notes(session).edits["u"]
    path.write_bytes(_lines([header, {**edit, "targetId": "v"}]))  # rewritten: the same size
    assert session.refresh().reloaded
    notes = session_notes(session)
    assert "u" not in notes.edits and notes.edits["v"]
