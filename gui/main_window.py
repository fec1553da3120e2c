"""The main window: session list | branch tree | message view. Layout and wiring only.

Start-up: the catalogue's stored summaries are shown at once (a worker reads them), then a worker brings the
catalogue up to date with the session folders and the list is merged with ``update_summaries``. Selecting a
session loads it in a worker; the tree model swaps it in on the main thread. The open file is watched and
appended entries are added to the tree as they arrive.

Around that: a diagnostics dock (bottom, shown only when the open session has problems), a full-text search
box under the list (Catalogue.search in a worker, channel ``"search"``), the File menu and shortcuts of
``gui.actions`` with a Recent submenu kept in QSettings, and drops of ``.jsonl`` files or folders.
"""

from __future__ import annotations

import gc
import html
import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QByteArray, QFileSystemWatcher, QModelIndex, QPoint, QSettings, Qt, QTimer, Signal
from PySide6.QtGui import QAction, QActionGroup, QCloseEvent, QDragEnterEvent, QDropEvent
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QComboBox,
    QFileDialog,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QMainWindow,
    QMenu,
    QPushButton,
    QSplitter,
    QTableView,
    QTreeView,
    QVBoxLayout,
    QWidget,
)

from gui.actions import add_recent, create_actions, fill_recent_menu, read_recent
from gui.diagnostics_panel import DiagnosticsPanel
from gui.message_view import MessageView
from gui.models.branch_tree_model import FILTER_MODES, BranchTreeModel, TreeStructure
from gui.models.session_filter_proxy import SessionFilterProxy
from gui.models.session_list_model import SessionColumn, SessionListModel, one_line
from gui.search_panel import SearchPanel
from gui.theme import THEMES, apply_theme
from gui.workers import TaskRunner

if TYPE_CHECKING:
    from core.catalogue import Hit
    from core.session import Entry, Session, SessionSummary

__all__ = ["APPLICATION", "DEMO_DIR", "ORGANIZATION", "MainWindow"]

ORGANIZATION = "Prime Sessions"
APPLICATION = "prime-sessions"
DEMO_DIR = Path(__file__).resolve().parent.parent / "resources" / "demo"
_SHUTDOWN_MSECS = 10_000
_SEARCH_LIMIT = 100
_RENDER_DELAY_MSECS = 15  # the first message of a loaded session is rendered after the tree has painted
# While a long refresh reads sessions (newest first), the list shows what is catalogued so far at
# most this often (the catalogue commits about four times a second).
_PARTIAL_LIST_SECONDS = 1.0
LIVE_REFRESH_MSECS = 300  # debounce of the catalogue refresh after a change in a session folder


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


def _load(path: str, filter_mode: str) -> tuple[Session, TreeStructure]:
    """Worker: index one session file, find its diagnostics and the tree's visible structure.

    All of it is Python work that would otherwise stall the window for ~100 ms on a 20,000-entry session.
    The leaf, shown first, is rendered once here and thrown away: that imports markdown-it, Pygments and
    the lexers its code needs (~100 ms on first use) off the GUI thread.
    """
    from core.render import render_entry
    from core.session import load_session

    session = load_session(path)
    session.diagnostics  # noqa: B018 (computed here, off the GUI thread)
    structure = BranchTreeModel.prepare(session, filter_mode)
    leaf = session.leaf
    if leaf is not None:
        render_entry(leaf, session.body(leaf))
    # A full collection scans every tracked object: ~100,000 with a 20,000-entry session open, ~20 ms
    # with the GIL held, so the window waits too. Freezing what is alive now makes later collections skip
    # it; unfreezing first hands what the previous session left in cycles back to the collector.
    gc.unfreeze()
    gc.freeze()
    return session, structure


def _context(session: Session, entry_id: str | None) -> list[dict]:
    """Worker: the messages the model saw at ``entry_id`` (reads many bodies)."""
    from core.session import build_context

    return build_context(session, entry_id)["messages"]


def _watchable_folders(roots: list[Path]) -> list[str]:
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


