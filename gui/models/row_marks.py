"""The session list's row marks: a fork's (or clone's) branch glyph and a damaged file's badge.

Drawn once per combination with QPainter (no icon theme is needed, the same in the bundle), in colours
that read on light and dark rows alike.
"""

from __future__ import annotations

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QColor, QGuiApplication, QIcon, QPainter, QPen, QPixmap

__all__ = ["row_mark"]

_SIZE = 16
_FORK = QColor("#5b8def")  # a blue that reads on white and on near-black rows
_DAMAGE = QColor("#d32f2f")
_icons: dict[tuple[bool, bool], QIcon] = {}


def row_mark(*, fork: bool, damaged: bool) -> QIcon | None:
    """The mark of a row: a fork glyph, a damage badge (a red disc with "!"), both, or None for neither."""
    if not (fork or damaged) or QGuiApplication.instance() is None:
        return None
    key = (fork, damaged)
    icon = _icons.get(key)
    if icon is None:
        icon = _icons[key] = QIcon(_draw(fork, damaged))
    return icon


def _draw(fork: bool, damaged: bool) -> QPixmap:
    pixmap = QPixmap(_SIZE, _SIZE)
    pixmap.fill(Qt.GlobalColor.transparent)
    painter = QPainter(pixmap)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    if fork:
        pen = QPen(_FORK, 1.6)
        pen.setCapStyle(Qt.PenCapStyle.RoundCap)
        painter.setPen(pen)
        painter.drawLine(QPointF(4.5, 3.5), QPointF(4.5, 13.0))  # the trunk
        painter.drawLine(QPointF(4.5, 9.5), QPointF(11.0, 4.0))  # the branch
        painter.setBrush(_FORK)
        for x, y in ((4.5, 3.0), (11.0, 3.5), (4.5, 13.0)):
            painter.drawEllipse(QPointF(x, y), 1.8, 1.8)
    if damaged:
        # Alone it fills the square; beside a fork it is a smaller badge at the bottom right.
        box = QRectF(1, 1, 14, 14) if not fork else QRectF(7, 7, 9, 9)
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(_DAMAGE)
        painter.drawEllipse(box)
        painter.setPen(QPen(QColor("white"), 1.8 if not fork else 1.3))
        centre = box.center().x()
        painter.drawLine(
            QPointF(centre, box.top() + box.height() * 0.22), QPointF(centre, box.top() + box.height() * 0.58)
        )
        painter.drawPoint(QPointF(centre, box.top() + box.height() * 0.78))
    painter.end()
    return pixmap
