"""Full-text search over the catalogue: a query box and the list of hits.

The panel only shows things: the catalogue controller runs the search in a worker and hands the hits to
:meth:`SearchPanel.set_hits` (or a sentence to :meth:`SearchPanel.show_message`). Pressing Enter emits
:attr:`SearchPanel.search_requested`; a click, or Enter on a hit, emits :attr:`SearchPanel.hit_activated`
with the core ``Hit``.

The keyboard moves as in a search box anywhere: Down goes from the box into the hits, Up from the first
hit back to the box; Enter on a hit (or in the box, when the hits shown are its query's) opens the
highlighted one and emits :attr:`SearchPanel.done_with_keyboard`, so the window can move the focus to
where the hit is shown.
"""

from __future__ import annotations

import html
from collections.abc import Callable
from typing import TYPE_CHECKING

from PySide6.QtCore import QEvent, QModelIndex, QObject, QPersistentModelIndex, QRectF, QSize, Qt, Signal
from PySide6.QtGui import (
    QColor,
    QFont,
    QFontMetrics,
    QKeyEvent,
    QPainter,
    QPalette,
    QResizeEvent,
    QTextDocument,
    QTextOption,
)
from PySide6.QtWidgets import (
    QApplication,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QStyle,
    QStyledItemDelegate,
    QStyleOptionViewItem,
    QVBoxLayout,
    QWidget,
)

if TYPE_CHECKING:
    from core.catalogue import Hit

__all__ = [
    "HIT_ROLE",
    "HTML_ROLE",
    "TITLE_ROLE",
    "HitDelegate",
    "SearchPanel",
    "highlight",
    "hit_html",
    "hit_meta",
]

HIT_ROLE = Qt.ItemDataRole.UserRole + 1  # the core Hit of a row
HTML_ROLE = Qt.ItemDataRole.UserRole + 2  # the rich text shown for a row
TITLE_ROLE = Qt.ItemDataRole.UserRole + 3  # the session title of a hit row, elided to the width when drawn
ABANDONED = "abandoned branch"


def highlight(snippet: str, spans: list[tuple[int, int]]) -> str:
    """HTML of a marked snippet: the text escaped, each span wrapped in ``<b>``.

    ``snippet`` carries one ``«``/``»`` pair per span (``spans`` index the text without the marks).
    """
    plain, pos = [], 0
    for i, (start, end) in enumerate(spans):
        open_at, close_at = start + 2 * i, end + 2 * i + 1  # where the marks sit in the marked text
        plain.append(snippet[pos:open_at])
        plain.append(snippet[open_at + 1 : close_at])
        pos = close_at + 1
    plain.append(snippet[pos:])
    text = "".join(plain)
    out, last = [], 0
    for start, end in spans:
        out += [html.escape(text[last:start]), "<b>", html.escape(text[start:end]), "</b>"]
        last = end
    out.append(html.escape(text[last:]))
    return "".join(out)


