"""The diff window (two branches, or two sessions, side by side) and the controller that opens it.

Layout: one ``QTreeView`` with two columns over ``gui.models.diff_model.DiffModel``, so an aligned pair of
messages is one row and the two sides can never drift apart while scrolling. The common part is a collapsed
row at the top; a long run of unchanged rows is one expandable row ("⋯ 14 unchanged messages"). Cells are
rich text rendered by ``core.diff.render.cell_html`` and drawn by :class:`RichTextDelegate`.

The diff itself is computed by ``core.diff.compare`` in a worker of the main window's ``TaskRunner`` (channel
``"diff"``); the sessions are read again there, never shared with the main thread.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QModelIndex, QObject, QPersistentModelIndex, QSize, Qt, QTimer, Signal
from PySide6.QtGui import QAction, QKeySequence, QPalette, QPen, QTextDocument
from PySide6.QtWidgets import (
    QAbstractItemView,
    QFileDialog,
    QHeaderView,
    QLabel,
    QMainWindow,
    QMenu,
    QStyle,
    QStyledItemDelegate,
    QStyleOptionViewItem,
    QTreeView,
    QVBoxLayout,
    QWidget,
)

from core.diff import CHANGED, DELETED, INSERTED, SAME, BranchDiff, summary_lines
from gui.message_view import is_dark
from gui.models.diff_model import ENTRY_ROLE, HTML_ROLE, KIND_ROLE, LEFT, DiffModel

if TYPE_CHECKING:
    from core.session import Entry
    from gui.main_window import MainWindow

__all__ = ["DiffController", "DiffWindow", "RichTextDelegate"]

ModelIndex = QModelIndex | QPersistentModelIndex
PIXEL_SCROLL_ROWS = 1500  # more top-level rows than this scroll by item (see DiffWindow._after_reset)


class RichTextDelegate(QStyledItemDelegate):
    """Draws the model's ``HTML_ROLE`` as rich text wrapped to the column width, over the row's shade."""

    def __init__(self, view: QTreeView) -> None:
        super().__init__(view)
        self._view = view
        self._docs: dict[tuple[int, int, int], QTextDocument] = {}  # (row id, column, width) -> laid-out doc

    def clear(self) -> None:
        """Forget laid-out documents (after a model reset or a column resize)."""
        self._docs.clear()

    def _document(self, index: ModelIndex, width: int) -> QTextDocument | None:
        html = index.data(HTML_ROLE)
        if not html:
            return None
        key = (id(index.internalPointer()), index.column(), width)
        doc = self._docs.get(key)
        if doc is None:
            if len(self._docs) > 4000:  # the rows on screen are what matters; start again past this
                self._docs.clear()
            doc = QTextDocument()
            doc.setDocumentMargin(4)
            doc.setHtml(html)
            doc.setTextWidth(max(40, width))
            self._docs[key] = doc
        return doc

    def _width(self, index: ModelIndex) -> int:
        width = self._view.columnWidth(index.column())
        if index.column() == 0:
            depth = 1 if index.parent().isValid() else 0
            width -= self._view.indentation() * (depth + (1 if self._view.rootIsDecorated() else 0))
        return max(40, width)

    def sizeHint(self, option: QStyleOptionViewItem, index: ModelIndex) -> QSize:
        doc = self._document(index, self._width(index))
        if doc is None:
            return super().sizeHint(option, index)
        return QSize(int(doc.idealWidth()), int(doc.size().height()) + 2)

    def paint(self, painter: Any, option: QStyleOptionViewItem, index: ModelIndex) -> None:
        if index.data(KIND_ROLE) in ("fold", "common"):
            super().paint(painter, option, index)
            return
        doc = self._document(index, option.rect.width())  # None for the empty side of a one-sided row
        opt = QStyleOptionViewItem(option)
        self.initStyleOption(opt, index)
        opt.text = ""
        # The row's shade says what changed, so a selection is a frame around the cells, not a fill over them.
        selected = bool(opt.state & QStyle.StateFlag.State_Selected)
        opt.state &= ~QStyle.StateFlag.State_Selected
        style = opt.widget.style() if opt.widget is not None else self._view.style()
        style.drawControl(QStyle.ControlElement.CE_ItemViewItem, opt, painter, opt.widget)
        painter.save()
        painter.translate(option.rect.topLeft())
        painter.setClipRect(0, 0, option.rect.width(), option.rect.height())
        if doc is not None:
            doc.drawContents(painter)
        painter.setPen(opt.palette.color(QPalette.ColorRole.Midlight))  # a rule between rows
        painter.drawLine(0, option.rect.height() - 1, option.rect.width(), option.rect.height() - 1)
        if selected:
            painter.setPen(QPen(opt.palette.color(QPalette.ColorRole.Highlight), 2))
            painter.setBrush(Qt.BrushStyle.NoBrush)
            painter.drawRect(1, 1, option.rect.width() - 2, option.rect.height() - 2)
        painter.restore()


class DiffWindow(QMainWindow):
    """A diff side by side: F7/Shift+F7 move between changes; swap, only changes, show in tree, export."""

    entry_requested = Signal(str, str)  # (session file, entry id): show this entry in the branch tree
    exported = Signal(str)  # the path of an exported HTML file

    def __init__(self, diff: BranchDiff, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowFlag(Qt.WindowType.Window, True)
        self.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose, True)
        self.model = DiffModel(diff, self, dark=is_dark())
        self.view = QTreeView()
        self.view.setModel(self.model)
        self.view.setUniformRowHeights(False)
        self.view.setAlternatingRowColors(False)
        self.view.setIndentation(14)
        self.view.setWordWrap(True)
        self.view.setExpandsOnDoubleClick(False)  # a click toggles a fold; a double-click shows in tree
        self.view.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.delegate = RichTextDelegate(self.view)
        self.view.setItemDelegate(self.delegate)
        header = self.view.header()
        header.setSectionResizeMode(QHeaderView.ResizeMode.Stretch)
        header.setStretchLastSection(True)
        self.summary = QLabel()
        self.summary.setTextFormat(Qt.TextFormat.PlainText)
        self.summary.setWordWrap(True)
        self.summary.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        body = QWidget()
        layout = QVBoxLayout(body)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(self.summary)
        layout.addWidget(self.view, 1)
        self.setCentralWidget(body)
        self.resize(1300, 850)
        self._relayout_timer = QTimer(self)
        self._relayout_timer.setSingleShot(True)
        self._relayout_timer.setInterval(50)
        self._relayout_timer.timeout.connect(self._relayout)
        header.sectionResized.connect(lambda *_args: self._relayout_timer.start())
        self.view.clicked.connect(self._on_clicked)
        self.view.doubleClicked.connect(lambda _index: self.show_in_tree())
        self.view.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        self.view.customContextMenuRequested.connect(self._context_menu)
        self._make_actions()
        self.model.modelAboutToBeReset.connect(self.delegate.clear)  # item ids are reused after a reset
        self.model.modelReset.connect(self._after_reset)
        self._after_reset()

    # ------------------------------------------------------------------ actions
    def _make_actions(self) -> None:
        toolbar = self.addToolBar("Diff")
        toolbar.setObjectName("diff_toolbar")

        def action(text: str, slot: Callable[[], None], shortcut: str = "", tip: str = "") -> QAction:
            made = QAction(text, self)
            if shortcut:
                made.setShortcut(QKeySequence(shortcut))
            made.setToolTip(f"{tip or text} ({shortcut})" if shortcut else tip or text)
            made.triggered.connect(lambda _checked=False: slot())
            toolbar.addAction(made)
            self.addAction(made)
            return made

        self.previous_action = action("◀ Previous Change", self.previous_change, "Shift+F7")
        self.next_action = action("Next Change ▶", self.next_change, "F7")
        toolbar.addSeparator()
        self.swap_action = action(
            "Swap Sides", self.swap, "Ctrl+Shift+S", "Exchange the left and right sides"
        )
        self.only_changes_action = QAction("Only Changes", self)
        self.only_changes_action.setCheckable(True)
        self.only_changes_action.setToolTip("Hide unchanged messages and the common part")
        self.only_changes_action.toggled.connect(self.set_only_changes)
        toolbar.addAction(self.only_changes_action)
        toolbar.addSeparator()
        self.show_in_tree_action = action(
            "Show in Tree",
            self.show_in_tree,
            "Ctrl+T",
            "Select the message of the current cell in the branch tree",
        )
        self.export_action = action(
            "Export HTML…", self.export_dialog, "Ctrl+E", "Save the diff as one HTML file"
        )

    # ------------------------------------------------------------------ public API
    @property
    def diff(self) -> BranchDiff:
        """The diff shown (swapped when the sides were swapped)."""
        diff = self.model.diff
        assert diff is not None
        return diff

    def next_change(self) -> bool:
        """Select the first row of the next run of changes; False when there is none after the current row."""
        return self._step(1)

    def previous_change(self) -> bool:
        """Select the first row of the previous run of changes; False when there is none before."""
        return self._step(-1)

    def swap(self) -> None:
        """Exchange the two sides (the current row stays current)."""
        current = self._top_row()
        self.model.swap()
        if current >= 0:
            self._select(self.model.index(current, 0))

    def set_only_changes(self, on: bool) -> None:
        """Show only changed, inserted and deleted rows (or everything again)."""
        if self.only_changes_action.isChecked() != on:
            self.only_changes_action.setChecked(on)  # emits toggled, which calls this again
            return
        self.model.set_only_changes(on)

    def unfold(self, row: int, on: bool = True) -> None:
        """Expand (or fold again) the fold or common part at top-level ``row``."""
        index = self.model.index(row, 0)
        if self.model.is_group(index):
            self.view.setExpanded(index, on)

    def current_entry(self) -> tuple[str, str] | None:
        """``(session file, entry id)`` of the current cell, or None for an empty cell, a fold, or nothing."""
        index = self.view.currentIndex()
        if not index.isValid():
            return None
        entry_id = index.data(ENTRY_ROLE)
        if entry_id is None:
            other = index.siblingAtColumn(1 - index.column())
            entry_id = other.data(ENTRY_ROLE)
            column = other.column()
        else:
            column = index.column()
        if entry_id is None:
            return None
        side = self.diff.left if column == LEFT else self.diff.right
        return side.file, entry_id

    def show_in_tree(self) -> bool:
        """Ask for the current cell's message in the branch tree (``entry_requested``)."""
        found = self.current_entry()
        if found is None:
            return False
        self.entry_requested.emit(*found)
        return True

    def export_html(self, path: str, overwrite: bool = False) -> None:
        """Write the diff as a self-contained HTML file (core does the writing; never over a file unasked)."""
        from core.diff import render_html
        from core.export import write_export

        data = render_html(self.diff, title=self.windowTitle()).encode("utf-8", "backslashreplace")
        write_export(path, data, overwrite=overwrite)
        self.exported.emit(path)

    def export_dialog(self) -> None:
        """Ask for a file name and export; QFileDialog asks before replacing, which counts as consent."""
        from core.errors import PrimeSessionsError

        start = os.path.join(os.path.dirname(self.diff.left.file), f"diff-{self.diff.left.entry_id}.html")
        path, _filter = QFileDialog.getSaveFileName(self, "Export the diff as HTML", start, "HTML (*.html)")
        if not path:
            return
        try:
            self.export_html(path, overwrite=os.path.exists(path))
        except PrimeSessionsError as err:
            self.statusBar().showMessage(str(err))
            return
        self.statusBar().showMessage(f"Saved {path}", 5000)

    # ------------------------------------------------------------------ private
    def _after_reset(self) -> None:
        self.delegate.clear()
        # Pixel scrolling makes QTreeView measure every row (a rich-text layout each) for the scroll bar
        # range: fine for the few hundred rows of a typical diff, seconds for two unrelated long sessions.
        many = self.model.rowCount() > PIXEL_SCROLL_ROWS
        self.view.setVerticalScrollMode(
            QAbstractItemView.ScrollMode.ScrollPerItem
            if many
            else QAbstractItemView.ScrollMode.ScrollPerPixel
        )
        for row in range(self.model.rowCount()):
            if self.model.is_group(self.model.index(row, 0)):
                self.view.setFirstColumnSpanned(row, QModelIndex(), True)
        diff = self.model.diff
        if diff is None:
            return
        left, right = diff.left, diff.right
        left_name, right_name = os.path.basename(left.file), os.path.basename(right.file)
        self.setWindowTitle(f"Diff: {left_name} @ {left.entry_id} ↔ {right_name} @ {right.entry_id}")
        counts = diff.counts
        lines = [
            f"{counts[CHANGED]} changed · {counts[DELETED]} only left · {counts[INSERTED]} only right · "
            f"{counts[SAME]} same",
        ]
        for label, a, b in summary_lines(diff)[1:]:
            lines.append(f"{label}: {a}  |  {b}")
        self.summary.setText("\n".join(lines))
        starts = self.model.change_rows()
        self.next_action.setEnabled(bool(starts))
        self.previous_action.setEnabled(bool(starts))

    def _relayout(self) -> None:
        self.delegate.clear()
        self.view.doItemsLayout()

    def _top_row(self) -> int:
        index = self.view.currentIndex()
        if not index.isValid():
            return -1
        while index.parent().isValid():
            index = index.parent()
        return index.row()

    def _step(self, step: int) -> bool:
        starts = self.model.change_rows()
        current = self._top_row()
        if step > 0:
            after = [row for row in starts if row > current]
            target = after[0] if after else None
        else:
            before = [row for row in starts if row < current] if current >= 0 else []
            target = before[-1] if before else None
        if target is None:
            return False
        self._select(self.model.index(target, 0))
        return True

    def _select(self, index: QModelIndex) -> None:
        if not index.isValid():
            return
        self.view.setCurrentIndex(index)
        self.view.scrollTo(index, QAbstractItemView.ScrollHint.PositionAtCenter)

    def _on_clicked(self, index: QModelIndex) -> None:
        if self.model.is_group(index):
            self.view.setExpanded(
                index.siblingAtColumn(0), not self.view.isExpanded(index.siblingAtColumn(0))
            )

    def _context_menu(self, pos: Any) -> None:
        menu = QMenu(self.view)
        for action in (self.show_in_tree_action, self.previous_action, self.next_action, self.swap_action):
            menu.addAction(action)
        menu.exec(self.view.viewport().mapToGlobal(pos))
        menu.deleteLater()


