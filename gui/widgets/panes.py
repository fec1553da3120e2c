"""The three columns of the main window, each a row of controls above a view: list, tree, transcript.

They are plain widgets: the models they show and the controls above them, laid out. What the controls do
is wired by the window to the controllers.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QAbstractItemModel, QEvent, QModelIndex, QPersistentModelIndex, QRect, Qt, Signal
from PySide6.QtGui import (
    QFocusEvent,
    QFont,
    QFontMetrics,
    QKeyEvent,
    QMouseEvent,
    QPainter,
    QPalette,
    QRegion,
    QResizeEvent,
)
from PySide6.QtWidgets import (
    QAbstractItemView,
    QAbstractScrollArea,
    QApplication,
    QCheckBox,
    QComboBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QPushButton,
    QStyle,
    QStyledItemDelegate,
    QStyleOptionViewItem,
    QTableView,
    QTreeView,
    QVBoxLayout,
    QWidget,
)

from core.visible import FILTER_LABELS, FILTER_MODES
from gui.models.branch_tree_model import BranchTreeModel
from gui.models.roles import Role
from gui.models.session_filter_proxy import SessionFilterProxy
from gui.models.session_list_model import SessionColumn, SessionListModel
from gui.widgets.find_bar import FindBar
from gui.widgets.transcript_view import TranscriptView

__all__ = [
    "BranchTree",
    "BranchTreePane",
    "FilterModeBox",
    "SessionListPane",
    "SessionTable",
    "TranscriptPane",
]


def _column(controls: QHBoxLayout, body: QWidget, parent: QWidget) -> None:
    layout = QVBoxLayout(parent)
    layout.setContentsMargins(0, 0, 0, 0)
    layout.addLayout(controls)
    layout.addWidget(body, 1)


class _ElideMiddle(QStyledItemDelegate):
    """Cuts long text in the middle (a project path keeps its start and its last folder)."""

    def initStyleOption(
        self, option: QStyleOptionViewItem, index: QModelIndex | QPersistentModelIndex
    ) -> None:
        super().initStyleOption(option, index)
        option.textElideMode = Qt.TextElideMode.ElideMiddle


class _TitleWithDistinction(QStyledItemDelegate):
    """The title, and after it in a quieter colour what tells it from rows with the same title.

    Five rows titled "I need to add caching to the /api/produ…" could not be told apart: each now ends
    in its project's last folder or its short id (``Role.DISTINCT``), which the title gives way to when
    the column is narrow, so it is never elided away. A parent session's badge ("▸ 3 subagents") comes
    first; a click on it shows or folds away its children.
    """

    def _tag(
        self, option: QStyleOptionViewItem, index: QModelIndex | QPersistentModelIndex
    ) -> tuple[QStyleOptionViewItem, str, QRect, QFont] | None:
        """Where the tag goes: (the option with the title elided to make room, the tag, its rect, its font).

        The tag is a parent's badge ("▸ 3 subagents", ``Role.SUBAGENTS``) and what tells the row apart
        (``Role.DISTINCT``); None when the row has neither.
        """
        parts = [part for part in (index.data(Role.SUBAGENTS), index.data(Role.DISTINCT)) if part]
        if not parts:
            return None
        opt = QStyleOptionViewItem(option)
        self.initStyleOption(opt, index)
        widget = opt.widget
        style = widget.style() if widget is not None else QApplication.style()
        text_rect = style.subElementRect(QStyle.SubElement.SE_ItemViewItemText, opt, widget)
        metrics = opt.fontMetrics
        tag_font = QFont(opt.font)
        tag_font.setBold(False)  # a named session's title is bold; what tells it apart is not
        tag_metrics = QFontMetrics(tag_font)
        tag_text = "  " + "  ·  ".join(parts)
        tag_width = min(tag_metrics.horizontalAdvance(tag_text) + 2, text_rect.width() * 3 // 5)
        room = max(0, text_rect.width() - tag_width)
        opt.text = metrics.elidedText(opt.text, Qt.TextElideMode.ElideRight, room)
        left = text_rect.left() + min(metrics.horizontalAdvance(opt.text), text_rect.width() - tag_width)
        shown = tag_metrics.elidedText(tag_text, Qt.TextElideMode.ElideMiddle, tag_width)
        return opt, shown, QRect(left, text_rect.top(), tag_width, text_rect.height()), tag_font

    def paint(
        self, painter: QPainter, option: QStyleOptionViewItem, index: QModelIndex | QPersistentModelIndex
    ) -> None:
        placed = self._tag(option, index)
        if placed is None:
            super().paint(painter, option, index)
            return
        opt, shown, rect, tag_font = placed
        widget = opt.widget
        style = widget.style() if widget is not None else QApplication.style()
        style.drawControl(QStyle.ControlElement.CE_ItemViewItem, opt, painter, widget)
        selected = bool(opt.state & QStyle.StateFlag.State_Selected)
        colour = opt.palette.color(
            QPalette.ColorRole.HighlightedText if selected else QPalette.ColorRole.PlaceholderText
        )
        painter.save()
        painter.setPen(colour)
        painter.setFont(tag_font)
        painter.drawText(rect, int(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter), shown)
        painter.restore()

    def editorEvent(
        self,
        event: QEvent,
        model: QAbstractItemModel,
        option: QStyleOptionViewItem,
        index: QModelIndex | QPersistentModelIndex,
    ) -> bool:
        """A click on a parent's badge ("▸ 3 subagents") shows or folds away its children."""
        if (
            event.type() == QEvent.Type.MouseButtonRelease
            and isinstance(event, QMouseEvent)
            and event.button() == Qt.MouseButton.LeftButton
            and index.data(Role.SUBAGENTS)
        ):
            placed = self._tag(option, index)
            if placed is not None and placed[2].contains(event.position().toPoint()):
                return model.setData(index, not index.data(Role.EXPANDED), Role.EXPANDED)
        return super().editorEvent(event, model, option, index)


