"""What a transcript view reads, a stretch at a time: the cards of a path, or of what the model saw.

A view shows *slots* (see :mod:`core.visible.transcript`) and renders only those near its viewport. It
asks one of these sources for the cards of a stretch of slots, the entry behind a slot (to keep the
branch tree in step), the branch point a slot's card offers, an image's body, and find's counts. Both
sources answer the same questions, so one view shows a conversation and what the model saw alike.

* :class:`PathCards`: a conversation of a session (a :class:`~core.visible.transcript.Transcript`).
* :class:`ContextCards`: the messages the model saw at an entry (``build_context``), compactions applied,
  each message a slot; a message whose content a context edit replaced says so on its card.

Sources are read from worker threads too (find counts every card of a 50,000-message path there).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from core.kinds.cards import CONTEXT_PREFIX, context_cards, slot_cards
from core.kinds.pairing import context_results
from core.render.find import card_text, count_matches

if TYPE_CHECKING:
    from collections.abc import Callable

    from core.kinds.document import Card
    from core.kinds.notes import EditNote
    from core.session import Session
    from core.session.content import Body
    from core.visible.transcript import Switch, Transcript

__all__ = ["FIND_STRETCH", "ContextCards", "PathCards", "find_counts"]

FIND_STRETCH = 200
"""Slots whose cards find makes and counts at a time (then it reports progress and checks for a cancel)."""


class PathCards:
    """The cards of one conversation of a session, a stretch of slots at a time.

    Attributes:
        session: the session.
        transcript: the conversation's slots.
    """

    def __init__(self, session: Session, transcript: Transcript) -> None:
        self.session = session
        self.transcript = transcript

    def __len__(self) -> int:
        return len(self.transcript)

    def cards(self, start: int, stop: int) -> list[tuple[int, Card]]:
        """The cards of slots ``start`` to ``stop`` (excluded), each with its slot.

        A tool result shown under its call has no card of its own.
        """
        start = max(0, start)
        entries = self.transcript.entries[start:stop]
        return [(start + i, made) for i, made in slot_cards(self.session, entries)]

    def entry_id(self, slot: int) -> str | None:
        """The id of the entry in ``slot``."""
        entries = self.transcript.entries
        return entries[slot].id if 0 <= slot < len(entries) else None

    def switch(self, slot: int) -> Switch | None:
        """The branch point the card of ``slot`` offers, if any."""
        entry_id = self.entry_id(slot)
        return self.transcript.switches.get(entry_id) if entry_id is not None else None

    def image_body(self, entry_id: str) -> Body | None:
        """The body holding the images of ``entry_id`` (an ``image:ENTRY/N`` source); None when unknown."""
        entry = self.session.get(entry_id)
        return self.session.body(entry) if entry is not None else None


class ContextCards:
    """What the model saw at an entry, each message a slot (a tool result shown under its call has no card).

    Attributes:
        session: the session.
        messages: the context's messages.
        marks: for each message, the context edit whose replacement it shows, or None.
    """

    def __init__(self, session: Session, messages: list[object], marks: list[EditNote | None]) -> None:
        self.session = session
        self.messages = messages
        self.marks = marks
        self._pairing = context_results(messages)

    def __len__(self) -> int:
        return len(self.messages)

    def cards(self, start: int, stop: int) -> list[tuple[int, Card]]:
        """The cards of messages ``start`` to ``stop`` (excluded), each with its index."""
        return context_cards(self.messages, self.marks, start, stop, self._pairing)

    def entry_id(self, slot: int) -> str | None:
        """Context messages are not entries of the tree: always None."""
        return None

    def switch(self, slot: int) -> Switch | None:
        """What the model saw has no branch points: always None."""
        return None

    def image_body(self, entry_id: str) -> Body | None:
        """The stand-in body of a context message's ``image:ctxN/M`` source, None for any other id."""
        if not entry_id.startswith(CONTEXT_PREFIX):
            return None
        try:
            index = int(entry_id[len(CONTEXT_PREFIX) :])
        except ValueError:
            return None
        return {"message": self.messages[index]} if 0 <= index < len(self.messages) else None


def find_counts(
    source: PathCards | ContextCards,
    needle: str,
    cancelled: Callable[[], bool] | None = None,
    progress: Callable[[int, list[tuple[int, int]]], None] | None = None,
) -> list[tuple[int, int]]:
    """How often ``needle`` occurs in each card of ``source``: ``(slot, count)`` for the cards that hold it.

    A card's text is what the view shows with every fold open (:func:`core.render.find.card_text`).

    Args:
        source: the transcript's cards.
        needle: what to find (:func:`core.render.find.needle_of` of the query).
        cancelled: asked between stretches; True stops the count (what was found so far is returned).
        progress: told after each stretch how many slots are counted and the counts so far.
    """
    found: list[tuple[int, int]] = []
    if not needle:
        return found
    total = len(source)
    for start in range(0, total, FIND_STRETCH):
        if cancelled is not None and cancelled():
            break
        for slot, made in source.cards(start, start + FIND_STRETCH):
            count = count_matches(card_text(made), needle)
            if count:
                found.append((slot, count))
        if progress is not None:
            progress(min(total, start + FIND_STRETCH), list(found))
    return found
