"""A leaf nested under many branch points is opened level by level, not in one layout of every level."""

from __future__ import annotations

from pathlib import Path

import orjson
from PySide6.QtCore import QModelIndex

from gui.controllers import opened
from tests.gui.windows import TIMEOUT, current_entry_id, make_window

LEVELS = 3 * opened._EXPAND_AT_ONCE  # more branch points above the leaf than are expanded in one go


def _nested_session(path: Path) -> str:
    """A session whose main line forks off a side reply at each of ``LEVELS`` points; returns the leaf."""
    header = {"type": "session", "version": 3, "id": "nested", "timestamp": "2026-01-01T00:00:00.000Z"}
    lines = [orjson.dumps(header)]
    parent = None
    for level in range(LEVELS):
        stamp = f"2026-01-01T00:{level // 60:02d}:{level % 60:02d}.000Z"
        main = {"type": "message", "id": f"m{level:03d}", "parentId": parent, "timestamp": stamp}
        main["message"] = {"role": "user", "content": f"question {level}"}
        side = {"type": "message", "id": f"s{level:03d}", "parentId": main["id"], "timestamp": stamp}
        side["message"] = {"role": "user", "content": f"side {level}"}
        lines += [orjson.dumps(main), orjson.dumps(side)]
        parent = main["id"]
    leaf = {"type": "message", "id": "leaf", "parentId": parent, "timestamp": "2026-01-01T01:00:00.000Z"}
    leaf["message"] = {"role": "user", "content": "the leaf"}
    lines.append(orjson.dumps(leaf))
    path.write_bytes(b"\n".join(lines) + b"\n")
    return "leaf"


def test_the_rows_above_a_deep_leaf_open_over_several_turns(qtbot, tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setattr(opened, "_EXPAND_BUDGET_SECS", 0.0)  # one level a turn, as on a slow machine
    sessions = tmp_path / "sessions"
    sessions.mkdir()
    path = sessions / "nested.jsonl"
    leaf_id = _nested_session(path)
    window = make_window(qtbot, [sessions], tmp_path / "catalogue")
    expanded: list[QModelIndex] = []
    window.tree.expanded.connect(expanded.append)
    opened_controller = window.opened
    loaded_at: list[int] = []
    original = opened_controller._open_towards_leaf

    def open_towards_leaf(session: object) -> None:
        original(session)  # type: ignore[arg-type]
        loaded_at.append(len(expanded))  # what the turn the load arrived in expanded

    opened_controller._open_towards_leaf = open_towards_leaf  # type: ignore[method-assign]
    with qtbot.waitSignal(window.context.session_loaded, timeout=TIMEOUT):
        opened_controller.open(path)
    assert current_entry_id(window) == leaf_id
    index = window.tree.currentIndex()
    above = []
    parent = index.parent()
    while parent.isValid():
        above.append(parent)
        parent = parent.parent()
    assert len(above) > 2 * opened._EXPAND_AT_ONCE  # a branch point per level, as built
    assert all(window.tree.isExpanded(row) for row in above)
    # Every level was expanded once, top first, and not all in the turn the load arrived in.
    assert len(expanded) == len(above)
    assert [window.tree_model.entry_for_index(i) for i in expanded] == [
        window.tree_model.entry_for_index(i) for i in reversed(above)
    ]
    assert loaded_at == [0]  # nothing in the turn the load arrived in: one level a turn after it


def test_background_passes_wait_until_the_session_is_shown_not_just_read(qtbot, tmp_path: Path) -> None:
    """The hold on background passes lasts from the open to the leaf shown, and a close ends it."""
    sessions = tmp_path / "sessions"
    sessions.mkdir()
    path = sessions / "nested.jsonl"
    _nested_session(path)
    window = make_window(qtbot, [sessions], tmp_path / "catalogue")
    held: list[int] = []
    window.opened._select_loaded = (  # type: ignore[method-assign]
        lambda session, _original=window.opened._select_loaded: (
            held.append(window.scheduler.foreground_held),
            _original(session),
        )
    )
    with qtbot.waitSignal(window.context.session_loaded, timeout=TIMEOUT):
        window.opened.open(path)
    assert held == [1]  # the load's worker had ended; the hold still stood while the tree opened
    assert window.scheduler.foreground_held == 0
    window.opened.open(tmp_path / "missing.jsonl")  # fails: the hold ends with it
    qtbot.waitUntil(lambda: window.opened.load_error is not None, timeout=TIMEOUT)
    assert window.scheduler.foreground_held == 0
    again = path.with_name("again.jsonl")
    again.write_bytes(path.read_bytes())
    window.opened.open(again)
    assert window.scheduler.foreground_held == 1
    window.close()  # while it loads
    assert window.scheduler.foreground_held == 0
