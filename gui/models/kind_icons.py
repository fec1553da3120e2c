"""The branch tree's role icons: a small filled circle per kind of entry, in the kind's colour."""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QGuiApplication, QIcon, QPainter, QPixmap

from core.kinds import kind_of

if TYPE_CHECKING:
    from core.session import Entry

__all__ = ["entry_kind", "kind_icon"]

# By the colour key of the entry's kind (``Kind.icon_key``: its family, or its own key).
_KIND_COLOURS = {
    "user": "#3b82f6",
    "assistant": "#22c55e",
    "tool": "#f59e0b",
    "bash": "#64748b",
    "summary": "#a855f7",
    "custom": "#ec4899",
    "label": "#eab308",
}
_OTHER_COLOUR = "#9ca3af"
_icons: dict[str, QIcon] = {}


def kind_icon(entry: Entry) -> QIcon | None:
    """A small circle in the colour of the entry's kind (made on first use: it needs a QGuiApplication)."""
    if QGuiApplication.instance() is None:
        return None
    colour = _KIND_COLOURS.get(kind_of(entry).icon_key, _OTHER_COLOUR)
    icon = _icons.get(colour)
    if icon is None:
        pixmap = QPixmap(12, 12)
        pixmap.fill(Qt.GlobalColor.transparent)
        painter = QPainter(pixmap)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(QColor(colour))
        painter.drawEllipse(1, 1, 10, 10)
        painter.end()
        icon = _icons[colour] = QIcon(pixmap)
    return icon


def entry_kind(entry: Entry) -> str:
    """A message's role, else the entry's type as indexed: what ``Role.KIND`` shows."""
    return entry.role or entry.kind
