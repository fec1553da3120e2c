"""The session table and the branch tree repaint only what changes when their window or the focus moves.

Qt repaints every visible cell of an item view when its window is (de)activated and when the view gains
or loses the focus; the panes repaint the selected rows, the current cell and the frame only.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtGui import QRegion
from PySide6.QtWidgets import QApplication, QWidget

from gui.main_window import MainWindow
from tests.gui.windows import TIMEOUT


class _Painted(QObject):
    """The region painted on a widget since the last :meth:`clear`."""

    def __init__(self, widget: QWidget) -> None:
        super().__init__()
        self.region = QRegion()
        self.count = 0
        widget.installEventFilter(self)

    def eventFilter(self, obj: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.Paint:
            self.region += event.region()
            self.count += 1
        return False

    def clear(self) -> None:
        self.region, self.count = QRegion(), 0


def _activate(qtbot, widget: QWidget) -> None:
    widget.activateWindow()
    qtbot.waitUntil(lambda: QApplication.activeWindow() is widget, timeout=TIMEOUT)
    qtbot.wait(50)  # the repaints asked for are done


def test_the_session_table_repaints_only_its_selection_when_the_window_changes(qtbot, window) -> None:
    table = window.table
    assert table.model().rowCount() >= 4
    table.setFocus()
    table.selectRow(1)  # row 1 current and selected; rows 2 and 3 neither
    _activate(qtbot, window)
    assert table.hasFocus()
    painted = _Painted(table.viewport())
    other = QWidget()
    qtbot.addWidget(other)
    other.show()
    for active in (other, window):  # the table loses the focus with its window, then gets both back
        painted.clear()
        _activate(qtbot, active)
        selected = table.visualRect(table.model().index(1, 0)).united(
            table.visualRect(table.model().index(1, table.model().columnCount() - 1))
        )
        assert painted.region.contains(selected.center())  # the selection is drawn active or inactive
        for row in (2, 3):
            rect = table.visualRect(table.model().index(row, 0))
            assert rect.isValid() and not painted.region.intersects(rect), row
    assert table.hasFocus()


def test_a_table_without_a_current_row_still_gets_one_with_the_focus(qtbot, window: MainWindow) -> None:
    table = window.table
    table.clearFocus()
    table.selectionModel().clear()
    assert not table.currentIndex().isValid()
    _activate(qtbot, window)
    table.setFocus(Qt.FocusReason.TabFocusReason)
    qtbot.waitUntil(lambda: table.currentIndex().isValid(), timeout=TIMEOUT)  # Qt's own focus-in


def test_the_branch_tree_repaints_only_its_selection_when_the_window_changes(qtbot, window) -> None:
    from tests.gui.windows import open_session

    path = sorted(window.catalogue.roots[0].glob("*.jsonl"))[0]
    open_session(qtbot, window, path)
    tree = window.tree
    qtbot.waitUntil(lambda: tree.model().rowCount() > 0, timeout=TIMEOUT)
    tree.expandAll()
    rows = []
    index = tree.model().index(0, 0)
    while index.isValid() and len(rows) < 3:
        rows.append(index)
        index = tree.indexBelow(index)
    assert len(rows) == 3
    tree.setFocus()
    tree.setCurrentIndex(rows[0])
    _activate(qtbot, window)
    painted = _Painted(tree.viewport())
    other = QWidget()
    qtbot.addWidget(other)
    other.show()
    _activate(qtbot, other)
    assert painted.region.contains(tree.visualRect(rows[0]).center())
    assert not painted.region.intersects(tree.visualRect(rows[2]))
