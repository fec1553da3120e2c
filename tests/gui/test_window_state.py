"""State that never goes stale: what the window shows always belongs to what is open (issue 17)."""

from __future__ import annotations

import shutil
from pathlib import Path

from PySide6.QtCore import QItemSelectionModel

from core import load_session
from gui.main_window import LIST_WIDTH, MainWindow
from tests.gui.windows import TIMEOUT, open_session
from tests.helpers import append_bytes

LINEAR = "019cadd3-8790-76fa-8ab0-c952ebef2dfd.jsonl"  # named "Fix double submit on login form"
BRANCHED = "019cb402-3c88-737c-a54e-8f5201941e04.jsonl"
TARGET = "5f6ba966"  # an entry of LINEAR without a label


def listed_paths(window: MainWindow) -> list[str]:
    return [window.proxy.summary_at(row).path for row in range(window.proxy.rowCount())]


def selected_paths(window: MainWindow) -> list[str]:
    return window.context.selected_paths()


def choose_row(qtbot, window: MainWindow, path: Path) -> None:
    """Click-like: make ``path``'s row current, as the user does, and wait for its session."""
    row = listed_paths(window).index(str(path))
    with qtbot.waitSignal(window.context.session_loaded, timeout=TIMEOUT):
        window.table.selectionModel().setCurrentIndex(
            window.proxy.index(row, 0),
            QItemSelectionModel.SelectionFlag.ClearAndSelect | QItemSelectionModel.SelectionFlag.Rows,
        )


def settle(qtbot, window: MainWindow) -> None:
    """Wait until a row change has had its turn to open a session (the catalogue defers it one turn)."""
    qtbot.waitUntil(lambda: not window.catalogue._open_later.isActive(), timeout=TIMEOUT)
    qtbot.waitUntil(lambda: not window.runner.busy, timeout=TIMEOUT)


def test_opening_another_folder_resets_the_tree_message_title_and_problems(
    qtbot, window: MainWindow, sessions: Path, tmp_path: Path
) -> None:
    damaged = sessions / "damaged.jsonl"
    shutil.copy2(sessions / LINEAR, damaged)
    append_bytes(damaged, b"{not json\n")
    open_session(qtbot, window, damaged)
    assert window.diagnostics_panel.isVisible() and window.tree_model.rowCount() > 0
    assert window.windowTitle().startswith("Fix double submit on login form")
    other = tmp_path / "other"
    other.mkdir()
    shutil.copy2(sessions / BRANCHED, other / BRANCHED)
    with qtbot.waitSignal(window.catalogue.refresh_finished, timeout=TIMEOUT):
        assert window.files.open_path(other)
    assert window.opened.session is None and window.tree_model.session is None
    assert window.tree_model.rowCount() == 0
    assert window.windowTitle() == "Prime Sessions"
    assert window.diagnostics_panel.isHidden() and window.diagnostics_panel.table.rowCount() == 0
    assert window.transcript.toPlainText().strip() == "Select a session on the left."
    assert listed_paths(window) == [str(other / BRANCHED)]


def test_typing_in_the_filter_never_opens_another_session(qtbot, window: MainWindow, sessions: Path) -> None:
    choose_row(qtbot, window, sessions / LINEAR)
    opened = window.opened.session
    window.filter_edit.setText("tokenizer")  # hides the open session: the rows left are others
    settle(qtbot, window)
    assert str(sessions / LINEAR) not in listed_paths(window) and listed_paths(window)
    assert window.opened.session is opened and window.opened.shown_path == str(sessions / LINEAR)
    assert selected_paths(window) == []  # nothing else looks open
    window.filter_edit.setText("login")  # the open session is listed again, with others
    settle(qtbot, window)
    assert window.opened.session is opened
    assert selected_paths(window) == [str(sessions / LINEAR)]
    window.filter_edit.clear()
    settle(qtbot, window)
    assert window.opened.session is opened and selected_paths(window) == [str(sessions / LINEAR)]


def test_the_list_highlight_follows_the_open_session(
    qtbot, window: MainWindow, sessions: Path, tmp_path: Path
) -> None:
    choose_row(qtbot, window, sessions / LINEAR)
    outside = tmp_path / "elsewhere" / BRANCHED
    outside.parent.mkdir()
    shutil.copy2(sessions / BRANCHED, outside)
    open_session(qtbot, window, outside)  # a file that is not in the list (a search hit, a drop...)
    assert selected_paths(window) == []
    open_session(qtbot, window, sessions / BRANCHED)  # a listed one opened without the list
    assert selected_paths(window) == [str(sessions / BRANCHED)]


