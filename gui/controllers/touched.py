"""Files touched: the open session's *Files* view, and the session list's ``touched:`` filter.

The Files view (a tab beside the branch tree) lists the files the open session's tools read, edited,
wrote, ran or searched. A worker (channel ``"touched-files"``) reads them from the session's entries when
it is opened or read again (:func:`core.kinds.touches.session_touches`, the extraction the catalogue
stores); what an agent appends afterwards is read alone (channel ``"touched-append"``), one batch after
another, and added. Clicking a file selects its first touching entry in the tree; the transcript follows.
Clicking it again while that entry is selected goes on to the next entry that touched it (round).

The list's filter text may hold ``touched: src/auth/``: the proxy asks which sessions touched it, a
worker (channel ``"touched-filter"``) asks the catalogue (:meth:`core.catalogue.Catalogue.touched`), and
the proxy shows those. The question is asked again after each catalogue pass, which may have read new
touches.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, QTimer, Signal

from core.kinds.touches import Touch, TouchedFile, session_touches, touched_files
from gui.controllers.context import WindowContext
from gui.errors import user_sentence
from gui.models.session_filter_proxy import SessionFilterProxy
from gui.scheduling import AFTER_APPEND_MSECS, Priority
from gui.widgets.files_pane import FilesPane

if TYPE_CHECKING:
    from core.session import Entry, RefreshResult, Session

__all__ = ["TouchedFilesController", "sessions_touching_all"]


def sessions_touching_all(folder: Path | None, terms: tuple[str, ...]) -> frozenset[str]:
    """Worker: the catalogued sessions (paths) that touched every one of ``terms`` (files or folders).

    Raises:
        InvalidRequestError: a term is no path the catalogue can answer for (``../x``).
        CatalogueError: the catalogue cannot be read.
    """
    from core.catalogue import Catalogue

    catalogue = Catalogue(folder)
    try:
        found: frozenset[str] | None = None
        for term in terms:
            paths = frozenset(catalogue.touched_paths(term))
            found = paths if found is None else found & paths
    finally:
        catalogue.close()
    return found or frozenset()


def _gathered(
    before: list[tuple[str, Touch]], new: list[tuple[str, Touch]], cwd: str
) -> tuple[list[tuple[str, Touch]], list[TouchedFile]]:
    """Worker: every touch so far, and the files they make (gathered here: 0.04 s for 5,000 touches)."""
    touches = before + new
    return touches, touched_files(touches, cwd)


def _read_touches(folder: Path | None, session: Session, entries: list[Entry]) -> list[tuple[str, Touch]]:
    """Worker: the touches of ``entries``, from the catalogue as far as it vouches for the file as it is.

    The bodies of only the entries after what it read are read: a 1 GB session's every assistant message
    was read again (half a gigabyte of JSON, tens of seconds of this process's interpreter).
    """
    from core.catalogue import Catalogue, CatalogueError

    if not entries:
        return []
    catalogue = Catalogue(folder)
    try:
        found = catalogue.session_touches(session.path, entries[-1].line)
    except CatalogueError:
        found = None
    finally:
        catalogue.close()  # a connection left open is a garbage cycle the next load would freeze
    if found is None:
        return session_touches(session, entries)
    touches, last = found
    return touches + session_touches(session, [entry for entry in entries if entry.line > last])


def _cwd(session: Session) -> str:
    cwd = session.header.get("cwd") if session.header is not None else None
    return cwd if isinstance(cwd, str) else ""


class TouchedFilesController(QObject):
    """Owns the Files view's content and answers the list's ``touched:`` filter."""

    files_shown = Signal()  # the Files view lists the open session's files (after a read or an append)
    filter_answered = Signal(object)  # the touched: terms the list now shows the sessions of

    def __init__(
        self,
        context: WindowContext,
        pane: FilesPane,
        proxy: SessionFilterProxy,
        *,
        catalogue_dir: Path | None,
    ) -> None:
        super().__init__(context)
        self._context = context
        self._pane = pane
        self._proxy = proxy
        self._catalogue_dir = catalogue_dir
        self._session: Session | None = None
        self._touches: list[tuple[str, Touch]] | None = None  # of the open session, once read
        self._queued: list[Entry] = []  # appended entries not read yet
        self._appending = False
        self._settle = QTimer(self)  # the queued lines are read once the window has shown them
        self._settle.setSingleShot(True)
        self._settle.setInterval(AFTER_APPEND_MSECS)
        self._settle.timeout.connect(self._read_appended)
        self._last_reveal: tuple[str, int] = ("", 0)  # the file last clicked, and which of its entries shown
        context.session_loaded.connect(self._on_loaded)
        context.session_updated.connect(self._on_updated)
        context.session_closed.connect(self._on_closed)
        pane.file_activated.connect(self._reveal)
        proxy.touched_requested.connect(self._ask_catalogue)

    # ------------------------------------------------------------------ the Files view
    def files(self) -> list[TouchedFile]:
        """The files the view lists."""
        return self._pane.model.files()

    def _on_loaded(self, session: Session) -> None:
        self._session = session
        self._touches = None
        self._queued = []
        self._appending = False
        self._context.runner.cancel("touched-append")
        self._pane.show_reading()
        entries = list(session.entries)  # as they are now: what is appended later is read on its own
        cwd = _cwd(session)

        def done(read: tuple[list[tuple[str, Touch]], list[TouchedFile]]) -> None:
            if self._session is not session:
                return
            self._touches = read[0]
            self._show(read[1])
            self._read_appended()

        def failed(error: Exception) -> None:
            if self._session is session:
                self._pane.clear(f"Cannot read the files touched: {user_sentence(error)}")

        folder = self._catalogue_dir
        self._context.runner.start(
            "touched-files",
            lambda _task: _gathered([], _read_touches(folder, session, entries), cwd),
            done,
            failed,
            priority=Priority.BACKGROUND,
        )

    def _on_updated(self, result: RefreshResult) -> None:
        session = self._context.session
        if session is None:
            return
        if result.reloaded or session is not self._session:
            self._on_loaded(session)
            return
        if result.appended:
            self._queued += result.appended
            self._settle.start()  # again: a burst of lines is one read

    def _read_appended(self) -> None:
        """Read the files of the queued appended entries, once the whole read is done, a batch at a time."""
        session = self._session
        if session is None or self._touches is None or self._appending or not self._queued:
            return
        batch, self._queued = self._queued, []
        self._appending = True
        before, cwd = list(self._touches), _cwd(session)

        def done(read: tuple[list[tuple[str, Touch]], list[TouchedFile]]) -> None:
            if self._session is not session or self._touches is None:
                return
            self._appending = False
            self._touches = read[0]
            self._show(read[1])
            self._read_appended()

        def failed(_error: Exception) -> None:
            self._appending = False  # the next append tries again with its own entries

        self._context.runner.start(
            "touched-append",
            lambda _task: _gathered(before, session_touches(session, batch), cwd),
            done,
            failed,
            priority=Priority.BACKGROUND,
        )

    def _show(self, files: list[TouchedFile]) -> None:
        self._pane.show_files(files)
        self.files_shown.emit()

    def _on_closed(self) -> None:
        self._session = None
        self._touches = None
        self._queued = []
        self._context.runner.cancel("touched-files")
        self._context.runner.cancel("touched-append")
        self._pane.clear()

    def _reveal(self, file: TouchedFile) -> None:
        """Select the entry that touched ``file`` first; clicked again, the next one (the transcript too)."""
        if self._context.session is None or not file.entries:
            return
        current = self._context.current_entry()
        last_path, last = self._last_reveal
        again = (
            last_path == file.path
            and current is not None
            and file.entries[last % len(file.entries)] == current.id
        )
        at = (last + 1) % len(file.entries) if again else 0
        self._last_reveal = (file.path, at)
        self._context.reveal_entry(file.entries[at])

    # ------------------------------------------------------------------ the list's touched: filter
    def catalogue_refreshed(self, ok: bool) -> None:
        """A catalogue pass ended: ask again, it may have read new touches."""
        terms = self._proxy.touched_terms()
        if ok and terms:
            self._ask_catalogue(terms)

    def _ask_catalogue(self, terms: tuple[str, ...]) -> None:
        if not terms:
            self._context.runner.cancel("touched-filter")
            return
        folder = self._catalogue_dir

        def done(paths: frozenset[str]) -> None:
            self._proxy.set_touched_sessions(terms, paths)
            self.filter_answered.emit(terms)

        def failed(error: Exception) -> None:
            self._proxy.set_touched_sessions(terms, frozenset())
            self._context.status.showMessage(f"touched: {user_sentence(error)}", 8000)
            self.filter_answered.emit(terms)

        self._context.runner.start(
            "touched-filter",
            lambda _task: sessions_touching_all(folder, terms),
            done,
            failed,
            priority=Priority.FOREGROUND,
        )
