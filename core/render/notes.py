"""What other entries say about an entry: context edits that target it, child runs whose usage it carries.

A ``context_edit`` entry (pi 1.6) replaces or drops an earlier message in what the model sees from then
on; a ``child_usage_attributed`` entry (Prime Agent) adds a child run's usage to an assistant message.
Both are separate entries that point at their target by ``targetId``, so a card of the target cannot
know about them from its own body. :func:`session_notes` gathers them once per session (cached until the
session grows) and :meth:`SessionNotes.get` hands each card its :class:`EntryNotes`.

:func:`edits_in_force` and :func:`context_edit_marks` say which edits shape what the model saw at an entry
and which context messages they changed. They are small stand-ins for the session reader's own context
API (``core.session``), which knows the context's provenance; point them at it when it is there.
"""

from __future__ import annotations

import weakref
from typing import TYPE_CHECKING, NamedTuple

from core.body.content import Body, as_dict, as_number, as_text
from core.timefmt import js_date_ms

if TYPE_CHECKING:
    from core.session import Entry, Session

__all__ = [
    "ChildRuns",
    "EditNote",
    "EntryNotes",
    "SessionNotes",
    "context_edit_marks",
    "edits_in_force",
    "session_notes",
]

_USAGE_COUNTERS = ("input", "output", "cacheRead", "cacheWrite", "totalTokens")
# Roles a context_edit may change (pi 1.6 edits user, assistant and toolResult messages and custom_message
# entries, whose context message has the role "custom").
_EDITABLE_ROLES = frozenset({"user", "assistant", "toolResult", "custom"})


class EditNote(NamedTuple):
    """One context_edit entry.

    Attributes:
        edit_id: the context_edit entry's id.
        target_id: the entry it edits (``targetId``).
        dropped: True when ``replacement`` is null (the target leaves the context), False when only its
            content is replaced.
        content: the replacement content (None when dropped or not given).
    """

    edit_id: str
    target_id: str
    dropped: bool
    content: object


class ChildRuns(NamedTuple):
    """The child runs attributed to one assistant message (Prime Agent's ``child_usage_attributed``).

    Attributes:
        runs: how many attribution entries (distinct ids) name the message.
        origins: their ``origin`` values, each once, in file order.
        usage: the children's usage summed (counters and ``cost.total``).
        aggregate: the message's usage with the children's added, as the last attribution recorded it.
    """

    runs: int
    origins: tuple[str, ...]
    usage: dict[str, object]
    aggregate: dict[str, object] | None


class EntryNotes(NamedTuple):
    """What a card says about its entry beyond the entry's own body.

    Attributes:
        edits: context_edit entries that target the entry, in file order.
        children: child runs whose usage was added to it (an assistant message), or None.
        shown_edit: in a rendering of what the model saw, the edit whose replacement the card shows.
        results: an assistant message's tool results shown under their calls: (toolCallId, the notes
            of the result), for the results that have any.
    """

    edits: tuple[EditNote, ...] = ()
    children: ChildRuns | None = None
    shown_edit: EditNote | None = None
    results: tuple[tuple[str, EntryNotes], ...] = ()

    def of_result(self, call_id: object) -> EntryNotes | None:
        """The notes of the tool result that answers ``call_id``, None when it has none."""
        return next((notes for key, notes in self.results if key == call_id), None)


class SessionNotes:
    """Every context edit and child-usage attribution of one session, by target.

    Attributes:
        edits: target id -> the edits of it, in file order.
        edit_by_id: context_edit entry id -> its note.
        children: assistant entry id -> its child runs.
    """

    def __init__(self, session: Session) -> None:
        self.edits: dict[str, list[EditNote]] = {}
        self.edit_by_id: dict[str, EditNote] = {}
        self.children: dict[str, ChildRuns] = {}
        kinds = ("context_edit", "child_usage_attributed")
        wanted = [e for e in session.entries if e.kind in kinds]
        if not wanted:
            return
        attributions: dict[str, tuple[str, Body]] = {}  # attribution id -> (target, body); a repeated id once
        for entry, body in zip(wanted, session.bodies(wanted), strict=True):
            target = body.get("targetId")
            if not isinstance(target, str):
                continue
            if entry.kind == "context_edit":
                replacement = body.get("replacement")
                dropped = replacement is None
                note = EditNote(
                    entry.id, target, dropped, None if dropped else as_dict(replacement).get("content")
                )
                self.edits.setdefault(target, []).append(note)
                self.edit_by_id[entry.id] = note
            else:
                attributions[entry.id] = (target, body)
        by_target: dict[str, list[Body]] = {}
        for target, body in attributions.values():
            by_target.setdefault(target, []).append(body)
        overrides = session.usage_overrides
        for target, bodies in by_target.items():
            origins = tuple(dict.fromkeys(o for b in bodies if (o := as_text(b.get("origin")))))
            usage = _summed([as_dict(b.get("childUsage")) for b in bodies])
            self.children[target] = ChildRuns(len(bodies), origins, usage, overrides.get(target))

    def get(self, entry_id: str) -> EntryNotes | None:
        """The notes of one entry, None when no other entry says anything about it."""
        edits = self.edits.get(entry_id)
        children = self.children.get(entry_id)
        if edits is None and children is None:
            return None
        return EntryNotes(tuple(edits or ()), children)

    def for_card(self, entry_id: str, results: dict[str, Body] | None = None) -> EntryNotes | None:
        """The notes of an entry's card: its own, and those of the tool results shown under its calls.

        Args:
            entry_id: the entry.
            results: toolCallId -> the body of the toolResult entry shown under that call, if any.
        """
        own = self.get(entry_id)
        found = []
        for call_id, body in (results or {}).items():
            result_id = body.get("id")
            notes = self.get(result_id) if isinstance(result_id, str) else None
            if notes is not None:
                found.append((call_id, notes))
        if not found:
            return own
        return (own or EntryNotes())._replace(results=tuple(found))

    @property
    def has_edits(self) -> bool:
        """Whether the session holds any context edit."""
        return bool(self.edit_by_id)


