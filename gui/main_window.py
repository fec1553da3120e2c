"""The main window: session list | branch tree | message view. Layout and wiring only.

Start-up: the catalogue's stored summaries are shown at once (a worker reads them), then a worker brings the
catalogue up to date with the session folders and the list is merged with ``update_summaries``. Selecting a
session loads it in a worker; the tree model swaps it in on the main thread. The open file is watched and
appended entries are added to the tree as they arrive.
"""

from __future__ import annotations

import html
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QByteArray, QFileSystemWatcher, QModelIndex, QSettings, Qt, Signal
from PySide6.QtGui import QCloseEvent
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QComboBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QMainWindow,
    QPushButton,
    QSplitter,
    QTableView,
    QTreeView,
    QVBoxLayout,
    QWidget,
)

from gui.message_view import MessageView
from gui.models.branch_tree_model import FILTER_MODES, BranchTreeModel
from gui.models.session_filter_proxy import SessionFilterProxy
from gui.models.session_list_model import SessionColumn, SessionListModel
from gui.workers import TaskRunner

if TYPE_CHECKING:
    from core.session import Session
    from core.summary import SessionSummary

__all__ = ["APPLICATION", "DEMO_DIR", "ORGANIZATION", "MainWindow"]

ORGANIZATION = "Prime Sessions"
APPLICATION = "prime-sessions"
DEMO_DIR = Path(__file__).resolve().parent.parent / "resources" / "demo"
_SHUTDOWN_MSECS = 10_000


def _settings() -> QSettings:
    # Explicit names: the window may be made without app.main() (tests, embedding).
    return QSettings(QSettings.defaultFormat(), QSettings.Scope.UserScope, ORGANIZATION, APPLICATION)


def _read_summaries(folder: Path | None, roots: list[Path]) -> list[SessionSummary]:
    """Worker: what the catalogue already knows about ``roots``."""
    from core.catalogue import Catalogue

    catalogue = Catalogue(folder)
    try:
        return catalogue.summaries(roots)
    finally:
        catalogue.close()


def _refresh_catalogue(folder: Path | None, roots: list[Path], progress: Any, cancel: Any) -> tuple:
    """Worker: bring the catalogue up to date, then read the summaries again."""
    from core.catalogue import Catalogue

    catalogue = Catalogue(folder)
    try:
        stats = catalogue.refresh(roots, progress, cancel)
        return stats, catalogue.summaries(roots)
    finally:
        catalogue.close()


def _load(path: str) -> Session:
    """Worker: index one session file."""
    from core.session import load_session

    return load_session(path)


