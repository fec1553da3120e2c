"""Find in the transcript: the matches of the cards in view highlighted, the current one stronger.

The counts per card come from core (:func:`core.render.reading.find_counts`, every card of the source,
counted in a worker); this object numbers the matches across the transcript (``n of N``), says which card
holds match ``n`` and which occurrence in it, and paints the matches of the cards the view holds with
``QTextEdit`` extra selections. A card's matches are found in its frame in the document; the branch
switcher line above a card is not card text and is skipped.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from itertools import accumulate
from typing import TYPE_CHECKING

from PySide6.QtGui import QColor, QTextCharFormat, QTextCursor
from PySide6.QtWidgets import QTextEdit

if TYPE_CHECKING:
    from gui.widgets.transcript_view import TranscriptView

__all__ = ["FindMarks"]

_ALL = QColor(255, 230, 120)  # every match: a soft yellow on light and dark cards alike (the text is dark)
_CURRENT = QColor(255, 150, 40)  # the current match


class FindMarks:
    """The matches of one query: numbered over the transcript, painted where the view holds cards.

    Attributes:
        needle: what is found (lower case; ``""`` when find is closed).
        current: the number of the current match (0-based), None before the first move.
        complete: every card has been counted (while counting, ``total`` grows).
    """

    def __init__(self, view: TranscriptView) -> None:
        self._view = view
        self.needle = ""
        self.current: int | None = None
        self.complete = True
        self._slots: list[int] = []  # the cards holding matches, in order
        self._counts: dict[int, int] = {}
        self._ends: list[int] = []  # running totals: card i's matches are numbered up to _ends[i] - 1

    @property
    def total(self) -> int:
        """How many matches there are (so far, while counting)."""
        return self._ends[-1] if self._ends else 0

    @property
    def found_slots(self) -> frozenset[int]:
        """The slots whose cards hold a match (counted so far)."""
        return frozenset(self._counts) if self.needle else frozenset()

    def clear(self) -> None:
        """No query: nothing painted."""
        self.start("")

    def start(self, needle: str) -> None:
        """A new query: no counts yet."""
        self.needle = needle
        self.current = None
        self.complete = not needle
        self.set_counts([], complete=not needle)

    def set_counts(self, found: list[tuple[int, int]], *, complete: bool) -> None:
        """The cards holding matches and how many each, in slot order (from core's count)."""
        self._slots = [slot for slot, _count in found]
        self._counts = dict(found)
        self._ends = list(accumulate(count for _slot, count in found))
        self.complete = complete
        if self.current is not None and self.current >= self.total:
            self.current = self.total - 1 if self.total else None
        self.refresh()

    def holds(self, slot: int) -> bool:
        """Whether the card of ``slot`` holds a match (its folds holding one are opened)."""
        return slot in self._counts

    def locate(self, number: int) -> tuple[int, int]:
        """The card (slot) holding match ``number`` and which of its matches it is (0-based)."""
        i = bisect_right(self._ends, number)
        before = self._ends[i - 1] if i else 0
        return self._slots[i], number - before

    def first_from(self, slot: int) -> int | None:
        """The number of the first match in the card of ``slot`` or after it (None when none is counted)."""
        i = bisect_left(self._slots, slot)
        if i >= len(self._slots):
            return None
        return self._ends[i - 1] if i else 0

    # ------------------------------------------------------------------ painting
    def refresh(self) -> None:
        """Paint the matches of the cards in the document (after the view added or dropped cards)."""
        view = self._view
        if not self.needle or not self._counts:
            view.setExtraSelections([])
            return
        current = self.locate(self.current) if self.current is not None else None
        selections: list[QTextEdit.ExtraSelection] = []
        for slot in view.rendered_slots:
            if slot not in self._counts:
                continue
            for index, cursor in enumerate(self.cursors(slot)):
                selection = QTextEdit.ExtraSelection()
                selection.cursor = cursor
                fmt = QTextCharFormat()
                fmt.setBackground(_CURRENT if current == (slot, index) else _ALL)
                fmt.setForeground(QColor(0, 0, 0))
                selection.format = fmt
                selections.append(selection)
        view.setExtraSelections(selections)

    def cursors(self, slot: int) -> list[QTextCursor]:
        """The matches in the card of ``slot`` as the document holds it (the switcher line skipped)."""
        bounds = self._view.span_range(slot)
        if bounds is None or not self.needle:
            return []
        first, last = bounds
        document = self._view.document()
        switcher = self._view.switcher_block(slot)
        out: list[QTextCursor] = []
        cursor = QTextCursor(document)
        cursor.setPosition(first)
        while True:
            cursor = document.find(self.needle, cursor)
            if cursor.isNull() or cursor.selectionEnd() > last:
                break
            if cursor.block().position() != switcher:
                out.append(QTextCursor(cursor))
        return out

    def cursor_of(self, number: int) -> QTextCursor | None:
        """Match ``number`` in the document, None when its card is not rendered (or the count was off)."""
        slot, index = self.locate(number)
        found = self.cursors(slot)
        if not found:
            return None
        return found[min(index, len(found) - 1)]