def test_undo_and_redo_follow_the_open_session(qtbot, window: MainWindow, sessions: Path) -> None:
    editing = window.editing
    open_session(qtbot, window, sessions / LINEAR)
    assert editing.set_label(TARGET, "first")
    assert editing.undo_action.text().startswith("&Undo Label")
    open_session(qtbot, window, sessions / BRANCHED)
    assert not editing.undo_action.isEnabled() and not editing.redo_action.isEnabled()
    assert editing.rename(str(sessions / BRANCHED), "Second")
    editing.undo_stack.undo()
    assert editing.redo_action.text().startswith("&Redo Rename")
    open_session(qtbot, window, sessions / LINEAR)  # back: its own label edit, not the other's rename
    assert editing.undo_action.text().startswith("&Undo Label") and not editing.redo_action.isEnabled()
    editing.undo_stack.undo()
    assert load_session(sessions / LINEAR).label_for(TARGET) is None
    assert load_session(sessions / BRANCHED).name is None  # its rename was undone on its own stack


def test_a_rename_of_a_session_that_is_not_open_goes_on_its_own_stack(
    qtbot, window: MainWindow, sessions: Path
) -> None:
    open_session(qtbot, window, sessions / LINEAR)
    with qtbot.waitSignal(window.context.session_changed, timeout=TIMEOUT):  # written in a worker
        assert window.editing.rename(str(sessions / BRANCHED), "Renamed from the list")
    assert window.editing.undo_stack.count() == 0  # the open session's Undo does not name it
    assert window.editing.stack_for(str(sessions / BRANCHED)).count() == 1


def test_the_window_title_is_the_sessions_title(qtbot, window: MainWindow, sessions: Path) -> None:
    open_session(qtbot, window, sessions / LINEAR)
    assert window.windowTitle() == "Fix double submit on login form — Prime Sessions"
    unnamed = next(p for p in sorted(sessions.glob("*.jsonl")) if not load_session(p).name)
    open_session(qtbot, window, unnamed)
    first = " ".join(load_session(unnamed).first_message.split())
    assert window.windowTitle().removesuffix(" — Prime Sessions") in (first, first[:79] + "…")


def test_the_list_columns_fit_the_pane_without_a_horizontal_scroll_bar(
    qtbot, window: MainWindow, sessions: Path
) -> None:
    from gui.models.session_list_model import SessionColumn

    table, header = window.table, window.table.horizontalHeader()

    def shown_width() -> int:
        return sum(header.sectionSize(c) for c in range(header.count()) if not table.isColumnHidden(c))

    for width in (1100, 1600, 2400):
        window.resize(width, 800)
        qtbot.waitUntil(lambda: table.viewport().width() > 0, timeout=TIMEOUT)
        table.fit_columns()
        assert shown_width() <= table.viewport().width() + 1  # the title stretches into what is left
        assert header.sectionSize(SessionColumn.TITLE) >= table.TITLE_MIN - 1
        assert not table.isColumnHidden(SessionColumn.PROJECT) and not table.isColumnHidden(
            SessionColumn.MODIFIED
        )
    # A wider window widens the transcript, not the list; a list dragged wide shows every column.
    sizes = window.splitter.sizes()
    window.splitter.setSizes([900, sizes[1], sum(sizes) - 900 - sizes[1]])
    qtbot.waitUntil(lambda: not table.isColumnHidden(SessionColumn.MESSAGES), timeout=TIMEOUT)
    table.fit_columns()
    assert not any(table.isColumnHidden(c) for c in range(header.count()))
    window.resize(1100, 680)
    window.splitter.setSizes([LIST_WIDTH, 200, 500])
    qtbot.waitUntil(lambda: table.isColumnHidden(SessionColumn.MESSAGES), timeout=TIMEOUT)
    project = window.proxy.index(0, SessionColumn.PROJECT)
    cwd = window.proxy.summary_at(0).cwd
    assert window.proxy.data(project, 3) == f"<p style='white-space:pre'>{cwd}</p>"  # 3: ToolTipRole


def test_a_file_that_is_not_a_session_gets_one_sentence(qtbot, window: MainWindow, sessions: Path) -> None:
    binary = sessions / "picture.jsonl"
    binary.write_bytes(bytes(range(256)) * 40 + b"\n" + b"\x89PNG\r\n\x1a\n" * 17)
    open_session(qtbot, window, binary)
    panel = window.diagnostics_panel
    assert panel.isVisible() and panel.table.rowCount() == 1  # one sentence, not a row per line
    sentence = "picture.jsonl is not a session file: no line is a JSON object."
    row_text = " ".join(
        panel.table.item(0, column).text()
        for column in range(panel.table.columnCount())
        if panel.table.item(0, column) is not None
    )
    assert sentence in row_text
    assert window.tree_model.rowCount() == 0
