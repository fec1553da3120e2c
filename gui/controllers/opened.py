"""The open session: loading it in a worker, showing it in the branch tree, following the file as it grows.

Selecting a session loads it in a worker (channel ``"load"``): the core ``Session``, its diagnostics and the
tree's visible structure are computed there, and the tree model swaps them in on the main thread. The open
file is watched; appended entries are added to the tree as they arrive, a replaced or rewritten file is
read again. This controller is the one owner of the open session: everything else reads it through
``WindowContext.session`` and asks for another one with ``WindowContext.open_session``.
"""

from __future__ import annotations

import gc
import os
import time
from collections import deque
from collections.abc import Callable, Sequence
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QFileSystemWatcher, QModelIndex, QObject, QPersistentModelIndex, QTimer, Signal
from PySide6.QtWidgets import QAbstractItemView, QMenu, QTreeView

from core.formatting import one_line
from core.visible import next_user_message, sibling_branch
from gui.actions import ActionRegistry
from gui.controllers.context import Change, OpenRequest, SessionChanged, WindowContext
from gui.errors import user_sentence
from gui.memory import give_back
from gui.models.branch_tree_model import BranchTreeModel, TreeStructure
from gui.scheduling import Priority
from gui.widgets.diagnostics_panel import DiagnosticsPanel
from gui.widgets.panes import FilterModeBox

if TYPE_CHECKING:
    from core.session import Entry, Session
    from core.session.subagents import ChildSession

__all__ = ["OpenSessionController"]

_RENDER_DELAY_MSECS = 15  # the first message of a loaded session is rendered after the tree has painted
_EXPAND_AT_ONCE = 20  # levels above the leaf expanded in one go (most sessions have fewer)
_EXPAND_BUDGET_SECS = 0.02  # beyond that, time spent expanding per turn of the event loop
# Up to this many entries in the session shown, the collection before a load walks the frozen objects too
# (~5 an entry and the window's own 65,000, at 0.1-0.2 us each: 15-20 ms), see Scheduler.collect_garbage.
_WALK_FROZEN_ENTRIES = 20_000


def load(
    path: str, filter_mode: str, children: Sequence[ChildSession] = (), catalogue_dir: Path | None = None
) -> tuple[Session, TreeStructure]:
    """Worker: index one session file, find its diagnostics and the tree's visible structure.

    All of it is Python work that would otherwise stall the window for ~100 ms on a 20,000-entry session.
    The leaf, shown first, is rendered once here and thrown away: that imports cmark, Pygments and
    the lexers its code needs (~100 ms on first use) off the GUI thread. ``children``: the listed child
    sessions of this one, which its launching messages link to. A big session the catalogue in
    ``catalogue_dir`` keeps a snapshot of comes from that snapshot (:mod:`core.catalogue.snapshots`): a
    reopened gigabyte session is not parsed again.
    """
    from core.catalogue.snapshots import read_snapshot
    from core.kinds.notes import session_notes
    from core.render import render_entry
    from core.session import load_session
    from core.session.subagents import launches
    from core.visible.transcript import transcript_of

    restored = read_snapshot(catalogue_dir, path) if catalogue_dir is not None else None
    session = restored.session if restored is not None else load_session(path)
    session.child_sessions = launches(session, children)
    session.diagnostics  # noqa: B018 (computed here, off the GUI thread)
    structure = restored.structure if restored is not None else None
    if structure is None or not structure.matches(session, filter_mode):
        structure = BranchTreeModel.prepare(session, filter_mode)
    leaf = session.leaf
    if leaf is not None:
        render_entry(leaf, session.body(leaf))
    session_notes(session)  # cached for the transcript: a pass over every entry (42 ms at 520,000)
    transcript_of(session, None, filter_mode)  # kept for the transcript: the path walked (1.2 s at 520,000)
    # A full collection scans every tracked object: ~100,000 with a 20,000-entry session open, ~20 ms with
    # the GIL held, so the window waits too. Freezing what is alive now makes later collections skip it.
    # Only what this load made and what lived on since the last freeze is frozen: the garbage of before
    # was collected on the GUI thread as the load was asked for (Scheduler.collect_garbage). Frozen objects
    # are still freed by their reference counts (an earlier session's index, once dropped); unfreezing
    # here, with no collection before the freeze again, gave the collector nothing back.
    gc.freeze()
    return session, structure


