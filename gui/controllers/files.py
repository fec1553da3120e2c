"""Opening what the user points at: a folder (listed) or a session file (listed with its folder, and shown).

File ▸ Open File or Folder…, Open Folder…, Open Recent (kept in the settings), drops of ``.jsonl`` files
and folders on the window, and the path given on the command line all end in :meth:`FileController.open_path`.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QMimeData, QObject
from PySide6.QtGui import QKeySequence
from PySide6.QtWidgets import QFileDialog, QMenu

from gui.actions import ActionRegistry
from gui.controllers.context import WindowContext
from gui.settings import add_recent, app_settings, read_recent

__all__ = ["FileController", "dropped_paths"]


def _is_openable(path: str) -> bool:
    """A local folder or ``.jsonl`` file that a drop may open."""
    return os.path.isdir(path) or (path.lower().endswith(".jsonl") and os.path.isfile(path))


def _is_within(path: str, folder: str) -> bool:
    """Whether ``path`` is ``folder`` or lies below it."""
    try:
        return os.path.commonpath([path, folder]) == folder
    except ValueError:  # different drives
        return False


def dropped_paths(mime: QMimeData | None) -> list[str]:
    """The local ``.jsonl`` files and folders among dragged URLs."""
    if mime is None or not mime.hasUrls():
        return []
    return [url.toLocalFile() for url in mime.urls() if url.isLocalFile() and _is_openable(url.toLocalFile())]


class FileController(QObject):
    """The File menu's open actions and the recent paths."""

    def __init__(
        self,
        context: WindowContext,
        actions: ActionRegistry,
        *,
        roots: Callable[[], list[Path]],
        set_roots: Callable[[list[Path]], None],
    ) -> None:
        super().__init__(context)
        self._context = context
        self._roots = roots
        self._set_roots = set_roots
        key = QKeySequence.StandardKey
        actions.add(
            "file.open", "&Open File or Folder…", self.open_file_dialog, shortcut=key.Open, menu="File"
        )
        actions.add(
            "file.open_folder", "Open &Folder…", self.open_folder_dialog, shortcut="Ctrl+Shift+O", menu="File"
        )
        self.recent_menu = actions.add_submenu(
            "file.recent", QMenu("Open &Recent", context.dialog_parent), menu="File"
        )
        self.recent_menu.aboutToShow.connect(self.update_recent_menu)
        self.update_recent_menu()

    @property
    def recent_paths(self) -> list[str]:
        """Paths opened with :meth:`open_path`, newest first (missing ones dropped)."""
        return read_recent(app_settings())

    def open_path(self, path: str | os.PathLike[str]) -> bool:
        """Open a folder (list its sessions) or a session file (list its folder if needed, then show it).

        The shipped demo sessions (their folder, or a file in it) open as the user's own copy of them,
        made on first use: what is edited there is never the installation's (``core.writing.demo``).

        Returns False (with a sentence in the status bar) when ``path`` names neither.
        """
        from core.errors import PrimeSessionsError
        from core.writing import in_demo_copy

        target = os.path.abspath(os.path.expanduser(os.fspath(path)))
        try:
            copy = in_demo_copy(target)
        except PrimeSessionsError as err:
            self._context.status.showMessage(str(err))
            return False
        if copy is not None:
            target = str(copy)
        if os.path.isdir(target):
            self._set_roots([Path(target)])
        elif os.path.isfile(target) or target.lower().endswith(".jsonl"):
            folder = os.path.dirname(target)
            if not any(_is_within(folder, os.path.abspath(root)) for root in self._roots()):
                self._set_roots([Path(folder)])
            self._context.open_session(target)
        else:
            self._context.status.showMessage(f"{target} is neither a folder nor a session file.")
            return False
        if os.path.exists(target):
            add_recent(app_settings(), target)
            self.update_recent_menu()
        return True

    def open_file_dialog(self) -> None:
        """Ask for a session file and open it."""
        roots = self._roots()
        path, _filter = QFileDialog.getOpenFileName(
            self._context.dialog_parent,
            "Open a session file",
            str(roots[0]) if roots else "",
            "Sessions (*.jsonl);;All files (*)",
        )
        if path:
            self.open_path(path)

    def open_folder_dialog(self) -> None:
        """Ask for a session folder and list it."""
        roots = self._roots()
        start = str(roots[0]) if roots else ""
        path = QFileDialog.getExistingDirectory(self._context.dialog_parent, "Open a session folder", start)
        if path:
            self.open_path(path)

    def update_recent_menu(self) -> None:
        """Replace the entries of the Recent submenu with the recent paths."""
        menu, paths = self.recent_menu, self.recent_paths
        menu.clear()
        for path in paths:
            action = menu.addAction(path)
            action.triggered.connect(lambda _checked=False, p=path: self.open_path(p))
        menu.setEnabled(bool(paths))
