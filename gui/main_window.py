"""The main window: session list | branch tree | transcript. Layout and wiring only.

The window builds the panes, the task runner, the :class:`~gui.controllers.context.WindowContext` and the
action registry, then the controllers, each the one owner of its piece of state: the catalogue controller
(the list, its refreshes, search), the notes controller (archive, pin, tags: the list's marks), the
open-session controller (the session in the tree, following its file), the transcript pane, file
opening, editing, diff and export. Controllers see the context, never the window, and never each other;
what one of them needs from another is connected here. Menus, the toolbar and context menus are filled
from the registry, whose rules decide which actions are enabled.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QByteArray, QPoint, Qt
from PySide6.QtGui import QAction, QCloseEvent, QDragEnterEvent, QDragMoveEvent, QDropEvent
from PySide6.QtWidgets import QAbstractItemView, QMainWindow, QMenu, QSplitter, QTabWidget, QWidget

from core.catalogue import default_catalogue_dir
from core.formatting import title
from gui.actions import MENUS, ActionRegistry
from gui.controllers.catalogue import CatalogueController
from gui.controllers.context import Change, SessionChanged, ViewSelection, WindowContext
from gui.controllers.diff import DiffController
from gui.controllers.editing import EditingController
from gui.controllers.export import ExportController
from gui.controllers.files import FileController, dropped_paths
from gui.controllers.help import HelpController
from gui.controllers.notes import NotesController
from gui.controllers.opened import OpenSessionController
from gui.controllers.resume import ResumeController
from gui.controllers.touched import TouchedFilesController
from gui.controllers.transcript import TranscriptController
from gui.controllers.usage import UsageController
from gui.controllers.view import ViewController
from gui.scheduling import Scheduler
from gui.settings import app_settings, read_preferences
from gui.widgets.diagnostics_panel import DiagnosticsPanel
from gui.widgets.files_pane import FilesPane
from gui.widgets.panes import BranchTreePane, SessionListPane, TranscriptPane
from gui.widgets.search_panel import SearchPanel
from gui.workers import TaskRunner

if TYPE_CHECKING:
    from core.session import Session

__all__ = ["DEMO_DIR", "MainWindow", "session_title"]

DEMO_DIR = Path(__file__).resolve().parent.parent / "resources" / "demo"
# On close, reads (a load, a catalogue pass, a search) get this long to notice they were cancelled; the
# process then ends without them (gui.leaving). A write (fork, clone, rename) is waited for, up to a minute.
LIST_WIDTH = 400  # px: the session list's least default width (a title of 180 px, the project, the date)
_SHUTDOWN_MSECS = 300
_WRITE_MSECS = 60_000
_MENU_TITLES = {
    "File": "&File",
    "Edit": "&Edit",
    "Session": "&Session",
    "View": "&View",
    "Go": "&Go",
    "Help": "&Help",
}


def session_title(session: Session, *, name: str | None = None, width: int = 80) -> str:
    """How a window names a session: its name (``name`` overrides it), else its first message.

    On one line and cut to ``width`` characters; the file name when the session has neither.
    """
    shown = title(session.name if name is None else name, session.first_message, width)
    return shown or os.path.basename(session.path)


def _preferred_roots() -> list[Path]:
    """The session folders of Edit > Preferences, else the agents' default folders."""
    from core.session import default_roots

    return read_preferences(app_settings()).session_folders or default_roots()


