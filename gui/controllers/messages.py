"""The message pane: the selected entry rendered, or what the model saw there, or a page saying why not.

The pane shows the entry the open-session controller reports (``entry_shown``); with *What the model saw*
on, it builds the context at that entry in a worker (channel ``"context"``) and shows it as a
conversation. Between sessions it shows the state of the list: reading, empty (where sessions were looked
for, with a link to the demo sessions) or a sentence saying why a file cannot be read.
"""

from __future__ import annotations

import html
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Signal
from PySide6.QtWidgets import QCheckBox

from gui.controllers.context import WindowContext
from gui.errors import user_sentence
from gui.scheduling import Priority
from gui.widgets.message_view import MessageView

if TYPE_CHECKING:
    from core.session import Entry, Session

__all__ = ["MessagePaneController"]


def _context_messages(session: Session, entry_id: str | None) -> list[object]:
    """Worker: the messages the model saw at ``entry_id`` (reads many bodies; a damaged one is not a dict)."""
    from core.session import build_context

    return build_context(session, entry_id)["messages"]


class MessagePaneController(QObject):
    """Owns the message view and the *What the model saw* toggle."""

    context_shown = Signal(int)  # number of messages in the context shown in context mode
    demo_requested = Signal()  # the empty page's "Open the demo sessions" link
    entry_requested = Signal(str)  # a link to another entry of the session (a context edit's target)

    def __init__(self, context: WindowContext, view: MessageView, context_toggle: QCheckBox) -> None:
        super().__init__(context)
        self._context = context
        self.view = view
        self._toggle = context_toggle
        self._session: Session | None = None
        self._entry: Entry | None = None
        context_toggle.toggled.connect(self._on_context_toggled)
        view.action_requested.connect(self._on_view_action)
        context.load_failed.connect(self._show_load_error)

    @property
    def context_mode(self) -> bool:
        """Whether the view shows what the model saw at the selected entry."""
        return self._toggle.isChecked()

    def show(self, session: Session | None, entry: Entry | None) -> None:
        """Show ``entry`` of ``session`` (or what the model saw there, in context mode)."""
        self._session, self._entry = session, entry
        if entry is None or session is None:
            self.view.show_entry(None, None)
        elif self.context_mode:
            self._show_context(session, entry)
        else:
            self.view.show_entry(session, entry)

    def show_page(self, page: str) -> None:
        """Show a page that is not an entry (HTML)."""
        self.view.show_html(page)

    def show_list_state(self, *, rows: int, roots: list[Path], load_error: str | None) -> None:
        """After a catalogue pass with no session open: the empty state, or a hint to pick a session."""
        if load_error is not None:
            return  # the sentence saying why the file cannot be read stays in view
        if rows == 0:
            items = "".join(f"<li><code>{html.escape(str(root))}</code></li>" for root in roots)
            self.show_page(
                "<h2>No sessions found</h2>"
                "<p>Sessions are looked for in:</p>"
                f"<ul>{items}</ul>"
                "<p>Set <code>PRIME_AGENT_DIR</code> or <code>PI_CODING_AGENT_DIR</code>, open a folder or a "
                "<code>.jsonl</code> file from the command line, or try the bundled examples:</p>"
                '<p><a href="action:open/demo"><b>Open the demo sessions</b></a></p>'
            )
        elif self.view.entry is None:
            self.show_page("<p>Select a session on the left.</p>")

    def _show_load_error(self, sentence: str) -> None:
        self.show_page(f"<p>{html.escape(sentence)}</p>")

    def _on_context_toggled(self, _checked: bool) -> None:
        session, entry = self._session, self._entry
        if entry is None or session is None:
            self._context.runner.cancel("context")
            return
        if self.context_mode:
            self._show_context(session, entry)
        else:
            self._context.runner.cancel("context")
            self.view.show_entry(session, entry)

    def _show_context(self, session: Session, entry: Entry) -> None:
        """Build the context at ``entry`` in a worker and show it (a newer request drops this one)."""
        status, entry_id = self._context.status, entry.id
        status.showMessage("Reading what the model saw…")

        def current() -> bool:  # still what is selected when the result arrives
            shown = self._entry
            return (
                self.context_mode and self._session is session and shown is not None and shown.id == entry_id
            )

        def built(messages: list[object]) -> None:
            if not current():
                return  # the selection moved on
            self.view.show_context(session, entry, messages)
            count = len(messages)
            status.showMessage(f"The model saw {count} {'message' if count == 1 else 'messages'}")
            self.context_shown.emit(count)

        def failed(error: Exception) -> None:
            self.view.show_html(f"<p>{html.escape(user_sentence(error))}</p>")
            status.showMessage(user_sentence(error))

        self._context.runner.start(
            "context",
            lambda _task: _context_messages(session, entry_id),
            built,
            failed,
            priority=Priority.FOREGROUND,
        )

    def _on_view_action(self, verb: str, key: str) -> None:
        if verb == "open" and key == "demo":
            self.demo_requested.emit()
        elif verb == "entry" and key:
            self.entry_requested.emit(key)
