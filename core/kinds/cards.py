"""Entries as cards: an entry's kind makes its card, and what other entries say about it is added.

:func:`card` makes one entry's card (its kind's, with the lines of its notes and its label);
:func:`window_cards` makes the cards of a stretch of a path, each tool result under its call. The
message view and both exports render what these return (:mod:`core.kinds.document`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from core.kinds.document import NOTE, Card, Para, bold
from core.kinds.notes import EditNote, EntryNotes, note_blocks, session_notes
from core.kinds.pairing import context_results, results_in_window
from core.kinds.registry import kind_of
from core.session.entry import Entry
from core.session.vocabulary import MESSAGE

if TYPE_CHECKING:
    from collections.abc import Iterable

    from core.kinds.pairing import Results
    from core.session import Session
    from core.session.content import Body

__all__ = ["CONTEXT_PREFIX", "card", "context_cards", "context_entry", "slot_cards", "window_cards"]

CONTEXT_PREFIX = "ctx"
"""The ids of the stand-in entries of context messages (``ctx0``, ``ctx1``...; see :func:`context_entry`)."""


def card(
    entry: Entry,
    body: Body,
    results: Results | None = None,
    notes: EntryNotes | None = None,
    label: str | None = None,
) -> Card:
    """An entry's card: its kind's blocks, after the lines other entries add (notes), before its label.

    Args:
        entry: the entry.
        body: its body (anything but a JSON object is read as an empty one).
        results: for an assistant message, toolCallId -> the body of the toolResult entry answering
            it (see :mod:`core.kinds.pairing`); None when nobody looked, ``{}`` when none was found.
        notes: what other entries say about it (:meth:`core.kinds.notes.SessionNotes.for_card`).
        label: its label, if it has one.
    """
    kind = kind_of(entry)
    source = body if isinstance(body, dict) else {}
    try:
        made = kind.card(entry, source, results, notes)
    except RecursionError:  # a pathologically nested value
        made = kind.heading_card(entry, (Para(("(nested too deeply to show)",), NOTE),))
    if notes is None and not label:
        return made  # most entries: nobody says anything about them
    before = note_blocks(notes)
    after = (Para(("Label: ", bold(label)), NOTE),) if label else ()
    if before or after:
        made = made._replace(blocks=(*before, *made.blocks, *after))
    return made


def window_cards(session: Session, entries: Iterable[Entry]) -> list[Card]:
    """The cards of a stretch of one path, each tool call with its result.

    A toolResult entry shown under its call has no card of its own; a result that answers a call
    before the first entry given is left out too (the stretch before shows it), and the calls of the
    last assistant message look for results past the last entry, so a path shown in consecutive
    windows shows every result exactly once (see :func:`core.kinds.pairing.results_in_window`).

    Args:
        session: the session the entries belong to.
        entries: the entries, in order.
    """
    return [made for _index, made in slot_cards(session, entries)]


def slot_cards(session: Session, entries: Iterable[Entry]) -> list[tuple[int, Card]]:
    """:func:`window_cards` with each card's position among ``entries`` (a result under its call has none).

    Args:
        session: the session the entries belong to.
        entries: the entries, in order.
    """
    items = list(entries)
    if not items:
        return []
    bodies = list(session.bodies(items))
    results, shown_under_call = results_in_window(session, items, bodies)
    notes = session_notes(session)
    labels = session.labels
    return [
        (
            i,
            card(
                entry,
                bodies[i],
                results.get(i),
                notes.for_card(entry.id, results.get(i)),
                labels.get(entry.id),
            ),
        )
        for i, entry in enumerate(items)
        if i not in shown_under_call
    ]


def context_entry(index: int, message: dict[str, object]) -> Entry:
    """A stand-in index record for message ``index`` of what the model saw (fold keys and images use it)."""
    role = message.get("role")
    return Entry(
        id=f"{CONTEXT_PREFIX}{index}",
        parent_id=None,
        type=MESSAGE,
        kind=MESSAGE,
        timestamp=message.get("timestamp"),
        line=0,
        offset=0,
        length=0,
        role=role if isinstance(role, str) else None,
    )


def context_cards(
    messages: list[object],
    marks: list[EditNote | None],
    start: int = 0,
    stop: int | None = None,
    pairing: tuple[dict[int, dict[str, int]], set[int]] | None = None,
) -> list[tuple[int, Card]]:
    """The cards of what the model saw: each message (by its index) a card, each tool result under its call.

    Args:
        messages: the context's messages, in order (one that is not an object is shown as an empty one).
        marks: for each message, the context edit whose replacement it shows, or None
            (:func:`core.kinds.notes.context_edit_marks`).
        start: the first message to make a card of (a transcript renders a stretch at a time); the
            pairing of calls and results is always the whole context's.
        stop: one past the last message, None for the end.
        pairing: :func:`core.kinds.pairing.context_results` of ``messages`` when the caller keeps it
            (a pass over the whole context saved for each stretch).
    """
    results, answered = pairing if pairing is not None else context_results(messages)
    out = []
    for i in range(max(0, start), len(messages) if stop is None else min(stop, len(messages))):
        if i in answered:
            continue
        raw = messages[i]
        message = raw if isinstance(raw, dict) else {}
        mark = marks[i] if i < len(marks) else None
        notes = EntryNotes(shown_edit=mark) if mark is not None else None
        found: Results | None = None
        if i in results:
            found = {}
            edited: list[tuple[str, EntryNotes]] = []
            for call_id, j in results[i].items():
                found[call_id] = {"message": messages[j]}
                if (result_mark := marks[j] if j < len(marks) else None) is not None:
                    edited.append((call_id, EntryNotes(shown_edit=result_mark)))
            if edited:
                notes = (notes or EntryNotes())._replace(results=tuple(edited))
        out.append((i, card(context_entry(i, message), {"message": message}, found, notes)))
    return out
