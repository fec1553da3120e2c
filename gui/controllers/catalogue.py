"""The session list and the full-text search: what the catalogue knows, kept current while the window is open.

Start-up: the catalogue's stored summaries are shown at once (a worker reads them, channel ``"catalogue"``),
then a worker brings the catalogue up to date with the session folders (``"refresh"``) and the list is
merged with ``update_summaries``; a long first pass shows the sessions catalogued so far about once a
second (``"catalogue-partial"``). The session folders and their sub-folders are watched; a change starts a
debounced refresh. Search runs ``Catalogue.search`` in a worker (``"search"``).

This controller owns the list model, its proxy's selection of the open session's row, the search hits and
the roots listed. Choosing a row or a hit asks for that session to be opened (``WindowContext``).
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from PySide6.QtCore import QFileSystemWatcher, QModelIndex, QObject, QTimer, Signal
from PySide6.QtWidgets import QTableView

from core.formatting import one_line
from gui.controllers.context import Change, SessionChanged, WindowContext
from gui.errors import user_sentence
from gui.memory import give_back
from gui.models.session_filter_proxy import SessionFilterProxy, filter_tags, without_tags
from gui.models.session_list_model import SessionListModel
from gui.scheduling import Priority
from gui.widgets.search_panel import SearchPanel
from gui.workers import TaskContext

if TYPE_CHECKING:
    from core.catalogue import Hit, RefreshStats
    from core.session import SessionSummary

__all__ = ["LIVE_REFRESH_MSECS", "CatalogueController"]

SEARCH_LIMIT = 100
# While a long refresh reads sessions (newest first), the list shows what is catalogued so far at most this
# often (the catalogue commits about four times a second).
_PARTIAL_LIST_SECONDS = 1.0
LIVE_REFRESH_MSECS = 300  # debounce of the catalogue refresh after a change in a session folder


# The window's passes wait this long for another process's lock on the catalogue (another window, a
# command), then say so and carry on: SQLite's own wait of 30 s would leave the list silent meanwhile.
LOCK_WAIT_SECONDS = 1.0
BUSY_RETRY_MSECS = 5000  # then a pass is tried again this much later


class _Busy(NamedTuple):
    """A refresh pass that found the catalogue held by another process: why, and what the list shows."""

    sentence: str
    summaries: list[SessionSummary]


def read_summaries(folder: Path | None, roots: list[Path]) -> list[SessionSummary]:
    """Worker: what the catalogue already knows about ``roots`` (the files read, when it is held)."""
    from core.catalogue import Catalogue, CatalogueBusyError
    from core.catalogue.summary import scan_summaries

    try:
        catalogue = Catalogue(folder, lock_wait=LOCK_WAIT_SECONDS)
    except CatalogueBusyError:
        return scan_summaries(roots, [])
    try:
        return catalogue.summaries(roots)
    except CatalogueBusyError:
        return scan_summaries(roots, [])
    finally:
        catalogue.close()


def _refresh_catalogue(
    folder: Path | None, roots: list[Path], task: TaskContext
) -> tuple[RefreshStats, list[SessionSummary]] | _Busy:
    """Worker: bring the catalogue up to date, then read the summaries again.

    When another process holds the catalogue: :class:`_Busy`, with what it held (or, if it cannot be
    read either, the summaries of the files read one by one).
    """
    from core.catalogue import CatalogueBusyError

    try:
        return _refresh_pass(folder, roots, task)
    except CatalogueBusyError as err:
        return _Busy(str(err), read_summaries(folder, roots))


def _refresh_pass(
    folder: Path | None, roots: list[Path], task: TaskContext
) -> tuple[RefreshStats, list[SessionSummary]]:
    from core.catalogue import Catalogue

    def progress(*args: Any) -> None:
        task.yield_to_foreground()  # between files: the session being opened goes first
        task.progress(*args)

    task.yield_to_foreground()  # a pass started with the open of a session waits for its load
    catalogue = Catalogue(folder, lock_wait=LOCK_WAIT_SECONDS)
    try:
        stats = catalogue.refresh(roots, progress, task.cancel_event)
        return stats, catalogue.summaries(roots)
    finally:
        catalogue.close()


def _search(folder: Path | None, query: str, roots: list[Path]) -> list[Hit]:
    """Worker: full-text search over the sessions the window lists.

    ``tag:NAME`` words, as in the list's filter box, keep the hits of sessions with that tag (the notes).
    """
    from core.catalogue import Catalogue
    from core.notes import Notes, has_tags

    tags = filter_tags(query)
    sessions = None
    if tags:
        query = without_tags(query)
        sessions = {key for key, note in Notes().all().items() if has_tags(note, tags)}
    catalogue = Catalogue(folder)
    try:
        return catalogue.search(query, roots=roots, limit=SEARCH_LIMIT, sessions=sessions)
    finally:
        catalogue.close()


def watchable_folders(roots: list[Path]) -> list[str]:
    """The existing root folders and their immediate sub-folders (where new session files appear)."""
    folders: list[str] = []
    for root in roots:
        if not root.is_dir():
            continue
        folders.append(str(root))
        try:
            with os.scandir(root) as entries:
                folders.extend(e.path for e in entries if e.is_dir(follow_symlinks=False))
        except OSError:
            continue
    return folders


class CatalogueController(QObject):
    """The listed sessions: roots, the list model and its refreshes, the watched folders, search."""

    summaries_shown = Signal(int)  # rows in the list after the catalogue's stored summaries arrived
    refresh_finished = Signal(bool)  # True when the refresh pass succeeded
    search_finished = Signal(int)  # number of hits shown (-1: the query was rejected or failed)
    roots_changed = Signal()  # another set of folders is listed (the list starts empty again)

    def __init__(
        self,
        context: WindowContext,
        list_model: SessionListModel,
        proxy: SessionFilterProxy,
        table: QTableView,
        search_panel: SearchPanel,
        *,
        roots: list[Path],
        catalogue_dir: Path | None,
        shown_path: Callable[[], str | None],
    ) -> None:
        super().__init__(context)
        self._context = context
        self.list_model = list_model
        self._proxy = proxy
        self._table = table
        self._search_panel = search_panel
        self._roots = [Path(r) for r in roots]
        self._catalogue_dir = catalogue_dir
        self._shown_path = shown_path  # the session shown or being loaded (its row stays selected)
        self._refreshing = False
        self.folder_watcher = QFileSystemWatcher(self)  # new and changed sessions while the window is open
        self.live_refresh_timer = QTimer(self)
        self.live_refresh_timer.setSingleShot(True)
        self.live_refresh_timer.setInterval(LIVE_REFRESH_MSECS)
        self.folder_watcher.directoryChanged.connect(lambda _path: self.schedule_live_refresh())
        self.live_refresh_timer.timeout.connect(self._live_refresh)
        self.busy_retry_timer = QTimer(self)  # another pass after one found the catalogue held
        self.busy_retry_timer.setSingleShot(True)
        self.busy_retry_timer.setInterval(BUSY_RETRY_MSECS)
        self.busy_retry_timer.timeout.connect(self.refresh)
        context.catalogue_refresh_requested.connect(self.schedule_live_refresh)
        context.session_changed.connect(self._on_session_changed)
        # A child session opened (from a link, a search hit): its folded parent unfolds to show its row.
        context.session_loaded.connect(self._reveal_loaded)
        table.selectionModel().currentRowChanged.connect(self._on_row_changed)
        # While the proxy filters or the list changes, Qt moves the current row by itself (a row that goes
        # away hands it to a neighbour): that is not the user choosing a session. The selection model
        # reacts to those changes before any slot of ours can (it was connected first), so a row change
        # only opens its session in the next turn of the event loop, and a model change in the same turn
        # cancels it; afterwards the open session's row is selected again.
        self._changing = 0
        self._open_later = QTimer(self)
        self._open_later.setSingleShot(True)
        self._open_later.setInterval(0)
        self._open_later.timeout.connect(self._open_chosen_row)
        self._chosen: str | None = None
        self._made: str | None = None  # a session just forked or cloned: its row is shown, whatever filters
        for begin, end in (
            (proxy.layoutAboutToBeChanged, proxy.layoutChanged),
            (proxy.rowsAboutToBeRemoved, proxy.rowsRemoved),
            (proxy.rowsAboutToBeInserted, proxy.rowsInserted),
            (proxy.modelAboutToBeReset, proxy.modelReset),
        ):
            begin.connect(self._begin_change)
            end.connect(self._end_change)
        search_panel.search_requested.connect(self.search)
        search_panel.hit_activated.connect(self.open_hit)
        # Enter on a hit: the focus follows the hit to where it is shown (the keyboard is done searching).
        search_panel.done_with_keyboard.connect(lambda: context.focus_view("messages"))

    # ------------------------------------------------------------------ state
    @property
    def roots(self) -> list[Path]:
        """The session folders listed."""
        return list(self._roots)

    @property
    def refreshing(self) -> bool:
        """Whether a catalogue pass is running."""
        return self._refreshing

    def summaries(self) -> list[SessionSummary]:
        """The summaries listed."""
        return self.list_model.summaries()

    # ------------------------------------------------------------------ the list
    def start(self) -> None:
        """Show the stored summaries of the roots, then refresh the catalogue (both in workers)."""
        self._refreshing = True
        self._watch_folders()
        self._context.status.showMessage("Reading the catalogue…")
        roots, folder = list(self._roots), self._catalogue_dir

        def shown(summaries: list[SessionSummary]) -> None:
            self.list_model.set_summaries(summaries)
            self.select_open_row()
            self._context.listed_changed.emit()
            self.summaries_shown.emit(self.list_model.rowCount())
            self._start_refresh()

        def failed(error: Exception) -> None:
            self._context.status.showMessage(f"Cannot read the catalogue: {user_sentence(error)}")
            self._start_refresh()

        self._context.runner.start(
            "catalogue",
            lambda _task: read_summaries(folder, roots),
            shown,
            failed,
            priority=Priority.BACKGROUND,
        )

    def set_roots(self, roots: list[Path]) -> None:
        """List the sessions under other folders (replaces the list)."""
        self._roots = [Path(r) for r in roots]
        self._context.runner.cancel("refresh")
        self._context.runner.cancel("search")
        self._search_panel.clear_hits()  # hits of the folders listed before would open sessions not listed
        self.list_model.set_summaries([])
        self.roots_changed.emit()
        self.start()

    def refresh(self) -> None:
        """Bring the catalogue up to date now (unless a pass is running)."""
        if not self._refreshing:
            self._refreshing = True
            self._context.status.showMessage("Reading the catalogue…")
            self._start_refresh()

    def schedule_live_refresh(self) -> None:
        """Refresh the catalogue in a worker once changes have stopped for a moment (debounced)."""
        if not self._context.runner.closed:
            self.live_refresh_timer.start()

    def close(self) -> None:
        """Stop watching (the window is closing)."""
        self.live_refresh_timer.stop()
        self.busy_retry_timer.stop()
        if self.folder_watcher.directories():
            self.folder_watcher.removePaths(self.folder_watcher.directories())

    def select_open_row(self, path: str | None = None) -> None:
        """Select the list row of the session shown or being loaded (no new load: the paths match).

        When that session has no row (filtered out, or a file opened from elsewhere), no row stays
        selected: the highlight never rests on a session that is not the open one.
        """
        if path is None:
            path = self._shown_path()
        if path is None:
            return
        source = self.list_model.index_of(path)
        index = self._proxy.mapFromSource(source) if source.isValid() else QModelIndex()
        if source.isValid() and path == self._made:
            self._made = None
            if not index.isValid():  # the filter hides the session just made: show every row again
                self._proxy.clear_filters()
                index = self._proxy.mapFromSource(source)
        selection = self._table.selectionModel()
        self._changing += 1  # our own selection opens nothing
        try:
            if not index.isValid():
                if selection.hasSelection() or self._table.currentIndex().isValid():
                    selection.clear()
            elif self._table.currentIndex().row() != index.row() or not selection.isRowSelected(index.row()):
                self._table.selectRow(index.row())
                self._table.scrollTo(index)
        finally:
            self._changing -= 1

    def _reveal_loaded(self, _session: object) -> None:
        path = self._shown_path()
        if path is not None:
            self.list_model.reveal(path)

    def _begin_change(self, *_args: object) -> None:
        self._changing += 1
        self._open_later.stop()  # the row moved because of this change (see __init__)

    def _end_change(self, *_args: object) -> None:
        self._changing = max(0, self._changing - 1)
        self._open_later.stop()
        if self._changing == 0:
            self.select_open_row()

    def _on_row_changed(self, current: QModelIndex, _previous: QModelIndex) -> None:
        summary = self._proxy.summary_at(current.row()) if current.isValid() else None
        self._chosen = os.path.abspath(summary.path) if summary is not None else None
        if self._chosen is not None and not self._changing:
            self._open_later.start()

    def _open_chosen_row(self) -> None:
        """The user moved to a row (no model change came with it): show that session."""
        path = self._chosen
        if path is not None and path != self._shown_path():
            self._context.open_session(path)

    def _on_session_changed(self, change: SessionChanged) -> None:
        """An edit: a new name shows in the list at once, trashed rows go; a refresh confirms it soon."""
        import dataclasses

        model = self.list_model
        if change.what is Change.NAME:
            summary = self._context.summary_for(change.path)
            if summary is not None:
                renamed = dataclasses.replace(summary, name=change.text or None)
                model.update_summaries(renamed if s is summary else s for s in model.summaries())
        elif change.what is Change.TRASHED:
            gone = set(change.paths)
            model.update_summaries(s for s in model.summaries() if os.path.abspath(s.path) not in gone)
        elif change.what is Change.CREATED:
            self._made = change.path  # selected once the refresh lists it, even under a filter
        self.schedule_live_refresh()  # the rows' message counts and times; a new session's row

    # ------------------------------------------------------------------ refresh passes
    def _watch_folders(self) -> None:
        """Watch the roots and their immediate sub-folders (only those; the rest is unwatched)."""
        wanted = watchable_folders(self._roots)
        current = self.folder_watcher.directories()
        gone = [d for d in current if d not in wanted]
        if gone:
            self.folder_watcher.removePaths(gone)
        new = [d for d in wanted if d not in current]
        if new:
            self.folder_watcher.addPaths(new)

    def _live_refresh(self) -> None:
        if self._context.runner.closed:
            return
        self._watch_folders()  # a new project folder is watched from now on
        self._refreshing = True
        self._start_refresh(quiet=True)

    def _start_refresh(self, *, quiet: bool = False) -> None:
        """A catalogue pass in a worker.

        ``quiet`` (a live refresh after a change on disk) says nothing in the status line unless something
        failed: "8 sessions" would replace what an edit just said there ("Forked to …", "Label set …").
        """
        roots, folder, runner, status = (
            list(self._roots),
            self._catalogue_dir,
            self._context.runner,
            self._context.status,
        )

        def refreshed(result: tuple[RefreshStats, list[SessionSummary]] | _Busy) -> None:
            if isinstance(result, _Busy):
                runner.cancel("catalogue-partial")
                self.list_model.update_summaries(result.summaries)
                self.select_open_row()
                status.showMessage(
                    f"{result.sentence} The list shows {self.list_model.rowCount()} sessions as they "
                    f"were; trying again in {BUSY_RETRY_MSECS // 1000} s."
                )
                self.busy_retry_timer.start()
                self._refresh_done(False)
                return
            stats, summaries = result
            runner.cancel("catalogue-partial")  # an older partial list must not come after this
            self.list_model.update_summaries(summaries)
            self._context.listed_changed.emit()
            self.select_open_row()
            errors = len(getattr(stats, "errors", None) or ())
            note = f", {errors} unreadable" if errors else ""
            if not quiet or errors:
                status.showMessage(f"{self.list_model.rowCount()} sessions{note}")
            self._refresh_done(True)

        def failed(error: Exception) -> None:
            status.showMessage(f"Cannot update the catalogue: {user_sentence(error)}")
            self._refresh_done(False)

        # A first start over thousands of sessions takes seconds (minutes for 5 GB): show the newest ones
        # as they are catalogued rather than an empty list until the end. The first pass commits its
        # first file at once, so the first partial list is read at the first progress: on an empty list
        # that is what makes it usable within a second of start. An empty answer asks again.
        next_partial = time.monotonic() if not self.list_model.rowCount() else time.monotonic() + 1.0

        def partial(summaries: list[SessionSummary]) -> None:
            nonlocal next_partial
            if not summaries:
                next_partial = time.monotonic()
            if self._refreshing:
                self.list_model.update_summaries(summaries)
                self._context.listed_changed.emit()
                self.select_open_row()

        def progress(files_done: int, files_total: int, bytes_done: int, bytes_total: int) -> None:
            nonlocal next_partial
            share = f" ({bytes_done / bytes_total:.0%})" if bytes_total else ""
            if not quiet or files_total > 1:  # one file changed: nothing worth a line
                status.showMessage(f"Reading sessions: {files_done} of {files_total} files{share}")
            now = time.monotonic()
            if now >= next_partial:
                next_partial = now + _PARTIAL_LIST_SECONDS
                runner.start(
                    "catalogue-partial",
                    lambda _task: read_summaries(folder, roots),
                    partial,
                    priority=Priority.BACKGROUND,
                )

        runner.start(
            "refresh",
            lambda task: _refresh_catalogue(folder, roots, task),
            refreshed,
            failed,
            progress,
            priority=Priority.BACKGROUND,
        )

    def _refresh_done(self, ok: bool) -> None:
        self._refreshing = False
        give_back()  # a pass that read sessions in process freed what their parses made
        self.refresh_finished.emit(ok)

    # ------------------------------------------------------------------ search
    def search(self, query: str | None = None) -> None:
        """Run a full-text search over the catalogue in a worker; the hits fill the search list."""
        edit = self._search_panel.edit
        query = edit.text() if query is None else query
        if query != edit.text():
            edit.setText(query)
        folder, status = self._catalogue_dir, self._context.status
        status.showMessage(f"Searching for {query}…")

        def found(hits: list[Hit]) -> None:
            if hits:
                self._search_panel.set_hits(hits, self._title_of_hit, query)
            else:
                self._search_panel.show_message(f"Nothing found for {query}.")
            count = len(hits)
            status.showMessage(f"{count} {'hit' if count == 1 else 'hits'} for {query}")
            self.search_finished.emit(count)

        def failed(error: Exception) -> None:
            sentence = user_sentence(error)
            self._search_panel.show_message(sentence)  # whole, in the pane: the status bar cuts it off
            status.showMessage(sentence)
            self.search_finished.emit(-1)

        roots = list(self._roots)
        self._context.runner.start(
            "search", lambda _task: _search(folder, query, roots), found, failed, priority=Priority.FOREGROUND
        )

    def open_hit(self, hit: Hit) -> None:
        """Show the session of a search hit, with the hit's entry selected in the tree."""
        self._context.open_session(hit.path, hit.entryId)
        self.select_open_row(os.path.abspath(hit.path))

    def _title_of_hit(self, hit: Hit) -> str:
        summary = self.list_model.summary_at(self.list_model.row_of(hit.path))
        if summary is not None and os.path.abspath(summary.path) == os.path.abspath(hit.path):
            title = summary.name or one_line(summary.firstMessage)
            if title:
                return title
        return hit.name or os.path.basename(hit.path)
