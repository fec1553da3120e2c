"""The user's notes about sessions in the window: Archive, Pin to Top, Tags…, View ▸ Show Archived.

Notes (:mod:`core.notes`) are kept in their own file in the user's data folder, keyed by session id;
nothing here writes a session file. This controller owns the notes shown: it reads them in a worker at
start, again when the notes file changes (the command line may write it while the window is open) and
after each catalogue pass, and hands them to the list model, which marks the rows (a pin, an archive
box), keeps pinned rows at the top and, through the proxy, leaves archived rows out unless View ▸ Show
Archived is on. Each change is one write task (one SQLite transaction); the list shows the notes the
write returns. Archive and pin are undone by their opposite action (Unarchive, Unpin), named in the
status line after each change.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING

from PySide6.QtCore import QFileSystemWatcher, QModelIndex, QObject, QTimer, Signal
from PySide6.QtWidgets import QMenu

from core.formatting import title as title_of
from core.notes.note import Note, note_key
from gui.actions import ActionRegistry
from gui.controllers.context import WindowContext
from gui.errors import user_sentence
from gui.models.session_filter_proxy import SessionFilterProxy
from gui.models.session_list_model import SessionListModel
from gui.scheduling import Priority
from gui.settings import app_settings
from gui.widgets.command_palette import Command
from gui.widgets.tags_dialog import TagsDialog

if TYPE_CHECKING:
    from core.notes import Notes, SessionRef

__all__ = ["NotesController"]

_SETTING = "notes/show_archived"
_RELOAD_MSECS = 200  # the notes file changed: read it again once the writer is done


def read_notes() -> dict[str, Note]:
    """Worker: every note, by session key."""
    from core.notes import Notes

    return Notes().all()


def write_notes(
    targets: list[tuple[str, str | None]], change: Callable[[Notes, list[SessionRef]], dict[str, Note]]
) -> dict[str, Note]:
    """Worker: ``change`` the notes of the sessions ``targets`` names (path, key if known); every note after.

    A session whose key is not known (not listed) has its header read for its id.
    """
    from core.notes import Notes, SessionRef, ref_of_file

    refs = [SessionRef(key, path) if key else ref_of_file(path) for path, key in targets]
    return change(Notes(), refs)


class NotesController(QObject):
    """Archive, pin and tags of the sessions chosen in the list (else the open one)."""

    notes_shown = Signal()  # the list shows notes just read or written
    notes_written = Signal()  # a change was written, and the list shows the notes after it

    def __init__(
        self,
        context: WindowContext,
        actions: ActionRegistry,
        list_model: SessionListModel,
        proxy: SessionFilterProxy,
        *,
        set_filter: Callable[[str], None],
    ) -> None:
        super().__init__(context)
        self._context = context
        self._actions = actions
        self._model = list_model
        self._proxy = proxy
        self._set_filter = set_filter
        self.dialog: TagsDialog | None = None
        self._writes_started = 0  # a read that saw a write begin meanwhile may hold what it replaced
        self._writing = 0
        on = self._applies
        made = {}
        for name, text, slot, tip, applies in (
            (
                "session.archive",
                "&Archive",
                lambda: self.set_archived(True),
                "Hide the sessions from the list (View ▸ Show Archived lists them again)",
                lambda: on(lambda n: not n.archived),
            ),
            (
                "session.unarchive",
                "Unarc&hive",
                lambda: self.set_archived(False),
                "List the sessions again",
                lambda: on(lambda n: n.archived),
            ),
            (
                "session.pin",
                "&Pin to Top",
                lambda: self.set_pinned(True),
                "Keep the sessions at the top of the list",
                lambda: on(lambda n: not n.pinned),
            ),
            (
                "session.unpin",
                "U&npin",
                lambda: self.set_pinned(False),
                "Stop keeping the sessions at the top of the list",
                lambda: on(lambda n: n.pinned),
            ),
        ):
            made[name] = actions.add(
                name, text, slot, tip=tip, menu="Session", section="notes", enabled=applies
            )
        self.archive_action, self.unarchive_action = made["session.archive"], made["session.unarchive"]
        self.pin_action, self.unpin_action = made["session.pin"], made["session.unpin"]
        self.tags_action = actions.add(
            "session.tags",
            "&Tags…",
            self.edit_tags,
            shortcut="Ctrl+T",
            tip="Tick or type the sessions' tags (the filter box finds them with tag:NAME)",
            menu="Session",
            section="notes",
            enabled=lambda: bool(self.targets()),
        )
        shown = bool(app_settings().value(_SETTING, False, type=bool))
        self.show_archived_action = actions.add_toggle(
            "view.show_archived",
            "Show &Archived Sessions",
            self.set_show_archived,
            checked=shown,
            tip="List archived sessions too, marked with a box and in grey",
            menu="View",
            section="list",
        )
        proxy.set_show_archived(shown)
        actions.add_context("list", self._fill_list_menu)
        self._reload_timer = QTimer(self)
        self._reload_timer.setSingleShot(True)
        self._reload_timer.setInterval(_RELOAD_MSECS)
        self._reload_timer.timeout.connect(self.reload)
        self.watcher = QFileSystemWatcher(self)  # the command line may change the notes meanwhile
        self.watcher.directoryChanged.connect(lambda _path: self._reload_timer.start())
        self._watch()
        self.reload()

    # ------------------------------------------------------------------ state
    def notes(self) -> Mapping[str, Note]:
        """Every note shown, by session key."""
        return self._model.notes()

    def targets(self) -> list[str]:
        """The sessions the actions act on: those selected in the list, else the open one (absolute)."""
        paths = self._context.selected_paths()
        if paths:
            return paths
        path = self._context.target_path()
        return [path] if path is not None else []

    def _key_of(self, path: str) -> str | None:
        """The notes key of the session at ``path`` when the window knows it (listed, or open), else None."""
        summary = self._context.summary_for(path)
        if summary is not None:
            return note_key(summary.id, summary.path)
        session = self._context.session
        if session is not None and os.path.abspath(session.path) == path:
            return note_key(session.session_id, session.path)  # opened from elsewhere, not listed
        return None

    def note_of(self, path: str) -> Note:
        """What the user noted about the session at ``path`` (an empty note when nothing, or not listed)."""
        key = self._key_of(path)
        note = self.notes().get(key) if key is not None else None
        return note if note is not None else Note(key or "")

    def _applies(self, test: Callable[[Note], bool]) -> bool:
        return any(test(self.note_of(path)) for path in self.targets())

    def known_tags(self) -> list[str]:
        """Every tag in use, one per spelling that differs only in case, sorted."""
        names: dict[str, str] = {}
        for note in self.notes().values():
            for tag in note.tags:
                names.setdefault(tag.casefold(), tag)
        return [names[k] for k in sorted(names)]

    # ------------------------------------------------------------------ reading
    def _watch(self) -> None:
        from core.notes import default_notes_dir

        folder = str(default_notes_dir())
        if os.path.isdir(folder) and folder not in self.watcher.directories():
            self.watcher.addPath(folder)

    def reload(self) -> None:
        """Read the notes again in a worker (the list shows them when read)."""
        started, writing = self._writes_started, self._writing

        def read(notes: dict[str, Note]) -> None:
            # A write began since, or was under way: its own result (newer) is shown or coming, and the
            # notes file's change after it asks for another read.
            if self._writes_started == started and not writing:
                self._show(notes)

        def failed(error: Exception) -> None:
            self._context.status.showMessage(f"Cannot read the notes: {user_sentence(error)}")

        self._context.runner.start(
            "notes", lambda _task: read_notes(), read, failed, priority=Priority.BACKGROUND
        )

    def _show(self, notes: dict[str, Note]) -> None:
        if notes != self._model.notes():
            self._model.set_notes(notes)
        self._watch()
        self._actions.update()
        self.notes_shown.emit()

    # ------------------------------------------------------------------ changing
    def set_archived(self, on: bool, paths: list[str] | None = None) -> None:
        """Archive (``on``) or unarchive the sessions ``paths`` (default: :meth:`targets`)."""
        self._write(
            paths, lambda notes, refs: notes.set_flags(refs, archived=on), "Archived" if on else "Unarchived"
        )

    def set_pinned(self, on: bool, paths: list[str] | None = None) -> None:
        """Pin (``on``) or unpin the sessions ``paths`` (default: :meth:`targets`)."""
        self._write(
            paths, lambda notes, refs: notes.set_flags(refs, pinned=on), "Pinned" if on else "Unpinned"
        )

    def change_tags(self, added: list[str], removed: list[str], paths: list[str] | None = None) -> None:
        """Give the sessions ``paths`` (default: :meth:`targets`) the tags ``added``, take ``removed`` off."""
        if not added and not removed:
            return
        self._write(paths, lambda notes, refs: notes.change_tags(refs, add=added, remove=removed), "Tagged")

    def edit_tags(self) -> TagsDialog | None:
        """Session ▸ Tags…: tick the tags of the chosen sessions, type new ones (the dialog is not modal)."""
        paths = self.targets()
        if not paths:
            return None
        held = [self.note_of(path).tags for path in paths]
        title = f"Tags of {self._name(paths[0])}" if len(paths) == 1 else f"Tags of {len(paths)} sessions"
        self.dialog = dialog = TagsDialog(title, self.known_tags(), held, self._context.dialog_parent)
        dialog.accepted.connect(lambda: self.change_tags(dialog.added, dialog.removed, paths))
        dialog.finished.connect(dialog.deleteLater)
        dialog.open()
        return dialog

    def _write(
        self,
        paths: list[str] | None,
        change: Callable[[Notes, list[SessionRef]], dict[str, Note]],
        done: str,
    ) -> None:
        paths = self.targets() if paths is None else paths
        if not paths:
            return
        targets = [(path, self._key_of(path)) for path in paths]
        status = self._context.status
        what = self._name(paths[0]) if len(paths) == 1 else f"{len(paths)} sessions"

        def written(notes: dict[str, Note]) -> None:
            self._writing -= 1
            self._show(notes)
            status.showMessage(f"{done} {what}.")
            self.notes_written.emit()

        def failed(error: Exception) -> None:
            self._writing -= 1
            status.showMessage(f"The notes were not changed: {user_sentence(error)}")

        self._writes_started += 1
        self._writing += 1

        self._context.runner.start(
            "notes-write",
            lambda _task: write_notes(targets, change),
            written,
            failed,
            priority=Priority.WRITE,
        )

    def _name(self, path: str) -> str:
        summary = self._context.summary_for(path)
        if summary is None:
            return os.path.basename(path)
        return f"“{title_of(summary.name, summary.firstMessage, 60) or os.path.basename(path)}”"

    # ------------------------------------------------------------------ the view
    def set_show_archived(self, on: bool) -> None:
        """List archived sessions too (marked), or leave them out; remembered across runs."""
        self._proxy.set_show_archived(on)
        if self.show_archived_action.isChecked() != on:
            self.show_archived_action.setChecked(on)
        app_settings().setValue(_SETTING, bool(on))

    def palette_commands(self) -> list[Command]:
        """What the command palette offers for the notes: each tag, shown by filtering the list on it."""
        counts: dict[str, int] = {}
        for note in self.notes().values():
            for tag in note.tags:
                counts[tag.casefold()] = counts.get(tag.casefold(), 0) + 1
        commands = []
        for tag in self.known_tags():
            count = counts[tag.casefold()]
            word = f'tag:"{tag}"' if " " in tag else f"tag:{tag}"
            hint = f"{count} session{'s' if count != 1 else ''}"
            commands.append(Command(f"Tag: {tag}", hint, self._filter_on(word)))
        return commands

    def _filter_on(self, word: str) -> Callable[[], None]:
        return lambda: self._set_filter(word)

    def _fill_list_menu(self, menu: QMenu, index: QModelIndex) -> None:
        if not index.isValid():
            return
        for action in (self.archive_action, self.unarchive_action, self.pin_action, self.unpin_action):
            if action.isEnabled():
                menu.addAction(action)
        menu.addAction(self.tags_action)
