"""Rows that could not be told apart now can (issue 26, item 6).

Forks and clones carry a mark and "Fork of …" in their tooltip even when not threaded; a damaged file a
badge and a tooltip saying why; rows with the same title show what differs (the project's last folder,
else the short id).
"""

from __future__ import annotations

import shutil
from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtGui import QIcon

from gui.main_window import MainWindow
from gui.models.roles import Role
from gui.models.session_list_model import SessionColumn, distinctions, last_folder
from tests.conftest import DEMO
from tests.gui.windows import TIMEOUT, make_window

LINEAR = "019cadd3-8790-76fa-8ab0-c952ebef2dfd.jsonl"  # "Fix double submit on login form", acme-webapp
FORK = "019cbd70-9d00-7654-b79e-0404ef27578f.jsonl"  # its fork into acme-webapp-v2, same title
BRANCHES = "019cb402-3c88-737c-a54e-8f5201941e04.jsonl"  # "I need to add caching…", acme-webapp
BRANCHED = "019cbdc3-02c0-73a8-8574-a995f558347e.jsonl"  # created from it: same title, same folder
NEW_WITH_PARENT = "019cbde7-a1c1-7010-9bba-f2b86295821f.jsonl"


def _data(window: MainWindow, name: str, role: int, column: int = SessionColumn.TITLE) -> object:
    model = window.list_model
    return model.data(model.index(model.row_of(str(Path(window.catalogue.roots[0]) / name)), column), role)


def test_forks_are_marked_and_name_their_parent_without_threading(window: MainWindow) -> None:
    assert not window.thread_forks.isChecked()
    for name in (FORK, BRANCHED, NEW_WITH_PARENT):
        icon = _data(window, name, Qt.ItemDataRole.DecorationRole)
        assert isinstance(icon, QIcon) and not icon.isNull(), name
    for name in (LINEAR, BRANCHES):
        assert _data(window, name, Qt.ItemDataRole.DecorationRole) is None
    tip = _data(window, FORK, Qt.ItemDataRole.ToolTipRole)
    assert f"Fork of “Fix double submit on login form” ({LINEAR})" in tip
    tip = _data(window, BRANCHED, Qt.ItemDataRole.ToolTipRole, SessionColumn.MODIFIED)
    assert f"({BRANCHES})" in tip and "Fork of “I need to add caching" in tip


def test_a_damaged_file_has_a_badge_and_says_why(qtbot, sessions: Path, tmp_path: Path) -> None:
    damaged = sessions / "damaged.jsonl"
    shutil.copy2(DEMO / LINEAR, damaged)
    lines = damaged.read_bytes().splitlines(keepends=True)
    lines.insert(5, b'{"type":"message","id":"broken",\n')  # a line cut short, in the middle of the file
    damaged.write_bytes(b"".join(lines))
    window = make_window(qtbot, [sessions], tmp_path / "catalogue")
    summary = window.list_model.summary_at(window.list_model.row_of(str(damaged)))
    assert summary.problems == 1 and summary.firstProblem.startswith("line 6: ")
    badge = _data(window, "damaged.jsonl", Qt.ItemDataRole.DecorationRole)
    fork = _data(window, FORK, Qt.ItemDataRole.DecorationRole)
    assert isinstance(badge, QIcon) and badge.cacheKey() != fork.cacheKey()
    tip = _data(window, "damaged.jsonl", Qt.ItemDataRole.ToolTipRole)
    assert f"<b>Damaged file</b>: {summary.firstProblem}" in tip
    assert "line 6: " in tip and "what is readable is shown" in tip


def test_rows_with_the_same_title_say_what_differs(window: MainWindow) -> None:
    assert _data(window, LINEAR, Role.DISTINCT) == "acme-webapp"
    assert _data(window, FORK, Role.DISTINCT) == "acme-webapp-v2"
    assert _data(window, BRANCHES, Role.DISTINCT) == "019cb402"  # same folder: the short ids
    assert _data(window, BRANCHED, Role.DISTINCT) == "019cbdc3"
    assert _data(window, NEW_WITH_PARENT, Role.DISTINCT) == ""  # a title of its own
    assert _data(window, LINEAR, Role.DISTINCT, SessionColumn.PROJECT) is None


def test_the_distinction_stays_in_view_when_the_title_is_cut(qtbot, window: MainWindow) -> None:
    window.resize(1100, 680)
    table = window.table
    table.setColumnWidth(SessionColumn.TITLE, 220)
    qtbot.waitUntil(lambda: table.isVisible(), timeout=TIMEOUT)
    delegate = table.itemDelegateForColumn(SessionColumn.TITLE)
    assert type(delegate).__name__ == "_TitleWithDistinction"
    table.viewport().grab()  # paints every row through it without an error


def test_distinctions_of_mixed_groups() -> None:
    import dataclasses

    from core.catalogue.summary import summarize
    from core.session import load_session

    base = summarize(load_session(DEMO / LINEAR))
    rows = [
        dataclasses.replace(base, path="/a/1.jsonl", id="aaaaaaaa-1", cwd="/home/dev/shop"),
        dataclasses.replace(base, path="/a/2.jsonl", id="bbbbbbbb-2", cwd="/home/dev/shop"),
        dataclasses.replace(base, path="/a/3.jsonl", id="cccccccc-3", cwd="C:\\work\\api"),
        dataclasses.replace(base, path="/a/4.jsonl", id="dddddddd-4", name="Other"),
        dataclasses.replace(base, path="/b/copy-of-1.jsonl", id="aaaaaaaa-1", cwd="/srv/shop"),
    ]
    assert distinctions(rows) == {
        "/a/1.jsonl": "1",  # "shop · aaaaaaaa" twice: a copy of one file, told apart by file name
        "/b/copy-of-1.jsonl": "copy-of-1",
        "/a/2.jsonl": "shop · bbbbbbbb",
        "/a/3.jsonl": "api",
    }
    assert last_folder("/home/dev/acme/") == "acme" and last_folder("") == ""
