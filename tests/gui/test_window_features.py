"""Window features: the diagnostics dock, full-text search, actions, recent paths and drops (offscreen)."""

from __future__ import annotations

import os
import shutil
import warnings
from pathlib import Path

import orjson
from PySide6.QtCore import QMimeData, QPoint, QPointF, Qt, QUrl
from PySide6.QtGui import QDragEnterEvent, QDropEvent, QKeySequence

from gui.main_window import MainWindow
from gui.settings import RECENT_LIMIT
from gui.widgets.search_panel import HTML_ROLE, highlight
from tests.gui.windows import TIMEOUT, current_entry_id, make_window, open_session

LINEAR = "019cadd3-8790-76fa-8ab0-c952ebef2dfd.jsonl"  # named "Fix double submit on login form"
BRANCHED = "019cb402-3c88-737c-a54e-8f5201941e04.jsonl"  # has abandoned branches with tool results
ORPHAN_ID = "0rphan01"


def damage(path: Path) -> None:
    """Append an invalid JSON line, an entry whose parent does not exist, then a new leaf."""
    last_id = orjson.loads(path.read_bytes().splitlines()[-1])["id"]
    orphan = {
        "type": "message",
        "id": ORPHAN_ID,
        "parentId": "nosuchid",
        "timestamp": "2026-03-02T10:00:00.000Z",
        "message": {"role": "user", "content": "An orphan about walruses", "timestamp": 1772445600000},
    }
    leaf = {
        "type": "message",
        "id": "aftr0001",
        "parentId": last_id,
        "timestamp": "2026-03-02T10:01:00.000Z",
        "message": {"role": "user", "content": "After the damage", "timestamp": 1772445660000},
    }
    with open(path, "ab") as handle:
        handle.write(b"{not json\n" + orjson.dumps(orphan) + b"\n" + orjson.dumps(leaf) + b"\n")


# ---------------------------------------------------------------------------- diagnostics
def test_a_clean_session_hides_the_diagnostics_panel(qtbot, window: MainWindow, sessions: Path) -> None:
    open_session(qtbot, window, sessions / LINEAR)
    assert window.diagnostics_panel.isHidden()
    assert window.diagnostics_panel.table.rowCount() == 0


def test_a_damaged_session_lists_its_problems(qtbot, window: MainWindow, sessions: Path) -> None:
    damaged = sessions / "damaged.jsonl"
    shutil.copy2(sessions / LINEAR, damaged)
    damage(damaged)
    open_session(qtbot, window, damaged)
    panel = window.diagnostics_panel
    assert panel.isVisible()
    assert window.dockWidgetArea(panel) == Qt.DockWidgetArea.BottomDockWidgetArea
    table = panel.table
    rows = [[table.item(r, c).text() for c in range(4)] for r in range(table.rowCount())]
    assert [row[2] for row in rows] == ["invalid-json", "orphan"]
    assert rows[0][1] == "error" and rows[1][1] == "warning"
    assert int(rows[0][0]) == int(rows[1][0]) - 1
    assert "not valid JSON" in rows[0][3]
    assert "nosuchid" in rows[1][3]

    # Double-click: the orphan's entry is selected in the tree; a row without an entry does nothing.
    assert current_entry_id(window) != ORPHAN_ID
    table.cellDoubleClicked.emit(0, 3)
    assert current_entry_id(window) != ORPHAN_ID
    table.cellDoubleClicked.emit(1, 3)
    assert current_entry_id(window) == ORPHAN_ID
    assert "walruses" in window.transcript.toPlainText()

    # A clean session hides the panel again.
    open_session(qtbot, window, sessions / LINEAR)
    assert panel.isHidden()


def test_a_diagnostic_reveals_an_entry_hidden_by_the_filter(
    qtbot, window: MainWindow, sessions: Path
) -> None:
    damaged = sessions / "damaged.jsonl"
    shutil.copy2(sessions / LINEAR, damaged)
    damage(damaged)
    open_session(qtbot, window, damaged)
    window.filter_mode.set_mode("labeled")
    assert not window.tree_model.index_for_entry(ORPHAN_ID).isValid()
    window.diagnostics_panel.table.cellDoubleClicked.emit(1, 0)
    assert window.tree_model.filter_mode == "all"
    assert current_entry_id(window) == ORPHAN_ID