# The mixin below is a plain class at run time (PySide builds each view from one Qt class); mypy checks
# its methods as an item view's.
if TYPE_CHECKING:
    _ItemView = QAbstractItemView
else:
    _ItemView = object


class _MarksOnFocus(_ItemView):
    """An item view that repaints only what looks different when its window or the focus comes and goes.

    Qt repaints every visible cell of an item view when its window is activated or deactivated
    (``QAbstractItemView::viewportEvent``) and when the view gains or loses the focus (``QWidget``'s
    handlers update the widget, so every child under it, and ``QAbstractItemView``'s the viewport): 17-27
    ms for the session table, in the very turn another window (the Usage window) is shown or closed. What
    changes is how the selected rows are drawn (the style is told whether the window is active) and the
    current cell's focus mark: only those, and the frame, are repainted. Where the palette's active and
    inactive groups differ, ``QWidget`` still repaints the whole view on (de)activation itself.
    """

    def viewportEvent(self, event: QEvent) -> bool:
        if event.type() in (QEvent.Type.WindowActivate, QEvent.Type.WindowDeactivate):
            self._update_marks()
            return QAbstractScrollArea.viewportEvent(self, event)  # without QAbstractItemView's repaint
        return super().viewportEvent(event)

    def focusOutEvent(self, event: QFocusEvent) -> None:
        self._update_marks()

    def focusInEvent(self, event: QFocusEvent) -> None:
        current = self.currentIndex()
        if not current.isValid():
            super().focusInEvent(event)  # Qt makes the first row current (and repaints)
            return
        # The rest of what QAbstractItemView.focusInEvent does when there is a current index.
        editable = bool(current.flags() & Qt.ItemFlag.ItemIsEditable)
        self.setAttribute(Qt.WidgetAttribute.WA_InputMethodEnabled, editable)
        self._update_marks()

    def _update_marks(self) -> None:
        self.update(QRegion(self.rect()) - QRegion(self.viewport().geometry()))  # the frame only
        viewport = self.viewport()
        selection = self.selectionModel()
        if selection is not None and selection.hasSelection():
            viewport.update(self.visualRegionForSelection(selection.selection()))
        current = self.currentIndex()
        if current.isValid():
            viewport.update(self.visualRect(current))


