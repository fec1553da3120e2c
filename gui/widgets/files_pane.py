"""The *Files* view beside the branch tree: the files the open session's tools touched.

A line says how many and how (or that it is being read); the table lists each file with how its tools
touched it. Clicking a file (or Enter on it) emits :attr:`FilesPane.file_activated`: the window then
selects its first touching entry in the tree, which the transcript follows.
"""

from __future__ import annotations

from PySide6.QtCore import QModelIndex, Qt, Signal
from PySide6.QtWidgets import QAbstractItemView, QHeaderView, QLabel, QTreeView, QVBoxLayout, QWidget

from core.kinds.touches import CHANGES, TouchedFile
from gui.models.touched_files_model import TouchedFilesModel

__all__ = ["FilesPane"]


class FilesPane(QWidget):
    """A table of the open session's touched files, with a line saying how many."""

    file_activated = Signal(object)  # the TouchedFile clicked or entered

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.model = TouchedFilesModel(self)
        self.view = view = QTreeView()
        view.setModel(self.model)
        view.setRootIsDecorated(False)
        view.setUniformRowHeights(True)
        view.setAlternatingRowColors(True)
        view.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        view.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        view.setTextElideMode(Qt.TextElideMode.ElideMiddle)  # a long path keeps its start and its file name
        header = view.header()
        header.setStretchLastSection(False)
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        header.setSectionResizeMode(1, QHeaderView.ResizeMode.ResizeToContents)
        self.status = QLabel("No session is open.")
        self.status.setWordWrap(True)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.status)
        layout.addWidget(view, 1)
        view.clicked.connect(self._activated)
        view.activated.connect(self._activated)

    def show_reading(self) -> None:
        """Say the files are being worked out (the list keeps what it showed)."""
        self.status.setText("Reading the files touched…")

    def show_files(self, files: list[TouchedFile]) -> None:
        """List ``files`` and say how many (and how many of them were changed)."""
        self.model.set_files(files)
        if not files:
            self.status.setText("No tool of this session touched a file.")
            return
        changed = sum(1 for f in files if not CHANGES.isdisjoint(f.kinds))
        plural = "s" if len(files) != 1 else ""
        self.status.setText(f"{len(files)} file{plural} touched, {changed} changed. Click one to see where.")

    def clear(self, text: str = "No session is open.") -> None:
        """Show no files."""
        self.model.set_files([])
        self.status.setText(text)

    def _activated(self, index: QModelIndex) -> None:
        file = self.model.file_at(index.row()) if index.isValid() else None
        if file is not None:
            self.file_activated.emit(file)