def test_a_folder_named_like_a_session_says_why(qtbot, window: MainWindow, sessions: Path, tmp_path) -> None:
    open_session(qtbot, window, sessions / LINEAR)
    folder = tmp_path / "x.jsonl"
    folder.mkdir()
    with qtbot.waitSignal(window.context.load_failed, timeout=TIMEOUT) as blocker:
        window.opened.open(folder)
    sentence = blocker.args[0]
    assert sentence == f"{folder} is a folder, not a session file."
    assert window.transcript.toPlainText().strip() == sentence
    assert window.statusBar().currentMessage() == sentence
    # The app keeps working: another session opens.
    open_session(qtbot, window, sessions / BRANCHED)
    assert window.opened.session.path == str(sessions / BRANCHED)
    assert window.tree.currentIndex().isValid()


def test_a_deleted_file_says_why(qtbot, window: MainWindow, sessions: Path) -> None:
    doomed = sessions / LINEAR
    doomed.unlink()
    with qtbot.waitSignal(window.context.load_failed, timeout=TIMEOUT) as blocker:
        assert window.files.open_path(doomed)
    sentence = blocker.args[0]
    assert str(doomed) in sentence and "Error" not in sentence and "\n" not in sentence
    assert sentence in window.transcript.toPlainText()
    assert str(doomed) not in window.files.recent_paths  # only paths that exist are remembered
    open_session(qtbot, window, sessions / BRANCHED)
    assert window.opened.session is not None


# ---------------------------------------------------------------------------- search
def search(qtbot, window: MainWindow, query: str) -> int:
    window.search_edit.setText(query)
    with qtbot.waitSignal(window.catalogue.search_finished, timeout=TIMEOUT) as blocker:
        window.search_edit.returnPressed.emit()
    return blocker.args[0]


def test_highlight_escapes_and_bolds_the_spans() -> None:
    assert highlight("a «<b>» & «c»", [(2, 5), (8, 9)]) == "a <b>&lt;b&gt;</b> &amp; <b>c</b>"
    assert highlight("no marks <i>", []) == "no marks &lt;i&gt;"


def test_a_search_hit_opens_its_session_and_entry(qtbot, window: MainWindow, sessions: Path) -> None:
    count = search(qtbot, window, "twice")
    assert count >= 1
    results = window.search_panel.results
    assert results.count() == count
    first = window.search_panel.hit_at(0)
    rich = results.item(0).data(HTML_ROLE)
    assert "<b>twice</b>" in rich
    assert "«" not in rich
    assert window.statusBar().currentMessage() == f"{count} {'hit' if count == 1 else 'hits'} for twice"

    with qtbot.waitSignal(window.context.session_loaded, timeout=TIMEOUT):
        window.search_panel.activate(0)
    assert window.opened.session.path == os.path.abspath(first.path)
    assert current_entry_id(window) == first.entryId
    assert window.tree.currentIndex() == window.tree_model.index_for_entry(first.entryId)
    assert "twice" in window.transcript.toPlainText()
    selected = window.proxy.summary_at(window.table.currentIndex().row())
    assert selected is not None and selected.path == first.path


def test_a_hit_on_an_abandoned_branch_is_marked_and_revealed(
    qtbot, window: MainWindow, sessions: Path
) -> None:
    assert search(qtbot, window, '"wrote 630 bytes"') >= 1
    panel = window.search_panel
    row = next(r for r in range(panel.results.count()) if not panel.hit_at(r).onCurrentBranch)
    hit = panel.hit_at(row)
    assert "abandoned branch" in panel.results.item(row).data(HTML_ROLE)
    assert all(
        "abandoned branch" not in panel.results.item(r).data(HTML_ROLE)
        for r in range(panel.results.count())
        if panel.hit_at(r).onCurrentBranch
    )
    open_session(qtbot, window, Path(hit.path))
    window.filter_mode.set_mode("user")
    assert not window.tree_model.index_for_entry(hit.entryId).isValid()
    panel.activate(row)  # the session is already open: the entry is selected at once
    assert window.tree_model.filter_mode == "all"
    assert current_entry_id(window) == hit.entryId
    assert "630 bytes" in window.transcript.toPlainText()


def test_an_invalid_query_says_why(qtbot, window: MainWindow) -> None:
    assert search(qtbot, window, "twice") >= 1
    assert search(qtbot, window, '"unbalanced') == -1
    message = window.statusBar().currentMessage()
    assert message and "QueryError" not in message and "\n" not in message
    panel = window.search_panel  # the whole sentence is in the results pane, where the hits were
    assert panel.results.count() == 1 and panel.hit_at(0) is None
    assert panel.results.item(0).toolTip() == message
    assert search(qtbot, window, "   ") == -1
    assert window.statusBar().currentMessage() == "The search is empty; type one or more words."