class HitDelegate(QStyledItemDelegate):
    """Two lines a hit: the session's title with the hit's date and role, then the snippet, matches bold.

    Drawn as rich text (``HTML_ROLE``), one laid-out document per row kept until the rows change: a
    hundred hits fit in the space two QLabel rows used to take.
    """

    LINES = 2

    def __init__(self, view: QListWidget) -> None:
        super().__init__(view)
        self._docs: dict[tuple[int, int, int], QTextDocument] = {}

    def clear(self) -> None:
        """Forget laid-out rows (new hits, a new width or a new palette)."""
        self._docs.clear()

    def _doc(
        self, index: QModelIndex | QPersistentModelIndex, width: int, palette: QPalette, font: QFont
    ) -> QTextDocument:
        # The text colour is part of the key: a row laid out while selected (white text) and kept for when
        # it is not any more drew white on white, a blank row, after another hit was clicked.
        key = (index.row(), width, palette.color(QPalette.ColorRole.Text).rgba())
        doc = self._docs.get(key)
        if doc is None:
            doc = QTextDocument()
            doc.setDocumentMargin(3)
            doc.setDefaultFont(font)
            text = palette.color(QPalette.ColorRole.Text).name()
            doc.setDefaultStyleSheet(f"body {{ color: {text}; }} .meta {{ color: {_muted(palette)}; }}")
            hit = index.data(HIT_ROLE)
            if hit is None:
                doc.setHtml(f"<body>{index.data(HTML_ROLE) or ''}</body>")
            else:
                # A hit is exactly two lines: the title gives way to the date and role (elided, never
                # wrapped onto the snippet's line), and the snippet is cut at the right edge.
                option = QTextOption()
                option.setWrapMode(QTextOption.WrapMode.NoWrap)
                doc.setDefaultTextOption(option)
                bold = QFont(font)
                bold.setBold(True)
                meta = QFontMetrics(font).horizontalAdvance(hit_meta(hit)) + 24
                title = QFontMetrics(bold).elidedText(
                    str(index.data(TITLE_ROLE) or ""), Qt.TextElideMode.ElideRight, max(60, width - meta)
                )
                doc.setHtml(f"<body>{hit_html(title, hit)}</body>")
            doc.setTextWidth(width)
            self._docs[key] = doc
        return doc

    def sizeHint(self, option: QStyleOptionViewItem, index: QModelIndex | QPersistentModelIndex) -> QSize:
        if index.data(HIT_ROLE) is None:  # a message row (no hits, a query error): as tall as it needs
            width = max(80, option.rect.width() or 300)
            return QSize(width, int(self._doc(index, width, option.palette, option.font).size().height()))
        height = option.fontMetrics.lineSpacing() * self.LINES + 8
        return QSize(option.rect.width(), height)

    def paint(
        self, painter: QPainter, option: QStyleOptionViewItem, index: QModelIndex | QPersistentModelIndex
    ) -> None:
        self.initStyleOption(option, index)
        style = option.widget.style() if option.widget is not None else QApplication.style()
        option_text, option.text = option.text, ""
        style.drawControl(QStyle.ControlElement.CE_ItemViewItem, option, painter, option.widget)
        option.text = option_text
        palette = QPalette(option.palette)
        if option.state & QStyle.StateFlag.State_Selected:
            palette.setColor(QPalette.ColorRole.Text, palette.color(QPalette.ColorRole.HighlightedText))
        doc = self._doc(index, option.rect.width(), palette, option.font)
        painter.save()
        painter.translate(option.rect.topLeft())
        painter.setClipRect(QRectF(0, 0, option.rect.width(), option.rect.height()))
        doc.drawContents(painter)
        painter.restore()


def _muted(palette: QPalette) -> str:
    """A secondary text colour between the text and the base colour."""
    text, base = palette.color(QPalette.ColorRole.Text), palette.color(QPalette.ColorRole.Base)
    return QColor(
        (text.red() * 2 + base.red()) // 3,
        (text.green() * 2 + base.green()) // 3,
        (text.blue() * 2 + base.blue()) // 3,
    ).name()


def _when_and_role(hit: Hit) -> str:
    """A hit's date and role, plain text (``2026-03-03 14:28 · user``)."""
    when = (hit.timestamp or "")[:16].replace("T", " ")
    return " · ".join(part for part in (when, hit.role) if part)


def hit_meta(hit: Hit) -> str:
    """What follows the title on a hit's first line, as plain text: date, role, and the branch it is on."""
    meta = _when_and_role(hit)
    return meta if hit.onCurrentBranch else f"{meta} — {ABANDONED}"


def hit_html(title: str, hit: Hit) -> str:
    """A hit's two lines as rich text: the title, date, role and branch, then the snippet (all escaped)."""
    meta = html.escape(_when_and_role(hit))
    mark = f' <i style="color:#b36b00">— {ABANDONED}</i>' if not hit.onCurrentBranch else ""
    snippet = highlight(hit.snippet, hit.spans)  # rich text folds its line breaks into spaces
    return f"<b>{html.escape(title)}</b> <span class='meta'>{meta}</span>{mark}<br>{snippet}"


