"""The session list: a flat table over ``core.session.summary.SessionSummary`` records.

Its columns and what a row says are :mod:`gui.models.session_columns`'s.

The model only adapts records that core already produced (a loader, a refresh or ``Catalogue.summaries()``);
it never opens, parses or stats a file. Sorting and filtering live in ``SessionFilterProxy``.
"""

from __future__ import annotations

import html
import os
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import (
    QAbstractTableModel,
    QModelIndex,
    QObject,
    QPersistentModelIndex,
    Qt,
    Signal,
)
from PySide6.QtGui import QColor, QFont, QIcon

from core.notes.note import note_key
from core.session.lineage import parent_paths
from gui.models.roles import Role
from gui.models.row_marks import row_mark
from gui.models.session_columns import (
    COLUMNS,
    FAILED_STOP_REASONS,
    Column,
    SessionColumn,
    distinctions,
    format_modified,
    last_folder,
    modified_sort_key,
    row_tooltip,
    short_id,
)

if TYPE_CHECKING:  # typing only: importing the model must not load core's I/O modules
    from collections.abc import Mapping

    from core.notes.note import Note
    from core.session import SessionSummary

__all__ = [
    "COLUMNS",
    "Column",
    "SessionColumn",
    "SessionListModel",
    "distinctions",
    "format_modified",
    "last_folder",
    "modified_sort_key",
    "short_id",
]

_ModelIndex = QModelIndex | QPersistentModelIndex
_RIGHT = Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter
_UNKNOWN: Any = object()  # a sort key not worked out yet

PROBLEM_COLOR = QColor(198, 40, 40)  # damaged file
ARCHIVED_COLOR = QColor(128, 128, 128)  # an archived session, listed while View > Show Archived is on
FAILED_COLOR = QColor(184, 106, 0)  # last reply was an error or was aborted


def _pinned(note: Note | None) -> bool:
    return note is not None and note.pinned


def _coalesce(rows: Iterable[int]) -> list[tuple[int, int]]:
    """Sorted rows as ``(first, last)`` runs of consecutive numbers."""
    runs: list[tuple[int, int]] = []
    for row in sorted(rows):
        if runs and runs[-1][1] == row - 1:
            runs[-1] = (runs[-1][0], row)
        else:
            runs.append((row, row))
    return runs


