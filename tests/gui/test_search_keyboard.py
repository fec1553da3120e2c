"""Search works from the keyboard and its hits never vanish (issue 26, item 5).

Down goes from the box into the hits and Up from the first hit back to the box; Enter opens the highlighted
hit and the focus moves to the message view; a hit row drawn while selected no longer draws blank once
another is clicked; listing another folder clears the hits of the last one.
"""

from __future__ import annotations

import os
from pathlib import Path

from PySide6.QtCore import QPoint, QRect, Qt
from PySide6.QtGui import QImage
from PySide6.QtWidgets import QApplication

from gui.main_window import MainWindow
from tests.gui.test_window_features import search
from tests.gui.windows import TIMEOUT, current_entry_id


def _activate(qtbot, window: MainWindow) -> None:
    window.activateWindow()
    qtbot.waitUntil(window.isActiveWindow, timeout=TIMEOUT)


def test_down_up_and_enter_move_between_the_box_the_hits_and_the_message(qtbot, window: MainWindow) -> None:
    assert search(qtbot, window, "the") >= 3
    panel, edit, results = window.search_panel, window.search_edit, window.search_panel.results
    _activate(qtbot, window)
    edit.setFocus()
    qtbot.waitUntil(edit.hasFocus, timeout=TIMEOUT)
    qtbot.keyClick(edit, Qt.Key.Key_Down)
    assert results.hasFocus() and results.currentRow() == 0
    qtbot.keyClick(results, Qt.Key.Key_Down)
    assert results.currentRow() == 1
    qtbot.keyClick(results, Qt.Key.Key_Up)
    assert results.currentRow() == 0 and results.hasFocus()
    qtbot.keyClick(results, Qt.Key.Key_Up)  # from the first hit: back to the box
    assert edit.hasFocus() and results.currentRow() == 0
    qtbot.keyClick(edit, Qt.Key.Key_Down)
    qtbot.keyClick(results, Qt.Key.Key_Down)
    second = panel.hit_at(1)
    with qtbot.waitSignal(window.context.session_loaded, timeout=TIMEOUT):
        qtbot.keyClick(results, Qt.Key.Key_Return)
    assert window.opened.session.path == os.path.abspath(second.path)
    qtbot.waitUntil(lambda: current_entry_id(window) == second.entryId, timeout=TIMEOUT)
    assert QApplication.focusWidget() is window.transcript  # the keyboard goes where the hit is shown


def test_enter_in_the_box_opens_the_highlighted_hit_of_its_own_query(qtbot, window: MainWindow) -> None:
    assert search(qtbot, window, "twice") >= 1
    first = window.search_panel.hit_at(0)
    _activate(qtbot, window)
    window.search_edit.setFocus()
    with qtbot.waitSignal(window.search_panel.hit_activated, timeout=TIMEOUT) as chosen:
        qtbot.keyClick(window.search_edit, Qt.Key.Key_Return)  # the hits of "twice" are listed: open
    assert chosen.args[0] is first
    qtbot.keyClicks(window.search_edit, " login")  # another query: Enter searches again
    with qtbot.waitSignal(window.catalogue.search_finished, timeout=TIMEOUT):
        qtbot.keyClick(window.search_edit, Qt.Key.Key_Return)


def _ink(image: QImage, rect: QRect) -> int:
    """How many pixels of ``rect`` are much darker than the row's lightest colour (its text, in light)."""
    lightest = max(image.pixelColor(x, rect.top() + 1).lightness() for x in range(rect.left(), rect.right()))
    return sum(
        1
        for y in range(rect.top(), rect.bottom(), 2)
        for x in range(rect.left(), rect.right(), 2)
        if image.pixelColor(x, y).lightness() < lightest - 100
    )


def test_a_hit_row_keeps_its_text_after_another_is_clicked(qtbot, window: MainWindow) -> None:
    window.view.set_theme("light")
    window.resize(1400, 900)
    assert search(qtbot, window, "the") >= 3
    results = window.search_panel.results
    first = results.visualItemRect(results.item(0))
    results.viewport().grab()  # the first hit drawn while it is the current, selected row
    with qtbot.waitSignal(window.context.session_loaded, timeout=TIMEOUT):
        qtbot.mouseClick(
            results.viewport(),
            Qt.MouseButton.LeftButton,
            pos=QPoint(results.visualItemRect(results.item(1)).center()),
        )
    assert not results.item(0).isSelected()
    image = results.viewport().grab().toImage()
    assert _ink(image, first) > 40, "the first hit draws blank"


def test_listing_another_folder_clears_the_hits(qtbot, window: MainWindow, tmp_path: Path) -> None:
    assert search(qtbot, window, "the") >= 1
    other = tmp_path / "other"
    other.mkdir()
    with qtbot.waitSignal(window.catalogue.refresh_finished, timeout=TIMEOUT):
        window.files.open_path(other)
    assert window.search_panel.results.count() == 0 and window.search_panel.hit_at(0) is None