def _search(folder: Path | None, query: str) -> list[Hit]:
    """Worker: full-text search over the catalogue."""
    from core.catalogue import Catalogue

    catalogue = Catalogue(folder)
    try:
        return catalogue.search(query, limit=_SEARCH_LIMIT)
    finally:
        catalogue.close()


def _sentence(message: str) -> str:
    """The sentence of a worker failure (``"QueryError: The search..."`` -> ``"The search..."``)."""
    head, sep, rest = message.partition(": ")
    return rest if sep and head.isidentifier() and rest else message


def _is_openable(path: str) -> bool:
    """A local folder or ``.jsonl`` file that a drop may open."""
    return os.path.isdir(path) or (path.lower().endswith(".jsonl") and os.path.isfile(path))


class MainWindow(QMainWindow):
    """Browse sessions: a filterable list, the selected session's branch tree and the selected entry."""

    summaries_shown = Signal(int)  # rows in the list after the catalogue's stored summaries arrived
    refresh_finished = Signal(bool)  # True when the refresh pass succeeded
    session_loaded = Signal(object)  # the core Session now shown in the tree
    session_updated = Signal(object)  # RefreshResult of the open session after a file change
    load_failed = Signal(str)  # the sentence shown when a session cannot be read
    search_finished = Signal(int)  # number of hits shown (-1: the query was rejected or failed)
    context_shown = Signal(int)  # number of messages in the context shown in context mode

    def __init__(
        self,
        roots: list[Path] | None = None,
        catalogue_dir: Path | None = None,
        open_path: Path | None = None,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        from core.session import default_roots

        self.setWindowTitle("Prime Sessions")
        self._roots = [Path(r) for r in roots] if roots is not None else default_roots()
        self._catalogue_dir = catalogue_dir
        self._session: Session | None = None
        self._loading_path: str | None = None
        self._pending_entry: str | None = None  # select this entry once the loading session arrives
        self._load_error: str | None = None
        self._refreshing = False
        self._render_deferred = False  # while a loaded session's leaf is selected (see _on_session_loaded)
        self.runner = TaskRunner(self)

        # -- left: filter + session table
        self.filter_edit = QLineEdit(placeholderText="Filter sessions (title, project, id, model)")
        self.filter_edit.setClearButtonEnabled(True)
        self.named_only = QCheckBox("Named only")
        self.thread_forks = QCheckBox("Thread forks")
        self.thread_forks.setToolTip("Show forks and clones right under the session they came from")
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
        # Fixed widths from the font, not ResizeToContents: that mode measures up to 1,000 rows of every such
        # column after each change of a row, ~24,000 Python data() calls and a 250 ms stall per live update.
        metrics = self.table.fontMetrics()
        padding = 3 * metrics.horizontalAdvance("M")
        for column, sample in (
            (SessionColumn.MESSAGES, "Messages"),
            (SessionColumn.TOKENS, "99,999,999"),
            (SessionColumn.COST, "$9,999.99"),
        ):
            header.resizeSection(column, metrics.horizontalAdvance(sample) + padding)
        header.resizeSection(SessionColumn.TITLE, 240)
        header.resizeSection(SessionColumn.PROJECT, 130)
        header.resizeSection(SessionColumn.MODIFIED, metrics.horizontalAdvance("2026-11-30 23:59") + padding)
        left_top = QHBoxLayout()
        left_top.addWidget(self.filter_edit, 1)
        left_top.addWidget(self.named_only)
        left_top.addWidget(self.thread_forks)
        list_pane = _pane(left_top, self.table)
        self.search_panel = SearchPanel()
        self.search_edit = self.search_panel.edit
        self.left_splitter = QSplitter(Qt.Orientation.Vertical)
        self.left_splitter.addWidget(list_pane)
        self.left_splitter.addWidget(self.search_panel)
        self.left_splitter.setStretchFactor(0, 3)
        self.left_splitter.setStretchFactor(1, 1)
        self.left_splitter.setChildrenCollapsible(False)
        left = self.left_splitter

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

        # -- right: message view, optionally showing the whole context at the selected entry
        self.message_view = MessageView()
        self.context_toggle = QCheckBox("What the model saw")
        self.context_toggle.setToolTip(
            "Show the messages the model saw at the selected entry (compactions applied) as a conversation"
        )
        right_top = QHBoxLayout()
        right_top.addWidget(self.context_toggle)
        right_top.addStretch(1)
        right = _pane(right_top, self.message_view)

        self.splitter = QSplitter(Qt.Orientation.Horizontal)
        self.splitter.addWidget(left)
        self.splitter.addWidget(middle)
        self.splitter.addWidget(right)
        self.splitter.setStretchFactor(0, 3)
        self.splitter.setStretchFactor(1, 2)
        self.splitter.setStretchFactor(2, 4)
        self.splitter.setChildrenCollapsible(False)
        self.setCentralWidget(self.splitter)
        self.resize(1400, 850)

        # -- bottom: diagnostics of the open session (hidden while it has no problems)
        self.diagnostics_panel = DiagnosticsPanel(self)
        self.addDockWidget(Qt.DockWidgetArea.BottomDockWidgetArea, self.diagnostics_panel)
        self.diagnostics_panel.hide()

        self.window_actions = create_actions(
            self,
            open_dialog=self._open_file_dialog,
            open_folder_dialog=self._open_folder_dialog,
            refresh=self.refresh,
            find=self.focus_filter,
            search=self.focus_search,
            jump_to_leaf=self.select_leaf,
            quit=self.close,
        )
        self._update_recent_menu()
        self.window_actions.recent_menu.aboutToShow.connect(self._update_recent_menu)
        # Menus and context menus that the feature modules (editing, export, diff) fill in.
        self.edit_menu = self.menuBar().addMenu("&Edit")
        self.session_menu = self.menuBar().addMenu("&Session")
        self.view_menu = self.menuBar().addMenu("&View")
        self.theme_actions = self._make_theme_menu(self.view_menu.addMenu("&Theme"))
        # Each contributor is called with (menu, index) when a context menu opens on that view; the index
        # is a source-model index (list model or tree model), invalid on empty space.
        self.list_context_contributors: list[Callable[[QMenu, QModelIndex], None]] = []
        self.tree_context_contributors: list[Callable[[QMenu, QModelIndex], None]] = []
        self.table.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        self.tree.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        self.table.customContextMenuRequested.connect(self._show_list_context_menu)
        self.tree.customContextMenuRequested.connect(self._show_tree_context_menu)
        self._install_extensions()
        self.setAcceptDrops(True)

        self.watcher = QFileSystemWatcher(self)
        self.folder_watcher = QFileSystemWatcher(self)  # new and changed sessions while the window is open
        self.live_refresh_timer = QTimer(self)
        self.live_refresh_timer.setSingleShot(True)
        self.live_refresh_timer.setInterval(LIVE_REFRESH_MSECS)

        # -- wiring
        self.filter_edit.textChanged.connect(self.proxy.set_filter_text)
        self.named_only.toggled.connect(self.proxy.set_named_only)
        self.thread_forks.toggled.connect(self.list_model.set_threaded)
        self.table.selectionModel().currentRowChanged.connect(self._on_session_row_changed)
        self.tree.selectionModel().currentChanged.connect(self._on_entry_changed)
        self.filter_mode.currentTextChanged.connect(self._on_filter_mode_changed)
        self.jump_button.clicked.connect(self.select_leaf)
        self.watcher.fileChanged.connect(self.on_file_changed)
        self.folder_watcher.directoryChanged.connect(self.on_folder_changed)
        self.live_refresh_timer.timeout.connect(self._live_refresh)
        self.context_toggle.toggled.connect(self._on_context_toggled)
        self.message_view.action_requested.connect(self._on_view_action)
        self.diagnostics_panel.entry_requested.connect(self.reveal_entry)
        self.search_panel.search_requested.connect(self.search)
        self.search_panel.hit_activated.connect(self.open_hit)

        self.read_settings()
        self.message_view.show_html("<p>Reading the session list…</p>")
        self.start_catalogue(open_path)

    def _install_extensions(self) -> None:
        """Feature modules add their actions, menus and context-menu entries to this window here."""
        # One line per feature module; each keeps a reference to the window and what it needs.
        from gui.diff_view import DiffController
        from gui.editing import EditingController
        from gui.export_dialog import ExportController

        self.editing = EditingController(self)
        self.diff_controller = DiffController(self)
        self.export_controller = ExportController(self)

    def _make_theme_menu(self, menu: QMenu) -> dict[str, QAction]:
        group = QActionGroup(self)
        actions: dict[str, QAction] = {}
        for theme, text in (("system", "Follow the &System"), ("light", "&Light"), ("dark", "&Dark")):
            action = menu.addAction(text)
            action.setCheckable(True)
            action.setActionGroup(group)
            action.triggered.connect(lambda _checked=False, t=theme: self.set_theme(t))
            actions[theme] = action
        actions["system"].setChecked(True)
        return actions

    def set_theme(self, theme: str) -> None:
        """Light, dark, or following the system (remembered in the settings)."""
        if theme not in THEMES:
            theme = "system"
        apply_theme(theme)
        self.theme_actions[theme].setChecked(True)
        settings = _settings()
        settings.setValue("main_window/theme", theme)

    def _show_list_context_menu(self, pos: QPoint) -> None:
        index = self.proxy.mapToSource(self.table.indexAt(pos))
        self._popup_context_menu(self.table, pos, index, self.list_context_contributors)

    def _show_tree_context_menu(self, pos: QPoint) -> None:
        self._popup_context_menu(self.tree, pos, self.tree.indexAt(pos), self.tree_context_contributors)

    def _popup_context_menu(
        self,
        view: QAbstractItemView,
        pos: QPoint,
        index: QModelIndex,
        contributors: list[Callable[[QMenu, QModelIndex], None]],
    ) -> None:
        menu = QMenu(view)
        for contribute in contributors:
            if not menu.isEmpty():
                menu.addSeparator()
            contribute(menu, index)
        if not menu.isEmpty():
            menu.exec(view.viewport().mapToGlobal(pos))
        menu.deleteLater()

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
        self.thread_forks.setChecked(bool(settings.value("thread_forks", False, type=bool)))
        theme = settings.value("theme", "system")
        settings.endGroup()
        if theme != "system":
            self.set_theme(str(theme))

    def write_settings(self) -> None:
        settings = _settings()
        settings.beginGroup("main_window")
        settings.setValue("geometry", self.saveGeometry())
        settings.setValue("splitter", self.splitter.saveState())
        settings.setValue("thread_forks", self.thread_forks.isChecked())
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
        self._watch_folders()
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

    def open_session(
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
            self.runner.cancel("load")  # an older request for another session must not win
            if entry_id is not None:
                self._select_pending()
            return
        self._loading_path = path
        self.statusBar().showMessage(f"Loading {path}…")
        mode = self.tree_model.filter_mode
        self.runner.start("load", lambda: _load(path, mode), self._on_session_loaded, self._on_load_failed)

    @property
    def recent_paths(self) -> list[str]:
        """Paths opened with :meth:`open_path`, newest first (missing ones dropped)."""
        return read_recent(_settings())

    def open_path(self, path: str | os.PathLike[str]) -> bool:
        """Open a folder (list its sessions) or a session file (list its folder if needed, then show it).

        Returns False (with a sentence in the status bar) when ``path`` names neither.
        """
        target = os.path.abspath(os.path.expanduser(os.fspath(path)))
        if os.path.isdir(target):
            self.set_roots([Path(target)])
        elif os.path.isfile(target) or target.lower().endswith(".jsonl"):
            folder = os.path.dirname(target)
            if not any(_is_within(folder, os.path.abspath(root)) for root in self._roots):
                self.set_roots([Path(folder)])
            self.open_session(target)
        else:
            self.statusBar().showMessage(f"{target} is neither a folder nor a session file.")
            return False
        if os.path.exists(target):
            add_recent(_settings(), target)
            self._update_recent_menu()
        return True

    def refresh(self) -> None:
        """Bring the catalogue up to date and read the open session again (both in workers)."""
        if not self._refreshing:
            self._refreshing = True
            self.statusBar().showMessage("Reading the catalogue…")
            self._start_refresh()
        session = self._session
        if session is not None and self._loading_path is None:
            self.open_session(session.path, entry_id=self._current_entry_id(), reload=True)

    def focus_filter(self) -> None:
        """Put the keyboard focus in the session filter box."""
        self.filter_edit.setFocus(Qt.FocusReason.ShortcutFocusReason)
        self.filter_edit.selectAll()

    def focus_search(self) -> None:
        """Put the keyboard focus in the full-text search box."""
        self.search_edit.setFocus(Qt.FocusReason.ShortcutFocusReason)
        self.search_edit.selectAll()

    def search(self, query: str | None = None) -> None:
        """Run a full-text search over the catalogue in a worker; the hits fill the search list."""
        query = self.search_edit.text() if query is None else query
        if query != self.search_edit.text():
            self.search_edit.setText(query)
        folder = self._catalogue_dir
        self.statusBar().showMessage(f"Searching for {query}…")

        def found(hits: list[Hit]) -> None:
            self.search_panel.set_hits(hits, self._title_of_hit)
            count = len(hits)
            self.statusBar().showMessage(f"{count} {'hit' if count == 1 else 'hits'} for {query}")
            self.search_finished.emit(count)

        def failed(message: str) -> None:
            self.search_panel.clear_hits()
            self.statusBar().showMessage(_sentence(message))
            self.search_finished.emit(-1)

        self.runner.start("search", lambda: _search(folder, query), found, failed)

    def open_hit(self, hit: Hit) -> None:
        """Show the session of a search hit, with the hit's entry selected in the tree."""
        self.open_session(hit.path, entry_id=hit.entryId)
        self._select_open_row(os.path.abspath(hit.path))

    def reveal_entry(self, entry_id: str) -> bool:
        """Select ``entry_id`` in the tree, showing all entries when the filter mode hides it."""
        if self.select_entry(entry_id):
            return True
        if self.tree_model.session is None or self._session is None or self._session.get(entry_id) is None:
            return False
        self.filter_mode.setCurrentText("all")
        return self.select_entry(entry_id)

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
        self.diagnostics_panel.set_diagnostics(session.diagnostics)
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
        if result.reloaded or result.appended:
            self.schedule_live_refresh()  # the list row's message count and modified time
        self.session_updated.emit(result)

    def on_folder_changed(self, _path: str) -> None:
        """A watched session folder changed (a session was added, removed or written)."""
        self.schedule_live_refresh()

    def schedule_live_refresh(self) -> None:
        """Refresh the catalogue in a worker once changes have stopped for a moment (debounced)."""
        if not self.runner.closed:
            self.live_refresh_timer.start()

    @property
    def context_mode(self) -> bool:
        """Whether the message view shows what the model saw at the selected entry."""
        return self.context_toggle.isChecked()

    # ------------------------------------------------------------------ events
    def dragEnterEvent(self, event: QDragEnterEvent) -> None:
        if self._dropped_paths(event.mimeData()):
            event.acceptProposedAction()
        else:
            event.ignore()

    def dragMoveEvent(self, event: Any) -> None:
        if self._dropped_paths(event.mimeData()):
            event.acceptProposedAction()
        else:
            event.ignore()

    def dropEvent(self, event: QDropEvent) -> None:
        paths = self._dropped_paths(event.mimeData())
        if not paths:
            event.ignore()
            return
        event.acceptProposedAction()
        self.open_path(paths[0])

    def closeEvent(self, event: QCloseEvent) -> None:
        self.write_settings()
        self.live_refresh_timer.stop()
        self.runner.shutdown(_SHUTDOWN_MSECS)
        if self.folder_watcher.directories():
            self.folder_watcher.removePaths(self.folder_watcher.directories())
        if self.watcher.files():
            self.watcher.removePaths(self.watcher.files())
        super().closeEvent(event)

    # ------------------------------------------------------------------ private
    @staticmethod
    def _dropped_paths(mime: Any) -> list[str]:
        """The local ``.jsonl`` files and folders among the dragged URLs."""
        if mime is None or not mime.hasUrls():
            return []
        return [
            url.toLocalFile() for url in mime.urls() if url.isLocalFile() and _is_openable(url.toLocalFile())
        ]

    def _open_file_dialog(self) -> None:
        start = str(self._roots[0]) if self._roots else ""
        path, _filter = QFileDialog.getOpenFileName(
            self, "Open a session file", start, "Sessions (*.jsonl);;All files (*)"
        )
        if path:
            self.open_path(path)

    def _open_folder_dialog(self) -> None:
        start = str(self._roots[0]) if self._roots else ""
        path = QFileDialog.getExistingDirectory(self, "Open a session folder", start)
        if path:
            self.open_path(path)

    def _update_recent_menu(self) -> None:
        fill_recent_menu(self.window_actions.recent_menu, read_recent(_settings()), self.open_path)

    def _title_of_hit(self, hit: Hit) -> str:
        summary = self.list_model.summary_at(self.list_model.row_of(hit.path))
        if summary is not None and os.path.abspath(summary.path) == os.path.abspath(hit.path):
            title = summary.name or one_line(summary.firstMessage)
            if title:
                return title
        return hit.name or os.path.basename(hit.path)

    def _select_pending(self) -> None:
        entry_id, self._pending_entry = self._pending_entry, None
        if entry_id is not None:
            self.reveal_entry(entry_id)

    def _watch_folders(self) -> None:
        """Watch the roots and their immediate sub-folders (only those; the rest is unwatched)."""
        wanted = _watchable_folders(self._roots)
        current = self.folder_watcher.directories()
        gone = [d for d in current if d not in wanted]
        if gone:
            self.folder_watcher.removePaths(gone)
        new = [d for d in wanted if d not in current]
        if new:
            self.folder_watcher.addPaths(new)

    def _live_refresh(self) -> None:
        if self.runner.closed:
            return
        self._watch_folders()  # a new project folder is watched from now on
        self._refreshing = True
        self._start_refresh()

    def _start_refresh(self) -> None:
        roots, folder = list(self._roots), self._catalogue_dir

        def refreshed(result: tuple) -> None:
            stats, summaries = result
            self.runner.cancel("catalogue-partial")  # an older partial list must not come after this
            self.list_model.update_summaries(summaries)
            self._select_open_row()
            errors = len(getattr(stats, "errors", None) or ())
            note = f", {errors} unreadable" if errors else ""
            self.statusBar().showMessage(f"{self.list_model.rowCount()} sessions{note}")
            self._refresh_done(True)

        def failed(message: str) -> None:
            self.statusBar().showMessage(f"Cannot update the catalogue: {message}")
            self._refresh_done(False)

        def partial(summaries: list[SessionSummary]) -> None:
            if self._refreshing:
                self.list_model.update_summaries(summaries)
                self._select_open_row()

        last_partial = time.monotonic()

        def progress(files_done: int, files_total: int, bytes_done: int, bytes_total: int) -> None:
            nonlocal last_partial
            self.statusBar().showMessage(f"Reading sessions: {files_done} of {files_total} files")
            # A first start over thousands of sessions takes seconds: show the newest ones as they
            # are catalogued rather than an empty list until the end.
            now = time.monotonic()
            if now - last_partial >= _PARTIAL_LIST_SECONDS:
                last_partial = now
                self.runner.start("catalogue-partial", lambda: _read_summaries(folder, roots), partial)

        def work(progress: Any, cancel: Any) -> tuple:
            return _refresh_catalogue(folder, roots, progress, cancel)

        self.runner.start("refresh", work, refreshed, failed, progress)

    def _refresh_done(self, ok: bool) -> None:
        self._refreshing = False
        if self._load_error is not None and self._session is None:
            pass  # the sentence saying why the file cannot be read stays in view
        elif self.list_model.rowCount() == 0 and self._session is None:
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

    def _select_open_row(self, path: str | None = None) -> None:
        """Select the list row of the session shown or being loaded (no new load: the paths match)."""
        if path is None:
            path = self._loading_path or (self._session.path if self._session is not None else None)
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

    def _on_session_loaded(self, loaded: tuple[Session, TreeStructure]) -> None:
        session, structure = loaded
        old = self.watcher.files()
        if old:
            self.watcher.removePaths(old)
        self._session = session
        self._loading_path = None
        self._load_error = None
        self.message_view.show_entry(None, None)
        self.tree_model.reset_session(session, structure)
        self.watcher.addPath(session.path)
        self.diagnostics_panel.set_diagnostics(session.diagnostics)
        # The tree's first layout (in select_leaf) and the first message's render each take tens of ms on a
        # 20,000-entry session: the render waits for the next turn of the event loop, so that the two never
        # add up to one long stall.
        self._render_deferred = True
        try:
            self.select_leaf()
            self._select_pending()
        finally:
            self._render_deferred = False
        title = session.name or os.path.basename(session.path)
        self.setWindowTitle(f"{title} — Prime Sessions")
        self.statusBar().showMessage(f"{len(session.entries)} entries in {session.path}", 5000)
        # Not 0 ms: a zero timer runs in the same pass of the event loop, before the paint and other timers.
        QTimer.singleShot(_RENDER_DELAY_MSECS, self, lambda: self._finish_load(session))

    def _finish_load(self, session: Session) -> None:
        if session is not self._session:
            return  # another session was shown meanwhile
        self._on_entry_changed(self.tree.currentIndex(), QModelIndex())
        self.session_loaded.emit(session)

    def _on_load_failed(self, message: str) -> None:
        self._loading_path = None
        self._pending_entry = None
        sentence = _sentence(message)
        self._load_error = sentence
        self.message_view.show_html(f"<p>{html.escape(sentence)}</p>")
        self.statusBar().showMessage(sentence)
        self.load_failed.emit(sentence)

    def _current_entry_id(self) -> str | None:
        entry = self.tree_model.entry_for_index(self.tree.currentIndex())
        return entry.id if entry is not None else None

    def _on_entry_changed(self, current: QModelIndex, _previous: QModelIndex) -> None:
        entry = self.tree_model.entry_for_index(current)
        if entry is None or self._session is None or self._render_deferred:
            return
        if self.context_mode:
            self._show_context(entry)
        else:
            self.message_view.show_entry(self._session, entry)

    def _on_context_toggled(self, _checked: bool) -> None:
        entry = self.tree_model.entry_for_index(self.tree.currentIndex())
        if entry is None or self._session is None:
            self.runner.cancel("context")
            return
        if self.context_mode:
            self._show_context(entry)
        else:
            self.runner.cancel("context")
            self.message_view.show_entry(self._session, entry)

    def _show_context(self, entry: Entry) -> None:
        """Build the context at ``entry`` in a worker and show it (a newer request drops this one)."""
        session, entry_id = self._session, entry.id
        if session is None:
            return
        self.statusBar().showMessage("Reading what the model saw…")

        def built(messages: list[dict]) -> None:
            if not self.context_mode or self._session is not session or self._current_entry_id() != entry_id:
                return  # the selection moved on
            self.message_view.show_context(session, entry, messages)
            count = len(messages)
            self.statusBar().showMessage(f"The model saw {count} {'message' if count == 1 else 'messages'}")
            self.context_shown.emit(count)

        def failed(message: str) -> None:
            self.message_view.show_html(f"<p>{html.escape(_sentence(message))}</p>")
            self.statusBar().showMessage(_sentence(message))

        self.runner.start("context", lambda: _context(session, entry_id), built, failed)

    def _on_filter_mode_changed(self, mode: str) -> None:
        current = self._current_entry_id()
        self.tree_model.filter_mode = mode
        if not self.select_entry(current):
            self.select_leaf()


def _is_within(path: str, folder: str) -> bool:
    """Whether ``path`` is ``folder`` or lies below it."""
    try:
        return os.path.commonpath([path, folder]) == folder
    except ValueError:  # different drives
        return False


def _pane(controls: QHBoxLayout, body: QWidget) -> QWidget:
    """A column of the window: a row of controls above a view that takes the rest of the height."""
    pane = QWidget()
    layout = QVBoxLayout(pane)
    layout.setContentsMargins(0, 0, 0, 0)
    layout.addLayout(controls)
    layout.addWidget(body, 1)
    return pane
