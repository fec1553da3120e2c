"""The transcript: a conversation (or what the model saw) as cards to scroll, rendered near the viewport only.

The view shows a *source* (:class:`~core.render.reading.PathCards` or
:class:`~core.render.reading.ContextCards`): numbered slots, each an entry's card (a tool result shown under
its call has none). Only a window of slots around the viewport is in the ``QTextDocument``, each card in a
frame of its own; as the reader scrolls near an edge of the window, a stretch of cards is rendered and
added there (the scroll position moved by what was added above, so nothing on screen moves), and cards
far from the viewport are dropped. Each turn of the event loop adds at most one stretch, so holding Page
Up never stalls the window for long; jumping (Ctrl+Home, a tree selection far away) renders a new window
around the target.

Links are never followed by Qt: ``action:toggle/KEY`` opens or closes a fold and renders that card again,
``action:branch/STEP/ID`` is a card's branch switcher, other ``action:`` links go out as
:attr:`TranscriptView.action_requested`; ``http(s)``/``mailto`` links go to the desktop when clicked.
``loadResource`` answers ``image:ENTRY/N`` from the source only, so an image is decoded when its card is
shown, and nothing remote is ever loaded.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QEvent, QPoint, Qt, QTimer, QUrl, Signal
from PySide6.QtGui import (
    QBrush,
    QColor,
    QContextMenuEvent,
    QDesktopServices,
    QGuiApplication,
    QImage,
    QKeyEvent,
    QKeySequence,
    QMouseEvent,
    QResizeEvent,
    QTextCursor,
    QTextDocument,
    QTextFrame,
    QTextFrameFormat,
)
from PySide6.QtWidgets import QTextBrowser, QWidget

from core.render import image_bytes, parse_action, parse_image_src, stylesheet
from gui.theme import is_dark
from gui.widgets.transcript_marks import FindMarks
from gui.widgets.transcript_stretch import Look, Prefetcher, Rendered, RenderLater

if TYPE_CHECKING:
    from core.render.reading import ContextCards, PathCards

__all__ = ["MAX_IMAGE_WIDTH", "TranscriptView"]

MAX_IMAGE_WIDTH = 480  # px, as core.render sizes the <img> tags
STRETCH = 6  # slots rendered and added in one turn of the event loop
FILL_SCREENS = 3.0  # keep at least this many viewport heights rendered above and below the viewport
AHEAD = 3  # stretches rendered ahead on each side of the window
INSERT_BUDGET = 0.012  # s: cards added to the document in one turn of the event loop (at least one)
WAIT_SCREENS = 0.75  # nearer the edge than this, a stretch not yet rendered ahead is rendered at once
KEEP_SCREENS = 6.0  # drop cards further than this many viewport heights from it
IMAGES_BEFORE_REBUILD = 24  # images cached by the document before a window rebuild lets them go
_EXTERNAL_SCHEMES = ("http", "https", "mailto")
_TOP_GAP = 6  # px above a card scrolled to the top of the viewport


@dataclass
class _Span:
    """A rendered card: its slot and the frame that holds it."""

    slot: int
    frame: QTextFrame
    switcher: bool = False  # the card's first line is a branch switcher
    card_id: str = ""  # the id of the card's entry (its fold keys start with it)


class TranscriptView(QTextBrowser):
    """Shows a source's cards around the reader's position; selects, marks and finds in them."""

    action_requested = Signal(str, str)  # verb, key of an ``action:VERB/KEY`` link the view does not answer
    reading_changed = Signal(int)  # the slot of the card at the top of the viewport (after scrolling stops)
    copy_all_requested = Signal()  # Ctrl+C with everything selected: the whole transcript as Markdown
    copy_card_requested = Signal(int)  # a card's context menu: that message as Markdown
    show_in_tree_requested = Signal(int)  # a card's context menu: select its entry in the tree

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("transcript")
        self.setAccessibleName("Transcript")
        self.setOpenLinks(False)
        self.setOpenExternalLinks(False)
        self._source: PathCards | ContextCards | None = None
        self._spans: list[_Span] = []
        self._lo = self._hi = 0  # the slots rendered: [lo, hi)
        # Cards rendered but not yet in the document, next to each edge of the window: the slots
        # [above_start, lo) and [hi, below_stop), added a few at a time (see _fill).
        self._above: list[Rendered] = []
        self._below: list[Rendered] = []
        self._above_start = self._below_stop = 0
        self._pending_look: Look | None = None
        self._expanded: set[str] = set()
        self._unfold_all = False
        self._current: int | None = None  # the marked slot (the tree's selected entry)
        self._images = 0  # images the document has cached since it was last cleared
        self._all_selected = False
        self._press_position = -1  # document position of the last mouse press (which card a link is in)
        self._adjusting = False
        self._dark = is_dark()
        self.marks = FindMarks(self)
        self._prefetch = Prefetcher(on_ready=self._schedule_fill)
        self.document().setUndoRedoEnabled(False)
        self.document().setDefaultStyleSheet(stylesheet(self._dark))
        self._fill_timer = QTimer(self, singleShot=True, interval=0)
        self._fill_timer.timeout.connect(self._fill)
        self._reading_timer = QTimer(self, singleShot=True, interval=120)
        self._reading_timer.timeout.connect(self._emit_reading)
        self.verticalScrollBar().valueChanged.connect(self._on_scrolled)
        self.anchorClicked.connect(self._on_anchor_clicked)
        QGuiApplication.styleHints().colorSchemeChanged.connect(self._on_color_scheme_changed)

    # ------------------------------------------------------------------ what is shown
    @property
    def card_source(self) -> PathCards | ContextCards | None:
        """The cards shown, None for a page (the empty state, an error) or nothing."""
        return self._source

    @property
    def rendered(self) -> tuple[int, int]:
        """The slots in the document: ``(first, one past the last)``."""
        return self._lo, self._hi

    @property
    def rendered_slots(self) -> list[int]:
        """The slots of the cards in the document, in order."""
        return [span.slot for span in self._spans]

    @property
    def current_slot(self) -> int | None:
        """The marked slot (the tree's selected entry), if any."""
        return self._current

    @property
    def expanded(self) -> frozenset[str]:
        """Keys of the folds shown open."""
        return frozenset(self._expanded)

    def set_render_later(self, render_later: RenderLater | None) -> None:
        """How stretches are rendered ahead off the GUI thread (the controller's runner); None: never."""
        self._prefetch.render_later = render_later

    def set_unfold_all(self, on: bool) -> None:
        """Show every fold open (and nothing cut), or as the reader left them."""
        if on != self._unfold_all:
            self._unfold_all = on
            self.rebuild()

    def show_page(self, page: str) -> None:
        """Show a page that is not a transcript (the empty state, a sentence saying why not)."""
        self._source = None
        self._spans = []
        self._lo = self._hi = 0
        self._current = None
        self.marks.clear()
        self._clear_document()
        self.setHtml(page)

    def set_source(
        self,
        source: PathCards | ContextCards,
        slot: int | None = None,
        *,
        offset: int = _TOP_GAP,
        bottom: bool = False,
    ) -> None:
        """Show ``source`` with the card of ``slot`` ``offset`` px below the top of the viewport.

        ``bottom`` scrolls to the end instead (what the model saw: the newest message is where it was).
        Folds opened in another source stay open only when it is the same session's.
        """
        previous = self._source
        if previous is None or previous.session is not source.session:
            self._expanded.clear()
        self._source = source
        count = len(source)
        if slot is None:
            slot = count - 1 if bottom else 0
        slot = max(0, min(slot, count - 1)) if count else 0
        self._rebuild_at(slot, offset, bottom)

    def extend(self, source: PathCards | ContextCards) -> None:
        """Show ``source``, which holds the slots shown now and more after them (a session that grew).

        The cards already rendered stay as they are, but the last one (its tool calls may have found their
        results); new cards are added only when the window reaches the end. The scroll position stays,
        unless the reader was at the bottom: then it follows the new end.
        """
        old = self._source
        self._source = source
        if old is None or not self._spans:
            self.set_source(source, len(source) - 1)
            return
        bar = self.verticalScrollBar()
        at_bottom = bar.value() >= bar.maximum() - 4
        self._below, self._below_stop = [], self._hi
        if self._hi >= len(old):
            last = self._spans[-1]
            self._remove_spans(len(self._spans) - 1, len(self._spans))
            self._hi = last.slot
            self._append(min(len(source), max(self._hi + STRETCH, len(old) + 1)))
        if at_bottom:
            bar.setValue(bar.maximum())
        self.marks.refresh()
        self._schedule_fill()

    def rebuild(self) -> None:
        """Render the window again around the card at the top of the viewport (a theme, all folds open)."""
        if self._source is None:
            return
        slot, offset = self._anchor()
        self._rebuild_at(slot, offset, False)

    # ------------------------------------------------------------------ moving and marking
    def scroll_to_slot(self, slot: int, *, mark: bool = True) -> None:
        """Bring the card of ``slot`` to the top of the viewport (rendering around it when it is far)."""
        if self._source is None or not len(self._source):
            return
        slot = max(0, min(slot, len(self._source) - 1))
        if mark:
            self.set_current(slot)
        span = self._span_at_or_before(slot)
        if span is None or not (self._lo <= slot < self._hi):
            self._rebuild_at(slot, _TOP_GAP, False)
            return
        top = self._frame_top(span.frame)
        self.verticalScrollBar().setValue(max(0, int(top) - _TOP_GAP))
        self._schedule_fill()

    def set_current(self, slot: int | None) -> None:
        """Mark the card of ``slot`` (the tree's selected entry), unmarking the one marked before."""
        old, self._current = self._current, slot
        if old == slot:
            return
        for marked in (old, slot):
            span = self._span_at_or_before(marked) if marked is not None else None
            if span is not None:
                span.frame.setFrameFormat(self._frame_format(span.slot))

    def reading_slot(self) -> int | None:
        """The slot of the card at the top of the viewport (None when no card is shown)."""
        if not self._spans:
            return None
        y = self.verticalScrollBar().value() + _TOP_GAP + 1
        low, high = 0, len(self._spans) - 1
        while low < high:  # the last span whose frame starts at or above y
            middle = (low + high + 1) // 2
            if self._frame_top(self._spans[middle].frame) <= y:
                low = middle
            else:
                high = middle - 1
        return self._spans[low].slot

    def visible_slots(self) -> list[int]:
        """The slots of the cards in the viewport, wholly or in part."""
        top = self.verticalScrollBar().value()
        bottom = top + self.viewport().height()
        return [
            span.slot
            for span in self._spans
            if self._frame_bottom(span.frame) > top and self._frame_top(span.frame) < bottom
        ]

    def slot_at(self, position: int) -> int | None:
        """The slot of the card holding document ``position``, None outside every card."""
        for span in self._spans:
            if span.frame.firstPosition() <= position <= span.frame.lastPosition():
                return span.slot
        return None

    def span_range(self, slot: int) -> tuple[int, int] | None:
        """The document positions ``(first, last)`` of the card showing ``slot`` (None: not rendered).

        A tool result shown under its call is in the call's card.
        """
        span = self._span_at_or_before(slot) if self._lo <= slot < self._hi else None
        return (span.frame.firstPosition(), span.frame.lastPosition()) if span is not None else None

    def switcher_block(self, slot: int) -> int:
        """The position of the branch switcher line of the card of ``slot``, -1 when it has none."""
        for span in self._spans:
            if span.slot == slot:
                return span.frame.firstPosition() if span.switcher else -1
        return -1

    def go_home(self) -> None:
        """The first card at the top (Ctrl+Home)."""
        if self._source is not None and len(self._source):
            self._rebuild_at(0, 0, False)

    def go_end(self) -> None:
        """The end of the last card in view (Ctrl+End)."""
        if self._source is not None and len(self._source):
            self._rebuild_at(len(self._source) - 1, 0, True)

    def rerender_slot(self, slot: int) -> None:
        """Render the card of ``slot`` again in place (a fold opened, find's folds), keeping the scroll."""
        for i, span in enumerate(self._spans):
            if span.slot == slot:
                bar = self.verticalScrollBar()
                value = bar.value()
                position = span.frame.firstPosition() - 1
                self._remove_spans(i, i + 1)
                self._insert_cards(self._render(slot, slot + 1), position, i)
                bar.setValue(value)
                self.marks.refresh()
                return

    # ------------------------------------------------------------------ the window
    def _rebuild_at(self, slot: int, offset: int, bottom: bool) -> None:
        """A new window around ``slot``: a stretch before and after it, then filled out turn by turn."""
        self._spans = []
        self._clear_document()
        source = self._source
        if source is None or not len(source):
            self._lo = self._hi = 0
            self.setHtml("<p>Nothing to show in this filter mode.</p>" if source is not None else "")
            return
        self._lo = self._hi = slot
        self._drop_pending()
        self._append(min(len(source), slot + STRETCH // 2 + 1))
        screen = max(1, self.viewport().height())
        while self._hi < len(source) and not bottom:  # enough below the target to scroll it to the top
            span = self._span_at_or_before(slot)
            top = self._frame_top(span.frame) if span is not None else 0.0
            if self._document_height() - top >= screen:
                break
            self._append(min(len(source), self._hi + STRETCH))
        self._prepend(max(0, slot - STRETCH // 2))
        bar = self.verticalScrollBar()
        if bottom:
            bar.setValue(bar.maximum())
        else:
            span = self._span_at_or_before(slot)
            top = self._frame_top(span.frame) if span is not None else 0.0
            bar.setValue(max(0, int(top) - offset))
        self.marks.refresh()
        self._schedule_fill()
        self._schedule_reading()

    def _fill(self) -> None:
        """Add cards where the viewport nears an edge of the window, drop what is far; again next turn.

        A stretch rendered ahead is taken as soon as it is needed; one still being rendered is waited for
        while the viewport is more than :data:`WAIT_SCREENS` from the edge (the worker is faster than a
        reader), and rendered here only when the reader is about to reach the edge. The cards of a
        stretch go into the document a few at a time, :data:`INSERT_BUDGET` per turn of the event loop.
        """
        source = self._source
        if source is None or not self._spans:
            return
        bar = self.verticalScrollBar()
        screen = max(1, self.viewport().height())
        above = bar.value()
        below = self._document_height() - above - screen
        look = self._look()
        if look != self._pending_look:  # rendered for another look (a fold opened, find): not usable
            self._drop_pending()
            self._pending_look = look
        did = False
        if above < FILL_SCREENS * screen and self._lo > 0:
            did = self._fill_above(source, look, above < WAIT_SCREENS * screen)
        if not did and below < FILL_SCREENS * screen and self._hi < len(source):
            did = self._fill_below(source, look, below < WAIT_SCREENS * screen)
        did = self._trim(screen) or did
        if did:
            self.marks.refresh()
            self._fill_timer.start()
        self._ask_ahead()  # what comes next is rendered in a worker while the reader reads

    def _fill_above(self, source: PathCards | ContextCards, look: Look, urgent: bool) -> bool:
        """Take the stretch above the window when ready (or ``urgent``) and add cards of it; True if any."""
        if not self._above:
            start = max(0, self._above_start - STRETCH)
            prefetch = self._prefetch
            if not (prefetch.has(source, start, self._above_start, look) or urgent or not prefetch.waiting()):
                return False
            self._above = prefetch.take(source, start, self._above_start, look)
            self._above_start = start
            if not self._above:  # slots without cards of their own
                self._lo = start
                return True
        bar = self.verticalScrollBar()
        value, before = bar.value(), self._document_height()
        deadline = time.perf_counter() + INSERT_BUDGET
        first = True
        while self._above and (first or time.perf_counter() < deadline):
            first = False
            card = self._above.pop()
            self._insert_cards([card], 0, 0)
            self._lo = card.slot if self._above else self._above_start
        self._adjusting = True
        try:
            bar.setValue(value + int(self._document_height() - before))
        finally:
            self._adjusting = False
        return True

    def _fill_below(self, source: PathCards | ContextCards, look: Look, urgent: bool) -> bool:
        """Take the stretch below the window when ready (or ``urgent``) and add cards of it; True if any."""
        if not self._below:
            stop = min(len(source), self._below_stop + STRETCH)
            prefetch = self._prefetch
            if not (prefetch.has(source, self._below_stop, stop, look) or urgent or not prefetch.waiting()):
                return False
            self._below = prefetch.take(source, self._below_stop, stop, look)
            self._below_stop = stop
            if not self._below:
                self._hi = stop
                return True
        end = self.document().rootFrame().lastPosition()
        deadline = time.perf_counter() + INSERT_BUDGET
        first = True
        while self._below and (first or time.perf_counter() < deadline):
            first = False
            card = self._below.pop(0)
            self._insert_cards([card], end, len(self._spans))
            end = self.document().rootFrame().lastPosition()
            self._hi = self._below[0].slot if self._below else self._below_stop
        return True

    def _drop_pending(self) -> None:
        """Forget the cards rendered beside the window but not added (the window moved, the look changed)."""
        self._above, self._below = [], []
        self._above_start, self._below_stop = self._lo, self._hi

    def _trim(self, screen: int) -> bool:
        """Drop cards more than :data:`KEEP_SCREENS` viewport heights away; True when any was dropped."""
        bar = self.verticalScrollBar()
        keep = KEEP_SCREENS * screen
        value = bar.value()
        count = 0  # cards wholly above the kept band, from the top
        while count < len(self._spans) - 1 and self._frame_bottom(self._spans[count].frame) < value - keep:
            count += 1
        dropped = False
        if count:
            before = self._document_height()
            self._lo = self._above_start = self._spans[count].slot
            self._above = []
            self._remove_spans(0, count)
            bar.setValue(value - int(before - self._document_height()))
            dropped = True
        limit = bar.value() + screen + keep
        first = len(self._spans)  # the first card wholly below the band
        while first > 1 and self._frame_top(self._spans[first - 1].frame) > limit:
            first -= 1
        if first < len(self._spans):
            self._hi = self._below_stop = self._spans[first].slot
            self._below = []
            self._remove_spans(first, len(self._spans))
            dropped = True
        if dropped and self._images > IMAGES_BEFORE_REBUILD:
            QTimer.singleShot(0, self, self.rebuild)  # let the document's cached images go
        return dropped

    def _prepend(self, start: int) -> None:
        """Render slots ``start`` to the window's first and put them above it, nothing on screen moving."""
        if start >= self._lo:
            return
        bar = self.verticalScrollBar()
        value = bar.value()
        before = self._document_height()
        self._insert_cards(self._render(start, self._lo), 0, 0)
        self._lo = self._above_start = start
        self._above = []
        self._adjusting = True
        try:
            bar.setValue(value + int(self._document_height() - before))
        finally:
            self._adjusting = False

    def _append(self, stop: int) -> None:
        """Render slots from the window's end to ``stop`` and put them below it."""
        if stop <= self._hi:
            return
        end = self.document().rootFrame().lastPosition()
        self._insert_cards(self._render(self._hi, stop), end, len(self._spans))
        self._hi = self._below_stop = stop
        self._below = []

    def _look(self) -> Look:
        marks = self.marks
        return Look(frozenset(self._expanded), self._dark, self._unfold_all, marks.needle, marks.found_slots)

    def _render(self, start: int, stop: int) -> list[Rendered]:
        """The cards of slots ``start`` to ``stop``, rendered ahead in a worker if they were, else now."""
        source = self._source
        return self._prefetch.take(source, start, stop, self._look()) if source is not None else []

    def _ask_ahead(self) -> None:
        """Have the stretches beyond both edges of the window rendered in a worker, before they are needed.

        Up to :data:`AHEAD` stretches on each side, nearest first: one at a time per side, the next asked
        when one arrives.
        """
        source = self._source
        if source is None or not self._spans:
            return
        look, prefetch = self._look(), self._prefetch
        for k in range(AHEAD):
            stop = self._above_start - k * STRETCH
            start = max(0, stop - STRETCH)
            if stop <= 0:
                break
            if not prefetch.has(source, start, stop, look):
                prefetch.ask("transcript-above", source, start, stop, look)
                break
        for k in range(AHEAD):
            start = self._below_stop + k * STRETCH
            stop = min(len(source), start + STRETCH)
            if start >= len(source):
                break
            if not prefetch.has(source, start, stop, look):
                prefetch.ask("transcript-below", source, start, stop, look)
                break

    def _insert_cards(self, cards: list[Rendered], position: int, index: int) -> None:
        """Put each card in a frame of its own at ``position`` (before the span at ``index``)."""
        cursor = QTextCursor(self.document())
        cursor.beginEditBlock()
        made: list[_Span] = []
        for slot, fragment, switcher, card_id in cards:
            cursor.setPosition(position)
            frame = cursor.insertFrame(self._frame_format(slot))
            cursor.insertHtml(fragment)
            made.append(_Span(slot, frame, switcher, card_id))
            position = frame.lastPosition() + 1
        cursor.endEditBlock()
        self._spans[index:index] = made

    def _remove_spans(self, start: int, stop: int) -> None:
        """Take the cards of spans ``start`` to ``stop`` out of the document."""
        if start >= stop:
            return
        cursor = QTextCursor(self.document())
        cursor.setPosition(self._spans[start].frame.firstPosition() - 1)
        cursor.setPosition(self._spans[stop - 1].frame.lastPosition() + 1, QTextCursor.MoveMode.KeepAnchor)
        cursor.removeSelectedText()
        del self._spans[start:stop]

    def _clear_document(self) -> None:
        document = self.document()
        document.clear()  # drops the images it cached too
        # Cards come and go as the reader scrolls: an undo stack would keep every one of them.
        document.setUndoRedoEnabled(False)
        document.setDefaultStyleSheet(stylesheet(self._dark))
        self._images = 0
        self._all_selected = False

    def _slot_of_fold(self, key: str, position: int) -> int | None:
        """The card a fold's toggle link is in: the one clicked, else the one whose entry the key names."""
        clicked = self.slot_at(position) if position >= 0 else None
        owners = [span.slot for span in self._spans if span.card_id and key.startswith(span.card_id + "/")]
        if clicked is not None and (clicked in owners or not owners):
            return clicked
        return owners[0] if owners else clicked

    def _frame_format(self, slot: int) -> QTextFrameFormat:
        fmt = QTextFrameFormat()
        fmt.setBorder(2)
        fmt.setBorderStyle(QTextFrameFormat.BorderStyle.BorderStyle_Solid)
        fmt.setPadding(2)
        colour = (
            self.palette().highlight().color()
            if slot == self._current
            else QColor(Qt.GlobalColor.transparent)
        )
        fmt.setBorderBrush(QBrush(colour))
        return fmt

    def _span_at_or_before(self, slot: int | None) -> _Span | None:
        """The span of ``slot``, or of the card it is shown in (a result under its call), if rendered."""
        if slot is None:
            return None
        found = None
        for span in self._spans:
            if span.slot > slot:
                break
            found = span
        return found

    def _frame_top(self, frame: QTextFrame) -> float:
        return self.document().documentLayout().frameBoundingRect(frame).top()

    def _frame_bottom(self, frame: QTextFrame) -> float:
        return self.document().documentLayout().frameBoundingRect(frame).bottom()

    def _document_height(self) -> float:
        return self.document().documentLayout().documentSize().height()

    def _anchor(self) -> tuple[int, int]:
        """The card at the top of the viewport and how far below the top its frame starts (< 0: above)."""
        slot = self.reading_slot()
        if slot is None:
            return self._current or 0, _TOP_GAP
        span = self._span_at_or_before(slot)
        top = self._frame_top(span.frame) if span is not None else 0.0
        return slot, int(top) - self.verticalScrollBar().value()

    # ------------------------------------------------------------------ reading position
    def _on_scrolled(self, _value: int) -> None:
        if not self._adjusting:
            self._schedule_fill()
            self._schedule_reading()

    def _schedule_fill(self) -> None:
        if not self._fill_timer.isActive():
            self._fill_timer.start()

    def _schedule_reading(self) -> None:
        self._reading_timer.start()  # restarted on each step: reported once scrolling pauses

    def _emit_reading(self) -> None:
        slot = self.reading_slot()
        if slot is not None:
            self.reading_changed.emit(slot)

    # ------------------------------------------------------------------ Qt overrides
    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self._schedule_fill()

    def keyPressEvent(self, event: QKeyEvent) -> None:
        """Ctrl+Home/End go to the first and last card; Ctrl+A then Ctrl+C copies the whole transcript."""
        if event.matches(QKeySequence.StandardKey.MoveToStartOfDocument):
            self.go_home()
            return
        if event.matches(QKeySequence.StandardKey.MoveToEndOfDocument):
            self.go_end()
            return
        if event.matches(QKeySequence.StandardKey.SelectAll):
            self.selectAll()
            self._all_selected = self._source is not None
            return
        if event.matches(QKeySequence.StandardKey.Copy) and self._whole_selected():
            self.copy_all_requested.emit()
            return
        super().keyPressEvent(event)

    def _whole_selected(self) -> bool:
        """Everything is selected (Ctrl+A): a copy takes the whole transcript, not only the cards rendered."""
        cursor = self.textCursor()
        end = self.document().characterCount() - 1
        return self._all_selected and cursor.selectionStart() == 0 and cursor.selectionEnd() >= end

    def mousePressEvent(self, event: QMouseEvent) -> None:
        self._press_position = self.cursorForPosition(event.position().toPoint()).position()
        self._all_selected = False
        super().mousePressEvent(event)

    def contextMenuEvent(self, event: QContextMenuEvent) -> None:
        """Qt's Copy and Select All, then this message as Markdown, the whole transcript, Show in Tree."""
        menu = self.createStandardContextMenu(event.pos())
        slot = self.slot_at(self.cursorForPosition(event.pos()).position())
        menu.addSeparator()
        if slot is not None:
            menu.addAction("Copy Message as Markdown", lambda: self.copy_card_requested.emit(slot))
            source = self._source
            if source is not None and source.entry_id(slot) is not None:
                menu.addAction("Show in Tree", lambda: self.show_in_tree_requested.emit(slot))
        if self._source is not None:
            menu.addAction("Copy Transcript as Markdown", self.copy_all_requested.emit)
        menu.exec(event.globalPos())
        menu.deleteLater()

    def loadResource(self, type: int, name: QUrl | str) -> Any:
        """Images of the source only (``image:ENTRY/N``), scaled to at most 480 px wide; nothing else."""
        source = self._source
        if type != QTextDocument.ResourceType.ImageResource or source is None:
            return None
        url = name if isinstance(name, QUrl) else QUrl(name)
        parsed = parse_image_src(url.toString(QUrl.ComponentFormattingOption.FullyEncoded))
        if parsed is None:
            return None
        entry_id, index = parsed
        try:
            body = source.image_body(entry_id)
            decoded = image_bytes(body, index) if body is not None else None
        except Exception:  # a changed file: the image is shown as missing
            return None
        if decoded is None:
            return None
        image = QImage.fromData(decoded[0])
        if image.isNull():
            return None
        if image.width() > MAX_IMAGE_WIDTH:
            image = image.scaledToWidth(MAX_IMAGE_WIDTH, Qt.TransformationMode.SmoothTransformation)
        self._images += 1
        return image

    # ------------------------------------------------------------------ links
    def _on_anchor_clicked(self, url: QUrl) -> None:
        href = url.toString(QUrl.ComponentFormattingOption.FullyEncoded)
        action = parse_action(href)
        if action is not None:
            verb, key = action
            position, self._press_position = self._press_position, -1
            if verb == "toggle":
                self._expanded.symmetric_difference_update({key})
                slot = self._slot_of_fold(key, position)
                if slot is not None:
                    self.rerender_slot(slot)
            elif verb == "branch":
                step, _, entry_id = key.partition("/")
                self.action_requested.emit("branch", f"{step}/{entry_id}")
            else:
                self.action_requested.emit(verb, key)
            return
        if url.scheme().lower() in _EXTERNAL_SCHEMES:
            QDesktopServices.openUrl(url)

    def changeEvent(self, event: QEvent) -> None:
        """Follow a palette change (a theme chosen in the View menu, or a dark desktop theme)."""
        super().changeEvent(event)
        if event.type() in (QEvent.Type.PaletteChange, QEvent.Type.ApplicationPaletteChange):
            self._on_color_scheme_changed()

    def _on_color_scheme_changed(self, *_args: object) -> None:
        dark = is_dark()
        if dark == self._dark:
            return
        self._dark = dark
        self.document().setDefaultStyleSheet(stylesheet(dark))
        self.rebuild()

    def viewport_point(self, slot: int) -> QPoint | None:
        """Where the card of ``slot`` starts, in viewport coordinates (a menu opens there), if rendered."""
        span = self._span_at_or_before(slot)
        if span is None:
            return None
        return QPoint(8, int(self._frame_top(span.frame)) - self.verticalScrollBar().value() + 16)
