"""The transcript pane: the conversation of the selected entry, what the model saw there, find, copy.

The pane shows the transcript of the path through the entry the open-session controller reports
(``entry_shown``): the conversation from its root to the leaf of the branch the entry lies on, each entry
the tree's filter mode shows a card (:func:`core.visible.transcript_of`). An entry on the path shown is
scrolled to and marked; another one brings its own path. A session opens at its last user or assistant
message. Where the path passes a branch point, the card's switcher follows another branch in place, and
the tree follows it. The card at the top of the viewport is reported (:attr:`reading_entry`) so the tree
can mark it "you are here".

With *What the model saw* on, the same view shows the context at the selected entry, built in a worker
(channel ``"context"``). Find counts every card of the source in a worker (channel ``"find"``). Between
sessions the pane shows the state of the list: reading, empty (with a link to the demo sessions) or a
sentence saying why a file cannot be read.
"""

from __future__ import annotations

import html
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Signal
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QCheckBox, QMenu

from core.render.reading import ContextCards, PathCards
from core.visible.transcript import Switch, Transcript, branch_previews, switched_leaf, transcript_of
from gui.actions import ActionRegistry
from gui.controllers.context import Change, SessionChanged, WindowContext
from gui.controllers.transcript_find import TranscriptFind
from gui.errors import user_sentence
from gui.scheduling import Priority
from gui.widgets.find_bar import FindBar
from gui.widgets.transcript_view import TranscriptView

if TYPE_CHECKING:
    from core.session import Entry, RefreshResult, Session

__all__ = ["TranscriptController"]


def _context_source(session: Session, entry_id: str | None) -> ContextCards:
    """Worker: what the model saw at ``entry_id``, with the context edits that replaced its messages."""
    from core.kinds import context_edit_marks
    from core.session import build_context

    messages = build_context(session, entry_id)["messages"]
    try:
        marks = context_edit_marks(session, entry_id, messages)
    except Exception:  # a file that changed underneath: the messages are shown unmarked
        marks = [None] * len(messages)
    return ContextCards(session, messages, marks)


def _label_targets(entries: list[Entry]) -> list[str]:
    """The entries the label entries among ``entries`` label (their cards show the label)."""
    from core.session.entry import LabelInfo

    return [
        e.info.target for e in entries if isinstance(e.info, LabelInfo) and isinstance(e.info.target, str)
    ]


def _extends(old: Transcript, new: Transcript) -> bool:
    """Whether ``new`` holds ``old``'s slots and more after them (the session grew at the leaf)."""
    if len(new) <= len(old) or old.mode != new.mode:
        return False
    return not old.entries or new.entries[len(old) - 1].id == old.entries[-1].id