class MainWindow(QMainWindow):
    """Browse sessions: a filterable list, the selected session's branch tree and the selected entry."""

    def __init__(
        self,
        roots: list[Path] | None = None,
        catalogue_dir: Path | None = None,
        open_path: Path | None = None,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.setWindowTitle("Prime Sessions")
        self._build_layout()
        self.scheduler = Scheduler(self)  # the window's: every task of its controllers runs through it
        self.runner = TaskRunner(self.scheduler, self)
        self.context = context = WindowContext(self.runner, self.statusBar(), self)
        self.registry = actions = ActionRegistry(self)
        actions.set_scope("list", self.table)
        actions.set_scope("tree", self.tree)

        self.opened = OpenSessionController(
            context, self.tree_model, self.tree, self.filter_mode, self.diagnostics_panel, actions
        )
        self.opened.catalogue_dir = catalogue_dir if catalogue_dir is not None else default_catalogue_dir()
        self.catalogue = CatalogueController(
            context,
            self.list_model,
            self.proxy,
            self.table,
            self.search_panel,
            roots=[Path(r) for r in roots] if roots is not None else _preferred_roots(),
            catalogue_dir=catalogue_dir,
            shown_path=lambda: self.opened.shown_path,
        )
        self.messages = TranscriptController(
            context,
            self.transcript,
            self.find_bar,
            self.context_toggle,
            actions,
            filter_mode=lambda: self.tree_model.filter_mode,
        )
        context.provide(
            session=lambda: self.opened.session,
            selection=ViewSelection(self.table, self.proxy, self.tree, self.tree_model),
            summaries=self.catalogue.summaries,
            focus=lambda view: (self.transcript if view == "messages" else self.tree).setFocus(
                Qt.FocusReason.OtherFocusReason
            ),
        )
        self.files = FileController(
            context, actions, roots=lambda: self.catalogue.roots, set_roots=self.set_roots
        )
        self._add_window_actions(actions)
        self.editing = EditingController(context, actions)
        self.notes = NotesController(
            context, actions, self.list_model, self.proxy, set_filter=self.filter_list_on
        )
        self.diff_controller = DiffController(context, actions)
        self.export_controller = ExportController(context, actions)
        self.resume = ResumeController(context, actions, set_roots=self.set_roots)
        self.touched = TouchedFilesController(
            context, self.files_pane, self.proxy, catalogue_dir=catalogue_dir
        )
        self.usage = UsageController(
            context,
            actions,
            roots=lambda: self.catalogue.roots,
            catalogue_dir=catalogue_dir,
            tree_model=self.tree_model,
            header=self.tree_pane.usage_label,
        )
        self.help = HelpController(
            context,
            actions,
            roots=lambda: self.catalogue.roots,
            catalogue_dir=catalogue_dir,
            recent=lambda: self.files.recent_paths,
            open_path=self.files.open_path,
            more_commands=self.notes.palette_commands,
        )
        self._build_menus()
        self._wire()
        self.setAcceptDrops(True)
        self.read_settings()
        self.messages.show_page("<p>Reading the session list…</p>")
        self.catalogue.start()
        if open_path is not None:
            self.opened.open(open_path)

    # ------------------------------------------------------------------ layout
    def _build_layout(self) -> None:
        self.list_pane = SessionListPane()
        self.tree_pane = BranchTreePane()
        self.files_pane = FilesPane()  # the open session's files touched, a tab beside the tree
        self.session_tabs = QTabWidget()
        self.session_tabs.setDocumentMode(True)
        self.session_tabs.addTab(self.tree_pane, "Tree")
        self.session_tabs.addTab(self.files_pane, "Files")
        self.session_tabs.setTabToolTip(1, "The files this session's tools read, edited, wrote or ran on")
        self.message_pane = TranscriptPane()
        self.search_panel = SearchPanel()
        # The views and models the tests and the benchmarks reach for, under their usual names.
        self.table, self.proxy, self.list_model = (
            self.list_pane.table,
            self.list_pane.proxy,
            self.list_pane.list_model,
        )
        self.filter_edit, self.named_only = self.list_pane.filter_edit, self.list_pane.named_only
        self.thread_forks = self.list_pane.thread_forks
        self.tree, self.tree_model = self.tree_pane.tree, self.tree_pane.tree_model
        self.filter_mode, self.jump_button = self.tree_pane.filter_mode, self.tree_pane.jump_button
        self.transcript, self.context_toggle = self.message_pane.transcript, self.message_pane.context_toggle
        self.find_bar = self.message_pane.find_bar
        self.search_edit = self.search_panel.edit

        self.left_splitter = QSplitter(Qt.Orientation.Vertical)
        self.left_splitter.addWidget(self.list_pane)
        self.left_splitter.addWidget(self.search_panel)
        self.left_splitter.setStretchFactor(0, 3)
        self.left_splitter.setStretchFactor(1, 1)
        self.left_splitter.setChildrenCollapsible(False)
        self.splitter = QSplitter(Qt.Orientation.Horizontal)
        for index, (pane, stretch) in enumerate(
            # A wider or narrower window changes the tree and the transcript; the list keeps its width.
            ((self.left_splitter, 0), (self.session_tabs, 1), (self.message_pane, 3))
        ):
            self.splitter.addWidget(pane)
            self.splitter.setStretchFactor(index, stretch)
        self.splitter.setChildrenCollapsible(False)
        self.setCentralWidget(self.splitter)
        self.resize(1400, 850)
        # bottom: diagnostics of the open session (hidden while it has no problems)
        self.diagnostics_panel = DiagnosticsPanel(self)
        self.addDockWidget(Qt.DockWidgetArea.BottomDockWidgetArea, self.diagnostics_panel)
        self.diagnostics_panel.hide()
        self.toolbar = self.addToolBar("Edit")
        self.toolbar.setObjectName("edit_toolbar")  # saveState needs a name
        for view in (self.table, self.tree):
            view.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)

    def _add_window_actions(self, actions: ActionRegistry) -> None:
        from PySide6.QtGui import QKeySequence

        key = QKeySequence.StandardKey
        actions.add(
            "file.refresh", "&Refresh", self.refresh, shortcut=key.Refresh, menu="File", section="find"
        )
        actions.add(
            "file.find", "&Find Sessions", self.focus_filter, shortcut=key.Find, menu="File", section="find"
        )
        actions.add(
            "file.search",
            "&Search All Sessions",
            self.focus_search,
            shortcut="Ctrl+Shift+F",
            menu="File",
            section="find",
        )
        actions.add("file.quit", "&Quit", self.close, shortcut="Ctrl+Q", menu="File", section="quit")
        search_toggle = QAction("&Search Panel", self, checkable=True, checked=True)
        search_toggle.toggled.connect(self.search_panel.setVisible)
        problems_toggle = self.diagnostics_panel.toggleViewAction()
        problems_toggle.setText("&Problems Panel")
        toolbar_toggle = self.toolbar.toggleViewAction()
        toolbar_toggle.setText("&Toolbar")
        self.list_toggle = actions.add_toggle(
            "view.session_list",
            "Session &List",
            self.left_splitter.setVisible,
            checked=True,
            shortcut="Ctrl+Shift+1",
            menu="View",
            section="columns",
        )
        self.tree_toggle = actions.add_toggle(
            "view.branch_tree",
            "&Branch Tree",
            self.session_tabs.setVisible,
            checked=True,
            shortcut="Ctrl+Shift+2",
            menu="View",
            section="columns",
        )
        for number, (name, text, focus) in enumerate(
            (
                ("view.focus_list", "Go to the Session List", self.focus_list),
                ("view.focus_tree", "Go to the Branch Tree", self.focus_tree),
                ("view.focus_transcript", "Go to the Transcript", self.focus_transcript),
                ("view.focus_files", "Go to the Files Touched", self.focus_files),
            ),
            start=1,
        ):
            actions.add(name, text, focus, shortcut=f"Ctrl+{number}", menu="View", section="focus")
        panes: list[QWidget] = [
            self.list_pane,
            self.tree_pane,
            self.files_pane,
            self.message_pane,
            self.search_panel,
        ]
        self.view = ViewController(
            self.context,
            actions,
            panes=panes,
            panels={"search_panel": search_toggle, "problems": problems_toggle, "toolbar": toolbar_toggle},
        )

    def _build_menus(self) -> None:
        self.menus: dict[str, QMenu] = {}
        for name in MENUS:
            menu = QMenu(_MENU_TITLES.get(name, name), self)
            self.registry.fill_menu(menu, name)
            if not menu.isEmpty():  # a menu with nothing in it yet stays out of the menu bar
                self.menuBar().addMenu(menu)
                self.menus[name] = menu
        for action in self.registry.toolbar_actions():
            self.toolbar.addAction(action)

    # ------------------------------------------------------------------ wiring between controllers
    def _wire(self) -> None:
        context, opened, catalogue, messages = self.context, self.opened, self.catalogue, self.messages
        self.table.selectionModel().selectionChanged.connect(context.selection_changed)
        self.tree.selectionModel().selectionChanged.connect(context.selection_changed)
        self.tree.selectionModel().currentChanged.connect(context.selection_changed)
        context.selection_changed.connect(self.registry.update)
        context.session_loaded.connect(self.registry.update)
        context.session_loaded.connect(self._show_title)
        context.session_loaded.connect(lambda _session: catalogue.select_open_row())
        context.session_changed.connect(self._on_session_changed)
        context.session_closed.connect(self._show_title)
        context.session_closed.connect(self.registry.update)
        opened.entry_shown.connect(messages.show)
        catalogue.roots_changed.connect(self._on_roots_changed)
        catalogue.refresh_finished.connect(self._after_refresh)
        catalogue.refresh_finished.connect(self.usage.catalogue_refreshed)
        catalogue.refresh_finished.connect(self.touched.catalogue_refreshed)
        catalogue.refresh_finished.connect(lambda _ok: self.notes.reload())  # new sessions' notes too
        catalogue.roots_changed.connect(self.usage.roots_changed)
        messages.demo_requested.connect(self.open_demo)
        self.jump_button.clicked.connect(opened.select_leaf)
        self.diagnostics_panel.entry_requested.connect(opened.reveal_entry)
        self.files_pane.sessions_requested.connect(lambda path: self.filter_edit.setText(f'touched:"{path}"'))
        messages.entry_requested.connect(opened.reveal_entry)
        messages.follow_requested.connect(opened.reveal_entry)
        messages.reading_entry.connect(opened.mark_reading)
        opened.reading_position = lambda: messages.reading_entry_id() if self.transcript.hasFocus() else None
        self.tree_model.label_edit_requested.connect(self.editing.set_label)
        self.list_model.rename_requested.connect(self.editing.rename)
        self.table.customContextMenuRequested.connect(lambda pos: self._context_menu("list", self.table, pos))
        self.tree.customContextMenuRequested.connect(lambda pos: self._context_menu("tree", self.tree, pos))

    def _after_refresh(self, _ok: bool) -> None:
        if self.opened.session is None:
            self.messages.show_list_state(
                rows=self.list_model.rowCount(), roots=self.catalogue.roots, load_error=self.opened.load_error
            )

    def _on_roots_changed(self) -> None:
        """Another folder is listed: nothing of the previous one stays on screen."""
        self.opened.clear()
        self.messages.show_page("<p>Reading the session list…</p>")

    def _show_title(self, *_args: object) -> None:
        """The window title: the open session's title (its name, else its first message)."""
        session = self.opened.session
        self.setWindowTitle(f"{session_title(session)} — Prime Sessions" if session else "Prime Sessions")

    def _on_session_changed(self, change: SessionChanged) -> None:
        """The open session's new name shows in the title at once (from the change: it may be unread yet)."""
        session = self.opened.session
        if change.what is Change.NAME and session is not None and session.path == change.path:
            self.setWindowTitle(f"{session_title(session, name=change.text)} — Prime Sessions")

    def _context_menu(self, view: str, widget: QAbstractItemView, pos: QPoint) -> None:
        index = widget.indexAt(pos)
        if widget is self.table:
            index = self.proxy.mapToSource(index)  # contributors get the list model's index
        menu = QMenu(widget)
        self.registry.fill_context_menu(view, menu, index)
        if not menu.isEmpty():
            menu.exec(widget.viewport().mapToGlobal(pos))
        menu.deleteLater()

    # ------------------------------------------------------------------ commands of the window itself
    def set_roots(self, roots: list[Path]) -> None:
        """List the sessions under other folders (replaces the list)."""
        self.catalogue.set_roots(roots)

    def open_demo(self) -> None:
        """List the user's copy of the demo sessions (made on first use), never the shipped files."""
        from core.errors import PrimeSessionsError
        from core.writing import demo_copy

        try:
            folder = demo_copy(DEMO_DIR)
        except PrimeSessionsError as err:
            self.statusBar().showMessage(str(err))
            return
        self.set_roots([folder])

    def refresh(self) -> None:
        """Bring the catalogue up to date and read the open session again (both in workers)."""
        self.catalogue.refresh()
        self.opened.reload()

    def focus_filter(self) -> None:
        """Ctrl+F: find in the open session from the tree or the transcript, else filter the session list."""
        focus = self.focusWidget()  # the window's own: its shortcut fires while it is active anyway
        in_session = focus is not None and any(
            pane.isAncestorOf(focus) for pane in (self.tree_pane, self.message_pane)
        )
        if in_session and self.transcript.card_source is not None:
            self.messages.find.open()
            return
        self.list_toggle.setChecked(True)
        self.filter_edit.setFocus(Qt.FocusReason.ShortcutFocusReason)
        self.filter_edit.selectAll()

    def filter_list_on(self, text: str) -> None:
        """Show the sessions the filter ``text`` finds (the palette's tags): the list shown, the box set."""
        self.list_toggle.setChecked(True)
        self.filter_edit.setText(text)

    def focus_list(self) -> None:
        """Ctrl+1: the keyboard focus in the session list (shown again if it was hidden)."""
        self.list_toggle.setChecked(True)
        self.table.setFocus(Qt.FocusReason.ShortcutFocusReason)

    def focus_tree(self) -> None:
        """Ctrl+2: the keyboard focus in the branch tree (shown again if it was hidden)."""
        self.tree_toggle.setChecked(True)
        self.session_tabs.setCurrentWidget(self.tree_pane)
        self.tree.setFocus(Qt.FocusReason.ShortcutFocusReason)

    def focus_files(self) -> None:
        """Ctrl+4: the Files tab beside the tree (shown again if hidden), the keyboard in its list."""
        self.tree_toggle.setChecked(True)
        self.session_tabs.setCurrentWidget(self.files_pane)
        self.files_pane.view.setFocus(Qt.FocusReason.ShortcutFocusReason)

    def focus_transcript(self) -> None:
        """Ctrl+3: the keyboard focus in the transcript."""
        self.transcript.setFocus(Qt.FocusReason.ShortcutFocusReason)

    def focus_search(self) -> None:
        """Put the keyboard focus in the full-text search box."""
        self.search_edit.setFocus(Qt.FocusReason.ShortcutFocusReason)
        self.search_edit.selectAll()

    # ------------------------------------------------------------------ settings
    def read_settings(self) -> None:
        settings = app_settings()
        settings.beginGroup("main_window")
        geometry = settings.value("geometry")
        if isinstance(geometry, QByteArray) and not geometry.isEmpty():
            self.restoreGeometry(geometry)
        width = max(self.width(), 800)
        listed = max(LIST_WIDTH, width * 26 // 100)  # room for a title, its project and its date
        tree = width * 20 // 100
        for splitter, key, default in (
            # The transcript gets the rest, more than half of a 1600 px window: it is what is read.
            (self.splitter, "splitter", [listed, tree, width - listed - tree]),
            (self.left_splitter, "left_splitter", None),
        ):
            state = settings.value(key)
            if isinstance(state, QByteArray) and not state.isEmpty():
                splitter.restoreState(state)
            elif default is not None:
                splitter.setSizes(default)
        self.thread_forks.setChecked(bool(settings.value("thread_forks", False, type=bool)))
        self.list_toggle.setChecked(bool(settings.value("list_visible", True, type=bool)))
        self.tree_toggle.setChecked(bool(settings.value("tree_visible", True, type=bool)))
        settings.endGroup()
        self.view.read_settings()

    def write_settings(self) -> None:
        settings = app_settings()
        settings.beginGroup("main_window")
        settings.setValue("geometry", self.saveGeometry())
        settings.setValue("splitter", self.splitter.saveState())
        settings.setValue("left_splitter", self.left_splitter.saveState())
        settings.setValue("thread_forks", self.thread_forks.isChecked())
        settings.setValue("list_visible", self.list_toggle.isChecked())
        settings.setValue("tree_visible", self.tree_toggle.isChecked())
        settings.endGroup()
        settings.sync()

    # ------------------------------------------------------------------ events
    def dragEnterEvent(self, event: QDragEnterEvent) -> None:
        if dropped_paths(event.mimeData()):
            event.acceptProposedAction()
        else:
            event.ignore()

    def dragMoveEvent(self, event: QDragMoveEvent) -> None:
        if dropped_paths(event.mimeData()):
            event.acceptProposedAction()
        else:
            event.ignore()

    def dropEvent(self, event: QDropEvent) -> None:
        paths = dropped_paths(event.mimeData())
        if not paths:
            event.ignore()
            return
        event.acceptProposedAction()
        self.files.open_path(paths[0])

    def closeEvent(self, event: QCloseEvent) -> None:
        self.write_settings()
        self.usage.close()
        self.catalogue.close()
        self.scheduler.close(_SHUTDOWN_MSECS, _WRITE_MSECS)
        self.opened.stop_watching()
        super().closeEvent(event)
