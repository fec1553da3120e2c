"""The message pane: one entry rendered by ``core.render`` in a ``QTextBrowser``.

Links are never followed by Qt itself: ``action:toggle/KEY`` expands or collapses a block and renders again,
other ``action:`` links (``action:entry/ID``: a context edit's target...) are re-emitted as
:attr:`MessageView.action_requested`, ``http(s)``/``mailto`` links go to the desktop only when clicked.
``loadResource`` answers ``image:ENTRY/N`` from the session file and nothing else, so the document never
loads a remote (or local) resource by itself. In context mode a message whose content a context edit
replaced says so above its card.
"""

from __future__ import annotations

import html
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QEvent, Qt, QUrl, Signal
from PySide6.QtGui import QDesktopServices, QGuiApplication, QImage, QTextDocument
from PySide6.QtWidgets import QTextBrowser, QWidget

from core.kinds import context_edit_marks, session_notes, tool_results_for
from core.kinds.cards import CONTEXT_PREFIX, context_cards
from core.kinds.notes import EditNote
from core.render import (
    RenderOptions,
    image_bytes,
    parse_action,
    parse_image_src,
    render_card,
    render_entry,
    stylesheet,
)
from core.session import Entry
from gui.theme import is_dark

if TYPE_CHECKING:
    from core.session import Session

__all__ = ["CONTEXT_WINDOW", "MAX_IMAGE_WIDTH", "MessageView", "is_dark"]

MAX_IMAGE_WIDTH = 480  # px, as core.render sizes the <img> tags
CONTEXT_WINDOW = 200  # context messages rendered at first, and added by each "earlier" link
_EXTERNAL_SCHEMES = ("http", "https", "mailto")


