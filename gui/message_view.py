"""The message pane: one entry rendered by ``core.render`` in a ``QTextBrowser``.

Links are never followed by Qt itself: ``action:toggle/KEY`` expands or collapses a block and renders again,
other ``action:`` links are re-emitted as :attr:`MessageView.action_requested`, ``http(s)``/``mailto`` links
go to the desktop only when clicked. ``loadResource`` answers ``image:ENTRY/N`` from the session file and
nothing else, so the document never loads a remote (or local) resource by itself.
"""

from __future__ import annotations

import html
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import Qt, QUrl, Signal
from PySide6.QtGui import QDesktopServices, QGuiApplication, QImage, QTextDocument
from PySide6.QtWidgets import QTextBrowser, QWidget

from core.render import (
    RenderOptions,
    image_bytes,
    parse_action,
    parse_image_src,
    render_entry,
    stylesheet,
    tool_results_for,
)

if TYPE_CHECKING:
    from core.entry import Entry
    from core.session import Session

__all__ = ["MAX_IMAGE_WIDTH", "MessageView", "is_dark"]

MAX_IMAGE_WIDTH = 480  # px, as core.render sizes the <img> tags
_EXTERNAL_SCHEMES = ("http", "https", "mailto")


def is_dark() -> bool:
    """Whether the platform's colour scheme is dark."""
    return QGuiApplication.styleHints().colorScheme() == Qt.ColorScheme.Dark


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

    def show_entry(self, session: Session | None, entry: Entry | None) -> None:
        """Render ``entry`` of ``session`` (tool calls with their results); None clears the view."""
        if session is not self._session:
            self._expanded.clear()  # keys are per entry id; a new session starts collapsed
        self._session, self._entry = session, entry
        self.rerender()

    def show_html(self, html: str) -> None:
        """Show a page that is not an entry (the empty state, an error)."""
        self._session, self._entry = None, None
        self.setHtml(html)

    def rerender(self) -> None:
        """Render the current entry again, keeping the scroll position."""
        session, entry = self._session, self._entry
        if session is None or entry is None:
            self.clear()
            return
        bar = self.verticalScrollBar()
        position = bar.value()
        try:
            body = session.body(entry)
            results = tool_results_for(session, entry)
        except Exception as err:  # a file that changed underneath; the tree shows the rest
            self.setHtml(f"<p>Cannot read this entry: {html.escape(str(err))}</p>")
            return
        options = RenderOptions(expanded=frozenset(self._expanded), dark=self._dark)
        self.setHtml(render_entry(entry, body, results, options))
        bar.setValue(position)

    # ------------------------------------------------------------------ Qt overrides
    def loadResource(self, type: int, name: QUrl) -> Any:
        """Images of the session only (``image:ENTRY/N``), scaled to at most 480 px wide; nothing else."""
        if type != QTextDocument.ResourceType.ImageResource or self._session is None:
            return None
        parsed = parse_image_src(name.toString(QUrl.ComponentFormattingOption.FullyEncoded))
        if parsed is None:
            return None
        entry_id, index = parsed
        entry = self._session.get(entry_id)
        if entry is None:
            return None
        try:
            decoded = image_bytes(self._session.body(entry), index)
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

    # ------------------------------------------------------------------ slots
    def _on_anchor_clicked(self, url: QUrl) -> None:
        href = url.toString(QUrl.ComponentFormattingOption.FullyEncoded)
        action = parse_action(href)
        if action is not None:
            verb, key = action
            if verb == "toggle":
                self._expanded.symmetric_difference_update({key})
                self.rerender()
            else:
                self.action_requested.emit(verb, key)
            return
        if url.scheme().lower() in _EXTERNAL_SCHEMES:
            QDesktopServices.openUrl(url)

    def _on_color_scheme_changed(self, *_args: object) -> None:
        dark = is_dark()
        if dark == self._dark:
            return
        self._dark = dark
        self.document().setDefaultStyleSheet(stylesheet(dark))
        if self._entry is not None:
            self.rerender()
