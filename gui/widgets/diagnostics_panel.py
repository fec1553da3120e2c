"""The diagnostics dock: what is wrong with the open session file, one row per problem.

The dock hides itself when the session has no problems (informative diagnostics alone do not show it),
and takes only the height its rows need (up to :data:`MOST_ROWS`, then it scrolls): one damaged line
leaves the tree and the transcript their room on a small screen. Double-clicking a row that names an
entry emits :attr:`DiagnosticsPanel.entry_requested`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QDockWidget,
    QHeaderView,
    QTableWidget,
    QTableWidgetItem,
    QWidget,
)

if TYPE_CHECKING:
    from core.session import Diagnostic

__all__ = ["DiagnosticsPanel"]

_HEADERS = ("Line", "Severity", "Kind", "Message")
MOST_ROWS = 8  # the panel grows with its rows up to this many, then scrolls
_ENTRY_ROLE = Qt.ItemDataRole.UserRole + 1


class DiagnosticsPanel(QDockWidget):
    """A bottom dock listing diagnostics: line, severity, kind, message."""

    entry_requested = Signal(str)  # the entry id named by a double-clicked diagnostic

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__("Problems", parent)
        self.setObjectName("diagnostics_panel")
        self.table = QTableWidget(0, len(_HEADERS))
        self.table.setHorizontalHeaderLabels(list(_HEADERS))
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.verticalHeader().hide()
        self.table.setWordWrap(False)
        # The message column takes the free width and long messages elide (their tooltip has them
        # whole): no horizontal scroll bar, whose room the panel's height would have to keep.
        self.table.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        header = self.table.horizontalHeader()
        for column in range(len(_HEADERS) - 1):
            header.setSectionResizeMode(column, QHeaderView.ResizeMode.ResizeToContents)
        header.setStretchLastSection(True)
        self.setWidget(self.table)
        self.table.cellDoubleClicked.connect(self._on_double_clicked)
        self._diagnostics: list[Diagnostic] = []

    @property
    def diagnostics(self) -> list[Diagnostic]:
        """The diagnostics listed."""
        return list(self._diagnostics)

    def set_diagnostics(self, diagnostics: list[Diagnostic]) -> None:
        """List ``diagnostics``; show the dock when one of them is a problem, hide it otherwise."""
        self._diagnostics = list(diagnostics)
        self.table.setRowCount(0)
        self.table.setRowCount(len(self._diagnostics))
        for row, diagnostic in enumerate(self._diagnostics):
            values = (str(diagnostic.line), diagnostic.severity.value, diagnostic.kind, diagnostic.message)
            for column, value in enumerate(values):
                item = QTableWidgetItem(value)
                item.setData(_ENTRY_ROLE, diagnostic.entry_id)
                item.setToolTip(diagnostic.message)
                self.table.setItem(row, column, item)
        self._fit_rows()
        self.setVisible(any(d.is_problem for d in self._diagnostics))

    def _fit_rows(self) -> None:
        """As tall as the header and the rows (at most :data:`MOST_ROWS` of them), no taller."""
        table = self.table
        rows = max(1, min(MOST_ROWS, table.rowCount()))
        row = table.verticalHeader().defaultSectionSize()
        frame = 2 * table.frameWidth()
        height = table.horizontalHeader().sizeHint().height() + rows * row + frame
        table.setMaximumHeight(height)
        table.setMinimumHeight(min(height, table.horizontalHeader().sizeHint().height() + row + frame))

    def entry_id_at(self, row: int) -> str | None:
        """The entry named by the diagnostic in ``row``, if any."""
        if 0 <= row < len(self._diagnostics):
            return self._diagnostics[row].entry_id
        return None

    def _on_double_clicked(self, row: int, _column: int) -> None:
        entry_id = self.entry_id_at(row)
        if entry_id:
            self.entry_requested.emit(entry_id)
