"""The window reopens a big session from the catalogue's snapshot, without parsing it (issue 27)."""

from __future__ import annotations

import os
from pathlib import Path

import orjson
import pytest

import core.session
from core.catalogue.snapshots import snapshot_file
from core.visible.structure import prepare
from tests.gui.windows import TIMEOUT, current_entry_id, make_window, open_session
from tests.helpers import append_entries


def _refuse_to_parse(*_args: object, **_kwargs: object) -> None:
    raise AssertionError("the session file was parsed: its snapshot was not used")


def test_a_catalogued_big_session_opens_from_its_snapshot_and_reads_what_was_appended(
    qtbot, sessions: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PRIME_SESSIONS_SNAPSHOT_MIN", "0")  # every session is "big" here
    monkeypatch.setenv("PRIME_SESSIONS_READERS", "1")  # snapshots are written by reader processes only
    catalogue = tmp_path / "catalogue"
    window = make_window(qtbot, [sessions], catalogue)
    paths = sorted(sessions.glob("*.jsonl"), key=lambda p: p.stat().st_size)
    assert all(snapshot_file(catalogue, str(p)).exists() for p in paths)
    target = paths[-1]
    expected = core.session.load_session(target)
    leaf = expected.leaf_id

    monkeypatch.setattr(core.session, "load_session", _refuse_to_parse)
    open_session(qtbot, window, target)
    shown = window.opened.session
    assert shown is not None and shown.path == os.path.abspath(target)
    assert [(e.id, e.parent_id, e.line) for e in shown.entries] == [
        (e.id, e.parent_id, e.line) for e in expected.entries
    ]
    qtbot.waitUntil(lambda: current_entry_id(window) == leaf, timeout=TIMEOUT)
    qtbot.waitUntil(lambda: window.transcript.card_source is not None, timeout=TIMEOUT)

    # Another session, then this one again after the agent appended a message: the snapshot and the
    # appended line, still without a parse.
    open_session(qtbot, window, paths[0])
    qtbot.waitUntil(lambda: not window.catalogue.refreshing, timeout=TIMEOUT)
    last = orjson.loads(target.read_bytes().splitlines()[-1])["id"]
    entry = {
        "type": "message",
        "id": "snap0001",
        "parentId": last,
        "timestamp": "2026-03-09T10:00:00.000Z",
        "message": {"role": "user", "content": "Written after the snapshot", "timestamp": 1773050400000},
    }
    append_entries(target, [entry])
    open_session(qtbot, window, target)
    shown = window.opened.session
    assert shown is not None and shown.get("snap0001") is not None
    assert len(shown.entries) == len(expected.entries) + 1
    qtbot.waitUntil(lambda: current_entry_id(window) == "snap0001", timeout=TIMEOUT)
    assert window.tree_model.rowCount() == len(prepare(expected).vkids[None])  # the same top level
