"""The open session's files touched, as a two-column table: the file and how its tools touched it.

Rows are :class:`core.kinds.touches.TouchedFile` records made by a worker (the model never reads a file);
their order is theirs (changed files first, then read, run, searched; the project's before others).
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QObject, QPersistentModelIndex, Qt

from core.kinds.touches import TouchedFile, touch_words
from gui.models.roles import Role

__all__ = ["TouchedFilesModel"]

ModelIndex = QModelIndex | QPersistentModelIndex
_HEADERS = ("File", "Touches")


class TouchedFilesModel(QAbstractTableModel):
    """The files a session's tools read, edited, wrote, ran or searched (one row each)."""

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._files: list[TouchedFile] = []

    def set_files(self, files: list[TouchedFile]) -> None:
        """Show ``files`` (in their order) instead of what was shown."""
        if files == self._files:
            return
        self.beginResetModel()
        self._files = list(files)
        self.endResetModel()

    def files(self) -> list[TouchedFile]:
        """The files shown, in order."""
        return list(self._files)

    def file_at(self, row: int) -> TouchedFile | None:
        """The file of ``row``, or None."""
        return self._files[row] if 0 <= row < len(self._files) else None

    def rowCount(self, parent: ModelIndex = QModelIndex()) -> int:  # noqa: B008 (Qt's signature)
        return 0 if parent.isValid() else len(self._files)

    def columnCount(self, parent: ModelIndex = QModelIndex()) -> int:  # noqa: B008 (Qt's signature)
        return 0 if parent.isValid() else len(_HEADERS)

    def data(self, index: ModelIndex, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid():
            return None
        file = self.file_at(index.row())
        if file is None:
            return None
        if role == Qt.ItemDataRole.DisplayRole:
            return file.shown if index.column() == 0 else touch_words(file.counts)
        if role == Qt.ItemDataRole.ToolTipRole:
            count = len(file.entries)
            return (
                f"{file.path}\n{touch_words(file.counts)}, by {count} entr{'y' if count == 1 else 'ies'}.\n"
                "Click to show the first of them in the tree and the transcript, again for the next."
            )
        if role == Role.ITEM:
            return file
        if role == Role.ID:
            return file.first_entry
        if role == Role.SORT:
            return file.shown.casefold() if index.column() == 0 else -file.total
        return None

    def headerData(
        self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole
    ) -> Any:
        if orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.DisplayRole:
            return _HEADERS[section] if 0 <= section < len(_HEADERS) else None
        return None
