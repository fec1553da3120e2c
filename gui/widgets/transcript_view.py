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

from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QEvent, QPoint, Qt, QTimer, QUrl, Signal
from PySide6.QtGui import (
    QContextMenuEvent,
    QDesktopServices,
    QGuiApplication,
    QImage,
    QKeyEvent,
    QKeySequence,
    QMouseEvent,
    QResizeEvent,
    QTextDocument,
)
from PySide6.QtWidgets import QTextBrowser, QWidget

from core.render import image_bytes, parse_action, parse_image_src, stylesheet
from gui.theme import is_dark
from gui.widgets.card_frames import CardFrames
from gui.widgets.card_window import CardWindow
from gui.widgets.transcript_marks import FindMarks
from gui.widgets.transcript_stretch import Look, Prefetcher, RenderLater

if TYPE_CHECKING:
    from core.render.reading import ContextCards, PathCards

__all__ = ["MAX_IMAGE_WIDTH", "TranscriptView"]

MAX_IMAGE_WIDTH = 480  # px, as core.render sizes the <img> tags
IMAGES_BEFORE_RELAY = 24  # images cached by the document before the same cards are laid out afresh
# Qt's document keeps every text format it was ever given until it is cleared, and each card brings a few
# of its own (its frame's, its links'): about 3 KB a card, 170 MB on the way up a 50,000-message path.
# The cards shown are laid out again in a fresh document when the reader pauses after this many...
CARDS_BEFORE_RELAY = 500
CARDS_BEFORE_FORCED_RELAY = 2_000  # ...and at once after this many (Page Up held for minutes)
_EXTERNAL_SCHEMES = ("http", "https", "mailto")
_TOP_GAP = 6  # px above a card scrolled to the top of the viewport


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
        self._frames = CardFrames(self.document(), self.palette().highlight().color())
        self._expanded: set[str] = set()
        self._unfold_all = False
        self._images = 0  # images the document has cached since it was last cleared
        self._all_selected = False
        self._press_position = -1  # document position of the last mouse press (which card a link is in)
        self._dark = is_dark()
        self.marks = FindMarks(self)
        self._window = CardWindow(
            self._frames,
            self.verticalScrollBar(),
            Prefetcher(on_ready=self._schedule_fill),
            lambda: self.viewport().height(),
        )
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
        return self._window.lo, self._window.hi

    @property
    def rendered_slots(self) -> list[int]:
        """The slots of the cards in the document, in order."""
        return [span.slot for span in self._frames.spans]

    @property
    def current_slot(self) -> int | None:
        """The marked slot (the tree's selected entry), if any."""
        return self._frames.marked

    @property
    def expanded(self) -> frozenset[str]:
        """Keys of the folds shown open."""
        return frozenset(self._expanded)

    def set_render_later(self, render_later: RenderLater | None) -> None:
        """How stretches are rendered ahead off the GUI thread (the controller's runner); None: never."""
        self._window.prefetch.render_later = render_later

    def set_unfold_all(self, on: bool) -> None:
        """Show every fold open (and nothing cut), or as the reader left them."""
        if on != self._unfold_all:
            self._unfold_all = on
            self.rebuild()

    def show_page(self, page: str) -> None:
        """Show a page that is not a transcript (the empty state, a sentence saying why not)."""
        self._source = self._window.source = None
        self._window.lo = self._window.hi = 0
        self._frames.marked = None
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
        self._source = self._window.source = source
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
        self._source = self._window.source = source
        if old is None or not self._frames.spans:
            self.set_source(source, len(source) - 1)
            return
        bar = self.verticalScrollBar()
        at_bottom = bar.value() >= bar.maximum() - 4
        self._window.grow(len(old), self._look())
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
        span = self._frames.at_or_before(slot)
        if span is None or not (self._window.lo <= slot < self._window.hi):
            self._rebuild_at(slot, _TOP_GAP, False)
            return
        top = self._frames.top(span)
        self.verticalScrollBar().setValue(max(0, int(top) - _TOP_GAP))
        self._schedule_fill()

    def set_current(self, slot: int | None) -> None:
        """Mark the card of ``slot`` (the tree's selected entry), unmarking the one marked before."""
        if slot != self._frames.marked:
            self._frames.mark(slot)

    def reading_slot(self) -> int | None:
        """The slot of the card at the top of the viewport (None when no card is shown)."""
        return self._frames.slot_at_y(self.verticalScrollBar().value() + _TOP_GAP + 1)

    def visible_slots(self) -> list[int]:
        """The slots of the cards in the viewport, wholly or in part."""
        top = self.verticalScrollBar().value()
        return self._frames.between(top, top + self.viewport().height())

    def slot_at(self, position: int) -> int | None:
        """The slot of the card holding document ``position``, None outside every card."""
        return self._frames.slot_at(position)

    def span_range(self, slot: int) -> tuple[int, int] | None:
        """The document positions ``(first, last)`` of the card showing ``slot`` (None: not rendered).

        A tool result shown under its call is in the call's card.
        """
        window = self._window
        span = self._frames.at_or_before(slot) if window.lo <= slot < window.hi else None
        return (span.frame.firstPosition(), span.frame.lastPosition()) if span is not None else None

    def switcher_block(self, slot: int) -> int:
        """The position of the branch switcher line of the card of ``slot``, -1 when it has none."""
        return self._frames.switcher_block(slot)

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
        bar = self.verticalScrollBar()
        value = bar.value()
        if self._frames.replace(slot, self._window.render(slot, slot + 1, self._look())):
            bar.setValue(value)
            self.marks.refresh()

    # ------------------------------------------------------------------ the window
    def _rebuild_at(self, slot: int, offset: int, bottom: bool) -> None:
        """A new window around ``slot``, its card ``offset`` px below the top (or the end at the bottom)."""
        self._clear_document()
        source, window = self._source, self._window
        if source is None or not len(source):
            window.lo = window.hi = 0
            self.setHtml("<p>Nothing to show in this filter mode.</p>" if source is not None else "")
            return
        window.start(slot, self._look(), bottom)
        bar = self.verticalScrollBar()
        if bottom:
            bar.setValue(bar.maximum())
        else:
            span = self._frames.at_or_before(slot)
            top = self._frames.top(span) if span is not None else 0.0
            bar.setValue(max(0, int(top) - offset))
        self.marks.refresh()
        self._schedule_fill()
        self._schedule_reading()

    def _fill(self) -> None:
        """One step of the window (:meth:`CardWindow.fill`, then what is far dropped); again next turn."""
        window, look = self._window, self._look()
        did = window.fill(look)
        dropped = window.trim(max(1, self.viewport().height()))
        if did or dropped:
            self.marks.refresh()
            self._fill_timer.start()
        if dropped and (
            self._images > IMAGES_BEFORE_RELAY or self._frames.inserted > CARDS_BEFORE_FORCED_RELAY
        ):
            QTimer.singleShot(0, self, self._relay)  # let the document's cached images and formats go
        window.ask_ahead(look)  # what comes next is rendered in a worker while the reader reads

    def _look(self) -> Look:
        marks = self.marks
        return Look(frozenset(self._expanded), self._dark, self._unfold_all, marks.needle, marks.found_slots)

    def _clear_document(self) -> None:
        document = self.document()
        document.clear()  # drops the images it cached too
        self._frames.forget()
        # Cards come and go as the reader scrolls: an undo stack would keep every one of them.
        document.setUndoRedoEnabled(False)
        document.setDefaultStyleSheet(stylesheet(self._dark))
        self._images = 0
        self._all_selected = False

    def _anchor(self) -> tuple[int, int]:
        """The card at the top of the viewport and how far below the top its frame starts (< 0: above)."""
        slot = self.reading_slot()
        if slot is None:
            return self._frames.marked or 0, _TOP_GAP
        span = self._frames.at_or_before(slot)
        top = self._frames.top(span) if span is not None else 0.0
        return slot, int(top) - self.verticalScrollBar().value()

    # ------------------------------------------------------------------ reading position
    def _on_scrolled(self, _value: int) -> None:
        if not self._window.adjusting:
            self._schedule_fill()
            self._schedule_reading()

    def _schedule_fill(self) -> None:
        if not self._fill_timer.isActive():
            self._fill_timer.start()

    def _schedule_reading(self) -> None:
        self._reading_timer.start()  # restarted on each step: reported once scrolling pauses

    def _emit_reading(self) -> None:
        if self._frames.inserted > CARDS_BEFORE_RELAY:
            self._relay()  # the reader paused: the moment for it
        slot = self.reading_slot()
        if slot is not None:
            self.reading_changed.emit(slot)

    def _relay(self) -> None:
        """The cards of the window laid out again, unchanged, in a fresh document, the reader's place kept.

        Only a cleared document lets go of its formats and cached images. The cards' HTML is kept with
        their spans, so nothing is rendered again, and only a screen of them goes in at once.
        """
        spans = self._frames.spans
        if not spans or self._source is None or self.textCursor().hasSelection():
            return  # a selection would be lost: later
        slot, offset = self._anchor()
        cards = [span.card for span in spans]
        self._clear_document()
        self._window.relay(cards, slot, offset)
        self.marks.refresh()
        self._schedule_fill()

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
                slot = self._frames.slot_of_fold(key, position)
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
        self._frames.highlight = self.palette().highlight().color()
        self.rebuild()

    def viewport_point(self, slot: int) -> QPoint | None:
        """Where the card of ``slot`` starts, in viewport coordinates (a menu opens there), if rendered."""
        span = self._frames.at_or_before(slot)
        if span is None:
            return None
        return QPoint(8, int(self._frames.top(span)) - self.verticalScrollBar().value() + 16)
