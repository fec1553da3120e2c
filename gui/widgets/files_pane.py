"""The *Files* view beside the branch tree: the files the open session's tools touched.

A line says how many and how (or that it is being read); the table lists each file with how its tools
touched it. Clicking a file (or Enter on it) emits :attr:`FilesPane.file_activated`: the window then
selects its first touching entry in the tree, which the transcript follows (clicking it again, the next).
Its context menu copies the path, or asks for the sessions that touched the file
(:attr:`FilesPane.sessions_requested`: the window filters the session list by it).
"""

from __future__ import annotations

from PySide6.QtCore import QModelIndex, QPoint, Qt, Signal
from PySide6.QtGui import QGuiApplication, QKeyEvent
from PySide6.QtWidgets import QAbstractItemView, QHeaderView, QLabel, QMenu, QTreeView, QVBoxLayout, QWidget

from core.kinds.touches import CHANGES, TouchedFile
from gui.models.touched_files_model import TouchedFilesModel

__all__ = ["FilesPane"]


class _FilesView(QTreeView):
    """The table of files: Enter on a row says so (as a click does)."""

    enter_pressed = Signal(QModelIndex)

    def keyPressEvent(self, event: QKeyEvent) -> None:
        if event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter) and self.currentIndex().isValid():
            self.enter_pressed.emit(self.currentIndex())
            return
        super().keyPressEvent(event)


class FilesPane(QWidget):
    """A table of the open session's touched files, with a line saying how many."""

    file_activated = Signal(object)  # the TouchedFile clicked or entered
    sessions_requested = Signal(str)  # the sessions that touched this file (its absolute path) are wanted

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.model = TouchedFilesModel(self)
        self.view = view = _FilesView()
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
        # clicked and the Enter key only: "activated" comes with a click too in some styles (one click would
        # then step through two of a file's entries).
        view.clicked.connect(self._activated)
        view.enter_pressed.connect(self._activated)
        view.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        view.customContextMenuRequested.connect(self._context_menu)

    def show_reading(self) -> None:
        """Say the files are being worked out (the list keeps what it showed)."""
        self.status.setText("Reading the files touched…")

    def show_files(self, files: list[TouchedFile]) -> None:
        """List ``files``, say how many (and how many were changed); the current file stays current."""
        current = self.model.file_at(self.view.currentIndex().row())
        self.model.set_files(files)
        if current is not None:
            row = next((i for i, f in enumerate(files) if f.path == current.path), -1)
            if row >= 0:
                self.view.setCurrentIndex(self.model.index(row, 0))
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

    def menu_for(self, file: TouchedFile) -> QMenu:
        """The context menu of ``file``'s row: the sessions that touched it, copy its path."""
        menu = QMenu(self.view)
        menu.addAction("Sessions That Touched This File", lambda: self.sessions_requested.emit(file.path))
        menu.addAction("Copy Path", lambda: QGuiApplication.clipboard().setText(file.path))
        return menu

    def _context_menu(self, pos: QPoint) -> None:
        file = self.model.file_at(self.view.indexAt(pos).row())
        if file is not None:
            menu = self.menu_for(file)
            menu.exec(self.view.viewport().mapToGlobal(pos))
            menu.deleteLater()

    def _activated(self, index: QModelIndex) -> None:
        file = self.model.file_at(index.row()) if index.isValid() else None
        if file is not None:
            self.file_activated.emit(file)
