"""Label and name edits as command objects: apply, inverse, and what the reference reads afterwards."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest

from core import load_session
from core.errors import InvalidRequestError, SessionChangedError
from core.writing import SetLabel, SetName, label_edit, name_edit
from tests.core.test_writer import BRANCHES, LINEAR, copy_into, lines_of, oracle


def reference_view(oracle_dir: Path, file: Path) -> dict:
    return oracle(oracle_dir, file, "--messages", "none", "--tree", "none")


def test_label_edit_reads_the_old_label_and_its_inverse_restores_it(tmp_path: Path, oracle_dir: Path) -> None:
    file = copy_into(tmp_path, BRANCHES)
    session = load_session(file)
    target, old = next(iter(session.labels.items()))
    before = file.read_bytes()

    edit = label_edit(session, target, "renamed label")
    assert edit == SetLabel(str(file), target, "renamed label", old)
    edit.apply(session)
    after_apply = file.read_bytes()
    assert after_apply.startswith(before) and after_apply.count(b"\n") == before.count(b"\n") + 1
    assert reference_view(oracle_dir, file)["labels"][target] == "renamed label"

    edit.inverse().apply(session)  # undo: one more line that restores the old label
    after_undo = file.read_bytes()
    assert after_undo.startswith(after_apply) and after_undo.count(b"\n") == before.count(b"\n") + 2
    assert reference_view(oracle_dir, file)["labels"][target] == old
    assert lines_of(file)[-1]["label"] == old

    edit.apply(session)  # redo
    assert file.read_bytes().startswith(after_undo)
    assert reference_view(oracle_dir, file)["labels"][target] == "renamed label"
    assert session.label_for(target) == "renamed label"


def test_new_label_undone_is_a_clear_without_a_label_key(tmp_path: Path, oracle_dir: Path) -> None:
    file = copy_into(tmp_path, BRANCHES)
    session = load_session(file)
    target = next(e.id for e in session.entries if e.kind == "message" and session.label_for(e.id) is None)
    before = file.read_bytes()
    edit = label_edit(session, target, "fresh")
    assert edit is not None and edit.old is None
    edit.apply(session)
    undo = edit.inverse()
    assert undo.new is None and undo.description == "Clear label"
    undo.apply(session)
    last = lines_of(file)[-1]
    assert last["type"] == "label" and last["targetId"] == target and "label" not in last
    assert target not in reference_view(oracle_dir, file)["labels"]
    assert file.read_bytes().startswith(before)


def test_clearing_with_an_empty_label_and_no_op_edits(tmp_path: Path) -> None:
    file = copy_into(tmp_path, BRANCHES)
    session = load_session(file)
    target, old = next(iter(session.labels.items()))
    assert label_edit(session, target, old) is None  # the same label: nothing to write
    clear = label_edit(session, target, "")
    assert clear == SetLabel(str(file), target, None, old)
    unlabelled = next(e.id for e in session.entries if session.label_for(e.id) is None)
    assert label_edit(session, unlabelled, "") is None
    assert label_edit(session, unlabelled, None) is None


def test_name_edit_round_trip_through_the_reference(tmp_path: Path, oracle_dir: Path) -> None:
    file = copy_into(tmp_path, LINEAR)
    session = load_session(file)
    old = session.name or ""
    before = file.read_bytes()
    edit = name_edit(session, "  Login\nform fix ")
    assert edit == SetName(str(file), "Login form fix", old)
    assert name_edit(session, f" {old}\n") is None  # the same name once cleaned: nothing to write
    edit.apply(session)
    assert reference_view(oracle_dir, file)["sessionName"] == "Login form fix"
    edit.inverse().apply(session)
    assert reference_view(oracle_dir, file)["sessionName"] == (old or None)
    last = lines_of(file)[-1]
    assert last["type"] == "session_info" and last["name"] == old
    assert file.read_bytes().startswith(before)
    assert file.read_bytes().count(b"\n") == before.count(b"\n") + 2


def test_clearing_the_name_and_undoing_it(tmp_path: Path, oracle_dir: Path) -> None:
    file = copy_into(tmp_path, LINEAR)
    session = load_session(file)
    name_edit(session, "Something").apply(session)
    clear = name_edit(session, "")
    assert clear == SetName(str(file), "", "Something") and clear.description == "Clear name"
    clear.apply(session)
    assert reference_view(oracle_dir, file)["sessionName"] is None
    clear.inverse().apply(session)
    assert reference_view(oracle_dir, file)["sessionName"] == "Something"


def test_undo_is_refused_when_someone_else_changed_the_value(tmp_path: Path) -> None:
    file = copy_into(tmp_path, BRANCHES)
    session = load_session(file)
    target = session.leaf_id
    edit = label_edit(session, target, "ours")
    edit.apply(session)
    other = {
        "type": "label",
        "id": "0ther123",
        "parentId": lines_of(file)[-1]["id"],
        "timestamp": "2026-03-03T16:00:00.000Z",
        "targetId": target,
        "label": "theirs",
    }
    with open(file, "ab") as handle:  # another tool relabels the entry after our edit
        handle.write(orjson.dumps(other) + b"\n")
    before = file.read_bytes()
    with pytest.raises(InvalidRequestError, match='changed to "theirs"'):
        edit.inverse().apply(session)
    assert file.read_bytes() == before
    assert session.label_for(target) == "theirs"  # the session read the other tool's entry


def test_edit_on_a_file_changed_underneath_is_refused(tmp_path: Path) -> None:
    file = copy_into(tmp_path, LINEAR)
    session = load_session(file)
    edit = name_edit(session, "New name")
    data = bytearray(file.read_bytes())
    data[-3:-1] = b"XX"  # the last line's bytes change: not an append
    file.write_bytes(bytes(data))
    with pytest.raises(SessionChangedError, match="not an append"):
        edit.apply(session)
    assert file.read_bytes() == bytes(data)


def test_unknown_entry_and_wrong_file_are_refused(tmp_path: Path) -> None:
    file = copy_into(tmp_path, BRANCHES)
    other = copy_into(tmp_path, LINEAR)
    session = load_session(file)
    with pytest.raises(InvalidRequestError, match="no entry nosuch"):
        label_edit(session, "nosuch", "x")
    before = other.read_bytes()
    edit = name_edit(load_session(other), "x")
    with pytest.raises(InvalidRequestError, match="not"):
        edit.apply(session)
    assert other.read_bytes() == before


def test_inverse_of_inverse_is_the_edit() -> None:
    label = SetLabel("/s.jsonl", "abc", "new", None)
    name = SetName("/s.jsonl", "", "old")
    assert label.inverse().inverse() == label
    assert name.inverse().inverse() == name
    assert name.inverse() == SetName("/s.jsonl", "old", "")
    assert label.description == 'Label "new"' and name.inverse().description == 'Rename to "old"'