# Session -> (the entry list it was built from, its length, the notes). A refresh appends to the list (the
# length changes) or replaces it (a reload); either way the notes are gathered again.
_CACHE: weakref.WeakKeyDictionary[Session, tuple[int, int, SessionNotes]] = weakref.WeakKeyDictionary()


def session_notes(session: Session) -> SessionNotes:
    """The notes of ``session``, gathered on first use and again after the session changed."""
    entries = session.entries
    cached = _CACHE.get(session)
    if cached is not None and cached[0] == id(entries) and cached[1] == len(entries):
        return cached[2]
    notes = SessionNotes(session)
    _CACHE[session] = (id(entries), len(entries), notes)
    return notes


def edits_in_force(session: Session, leaf_id: str | None) -> dict[str, EditNote]:
    """The context edits that shape what the model saw at ``leaf_id``: target id -> the edit that applies.

    pi 1.6's rule: the latest edit per target among the entries of the built context (the path after the
    newest compaction's kept range starts), when the target is among them too.

    Args:
        session: the session.
        leaf_id: the entry the context is built for.
    """
    notes = session_notes(session)
    if not notes.has_edits or leaf_id is None or session.get(leaf_id) is None:
        return {}
    path = session.path_to(leaf_id)
    start = 0
    for index in range(len(path) - 1, -1, -1):
        if path[index].kind == "compaction":
            first_kept = session.body(path[index]).get("firstKeptEntryId")
            start = next((i for i in range(index) if path[i].id == first_kept), index)
            break
    built = path[start:]
    ids = {entry.id for entry in built}
    in_force: dict[str, EditNote] = {}
    for entry in built:
        note = notes.edit_by_id.get(entry.id) if entry.kind == "context_edit" else None
        if note is not None and note.target_id in ids:
            in_force[note.target_id] = note
    return in_force


def context_edit_marks(
    session: Session, leaf_id: str | None, messages: list[object]
) -> list[EditNote | None]:
    """For each message of what the model saw at ``leaf_id``, the edit whose replacement it shows, or None.

    A replaced message keeps its role and timestamp, so it is found by those among ``messages``.

    Args:
        session: the session.
        leaf_id: the entry the context was built for.
        messages: the context's messages, as built.
    """
    marks: list[EditNote | None] = [None] * len(messages)
    replaced = [note for note in edits_in_force(session, leaf_id).values() if not note.dropped]
    if not replaced:
        return marks
    targets = [session.get(note.target_id) for note in replaced]
    found = [(note, entry) for note, entry in zip(replaced, targets, strict=True) if entry is not None]
    keys: dict[tuple[str, float], EditNote] = {}
    for (note, entry), body in zip(found, session.bodies([e for _n, e in found]), strict=True):
        key = _message_key(entry, body)
        if key is not None:
            keys.setdefault(key, note)
    for index, message in enumerate(messages):
        if isinstance(message, dict) and keys:
            role, moment = message.get("role"), as_number(message.get("timestamp"))
            if isinstance(role, str) and moment is not None and (role, moment) in keys:
                marks[index] = keys.pop((role, moment))
    return marks


def _message_key(entry: Entry, body: Body) -> tuple[str, float] | None:
    """``(role, timestamp)`` of the context message an editable entry becomes, None for any other entry."""
    if entry.kind == "custom_message":
        moment = js_date_ms(body.get("timestamp"))
        return ("custom", float(moment)) if moment is not None else None
    message = as_dict(body.get("message"))
    role, moment = message.get("role"), as_number(message.get("timestamp"))
    if not isinstance(role, str) or role not in _EDITABLE_ROLES or moment is None:
        return None
    return role, moment


def _summed(usages: list[dict[str, object]]) -> dict[str, object]:
    """Usage objects added up: each counter and ``cost.total`` (the parts a card shows)."""
    total: dict[str, float] = {}
    cost = 0.0
    seen_cost = False
    for usage in usages:
        for key in _USAGE_COUNTERS:
            value = as_number(usage.get(key))
            if value is not None:
                total[key] = total.get(key, 0.0) + value
        spent = as_number(as_dict(usage.get("cost")).get("total"))
        if spent is not None:
            cost += spent
            seen_cost = True
    out: dict[str, object] = {k: int(v) if v.is_integer() else v for k, v in total.items()}
    if seen_cost:
        out["cost"] = {"total": cost}
    return out