class MainWindow(QMainWindow):
    """Browse sessions: a filterable list, the selected session's branch tree and the selected entry."""

    summaries_shown = Signal(int)  # rows in the list after the catalogue's stored summaries arrived
    refresh_finished = Signal(bool)  # True when the refresh pass succeeded
    session_loaded = Signal(object)  # the core Session now shown in the tree
    session_updated = Signal(object)  # RefreshResult of the open session after a file change

    def __init__(
        self,
        roots: list[Path] | None = None,
        catalogue_dir: Path | None = None,
        open_path: Path | None = None,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        from core.discovery import default_roots

        self.setWindowTitle("Prime Sessions")
        self._roots = [Path(r) for r in roots] if roots is not None else default_roots()
        self._catalogue_dir = catalogue_dir
        self._session: Session | None = None
        self._loading_path: str | None = None
        self._refreshing = False
        self.runner = TaskRunner(self)

        # -- left: filter + session table
        self.filter_edit = QLineEdit(placeholderText="Filter sessions (title, project, id, model)")
        self.filter_edit.setClearButtonEnabled(True)
        self.named_only = QCheckBox("Named only")
        self.list_model = SessionListModel(parent=self)
        self.proxy = SessionFilterProxy(self)
        self.proxy.setSourceModel(self.list_model)
        self.table = QTableView()
        self.table.setModel(self.proxy)
        self.table.setSortingEnabled(True)
        self.table.sortByColumn(SessionColumn.MODIFIED, Qt.SortOrder.DescendingOrder)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.verticalHeader().hide()
        self.table.setWordWrap(False)
        header = self.table.horizontalHeader()
        header.setStretchLastSection(False)
        header.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        for column in (SessionColumn.MESSAGES, SessionColumn.TOKENS, SessionColumn.COST):
            header.setSectionResizeMode(column, QHeaderView.ResizeMode.ResizeToContents)
        header.resizeSection(SessionColumn.TITLE, 240)
        header.resizeSection(SessionColumn.PROJECT, 130)
        header.resizeSection(SessionColumn.MODIFIED, 120)
        left_top = QHBoxLayout()
        left_top.addWidget(self.filter_edit, 1)
        left_top.addWidget(self.named_only)
        left = _pane(left_top, self.table)

        # -- middle: branch tree
        self.tree_model = BranchTreeModel(parent=self)
        self.tree = QTreeView()
        self.tree.setModel(self.tree_model)
        self.tree.setUniformRowHeights(True)
        self.tree.setHeaderHidden(True)
        self.tree.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.filter_mode = QComboBox()
        self.filter_mode.addItems(list(FILTER_MODES))
        self.jump_button = QPushButton("Jump to leaf")
        middle_top = QHBoxLayout()
        middle_top.addWidget(QLabel("Show:"))
        middle_top.addWidget(self.filter_mode, 1)
        middle_top.addWidget(self.jump_button)
        middle = _pane(middle_top, self.tree)

        # -- right: message view
        self.message_view = MessageView()

        self.splitter = QSplitter(Qt.Orientation.Horizontal)
        self.splitter.addWidget(left)
        self.splitter.addWidget(middle)
        self.splitter.addWidget(self.message_view)
        self.splitter.setStretchFactor(0, 3)
        self.splitter.setStretchFactor(1, 2)
        self.splitter.setStretchFactor(2, 4)
        self.splitter.setChildrenCollapsible(False)
        self.setCentralWidget(self.splitter)
        self.resize(1400, 850)

        self.watcher = QFileSystemWatcher(self)

        # -- wiring
        self.filter_edit.textChanged.connect(self.proxy.set_filter_text)
        self.named_only.toggled.connect(self.proxy.set_named_only)
        self.table.selectionModel().currentRowChanged.connect(self._on_session_row_changed)
        self.tree.selectionModel().currentChanged.connect(self._on_entry_changed)
        self.filter_mode.currentTextChanged.connect(self._on_filter_mode_changed)
        self.jump_button.clicked.connect(self.select_leaf)
        self.watcher.fileChanged.connect(self.on_file_changed)
        self.message_view.action_requested.connect(self._on_view_action)

        self.read_settings()
        self.message_view.show_html("<p>Reading the session list…</p>")
        self.start_catalogue(open_path)

    # ------------------------------------------------------------------ settings
    def read_settings(self) -> None:
        settings = _settings()
        settings.beginGroup("main_window")
        geometry = settings.value("geometry")
        if isinstance(geometry, QByteArray) and not geometry.isEmpty():
            self.restoreGeometry(geometry)
        splitter = settings.value("splitter")
        if isinstance(splitter, QByteArray) and not splitter.isEmpty():
            self.splitter.restoreState(splitter)
        else:
            self.splitter.setSizes([620, 330, 450])
        settings.endGroup()

    def write_settings(self) -> None:
        settings = _settings()
        settings.beginGroup("main_window")
        settings.setValue("geometry", self.saveGeometry())
        settings.setValue("splitter", self.splitter.saveState())
        settings.endGroup()
        settings.sync()

    # ------------------------------------------------------------------ public API
    @property
    def roots(self) -> list[Path]:
        """The session folders listed."""
        return list(self._roots)

    @property
    def session(self) -> Session | None:
        """The session shown in the tree."""
        return self._session

    @property
    def refreshing(self) -> bool:
        """Whether a catalogue pass is running."""
        return self._refreshing

    def start_catalogue(self, open_path: Path | None = None) -> None:
        """Show the stored summaries of ``roots``, then refresh the catalogue (both in workers)."""
        self._refreshing = True
        self.statusBar().showMessage("Reading the catalogue…")
        roots, folder = list(self._roots), self._catalogue_dir
        if open_path is not None:
            self.open_session(open_path)

        def shown(summaries: list[SessionSummary]) -> None:
            self.list_model.set_summaries(summaries)
            self._select_open_row()
            self.summaries_shown.emit(self.list_model.rowCount())
            self._start_refresh()

        def failed(message: str) -> None:
            self.statusBar().showMessage(f"Cannot read the catalogue: {message}")
            self._start_refresh()

        self.runner.start("catalogue", lambda: _read_summaries(folder, roots), shown, failed)

    def set_roots(self, roots: list[Path]) -> None:
        """List the sessions under other folders (replaces the list)."""
        self._roots = [Path(r) for r in roots]
        self.runner.cancel("refresh")
        self.list_model.set_summaries([])
        self.message_view.show_html("<p>Reading the session list…</p>")
        self.start_catalogue()

    def open_session(self, path: str | os.PathLike[str]) -> None:
        """Load the session at ``path`` in a worker and show it in the tree (latest request wins)."""
        path = os.path.abspath(os.fspath(path))
        if self._session is not None and self._session.path == path:
            return
        self._loading_path = path
        self.statusBar().showMessage(f"Loading {path}…")
        self.runner.start("load", lambda: _load(path), self._on_session_loaded, self._on_load_failed)

    def select_leaf(self) -> None:
        """Select the session's current leaf in the tree (it is always visible)."""
        session = self._session
        if session is None:
            return
        self.select_entry(session.leaf_id)

    def select_entry(self, entry_id: str | None) -> bool:
        """Select the row of ``entry_id``; False when it is not visible in the current filter mode."""
        index = self.tree_model.index_for_entry(entry_id)
        if not index.isValid():
            return False
        self.tree.setCurrentIndex(index)
        self.tree.scrollTo(index)
        return True

    def on_file_changed(self, path: str) -> None:
        """The watched session file changed: read what was appended, or reload it."""
        from core.errors import SessionReadError

        session = self._session
        if session is None or os.path.abspath(path) != session.path:
            return
        if session.path not in self.watcher.files() and os.path.exists(session.path):
            self.watcher.addPath(session.path)  # replaced by rename: the watch was dropped
        try:
            result = session.refresh()
        except SessionReadError as err:
            self.statusBar().showMessage(str(err))
            return
        if result.reloaded:
            current = self._current_entry_id()
            self.tree_model.reset_session(session)
            if not self.select_entry(current):
                self.select_leaf()
            self.statusBar().showMessage(f"Reloaded: {result.reason}")
        elif result.appended:
            was_at_leaf = self._current_entry_id() in (None, self.tree_model.leaf_id)
            self.tree_model.append_entries(result.appended)
            if was_at_leaf:
                self.select_leaf()  # follow a live session
            count = len(result.appended)
            self.statusBar().showMessage(f"{count} new {'entry' if count == 1 else 'entries'}", 5000)
        self.session_updated.emit(result)

    # ------------------------------------------------------------------ events
    def closeEvent(self, event: QCloseEvent) -> None:
        self.write_settings()
        self.runner.shutdown(_SHUTDOWN_MSECS)
        if self.watcher.files():
            self.watcher.removePaths(self.watcher.files())
        super().closeEvent(event)

    # ------------------------------------------------------------------ private
    def _start_refresh(self) -> None:
        roots, folder = list(self._roots), self._catalogue_dir

        def refreshed(result: tuple) -> None:
            stats, summaries = result
            self.list_model.update_summaries(summaries)
            self._select_open_row()
            errors = len(getattr(stats, "errors", None) or ())
            note = f", {errors} unreadable" if errors else ""
            self.statusBar().showMessage(f"{self.list_model.rowCount()} sessions{note}")
            self._refresh_done(True)

        def failed(message: str) -> None:
            self.statusBar().showMessage(f"Cannot update the catalogue: {message}")
            self._refresh_done(False)

        def progress(files_done: int, files_total: int, bytes_done: int, bytes_total: int) -> None:
            self.statusBar().showMessage(f"Reading sessions: {files_done} of {files_total} files")

        def work(progress: Any, cancel: Any) -> tuple:
            return _refresh_catalogue(folder, roots, progress, cancel)

        self.runner.start("refresh", work, refreshed, failed, progress)

    def _refresh_done(self, ok: bool) -> None:
        self._refreshing = False
        if self.list_model.rowCount() == 0 and self._session is None:
            self._show_empty_state()
        elif self._session is None and self.message_view.entry is None:
            self.message_view.show_html("<p>Select a session on the left.</p>")
        self.refresh_finished.emit(ok)

    def _show_empty_state(self) -> None:
        items = "".join(f"<li><code>{html.escape(str(root))}</code></li>" for root in self._roots)
        self.message_view.show_html(
            "<h2>No sessions found</h2>"
            "<p>Sessions are looked for in:</p>"
            f"<ul>{items}</ul>"
            "<p>Set <code>PRIME_AGENT_DIR</code> or <code>PI_CODING_AGENT_DIR</code>, open a folder or a "
            "<code>.jsonl</code> file from the command line, or try the bundled examples:</p>"
            '<p><a href="action:open/demo"><b>Open the demo sessions</b></a></p>'
        )

    def _on_view_action(self, verb: str, key: str) -> None:
        if verb == "open" and key == "demo":
            self.set_roots([DEMO_DIR])

    def _select_open_row(self) -> None:
        """Select the list row of the session shown or being loaded (no new load: the paths match)."""
        path = self._session.path if self._session is not None else self._loading_path
        if path is None:
            return
        source = self.list_model.index_of(path)
        if not source.isValid():
            return
        index = self.proxy.mapFromSource(source)
        if index.isValid() and self.table.currentIndex().row() != index.row():
            self.table.selectRow(index.row())
            self.table.scrollTo(index)

    def _on_session_row_changed(self, current: QModelIndex, _previous: QModelIndex) -> None:
        summary = self.proxy.summary_at(current.row()) if current.isValid() else None
        if summary is None:
            return
        path = os.path.abspath(summary.path)
        if path == self._loading_path:
            return
        self.open_session(path)

    def _on_session_loaded(self, session: Session) -> None:
        old = self.watcher.files()
        if old:
            self.watcher.removePaths(old)
        self._session = session
        self._loading_path = None
        self.message_view.show_entry(None, None)
        self.tree_model.reset_session(session)
        self.watcher.addPath(session.path)
        self.select_leaf()
        title = session.name or os.path.basename(session.path)
        self.setWindowTitle(f"{title} — Prime Sessions")
        self.statusBar().showMessage(f"{len(session.entries)} entries in {session.path}", 5000)
        self.session_loaded.emit(session)

    def _on_load_failed(self, message: str) -> None:
        self._loading_path = None
        self.message_view.show_html(f"<p>Cannot open this session: {html.escape(message)}</p>")
        self.statusBar().showMessage(message)

    def _current_entry_id(self) -> str | None:
        entry = self.tree_model.entry_for_index(self.tree.currentIndex())
        return entry.id if entry is not None else None

    def _on_entry_changed(self, current: QModelIndex, _previous: QModelIndex) -> None:
        entry = self.tree_model.entry_for_index(current)
        if entry is None or self._session is None:
            return
        self.message_view.show_entry(self._session, entry)

    def _on_filter_mode_changed(self, mode: str) -> None:
        current = self._current_entry_id()
        self.tree_model.filter_mode = mode
        if not self.select_entry(current):
            self.select_leaf()


def _pane(controls: QHBoxLayout, body: QWidget) -> QWidget:
    """A column of the window: a row of controls above a view that takes the rest of the height."""
    pane = QWidget()
    layout = QVBoxLayout(pane)
    layout.setContentsMargins(0, 0, 0, 0)
    layout.addLayout(controls)
    layout.addWidget(body, 1)
    return pane
