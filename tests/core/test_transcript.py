"""The transcript's model (core.visible.transcript): a conversation's slots, its branch points, switching."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from core.session import Session, load_session
from core.visible import FILTER_MODES, VisibleTree, passes, prepare, switched_leaf, transcript_of
from core.visible.navigation import conversation
from tests.core.test_catalogue import BRANCHES

# A root with three branches below its first answer, a label and a model change on the way.
TS = "2026-01-01T00:00:{:02d}.000Z"


def _leaves(session: Session) -> list[str]:
    parents = {e.parent_id for e in session.entries}
    return [e.id for e in session.entries if e.id not in parents]


def _path_shown(session: Session, leaf: str, mode: str) -> list[str]:
    """The entries a filter mode shows on the path to ``leaf``, by the rules of the tree's rows."""
    return [e.id for e in session.path_to(leaf) if e.id == session.leaf_id or passes(e, mode, session)]


@pytest.mark.parametrize("mode", FILTER_MODES)
def test_the_transcript_holds_the_paths_visible_entries_in_order(mode: str) -> None:
    session = load_session(BRANCHES)
    leaves = _leaves(session)
    assert len(leaves) >= 3
    for leaf in leaves:
        made = transcript_of(session, leaf, mode)
        assert made.leaf_id == leaf
        assert [e.id for e in made.entries] == _path_shown(session, leaf, mode)
        assert all(made.slot_of(e.id) == i for i, e in enumerate(made.entries))


@pytest.mark.parametrize("mode", FILTER_MODES)
def test_the_transcripts_slots_are_the_rows_the_tree_shows_on_that_path(mode: str) -> None:
    session = load_session(BRANCHES)
    rows = VisibleTree(session, mode, prepared=prepare(session, mode))
    for leaf in _leaves(session):
        in_tree = [e.id for e in session.path_to(leaf) if rows.is_visible(e.id)]
        assert [e.id for e in transcript_of(session, leaf, mode).entries] == in_tree


def test_switching_at_every_branch_point_gives_the_path_to_that_siblings_leaf() -> None:
    session = load_session(BRANCHES)
    seen_points = 0
    for leaf in _leaves(session):
        made = transcript_of(session, leaf, "all")
        for slot_id, switch in made.switches.items():
            seen_points += 1
            assert switch.count > 1 and made.on_path(switch.siblings[switch.index])
            assert made.slot_of(slot_id) is not None
            for index, sibling in enumerate(switch.siblings):
                target = switched_leaf(session, switch, index)
                assert target is not None
                other = transcript_of(session, target, "all")
                assert other.on_path(sibling)  # the path goes through that sibling
                assert other.leaf_id == target
                # Below the branch point it is that sibling's own conversation, to a leaf.
                assert session.tree.children.get(target) in (None, [])
                back = other.switches.get(slot_id if index == switch.index else sibling)
                assert back is not None and back.siblings == switch.siblings and back.index == index
    assert seen_points >= 1


def test_a_branch_point_whose_child_the_filter_hides_shows_on_the_next_card(tmp_path: Path) -> None:
    rows = [
        {"type": "session", "version": 3, "id": "s", "timestamp": TS.format(0), "cwd": "/p"},
        {
            "type": "message",
            "id": "u1",
            "parentId": None,
            "timestamp": TS.format(1),
            "message": {"role": "user", "content": "start"},
        },
        {
            "type": "label",
            "id": "l1",
            "parentId": "u1",
            "timestamp": TS.format(2),
            "targetId": "u1",
            "label": "x",
        },
        {
            "type": "message",
            "id": "a1",
            "parentId": "l1",
            "timestamp": TS.format(3),
            "message": {"role": "assistant", "content": [{"type": "text", "text": "one"}]},
        },
        {
            "type": "message",
            "id": "a2",
            "parentId": "u1",
            "timestamp": TS.format(4),
            "message": {"role": "assistant", "content": [{"type": "text", "text": "two"}]},
        },
    ]
    import orjson

    path = tmp_path / "s.jsonl"
    path.write_bytes(b"".join(orjson.dumps(r) + b"\n" for r in rows))
    session = load_session(path)
    made = transcript_of(session, "a1", "default")
    assert [e.id for e in made.entries] == ["u1", "a1"]  # the label is hidden
    assert made.switches["a1"].siblings == ("l1", "a2") and made.switches["a1"].index == 0
    assert made.nearest_slot("l1") == 1  # a hidden entry selected lands on the next card
    assert switched_leaf(session, made.switches["a1"], 1) == "a2"


def test_a_transcript_opens_at_the_last_turn_not_at_bookkeeping(tmp_path: Path) -> None:
    session = load_session(sorted(Path(__file__).parents[2].joinpath("resources", "demo").glob("*.jsonl"))[0])
    made = transcript_of(session, None, "default")
    last = made.last_turn()
    assert last is not None
    assert made.entries[last].role in ("user", "assistant")
    assert all(e.role not in ("user", "assistant") for e in made.entries[last + 1 :])


def _every_session_file() -> list[Path]:
    from tests.conftest import CORPUS, DEMO, SAMPLES, SHARED

    files = sorted(SAMPLES.rglob("*.jsonl")) + sorted(
        (SHARED / "reference" / "samples-latest").rglob("*.jsonl")
    )
    files += sorted(DEMO.glob("*.jsonl")) + sorted(CORPUS.rglob("*.jsonl"))
    return files + sorted((SHARED / "corpus" / "wild").rglob("*.jsonl"))


def _entry(eid: str, parent: str | None, second: int, text: str = "x") -> dict:
    return {
        "type": "message",
        "id": eid,
        "parentId": parent,
        "timestamp": TS.format(second),
        "message": {"role": "user", "content": text},
    }


def test_a_slot_is_found_by_line_as_by_id_in_every_file(tmp_path: Path) -> None:
    # Slots are found by bisecting the path's lines; a path whose lines go back up (a parent written after
    # its child) or that repeats an id falls back to a dict: both answer as a dict of ids would.
    hostile = tmp_path / "hostile.jsonl"
    lines = [{"type": "session", "version": 3, "id": "s", "timestamp": TS.format(0), "cwd": "/w"}]
    lines += [_entry("b", "a", 2), _entry("a", None, 1), _entry("c", "b", 3), _entry("c", "a", 4, "again")]
    hostile.write_text("".join(json.dumps(line) + "\n" for line in lines))
    checked = 0
    for path in [*_every_session_file(), hostile]:
        session = load_session(path)
        for leaf in {e.id for e in session.entries if not session.tree.children.get(e.id)}:
            made = transcript_of(session, leaf, "all")
            on_path = {e.id for e in conversation(session, leaf)}
            by_id = {entry.id: slot for slot, entry in enumerate(made.entries)}
            for entry in session.entries:
                expected = by_id.get(entry.id)
                if expected is not None and made.entries[expected] is not entry and made._lines is not None:
                    continue  # an id the file repeats: the slot holds the record the tree chose
                assert made.slot_of(entry.id) == expected, (path.name, leaf, entry.id)
                assert made.on_path(entry.id) == (entry.id in on_path)
            checked += 1
    assert checked > 50
