"""Archive, pin and tags in the window: the Session menu's actions, the list's marks, tag:NAME, the palette.

Every test runs over a copy of the demo sessions with a private notes folder (``tests/conftest.py``); each
change is waited for through ``NotesController.notes_written`` (the list shows the notes written).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QFont, QIcon

from core.notes import Notes, SessionRef
from gui.main_window import MainWindow
from gui.models.roles import Role
from gui.models.session_filter_proxy import filter_tags, filter_words
from gui.models.session_list_model import ARCHIVED_COLOR, SessionColumn
from tests.gui.windows import TIMEOUT, make_window

LINEAR = "019cadd3-8790-76fa-8ab0-c952ebef2dfd.jsonl"  # "Fix double submit on login form"
LINEAR_ID = "019cadd3-8790-76fa-8ab0-c952ebef2dfd"
BRANCHES = "019cb402-3c88-737c-a54e-8f5201941e04.jsonl"


def shown_paths(window: MainWindow) -> list[str]:
    proxy = window.proxy
    return [Path(s.path).name for row in range(proxy.rowCount()) if (s := proxy.summary_at(row)) is not None]


def select(window: MainWindow, name: str) -> None:
    model, proxy = window.list_model, window.proxy
    index = proxy.mapFromSource(model.index_of(str(Path(window.catalogue.roots[0]) / name)))
    assert index.isValid(), name
    window.table.selectionModel().clearSelection()
    window.table.selectRow(index.row())
    window.registry.update()


def trigger(qtbot, window: MainWindow, name: str) -> None:
    action = window.registry[name]
    assert action.isEnabled(), name
    with qtbot.waitSignal(window.notes.notes_written, timeout=TIMEOUT):
        action.trigger()


def cell(window: MainWindow, name: str, role: int, column: int = SessionColumn.TITLE) -> object:
    model = window.list_model
    return model.data(model.index(model.row_of(str(Path(window.catalogue.roots[0]) / name)), column), role)


def snapshot(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir())}


def test_archive_hides_the_row_show_archived_brings_it_back_marked(
    qtbot, qtmodeltester, window: MainWindow, sessions: Path
) -> None:
    before = snapshot(sessions)
    with qtbot.waitSignal(window.context.session_loaded, timeout=TIMEOUT):  # its status line comes first
        select(window, LINEAR)
    assert not window.registry["session.unarchive"].isEnabled()
    trigger(qtbot, window, "session.archive")
    assert LINEAR not in shown_paths(window) and window.list_model.row_of(str(sessions / LINEAR)) >= 0
    assert Notes().get(LINEAR_ID).archived and Notes().get(LINEAR_ID).path == str(sessions / LINEAR)
    assert "Archived “Fix double submit on login form”." == window.statusBar().currentMessage()
    window.registry["view.show_archived"].trigger()
    assert LINEAR in shown_paths(window)
    font = cell(window, LINEAR, Qt.ItemDataRole.FontRole)
    assert isinstance(font, QFont) and font.italic()
    assert cell(window, LINEAR, Qt.ItemDataRole.ForegroundRole, SessionColumn.PROJECT) == ARCHIVED_COLOR
    icon = cell(window, LINEAR, Qt.ItemDataRole.DecorationRole)
    assert isinstance(icon, QIcon) and not icon.isNull()
    assert "<b>Archived</b>" in str(cell(window, LINEAR, Qt.ItemDataRole.ToolTipRole))
    assert cell(window, LINEAR, Role.NOTE).archived  # type: ignore[union-attr]
    qtmodeltester.check(window.list_model)
    qtmodeltester.check(window.proxy)
    select(window, LINEAR)
    trigger(qtbot, window, "session.unarchive")
    window.registry["view.show_archived"].trigger()  # off again: the row stays, it is not archived now
    font = cell(window, LINEAR, Qt.ItemDataRole.FontRole)
    assert LINEAR in shown_paths(window) and isinstance(font, QFont) and not font.italic()  # bold: named
    assert snapshot(sessions) == before


def test_show_archived_is_remembered(qtbot, window: MainWindow, sessions: Path, tmp_path: Path) -> None:
    window.registry["view.show_archived"].trigger()
    window.close()
    again = make_window(qtbot, [sessions], tmp_path / "catalogue")
    assert again.registry["view.show_archived"].isChecked() and again.proxy.show_archived()


def test_a_pinned_session_stays_at_the_top_whatever_the_order(
    qtbot, qtmodeltester, window: MainWindow, sessions: Path
) -> None:
    last = shown_paths(window)[-1]
    select(window, last)
    trigger(qtbot, window, "session.pin")
    assert shown_paths(window)[0] == last
    for column in (SessionColumn.TITLE, SessionColumn.COST, SessionColumn.MODIFIED):
        for order in (Qt.SortOrder.AscendingOrder, Qt.SortOrder.DescendingOrder):
            window.table.sortByColumn(column, order)
            assert shown_paths(window)[0] == last, (column, order)
    window.thread_forks.setChecked(True)
    assert shown_paths(window)[0] == last
    qtmodeltester.check(window.list_model)
    select(window, last)
    trigger(qtbot, window, "session.unpin")
    window.thread_forks.setChecked(False)
    window.table.sortByColumn(SessionColumn.MODIFIED, Qt.SortOrder.DescendingOrder)
    assert shown_paths(window)[-1] == last


def test_tags_editor_then_tag_filter_and_the_palette(qtbot, window: MainWindow, sessions: Path) -> None:
    before = snapshot(sessions)
    select(window, LINEAR)
    dialog = window.notes.edit_tags()
    assert dialog is not None and dialog.windowTitle() == "Tags of “Fix double submit on login form”"
    dialog.new_tags.setText("auth, needs review,")
    with qtbot.waitSignal(window.notes.notes_written, timeout=TIMEOUT):
        dialog.accept()
    assert Notes().get(LINEAR_ID).tags == ("auth", "needs review")
    assert "Tags: auth, needs review" in str(cell(window, LINEAR, Qt.ItemDataRole.ToolTipRole))
    total = window.proxy.rowCount()
    window.filter_edit.setText("tag:AUTH")
    assert shown_paths(window) == [LINEAR]
    window.filter_edit.setText('login tag:"needs review"')
    assert shown_paths(window) == [LINEAR]
    window.filter_edit.setText("tag:nobody")
    assert shown_paths(window) == []
    window.filter_edit.clear()
    assert window.proxy.rowCount() == total
    palette = window.help.show_palette()
    qtbot.addWidget(palette)
    texts = {c.text: c.hint for c in palette.shown()}
    assert texts["Tag: auth"] == "1 session" and "Tag: needs review" in texts
    palette.edit.setText("needs review")
    assert palette.shown()[0].text == "Tag: needs review"
    palette.run_current()
    assert window.filter_edit.text() == 'tag:"needs review"' and shown_paths(window) == [LINEAR]
    # Untick one tag in the editor: it goes, the other stays.
    dialog = window.notes.edit_tags()
    assert dialog is not None
    items = {dialog.tags.item(i).text(): dialog.tags.item(i) for i in range(dialog.tags.count())}
    assert all(item.checkState() == Qt.CheckState.Checked for item in items.values())
    items["auth"].setCheckState(Qt.CheckState.Unchecked)
    with qtbot.waitSignal(window.notes.notes_written, timeout=TIMEOUT):
        dialog.accept()
    assert Notes().get(LINEAR_ID).tags == ("needs review",)
    assert snapshot(sessions) == before


def test_a_tag_that_is_no_tag_is_said_in_the_editor_which_stays_open(qtbot, window: MainWindow) -> None:
    select(window, LINEAR)
    dialog = window.notes.edit_tags()
    assert dialog is not None
    qtbot.addWidget(dialog)
    dialog.new_tags.setText("fine, bad\u202etag")
    dialog.accept()
    assert dialog.isVisible() and "control or invisible characters" in dialog.problem.text()
    assert not Notes().path.exists()
    dialog.reject()


def test_notes_written_elsewhere_show_while_the_window_is_open(
    qtbot, window: MainWindow, sessions: Path
) -> None:
    assert LINEAR in shown_paths(window)
    Notes().set_flags([SessionRef(LINEAR_ID)], archived=True)  # as `prime-sessions archive` does
    qtbot.waitUntil(lambda: LINEAR not in shown_paths(window), timeout=TIMEOUT)


def test_an_unreadable_notes_file_lists_every_session_and_says_why(
    qtbot, sessions: Path, tmp_path: Path, _private_notes: Path
) -> None:
    (_private_notes / "notes.sqlite3").write_bytes(b"not a database\n" * 50)
    window = make_window(qtbot, [sessions], tmp_path / "catalogue")
    qtbot.waitUntil(lambda: "Cannot read the notes" in window.statusBar().currentMessage(), timeout=TIMEOUT)
    assert len(shown_paths(window)) == len(list(sessions.glob("*.jsonl")))


@pytest.mark.parametrize(
    ("text", "words", "tags"),
    [
        ("login", ["login"], []),
        ("tag:Auth login", ["login"], ["auth"]),
        ('tag:"needs  review" x', ["x"], ["needs review"]),
        ('TAG:"open', [], ["open"]),
        ("tag: alone", ["alone"], []),
        ("mytag:x", ["mytag:x"], []),
    ],
)
def test_filter_text_words_and_tags(text: str, words: list[str], tags: list[str]) -> None:
    assert filter_words(text) == words and filter_tags(text) == tags


def test_the_search_panel_takes_tag_words_too(qtbot, window: MainWindow) -> None:
    def hit_sessions(query: str) -> set[str | None]:
        with qtbot.waitSignal(window.catalogue.search_finished, timeout=TIMEOUT) as blocker:
            window.catalogue.search(query)
        count = blocker.args[0] if blocker.args else 0
        return {hit.sessionId for row in range(count) if (hit := window.search_panel.hit_at(row)) is not None}

    everywhere = hit_sessions("login")
    assert LINEAR_ID in everywhere and len(everywhere) > 1
    Notes().add_tags([SessionRef(LINEAR_ID)], ["Auth"])
    assert hit_sessions("login tag:auth") == {LINEAR_ID}


def _summaries(count: int) -> list:
    from core.session.summary import SessionSummary

    return [
        SessionSummary(f"/s/{n}.jsonl", f"id{n}", "/p", None, None, None, f"2026-01-0{1 + n % 9}", n, f"m{n}")
        for n in range(count)
    ]


def test_new_notes_touch_only_the_rows_whose_notes_changed(qtbot, qtmodeltester) -> None:
    from core.notes import Note
    from gui.models.session_filter_proxy import SessionFilterProxy
    from gui.models.session_list_model import SessionListModel

    model = SessionListModel(_summaries(6))
    proxy = SessionFilterProxy()
    proxy.setSourceModel(model)
    changed: list[tuple[int, int]] = []
    model.dataChanged.connect(lambda first, last, *_roles: changed.append((first.row(), last.row())))
    model.set_notes({"id2": Note("id2", archived=True), "id4": Note("id4", tags=("x",))})
    assert sorted(changed) == [(2, 2), (4, 4)] and proxy.rowCount() == 5
    changed.clear()
    model.set_notes({"id2": Note("id2", archived=True), "id4": Note("id4", tags=("x",))})
    assert changed == []  # the same notes read again: nothing to redraw or filter
    model.set_notes({"id4": Note("id4", tags=("x",)), "id5": Note("id5", pinned=True)})
    assert sorted(changed) == [(2, 2), (5, 5)] and proxy.rowCount() == 6
    assert model.summary_at(0).id == "id5"  # type: ignore[union-attr]  # pinned: at the top
    qtmodeltester.check(model)
    proxy.set_filter_text("tag:X")
    assert proxy.rowCount() == 1
    qtmodeltester.check(proxy)


def test_a_session_opened_from_elsewhere_is_noted_by_its_id(qtbot, window: MainWindow, tmp_path) -> None:
    import shutil

    from tests.conftest import DEMO
    from tests.gui.windows import open_session

    outside = tmp_path / "elsewhere" / "copy.jsonl"  # not listed; its header id is LINEAR's
    outside.parent.mkdir()
    shutil.copyfile(DEMO / LINEAR, outside)
    data = outside.read_bytes()
    open_session(qtbot, window, outside)
    window.table.selectionModel().clearSelection()
    assert window.notes.targets() == [str(outside)]
    trigger(qtbot, window, "session.pin")
    assert Notes().get(LINEAR_ID).pinned and window.notes.note_of(str(outside)).pinned
    assert not window.registry["session.pin"].isEnabled() and window.registry["session.unpin"].isEnabled()
    assert outside.read_bytes() == data
