"""What other entries say about an entry: context edits that target it, child runs whose usage it carries.

A ``context_edit`` entry (pi 1.6) replaces or drops an earlier message in what the model sees from then
on; a ``child_usage_attributed`` entry (Prime Agent) adds a child run's usage to an assistant message.
Both are separate entries that point at their target by ``targetId``, so a card of the target cannot
know about them from its own body. :func:`session_notes` gathers them once per session (kept on it, and
brought up to date from the appended entries alone as it grows) and :meth:`SessionNotes.get` hands each
card its :class:`EntryNotes`.

:func:`edits_in_force` and :func:`context_edit_marks` say which edits shape what the model saw at an entry
and which context messages they changed. Both ask the session reader, which builds the context and so
knows which edits apply (:func:`core.session.context_edits_in_force`) and which message each one
replaced (the ``edit`` of :func:`core.session.iter_context_items`): only pi 1.x applies context edits,
so in a file of another agent none is in force and no message is marked. Which edits name an entry at
all is the index's (each ``context_edit`` entry's :class:`core.session.ContextEditInfo`, the list
:meth:`core.session.Session.context_edits_for` gives).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

from core.formatting import one_line
from core.kinds.document import NOTE, WARN, Block, Para, bold, entry_link, session_link
from core.kinds.wording import child_runs_text, usage_text
from core.session.content import Body, as_dict, as_number, as_text
from core.session.entry import ContextEditInfo
from core.session.vocabulary import CHILD_USAGE_ATTRIBUTED, CONTEXT_EDIT

if TYPE_CHECKING:
    from core.session import Entry, Session
    from core.session.subagents import ChildSession

__all__ = [
    "ChildRuns",
    "EditNote",
    "EntryNotes",
    "SessionNotes",
    "context_edit_marks",
    "edits_in_force",
    "note_blocks",
    "session_notes",
]

_USAGE_COUNTERS = ("input", "output", "cacheRead", "cacheWrite", "totalTokens")


class EditNote(NamedTuple):
    """One context_edit entry.

    Attributes:
        edit_id: the context_edit entry's id.
        target_id: the entry it edits (``targetId``).
        dropped: True when ``replacement`` is null (the target leaves the context), False when only its
            content is replaced (``ContextEditInfo.drops``).
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
        sessions: the child (subagent) sessions the entry launched (``Session.child_sessions``).
    """

    edits: tuple[EditNote, ...] = ()
    children: ChildRuns | None = None
    shown_edit: EditNote | None = None
    results: tuple[tuple[str, EntryNotes], ...] = ()
    sessions: tuple[ChildSession, ...] = ()

    def of_result(self, call_id: object) -> EntryNotes | None:
        """The notes of the tool result that answers ``call_id``, None when it has none."""
        return next((notes for key, notes in self.results if key == call_id), None)


class SessionNotes:
    """Every context edit and child-usage attribution of one session, by target.

    Made by a pass over every entry; :meth:`grow` brings it up to date after an append from the appended
    entries alone, with the same result as a new pass.

    Attributes:
        edits: target id -> the edits of it, in file order.
        edit_by_id: context_edit entry id -> its note.
        children: assistant entry id -> its child runs.
    """

    def __init__(self, session: Session) -> None:
        self.edits: dict[str, list[EditNote]] = {}
        self.edit_by_id: dict[str, EditNote] = {}
        self.children: dict[str, ChildRuns] = {}
        self.sessions: dict[str, tuple[ChildSession, ...]] = dict(session.child_sessions)
        # attribution entry id -> (its target, origin, childUsage), in file order; a repeated id once,
        # at its first place with its last values (as a dict keeps them)
        self._attributions: dict[str, tuple[str, str, dict[str, object]]] = {}
        self._take(session, session.entries)

    def grow(self, session: Session, appended: list[Entry]) -> SessionNotes:
        """The notes after ``appended`` were read into ``session`` (:meth:`core.session.Session.derived`)."""
        self.sessions = dict(session.child_sessions)
        self._take(session, appended)
        return self

    def _take(self, session: Session, entries: list[Entry]) -> None:
        """Add what ``entries`` (the whole session, or entries appended to it) say about others."""
        kinds = (CONTEXT_EDIT, CHILD_USAGE_ATTRIBUTED)
        wanted = [e for e in entries if e.kind in kinds]
        targets: set[str] = set()  # whose child runs changed
        for entry, body in zip(wanted, session.bodies(wanted), strict=True):
            if entry.kind == CONTEXT_EDIT:
                note = _edit_note(entry, body)
                if note is not None:
                    self.edits.setdefault(note.target_id, []).append(note)
                    self.edit_by_id[entry.id] = note
                continue
            target = body.get("targetId")
            if not isinstance(target, str):
                continue  # names no entry: an earlier attribution with its id stays
            earlier = self._attributions.get(entry.id)
            if earlier is not None:
                targets.add(earlier[0])  # a repeated id: the later entry replaces the earlier one
            self._attributions[entry.id] = (
                target,
                as_text(body.get("origin")),
                as_dict(body.get("childUsage")),
            )
            targets.add(target)
        if not self._attributions:
            return
        by_target: dict[str, list[tuple[str, dict[str, object]]]] = {}
        for target, origin, usage in self._attributions.values():
            if target in targets:
                by_target.setdefault(target, []).append((origin, usage))
        for target in targets - by_target.keys():
            self.children.pop(target, None)
        # An aggregate is the last one recorded for its target, by the ids as written: an append of an
        # attribution, or of an assistant message of a legacy file, may change any of them.
        overrides = session.usage_overrides
        for target, runs in by_target.items():
            origins = tuple(dict.fromkeys(origin for origin, _usage in runs if origin))
            self.children[target] = ChildRuns(len(runs), origins, _summed([u for _o, u in runs]), None)
        for target, found in self.children.items():
            aggregate = overrides.get(target)
            if found.aggregate is not aggregate:
                self.children[target] = found._replace(aggregate=aggregate)

    def get(self, entry_id: str) -> EntryNotes | None:
        """The notes of one entry, None when no other entry says anything about it."""
        edits = self.edits.get(entry_id)
        children = self.children.get(entry_id)
        sessions = self.sessions.get(entry_id, ())
        if edits is None and children is None and not sessions:
            return None
        return EntryNotes(tuple(edits or ()), children, sessions=sessions)

    def for_card(self, entry_id: str, results: dict[str, Body] | None = None) -> EntryNotes | None:
        """The notes of an entry's card: its own, and those of the tool results shown under its calls.

        Args:
            entry_id: the entry.
            results: toolCallId -> the body of the toolResult entry shown under that call, if any.
        """
        if not self.edits and not self.children and not self.sessions:
            return None  # a session without context edits or child runs: nothing to say of anyone
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


def session_notes(session: Session) -> SessionNotes:
    """The notes of ``session``, gathered on first use and again after the session changed.

    They are kept on the session (:meth:`core.session.Session.derived`), not in a cache of this module.
    """
    return session.derived(SessionNotes, SessionNotes.grow)


def note_blocks(notes: EntryNotes | None) -> list[Block]:
    """What other entries say about an entry, as its card's lines: the edit shown, later edits, child runs."""
    if notes is None:
        return []
    lines: list[Block] = []
    shown = notes.shown_edit
    if shown is not None:
        lines.append(
            Para(
                (
                    "✎ ",
                    bold("Edited content"),
                    ": entry ",
                    entry_link(shown.edit_id),
                    " replaced this message in what the model saw (the original is entry ",
                    entry_link(shown.target_id),
                    ")",
                ),
                WARN,
            )
        )
    for edit in notes.edits:
        if shown is not None and edit.edit_id == shown.edit_id:
            continue
        how = "dropped it from" if edit.dropped else "replaced its content in"
        words = (
            "✎ Edited in the context later: entry ",
            entry_link(edit.edit_id),
            f" {how} what the model sees",
        )
        lines.append(Para(words, WARN))
    runs = notes.children
    if runs is not None:
        words_ = "Usage includes " + child_runs_text(runs.runs, runs.origins, runs.usage)
        aggregate = usage_text(runs.aggregate)
        if aggregate:
            words_ += f"; with them the message used {aggregate}"
        lines.append(Para((words_,), WARN))
    for child in notes.sessions:
        title = one_line(child.title)
        title = title if len(title) <= 80 else title[:79] + "…"
        lines.append(Para(("⤷ Started the subagent session “", title, "”: ", session_link(child.path)), NOTE))
    return lines


