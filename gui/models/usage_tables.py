"""The Usage view's tables: report rows (:class:`core.usage.UsageRow`) by session, project or model.

One table model serves the three tables; its columns depend on the kind of row. Rows are replaced
whole when the figures change (a model reset: a few hundred rows at most); the view sorts through a
``QSortFilterProxyModel`` on :attr:`Role.SORT`.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QObject, QPersistentModelIndex, Qt

from core.formatting import dollars, short_tokens, whole_tokens
from core.timefmt import on_calendar
from core.usage import UsageRow
from gui.models.roles import Role

__all__ = ["UsageTableModel"]

_ModelIndex = QModelIndex | QPersistentModelIndex
_RIGHT = Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter
_DISPLAY = int(Qt.ItemDataRole.DisplayRole)
_ALIGNMENT = int(Qt.ItemDataRole.TextAlignmentRole)
_TOOLTIP = int(Qt.ItemDataRole.ToolTipRole)
_SORT, _ITEM = int(Role.SORT), int(Role.ITEM)
_ANSWERED = frozenset((_DISPLAY, _ALIGNMENT, _TOOLTIP, _SORT, _ITEM))


@dataclass(frozen=True)
class _Column:
    title: str
    display: Callable[[UsageRow], str]
    sort: Callable[[UsageRow], object]
    numeric: bool = False
    tip: str = ""
    sample: str = "99,999.9M"  # about the widest text the column shows (the view sizes it from this)


_SHOWN_TITLE = 160  # characters: more than the widest column shows


def _session_name(row: UsageRow) -> str:
    return row.title or os.path.basename(row.key)


def _shown_name(row: UsageRow) -> str:
    # The title's first line, cut: a cell lays all of its text out before eliding it, and titles are
    # first messages, hundreds of characters long (the benchmark's top sessions painted in 9 ms, 7 so).
    # The tooltip and the sort keep the whole title.
    name = _session_name(row)
    line = next((part.strip() for part in name.splitlines() if part.strip()), name)
    return line if len(line) <= _SHOWN_TITLE else line[: _SHOWN_TITLE - 1] + "…"


def _day(stamp: float) -> str:
    # A time without a calendar date (a hostile one of year 33,658) is shown as none.
    return datetime.fromtimestamp(stamp).strftime("%Y-%m-%d %H:%M") if stamp and on_calendar(stamp) else ""


def _tokens(pick: Callable[[UsageRow], int], title: str, tip: str) -> _Column:
    return _Column(title, lambda r: short_tokens(pick(r)), pick, True, tip)


_COST = _Column(
    "Cost",
    lambda r: dollars(r.total_cost),
    lambda r: r.total_cost,
    True,
    "cost.total as recorded",
    "$99,999.99",
)
_TOTAL = _tokens(lambda r: r.total_tokens, "Tokens", "totalTokens as recorded")
_ABANDONED = _Column(
    "Abandoned",
    lambda r: dollars(r.abandoned_cost),
    lambda r: r.abandoned_cost,
    True,
    "The part of the cost on branches off each session's current path",
    "$99,999.99",
)
_SESSIONS = _Column("Sessions", lambda r: f"{r.sessions:,}", lambda r: r.sessions, True, "", "99,999")
_PARTS = [
    _tokens(lambda r: r.input_tokens, "Input", "Input tokens"),
    _tokens(lambda r: r.output_tokens, "Output", "Output tokens"),
    _tokens(
        lambda r: r.cache_creation_tokens, "Cache write", "Cache-write tokens (cacheWrite, with cacheWrite1h)"
    ),
    _tokens(lambda r: r.cache_read_tokens, "Cache read", "Cache-read tokens"),
]
COLUMNS: dict[str, list[_Column]] = {
    "session": [
        _Column("Session", _shown_name, lambda r: _session_name(r).casefold()),
        _Column(
            "Project", lambda r: r.project, lambda r: r.project.casefold(), sample="/home/dev/acme-webapp"
        ),
        _COST,
        _TOTAL,
        _ABANDONED,
        _Column(
            "Last",
            lambda r: _day(r.last),
            lambda r: r.last,
            False,
            "The last usage recorded",
            "2026-11-30 23:59",
        ),
    ],
    "project": [
        _Column("Project", lambda r: r.key, lambda r: r.key.casefold()),
        _SESSIONS,
        _COST,
        _TOTAL,
        *_PARTS,
        _ABANDONED,
    ],
    "model": [
        _Column("Model", lambda r: r.key, lambda r: r.key.casefold()),
        _SESSIONS,
        _COST,
        _TOTAL,
        *_PARTS,
    ],
}


class UsageTableModel(QAbstractTableModel):
    """Report rows of one kind (``session``, ``project`` or ``model``) as a table."""

    def __init__(self, kind: str, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.kind = kind
        self._columns = COLUMNS[kind]
        self._rows: list[UsageRow] = []

    def set_rows(self, rows: list[UsageRow]) -> None:
        """Show ``rows`` instead (a reset)."""
        self.beginResetModel()
        self._rows = list(rows)
        self.endResetModel()

    def rows(self) -> list[UsageRow]:
        """The rows shown, in the report's order."""
        return list(self._rows)

    def row_at(self, row: int) -> UsageRow | None:
        """The report row at ``row`` (None out of range)."""
        return self._rows[row] if 0 <= row < len(self._rows) else None

    def width_sample(self, section: int) -> str:
        """About the widest text column ``section`` shows: the view sizes its columns from the font."""
        return self._columns[section].sample if 0 <= section < len(self._columns) else ""

    def rowCount(self, parent: _ModelIndex = QModelIndex()) -> int:  # noqa: B008 (Qt's default argument)
        return 0 if parent.isValid() else len(self._rows)

    def columnCount(self, parent: _ModelIndex = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self._columns)

    def headerData(
        self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole
    ) -> Any:
        if orientation != Qt.Orientation.Horizontal or not 0 <= section < len(self._columns):
            return super().headerData(section, orientation, role)
        column = self._columns[section]
        if role == Qt.ItemDataRole.DisplayRole:
            return column.title
        if role == Qt.ItemDataRole.ToolTipRole:
            return column.tip or None
        if role == Qt.ItemDataRole.TextAlignmentRole and column.numeric:
            return _RIGHT
        return None

    def data(self, index: _ModelIndex, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        # A view's paint asks every cell for about ten roles, of which a few are ever answered: those
        # are told apart by plain ints, before any other call into Qt (each costs a microsecond or so).
        if role not in _ANSWERED or not index.isValid():
            return None
        row, col = index.row(), index.column()
        if not (0 <= row < len(self._rows) and 0 <= col < len(self._columns)):
            return None
        item, column = self._rows[row], self._columns[col]
        if role == _DISPLAY:
            return column.display(item)
        if role == _SORT:
            return column.sort(item)
        if role == _ITEM:
            return item
        if role == _ALIGNMENT:
            return _RIGHT if column.numeric else None
        return _tooltip(self.kind, item)


def _tooltip(kind: str, row: UsageRow) -> str:
    name = _session_name(row) if kind == "session" else row.key
    lines = [
        name,
        f"{dollars(row.total_cost)} · {whole_tokens(row.total_tokens)} tokens",
        f"input {whole_tokens(row.input_tokens)} · output {whole_tokens(row.output_tokens)}",
        f"cache write {whole_tokens(row.cache_creation_tokens)}"
        f" · cache read {whole_tokens(row.cache_read_tokens)}",
        f"abandoned branches {dollars(row.abandoned_cost)}",
    ]
    if kind == "session":
        lines[1:1] = [row.key, row.project]
        lines.append("Double-click to open it")
    elif row.models_used and kind == "project":
        lines.append("models: " + ", ".join(row.models_used))
    return "\n".join(lines)
