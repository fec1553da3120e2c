"""Comparing branches and sessions from the window: the compare actions and the diff windows they open.

"Compare with…" in the tree (after marking a left side), two selected entries or sessions, and a fork
against its parent session. The diff is computed by ``core.diff`` in a worker (channel ``"diff"``); the
sessions are read again there, never shared with the main thread.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from PySide6.QtCore import QModelIndex, QObject, Signal
from PySide6.QtWidgets import QMenu

from gui.actions import ActionRegistry
from gui.controllers.context import WindowContext
from gui.errors import user_sentence
from gui.models.roles import Role
from gui.scheduling import Priority
from gui.widgets.diff_window import DiffWindow

if TYPE_CHECKING:
    from core.diff import BranchDiff
    from core.session import SessionSummary

__all__ = ["DiffController"]


def _compute(
    left_path: str, left_id: str | None, right_path: str, right_id: str | None, same: bool
) -> BranchDiff:
    """Worker: read the session(s) and diff (read-only, never shared with the main thread)."""
    from core.diff import diff_paths, diff_sessions
    from core.session import load_session

    left = load_session(left_path, checksum=False)
    if same and left_id is not None and right_id is not None:
        return diff_paths(left, left_id, right_id)
    right = left if same else load_session(right_path, checksum=False)
    return diff_sessions(left, left_id, right, right_id)


class DiffController(QObject):
    """The window's compare actions, each opening a :class:`DiffWindow` once a worker has made the diff.

    "Compare with…" in the tree (after marking a left side), two selected entries or sessions, and a fork
    against its parent session.
    """

    diff_opened = Signal(object)  # the DiffWindow
    diff_failed = Signal(str)  # the sentence shown in the status bar

    def __init__(self, context: WindowContext, actions: ActionRegistry) -> None:
        super().__init__(context)
        self._context = context
        self.marked: tuple[str, str] | None = None  # (session file, entry id) chosen as the left side
        self.windows: list[DiffWindow] = []
        self.compare_entries_action = actions.add(
            "session.compare_entries",
            "Compare Selected &Entries",
            self.compare_selected_entries,
            shortcut="Ctrl+Shift+D",
            menu="Session",
            section="compare",
            enabled=lambda: len(context.selected_entries()) == 2,
        )
        self.compare_sessions_action = actions.add(
            "session.compare_sessions",
            "Compare Selected Sess&ions",
            self.compare_selected_sessions,
            menu="Session",
            section="compare",
            enabled=lambda: len(context.selected_paths()) == 2,
        )
        self.compare_parent_action = actions.add(
            "session.compare_parent",
            "Compare with &Parent Session",
            self.compare_with_parent,
            menu="Session",
            section="compare",
            enabled=self._open_session_has_parent,
        )
        actions.add_context("tree", self._fill_tree_menu)
        actions.add_context("list", self._fill_list_menu)

    # ------------------------------------------------------------------ what is selected
    def parent_of(self, path: str) -> str | None:
        """The parent session file of ``path`` (from the list's summary, or the open session's header)."""
        from core.diff import find_parent_file, resolve_parent_session

        session = self._context.session
        if session is not None and session.path == path:
            return resolve_parent_session(session)
        summary: SessionSummary | None = self._context.summary_for(path)
        return find_parent_file(path, summary.parentSessionPath) if summary is not None else None

    def _open_session_has_parent(self) -> bool:
        session = self._context.session
        return session is not None and self.parent_of(session.path) is not None

    # ------------------------------------------------------------------ context menus
    def _fill_tree_menu(self, menu: QMenu, index: QModelIndex) -> None:
        entry = index.data(Role.ITEM) if index.isValid() else None
        session = self._context.session
        if entry is None or session is None:
            return
        mark = menu.addAction("Mark as Left Side for Compare")
        mark.triggered.connect(lambda _checked=False, eid=entry.id: self.mark(session.path, eid))
        marked = self.marked
        if marked is not None and marked != (session.path, entry.id):
            where = "" if marked[0] == session.path else f" in {os.path.basename(marked[0])}"
            compare = menu.addAction(f"Compare with {marked[1]}{where}")
            compare.triggered.connect(lambda _checked=False, eid=entry.id: self.compare_with_marked(eid))
        if len(self._context.selected_entries()) == 2:
            menu.addAction(self.compare_entries_action)

    def _fill_list_menu(self, menu: QMenu, index: QModelIndex) -> None:
        summary = index.data(Role.ITEM) if index.isValid() else None
        if summary is None:
            return
        path = os.path.abspath(summary.path)
        if len(self._context.selected_paths()) == 2:
            menu.addAction(self.compare_sessions_action)
        if self.parent_of(path) is not None:
            compare = menu.addAction("Compare with Parent Session")
            compare.triggered.connect(lambda _checked=False, p=path: self.compare_session_with_parent(p))

    # ------------------------------------------------------------------ commands
    def mark(self, path: str, entry_id: str) -> None:
        """Remember an entry as the left side of the next "Compare with…"."""
        self.marked = (os.path.abspath(path), entry_id)
        self._context.status.showMessage(f"{entry_id} marked: choose Compare with… on another entry", 5000)

    def compare_with_marked(self, entry_id: str) -> None:
        """Compare the marked entry (left) with ``entry_id`` of the open session (right)."""
        session = self._context.session
        if self.marked is None or session is None:
            return
        path, marked_id = self.marked
        self.compare(path, marked_id, session.path, entry_id)

    def compare_selected_entries(self) -> None:
        """Compare the two entries selected in the tree (the upper one on the left)."""
        entries = self._context.selected_entries()
        session = self._context.session
        if len(entries) != 2 or session is None:
            return
        self.compare(session.path, entries[0].id, session.path, entries[1].id)

    def compare_selected_sessions(self) -> None:
        """Compare the leaves of the two sessions selected in the list."""
        paths = self._context.selected_paths()
        if len(paths) == 2:
            self.compare(paths[0], None, paths[1], None)

    def compare_with_parent(self) -> None:
        """Compare the open session (right) with its parent session (left)."""
        session = self._context.session
        if session is not None:
            self.compare_session_with_parent(session.path)

    def compare_session_with_parent(self, path: str) -> None:
        """Compare a session (right) with its parent session (left), leaf against leaf."""
        parent = self.parent_of(path)
        if parent is None:
            self._fail(f"The parent session of {os.path.basename(path)} was not found.")
            return
        self.compare(parent, None, path, None)

    def compare(self, left_path: str, left_id: str | None, right_path: str, right_id: str | None) -> None:
        """Diff the path to ``left_id`` with the path to ``right_id`` (None: a session's leaf) in a worker."""
        same = os.path.abspath(left_path) == os.path.abspath(right_path)
        self._context.status.showMessage("Comparing…")

        def done(diff: BranchDiff) -> None:
            self._context.status.showMessage("", 1)
            self.open_diff(diff)

        def failed(error: Exception) -> None:
            self._fail(user_sentence(error))

        self._context.runner.start(
            "diff",
            lambda _task: _compute(left_path, left_id, right_path, right_id, same),
            done,
            failed,
            priority=Priority.FOREGROUND,
        )

    def open_diff(self, diff: BranchDiff) -> DiffWindow:
        """Show ``diff`` in a new diff window."""
        view = DiffWindow(diff, self._context.dialog_parent)
        view.entry_requested.connect(self.reveal)
        view.destroyed.connect(lambda _obj=None, v=view: self._forget(v))
        self.windows.append(view)
        view.show()
        view.view.setFocus()  # F7 works at once
        if diff.rows and not view.next_change():
            view.select_row(0)
        self.diff_opened.emit(view)
        return view

    def reveal(self, path: str, entry_id: str) -> None:
        """Select ``entry_id`` in the branch tree, opening its session first when another one is shown."""
        session = self._context.session
        if session is not None and session.path == os.path.abspath(path):
            self._context.reveal_entry(entry_id)
        else:
            self._context.open_session(path, entry_id)
        window = self._context.dialog_parent
        window.raise_()
        window.activateWindow()

    def _forget(self, view: DiffWindow) -> None:
        if view in self.windows:
            self.windows.remove(view)

    def _fail(self, sentence: str) -> None:
        self._context.status.showMessage(sentence)
        self.diff_failed.emit(sentence)