class SessionListModel(QAbstractTableModel):
    """A table of session summaries, one row per session file, keyed by ``summary.path``.

    ``set_summaries`` replaces everything (a reset); ``update_summaries`` merges a fresh list by path so
    that live refreshes keep the views' selection and scroll position.

    The model keeps its rows in the order asked for by :meth:`sort` (the proxy forwards header clicks here),
    child (subagent) sessions always right under the session that started them, folded away until their
    parent is unfolded (:meth:`set_expanded`; the proxy hides the rows :meth:`is_hidden` says), and
    optionally forks threaded under their parent session (:meth:`set_threaded`). Sorting here, in one
    Python ``list.sort`` over cached keys, takes ~2 ms for 2,000 sessions; sorting in the proxy cost two
    Python ``data()`` calls per comparison, ~150 ms per sort and per live update.
    """

    # (session path, new name; "" clears it): emitted by setData, which never writes. The editing controller
    # appends the session_info entry through core; the row shows it after the next catalogue refresh.
    rename_requested = Signal(str, str)
    # Which rows are folded away under a parent changed (the proxy filters them out): a parent was folded
    # or unfolded, or a refresh brought or took children.
    folding_changed = Signal()

    def __init__(self, summaries: Iterable[SessionSummary] = (), parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._rows: list[SessionSummary] = []
        self._row_of: dict[str, int] = {}
        self._rows, self._row_of = self._dedupe(summaries)
        # path -> (summary, key per column, each worked out when first sorted by: 20,000 at start)
        self._sort_keys: dict[str, tuple[SessionSummary, list[str | int | float]]] = {}
        self._order: tuple[int, Qt.SortOrder] | None = None  # (column, order) of the last sort()
        self._threaded = False
        self._depth: dict[str, int] = {}  # path -> nesting under its parent sessions (children, forks)
        self._expanded: set[str] = set()  # parents whose children are shown
        self._hidden: set[str] = set()  # rows folded away under a parent that is not expanded
        # Worked out from all the rows when first asked for, again after the rows change.
        self._parents: dict[str, str] | None = None  # path -> the listed parent session's path
        self._distinct: dict[str, str] | None = None  # path -> what tells it from same-titled rows
        self._notes: Mapping[str, Note] = {}  # session key (core.notes.note_key) -> the user's notes
        self._any_archived = self._any_pinned = False
        self._rows = self._ordered(self._rows)  # children under their parents, folded
        self._reindex()

    # -- helpers --------------------------------------------------------------------------------------------

    @staticmethod
    def _dedupe(summaries: Iterable[SessionSummary]) -> tuple[list[SessionSummary], dict[str, int]]:
        """Rows in input order, one per path (the last summary for a path wins, at its first position)."""
        rows: list[SessionSummary] = []
        index: dict[str, int] = {}
        for summary in summaries:
            row = index.get(summary.path)
            if row is None:
                index[summary.path] = len(rows)
                rows.append(summary)
            else:
                rows[row] = summary
        return rows, index

    def _reindex(self) -> None:
        self._row_of = {summary.path: row for row, summary in enumerate(self._rows)}

    def _rows_changed(self) -> None:
        """Forget what was worked out from all the rows (parents, same titles)."""
        self._parents = self._distinct = None

    def parent_of(self, summary: SessionSummary) -> SessionSummary | None:
        """The listed session that started a child or that a fork or clone came from, or None.

        A fork's parent is found as :func:`parent_paths` finds it.
        """
        if summary.subagentOf is not None:
            return self.summary_at(self.row_of(summary.subagentOf))
        if not summary.parentSessionPath:
            return None
        if self._parents is None:
            self._parents = parent_paths(self._rows)
        parent = self._parents.get(summary.path)
        return self.summary_at(self.row_of(parent)) if parent is not None else None

    def distinction(self, summary: SessionSummary) -> str:
        """What tells ``summary`` apart from listed sessions with the same title (``""`` when none has it)."""
        if self._distinct is None:
            self._distinct = distinctions(self._rows)
        return self._distinct.get(summary.path, "")

    # -- notes (archive, pin, tags) -------------------------------------------------------------------------

    def set_notes(self, notes: Mapping[str, Note]) -> None:
        """The user's notes about sessions, by key: every row's marks again, pinned rows to the top."""
        old, self._notes = self._notes, dict(notes)
        self._any_archived = any(note.archived for note in self._notes.values())
        self._any_pinned = any(note.pinned for note in self._notes.values())
        changed = {key for key in old.keys() | self._notes.keys() if old.get(key) != self._notes.get(key)}
        if not changed:
            return
        # Only the rows whose notes changed: the proxy filters those again, not 20,000 rows per archive.
        rows = [row for row, s in enumerate(self._rows) if note_key(s.id, s.path) in changed]
        last_column = self.columnCount() - 1
        for first, last in _coalesce(rows):
            self.dataChanged.emit(self.index(first, 0), self.index(last, last_column))
        if any(_pinned(old.get(key)) != _pinned(self._notes.get(key)) for key in changed):
            self._apply_order()  # only a pin moves rows

    def notes(self) -> Mapping[str, Note]:
        """The notes as last set, by session key."""
        return self._notes

    def note_of(self, summary: SessionSummary) -> Note | None:
        """What the user noted about ``summary``'s session (None: nothing)."""
        if not self._notes:
            return None
        return self._notes.get(note_key(summary.id, summary.path))

    def has_archived(self) -> bool:
        """Whether any session is archived (else the proxy need not look at each row for it)."""
        return self._any_archived

    def _pinned_first(self, rows: list[SessionSummary]) -> list[SessionSummary]:
        """``rows`` with the pinned sessions first, each part in its order (pin keeps it at the top)."""
        if not self._any_pinned:
            return rows
        pinned = [s for s in rows if (note := self.note_of(s)) is not None and note.pinned]
        if not pinned:
            return rows
        held = {id(s) for s in pinned}
        return pinned + [s for s in rows if id(s) not in held]

    # -- public API -----------------------------------------------------------------------------------------

    def summaries(self) -> list[SessionSummary]:
        """A copy of the rows, in model (not view) order."""
        return list(self._rows)

    def summary_at(self, row: int) -> SessionSummary | None:
        """The summary in ``row`` of this model, or None when out of range."""
        if 0 <= row < len(self._rows):
            return self._rows[row]
        return None

    def row_of(self, path: str | os.PathLike[str]) -> int:
        """The row holding the session at ``path`` (compared as given, not resolved), or -1."""
        return self._row_of.get(os.fspath(path), -1)

    def index_of(self, path: str | os.PathLike[str], column: int = 0) -> QModelIndex:
        """The index of ``path``'s row, or an invalid index."""
        row = self.row_of(path)
        return self.index(row, column) if row >= 0 else QModelIndex()

    def set_summaries(self, summaries: Iterable[SessionSummary]) -> None:
        """Replace every row (a model reset: views drop their selection)."""
        rows, index = self._dedupe(summaries)
        self.beginResetModel()
        self._rows, self._row_of = rows, index
        self._rows_changed()
        self._sort_keys.clear()
        self._rows = self._ordered(self._rows)
        self._reindex()
        self.endResetModel()

    def update_summaries(self, summaries: Iterable[SessionSummary]) -> None:
        """Merge a fresh list by path: remove vanished rows, update changed rows, append new ones.

        Unchanged rows emit nothing, a changed row emits ``dataChanged`` for itself only (runs of adjacent
        changed rows are coalesced), new sessions are appended in the order given. No reset, so views keep
        their selection and current index.
        """
        fresh, _ = self._dedupe(summaries)
        fresh_by_path = {s.path: s for s in fresh}
        self._rows_changed()

        # 1. Removals, bottom run first so the row numbers of the runs above stay valid.
        gone = [row for row, s in enumerate(self._rows) if s.path not in fresh_by_path]
        for row in gone:
            self._sort_keys.pop(self._rows[row].path, None)
        for first, last in reversed(_coalesce(gone)):
            self.beginRemoveRows(QModelIndex(), first, last)
            del self._rows[first : last + 1]
            self.endRemoveRows()
        if gone:
            self._reindex()

        # 2. Changes in place (frozen dataclasses compare by value).
        changed = []
        for row, old in enumerate(self._rows):
            new = fresh_by_path[old.path]
            if new != old:
                self._rows[row] = new
                changed.append(row)
        last_column = self.columnCount() - 1
        for first, last in _coalesce(changed):
            self.dataChanged.emit(self.index(first, 0), self.index(last, last_column))

        # 3. Insertions at the end: first = n, last = n + count - 1; an empty insert is skipped.
        added = [s for s in fresh if s.path not in self._row_of]
        if added:
            first = len(self._rows)
            self.beginInsertRows(QModelIndex(), first, first + len(added) - 1)
            self._rows.extend(added)
            for offset, summary in enumerate(added):
                self._row_of[summary.path] = first + offset
            self.endInsertRows()

        # 4. Changed and new rows move to their place in the order asked for (one layout change).
        self._apply_order()

    # -- order ----------------------------------------------------------------------------------------------

    def sort(self, column: int, order: Qt.SortOrder = Qt.SortOrder.AscendingOrder) -> None:
        """Keep the rows ordered by ``column`` (a layout change: selections follow their rows)."""
        if not 0 <= column < len(COLUMNS):
            return
        self._order = (column, order)
        self._apply_order()

    def sort_order(self) -> tuple[int, Qt.SortOrder] | None:
        """The (column, order) of the last :meth:`sort`, or None while rows keep their input order."""
        return self._order

    def threaded(self) -> bool:
        """Whether forks are shown under their parent session."""
        return self._threaded

    def set_threaded(self, on: bool) -> None:
        """Show forks and clones right under their parent session, indented.

        The parent is found by the recorded ``parentSessionPath``, else by its file name or session id among
        the listed sessions (a history copied from another machine records paths that are not here).
        """
        if bool(on) == self._threaded:
            return
        self._threaded = bool(on)
        self._apply_order(force=True)

    def depth(self, row: int) -> int:
        """How deep ``row`` is nested under parent sessions (children always, forks in threaded mode)."""
        summary = self.summary_at(row)
        return self._depth.get(summary.path, 0) if summary is not None else 0

    # -- children -------------------------------------------------------------------------------------------

    def is_hidden(self, row: int) -> bool:
        """Whether ``row`` is folded away under a parent session whose children are not shown."""
        summary = self.summary_at(row)
        return summary is not None and summary.path in self._hidden

    def has_hidden(self) -> bool:
        """Whether any row is folded away (else the proxy need not ask row by row)."""
        return bool(self._hidden)

    def expanded(self, path: str) -> bool:
        """Whether the children of the session at ``path`` are shown."""
        return path in self._expanded

    def set_expanded(self, path: str, on: bool) -> None:
        """Show (``on``) or fold away the child sessions of the session at ``path``."""
        if on == (path in self._expanded):
            return
        if on:
            self._expanded.add(path)
        else:
            self._expanded.discard(path)
        self._apply_order(force=True)

    def reveal(self, path: str) -> None:
        """Unfold every parent above the session at ``path``, so that its row is shown."""
        opened = False
        seen = {path}
        summary = self.summary_at(self.row_of(path))
        while summary is not None and summary.subagentOf is not None and summary.subagentOf not in seen:
            seen.add(summary.subagentOf)
            if summary.subagentOf not in self._expanded:
                self._expanded.add(summary.subagentOf)
                opened = True
            summary = self.summary_at(self.row_of(summary.subagentOf))
        if opened:
            self._apply_order(force=True)

    def _key(self, summary: SessionSummary, column: int) -> str | int | float:
        cached = self._sort_keys.get(summary.path)
        if cached is None or cached[0] is not summary:  # a new or changed summary: new keys
            cached = (summary, [_UNKNOWN] * len(COLUMNS))
            self._sort_keys[summary.path] = cached
        key = cached[1][column]
        if key is _UNKNOWN:
            key = cached[1][column] = COLUMNS[column].sort_key(summary)
        return key

    def _ordered(self, rows: list[SessionSummary]) -> list[SessionSummary]:
        """``rows`` in the order asked for, each session followed by its children, depth first.

        Threaded, forks follow their parent too. Rows under a parent that is not expanded go into ``_hidden``.
        """
        self._depth = {}
        self._hidden = set()
        listed = {s.path for s in rows}
        # Child sessions always nest under the session that started them (the catalogue found it).
        parents = {s.path: s.subagentOf for s in rows if s.subagentOf is not None and s.subagentOf in listed}
        if self._order is None and not self._threaded and not parents:
            return self._pinned_first(rows)
        column, order = self._order if self._order is not None else (-1, Qt.SortOrder.AscendingOrder)
        descending = order == Qt.SortOrder.DescendingOrder
        if column >= 0:
            rows = sorted(rows, key=lambda s: (self._key(s, column), s.path), reverse=descending)
        if not self._threaded and not parents:
            return self._pinned_first(rows)
        if self._threaded:
            # Parents among the listed sessions, also when the recorded path is stale (copied or synced
            # histories): by file name or session id (core.session.lineage). A child is not a fork.
            forks = parent_paths(s for s in rows if not s.subagentDepth)
            parents = {**forks, **parents}
        children: dict[str, list[SessionSummary]] = {}
        tops: list[SessionSummary] = []
        for summary in rows:  # already sorted: children lists come out sorted too
            parent = parents.get(summary.path)
            if parent is None or self._in_cycle(summary.path, parents):
                tops.append(summary)
            else:
                children.setdefault(parent, []).append(summary)
        ordered: list[SessionSummary] = []
        stack = [(summary, 0, False) for summary in reversed(self._pinned_first(tops))]
        while stack:
            summary, depth, hidden = stack.pop()
            ordered.append(summary)
            self._depth[summary.path] = depth
            if hidden:
                self._hidden.add(summary.path)
            folded = hidden or summary.path not in self._expanded
            kids = children.get(summary.path, ())
            # A child is folded away under a parent not expanded; a fork only under a hidden row.
            stack.extend(
                (kid, depth + 1, hidden or (folded and kid.subagentDepth > 0)) for kid in reversed(kids)
            )
        return ordered

    @staticmethod
    def _in_cycle(path: str, parents: dict[str, str]) -> bool:
        """Whether following parent sessions from ``path`` comes back to it (then it heads its thread)."""
        seen = {path}
        current = parents.get(path)
        while current is not None:
            if current == path:
                return True
            if current in seen:
                return False
            seen.add(current)
            current = parents.get(current)
        return False

    def _apply_order(self, force: bool = False) -> None:
        """Reorder the rows as a layout change when the order differs (or ``force``: the titles change)."""
        hidden = self._hidden
        rows = self._ordered(self._rows)
        if hidden != self._hidden:
            force = True
        if not force and all(a is b for a, b in zip(rows, self._rows, strict=True)):
            return
        self.layoutAboutToBeChanged.emit()
        persistent = self.persistentIndexList()
        held = [(self._rows[p.row()].path, p.column()) if p.isValid() else None for p in persistent]
        self._rows = rows
        self._reindex()
        moved = [self.index(self._row_of[h[0]], h[1]) if h is not None else QModelIndex() for h in held]
        self.changePersistentIndexList(persistent, moved)
        self.layoutChanged.emit()
        if hidden != self._hidden:
            self.folding_changed.emit()

    def _sort_key(self, row: int, col: int) -> str | int | float | None:
        if not (0 <= row < len(self._rows) and 0 <= col < len(COLUMNS)):
            return None
        return self._key(self._rows[row], col)

    # -- Qt overrides ---------------------------------------------------------------------------------------

    def rowCount(self, parent: _ModelIndex = QModelIndex()) -> int:  # noqa: B008 (Qt's signature)
        return 0 if parent.isValid() else len(self._rows)

    def columnCount(self, parent: _ModelIndex = QModelIndex()) -> int:  # noqa: B008 (Qt's signature)
        return 0 if parent.isValid() else len(COLUMNS)

    def flags(self, index: _ModelIndex) -> Qt.ItemFlag:
        if not index.isValid():
            return Qt.ItemFlag.NoItemFlags
        flags = Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable | Qt.ItemFlag.ItemNeverHasChildren
        if index.column() == SessionColumn.TITLE:
            flags |= Qt.ItemFlag.ItemIsEditable  # the session name (setData)
        return flags

    def setData(self, index: _ModelIndex, value: Any, role: int = Qt.ItemDataRole.EditRole) -> bool:
        """A name typed in the title column: ask for it to be written (``rename_requested``), never write.

        ``Role.EXPANDED`` on a parent session's row shows or folds away its children.
        """
        summary = self.summary_at(index.row()) if index.isValid() else None
        if role == Role.EXPANDED:
            if summary is None or not summary.subagents:
                return False
            self.set_expanded(summary.path, bool(value))
            return True
        if summary is None or index.column() != SessionColumn.TITLE or role != Qt.ItemDataRole.EditRole:
            return False
        text = "" if value is None else str(value)
        if text == (summary.name or ""):
            return False  # unchanged: nothing to append
        self.rename_requested.emit(summary.path, text)
        return True

    def headerData(
        self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole
    ) -> Any:
        if orientation == Qt.Orientation.Horizontal and 0 <= section < len(COLUMNS):
            column = COLUMNS[section]
            if role == Qt.ItemDataRole.DisplayRole:
                return column.title
            if role == Qt.ItemDataRole.TextAlignmentRole and column.numeric:
                return _RIGHT
            if role == Qt.ItemDataRole.InitialSortOrderRole:
                # A first click on a figure or the date wants the largest or newest first.
                largest_first = column.numeric or section == SessionColumn.MODIFIED
                return Qt.SortOrder.DescendingOrder if largest_first else Qt.SortOrder.AscendingOrder
            return None
        return super().headerData(section, orientation, role)

    def data(self, index: _ModelIndex, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if role == Role.SORT:
            # The proxy asks for two sort keys per comparison: ~44,000 calls to sort 2,000 sessions, so
            # the keys (a timestamp parse, a casefold) are made once per summary.
            return self._sort_key(index.row(), index.column()) if index.isValid() else None
        if not index.isValid() or index.parent().isValid():
            return None
        row, col = index.row(), index.column()
        if not (0 <= row < len(self._rows) and 0 <= col < len(COLUMNS)):
            return None
        summary = self._rows[row]
        column = COLUMNS[col]
        if role == Qt.ItemDataRole.DisplayRole:
            text = column.display(summary)
            if col == SessionColumn.TITLE:
                depth = self._depth.get(summary.path, 0)
                if depth:
                    return "\u2003" * (depth - 1) + "\u21b3 " + text  # em spaces, then an arrow
            return text
        if role == Role.SUBAGENTS:
            return self._badge(summary) if col == SessionColumn.TITLE else None
        if role == Role.EXPANDED:
            return summary.path in self._expanded
        if role == Qt.ItemDataRole.EditRole:
            return (summary.name or "") if col == SessionColumn.TITLE else None
        if role == Role.ITEM:
            return summary
        if role == Role.ID:
            return summary.id
        if role == Role.PARENT:
            return summary.parentSessionPath
        if role == Role.DISTINCT:
            return self.distinction(summary) if col == SessionColumn.TITLE else None
        if role == Role.NOTE:
            return self.note_of(summary)
        if role == Qt.ItemDataRole.DecorationRole:
            if col != SessionColumn.TITLE:
                return None
            note = self.note_of(summary)
            icon: QIcon | None = row_mark(
                fork=bool(summary.parentSessionPath) and not summary.subagentDepth,  # a child is not a fork
                damaged=summary.problems > 0,
                pinned=note is not None and note.pinned,
                archived=note is not None and note.archived,
            )
            return icon
        if role == Qt.ItemDataRole.ToolTipRole:
            if col == SessionColumn.PROJECT:  # the column elides the middle of long paths: here is all of it
                return f"<p style='white-space:pre'>{html.escape(summary.cwd)}</p>"
            return row_tooltip(summary, self.parent_of(summary), self.note_of(summary))
        if role == Qt.ItemDataRole.TextAlignmentRole:
            return _RIGHT if column.numeric else None
        if role == Qt.ItemDataRole.FontRole:
            return self._font(summary, col)
        if role == Qt.ItemDataRole.ForegroundRole:
            return self._foreground(summary, col)
        return None

    def _badge(self, summary: SessionSummary) -> str | None:
        """A parent's "▸ 3 subagents" (▾ when they are shown), None for a session without children."""
        if not summary.subagents:
            return None
        mark = "▾" if summary.path in self._expanded else "▸"
        return f"{mark} {summary.subagents} subagent{'s' if summary.subagents != 1 else ''}"

    def _foreground(self, summary: SessionSummary, col: int) -> QColor | None:
        """Red for a damaged file, orange for a failed last turn (the title); grey for an archived row."""
        archived = (note := self.note_of(summary)) is not None and note.archived
        if col != SessionColumn.TITLE:
            return ARCHIVED_COLOR if archived else None
        if summary.problems:
            return PROBLEM_COLOR
        if summary.lastStopReason in FAILED_STOP_REASONS:
            return FAILED_COLOR
        return ARCHIVED_COLOR if archived else None

    def _font(self, summary: SessionSummary, col: int) -> QFont | None:
        """Bold for a named session's title; italic for an archived session (shown only when asked for)."""
        bold = bool(summary.name) and col == SessionColumn.TITLE
        italic = (note := self.note_of(summary)) is not None and note.archived
        if not (bold or italic):
            return None
        font = QFont()  # made per call: a QFont at import time would precede the QApplication
        font.setBold(bold)
        font.setItalic(italic)
        return font
