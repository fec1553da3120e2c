"""Label editing starts only when asked for, and Ctrl+Z after the label dialog undoes it (issue 26, item 2).

A second click on the selected tree row started the in-place editor: the row went blank and the next
shortcuts (Ctrl+E, Ctrl+Z, Ctrl+Shift+R) were typed into it. Now only F2, a double-click and the menu
start it; after the label dialog the focus is on the entry labelled, so Ctrl+Z undoes the label wherever
the dialog was asked for from.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QAbstractItemView, QApplication, QLineEdit

import gui.controllers.editing as editing_module
from gui.main_window import MainWindow
from tests.gui.windows import TIMEOUT, open_session

LINEAR = "019cadd3-8790-76fa-8ab0-c952ebef2dfd.jsonl"
TARGET = "5f6ba966"  # an assistant reply without a label


def _activate(qtbot, window: MainWindow) -> None:
    window.activateWindow()
    qtbot.waitUntil(window.isActiveWindow, timeout=TIMEOUT)


def _editing(tree: QAbstractItemView) -> bool:
    return tree.state() == QAbstractItemView.State.EditingState


def test_a_click_on_the_selected_row_never_edits_f2_and_a_double_click_do(
    qtbot, window: MainWindow, sessions: Path
) -> None:
    tree = window.tree
    triggers = tree.editTriggers()
    assert not triggers & QAbstractItemView.EditTrigger.SelectedClicked
    assert not triggers & QAbstractItemView.EditTrigger.AnyKeyPressed
    open_session(qtbot, window, sessions / LINEAR)
    assert window.opened.select_entry(TARGET)
    _activate(qtbot, window)
    tree.setFocus()
    index = tree.currentIndex()
    qtbot.keyClick(tree, Qt.Key.Key_F2)
    qtbot.waitUntil(lambda: _editing(tree), timeout=TIMEOUT)
    editor = tree.indexWidget(index)
    assert isinstance(editor, QLineEdit)
    assert editor.text() == "" and editor.placeholderText().startswith("Label for this entry")  # not blank
    qtbot.keyClick(editor, Qt.Key.Key_Escape)
    qtbot.waitUntil(lambda: not _editing(tree), timeout=TIMEOUT)
    centre = tree.visualRect(index).center()
    qtbot.mouseClick(tree.viewport(), Qt.MouseButton.LeftButton, pos=centre)
    assert not _editing(tree)
    qtbot.mouseDClick(tree.viewport(), Qt.MouseButton.LeftButton, pos=centre)
    qtbot.waitUntil(lambda: _editing(tree), timeout=TIMEOUT)
    assert isinstance(tree.indexWidget(index), QLineEdit)


@pytest.mark.parametrize("asked_from", ["filter box", "search box", "tree"])
def test_ctrl_z_after_the_label_dialog_undoes_the_label_wherever_the_focus_was(
    qtbot, window: MainWindow, sessions: Path, monkeypatch: pytest.MonkeyPatch, asked_from: str
) -> None:
    monkeypatch.setattr(editing_module, "ask_text", lambda *_args: ("from the dialog", True))
    open_session(qtbot, window, sessions / LINEAR)
    assert window.opened.select_entry(TARGET)
    _activate(qtbot, window)
    box = {"filter box": window.filter_edit, "search box": window.search_edit, "tree": window.tree}[
        asked_from
    ]
    box.setFocus()
    if isinstance(box, QLineEdit):
        qtbot.keyClicks(box, "typed")  # the box has typing of its own to undo
    qtbot.waitUntil(box.hasFocus, timeout=TIMEOUT)
    window.editing.label_action.trigger()
    session = window.opened.session
    assert session.label_for(TARGET) == "from the dialog"
    focus = QApplication.focusWidget()
    assert focus is window.tree
    qtbot.keyClick(focus, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    assert session.label_for(TARGET) is None  # the label was undone (a clearing label entry appended)
    if isinstance(box, QLineEdit):
        assert box.text() == "typed"  # and not the box's typing
