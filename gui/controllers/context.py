"""What a controller may know of the window: the narrow context every controller gets instead of the window.

It offers state (the open session, the current entry, the selected sessions and entries, the listed
summaries), services (the scheduler and its task runner, the status line, a parent for dialogs) and two
kinds of signals: *notifications* from a piece of state's one owner (``session_loaded`` comes only from
the open-session controller; ``session_changed`` carries one :class:`SessionChanged` per edit, from the
editing controller) and *requests* that the owner carries out (``open_requested`` is handled by the
open-session controller, ``catalogue_refresh_requested`` by the catalogue controller). Controllers never
call each other and never see the window, so none of them imports another or the window (import-linter
checks the layers).

The window wires it once (:meth:`WindowContext.provide`): which object reads the views' selection, who
owns the open session, where the listed summaries come from.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from enum import Enum
from typing import TYPE_CHECKING, Protocol

from PySide6.QtCore import QObject, Signal
from PySide6.QtWidgets import QTableView, QTreeView, QWidget

from gui.models.branch_tree_model import BranchTreeModel
from gui.models.session_filter_proxy import SessionFilterProxy
from gui.scheduling import Scheduler
from gui.workers import TaskRunner

if TYPE_CHECKING:
    from core.session import Entry, Session, SessionSummary

__all__ = [
    "Change",
    "OpenRequest",
    "SelectionReader",
    "SessionChanged",
    "Status",
    "ViewSelection",
    "WindowContext",
]


@dataclass(frozen=True)
class OpenRequest:
    """Show the session at ``path`` (absolute); select ``entry_id`` once shown; ``reload`` reads it again."""

    path: str
    entry_id: str | None = None
    reload: bool = False


class Change(Enum):
    """What an edit did to the session files (:attr:`SessionChanged.what`)."""

    LABEL = "label"  # a label entry appended to the open session
    NAME = "name"  # a name (session_info) entry appended, to the open session or another
    CREATED = "created"  # a new session file (fork, clone), to be shown at once
    TRASHED = "trashed"  # session files moved to the trash
    READ = "read"  # the edit was refused, but what the agent had appended meanwhile was read


@dataclass(frozen=True)
class SessionChanged:
    """One edit's outcome (a label, a name, a fork or clone, the trash, an undo or redo of those).

    The editing controller broadcasts it once (:attr:`WindowContext.session_changed`); every listener takes
    what concerns it: the open-session controller the entries read into its session and a new session to
    show, the catalogue controller the list's rows, the window its title.
    """

    what: Change
    paths: tuple[str, ...]  # the sessions changed (absolute): one, or those trashed
    entry_id: str | None = None  # LABEL: the entry labelled; CREATED: the entry to select in the new session
    text: str | None = None  # LABEL: the new label (None cleared it); NAME: the new name ("" cleared it)
    session: Session | None = None  # the window's open session, when the edit went through it
    appended: tuple[Entry, ...] = ()  # what the edit read into that session: its own entry and the agent's

    @property
    def path(self) -> str:
        """The (first) session changed."""
        return self.paths[0]


class Status(Protocol):
    """The window's status line."""

    def showMessage(self, text: str, timeout: int = 0) -> None:
        """Show ``text`` for ``timeout`` ms (0: until replaced)."""


class SelectionReader(Protocol):
    """Reads what is selected in the window's views (never changes it)."""

    def current_entry(self) -> Entry | None:
        """The entry of the tree's current row (None for none, or a group row)."""

    def selected_entries(self) -> list[Entry]:
        """The entries of the tree's selected rows, top to bottom as shown."""

    def selected_paths(self) -> list[str]:
        """The sessions selected in the list, in view order (absolute paths)."""

    def current_path(self) -> str | None:
        """The session of the list's current row (absolute path)."""


class ViewSelection:
    """:class:`SelectionReader` over the window's session table and branch tree."""

    def __init__(
        self, table: QTableView, proxy: SessionFilterProxy, tree: QTreeView, tree_model: BranchTreeModel
    ) -> None:
        self._table, self._proxy, self._tree, self._tree_model = table, proxy, tree, tree_model

    def current_entry(self) -> Entry | None:
        return self._tree_model.entry_for_index(self._tree.currentIndex())

    def selected_entries(self) -> list[Entry]:
        rows = sorted(
            self._tree.selectionModel().selectedRows(0), key=lambda i: self._tree.visualRect(i).top()
        )
        entries = (self._tree_model.entry_for_index(index) for index in rows)
        return [entry for entry in entries if entry is not None]

    def selected_paths(self) -> list[str]:
        rows = sorted(index.row() for index in self._table.selectionModel().selectedRows())
        summaries = (self._proxy.summary_at(row) for row in rows)
        return [os.path.abspath(s.path) for s in summaries if s is not None]

    def current_path(self) -> str | None:
        current = self._table.currentIndex()
        summary = self._proxy.summary_at(current.row()) if current.isValid() else None
        return os.path.abspath(summary.path) if summary is not None else None


