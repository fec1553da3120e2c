"""Full-text search over the catalogue: a query box and the list of hits.

The panel only shows things: the window runs the search in a worker and hands the hits to
:meth:`SearchPanel.set_hits`. Pressing Enter emits :attr:`SearchPanel.search_requested`; activating a
hit emits :attr:`SearchPanel.hit_activated` with the core ``Hit``.
"""

from __future__ import annotations

import html
from collections.abc import Callable
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QLabel, QLineEdit, QListWidget, QListWidgetItem, QVBoxLayout, QWidget

if TYPE_CHECKING:
    from core.catalogue import Hit

__all__ = ["HIT_ROLE", "HTML_ROLE", "SearchPanel", "highlight"]

HIT_ROLE = Qt.ItemDataRole.UserRole + 1  # the core Hit of a row
HTML_ROLE = Qt.ItemDataRole.UserRole + 2  # the rich text shown for a row
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


class SearchPanel(QWidget):
    """A search box above the hits of the last search."""

    search_requested = Signal(str)  # the query, on Enter
    hit_activated = Signal(object)  # the core Hit chosen

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.edit = QLineEdit(placeholderText='Search all sessions (words, "phrases", prefix*) — Enter')
        self.edit.setClearButtonEnabled(True)
        self.results = QListWidget()
        self.results.setWordWrap(True)
        self.results.setAlternatingRowColors(True)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.edit)
        layout.addWidget(self.results, 1)
        self.edit.returnPressed.connect(self._on_return)
        self.results.itemActivated.connect(self._on_item)

    def hit_at(self, row: int) -> Hit | None:
        """The hit shown in ``row``."""
        item = self.results.item(row)
        return item.data(HIT_ROLE) if item is not None else None

    def clear_hits(self) -> None:
        self.results.clear()

    def set_hits(self, hits: list[Hit], title_for: Callable[[Hit], str]) -> None:
        """Show ``hits``; ``title_for`` names the session of a hit."""
        self.results.clear()
        for hit in hits:
            title = html.escape(title_for(hit))
            mark = f' <i style="color:#b36b00">— {ABANDONED}</i>' if not hit.onCurrentBranch else ""
            rich = f"<b>{title}</b>{mark}<br>{highlight(hit.snippet, hit.spans)}"
            item = QListWidgetItem()
            item.setData(HIT_ROLE, hit)
            item.setData(HTML_ROLE, rich)
            item.setToolTip(hit.path)
            label = QLabel(rich)
            label.setTextFormat(Qt.TextFormat.RichText)
            label.setWordWrap(True)
            label.setAttribute(Qt.WidgetAttribute.WA_TransparentForMouseEvents)
            label.setContentsMargins(4, 2, 4, 2)
            self.results.addItem(item)
            item.setSizeHint(label.sizeHint())
            self.results.setItemWidget(item, label)

    def activate(self, row: int) -> None:
        """Choose the hit in ``row`` (as a double-click would)."""
        item = self.results.item(row)
        if item is not None:
            self.results.setCurrentItem(item)
            self._on_item(item)

    def _on_return(self) -> None:
        self.search_requested.emit(self.edit.text())

    def _on_item(self, item: QListWidgetItem) -> None:
        hit = item.data(HIT_ROLE)
        if hit is not None:
            self.hit_activated.emit(hit)
