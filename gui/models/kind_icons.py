"""The branch tree's role icons: a small filled circle per kind of entry, in the kind's colour."""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QGuiApplication, QIcon, QPainter, QPixmap

if TYPE_CHECKING:
    from core.session import Entry

__all__ = ["entry_kind", "kind_icon"]

_KIND_COLOURS = {
    "user": "#3b82f6",
    "assistant": "#22c55e",
    "toolResult": "#f59e0b",
    "bashExecution": "#64748b",
    "compaction": "#a855f7",
    "compactionSummary": "#a855f7",
    "branch_summary": "#a855f7",
    "branchSummary": "#a855f7",
    "custom": "#ec4899",
    "custom_message": "#ec4899",
    "label": "#eab308",
}
_OTHER_COLOUR = "#9ca3af"
_icons: dict[str, QIcon] = {}


def kind_icon(kind: str) -> QIcon | None:
    """A small filled circle in the kind's colour (made on first use: it needs a QGuiApplication)."""
    if QGuiApplication.instance() is None:
        return None
    colour = _KIND_COLOURS.get(kind, _OTHER_COLOUR)
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
    """A message's role, else the entry's kind: what the icon and ``Role.KIND`` show."""
    return entry.role if entry.kind == "message" and entry.role else entry.kind
