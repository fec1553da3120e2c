"""The window of the transcript: which slots' cards are in the document, and moving it as the reader scrolls.

The view (:mod:`gui.widgets.transcript_view`) keeps a window of slots ``[lo, hi)`` in its document, each
card in a frame (:mod:`gui.widgets.card_frames`). As the reader nears an edge, the stretch beyond it is
taken (rendered ahead in a worker when it was, :mod:`gui.widgets.transcript_stretch`) and its cards go
into the document a few at a time; cards far from the viewport are taken out. Cards added above move the
scroll position by their height, so nothing on screen moves.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TYPE_CHECKING

from gui.widgets.card_frames import CardFrames
from gui.widgets.transcript_stretch import Look, Prefetcher, Rendered

if TYPE_CHECKING:
    from PySide6.QtWidgets import QScrollBar

    from core.render.reading import ContextCards, PathCards

__all__ = ["AHEAD", "FILL_SCREENS", "INSERT_BUDGET", "KEEP_SCREENS", "STRETCH", "WAIT_SCREENS", "CardWindow"]

STRETCH = 6  # slots rendered at a time (a stretch)
FILL_SCREENS = 3.0  # keep at least this many viewport heights rendered above and below the viewport
KEEP_SCREENS = 6.0  # drop cards further than this many viewport heights from it
AHEAD = 3  # stretches rendered ahead on each side of the window
INSERT_BUDGET = 0.012  # s: cards added to the document in one turn of the event loop (at least one)
WAIT_SCREENS = 0.75  # nearer the edge than this, a stretch not yet rendered ahead is rendered at once


class CardWindow:
    """The slots whose cards are in the document, and the cards rendered beside them but not yet added.

    Attributes:
        source: the cards shown.
        lo, hi: the slots in the document, ``[lo, hi)``.
        above_start, below_stop: with the cards rendered beside the window but not added, the window
            reaches ``[above_start, below_stop)``.
        adjusting: the window itself is moving the scroll bar (the view does not take it for the reader).
    """

    def __init__(self, frames: CardFrames, bar: QScrollBar, prefetch: Prefetcher, screen: Callable[[], int]):
        self.frames = frames
        self.bar = bar
        self.prefetch = prefetch
        self.screen = screen  # the viewport's height
        self.source: PathCards | ContextCards | None = None
        self.lo = self.hi = 0
        self._above: list[Rendered] = []
        self._below: list[Rendered] = []
        self.above_start = self.below_stop = 0
        self._pending_look: Look | None = None
        self.adjusting = False

    def start(self, slot: int, look: Look, bottom: bool) -> None:
        """Lay out a new window around ``slot`` in an empty document, enough below to scroll it up."""
        source = self.source
        assert source is not None
        self.lo = self.hi = slot
        self.drop_pending()
        self.append(min(len(source), slot + STRETCH // 2 + 1), look)
        screen = max(1, self.screen())
        while self.hi < len(source) and not bottom:
            span = self.frames.at_or_before(slot)
            top = self.frames.top(span) if span is not None else 0.0
            if self.frames.height() - top >= screen:
                break
            self.append(min(len(source), self.hi + STRETCH), look)
        self.prepend(max(0, slot - STRETCH // 2), look)

    def relay(self, cards: list[Rendered], slot: int, offset: int) -> None:
        """Lay ``cards`` (the window's, from a document just cleared) out again, the reader's place kept.

        A screen of them from the card of ``slot`` goes in now, ``offset`` px below the viewport's top;
        the rest become cards rendered beside the window, added a few at a time by :meth:`fill`, so
        laying out afresh costs one screen's insert, not the window's.
        """
        first = 0
        while first + 1 < len(cards) and cards[first + 1].slot <= slot:
            first += 1
        screen = max(1, self.screen())
        end = first
        # From the card's top (``offset`` px below the viewport's, negative when above) to the bottom.
        while end < len(cards) and (end == first or self.frames.height() < screen - offset):
            self.frames.insert_at_end([cards[end]])
            end += 1
        self._above = self._above + cards[:first]
        self._below = cards[end:] + self._below
        self.lo = cards[first].slot
        self.hi = cards[end].slot if end < len(cards) else self.hi
        self.adjusting = True
        try:
            self.bar.setValue(max(0, int(self.frames.top(self.frames.spans[0])) - offset))
        finally:
            self.adjusting = False

    def fill(self, look: Look) -> bool:
        """Add cards where the viewport nears an edge of the window; True when any were added.

        A stretch rendered ahead is taken as soon as it is needed; one still being rendered is waited for
        while the viewport is more than :data:`WAIT_SCREENS` from the edge (the worker is faster than a
        reader), and rendered here only when the reader is about to reach the edge. The cards of a
        stretch go into the document a few at a time, :data:`INSERT_BUDGET` per turn of the event loop.
        """
        source = self.source
        if source is None or not self.frames.spans:
            return False
        screen = max(1, self.screen())
        above = self.bar.value()
        below = self.frames.height() - above - screen
        if look != self._pending_look:  # rendered for another look (a fold opened, find): not usable
            self.drop_pending()
            self._pending_look = look
        if above < FILL_SCREENS * screen and self.lo > 0:
            if self._fill_above(source, look, above < WAIT_SCREENS * screen):
                return True
        if below < FILL_SCREENS * screen and self.hi < len(source):
            return self._fill_below(source, look, below < WAIT_SCREENS * screen)
        return False

    def grow(self, old_count: int, look: Look) -> None:
        """The source grew after slot ``old_count - 1``: new cards, when the window reaches the old end.

        The last card is rendered again too: its tool calls may have found their results.
        """
        self._below, self.below_stop = [], self.hi
        source = self.source
        if source is None or self.hi < old_count or not self.frames.spans:
            return
        last = self.frames.spans[-1]
        self.frames.remove(len(self.frames.spans) - 1, len(self.frames.spans))
        self.hi = self.below_stop = last.slot
        self.append(min(len(source), max(self.hi + STRETCH, old_count + 1)), look)

    def _fill_above(self, source: PathCards | ContextCards, look: Look, urgent: bool) -> bool:
        """Take the stretch above the window when ready (or ``urgent``) and add cards of it; True if any."""
        if not self._above:
            start = max(0, self.above_start - STRETCH)
            prefetch = self.prefetch
            if not (prefetch.has(source, start, self.above_start, look) or urgent or not prefetch.waiting()):
                return False
            self._above = prefetch.take(source, start, self.above_start, look)
            self.above_start = start
            if not self._above:  # slots without cards of their own
                self.lo = start
                return True
        bar = self.bar
        value, before = bar.value(), self.frames.height()
        deadline = time.perf_counter() + INSERT_BUDGET
        first = True
        while self._above and (first or time.perf_counter() < deadline):
            first = False
            card = self._above.pop()
            self.frames.insert_at_start([card])
            self.lo = card.slot if self._above else self.above_start
        self.adjusting = True
        try:
            bar.setValue(value + int(self.frames.height() - before))
        finally:
            self.adjusting = False
        return True

    def _fill_below(self, source: PathCards | ContextCards, look: Look, urgent: bool) -> bool:
        """Take the stretch below the window when ready (or ``urgent``) and add cards of it; True if any."""
        if not self._below:
            stop = min(len(source), self.below_stop + STRETCH)
            prefetch = self.prefetch
            if not (prefetch.has(source, self.below_stop, stop, look) or urgent or not prefetch.waiting()):
                return False
            self._below = prefetch.take(source, self.below_stop, stop, look)
            self.below_stop = stop
            if not self._below:
                self.hi = stop
                return True
        deadline = time.perf_counter() + INSERT_BUDGET
        first = True
        while self._below and (first or time.perf_counter() < deadline):
            first = False
            card = self._below.pop(0)
            self.frames.insert_at_end([card])
            self.hi = self._below[0].slot if self._below else self.below_stop
        return True

    def drop_pending(self) -> None:
        """Forget the cards rendered beside the window but not added (the window moved, the look changed)."""
        self._above, self._below = [], []
        self.above_start, self.below_stop = self.lo, self.hi

    def trim(self, screen: int) -> bool:
        """Drop cards more than :data:`KEEP_SCREENS` viewport heights away; True when any was dropped."""
        bar = self.bar
        keep = KEEP_SCREENS * screen
        value = bar.value()
        count = 0  # cards wholly above the kept band, from the top
        while (
            count < len(self.frames.spans) - 1 and self.frames.bottom(self.frames.spans[count]) < value - keep
        ):
            count += 1
        dropped = False
        if count:
            before = self.frames.height()
            self.lo = self.above_start = self.frames.spans[count].slot
            self._above = []
            self.frames.remove(0, count)
            bar.setValue(value - int(before - self.frames.height()))
            dropped = True
        limit = bar.value() + screen + keep
        first = len(self.frames.spans)  # the first card wholly below the band
        while first > 1 and self.frames.top(self.frames.spans[first - 1]) > limit:
            first -= 1
        if first < len(self.frames.spans):
            self.hi = self.below_stop = self.frames.spans[first].slot
            self._below = []
            self.frames.remove(first, len(self.frames.spans))
            dropped = True
        return dropped

    def prepend(self, start: int, look: Look) -> None:
        """Render slots ``start`` to the window's first and put them above it, nothing on screen moving."""
        if start >= self.lo:
            return
        bar = self.bar
        value = bar.value()
        before = self.frames.height()
        self.frames.insert_at_start(self.render(start, self.lo, look))
        self.lo = self.above_start = start
        self._above = []
        self.adjusting = True
        try:
            bar.setValue(value + int(self.frames.height() - before))
        finally:
            self.adjusting = False

    def append(self, stop: int, look: Look) -> None:
        """Render slots from the window's end to ``stop`` and put them below it."""
        if stop <= self.hi:
            return
        self.frames.insert_at_end(self.render(self.hi, stop, look))
        self.hi = self.below_stop = stop
        self._below = []

    def render(self, start: int, stop: int, look: Look) -> list[Rendered]:
        """The cards of slots ``start`` to ``stop``, rendered ahead in a worker if they were, else now."""
        source = self.source
        return self.prefetch.take(source, start, stop, look) if source is not None else []

    def ask_ahead(self, look: Look) -> None:
        """Have the stretches beyond both edges of the window rendered in a worker, before they are needed.

        Up to :data:`AHEAD` stretches on each side, nearest first: one at a time per side, the next asked
        when one arrives.
        """
        source = self.source
        if source is None or not self.frames.spans:
            return
        prefetch = self.prefetch
        for k in range(AHEAD):
            stop = self.above_start - k * STRETCH
            start = max(0, stop - STRETCH)
            if stop <= 0:
                break
            if not prefetch.has(source, start, stop, look):
                prefetch.ask("transcript-above", source, start, stop, look)
                break
        for k in range(AHEAD):
            start = self.below_stop + k * STRETCH
            stop = min(len(source), start + STRETCH)
            if start >= len(source):
                break
            if not prefetch.has(source, start, stop, look):
                prefetch.ask("transcript-below", source, start, stop, look)
                break