class SessionTable(_MarksOnFocus, QTableView):
    """The session table: the title takes the free width; when the pane is narrow the figures give way.

    Columns that do not fit are hidden, the message count first, then tokens, then cost, so the title,
    the project and the date never need a horizontal scroll bar. A sort by a column that is hidden falls
    back to Modified, newest first (the header's arrow shows it), and comes back with the column.
    """

    TITLE_MIN = 180  # px: below this a title says little
    OPTIONAL = (SessionColumn.MESSAGES, SessionColumn.TOKENS, SessionColumn.COST)  # given up in this order

    def __init__(self) -> None:
        super().__init__()
        self._widths: dict[int, int] = {}
        self._hidden_sort: tuple[int, Qt.SortOrder] | None = None  # the user's, while its column is hidden
        self._sorting_for_fit = False
        self.horizontalHeader().sortIndicatorChanged.connect(self._sort_chosen)

    def _sort_chosen(self, _section: int, _order: Qt.SortOrder) -> None:
        if not self._sorting_for_fit:
            self._hidden_sort = None  # the user chose another order meanwhile: theirs from now on

    def _follow_hidden_sort(self) -> None:
        """Sort by Modified while the sort column is hidden; by that column again once it is shown."""
        header = self.horizontalHeader()
        section = header.sortIndicatorSection()
        wanted: tuple[int, Qt.SortOrder] | None = None
        if 0 <= section < len(SessionColumn) and self.isColumnHidden(section):
            self._hidden_sort = (section, header.sortIndicatorOrder())
            wanted = (SessionColumn.MODIFIED, Qt.SortOrder.DescendingOrder)
        elif self._hidden_sort is not None and not self.isColumnHidden(self._hidden_sort[0]):
            wanted, self._hidden_sort = self._hidden_sort, None
        if wanted is not None:
            self._sorting_for_fit = True
            try:
                self.sortByColumn(*wanted)
            finally:
                self._sorting_for_fit = False

    def set_column_width(self, column: int, width: int) -> None:
        """The width ``column`` has whenever it is shown."""
        self._widths[column] = width
        self.horizontalHeader().resizeSection(column, width)

    def fit_columns(self) -> None:
        """Show the optional columns that fit beside the title's share, hide the others.

        The title keeps at least :attr:`TITLE_MIN` px; the project column narrows to a fifth of the width
        before anything is hidden (it elides in the middle).
        """
        width = self.viewport().width()
        title = self.TITLE_MIN
        project = self._widths.get(SessionColumn.PROJECT, 0)
        shown_project = max(90, min(project, width // 5)) if project else 0
        if shown_project and self.horizontalHeader().sectionSize(SessionColumn.PROJECT) != shown_project:
            self.horizontalHeader().resizeSection(SessionColumn.PROJECT, shown_project)
        fixed = shown_project + sum(
            w for c, w in self._widths.items() if c not in self.OPTIONAL and c != SessionColumn.PROJECT
        )
        optional = sum(self._widths.get(c, 0) for c in self.OPTIONAL)
        dropped = set()
        for column in self.OPTIONAL:
            if title + fixed + optional <= width:
                break
            dropped.add(column)
            optional -= self._widths.get(column, 0)
        for column in self.OPTIONAL:
            if self.isColumnHidden(column) != (column in dropped):
                self.setColumnHidden(column, column in dropped)
        self._follow_hidden_sort()

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self.fit_columns()

    def keyPressEvent(self, event: QKeyEvent) -> None:
        """Right shows a parent session's children, Left folds them away (or, on a child, goes to its parent).

        As in a tree; on rows without children the keys do what a table does.
        """
        key = event.key()
        if key in (Qt.Key.Key_Right, Qt.Key.Key_Left) and not event.modifiers() and self._fold(key):
            event.accept()
            return
        super().keyPressEvent(event)

    def _fold(self, key: int) -> bool:
        """Answer Right or Left on the current row; False when the row has nothing to fold or go to."""
        index = self.currentIndex()
        model = self.model()
        if not index.isValid() or model is None:
            return False
        title = model.index(index.row(), SessionColumn.TITLE)
        expanded = bool(model.data(title, Role.EXPANDED))
        if model.data(title, Role.SUBAGENTS) and expanded != (key == Qt.Key.Key_Right):
            return model.setData(title, key == Qt.Key.Key_Right, Role.EXPANDED)
        if key == Qt.Key.Key_Left:
            summary = model.data(title, Role.ITEM)
            parent = getattr(summary, "subagentOf", None)
            for row in range(model.rowCount()):
                if (
                    parent is not None
                    and getattr(model.data(model.index(row, 0), Role.ITEM), "path", None) == parent
                ):
                    self.selectRow(row)
                    return True
        return False


class SessionListPane(QWidget):
    """The filter box and its toggles above the session table (sorted by the model, filtered by the proxy)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.filter_edit = QLineEdit(placeholderText="Filter sessions (title, project, id, model, tag:NAME)")
        self.filter_edit.setClearButtonEnabled(True)
        self.filter_edit.setToolTip(
            "Show only the sessions whose title, project, id or model has every word, and that have every"
            ' tag:NAME (tag:"two words" for a tag with spaces) (Ctrl+F);\n'
            "touched: src/auth/ shows those whose tools touched that file or folder"
        )
        self.named_only = QCheckBox("Named only")
        self.named_only.setToolTip("Show only the sessions that have a name")
        self.thread_forks = QCheckBox("Thread forks")
        self.thread_forks.setToolTip("Show forks and clones right under the session they came from")
        self.list_model = SessionListModel(parent=self)
        self.proxy = SessionFilterProxy(self)
        self.proxy.setSourceModel(self.list_model)
        self.table = table = SessionTable()
        table.setModel(self.proxy)
        table.setSortingEnabled(True)
        table.sortByColumn(SessionColumn.MODIFIED, Qt.SortOrder.DescendingOrder)
        table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        # Several rows: trash them at once, or compare two. Typing must not start a rename (QTableView
        # edits on any key by default): double-click or F2 renames.
        table.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
        table.setEditTriggers(QAbstractItemView.EditTrigger.DoubleClicked)
        table.verticalHeader().hide()
        table.setWordWrap(False)
        header = table.horizontalHeader()
        header.setStretchLastSection(False)
        header.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        header.setSectionResizeMode(SessionColumn.TITLE, QHeaderView.ResizeMode.Stretch)  # the free width
        table.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        table.setItemDelegateForColumn(SessionColumn.PROJECT, _ElideMiddle(table))
        table.setItemDelegateForColumn(SessionColumn.TITLE, _TitleWithDistinction(table))
        # Fixed widths from the font, not ResizeToContents: that mode measures up to 1,000 rows of every such
        # column after each change of a row, ~24,000 Python data() calls and a 250 ms stall per live update.
        metrics = table.fontMetrics()
        padding = 2 * metrics.horizontalAdvance("M")
        for column, sample in (
            (SessionColumn.PROJECT, "/home/dev/acme-webapp"),
            (SessionColumn.MODIFIED, "2026-11-30 23:59"),
            (SessionColumn.MESSAGES, "Messages"),
            (SessionColumn.TOKENS, "99,999,999"),
            (SessionColumn.COST, "$9,999.99"),
        ):
            table.set_column_width(column, metrics.horizontalAdvance(sample) + padding)
        controls = QHBoxLayout()
        controls.addWidget(self.filter_edit, 1)
        controls.addWidget(self.named_only)
        controls.addWidget(self.thread_forks)
        _column(controls, table, self)
        self.filter_edit.textChanged.connect(self.proxy.set_filter_text)
        self.named_only.toggled.connect(self.proxy.set_named_only)
        self.proxy.filters_cleared.connect(self._filters_cleared)
        self.thread_forks.toggled.connect(self.list_model.set_threaded)

    def _filters_cleared(self) -> None:
        """The proxy shows every row again: the filter box and the toggle say so."""
        self.filter_edit.clear()
        self.named_only.setChecked(False)


class _LabelEditor(QStyledItemDelegate):
    """The branch tree's in-place label editor: it says what it is for, so an empty one is not a blank row."""

    def createEditor(
        self, parent: QWidget, option: QStyleOptionViewItem, index: QModelIndex | QPersistentModelIndex
    ) -> QWidget:
        editor = super().createEditor(parent, option, index)
        if isinstance(editor, QLineEdit):
            editor.setPlaceholderText("Label for this entry (Enter sets it, Escape cancels, empty clears it)")
        return editor


class BranchTree(_MarksOnFocus, QTreeView):
    """The branch tree's view (a plain tree view that repaints little when the focus moves)."""


class FilterModeBox(QComboBox):
    """The branch tree's filter modes under the names people read ("User messages"), keyed by mode."""

    mode_changed = Signal(str)  # the mode key ("user"), not its label

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        for mode in FILTER_MODES:
            self.addItem(FILTER_LABELS[mode], mode)
        self.currentIndexChanged.connect(lambda index: self.mode_changed.emit(self.itemData(index)))

    @property
    def mode(self) -> str:
        """The mode chosen (one of ``core.visible.FILTER_MODES``)."""
        return str(self.currentData())

    def set_mode(self, mode: str) -> None:
        """Choose ``mode`` (a key of ``FILTER_MODES``)."""
        self.setCurrentIndex(self.findData(mode))


class BranchTreePane(QWidget):
    """The filter mode and "Jump to leaf" above the branch tree."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.tree_model = BranchTreeModel(parent=self)
        self.tree = tree = BranchTree()
        tree.setModel(self.tree_model)
        tree.setUniformRowHeights(True)
        tree.setHeaderHidden(True)
        # Ctrl-click selects two entries to compare; the message pane follows the current index.
        tree.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
        # The label is edited in place from F2 or a double-click only (and Edit > Label Entry): a second
        # click on the selected row started an editor that blanked the row and swallowed the next shortcuts.
        tree.setEditTriggers(
            QAbstractItemView.EditTrigger.EditKeyPressed | QAbstractItemView.EditTrigger.DoubleClicked
        )
        tree.setItemDelegate(_LabelEditor(tree))
        self.filter_mode = FilterModeBox()
        self.filter_mode.setToolTip("Which entries the tree shows; the current leaf is always shown")
        self.jump_button = QPushButton("Jump to leaf")
        self.jump_button.setToolTip("Select the session's current leaf (Ctrl+L)")
        controls = QHBoxLayout()
        controls.addWidget(QLabel("Show:"))
        controls.addWidget(self.filter_mode, 1)
        controls.addWidget(self.jump_button)
        _column(controls, tree, self)
        # The session's usage: its current path against its abandoned branches (the usage controller).
        self.usage_label = QLabel()
        self.usage_label.setWordWrap(True)
        self.usage_label.hide()
        layout = self.layout()
        assert isinstance(layout, QVBoxLayout)
        layout.insertWidget(1, self.usage_label)


class TranscriptPane(QWidget):
    """The transcript, with the *What the model saw* toggle above it and the find bar between."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.transcript = TranscriptView()
        self.find_bar = FindBar()
        self.context_toggle = QCheckBox("What the model saw")
        self.context_toggle.setToolTip(
            "Show the messages the model saw at the selected entry (compactions applied) as a conversation"
        )
        controls = QHBoxLayout()
        controls.addWidget(self.context_toggle)
        controls.addStretch(1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(controls)
        layout.addWidget(self.find_bar)
        layout.addWidget(self.transcript, 1)