class _NoSelection:
    def current_entry(self) -> Entry | None:
        return None

    def selected_entries(self) -> list[Entry]:
        return []

    def selected_paths(self) -> list[str]:
        return []

    def current_path(self) -> str | None:
        return None


class WindowContext(QObject):
    """The window as a controller sees it (see the module docstring)."""

    # -- notifications, each from the one owner of that state
    session_loaded = Signal(object)  # the core Session now shown (open-session controller)
    session_updated = Signal(object)  # RefreshResult of the open session after a file change (same)
    load_failed = Signal(str)  # the sentence shown when a session cannot be read (same)
    session_closed = Signal()  # no session is shown any more (same)
    selection_changed = Signal()  # the list's selection or the tree's current entry changed (the window)
    session_changed = Signal(object)  # SessionChanged: one per edit, written by the editing controller
    # -- requests, carried out by the owner
    open_requested = Signal(object)  # OpenRequest (open-session controller)
    reveal_requested = Signal(str)  # select this entry of the open session, showing all if hidden (same)
    catalogue_refresh_requested = Signal()  # a session file changed: refresh the list soon (catalogue)
    listed_changed = Signal()  # the session list's rows changed (catalogue): new child sessions, say

    def __init__(self, runner: TaskRunner, status: Status, dialog_parent: QWidget) -> None:
        super().__init__(dialog_parent)
        self.runner = runner
        self.scheduler: Scheduler = runner.scheduler  # priorities and the foreground hold
        self.status = status
        self.dialog_parent = dialog_parent  # for modal dialogs and message boxes
        self._session: Callable[[], Session | None] = lambda: None
        self._selection: SelectionReader = _NoSelection()
        self._summaries: Callable[[], list[SessionSummary]] = list
        self._focus: Callable[[str], None] = lambda _view: None

    def provide(
        self,
        *,
        session: Callable[[], Session | None] | None = None,
        selection: SelectionReader | None = None,
        summaries: Callable[[], list[SessionSummary]] | None = None,
        focus: Callable[[str], None] | None = None,
    ) -> None:
        """Wiring (the window, once): the open session, the selection, the summaries and the focus.

        ``focus`` puts the keyboard focus in a pane (:meth:`focus_view`).
        """
        if session is not None:
            self._session = session
        if selection is not None:
            self._selection = selection
        if summaries is not None:
            self._summaries = summaries
        if focus is not None:
            self._focus = focus

    # ------------------------------------------------------------------ state
    @property
    def session(self) -> Session | None:
        """The session shown in the tree."""
        return self._session()

    def current_entry(self) -> Entry | None:
        """The entry selected in the tree (None when no session is open)."""
        return self._selection.current_entry() if self.session is not None else None

    def selected_entries(self) -> list[Entry]:
        """The entries selected in the tree, top to bottom."""
        return self._selection.selected_entries() if self.session is not None else []

    def selected_paths(self) -> list[str]:
        """The sessions selected in the list, in view order (absolute paths)."""
        return self._selection.selected_paths()

    def target_path(self) -> str | None:
        """The one session that rename, clone and reveal act on: the current list row, else the open one."""
        path = self._selection.current_path()
        if path is not None:
            return path
        session = self.session
        return session.path if session is not None else None

    def summaries(self) -> list[SessionSummary]:
        """The summaries listed in the window."""
        return self._summaries()

    def summary_for(self, path: str) -> SessionSummary | None:
        """The listed summary of the session at ``path`` (absolute), if it is listed."""
        for summary in self._summaries():
            if os.path.abspath(summary.path) == path:
                return summary
        return None

    # ------------------------------------------------------------------ requests
    def focus_view(self, view: str) -> None:
        """Put the keyboard focus in a pane of the window: ``"tree"`` or ``"messages"`` (the transcript)."""
        self._focus(view)

    def open_session(self, path: str, entry_id: str | None = None, *, reload: bool = False) -> None:
        """Ask for the session at ``path`` to be shown (``entry_id`` selected once it is)."""
        self.open_requested.emit(OpenRequest(os.path.abspath(path), entry_id, reload))

    def reveal_entry(self, entry_id: str) -> None:
        """Ask for ``entry_id`` of the open session to be selected in the tree."""
        self.reveal_requested.emit(entry_id)

    def refresh_catalogue(self) -> None:
        """Ask for the session list to be brought up to date soon (debounced)."""
        self.catalogue_refresh_requested.emit()
