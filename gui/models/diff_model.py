"""The diff as a two-column tree model: the left and right side of every aligned row of a ``BranchDiff``.

Top-level rows are the common part (its last messages as children), the aligned rows, and folds: a long run
of unchanged rows (``core.diff.fold_runs``) is one row whose children are those rows. With "only changes"
the top level holds the changed, inserted and deleted rows alone. Cells are rich text from
``core.diff.cell_html`` (``HTML_ROLE``), made on first use and kept until the next reset.
"""

from __future__ import annotations

import os
from typing import Any

from PySide6.QtCore import QAbstractItemModel, QModelIndex, QObject, QPersistentModelIndex, Qt
from PySide6.QtGui import QColor

from core.diff import CHANGED, DELETED, INSERTED, SAME, BranchDiff, DiffRow, cell_html, fold_runs

__all__ = ["ENTRY_ROLE", "HTML_ROLE", "KIND_ROLE", "LEFT", "RIGHT", "START_ROLE", "DiffModel"]

ModelIndex = QModelIndex | QPersistentModelIndex
HTML_ROLE = Qt.ItemDataRole.UserRole + 101  # the cell as rich text
ENTRY_ROLE = Qt.ItemDataRole.UserRole + 102  # the entry id shown in the cell (None for empty cells and folds)
KIND_ROLE = Qt.ItemDataRole.UserRole + 103  # "same", "changed", "inserted", "deleted", "fold" or "common"
START_ROLE = Qt.ItemDataRole.UserRole + 104  # bool: the first row of a run of changes
LEFT, RIGHT = 0, 1
_SHADES = {  # (light, dark) backgrounds per row kind and side
    (DELETED, LEFT): ("#ffebe9", "#3c1618"),
    (INSERTED, RIGHT): ("#dafbe1", "#12261e"),
    (CHANGED, LEFT): ("#fff8c5", "#2e2a14"),
    (CHANGED, RIGHT): ("#fff8c5", "#2e2a14"),
    (DELETED, RIGHT): ("#f3f4f6", "#1c2128"),
    (INSERTED, LEFT): ("#f3f4f6", "#1c2128"),
}


class _Item:
    """One row of the model: an aligned row, a fold of unchanged rows, or the common part.

    Items are owned by the model (``_top`` and each item's ``children``) for as long as indexes to them can
    exist, because ``createIndex`` keeps only a bare pointer.
    """

    __slots__ = ("children", "kind", "parent", "position", "row", "start", "text")

    def __init__(self, kind: str, row: DiffRow | None = None, parent: _Item | None = None) -> None:
        self.kind = kind
        self.row = row  # the aligned row (None for folds and the common part)
        self.parent = parent
        self.position = 0  # the row number within the parent (or at the top level)
        self.children: list[_Item] = []
        self.start = False  # the first row of a run of changes
        self.text = ""  # what a fold or the common part says