def test_hits_are_compact_rows_and_one_click_opens(qtbot, window: MainWindow) -> None:
    from PySide6.QtCore import QPoint

    assert search(qtbot, window, "the") >= 8
    panel = window.search_panel
    window.resize(1400, 900)
    panel.setFixedHeight(300)
    qtbot.waitUntil(lambda: panel.results.viewport().height() > 200, timeout=TIMEOUT)
    rows = panel.results.visualItemRect(panel.results.item(0)).height()
    assert panel.results.viewport().height() // rows >= 6  # about seven hits in view, not two
    first = panel.hit_at(0)
    where = panel.results.visualItemRect(panel.results.item(0)).center()
    with qtbot.waitSignal(window.context.session_loaded, timeout=TIMEOUT):
        qtbot.mouseClick(panel.results.viewport(), Qt.MouseButton.LeftButton, pos=QPoint(where))
    assert window.opened.session.path == os.path.abspath(first.path)
    panel.results.setFocus()
    qtbot.keyClick(panel.results, Qt.Key.Key_Down)
    assert panel.results.currentRow() == 1
    second = panel.hit_at(1)
    with qtbot.waitSignal(panel.hit_activated, timeout=TIMEOUT) as chosen:
        qtbot.keyClick(panel.results, Qt.Key.Key_Return)
    assert chosen.args[0] is second


def test_a_stale_search_is_dropped(qtbot, window: MainWindow) -> None:
    window.catalogue.search("twice")
    window.catalogue.search("regression")
    qtbot.waitUntil(lambda: not window.runner.busy, timeout=TIMEOUT)
    hits = [window.search_panel.hit_at(r) for r in range(window.search_panel.results.count())]
    assert hits and all("regression" in h.snippet.lower() for h in hits)


# ---------------------------------------------------------------------------- actions
def test_actions_have_their_shortcuts(window: MainWindow) -> None:
    actions = window.registry
    assert actions["file.open"].shortcut() == QKeySequence(QKeySequence.StandardKey.Open)
    assert actions["file.refresh"].shortcut() == QKeySequence(QKeySequence.StandardKey.Refresh)
    assert actions["file.find"].shortcut() == QKeySequence(QKeySequence.StandardKey.Find)
    assert actions["file.search"].shortcut() == QKeySequence("Ctrl+Shift+F")
    assert actions["go.leaf"].shortcut() == QKeySequence("Ctrl+L")
    assert actions["file.quit"].shortcut() == QKeySequence("Ctrl+Q")
    file_menu = window.menus["File"]
    assert file_menu.title() == "&File"
    assert window.files.recent_menu.menuAction() in file_menu.actions()


def test_find_focuses_the_boxes_and_jump_selects_the_leaf(qtbot, window: MainWindow, sessions: Path) -> None:
    window.activateWindow()
    qtbot.waitUntil(window.isActiveWindow, timeout=TIMEOUT)
    window.registry["file.find"].trigger()
    qtbot.waitUntil(lambda: window.filter_edit.hasFocus(), timeout=TIMEOUT)
    window.registry["file.search"].trigger()
    qtbot.waitUntil(lambda: window.search_edit.hasFocus(), timeout=TIMEOUT)

    open_session(qtbot, window, sessions / LINEAR)
    first = window.opened.session.entries[1].id
    assert window.opened.select_entry(first) or window.opened.reveal_entry(first)
    assert current_entry_id(window) != window.opened.session.leaf_id
    window.registry["go.leaf"].trigger()
    assert current_entry_id(window) == window.opened.session.leaf_id


def test_refresh_reads_the_catalogue_and_the_open_session(qtbot, window: MainWindow, sessions: Path) -> None:
    open_session(qtbot, window, sessions / LINEAR)
    first = window.opened.session.entries[1].id
    assert window.opened.reveal_entry(first)
    old = window.opened.session
    damage(sessions / LINEAR)
    with (
        qtbot.waitSignal(window.catalogue.refresh_finished, timeout=TIMEOUT),
        qtbot.waitSignal(window.context.session_loaded, timeout=TIMEOUT),
    ):
        window.registry["file.refresh"].trigger()
    assert window.opened.session is not old
    assert window.opened.session.get(ORPHAN_ID) is not None
    assert current_entry_id(window) == first  # the selection survives the reload
    assert window.diagnostics_panel.isVisible()


