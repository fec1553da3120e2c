"""The session list's row marks: a fork's branch glyph, a damaged file's badge, a pin, an archive box.

The fork glyph marks a fork or a clone; the pin and the archive box are the user's notes (pinned to the
top; archived, listed while View > Show Archived is on).

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
_PIN = QColor("#e0762b")  # an orange that reads on light and dark rows
_ARCHIVE = QColor("#8a8a8a")
_icons: dict[tuple[bool, bool, bool, bool], QIcon] = {}


def row_mark(*, fork: bool, damaged: bool, pinned: bool = False, archived: bool = False) -> QIcon | None:
    """The mark of a row: a fork glyph, a damage badge (a red disc with "!"), a pin, an archive box.

    One square, as the list's icon size is: the file's marks (fork, damage) as before, or the notes' (pin,
    archive box); with both, the notes' mark smaller at the top left and the file's at the bottom right.
    None when the row has none of them.
    """
    if not (fork or damaged or pinned or archived) or QGuiApplication.instance() is None:
        return None
    key = (fork, damaged, pinned, archived)
    icon = _icons.get(key)
    if icon is None:
        icon = _icons[key] = QIcon(_draw_all(fork, damaged, pinned, archived))
    return icon


def _draw_all(fork: bool, damaged: bool, pinned: bool, archived: bool) -> QPixmap:
    note, file = _draw_note(pinned, archived), _draw(fork, damaged)
    if note is None or file is None:
        only = note if note is not None else file
        assert only is not None  # row_mark asked for at least one mark
        return only
    pixmap = QPixmap(_SIZE, _SIZE)
    pixmap.fill(Qt.GlobalColor.transparent)
    painter = QPainter(pixmap)
    painter.setRenderHint(QPainter.RenderHint.SmoothPixmapTransform)
    whole = QRectF(0, 0, _SIZE, _SIZE)
    painter.drawPixmap(QRectF(0, 0, 9, 9), note, whole)
    painter.drawPixmap(QRectF(6, 6, 10, 10), file, whole)
    painter.end()
    return pixmap


def _draw_note(pinned: bool, archived: bool) -> QPixmap | None:
    if not (pinned or archived):
        return None
    pixmap = QPixmap(_SIZE, _SIZE)
    pixmap.fill(Qt.GlobalColor.transparent)
    painter = QPainter(pixmap)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    if archived:
        # A box with a lid and a slot: smaller at the bottom left beside a pin.
        box = QRectF(1.5, 3.5, 13, 11) if not pinned else QRectF(0.5, 8.5, 8, 7)
        painter.setPen(QPen(_ARCHIVE, 1.3))
        painter.setBrush(Qt.BrushStyle.NoBrush)
        lid = box.height() * 0.3
        painter.drawRect(QRectF(box.left(), box.top(), box.width(), lid))
        painter.drawRect(QRectF(box.left() + 1, box.top() + lid, box.width() - 2, box.height() - lid))
        middle = box.center().x()
        slot = box.top() + lid + (box.height() - lid) * 0.35
        painter.drawLine(
            QPointF(middle - box.width() * 0.15, slot), QPointF(middle + box.width() * 0.15, slot)
        )
    if pinned:
        # A push pin, leaning: the head a disc, the needle a line to the bottom left.
        pen = QPen(_PIN, 1.8)
        pen.setCapStyle(Qt.PenCapStyle.RoundCap)
        painter.setPen(pen)
        painter.drawLine(QPointF(7.5, 8.5), QPointF(3.0, 13.0))  # the needle
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(_PIN)
        painter.drawEllipse(QPointF(10.0, 6.0), 4.2, 4.2)  # the head
        painter.drawRect(QRectF(6.0, 7.0, 4.0, 3.0).translated(-0.5, 0))
    painter.end()
    return pixmap


def _draw(fork: bool, damaged: bool) -> QPixmap | None:
    if not (fork or damaged):
        return None
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