def edits_in_force(session: Session, leaf_id: str | None) -> dict[str, EditNote]:
    """The context edits that shape what the model saw at ``leaf_id``: target id -> the edit that applies.

    The session reader's rule (:func:`core.session.context_edits_in_force`): in a pi 1.x file, the latest
    edit per target among the entries of the built context (the path from the newest compaction's kept
    range on), when the target is among them too; in any other file none.

    Args:
        session: the session.
        leaf_id: the entry the context is built for; None or an unknown id gives no edits.
    """
    return {note.target_id: note for _entry, note in _in_force(session, leaf_id)}


def _in_force(session: Session, leaf_id: str | None) -> list[tuple[Entry, EditNote]]:
    """The context_edit entries in force at ``leaf_id``, each with its note."""
    if leaf_id is None or session.get(leaf_id) is None:
        return []
    from core.session.context import context_edits_in_force

    edits = list(context_edits_in_force(session, leaf_id).values())
    found = []
    for entry, body in zip(edits, session.bodies(edits), strict=True):
        note = _edit_note(entry, body)
        if note is not None:
            found.append((entry, note))
    return found


def context_edit_marks(
    session: Session, leaf_id: str | None, messages: list[object]
) -> list[EditNote | None]:
    """For each message of what the model saw at ``leaf_id``, the edit whose replacement it shows, or None.

    The marks are the provenance of the context the reader builds (the ``edit`` of each item of
    :func:`core.session.iter_context_items`), position by position, so ``messages`` must be that context:
    ``build_context(session, leaf_id)["messages"]``. When their count differs (the file changed in
    between) nothing is marked rather than the wrong message.

    Args:
        session: the session.
        leaf_id: the entry the context was built for.
        messages: the context's messages, as built.
    """
    marks: list[EditNote | None] = [None] * len(messages)
    # The very entries, not their ids: an id may be repeated in a damaged file.
    replacing = {id(entry): note for entry, note in _in_force(session, leaf_id) if not note.dropped}
    if not replacing:
        return marks  # only a replacement marks a message; the context is not built again for nothing
    from core.session.context import iter_context_items

    _settings, items = iter_context_items(session, leaf_id)
    found = [replacing.get(id(item.edit)) if item.edit is not None else None for item in items]
    return found if len(found) == len(messages) else marks


def _edit_note(entry: Entry, body: Body) -> EditNote | None:
    """The note of one context_edit entry; None when its ``targetId`` is not an id (it never applies)."""
    info = entry.info
    if not isinstance(info, ContextEditInfo) or not isinstance(info.target, str):
        return None
    content = None if info.drops else as_dict(body.get("replacement")).get("content")
    return EditNote(entry.id, info.target, info.drops, content)


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