def test_open_path_with_a_file_and_a_folder(
    qtbot, window: MainWindow, sessions: Path, tmp_path: Path
) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    shutil.copy2(sessions / LINEAR, elsewhere / LINEAR)

    with qtbot.waitSignal(window.context.session_loaded, timeout=TIMEOUT):
        assert window.files.open_path(elsewhere / LINEAR)
    qtbot.waitUntil(lambda: not window.catalogue.refreshing, timeout=TIMEOUT)
    assert window.catalogue.roots == [elsewhere]  # a file outside the listed folders lists its own folder
    assert window.opened.session.path == str(elsewhere / LINEAR)
    qtbot.waitUntil(lambda: window.table.currentIndex().isValid(), timeout=TIMEOUT)
    assert window.proxy.summary_at(window.table.currentIndex().row()).path == str(elsewhere / LINEAR)

    with qtbot.waitSignal(window.catalogue.refresh_finished, timeout=TIMEOUT):
        assert window.files.open_path(sessions)
    assert window.catalogue.roots == [sessions]
    assert window.list_model.rowCount() == 7

    with qtbot.waitSignal(window.context.session_loaded, timeout=TIMEOUT):
        assert window.files.open_path(sessions / BRANCHED)  # inside the listed folder: the list stays
    assert window.catalogue.roots == [sessions]
    assert window.opened.session.path == str(sessions / BRANCHED)

    assert not window.files.open_path(tmp_path / "nothing-here")
    assert "neither a folder nor a session file" in window.statusBar().currentMessage()
    assert window.files.recent_paths == [str(sessions / BRANCHED), str(sessions), str(elsewhere / LINEAR)]


def test_the_recent_list_is_ordered_capped_and_pruned(qtbot, window: MainWindow, tmp_path: Path) -> None:
    folders = []
    for i in range(RECENT_LIMIT + 2):
        folder = tmp_path / f"folder{i:02}"
        folder.mkdir()
        folders.append(str(folder))
        window.files.open_path(folder)
    qtbot.waitUntil(lambda: not window.catalogue.refreshing, timeout=TIMEOUT)
    expected = list(reversed(folders))[:RECENT_LIMIT]
    assert window.files.recent_paths == expected
    menu = window.files.recent_menu
    assert [a.text() for a in menu.actions()] == expected

    window.files.open_path(folders[5])  # opened again: moves to the front, no duplicate
    assert window.files.recent_paths[0] == folders[5]
    assert window.files.recent_paths.count(folders[5]) == 1
    assert len(window.files.recent_paths) == RECENT_LIMIT

    shutil.rmtree(folders[5])  # a vanished path is dropped
    assert folders[5] not in window.files.recent_paths
    # A new window reads the list back from the settings.
    other = make_window(qtbot, [tmp_path / "empty"], tmp_path / "catalogue2")
    assert [a.text() for a in other.files.recent_menu.actions()] == window.files.recent_paths

    menu.aboutToShow.emit()  # the menu is filled again before it opens
    assert [a.text() for a in menu.actions()] == window.files.recent_paths
    with qtbot.waitSignal(window.catalogue.refresh_finished, timeout=TIMEOUT):
        menu.actions()[0].trigger()  # a Recent entry opens its path
    assert window.catalogue.roots == [Path(window.files.recent_paths[0])]
    qtbot.waitUntil(
        lambda: not window.catalogue.refreshing and not other.catalogue.refreshing, timeout=TIMEOUT
    )


def drop(window: MainWindow, urls: list[QUrl]) -> tuple[bool, bool]:
    """Send a synthetic drag-enter and drop with ``urls``; returns (enter accepted, drop accepted)."""
    mime = QMimeData()
    mime.setUrls(urls)
    action = Qt.DropAction.CopyAction
    buttons, modifiers = Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier
    with warnings.catch_warnings():  # PySide6 flags the only constructor as deprecated
        warnings.simplefilter("ignore", DeprecationWarning)
        enter = QDragEnterEvent(QPoint(10, 10), action, mime, buttons, modifiers)
    enter.setAccepted(False)
    window.dragEnterEvent(enter)
    dropped = QDropEvent(QPointF(10, 10), action, mime, buttons, modifiers)
    dropped.setAccepted(False)
    window.dropEvent(dropped)
    return enter.isAccepted(), dropped.isAccepted()