class DiffModel(QAbstractItemModel):
    """A :class:`~core.diff.BranchDiff` as a two-column tree: left and right side of every aligned row."""

    def __init__(
        self, diff: BranchDiff | None = None, parent: QObject | None = None, *, dark: bool = False
    ) -> None:
        super().__init__(parent)
        self._diff = diff
        self._only_changes = False
        self._dark = dark
        self._top: list[_Item] = []
        self._html: dict[tuple[int, int], str] = {}  # (id(item), column) -> rich text, made on first paint
        self._rebuild()

    # ------------------------------------------------------------------ public API
    @property
    def diff(self) -> BranchDiff | None:
        """The diff shown."""
        return self._diff

    def set_diff(self, diff: BranchDiff | None) -> None:
        """Show another diff (a model reset)."""
        self.beginResetModel()
        self._diff = diff
        self._rebuild()
        self.endResetModel()

    @property
    def only_changes(self) -> bool:
        """Whether unchanged rows, folds and the common part are hidden."""
        return self._only_changes

    def set_only_changes(self, on: bool) -> None:
        """Hide (or show again) everything that did not change (a model reset)."""
        if on == self._only_changes:
            return
        self.beginResetModel()
        self._only_changes = on
        self._rebuild()
        self.endResetModel()

    def swap(self) -> None:
        """Exchange the two sides."""
        if self._diff is not None:
            self.set_diff(self._diff.swapped())

    def change_rows(self) -> list[int]:
        """Top-level row numbers where a run of changes starts (for next and previous change)."""
        return [item.position for item in self._top if item.start]

    def item_kind(self, index: ModelIndex) -> str | None:
        """``same``/``changed``/``inserted``/``deleted`` for aligned rows, ``fold``/``common`` otherwise."""
        return self._item(index).kind if index.isValid() else None

    def is_group(self, index: ModelIndex) -> bool:
        """Whether the row is a fold or the common part (rows that expand)."""
        return index.isValid() and self._item(index).kind in ("fold", "common")

    # ------------------------------------------------------------------ Qt model
    def index(self, row: int, column: int = 0, parent: ModelIndex = QModelIndex()) -> QModelIndex:  # noqa: B008
        if column < 0 or column > 1 or row < 0:
            return QModelIndex()
        items = self._item(parent).children if parent.isValid() else self._top
        if parent.isValid() and parent.column() != 0:
            return QModelIndex()
        if row >= len(items):
            return QModelIndex()
        return self.createIndex(row, column, items[row])

    def parent(self, index: ModelIndex | None = None) -> Any:
        if index is None:
            return super().parent()
        if not index.isValid():
            return QModelIndex()
        owner = self._item(index).parent
        if owner is None:
            return QModelIndex()
        return self.createIndex(owner.position, 0, owner)

    def rowCount(self, parent: ModelIndex = QModelIndex()) -> int:  # noqa: B008
        if not parent.isValid():
            return len(self._top)
        if parent.column() != 0:
            return 0
        return len(self._item(parent).children)

    def columnCount(self, parent: ModelIndex = QModelIndex()) -> int:  # noqa: B008
        return 2

    def hasChildren(self, parent: ModelIndex = QModelIndex()) -> bool:  # noqa: B008
        return self.rowCount(parent) > 0

    def flags(self, index: ModelIndex) -> Qt.ItemFlag:
        if not index.isValid():
            return Qt.ItemFlag.NoItemFlags
        flags = Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable
        if not self._item(index).children:
            flags |= Qt.ItemFlag.ItemNeverHasChildren
        return flags

    def headerData(
        self,
        section: int,
        orientation: Qt.Orientation,
        role: int = Qt.ItemDataRole.DisplayRole,
    ) -> Any:
        if orientation != Qt.Orientation.Horizontal or section not in (0, 1):
            return None
        if role not in (Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.ToolTipRole):
            return None
        where = ("Left", "Right")[section]
        if self._diff is None:
            return where
        side = self._diff.left if section == LEFT else self._diff.right
        if role == Qt.ItemDataRole.ToolTipRole:  # the file, which the title names by its session's name
            return f"{side.file} @ {side.entry_id}"
        return f"{where}: {side.title or os.path.basename(side.file)} @ {side.entry_id}"

    def data(self, index: ModelIndex, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid():
            return None
        item = self._item(index)
        column = index.column()
        row = item.row
        if role == KIND_ROLE:
            return item.kind
        if role == START_ROLE:
            return item.start
        if row is None:  # a fold or the common part: text in the first column only
            if role == Qt.ItemDataRole.DisplayRole:
                return item.text if column == LEFT else ""
            if role == Qt.ItemDataRole.ToolTipRole:
                return "Click to unfold" if item.kind == "fold" else "The part both sides share"
            return None
        message = row.left if column == LEFT else row.right
        if role == Qt.ItemDataRole.DisplayRole:
            return message.preview(200) if message is not None else ""
        if role == HTML_ROLE:
            key = (id(item), column)
            cached = self._html.get(key)
            if cached is None:
                cached = self._html[key] = cell_html(row, "left" if column == LEFT else "right", self._dark)
            return cached
        if role == ENTRY_ROLE:
            return message.entry_id if message is not None else None
        if role == Qt.ItemDataRole.BackgroundRole:
            shade = _SHADES.get((item.kind, column))
            return QColor(shade[1 if self._dark else 0]) if shade else None
        if role == Qt.ItemDataRole.ToolTipRole:
            return f"{item.kind} · {message.entry_id}" if message is not None else item.kind
        return None

    # ------------------------------------------------------------------ private
    def _item(self, index: ModelIndex) -> _Item:
        item: _Item = index.internalPointer()  # every index this model makes points at its _Item
        return item

    def _rebuild(self) -> None:
        self._html.clear()
        self._top = []
        diff = self._diff
        if diff is None:
            return
        top = self._top
        rows = diff.rows
        if self._only_changes:
            previous_same = True
            for row in rows:
                if row.kind == SAME:
                    previous_same = True
                    continue
                item = _Item(row.kind, row)
                item.start = previous_same
                previous_same = False
                top.append(item)
        else:
            common = diff.common
            if common.messages:
                group = _Item("common")
                group.text = (
                    f"Common part: {common.messages} message{'' if common.messages == 1 else 's'} "
                    f"(matched by {common.matched_by}); the last {len(common.tail)} inside"
                )
                group.children = [_Item(SAME, DiffRow(SAME, m, m, (), 1.0), group) for m in common.tail]
                top.append(group)
            folds = dict(fold_runs(rows))
            index = 0
            previous_same = True
            while index < len(rows):
                end = folds.get(index)
                if end is not None:
                    group = _Item("fold")
                    group.text = f"⋯ {end - index} unchanged messages"
                    group.children = [_Item(SAME, rows[k], group) for k in range(index, end)]
                    top.append(group)
                    index = end
                    previous_same = True
                    continue
                row = rows[index]
                item = _Item(row.kind, row)
                item.start = row.kind != SAME and previous_same
                previous_same = row.kind == SAME
                top.append(item)
                index += 1
        for position, item in enumerate(top):
            item.position = position
            for child_position, child in enumerate(item.children):
                child.position = child_position