class TranscriptController(QObject):
    """Owns the transcript view, the *What the model saw* toggle and the find bar."""

    context_shown = Signal(int)  # number of messages in the context shown in context mode
    demo_requested = Signal()  # the empty page's "Open the demo sessions" link
    entry_requested = Signal(str)  # select this entry in the tree (a link, Show in Tree)
    follow_requested = Signal(str)  # select this entry in the tree; the transcript stays where it is
    reading_entry = Signal(str)  # the entry whose card is at the top of the transcript

    def __init__(
        self,
        context: WindowContext,
        view: TranscriptView,
        find_bar: FindBar,
        context_toggle: QCheckBox,
        actions: ActionRegistry,
        *,
        filter_mode: Callable[[], str],
    ) -> None:
        super().__init__(context)
        self._context = context
        self.view = view
        self.find_bar = find_bar
        self._toggle = context_toggle
        self._filter_mode = filter_mode
        self._session: Session | None = None
        self._entry: Entry | None = None
        # The child sessions the shown session's cards were rendered with (a live parent gains some).
        self._launches: tuple[Session, dict[str, object]] | None = None
        self._transcript: Transcript | None = None  # the path shown (kept in context mode too)
        self._follow: str | None = None  # an entry selected in the tree on the transcript's behalf
        context_toggle.toggled.connect(self._on_context_toggled)
        view.action_requested.connect(self._on_view_action)
        view.reading_changed.connect(self._on_reading_changed)
        view.copy_all_requested.connect(self.copy_all)
        view.copy_card_requested.connect(self.copy_card)
        view.show_in_tree_requested.connect(self._show_in_tree)
        self.find = TranscriptFind(context, view, find_bar)
        view.set_render_later(self._render_later)
        context.load_failed.connect(self._show_load_error)
        context.session_updated.connect(self._on_session_updated)
        context.session_changed.connect(self._on_session_changed)
        self._add_actions(actions)

    def _add_actions(self, actions: ActionRegistry) -> None:
        has_cards = lambda: self.view.card_source is not None  # noqa: E731
        actions.add(
            "edit.find_in_session",
            "Find in &Session…",
            self.find.open,
            tip="Find in the open session's transcript (Ctrl+F in the tree or the transcript)",
            menu="Edit",
            section="find",
            enabled=has_cards,
        )
        for name, text, shortcut, step in (
            ("edit.find_next", "Find &Next", "F3", 1),
            ("edit.find_previous", "Find Pre&vious", "Shift+F3", -1),
        ):
            actions.add(
                name,
                text,
                partial(self.find.step, step),
                shortcut=shortcut,
                menu="Edit",
                section="find",
                enabled=has_cards,
            )
        actions.add(
            "edit.copy_transcript",
            "Copy &Transcript as Markdown",
            self.copy_all,
            tip="The whole path shown (every card, not only those in view), as the Markdown export writes it",
            menu="Edit",
            section="copy",
            enabled=lambda: isinstance(self.view.card_source, PathCards),
        )
        actions.add_toggle(
            "view.unfold_all",
            "&Unfold Everything",
            self.view.set_unfold_all,
            tip="Show every thinking block, tool output and long file open in the transcript",
            menu="View",
            section="read",
        )

    def _render_later(self, channel: str, work: Callable[[], object], done: Callable[[object], None]) -> None:
        """The view's stretches rendered ahead, in a worker of the window's scheduler."""
        # A stretch asked for and superseded before its turn (the reader moved on) is not rendered at all:
        # while Page Up is held most of them are, and rendering them took the processor from the view.
        self._context.runner.start(
            channel, lambda task: None if task.cancelled else work(), done, priority=Priority.FOREGROUND
        )

    # ------------------------------------------------------------------ state
    @property
    def context_mode(self) -> bool:
        """Whether the view shows what the model saw at the selected entry."""
        return self._toggle.isChecked()

    @property
    def transcript(self) -> Transcript | None:
        """The conversation the pane shows (or showed, before context mode)."""
        return self._transcript

    def reading_entry_id(self) -> str | None:
        """The entry whose card is at the top of the transcript (None in context mode)."""
        source, slot = self.view.card_source, self.view.reading_slot()
        return source.entry_id(slot) if source is not None and slot is not None else None

    # ------------------------------------------------------------------ showing
    def show(self, session: Session | None, entry: Entry | None) -> None:
        """Show the transcript through ``entry`` of ``session`` (or what the model saw there)."""
        previous = self._session
        self._session, self._entry = session, entry
        if session is not None and (self._launches is None or self._launches[0] is not session):
            self._launches = (session, dict(session.child_sessions))
        if session is None or entry is None:
            self._transcript = None
            if session is None:
                self.view.show_page("")
                self.find.close()
            return
        if self.context_mode:
            self._show_context(session, entry)
            return
        quiet, self._follow = self._follow == entry.id, None
        new_session = previous is None or previous.path != session.path
        self._show_path(session, entry, quiet=quiet, new_session=new_session)

    def _show_path(self, session: Session, entry: Entry, *, quiet: bool, new_session: bool) -> None:
        mode = self._filter_mode()
        old, view = self._transcript, self.view
        shown = isinstance(view.card_source, PathCards) and view.card_source.session is session
        if not new_session and shown and old is not None and old.mode == mode and old.on_path(entry.id):
            slot = old.nearest_slot(entry.id)
            if slot is not None:
                if quiet:
                    view.set_current(slot)
                else:
                    view.scroll_to_slot(slot)
            return
        new = transcript_of(session, entry.id, mode)
        source = PathCards(session, new)
        self._transcript = new
        if not new_session and shown and old is not None and _extends(old, new):
            view.extend(source)  # the session grew at the leaf the transcript follows
            view.set_current(new.nearest_slot(entry.id))
            self.find.recount()
            return
        at_leaf = new_session and entry.id == session.leaf_id
        slot = new.last_turn() if at_leaf else new.nearest_slot(entry.id)  # a session opens at its last turn
        view.set_current(new.nearest_slot(entry.id))
        view.set_source(source, slot)
        self.find.recount()

    def _show_context(self, session: Session, entry: Entry) -> None:
        """Build the context at ``entry`` in a worker and show it (a newer request drops this one)."""
        status, entry_id = self._context.status, entry.id
        status.showMessage("Reading what the model saw…")

        def current() -> bool:  # still what is selected when the result arrives
            shown = self._entry
            return (
                self.context_mode and self._session is session and shown is not None and shown.id == entry_id
            )

        def built(source: ContextCards) -> None:
            if not current():
                return  # the selection moved on
            self.view.set_current(None)
            self.view.set_source(source, bottom=True)  # the newest message is where the model was
            count = len(source)
            status.showMessage(f"The model saw {count} {'message' if count == 1 else 'messages'}")
            self.context_shown.emit(count)
            self.find.recount()

        def failed(error: Exception) -> None:
            self.view.show_page(f"<p>{html.escape(user_sentence(error))}</p>")
            status.showMessage(user_sentence(error))

        self._context.runner.start(
            "context",
            lambda _task: _context_source(session, entry_id),
            built,
            failed,
            priority=Priority.FOREGROUND,
        )

    def _on_context_toggled(self, _checked: bool) -> None:
        session, entry = self._session, self._entry
        self._context.runner.cancel("context")
        if entry is None or session is None:
            return
        if self.context_mode:
            self._show_context(session, entry)
        else:
            self._transcript = None  # the path is laid out again at the selected entry
            self._show_path(session, entry, quiet=False, new_session=False)

    # ------------------------------------------------------------------ pages between sessions
    def show_page(self, page: str) -> None:
        """Show a page that is not a transcript (HTML)."""
        self._transcript = None
        self.find.close()
        self.view.show_page(page)

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
        elif self.view.card_source is None:
            self.show_page("<p>Select a session on the left.</p>")

    def _show_load_error(self, sentence: str) -> None:
        self.show_page(f"<p>{html.escape(sentence)}</p>")

    # ------------------------------------------------------------------ following the file
    def _on_session_updated(self, result: RefreshResult) -> None:
        """The open session's file changed: a reloaded file is laid out again; new labels show on cards."""
        session, entry = self._session, self._entry
        if session is None or entry is None or self.context_mode:
            return
        if result.reloaded:
            self._transcript = None
            reading = self.reading_entry_id()
            self._show_path(session, entry, quiet=True, new_session=False)
            shown = self.transcript  # laid out again just now
            slot = shown.nearest_slot(reading) if shown is not None else None
            if slot is not None:
                self.view.scroll_to_slot(slot, mark=False)
            return
        self._grow(session)
        self._relabel(_label_targets(result.appended) + self._launches_changed(session))

    def _launches_changed(self, session: Session) -> list[str]:
        """The entries whose child sessions changed since their cards were rendered (a live parent)."""
        seen, self._launches = self._launches, (session, dict(session.child_sessions))
        if seen is None or seen[0] is not session:
            return []
        before, now = seen[1], session.child_sessions
        return [eid for eid in set(before) | set(now) if before.get(eid) != now.get(eid)]

    def _on_session_changed(self, change: SessionChanged) -> None:
        if change.session is not self._session or self._session is None:
            return
        if change.what is Change.LABEL and change.entry_id is not None:
            self._relabel([change.entry_id])
        if change.appended and not self.context_mode:
            self._grow(self._session)

    def _grow(self, session: Session) -> None:
        """The path shown ends at a leaf that now has entries below it: add their cards."""
        old = self._transcript
        if old is None or old.leaf_id is None or not isinstance(self.view.card_source, PathCards):
            return
        new = transcript_of(session, old.leaf_id, old.mode)
        if _extends(old, new):
            self._transcript = new
            self.view.extend(PathCards(session, new))
            self.find.recount()

    def _relabel(self, entry_ids: list[str]) -> None:
        """Render the cards of entries whose label changed again."""
        transcript = self._transcript
        if transcript is None or not isinstance(self.view.card_source, PathCards):
            return
        for entry_id in entry_ids:
            slot = transcript.slot_of(entry_id)
            if slot is not None:
                self.view.rerender_slot(slot)

    # ------------------------------------------------------------------ reading position and branches
    def _on_reading_changed(self, slot: int) -> None:
        source = self.view.card_source
        entry_id = source.entry_id(slot) if source is not None else None
        if entry_id is not None:
            self.reading_entry.emit(entry_id)

    def _on_view_action(self, verb: str, key: str) -> None:
        if verb == "open" and key == "demo":
            self.demo_requested.emit()
        elif verb == "entry" and key:
            self.entry_requested.emit(key)
        elif verb == "branch":
            step, _, entry_id = key.partition("/")
            self.switch_branch(entry_id, step)
        elif verb == "session" and key:  # a child session the entry launched
            self._context.open_session(key)

    def switch_branch(self, entry_id: str, step: str | int) -> bool:
        """Follow another branch at the branch point whose switcher is on ``entry_id``'s card.

        ``step`` is ``"prev"``, ``"next"``, ``"menu"`` (choose from the siblings' first words) or a sibling's
        index. The transcript is laid out again below that point along the new branch to its leaf, the
        switcher staying where it was on screen; the tree selects the new branch's first entry.
        """
        transcript, session = self._transcript, self._session
        if transcript is None or session is None:
            return False
        switch = transcript.switches.get(entry_id)
        slot = transcript.slot_of(entry_id)
        if switch is None or slot is None:
            return False
        if step == "menu":
            chosen = self._choose_branch(session, switch, slot)
            if chosen is None:
                return False
            index = chosen
        elif isinstance(step, int):
            index = step
        else:
            index = switch.index + (1 if step == "next" else -1)
        index %= switch.count
        if index == switch.index:
            return False
        leaf = switched_leaf(session, switch, index)
        if leaf is None:
            return False
        new = transcript_of(session, leaf, transcript.mode)
        self._transcript = new
        offset = self._card_offset(slot)
        new_slot = new.nearest_slot(switch.siblings[index])
        if new_slot is None:
            new_slot = slot
        self.view.set_current(new_slot)
        self.view.set_source(PathCards(session, new), new_slot, offset=offset)
        self.find.recount()
        target = new.entries[new_slot].id if new_slot < len(new) else None
        if target is not None:
            self._follow = target
            self.follow_requested.emit(target)  # the tree follows; the transcript stays
        return True

    def _card_offset(self, slot: int) -> int:
        """How far below the top of the viewport the card of ``slot`` starts now."""
        point = self.view.viewport_point(slot)
        return point.y() - 16 if point is not None else 6

    def _choose_branch(self, session: Session, switch: Switch, slot: int) -> int | None:
        """A menu of the branches (their first words) at the switcher; the one chosen, None for none."""
        menu = QMenu(self.view)
        try:
            previews = branch_previews(session, switch)
        except Exception:  # a file that changed underneath: the ids say which is which
            previews = list(switch.siblings)
        for i, text in enumerate(previews):
            action = menu.addAction(f"{i + 1}. {text}")
            action.setData(i)
            action.setCheckable(True)
            action.setChecked(i == switch.index)
        point = self.view.viewport_point(slot)
        viewport = self.view.viewport()
        where = viewport.mapToGlobal(point if point is not None else viewport.rect().center())
        chosen = menu.exec(where)
        menu.deleteLater()
        return int(chosen.data()) if chosen is not None else None

    def _show_in_tree(self, slot: int) -> None:
        source = self.view.card_source
        entry_id = source.entry_id(slot) if source is not None else None
        if entry_id is not None:
            self.entry_requested.emit(entry_id)

    # ------------------------------------------------------------------ copying
    def copy_all(self) -> None:
        """The whole transcript shown (every card, not only those rendered) as Markdown on the clipboard."""
        source = self.view.card_source
        status = self._context.status
        if isinstance(source, ContextCards):
            self._copy_context(source)
            return
        if not isinstance(source, PathCards):
            return
        entries = list(source.transcript.entries)
        session = source.session
        status.showMessage(f"Copying {len(entries):,} entries as Markdown…")

        def render(_task: object) -> str:
            from core.export.markdown import session_to_markdown

            return session_to_markdown(session, entries=entries).text

        def done(text: str) -> None:
            QGuiApplication.clipboard().setText(text)
            status.showMessage(
                f"Copied {len(entries):,} entries as Markdown ({len(text):,} characters)", 5000
            )

        self._context.runner.start(
            "copy",
            render,
            done,
            lambda error: status.showMessage(user_sentence(error)),
            priority=Priority.FOREGROUND,
        )

    def _copy_context(self, source: ContextCards) -> None:
        from core.export.markdown import card_to_markdown

        text = "".join(card_to_markdown(made) for _slot, made in source.cards(0, len(source)))
        QGuiApplication.clipboard().setText(text)
        self._context.status.showMessage(f"Copied {len(source):,} messages as Markdown", 5000)

    def copy_card(self, slot: int) -> None:
        """One card's message as Markdown on the clipboard (an assistant reply with its tool calls)."""
        source = self.view.card_source
        if source is None:
            return
        from core.export.markdown import card_to_markdown, entry_to_markdown

        entry_id = source.entry_id(slot)
        try:
            if entry_id is not None:
                text = entry_to_markdown(source.session, entry_id)
            else:
                text = "".join(card_to_markdown(made) for _slot, made in source.cards(slot, slot + 1))
        except Exception as error:  # a file that changed underneath
            self._context.status.showMessage(user_sentence(error))
            return
        QGuiApplication.clipboard().setText(text)
        self._context.status.showMessage("Copied the message as Markdown", 3000)