def test_dropping_files_and_folders(qtbot, window: MainWindow, sessions: Path, tmp_path: Path) -> None:
    assert window.acceptDrops()
    text = tmp_path / "notes.txt"
    text.write_text("not a session")
    assert drop(window, [QUrl.fromLocalFile(str(text))]) == (False, False)
    assert drop(window, [QUrl("https://example.com/a.jsonl")]) == (False, False)
    assert window.opened.session is None

    with qtbot.waitSignal(window.context.session_loaded, timeout=TIMEOUT):
        assert drop(window, [QUrl.fromLocalFile(str(sessions / LINEAR))]) == (True, True)
    assert window.opened.session.path == str(sessions / LINEAR)

    other = tmp_path / "other"
    other.mkdir()
    with qtbot.waitSignal(window.catalogue.refresh_finished, timeout=TIMEOUT):
        assert drop(window, [QUrl.fromLocalFile(str(other))]) == (True, True)
    assert window.catalogue.roots == [other]
    assert window.files.recent_paths[:2] == [str(other), str(sessions / LINEAR)]


def test_the_theme_can_be_forced_and_follows_back_the_system(qtbot, sessions: Path, tmp_path: Path) -> None:
    from PySide6.QtGui import QGuiApplication, QPalette

    from core.render import stylesheet
    from gui.theme import is_dark

    window = make_window(qtbot, [sessions], tmp_path / "catalogue")
    open_session(qtbot, window, sessions / LINEAR)
    base = QGuiApplication.palette().color(QPalette.ColorRole.Base)
    assert not is_dark() and window.view.theme_actions["system"].isChecked()
    window.view.set_theme("dark")
    try:
        assert is_dark() and window.view.theme_actions["dark"].isChecked()
        # the message view re-rendered with the dark colours (its default stylesheet is the dark one)
        dark = stylesheet(True)  # palette changes reach widgets as posted events
        qtbot.waitUntil(lambda: window.transcript.document().defaultStyleSheet() == dark, timeout=2000)
        window.close()
        again = make_window(qtbot, [sessions], tmp_path / "catalogue")  # remembered in the settings
        assert again.view.theme_actions["dark"].isChecked() and is_dark()
        again.view.set_theme("light")
        assert not is_dark()
        light = stylesheet(False)
        qtbot.waitUntil(lambda: again.transcript.document().defaultStyleSheet() == light, timeout=2000)
    finally:
        window.view.set_theme("system")
    assert QGuiApplication.palette().color(QPalette.ColorRole.Base) == base and not is_dark()


def test_no_two_window_actions_share_a_shortcut(window: MainWindow) -> None:
    """The feature modules (editing, export, diff) add actions; a shared shortcut would do nothing in Qt."""
    from PySide6.QtGui import QAction

    owners: dict[str, list[str]] = {}
    for action in window.findChildren(QAction):
        for sequence in action.shortcuts():
            if not sequence.isEmpty() and action.shortcutContext() != Qt.ShortcutContext.WidgetShortcut:
                owners.setdefault(sequence.toString(), []).append(action.text())
    assert owners, "the window has no shortcuts at all"
    shared = {key: texts for key, texts in owners.items() if len(texts) > 1}
    assert not shared, f"shortcuts used by more than one action: {shared}"


def test_a_hit_row_stays_two_lines_with_a_long_title_in_a_narrow_panel(qtbot) -> None:
    from core.catalogue import Hit
    from gui.widgets.search_panel import SearchPanel

    panel = SearchPanel()
    qtbot.addWidget(panel)
    panel.resize(320, 300)
    panel.show()
    hit = Hit(
        sessionId="s",
        entryId="e1",
        path="/x/s.jsonl",
        snippet="a " * 400 + "needle",
        spans=[(800, 806)],
        onCurrentBranch=False,
        role="branch_summary",
        tools="",
        model="",
        timestamp="2026-03-03T14:28:00Z",
        cwd="/x",
        name=None,
        rank=0.0,
    )
    title = "I need to add caching to the /api/products endpoint. What are my options? " * 3
    panel.set_hits([hit], lambda _hit: title)
    results = panel.results
    index = results.model().index(0, 0)
    row = results.visualRect(index)
    doc = panel.delegate._doc(index, row.width(), results.palette(), results.font())
    height = doc.size().height()  # lays the document out
    # Two lines, both inside the row: the title is elided instead of wrapping onto the snippet's line,
    # and the date, role and branch mark still fit after it.
    lines = sum(doc.findBlockByNumber(n).layout().lineCount() for n in range(doc.blockCount()))
    assert lines == 2
    assert height <= row.height() + 1
    first_line = doc.toPlainText().replace("\u2028", "\n").split("\n")[0]
    assert "…" in first_line and first_line.endswith("abandoned branch")
