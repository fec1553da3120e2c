"""The diff window: two branches, or two sessions, side by side.

Layout: one ``QTreeView`` with two columns over ``gui.models.diff_model.DiffModel``, so an aligned pair of
messages is one row and the two sides can never drift apart while scrolling. The common part is a collapsed
row at the top; a long run of unchanged rows is one expandable row ("⋯ 14 unchanged messages"). Cells are
rich text rendered by ``core.diff.cell_html`` and drawn by :class:`RichTextDelegate`.

The diff itself is computed by ``core.diff`` in a worker (see ``gui.controllers.diff``); this window only
shows it.
"""

from __future__ import annotations

import html
import os
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QByteArray, QModelIndex, QPersistentModelIndex, QSize, Qt, QTimer, Signal
from PySide6.QtGui import QAction, QCloseEvent, QKeySequence, QPalette, QPen, QTextDocument
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
from core.diff.types import SideSummary
from gui.models.diff_model import ENTRY_ROLE, HTML_ROLE, KIND_ROLE, LEFT, DiffModel
from gui.settings import app_settings, last_export_folder, remember_export_folder
from gui.theme import is_dark

__all__ = ["DiffWindow", "RichTextDelegate", "diff_title", "summary_table"]

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


def _name(side: SideSummary) -> str:
    return side.title or os.path.basename(side.file)


def diff_title(diff: BranchDiff) -> str:
    """The window's title: the sessions by name (the entries compared, when both sides are one session)."""
    left, right = diff.left, diff.right
    if left.file == right.file:
        return f"Diff: {_name(left)} — {left.entry_id} ↔ {right.entry_id}"
    return f"Diff: {_name(left)} ↔ {_name(right)}"


def summary_table(diff: BranchDiff) -> str:
    """The summary above the rows: what changed, then a row per figure with a column per side (rich text)."""
    counts = diff.counts
    head = (
        f"{counts[CHANGED]} changed · {counts[DELETED]} only left · {counts[INSERTED]} only right · "
        f"{counts[SAME]} same"
    )
    sides = (diff.left, diff.right)
    named = (
        f"{where}: {_name(side)} @ {side.entry_id}"
        for where, side in zip(("Left", "Right"), sides, strict=True)
    )
    cells = "".join(f"<th align='left' width='45%'>{html.escape(name)}</th>" for name in named)
    rows = [f"<tr><th width='10%'></th>{cells}</tr>"]  # each side's column about above its column of rows
    for label, a, b in summary_lines(diff)[1:]:
        rows.append(
            f"<tr><td>{html.escape(label)}</td><td>{html.escape(a)}</td><td>{html.escape(b)}</td></tr>"
        )
    table = "<table width='100%' cellspacing='0' cellpadding='2'>" + "".join(rows) + "</table>"
    return f"<p>{html.escape(head)}</p>{table}"


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
        # A click toggles a fold; a double-click shows the message in the transcript.
        self.view.setExpandsOnDoubleClick(False)
        self.view.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.delegate = RichTextDelegate(self.view)
        self.view.setItemDelegate(self.delegate)
        header = self.view.header()
        header.setSectionResizeMode(QHeaderView.ResizeMode.Stretch)
        header.setStretchLastSection(True)
        self.summary = QLabel()
        self.summary.setTextFormat(Qt.TextFormat.RichText)  # every value escaped (summary_table)
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
        geometry = app_settings().value("diff_window/geometry")
        if isinstance(geometry, QByteArray) and not geometry.isEmpty():
            self.restoreGeometry(geometry)
        self.model.modelAboutToBeReset.connect(self.delegate.clear)  # item ids are reused after a reset
        self.model.modelReset.connect(self._after_reset)
        self._after_reset()

    # ------------------------------------------------------------------ actions
    def _make_actions(self) -> None:
        toolbar = self.addToolBar("Diff")
        toolbar.setObjectName("diff_toolbar")
        menus = {title: self.menuBar().addMenu(title) for title in ("&File", "&View", "&Go")}

        def action(
            menu: str,
            text: str,
            slot: Callable[[], object],
            shortcut: str = "",
            tip: str = "",
            bar: bool = True,
        ) -> QAction:
            made = QAction(text, self)
            if shortcut:
                made.setShortcut(QKeySequence(shortcut))
            made.setToolTip(f"{tip or text} ({shortcut})" if shortcut else tip or text)
            made.setStatusTip(tip or text)
            made.triggered.connect(lambda _checked=False: slot())
            if bar:
                toolbar.addAction(made)
            menus[menu].addAction(made)
            self.addAction(made)
            return made

        self.previous_action = action("&Go", "◀ Previous Change", self.previous_change, "Shift+F7")
        self.next_action = action("&Go", "Next Change ▶", self.next_change, "F7")
        toolbar.addSeparator()
        self.swap_action = action(
            "&View", "Swap Sides", self.swap, "Ctrl+Shift+S", "Exchange the left and right sides"
        )
        self.only_changes_action = QAction("Only Changes", self)
        self.only_changes_action.setCheckable(True)
        self.only_changes_action.setToolTip("Hide unchanged messages and the common part")
        self.only_changes_action.toggled.connect(self.set_only_changes)
        toolbar.addAction(self.only_changes_action)
        menus["&View"].addAction(self.only_changes_action)
        toolbar.addSeparator()
        self.show_in_tree_action = action(
            "&Go",
            "Show in Transcript",
            self.show_in_tree,
            "Ctrl+T",
            "Show the message of the current cell in the main window's transcript (selected in its tree)",
        )
        self.export_action = action(
            "&File", "Export HTML…", self.export_dialog, "Ctrl+E", "Save the diff as one HTML file"
        )
        menus["&File"].addSeparator()
        self.close_action = action("&File", "&Close", self.close, "Ctrl+W", "Close this diff", bar=False)
        # Escape closes too, as a secondary shortcut of Close (one action, so no shortcut is ambiguous).
        self.close_action.setShortcuts([QKeySequence("Ctrl+W"), QKeySequence(Qt.Key.Key_Escape)])

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
        # Never over either session compared, even when the file dialog's "replace?" was answered yes.
        write_export(path, data, overwrite=overwrite, inputs=(self.diff.left.file, self.diff.right.file))
        self.exported.emit(path)

    def export_dialog(self) -> None:
        """Ask for a file name and export; QFileDialog asks before replacing, which counts as consent."""
        from core.errors import PrimeSessionsError

        folder = last_export_folder() or os.path.dirname(self.diff.left.file)
        start = os.path.join(folder, f"diff-{self.diff.left.entry_id}.html")
        path, _filter = QFileDialog.getSaveFileName(self, "Export the diff as HTML", start, "HTML (*.html)")
        if not path:
            return
        remember_export_folder(os.path.dirname(path))
        try:
            self.export_html(path, overwrite=os.path.exists(path))
        except PrimeSessionsError as err:
            self.statusBar().showMessage(str(err))
            return
        self.statusBar().showMessage(f"Saved {path}", 5000)

    def closeEvent(self, event: QCloseEvent) -> None:
        app_settings().setValue("diff_window/geometry", self.saveGeometry())
        super().closeEvent(event)

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
        self.setWindowTitle(diff_title(diff))
        self.summary.setText(summary_table(diff))
        self.summary.setToolTip(f"Left: {diff.left.file}\nRight: {diff.right.file}")
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

    def select_row(self, row: int) -> None:
        """Make top-level row ``row`` current and scroll it into the middle."""
        self._select(self.model.index(row, 0))

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
