"""Sorting the session list as a user expects (issue 26, item 7).

A sort by a column that a narrow window hides falls back to Modified, newest first, and the header's
arrow says so (the sort comes back with the column); a figure sorts largest first on its first click.
"""

from __future__ import annotations

from PySide6.QtCore import QPoint, Qt

from gui.main_window import MainWindow
from gui.models.session_list_model import SessionColumn
from tests.gui.windows import TIMEOUT

DESCENDING = Qt.SortOrder.DescendingOrder


def _click_header(qtbot, window: MainWindow, column: int) -> None:
    header = window.table.horizontalHeader()
    x = header.sectionViewportPosition(column) + header.sectionSize(column) // 2
    qtbot.mouseClick(header.viewport(), Qt.MouseButton.LeftButton, pos=QPoint(x, header.height() // 2))


def _costs(window: MainWindow) -> list[float]:
    return [window.proxy.summary_at(row).cost for row in range(window.proxy.rowCount())]


def _modified(window: MainWindow) -> list[str]:
    return [window.proxy.summary_at(row).modified for row in range(window.proxy.rowCount())]


def test_figures_sort_largest_first_on_the_first_click(qtbot, window: MainWindow) -> None:
    window.resize(1600, 1000)
    window.splitter.setSizes([900, 300, 400])
    table = window.table
    qtbot.waitUntil(lambda: not table.isColumnHidden(SessionColumn.COST), timeout=TIMEOUT)
    for column in (SessionColumn.COST, SessionColumn.TOKENS, SessionColumn.MESSAGES, SessionColumn.MODIFIED):
        _click_header(qtbot, window, column)
        header = table.horizontalHeader()
        assert (header.sortIndicatorSection(), header.sortIndicatorOrder()) == (column, DESCENDING), column
    _click_header(qtbot, window, SessionColumn.COST)
    assert _costs(window) == sorted(_costs(window), reverse=True)
    _click_header(qtbot, window, SessionColumn.TITLE)  # text: A to Z first
    assert table.horizontalHeader().sortIndicatorOrder() == Qt.SortOrder.AscendingOrder


def test_a_hidden_sort_column_falls_back_to_modified_and_comes_back(qtbot, window: MainWindow) -> None:
    window.resize(1600, 1000)
    window.splitter.setSizes([900, 300, 400])
    table, header = window.table, window.table.horizontalHeader()
    qtbot.waitUntil(lambda: not table.isColumnHidden(SessionColumn.COST), timeout=TIMEOUT)
    table.sortByColumn(SessionColumn.COST, DESCENDING)
    assert window.list_model.sort_order() == (SessionColumn.COST, DESCENDING)
    window.splitter.setSizes([300, 600, 700])  # the list narrows: the figures give way
    qtbot.waitUntil(lambda: table.isColumnHidden(SessionColumn.COST), timeout=TIMEOUT)
    assert (header.sortIndicatorSection(), header.sortIndicatorOrder()) == (
        SessionColumn.MODIFIED,
        DESCENDING,
    )
    assert window.list_model.sort_order() == (SessionColumn.MODIFIED, DESCENDING)
    assert _modified(window) == sorted(_modified(window), reverse=True)
    window.splitter.setSizes([900, 300, 400])
    qtbot.waitUntil(lambda: not table.isColumnHidden(SessionColumn.COST), timeout=TIMEOUT)
    assert (header.sortIndicatorSection(), header.sortIndicatorOrder()) == (SessionColumn.COST, DESCENDING)
    assert _costs(window) == sorted(_costs(window), reverse=True)


def test_a_sort_chosen_while_narrow_stays(qtbot, window: MainWindow) -> None:
    window.resize(1600, 1000)
    window.splitter.setSizes([900, 300, 400])
    table, header = window.table, window.table.horizontalHeader()
    qtbot.waitUntil(lambda: not table.isColumnHidden(SessionColumn.TOKENS), timeout=TIMEOUT)
    table.sortByColumn(SessionColumn.TOKENS, DESCENDING)
    window.splitter.setSizes([300, 600, 700])
    qtbot.waitUntil(lambda: table.isColumnHidden(SessionColumn.TOKENS), timeout=TIMEOUT)
    _click_header(qtbot, window, SessionColumn.TITLE)  # the user's own choice while narrow
    window.splitter.setSizes([900, 300, 400])
    qtbot.waitUntil(lambda: not table.isColumnHidden(SessionColumn.TOKENS), timeout=TIMEOUT)
    assert header.sortIndicatorSection() == SessionColumn.TITLE
