"""Safe editing from the window: labels, names, undo/redo, fork, clone, trash, copy and reveal.

Every write goes through core (``core.writing.edits`` for labels and names, ``core.writing.writer``
for new files, ``core.writing.trash`` for the trash); this module only asks and shows. Label and name
edits on the open session run on the GUI thread, because they append through the window's own ``Session``
(whose checksum of every byte read is what lets core refuse a file that changed underneath) and the
window refreshes that object on the GUI thread too. A name edit on a session that is not open, and fork
and clone, read their own copy of the file in a worker (a write job: ``gui.scheduling.Priority.WRITE``),
never on the GUI thread: a session file can be a gigabyte.

Each edit that went through is broadcast once, as one :class:`~gui.controllers.context.SessionChanged`
(``WindowContext.session_changed``): the list, the tree and the window's title follow from it.

Undo and redo wrap the core command objects: undoing appends the entry that restores the previous value;
nothing is ever removed from a file. A command whose undo or redo cannot be written (the file changed or
vanished) is shown as an error and dropped from the stack.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from functools import partial
from typing import TYPE_CHECKING, TypeVar

from PySide6.QtCore import QModelIndex, QObject, QTimer, Signal
from PySide6.QtGui import QAction, QGuiApplication, QKeySequence, QUndoGroup, QUndoStack
from PySide6.QtWidgets import QFileDialog, QMenu, QMessageBox

from core.formatting import one_line
from gui.actions import ActionRegistry
from gui.controllers.context import Change, SessionChanged, WindowContext
from gui.controllers.edit_commands import EditCommand, write_edit, write_name
from gui.desktop import reveal_in_file_manager
from gui.errors import user_sentence
from gui.models.roles import Role
from gui.scheduling import Priority
from gui.widgets.text_prompt import ask_text

if TYPE_CHECKING:
    from core.session import Entry, Session, SessionSummary
    from core.writing import SetLabel, SetName

__all__ = ["EditCommand", "EditingController", "reveal_in_file_manager"]

T = TypeVar("T")
_TITLE_WIDTH = 60  # characters of a session title quoted in a confirmation


def _tip_follows_text(action: QAction) -> None:
    """The action's tooltip: its whole text (an undo's, which names the edit) and its shortcut."""
    keys = action.shortcut().toString(QKeySequence.SequenceFormat.NativeText)
    text = action.text().replace("&", "")
    tip = f"{text} ({keys})" if keys else text
    if action.toolTip() != tip:  # setToolTip emits changed again: only when it differs
        action.setToolTip(tip)


def _title_of(summary: SessionSummary | None, path: str) -> str:
    """How a confirmation names a session: its name or first message, quoted, else its file name."""
    name = os.path.basename(path)
    title = one_line(summary.title) if summary is not None else ""
    if not title or title == "(no messages)":
        return name
    if len(title) > _TITLE_WIDTH:
        title = title[: _TITLE_WIDTH - 1] + "…"
    return f"“{title}”"


class EditingController(QObject):
    """The window's editing actions, their context-menu entries and the undo stack."""

    edit_failed = Signal(str)  # the sentence shown to the user (what went through: context.session_changed)

    def __init__(self, context: WindowContext, actions: ActionRegistry) -> None:
        super().__init__(context)
        self._context = context
        # One undo stack per session; the Edit menu's Undo and Redo follow the open session's. A rename of a
        # session that is not open goes on that session's stack, so "Redo Rename to …" never names another.
        self.undo_group = QUndoGroup(self)
        self._stacks: dict[str, QUndoStack] = {}
        self._no_session = QUndoStack(self)  # active while no session is open: nothing to undo
        self.undo_group.addStack(self._no_session)
        self.undo_group.setActiveStack(self._no_session)
        self._make_actions(actions)
        actions.add_context("list", self._fill_list_menu)
        actions.add_context("tree", self._fill_tree_menu)
        context.session_loaded.connect(self._follow_open_session)
        context.session_closed.connect(self._follow_open_session)
        self._said_when_shown: tuple[str, str] | None = None  # (a new session, what to say once shown)
        context.session_loaded.connect(self._say_when_shown)

    @property
    def undo_stack(self) -> QUndoStack:
        """The undo stack of the open session (an empty one while none is open)."""
        stack = self.undo_group.activeStack()
        assert stack is not None
        return stack

    def stack_for(self, path: str) -> QUndoStack:
        """The undo stack of the session at ``path`` (absolute), made on first use."""
        stack = self._stacks.get(path)
        if stack is None:
            stack = self._stacks[path] = QUndoStack(self)
            self.undo_group.addStack(stack)
        return stack

    def _say_when_shown(self, session: Session) -> None:
        pending = self._said_when_shown
        if pending is not None and session.path == pending[0]:
            self._said_when_shown = None
            self._context.status.showMessage(pending[1], 10000)

    def _follow_open_session(self, *_args: object) -> None:
        session = self._context.session
        self.undo_group.setActiveStack(
            self.stack_for(session.path) if session is not None else self._no_session
        )

    # ------------------------------------------------------------------ actions
    def _make_actions(self, actions: ActionRegistry) -> None:
        context = self._context

        def has_entry() -> bool:
            return context.current_entry() is not None

        def has_target() -> bool:
            return context.target_path() is not None

        def has_selection() -> bool:
            return bool(context.selected_paths())

        self.undo_action = actions.adopt(
            "edit.undo",
            self.undo_group.createUndoAction(self, "&Undo"),
            shortcut="Ctrl+Z",
            menu="Edit",
            section="undo",
            toolbar=True,
        )
        self.redo_action = actions.adopt(
            "edit.redo",
            self.undo_group.createRedoAction(self, "&Redo"),
            shortcut="Ctrl+Shift+Z",
            menu="Edit",
            section="undo",
            toolbar=True,
        )
        for action, short in ((self.undo_action, "Undo"), (self.redo_action, "Redo")):
            # The toolbar button keeps its short name (a fixed width); the menu and the tooltip say what
            # would be undone ("Undo Label 5f6ba966 “bug-report”"), which follows each edit.
            action.setIconText(short)
            action.changed.connect(partial(_tip_follows_text, action))
            _tip_follows_text(action)
        self.label_action = actions.add(
            "edit.label",
            "&Label Entry…",
            self.label_dialog,
            shortcut="Ctrl+Shift+L",
            tip="Set, change or clear the selected entry's label",
            menu="Edit",
            section="edit",
            toolbar=True,
            enabled=has_entry,
        )
        # F2 renames only while the list has focus; in the tree it edits the label in place.
        self.rename_action = actions.add(
            "edit.rename",
            "Re&name Session…",
            self.rename_dialog,
            shortcut="F2",
            tip="Set, change or clear the session's name",
            menu="Edit",
            section="edit",
            scope="list",
            enabled=has_target,
        )
        self.copy_id_action = actions.add(
            "edit.copy_id",
            "Copy Entry &ID",
            self.copy_entry_id,
            shortcut="Ctrl+Shift+C",
            menu="Edit",
            section="copy",
            enabled=has_entry,
        )
        self.copy_markdown_action = actions.add(
            "edit.copy_markdown",
            "Copy Message as &Markdown",
            self.copy_markdown,
            shortcut="Ctrl+Alt+C",
            tip="Copy the selected entry as Markdown",
            menu="Edit",
            section="copy",
            enabled=has_entry,
        )
        self.fork_action = actions.add(
            "session.fork",
            "&Fork from Entry",
            self.fork_from_entry,
            shortcut="Ctrl+Shift+K",
            tip="A new session holding the path from the root to the selected entry",
            menu="Session",
            section="new",
            toolbar=True,
            enabled=has_entry,
        )
        self.clone_action = actions.add(
            "session.clone",
            "&Clone Session",
            self.clone_session,
            tip="A copy of the whole session with a new id",
            menu="Session",
            section="new",
            enabled=has_target,
        )
        self.clone_into_action = actions.add(
            "session.clone_into",
            "Clone into &Project Folder…",
            self.clone_into_project,
            tip="A copy of the session for another project folder (new working directory)",
            menu="Session",
            section="new",
            enabled=has_target,
        )
        self.reveal_action = actions.add(
            "session.reveal",
            "Reveal in File &Manager",
            self.reveal,
            menu="Session",
            section="file",
            enabled=has_target,
        )
        # Delete acts on the list only: in the filter box it deletes text, in the tree nothing.
        self.trash_action = actions.add(
            "session.trash",
            "Move to &Trash",
            self.trash_selected,
            shortcut="Delete",
            tip="Move the selected sessions to the trash",
            menu="Session",
            section="trash",
            scope="list",
            enabled=has_selection,
        )

    def _fill_list_menu(self, menu: QMenu, index: QModelIndex) -> None:
        if not index.isValid():
            return
        menu.addAction(self.rename_action)
        menu.addAction(self.clone_action)
        menu.addAction(self.clone_into_action)
        menu.addAction(self.reveal_action)
        menu.addSeparator()
        menu.addAction(self.trash_action)

    def _fill_tree_menu(self, menu: QMenu, index: QModelIndex) -> None:
        entry = index.data(Role.ITEM) if index.isValid() else None
        session = self._context.session
        if entry is None or session is None:
            return
        menu.addAction(self.label_action)
        if session.label_for(entry.id):
            clear = menu.addAction("C&lear Label")
            clear.triggered.connect(lambda _checked=False, eid=entry.id: self.set_label(eid, ""))
        menu.addSeparator()
        menu.addAction(self.copy_id_action)
        menu.addAction(self.copy_markdown_action)
        menu.addSeparator()
        menu.addAction(self.fork_action)

    def current_entry(self) -> Entry | None:
        """The entry selected in the branch tree."""
        return self._context.current_entry()

    def selected_paths(self) -> list[str]:
        """The sessions selected in the list, in view order (absolute paths)."""
        return self._context.selected_paths()

    # ------------------------------------------------------------------ labels and names
    def set_label(self, entry_id: str, text: str) -> bool:
        """Give an entry of the open session the label ``text`` ("" clears it), as an undoable edit."""
        from core.errors import PrimeSessionsError
        from core.writing import label_edit

        session = self._context.session
        if session is None:
            return False
        try:
            edit = label_edit(session, entry_id, text)
        except PrimeSessionsError as err:
            self._report(str(err))
            return False
        return edit is None or self._do(edit)

    def rename(self, path: str, name: str) -> bool:
        """Name the session at ``path`` (``""`` clears the name), as an undoable edit.

        The open session is named at once, through the window's ``Session``; another one in a worker, which
        reads it (True here means the write was started; a refusal is reported when it comes).
        """
        from core.errors import PrimeSessionsError
        from core.writing import name_edit

        path = os.path.abspath(path)
        session = self._open_at(path)
        if session is None:

            def written(edit: SetName | None) -> None:
                if edit is not None:
                    self.stack_for(edit.path).push(EditCommand(self, edit))
                    self._announce(edit)

            self._write(f"Renaming {os.path.basename(path)}…", lambda: write_name(path, name), written)
            return True
        try:
            edit = name_edit(session, name)
        except PrimeSessionsError as err:
            self._report(str(err))
            return False
        return edit is None or self._do(edit)

    def _do(self, edit: SetLabel | SetName) -> bool:
        if not self.apply_edit(edit):
            return False
        self.stack_for(edit.path).push(EditCommand(self, edit))
        return True

    def apply_edit(
        self,
        edit: SetLabel | SetName,
        *,
        deferred_errors: bool = False,
        refused: Callable[[], None] | None = None,
    ) -> bool:
        """Write one edit through core and show its result; False (after telling the user) when refused.

        On the open session the edit is written here, through the window's ``Session``: the entries core
        read while appending (the agent's, and ours) go out with the change, since the window's file
        watcher will find nothing new afterwards; a file that changed underneath in a way that is not an
        append is reloaded. Another session's edit is written in a worker: True means it was started, and
        ``refused`` is called if it is refused when it comes.
        """
        from core.errors import PrimeSessionsError, SessionChangedError

        context = self._context
        session = self._open_at(edit.path)
        if session is None:
            self._write(edit.description, lambda: write_edit(edit), self._announce, refused, deferred_errors)
            return True
        before = len(session.entries)
        try:
            edit.apply(session)
        except SessionChangedError as err:
            self._report(str(err), deferred_errors)
            entry = self.current_entry()
            context.open_session(session.path, entry.id if entry else None, reload=True)
            return False
        except PrimeSessionsError as err:
            self._report(str(err), deferred_errors)
            if len(session.entries) > before:  # the agent's entries, read while checking
                read = tuple(session.entries[before:])
                context.session_changed.emit(
                    SessionChanged(Change.READ, (session.path,), None, None, session, read)
                )
            return False
        self._announce(edit, session, tuple(session.entries[before:]))
        return True

    def _announce(
        self, edit: SetLabel | SetName, session: Session | None = None, appended: tuple[Entry, ...] = ()
    ) -> None:
        """Broadcast one written edit (once) and say it in the status line."""
        from core.writing import SetLabel

        what, entry_id = (Change.LABEL, edit.entry_id) if isinstance(edit, SetLabel) else (Change.NAME, None)
        self._context.status.showMessage(edit.description, 5000)
        self._context.session_changed.emit(
            SessionChanged(what, (edit.path,), entry_id, edit.new, session, appended)
        )

    def _open_at(self, path: str) -> Session | None:
        """The window's session when it is the file at ``path`` (absolute), else None."""
        session = self._context.session
        return session if session is not None and session.path == path else None

    def _write(
        self,
        doing: str,
        work: Callable[[], T],
        written: Callable[[T], None],
        refused: Callable[[], None] | None = None,
        deferred_errors: bool = False,
    ) -> None:
        """Run ``work`` (it writes) as a write job; ``written`` gets its result on the GUI thread."""
        self._context.status.showMessage(doing)

        def failed(error: Exception) -> None:
            self._report(user_sentence(error), deferred_errors)
            if refused is not None:
                refused()

        self._context.runner.start(
            "edit-write", lambda _task: work(), written, failed, priority=Priority.WRITE
        )

    def label_dialog(self) -> None:
        """Ask for the selected entry's label in a small dialog (empty clears it)."""
        entry = self.current_entry()
        session = self._context.session
        if entry is None or session is None:
            return
        current = session.label_for(entry.id) or ""
        text, ok = ask_text(
            self._context.dialog_parent,
            "Label Entry",
            f"Label for entry {entry.id} (empty clears it):",
            current,
        )
        if ok and self.set_label(entry.id, text):
            # Back to the entry labelled, wherever the dialog was asked for from (the filter box, the
            # toolbar): Ctrl+Z now undoes the label, not the typing in a text box.
            self._context.focus_view("tree")

    def rename_dialog(self) -> None:
        """Ask for the session's name in a small dialog (empty clears it)."""
        path = self._context.target_path()
        if path is None:
            return
        summary = self._context.summary_for(path)
        session = self._context.session
        if summary is not None:
            current = summary.name or ""
        elif session is not None and session.path == path:
            current = session.name or ""
        else:
            current = ""
        text, ok = ask_text(
            self._context.dialog_parent, "Rename Session", "Session name (empty clears it):", current
        )
        if ok:
            self.rename(path, text)

    # ------------------------------------------------------------------ new files
    def fork_from_entry(self) -> None:
        """Write a new session holding the path to the selected entry, then open it at that entry."""
        entry = self.current_entry()
        session = self._context.session
        if entry is None or session is None:
            return
        path, at = session.path, entry.id

        def work() -> str:
            from core.session import load_session
            from core.writing import fork_session

            return str(fork_session(load_session(path), at))

        self._write_new("Forking…", work, at, "Forked to")

    def clone_session(self) -> None:
        """Write a copy of the session (new id, ``parentSession`` set) beside it, then open it."""
        path = self._context.target_path()
        if path is not None:
            self._clone(path, None)

    def clone_into_project(self) -> None:
        """Ask for another project folder and write a copy of the session for it (a new cwd)."""
        path = self._context.target_path()
        if path is None:
            return
        summary = self._context.summary_for(path)
        start = summary.cwd if summary is not None and os.path.isdir(summary.cwd) else os.path.expanduser("~")
        folder = QFileDialog.getExistingDirectory(
            self._context.dialog_parent, "Clone into Project Folder", start
        )
        if folder:
            self._clone(path, os.path.abspath(folder))

    def _clone(self, path: str, cwd: str | None) -> None:
        def work() -> str:
            from core.session import load_session
            from core.writing import clone_session

            return str(clone_session(load_session(path), cwd=cwd))

        self._write_new("Cloning…", work, None, "Cloned to")

    def _write_new(self, doing: str, work: Callable[[], str], entry_id: str | None, done: str) -> None:
        def written(new_path: str) -> None:
            folder, name = os.path.split(new_path)
            at = f", shown at {entry_id}" if entry_id else ""
            said = f"{done} {name} in {folder}{at}"
            self._context.status.showMessage(said, 10000)
            # Opening the new session says "Loading…" over it: said again once it is shown.
            self._said_when_shown = (new_path, said)
            self._context.session_changed.emit(SessionChanged(Change.CREATED, (new_path,), entry_id))

        self._write(doing, work, written)

    # ------------------------------------------------------------------ trash
    def trash_selected(self) -> None:
        """Move the selected sessions to the trash after a confirmation that names them."""
        from core.writing import trash_sessions

        paths = self.selected_paths()
        if not paths:
            return
        titles = [_title_of(self._context.summary_for(p), p) for p in paths]
        if len(paths) == 1:
            question = f"Move the session {titles[0]} to the trash?"
        else:
            shown = "\n".join(f"• {t}" for t in titles[:10])
            more = f"\n… and {len(paths) - 10} more" if len(paths) > 10 else ""
            question = f"Move these {len(paths)} sessions to the trash?\n\n{shown}{more}"
        answer = QMessageBox.question(
            self._context.dialog_parent,
            "Move to Trash",
            question + "\n\nThey can be restored from the system trash.",
            QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.Cancel,
            QMessageBox.StandardButton.Cancel,
        )
        if answer != QMessageBox.StandardButton.Yes:
            return
        results = trash_sessions(paths)
        gone = {r.path for r in results if r.ok}
        if gone:
            count = len(gone)
            self._context.status.showMessage(
                f"Moved {count} {'session' if count == 1 else 'sessions'} to the trash", 5000
            )
            self._context.session_changed.emit(SessionChanged(Change.TRASHED, tuple(sorted(gone))))
        errors = [r.error for r in results if r.error]
        if errors:
            self._report(" ".join(errors))

    # ------------------------------------------------------------------ copy and reveal
    def copy_entry_id(self) -> None:
        """Put the selected entry's id on the clipboard."""
        entry = self.current_entry()
        if entry is not None:
            QGuiApplication.clipboard().setText(entry.id)
            self._context.status.showMessage(f"Copied {entry.id}", 3000)

    def copy_markdown(self) -> None:
        """Put the selected entry, rendered as Markdown (as a full export shows it), on the clipboard."""
        from core.errors import PrimeSessionsError
        from core.export import entry_to_markdown

        entry = self.current_entry()
        session = self._context.session
        if entry is None or session is None:
            return
        try:
            text = entry_to_markdown(session, entry.id)
        except PrimeSessionsError as err:
            self._report(str(err))
            return
        QGuiApplication.clipboard().setText(text)
        self._context.status.showMessage("Copied the message as Markdown", 3000)

    def reveal(self) -> None:
        """Show the session file in the system file manager."""
        path = self._context.target_path()
        if path is None:
            return
        if not os.path.exists(path):
            self._report(f"{path} was deleted or moved.")
            return
        reveal_in_file_manager(path)

    # ------------------------------------------------------------------ errors
    def _report(self, sentence: str, deferred: bool = False) -> None:
        """Tell the user in one message box; the window keeps running."""
        parent = self._context.dialog_parent
        self._context.status.showMessage(sentence, 10000)
        self.edit_failed.emit(sentence)
        if deferred:
            # From inside QUndoStack.undo()/redo(): let the stack finish before a modal box spins the loop.
            QTimer.singleShot(0, parent, lambda: QMessageBox.warning(parent, "Prime Sessions", sentence))
        else:
            QMessageBox.warning(parent, "Prime Sessions", sentence)