class OpenSessionController(QObject):
    """Loads, shows and follows one session in the branch tree; selects its entries."""

    # The entry to show in the message pane (session, entry); not emitted while a loaded session's first
    # layout is under way (the pane renders once the tree has painted).
    entry_shown = Signal(object, object)

    def __init__(
        self,
        context: WindowContext,
        tree_model: BranchTreeModel,
        tree: QTreeView,
        filter_mode: FilterModeBox,
        diagnostics_panel: DiagnosticsPanel,
        actions: ActionRegistry,
    ) -> None:
        super().__init__(context)
        self._context = context
        self._tree_model = tree_model
        self._tree = tree
        self._filter_mode = filter_mode
        self._diagnostics = diagnostics_panel
        self._session: Session | None = None
        self._loading_path: str | None = None
        self._pending_entry: str | None = None  # select this entry once the loading session arrives
        self.load_error: str | None = None  # why the last requested file could not be read
        # The catalogue's folder, with big sessions' snapshots (None: read the file); set by the window.
        self.catalogue_dir: Path | None = None
        self._render_deferred = False  # while a loaded session's leaf is selected (see _on_loaded)
        self._holding = False  # background passes wait: a session is being loaded and shown
        # Where the reader is when it is not the tree's current row: the entry at the top of the
        # transcript while the transcript has the focus (Alt+Up/Down go from there); set by the window.
        self.reading_position: Callable[[], str | None] = lambda: None
        self.watcher = QFileSystemWatcher(self)
        self.watcher.fileChanged.connect(self.on_file_changed)
        tree.selectionModel().currentChanged.connect(self._on_current_changed)
        filter_mode.mode_changed.connect(self._on_filter_mode_changed)
        context.open_requested.connect(self._on_open_requested)
        context.reveal_requested.connect(self.reveal_entry)
        context.session_changed.connect(self._on_session_changed)
        context.listed_changed.connect(self._follow_children)
        self._add_go_actions(actions)

    def _add_go_actions(self, actions: ActionRegistry) -> None:
        """The Go menu: the leaf, the next or previous user message, the branch beside this one."""
        has_session = lambda: self._session is not None  # noqa: E731
        has_entry = lambda: self._session is not None and self.current_entry() is not None  # noqa: E731
        actions.add(
            "go.leaf", "&Jump to Leaf", self.select_leaf, shortcut="Ctrl+L", menu="Go", enabled=has_session
        )
        # Child sessions, both ways: the one the selected message launched, and the one that started this.
        actions.add(
            "go.subagent",
            "Open &Subagent Session",
            self.open_subagent,
            shortcut="Ctrl+Alt+Down",
            tip="Open the subagent session the selected message started (a menu when it started several)",
            menu="Go",
            section="sessions",
            enabled=lambda: bool(self.launched()),
        )
        actions.add(
            "go.parent_session",
            "Open P&arent Session",
            self.open_parent,
            shortcut="Ctrl+Alt+Up",
            tip="Open the session that started this subagent session",
            menu="Go",
            section="sessions",
            enabled=lambda: self._parent_path() is not None,
        )
        for name, text, shortcut, move in (
            ("go.next_user", "&Next User Message", "Alt+Down", lambda: self._go(next_user_message, 1)),
            ("go.previous_user", "&Previous User Message", "Alt+Up", lambda: self._go(next_user_message, -1)),
            ("go.next_branch", "Next &Branch", "Alt+Shift+Down", lambda: self._go(sibling_branch, 1)),
            ("go.previous_branch", "Previous B&ranch", "Alt+Shift+Up", lambda: self._go(sibling_branch, -1)),
        ):
            actions.add(name, text, move, shortcut=shortcut, menu="Go", section="move", enabled=has_entry)

    def launched(self) -> tuple[ChildSession, ...]:
        """The child sessions the tree's current entry started (none when it started none)."""
        entry, session = self.current_entry(), self._session
        if entry is None or session is None:
            return ()
        return session.child_sessions.get(entry.id, ())

    def open_subagent(self) -> bool:
        """Open the child session the current entry started; with several, a menu under its row asks which."""
        kids = self.launched()
        if not kids:
            return False
        if len(kids) == 1:
            self._context.open_session(kids[0].path)
            return True
        menu = QMenu(self._tree)
        for kid in kids:
            title = one_line(kid.title)
            action = menu.addAction(title if len(title) <= 80 else title[:79] + "…")
            action.triggered.connect(lambda _checked=False, path=kid.path: self._context.open_session(path))
        rect = self._tree.visualRect(self._tree.currentIndex())
        menu.popup(self._tree.viewport().mapToGlobal(rect.bottomLeft()))
        return True

    def _parent_path(self) -> str | None:
        """The listed session that started the open one, when it is a child session."""
        session = self._session
        summary = self._context.summary_for(session.path) if session is not None else None
        return summary.subagentOf if summary is not None else None

    def open_parent(self) -> bool:
        """Open the session that started the open (child) session."""
        parent = self._parent_path()
        if parent is None:
            return False
        self._context.open_session(parent)
        return True

    def _go(self, find: Callable[[Session, str, int], str | None], step: int) -> bool:
        """Select what ``find`` names from the reader's place (revealing it when the filter hides it).

        The place is the card at the top of the transcript while it has the focus, else the tree's row.
        """
        current, session = self.current_entry(), self._session
        if current is None or session is None:
            return False
        reading = self.reading_position()
        target = find(session, reading if reading is not None else current.id, step)
        if target is None:
            self._context.status.showMessage("Nothing further that way.", 3000)
            return False
        return self.reveal_entry(target)

    # ------------------------------------------------------------------ state
    @property
    def session(self) -> Session | None:
        """The session shown in the tree."""
        return self._session

    @property
    def shown_path(self) -> str | None:
        """The session being loaded, else the one shown."""
        if self._loading_path is not None:
            return self._loading_path
        return self._session.path if self._session is not None else None

    def current_entry(self) -> Entry | None:
        """The entry of the tree's current row."""
        return self._tree_model.entry_for_index(self._tree.currentIndex())

    # ------------------------------------------------------------------ opening
    def open(
        self, path: str | os.PathLike[str], *, entry_id: str | None = None, reload: bool = False
    ) -> None:
        """Load the session at ``path`` in a worker and show it in the tree (latest request wins).

        ``entry_id`` is selected once the session is shown (instead of the leaf); ``reload`` reads the
        open session again.
        """
        path = os.path.abspath(os.fspath(path))
        self._pending_entry = entry_id
        if self._session is not None and self._session.path == path and not reload:
            self._loading_path = None
            self._context.runner.cancel("load")  # an older request for another session must not win
            self._hold_foreground(False)
            if entry_id is not None:
                self._select_pending()
            return
        self._loading_path = path
        # The garbage of before goes now, on this thread, before the load freezes what is alive (load()).
        shown = self._session
        small = shown is None or len(shown.entries) <= _WALK_FROZEN_ENTRIES
        self._context.scheduler.collect_garbage(frozen_too=small)
        self._hold_foreground(True)  # from now until the session is shown, not just read (_finish_load)
        self._context.status.showMessage(f"Loading {path}…")
        mode = self._tree_model.filter_mode
        children = self._children_of(path)
        self._context.runner.start(
            "load",
            lambda _task: load(path, mode, children, self.catalogue_dir),
            self._on_loaded,
            self._on_failed,
            priority=Priority.FOREGROUND,
        )

    def _children_of(self, path: str) -> list[ChildSession]:
        """The listed child sessions of the session at ``path`` (its launching messages link to them)."""
        from core.session.subagents import ChildSession
        from core.timefmt import js_date_ms

        return [
            ChildSession(s.path, s.title, js_date_ms(s.created))
            for s in self._context.summaries()
            if s.subagentOf is not None and os.path.abspath(s.subagentOf) == path
        ]

    def _follow_children(self) -> None:
        """The list changed: when the open session's listed children did, its launching messages follow.

        A subagent's session is listed a moment after its parent started it (while the parent is open and
        live); the tree's rows and the transcript's cards of the messages that started them say so then.
        """
        session = self._session
        if session is None or self._loading_path is not None:
            return
        kids = self._children_of(session.path)
        known = {kid.path for found in session.child_sessions.values() for kid in found}
        if {kid.path for kid in kids} == known:
            return
        from core.session.session import RefreshResult
        from core.session.subagents import launches

        changed = session.set_child_sessions(launches(session, kids))
        if changed:
            self._tree_model.entries_changed(changed)
            self._context.session_updated.emit(RefreshResult())  # nothing read: what derives from it is new

    def reload(self) -> None:
        """Read the open session again (keeping the selected entry), unless another one is loading."""
        session = self._session
        if session is not None and self._loading_path is None:
            current = self.current_entry()
            self.open(session.path, entry_id=current.id if current is not None else None, reload=True)

    def _on_open_requested(self, request: OpenRequest) -> None:
        self.open(request.path, entry_id=request.entry_id, reload=request.reload)

    def _on_loaded(self, loaded: tuple[Session, TreeStructure]) -> None:
        session, structure = loaded
        old = self.watcher.files()
        if old:
            self.watcher.removePaths(old)
        self._session = session
        self._loading_path = None
        self.load_error = None
        self.entry_shown.emit(None, None)
        self._tree_model.reset_session(session, structure)
        self.watcher.addPath(session.path)
        self._diagnostics.set_diagnostics(session.diagnostics)
        self._open_towards_leaf(session)

    def _open_towards_leaf(self, session: Session) -> None:
        """Expand the rows above the leaf, top first, a few levels a turn of the event loop; then select it.

        Selecting the leaf at once makes the view lay out every row of every level above it in one go:
        a 1 GB session nests its leaf 236 levels deep under 15,500 rows, 120-250 ms of one stall. A level
        expanded below levels already laid out costs only its own rows (1-2 ms). The model fetched the
        rows on the way to the leaf with its reset (:meth:`BranchTreeModel.reset_session`).
        """
        index = self._tree_model.index_for_entry(session.leaf_id)
        above: deque[QPersistentModelIndex] = deque()
        parent = index.parent()
        while parent.isValid():
            above.appendleft(QPersistentModelIndex(parent))
            parent = parent.parent()
        deep = len(above) > _EXPAND_AT_ONCE
        if deep:
            self._tree.doItemsLayout()  # the top level now, so that each expand lays out only its rows

        if deep:  # not in the turn that reset the model (tens of ms already)
            QTimer.singleShot(0, self, partial(self._expand_step, session, above, deep))
        else:
            self._expand_step(session, above, deep)

    def _expand_step(self, session: Session, above: deque[QPersistentModelIndex], deep: bool) -> None:
        """A turn of :meth:`_open_towards_leaf`.

        A method, not a closure that names itself to come again: that was a reference cycle, which kept
        the session alive after another was shown, until a full collection.
        """
        if session is not self._session:
            return  # another session was shown meanwhile
        deadline = time.perf_counter() + _EXPAND_BUDGET_SECS
        while above:  # at least one level a turn; the last few together
            row = above.popleft()
            if row.isValid():
                self._tree.expand(row)
            if len(above) > _EXPAND_AT_ONCE and time.perf_counter() >= deadline:
                break
        if above:
            QTimer.singleShot(0, self, partial(self._expand_step, session, above, deep))
        elif deep:  # the expanded rows are painted before the selection scrolls to the leaf
            QTimer.singleShot(_RENDER_DELAY_MSECS, self, lambda: self._select_loaded(session))
        else:
            self._select_loaded(session)

    def _select_loaded(self, session: Session) -> None:
        if session is not self._session:
            return  # another session was shown meanwhile
        # The tree's first layout (in select_leaf) and the first message's render each take tens of ms on a
        # 20,000-entry session: the render waits for the next turn of the event loop, so that the two never
        # add up to one long stall.
        self._render_deferred = True
        try:
            self.select_leaf()
            self._select_pending()
        finally:
            self._render_deferred = False
        self._context.status.showMessage(f"{len(session.entries)} entries in {session.path}", 5000)
        # Not 0 ms: a zero timer runs in the same pass of the event loop, before the paint and other timers.
        QTimer.singleShot(_RENDER_DELAY_MSECS, self, lambda: self._finish_load(session))

    def _hold_foreground(self, hold: bool) -> None:
        """Make background passes wait (or stop them waiting) while a session is loaded and shown.

        The catalogue's writer, resumed the moment the load's worker returned, took turns on the
        interpreter lock with the turns that expand and paint the tree: 60-90 ms stalls at 1 GB.
        """
        if hold != self._holding:
            self._holding = hold
            scheduler = self._context.scheduler
            (scheduler.hold_foreground if hold else scheduler.release_foreground)()

    def _finish_load(self, session: Session) -> None:
        if session is not self._session:
            return  # another session was shown meanwhile
        self._hold_foreground(False)
        self._on_current_changed(self._tree.currentIndex(), QModelIndex())
        give_back()  # the session shown before, and what the load made and dropped
        self._context.session_loaded.emit(session)

    def _on_failed(self, error: Exception) -> None:
        self._hold_foreground(False)
        self._loading_path = None
        self._pending_entry = None
        sentence = user_sentence(error)
        self.load_error = sentence
        self._context.status.showMessage(sentence)
        self._context.load_failed.emit(sentence)

    # ------------------------------------------------------------------ selecting entries
    def select_leaf(self) -> None:
        """Select the session's current leaf in the tree (it is always visible)."""
        if self._session is not None:
            self.select_entry(self._session.leaf_id)

    def select_entry(self, entry_id: str | None) -> bool:
        """Select the row of ``entry_id``; False when it is not visible in the current filter mode."""
        index = self._tree_model.index_for_entry(entry_id)
        if not index.isValid():
            return False
        self._tree.setCurrentIndex(index)
        self._tree.scrollTo(index)
        return True

    def mark_reading(self, entry_id: str) -> None:
        """Mark the tree row of the entry at the top of the transcript, scrolled into view; never selected."""
        index = self._tree_model.set_reading(entry_id)
        if index.isValid() and not self._tree.visualRect(index).intersects(self._tree.viewport().rect()):
            self._tree.scrollTo(index, QAbstractItemView.ScrollHint.EnsureVisible)

    def reveal_entry(self, entry_id: str) -> bool:
        """Select ``entry_id`` in the tree, showing all entries when the filter mode hides it."""
        if self.select_entry(entry_id):
            return True
        if self._tree_model.session is None or self._session is None or self._session.get(entry_id) is None:
            return False
        self._filter_mode.set_mode("all")
        return self.select_entry(entry_id)

    def _select_pending(self) -> None:
        entry_id, self._pending_entry = self._pending_entry, None
        if entry_id is not None:
            self.reveal_entry(entry_id)

    def _on_current_changed(self, current: QModelIndex, _previous: QModelIndex) -> None:
        entry = self._tree_model.entry_for_index(current)
        if entry is None or self._session is None or self._render_deferred:
            return
        self.entry_shown.emit(self._session, entry)

    def _on_filter_mode_changed(self, mode: str) -> None:
        current = self.current_entry()
        self._tree_model.filter_mode = mode
        if not self.select_entry(current.id if current is not None else None):
            self.select_leaf()

    # ------------------------------------------------------------------ following the file
    def on_file_changed(self, path: str) -> None:
        """The watched session file changed: read what was appended, or load it again in the worker.

        A replaced or rewritten file is read again whole by the load worker, as a new session (the entry
        selected stays selected): reading it here, and gathering what derives from it, stalled the window
        (seconds for a gigabyte).
        """
        from core.errors import SessionReadError

        session = self._session
        if session is None or os.path.abspath(path) != session.path:
            return
        if session.path not in self.watcher.files() and os.path.exists(session.path):
            self.watcher.addPath(session.path)  # replaced by rename: the watch was dropped
        try:
            result = session.refresh(reload=False)
        except SessionReadError as err:
            self._context.status.showMessage(str(err))
            return
        if result.replaced:
            self._context.refresh_catalogue()  # the list row
            self.reload()
            self._context.status.showMessage(f"Reloading: {result.reason}")
            return
        self._diagnostics.set_diagnostics(session.diagnostics)
        if result.appended:
            current = self.current_entry()
            was_at_leaf = current is None or current.id == self._tree_model.leaf_id
            self._tree_model.append_entries(result.appended)
            if was_at_leaf:
                self.select_leaf()  # follow a live session
            count = len(result.appended)
            self._context.status.showMessage(f"{count} new {'entry' if count == 1 else 'entries'}", 5000)
        if result.appended:
            self._context.refresh_catalogue()  # the list row's message count and modified time
        self._context.session_updated.emit(result)

    def _on_session_changed(self, change: SessionChanged) -> None:
        """An edit: entries it read into the open session go into the tree; a new session is shown."""
        if change.session is self._session and change.appended:
            self._tree_model.append_entries(change.appended)  # the watcher will find nothing new
        if change.what is Change.CREATED:
            self.open(change.path, entry_id=change.entry_id)

    def clear(self) -> None:
        """Show no session: another folder is listed (the tree, Problems panel and file watch reset)."""
        self._context.runner.cancel("load")
        self._hold_foreground(False)
        self._loading_path = None
        self._pending_entry = None
        self.load_error = None
        self.stop_watching()
        self._session = None
        self._tree_model.reset_session(None)
        self._diagnostics.set_diagnostics([])
        self.entry_shown.emit(None, None)
        self._context.session_closed.emit()

    def stop_watching(self) -> None:
        """Stop watching the file (the window is closing, or no session is shown); background passes go on."""
        self._hold_foreground(False)
        if self.watcher.files():
            self.watcher.removePaths(self.watcher.files())