# ---------------------------------------------------------------------------- the controller
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

    def __init__(self, window: MainWindow) -> None:
        super().__init__(window)
        self.window = window
        self.marked: tuple[str, str] | None = None  # (session file, entry id) chosen as the left side
        self.windows: list[DiffWindow] = []
        # Ctrl-click selects two leaves; the window still follows the current index, as before.
        window.tree.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
        window.table.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
        menu = window.session_menu
        menu.addSeparator()
        self.compare_entries_action = self._action(
            menu, "Compare Selected &Entries", self.compare_selected_entries, "Ctrl+Shift+D"
        )
        self.compare_sessions_action = self._action(
            menu, "Compare Selected Sess&ions", self.compare_selected_sessions
        )
        self.compare_parent_action = self._action(
            menu, "Compare with &Parent Session", self.compare_with_parent
        )
        window.tree_context_contributors.append(self._fill_tree_menu)
        window.list_context_contributors.append(self._fill_list_menu)
        window.tree.selectionModel().selectionChanged.connect(self.update_actions)
        window.table.selectionModel().selectionChanged.connect(self.update_actions)
        window.session_loaded.connect(self.update_actions)
        self.update_actions()

    def _action(self, menu: QMenu, text: str, slot: Callable[[], None], shortcut: str = "") -> QAction:
        action = QAction(text, self.window)
        if shortcut:
            action.setShortcut(QKeySequence(shortcut))
        action.triggered.connect(lambda _checked=False: slot())
        menu.addAction(action)
        self.window.addAction(action)
        return action

    # ------------------------------------------------------------------ what is selected
    def selected_entries(self) -> list[Entry]:
        """The entries selected in the branch tree, in tree order."""
        model = self.window.tree_model
        indexes = sorted(
            self.window.tree.selectionModel().selectedRows(0),
            key=lambda i: self.window.tree.visualRect(i).top(),
        )
        entries = [model.entry_for_index(i) for i in indexes]
        return [e for e in entries if e is not None]

    def selected_sessions(self) -> list[str]:
        """The sessions selected in the list (absolute paths, in view order)."""
        proxy = self.window.proxy
        rows = sorted(i.row() for i in self.window.table.selectionModel().selectedRows())
        paths = [proxy.summary_at(row) for row in rows]
        return [os.path.abspath(s.path) for s in paths if s is not None]

    def parent_of(self, path: str) -> str | None:
        """The parent session file of ``path`` (from the list's summary, or the open session's header)."""
        from core.diff import find_parent_file, resolve_parent_session

        session = self.window.session
        if session is not None and session.path == path:
            return resolve_parent_session(session)
        for summary in self.window.list_model.summaries():
            if os.path.abspath(summary.path) == path:
                return find_parent_file(path, summary.parentSessionPath)
        return None

    def update_actions(self, *_args: Any) -> None:
        """Enable the compare actions that apply to the current selection."""
        self.compare_entries_action.setEnabled(len(self.selected_entries()) == 2)
        self.compare_sessions_action.setEnabled(len(self.selected_sessions()) == 2)
        session = self.window.session
        self.compare_parent_action.setEnabled(
            session is not None and self.parent_of(session.path) is not None
        )

    # ------------------------------------------------------------------ context menus
    def _fill_tree_menu(self, menu: QMenu, index: QModelIndex) -> None:
        entry = self.window.tree_model.entry_for_index(index)
        session = self.window.session
        if entry is None or session is None:
            return
        mark = menu.addAction("Mark as Left Side for Compare")
        mark.triggered.connect(lambda _checked=False, eid=entry.id: self.mark(session.path, eid))
        marked = self.marked
        if marked is not None and marked != (session.path, entry.id):
            where = "" if marked[0] == session.path else f" in {os.path.basename(marked[0])}"
            compare = menu.addAction(f"Compare with {marked[1]}{where}")
            compare.triggered.connect(lambda _checked=False, eid=entry.id: self.compare_with_marked(eid))
        if len(self.selected_entries()) == 2:
            menu.addAction(self.compare_entries_action)

    def _fill_list_menu(self, menu: QMenu, index: QModelIndex) -> None:
        summary = self.window.list_model.summary_at(index.row()) if index.isValid() else None
        if summary is None:
            return
        path = os.path.abspath(summary.path)
        if len(self.selected_sessions()) == 2:
            menu.addAction(self.compare_sessions_action)
        if self.parent_of(path) is not None:
            compare = menu.addAction("Compare with Parent Session")
            compare.triggered.connect(lambda _checked=False, p=path: self.compare_session_with_parent(p))

    # ------------------------------------------------------------------ commands
    def mark(self, path: str, entry_id: str) -> None:
        """Remember an entry as the left side of the next "Compare with…"."""
        self.marked = (os.path.abspath(path), entry_id)
        self.window.statusBar().showMessage(f"{entry_id} marked: choose Compare with… on another entry", 5000)

    def compare_with_marked(self, entry_id: str) -> None:
        """Compare the marked entry (left) with ``entry_id`` of the open session (right)."""
        session = self.window.session
        if self.marked is None or session is None:
            return
        path, marked_id = self.marked
        self.compare(path, marked_id, session.path, entry_id)

    def compare_selected_entries(self) -> None:
        """Compare the two entries selected in the tree (the upper one on the left)."""
        entries = self.selected_entries()
        session = self.window.session
        if len(entries) != 2 or session is None:
            return
        self.compare(session.path, entries[0].id, session.path, entries[1].id)

    def compare_selected_sessions(self) -> None:
        """Compare the leaves of the two sessions selected in the list."""
        paths = self.selected_sessions()
        if len(paths) == 2:
            self.compare(paths[0], None, paths[1], None)

    def compare_with_parent(self) -> None:
        """Compare the open session (right) with its parent session (left)."""
        session = self.window.session
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
        self.window.statusBar().showMessage("Comparing…")

        def done(diff: BranchDiff) -> None:
            self.window.statusBar().showMessage("", 1)
            self.open_diff(diff)

        def failed(message: str) -> None:
            head, sep, rest = message.partition(": ")
            self._fail(rest if sep and head.isidentifier() and rest else message)

        self.window.runner.start(
            "diff", lambda: _compute(left_path, left_id, right_path, right_id, same), done, failed
        )

    def open_diff(self, diff: BranchDiff) -> DiffWindow:
        """Show ``diff`` in a new diff window."""
        view = DiffWindow(diff, self.window)
        view.entry_requested.connect(self.reveal)
        view.destroyed.connect(lambda _obj=None, v=view: self._forget(v))
        self.windows.append(view)
        view.show()
        view.view.setFocus()  # F7 works at once
        if diff.rows:
            view.next_change() or view._select(view.model.index(0, 0))
        self.diff_opened.emit(view)
        return view

    def reveal(self, path: str, entry_id: str) -> None:
        """Select ``entry_id`` in the branch tree, opening its session first when another one is shown."""
        session = self.window.session
        if session is not None and session.path == os.path.abspath(path):
            self.window.reveal_entry(entry_id)
        else:
            self.window.open_session(path, entry_id=entry_id)
        self.window.raise_()
        self.window.activateWindow()

    def _forget(self, view: DiffWindow) -> None:
        if view in self.windows:
            self.windows.remove(view)

    def _fail(self, sentence: str) -> None:
        self.window.statusBar().showMessage(sentence)
        self.diff_failed.emit(sentence)
