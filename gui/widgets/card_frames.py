"""The cards in the transcript's document: one ``QTextFrame`` per card, in slot order, and where they lie.

A frame per card gives each card exact bounds in the document (positions, and a rectangle once laid out)
that survive cards being added and removed around it, a border that marks the selected card without
laying anything else out again, and a clean removal (the frame and its two markers). The transcript view
decides which cards are in the document; this object puts them in, takes them out and answers where
they are.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from PySide6.QtGui import QBrush, QColor, QTextCursor, QTextDocument, QTextFrame, QTextFrameFormat

if TYPE_CHECKING:
    from gui.widgets.transcript_stretch import Rendered

__all__ = ["CardFrames", "Span"]

_BORDER = 2  # px: the selected card's border (drawn in the highlight colour; transparent on the others)


@dataclass
class Span:
    """A card in the document: its slot and the frame that holds it."""

    slot: int
    frame: QTextFrame
    card: Rendered  # what was inserted (to lay the same cards out again in a fresh document)

    @property
    def switcher(self) -> bool:
        """Whether the card's first line is a branch switcher."""
        return self.card.switcher

    @property
    def card_id(self) -> str:
        """The id of the card's entry (its fold keys start with it)."""
        return self.card.card_id


class CardFrames:
    """The frames of the cards in one document, in slot order.

    Attributes:
        spans: the cards, in document (and slot) order.
        marked: the slot whose card is drawn with a border (the tree's selected entry), if any.
        highlight: the border's colour.
    """

    def __init__(self, document: QTextDocument, highlight: QColor) -> None:
        self._document = document
        self.spans: list[Span] = []
        self.marked: int | None = None
        self.highlight = highlight
        self.inserted = 0  # cards put into the document since it was last cleared

    # ------------------------------------------------------------------ changing
    def insert(self, cards: list[Rendered], position: int, index: int) -> None:
        """Put each card in a frame of its own at document ``position``, before the span at ``index``."""
        cursor = QTextCursor(self._document)
        cursor.beginEditBlock()
        made: list[Span] = []
        for card in cards:
            cursor.setPosition(position)
            frame = cursor.insertFrame(self.frame_format(card.slot))
            cursor.insertHtml(card.html)
            made.append(Span(card.slot, frame, card))
            position = frame.lastPosition() + 1
        cursor.endEditBlock()
        self.spans[index:index] = made
        self.inserted += len(made)

    def insert_at_start(self, cards: list[Rendered]) -> None:
        """Put cards above every card in the document."""
        self.insert(cards, 0, 0)

    def insert_at_end(self, cards: list[Rendered]) -> None:
        """Put cards below every card in the document."""
        self.insert(cards, self._document.rootFrame().lastPosition(), len(self.spans))

    def remove(self, start: int, stop: int) -> None:
        """Take the cards of spans ``start`` to ``stop`` (excluded) out of the document."""
        if start >= stop:
            return
        cursor = QTextCursor(self._document)
        cursor.setPosition(self.spans[start].frame.firstPosition() - 1)
        cursor.setPosition(self.spans[stop - 1].frame.lastPosition() + 1, QTextCursor.MoveMode.KeepAnchor)
        cursor.removeSelectedText()
        del self.spans[start:stop]

    def replace(self, slot: int, cards: list[Rendered]) -> bool:
        """Render the card of ``slot`` again in place with ``cards``; False when it is not in the document."""
        for i, span in enumerate(self.spans):
            if span.slot == slot:
                position = span.frame.firstPosition() - 1
                self.remove(i, i + 1)
                self.insert(cards, position, i)
                return True
        return False

    def forget(self) -> None:
        """The document was cleared: no cards."""
        self.spans = []
        self.inserted = 0

    def mark(self, slot: int | None) -> None:
        """Draw the border on the card showing ``slot`` (its own, or its call's), taking it off the other."""
        old, self.marked = self.marked, slot
        for marked in (old, slot):
            span = self.at_or_before(marked)
            if span is not None:
                span.frame.setFrameFormat(self.frame_format(span.slot))

    def frame_format(self, slot: int) -> QTextFrameFormat:
        """A card's frame: a border, in the highlight colour when it shows the marked slot."""
        fmt = QTextFrameFormat()
        fmt.setBorder(_BORDER)
        fmt.setBorderStyle(QTextFrameFormat.BorderStyle.BorderStyle_Solid)
        fmt.setPadding(2)
        marked = self.marked is not None and self.owner(self.marked) == slot
        fmt.setBorderBrush(QBrush(self.highlight if marked else QColor(0, 0, 0, 0)))
        return fmt

    # ------------------------------------------------------------------ where cards are
    def at_or_before(self, slot: int | None) -> Span | None:
        """The span of ``slot``, or of the card it is shown in (a result under its call), if rendered."""
        if slot is None:
            return None
        found = None
        for span in self.spans:
            if span.slot > slot:
                break
            found = span
        return found

    def owner(self, slot: int) -> int:
        """The slot of the card that shows ``slot`` (itself, or the call above a result shown under it)."""
        span = self.at_or_before(slot)
        return span.slot if span is not None else slot

    def slot_at(self, position: int) -> int | None:
        """The slot of the card holding document ``position``, None outside every card."""
        for span in self.spans:
            if span.frame.firstPosition() <= position <= span.frame.lastPosition():
                return span.slot
        return None

    def switcher_block(self, slot: int) -> int:
        """The position of the branch switcher line of the card of ``slot``, -1 when it has none."""
        for span in self.spans:
            if span.slot == slot:
                return span.frame.firstPosition() if span.switcher else -1
        return -1

    def slot_of_fold(self, key: str, position: int) -> int | None:
        """The card a fold's toggle link is in: the one clicked, else the one whose entry the key names."""
        clicked = self.slot_at(position) if position >= 0 else None
        owners = [span.slot for span in self.spans if span.card_id and key.startswith(span.card_id + "/")]
        if clicked is not None and (clicked in owners or not owners):
            return clicked
        return owners[0] if owners else clicked

    def top(self, span: Span) -> float:
        """Where the card starts, in document coordinates (laid out on demand)."""
        return self._document.documentLayout().frameBoundingRect(span.frame).top()

    def bottom(self, span: Span) -> float:
        """Where the card ends, in document coordinates."""
        return self._document.documentLayout().frameBoundingRect(span.frame).bottom()

    def height(self) -> float:
        """The document's height."""
        return self._document.documentLayout().documentSize().height()

    def slot_at_y(self, y: float) -> int | None:
        """The slot of the last card starting at or above ``y`` (the first card when all start below it)."""
        spans = self.spans
        if not spans:
            return None
        low, high = 0, len(spans) - 1
        while low < high:
            middle = (low + high + 1) // 2
            if self.top(spans[middle]) <= y:
                low = middle
            else:
                high = middle - 1
        return spans[low].slot

    def between(self, top: float, bottom: float) -> list[int]:
        """The slots of the cards that show, wholly or in part, between ``top`` and ``bottom``."""
        return [span.slot for span in self.spans if self.bottom(span) > top and self.top(span) < bottom]