class SearchPanel(QWidget):
    """A search box above the hits of the last search: one click (or Enter) opens a hit."""

    search_requested = Signal(str)  # the query, on Enter
    hit_activated = Signal(object)  # the core Hit chosen
    done_with_keyboard = Signal()  # a hit was opened with Enter: the focus may go where it is shown

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.edit = QLineEdit(placeholderText='Search all sessions: words, "phrases", prefix*, AND/OR/NOT')
        self.edit.setClearButtonEnabled(True)
        self.edit.setToolTip(
            "Full-text search over every session (tag:NAME keeps the sessions with a tag); Enter searches"
            " (Ctrl+Shift+F)"
        )
        self.results = QListWidget()
        self.results.setAlternatingRowColors(True)
        self.results.setUniformItemSizes(False)
        self.results.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.delegate = HitDelegate(self.results)
        self.results.setItemDelegate(self.delegate)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.edit)
        layout.addWidget(self.results, 1)
        self.edit.returnPressed.connect(self._on_return)
        self.results.itemActivated.connect(self._on_item)  # Enter (and a double click)
        self.results.itemClicked.connect(self._on_item)  # one click opens
        self._query_shown: str | None = None  # the query whose hits are listed
        self.edit.installEventFilter(self)
        self.results.installEventFilter(self)

    def hit_at(self, row: int) -> Hit | None:
        """The hit shown in ``row``."""
        item = self.results.item(row)
        hit: Hit | None = item.data(HIT_ROLE) if item is not None else None  # set_hits stores each row's Hit
        return hit

    def clear_hits(self) -> None:
        """Show nothing."""
        self._query_shown = None
        self.delegate.clear()
        self.results.clear()

    def show_message(self, sentence: str) -> None:
        """Show one sentence instead of hits (a query the engine cannot take, nothing found)."""
        self.clear_hits()
        item = QListWidgetItem()
        item.setData(HTML_ROLE, f"<i>{html.escape(sentence)}</i>")
        item.setFlags(Qt.ItemFlag.NoItemFlags)
        item.setToolTip(sentence)
        self.results.addItem(item)

    def set_hits(self, hits: list[Hit], title_for: Callable[[Hit], str], query: str | None = None) -> None:
        """Show ``hits`` (of ``query``); ``title_for`` names the session of a hit."""
        self.clear_hits()
        self._query_shown = query
        for hit in hits:
            item = QListWidgetItem()
            item.setData(HIT_ROLE, hit)
            title = title_for(hit)
            item.setData(TITLE_ROLE, title)
            item.setData(HTML_ROLE, hit_html(title, hit))
            item.setToolTip(hit.path)
            self.results.addItem(item)
        if hits:
            self.results.setCurrentRow(0)

    def activate(self, row: int) -> None:
        """Choose the hit in ``row`` (as a click would)."""
        item = self.results.item(row)
        if item is not None:
            self.results.setCurrentItem(item)
            self._on_item(item)

    def resizeEvent(self, event: QResizeEvent) -> None:
        self.delegate.clear()  # rows are laid out for a width
        super().resizeEvent(event)

    def changeEvent(self, event: QEvent) -> None:
        if event.type() in (QEvent.Type.PaletteChange, QEvent.Type.ApplicationPaletteChange):
            self.delegate.clear()  # the colours of the rows come from the palette
        super().changeEvent(event)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if (
            event.type() == QEvent.Type.KeyPress
            and isinstance(event, QKeyEvent)
            and not event.modifiers() & ~Qt.KeyboardModifier.KeypadModifier  # the keypad's Enter too
        ):
            key = event.key()
            if watched is self.edit and key == Qt.Key.Key_Down and self._first_hit() >= 0:
                if self.hit_at(self.results.currentRow()) is None:
                    self.results.setCurrentRow(self._first_hit())
                self.results.setFocus(Qt.FocusReason.OtherFocusReason)
                return True
            if (
                watched is self.results
                and key == Qt.Key.Key_Up
                and self.results.currentRow() <= self._first_hit()
            ):
                self.edit.setFocus(Qt.FocusReason.OtherFocusReason)
                return True
            if watched is self.results and key in (Qt.Key.Key_Return, Qt.Key.Key_Enter):
                self._open_current()
                return True
        return super().eventFilter(watched, event)

    def _first_hit(self) -> int:
        """The row of the first hit, or -1 (no hits: nothing, or a sentence)."""
        return 0 if self.hit_at(0) is not None else -1

    def _open_current(self) -> None:
        """Open the highlighted hit from the keyboard, and say the keyboard is done here."""
        item = self.results.currentItem()
        if item is not None and item.data(HIT_ROLE) is not None:
            self._on_item(item)
            self.done_with_keyboard.emit()

    def _on_return(self) -> None:
        if self._query_shown is not None and self._query_shown == self.edit.text() and self._first_hit() >= 0:
            self._open_current()  # the hits of this very query are listed: Enter again opens the highlighted
            return
        self.search_requested.emit(self.edit.text())

    def _on_item(self, item: QListWidgetItem) -> None:
        hit = item.data(HIT_ROLE)
        if hit is not None:
            self.hit_activated.emit(hit)