class MessageView(QTextBrowser):
    """Shows one entry of a session; collapsible blocks toggle in place."""

    action_requested = Signal(str, str)  # verb, key of an ``action:VERB/KEY`` link other than toggle

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setOpenLinks(False)
        self.setOpenExternalLinks(False)
        self._session: Session | None = None
        self._entry: Entry | None = None
        self._expanded: set[str] = set()
        self._context: list[object] | None = None  # the messages of context mode, None otherwise
        self._edited: list[EditNote | None] = []  # per context message: the edit whose content it shows
        self._context_start = 0  # index of the first context message rendered
        self._dark = is_dark()
        self.document().setDefaultStyleSheet(stylesheet(self._dark))
        self.anchorClicked.connect(self._on_anchor_clicked)
        QGuiApplication.styleHints().colorSchemeChanged.connect(self._on_color_scheme_changed)

    # ------------------------------------------------------------------ public API
    @property
    def session(self) -> Session | None:
        """The session of the entry shown, if any."""
        return self._session

    @property
    def entry(self) -> Entry | None:
        """The entry shown, if any."""
        return self._entry

    @property
    def expanded(self) -> frozenset[str]:
        """Keys of the blocks shown in full."""
        return frozenset(self._expanded)

    @property
    def context_messages(self) -> list[object] | None:
        """The messages shown in context mode (all of them, not only those rendered), else None."""
        return self._context

    @property
    def context_start(self) -> int:
        """Index of the first context message rendered (the ones before wait for the "earlier" link)."""
        return self._context_start

    def show_entry(self, session: Session | None, entry: Entry | None) -> None:
        """Render ``entry`` of ``session`` (tool calls with their results); None clears the view."""
        if session is not self._session or self._context is not None:
            self._expanded.clear()  # keys are per entry id; a new session starts collapsed
        self._context = None
        self._session, self._entry = session, entry
        self.rerender()

    def show_context(self, session: Session, entry: Entry | None, messages: list[object]) -> None:
        """Render ``messages`` (what the model saw at ``entry``) as a conversation, the last ones first.

        Only the last :data:`CONTEXT_WINDOW` messages are rendered; an ``action:more/context`` link at the
        top renders the previous window in front of them. A message that is not an object (a damaged line
        the reference passes through) is shown as an empty one.
        """
        self._expanded.clear()
        self._session, self._entry = session, entry
        self._context = list(messages)
        try:
            marks = context_edit_marks(session, entry.id if entry is not None else None, self._context)
        except Exception:  # a file that changed underneath: the messages are shown unmarked
            marks = [None] * len(self._context)
        self._edited = marks
        self._context_start = max(0, len(self._context) - CONTEXT_WINDOW)
        self.rerender()
        bar = self.verticalScrollBar()
        bar.setValue(bar.maximum())  # the newest message is where the model was

    def show_earlier(self) -> bool:
        """Render the previous window of context messages in front of those shown; False when none."""
        if self._context is None or self._context_start == 0:
            return False
        bar = self.verticalScrollBar()
        from_bottom = bar.maximum() - bar.value()
        self._context_start = max(0, self._context_start - CONTEXT_WINDOW)
        self.rerender()
        bar.setValue(max(0, bar.maximum() - from_bottom))  # the messages that were in view stay there
        return True

    def show_html(self, html: str) -> None:
        """Show a page that is not an entry (the empty state, an error)."""
        self._session, self._entry, self._context = None, None, None
        self.setHtml(html)

    def rerender(self) -> None:
        """Render the current entry again, keeping the scroll position."""
        if self._context is not None:
            bar = self.verticalScrollBar()
            position = bar.value()
            self.setHtml(self._render_context())
            bar.setValue(position)
            return
        session, entry = self._session, self._entry
        if session is None or entry is None:
            self.clear()
            return
        bar = self.verticalScrollBar()
        position = bar.value()
        try:
            body = session.body(entry)
            results = tool_results_for(session, entry)
            notes = session_notes(session).for_card(entry.id, results)  # later context edits, child runs
        except Exception as err:  # a file that changed underneath; the tree shows the rest
            self.setHtml(f"<p>Cannot read this entry: {html.escape(str(err))}</p>")
            return
        options = RenderOptions(expanded=frozenset(self._expanded), dark=self._dark)
        self.setHtml(render_entry(entry, body, results, options, notes, session.label_for(entry.id)))
        bar.setValue(position)

    def _render_context(self) -> str:
        messages = self._context or []
        start = self._context_start
        options = RenderOptions(expanded=frozenset(self._expanded), dark=self._dark)
        parts: list[str] = []
        if start > 0:
            count = min(CONTEXT_WINDOW, start)
            parts.append(
                f'<p><a href="action:more/context">Show {count} earlier messages</a> ({start} not shown)</p>'
            )
        elif not messages:
            parts.append("<p>The model saw no messages at this entry.</p>")
        cards = context_cards(messages, self._edited)
        parts.extend(render_card(made, options) for index, made in cards if index >= start)
        return "".join(parts)

    # ------------------------------------------------------------------ Qt overrides
    def loadResource(self, type: int, name: QUrl | str) -> Any:
        """Images of the session only (``image:ENTRY/N``), scaled to at most 480 px wide; nothing else."""
        if type != QTextDocument.ResourceType.ImageResource or self._session is None:
            return None
        url = name if isinstance(name, QUrl) else QUrl(name)
        parsed = parse_image_src(url.toString(QUrl.ComponentFormattingOption.FullyEncoded))
        if parsed is None:
            return None
        entry_id, index = parsed
        try:
            body = self._context_body(entry_id)
            if body is None:
                entry = self._session.get(entry_id)
                if entry is None:
                    return None
                body = self._session.body(entry)
            decoded = image_bytes(body, index)
        except Exception:  # a changed file: the image is shown as missing
            return None
        if decoded is None:
            return None
        image = QImage.fromData(decoded[0])
        if image.isNull():
            return None
        if image.width() > MAX_IMAGE_WIDTH:
            image = image.scaledToWidth(MAX_IMAGE_WIDTH, Qt.TransformationMode.SmoothTransformation)
        return image

    def _context_body(self, entry_id: str) -> dict[str, object] | None:
        """The stand-in body of a context message's image link, None for any other id."""
        if self._context is None or not entry_id.startswith(CONTEXT_PREFIX):
            return None
        try:
            index = int(entry_id[len(CONTEXT_PREFIX) :])
        except ValueError:
            return None
        if 0 <= index < len(self._context):
            return {"message": self._context[index]}
        return None

    # ------------------------------------------------------------------ slots
    def _on_anchor_clicked(self, url: QUrl) -> None:
        href = url.toString(QUrl.ComponentFormattingOption.FullyEncoded)
        action = parse_action(href)
        if action is not None:
            verb, key = action
            if verb == "toggle":
                self._expanded.symmetric_difference_update({key})
                self.rerender()
            elif verb == "more" and key == "context":
                self.show_earlier()
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
        if self._entry is not None or self._context is not None:
            self.rerender()
