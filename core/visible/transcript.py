"""The transcript: one conversation of a session as a reader scrolls it, and the branch points it passes.

A transcript is the path from a root to a leaf (the conversation an entry is in, see
:func:`core.visible.navigation.conversation`), each entry the tree's filter mode shows a *slot* of it,
in order, exactly as the tree's rows are chosen (the session's leaf is always shown). A tool result
shown under its call has a slot too and renders as nothing there (:func:`core.kinds.cards.window_cards`
pairs them), so a slot's position never depends on which stretch of the path is rendered.

Where the path passes an entry with several children, the slot of the path's child (or the first slot
after it, when the filter hides it) carries a :class:`Switch`: which of the siblings the path takes, so
the card can offer the others; :func:`switched_leaf` gives the leaf a switch leads to.

Pure Python and cheap: a transcript holds entry records, never bodies, so a 50,000-message path is made
in a few milliseconds; bodies are read only for the slots a caller renders.
"""

from __future__ import annotations

from array import array
from bisect import bisect_left
from dataclasses import dataclass, field
from itertools import pairwise
from typing import TYPE_CHECKING, NamedTuple
from weakref import WeakKeyDictionary

from core.kinds.registry import entry_preview, kind_of
from core.visible.filters import check_mode, passes
from core.visible.navigation import conversation

if TYPE_CHECKING:
    from collections.abc import Callable

    from core.session import Entry, Session

__all__ = ["Switch", "Transcript", "branch_previews", "switched_leaf", "transcript_of"]


@dataclass(frozen=True)
class Switch:
    """A branch point the path passes: an entry with several children, and which of them the path takes.

    Attributes:
        parent_id: the entry whose children branch (None for the roots of a session with several).
        siblings: the children's ids, in the tree's order (oldest first).
        index: the position of the path's child among them (0-based; the card says ``index + 1 of n``).
    """

    parent_id: str | None
    siblings: tuple[str, ...]
    index: int

    @property
    def count(self) -> int:
        """How many branches there are."""
        return len(self.siblings)


@dataclass
class Transcript:
    """The slots of one conversation, in order.

    Attributes:
        entries: the entries shown (each a slot), root first.
        leaf_id: the last entry of the conversation.
        mode: the filter mode that chose the slots.
        switches: slot entry id -> the branch point its card offers.
        hidden_before: a hidden entry's id -> the slot of the first shown entry after it.
        hidden_last: the hidden entries after the last slot.
        lookup: the session's entry by id (how a slot is found by the entry's line; see :meth:`slot_of`).
    """

    entries: list[Entry]
    leaf_id: str | None
    mode: str
    switches: dict[str, Switch] = field(default_factory=dict)
    hidden_before: dict[str, int] = field(default_factory=dict, repr=False)
    hidden_last: frozenset[str] = frozenset()
    lookup: Callable[[str], Entry | None] | None = field(default=None, repr=False)
    _lines: array[int] | None = field(default=None, repr=False)
    _index: dict[str, int] | None = field(default=None, repr=False)

    def __post_init__(self) -> None:
        # A path's lines grow from root to leaf (an entry is appended after its parent), so a slot is
        # found by bisecting the lines: 4 MB for a 520,000-entry path where a dict of ids took 40 MB.
        # A file whose path goes back up (a hostile parent link) or repeats an id gets the dict.
        entries, lookup = self.entries, self.lookup
        lines = array("q", (entry.line for entry in entries))
        if (
            lookup is not None
            and all(a < b for a, b in pairwise(lines))
            and all(lookup(entry.id) is entry for entry in entries)
        ):
            self._lines = lines
        else:
            self._index = {entry.id: i for i, entry in enumerate(entries)}

    def __len__(self) -> int:
        return len(self.entries)

    def grown(self, chain: list[tuple[Entry, bool]], leaf_id: str | None) -> Transcript:
        """This transcript continued below its last slot by ``chain``, to ``leaf_id``.

        ``chain`` is in path order, True where the entry gets a slot. This one is left as it was (a view
        may still hold it).
        """
        new = Transcript.__new__(Transcript)
        entries = [*self.entries]
        hidden_before = dict(self.hidden_before)
        waiting = list(self.hidden_last)  # hidden after the last slot: before the next slot now
        for entry, shown in chain:
            if shown:
                for hidden in waiting:
                    hidden_before[hidden] = len(entries)
                waiting.clear()
                entries.append(entry)
            else:
                waiting.append(entry.id)
        new.entries, new.leaf_id, new.mode, new.switches = entries, leaf_id, self.mode, self.switches
        new.hidden_before, new.hidden_last, new.lookup = hidden_before, frozenset(waiting), self.lookup
        added = entries[len(self.entries) :]
        lines = self._lines
        if lines is not None and all(a.line < b.line for a, b in pairwise(entries[len(self.entries) - 1 :])):
            new._lines, new._index = array("q", lines), None
            new._lines.extend(entry.line for entry in added)
        else:  # one index by id, as __post_init__ makes when lines go back up
            new._lines = None
            new._index = {entry.id: slot for slot, entry in enumerate(entries)}
        return new

    def slot_of(self, entry_id: str | None) -> int | None:
        """The slot of an entry, None when the transcript does not show it."""
        if entry_id is None:
            return None
        if self._index is not None:
            return self._index.get(entry_id)
        entry = self.lookup(entry_id) if self.lookup is not None else None
        lines = self._lines
        if entry is None or lines is None:
            return None
        slot = bisect_left(lines, entry.line)
        return slot if slot < len(lines) and self.entries[slot] is entry else None

    def on_path(self, entry_id: str | None) -> bool:
        """Whether an entry is on this conversation, shown or not."""
        return entry_id is not None and (
            self.slot_of(entry_id) is not None
            or entry_id in self.hidden_before
            or entry_id in self.hidden_last
        )

    def nearest_slot(self, entry_id: str | None) -> int | None:
        """The slot of an entry, or of the first shown entry after it on the path (a hidden label...).

        None when the entry is not on this conversation at all.
        """
        slot = self.slot_of(entry_id)
        if slot is not None or entry_id is None:
            return slot
        return self.hidden_before.get(entry_id)

    def last_turn(self) -> int | None:
        """The slot of the last user or assistant message: where a transcript opens (None when none)."""
        for i in range(len(self.entries) - 1, -1, -1):
            if kind_of(self.entries[i]).turn:
                return i
        return len(self.entries) - 1 if self.entries else None


def transcript_of(session: Session, entry_id: str | None, mode: str) -> Transcript:
    """The transcript of the conversation through ``entry_id`` (the session's leaf when None).

    The conversation to the session's leaf is kept for each session (one mode at a time) and, when the
    session grew at its leaf, extended by the entries appended rather than made again: a window asks for
    it on its GUI thread after every append, and walking a 520,000-entry path took 1.2 s. A loader can
    make it in its worker first.

    Args:
        session: the loaded session.
        entry_id: any entry of the conversation (a selected row); None or an unknown id gives the
            conversation to the session's leaf.
        mode: the tree's filter mode (see :mod:`core.visible.filters`).
    """
    check_mode(mode)
    start = entry_id if entry_id is not None and session.get(entry_id) is not None else session.leaf_id
    kept = _leaf_transcript(session, mode)
    if kept is not None and (start is None or start == kept.leaf_id or kept.on_path(start)):
        return kept
    made = _made(session, start, mode)
    if made.leaf_id is not None and made.leaf_id == session.leaf_id:
        _LEAF_TRANSCRIPTS[session] = _keep(session, made)
    return made


class _Kept(NamedTuple):
    """A session's transcript to its leaf, and what the session was when it was made.

    Nothing here refers to the session itself (the mapping's key is weak).
    """

    transcript: Transcript
    read: list[Entry]  # the session's list of entries: another one once the file was read again whole
    entries: int  # how many entries the session had
    ids: int  # how many distinct ids
    leaf_had_children: bool  # its leaf had children (lines before it naming it): never extended
    awaited: frozenset[str]  # parents that orphans name: an entry appended with one adopts them


# Weak: a session let go takes its transcript along.
_LEAF_TRANSCRIPTS: WeakKeyDictionary[Session, _Kept] = WeakKeyDictionary()


def keep_leaf_transcript(session: Session, transcript: Transcript | None) -> None:
    """Keep ``transcript`` as ``session``'s transcript to its leaf (one brought back from a snapshot)."""
    if transcript is not None and transcript.leaf_id is not None and transcript.leaf_id == session.leaf_id:
        _LEAF_TRANSCRIPTS[session] = _keep(session, transcript)


def transcript_parts(transcript: Transcript) -> dict[str, object]:
    """What a snapshot keeps of ``transcript`` (:func:`transcript_from_parts` makes it again)."""
    return {
        "entries": transcript.entries,
        "leaf_id": transcript.leaf_id,
        "mode": transcript.mode,
        "switches": transcript.switches,
        "hidden_before": transcript.hidden_before,
        "hidden_last": list(transcript.hidden_last),
        "lines": transcript._lines.tobytes() if transcript._lines is not None else None,
    }


def transcript_from_parts(parts: dict[str, object], session: Session) -> Transcript | None:
    """The transcript :func:`transcript_parts` took apart, for ``session``; None if the parts are not one."""
    entries, lines, hidden_last = parts.get("entries"), parts.get("lines"), parts.get("hidden_last")
    switches, hidden_before, mode = parts.get("switches"), parts.get("hidden_before"), parts.get("mode")
    if not (
        isinstance(entries, list)
        and isinstance(switches, dict)
        and isinstance(hidden_before, dict)
        and isinstance(hidden_last, list)
        and isinstance(mode, str)
        and isinstance(lines, bytes | None)
    ):
        return None
    made = Transcript.__new__(Transcript)
    made.entries, made.mode, made.switches, made.hidden_before = entries, mode, switches, hidden_before
    leaf_id = parts.get("leaf_id")
    made.leaf_id = leaf_id if isinstance(leaf_id, str) else None
    made.hidden_last, made.lookup = frozenset(hidden_last), session.by_id.get
    if lines is not None:
        made._lines, made._index = array("q"), None
        made._lines.frombytes(lines)
    else:
        made._lines, made._index = None, {entry.id: slot for slot, entry in enumerate(entries)}
    return made


def _keep(session: Session, transcript: Transcript) -> _Kept:
    tree, by_id, leaf = session.tree, session.by_id, session.leaf_id
    awaited = frozenset(
        root.parent_id for root in tree.roots if root.parent_id is not None and root.parent_id not in by_id
    )
    had_children = leaf is not None and bool(tree.children.get(leaf))
    return _Kept(transcript, session.entries, len(session.entries), len(by_id), had_children, awaited)


def _leaf_transcript(session: Session, mode: str) -> Transcript | None:
    """The kept transcript to ``session``'s leaf in ``mode``, extended by what was appended; None if none.

    Extended only when the session grew as agents grow it: every appended entry on one chain down from the
    old leaf, no id repeated or awaited by an orphan, the old leaf shown by the filter and childless before.
    Anything else (a branch, the labeled mode, whose rows depend on labels) makes it again.
    """
    kept = _LEAF_TRANSCRIPTS.get(session)
    if kept is None or kept.transcript.mode != mode or kept.read is not session.entries:
        return None
    old, entries = kept.transcript, session.entries
    if kept.entries == len(entries):
        return old if old.leaf_id == session.leaf_id else None
    added = entries[kept.entries :]
    if (
        mode == "labeled"
        or kept.leaf_had_children
        or kept.entries > len(entries)
        or len(session.by_id) - kept.ids != len(added)
        or not old.entries
        or old.entries[-1].id != old.leaf_id
        or any(entry.id in kept.awaited for entry in added)
    ):
        return None
    chain = _chain_down(session, old.entries[-1].id, added)
    if chain is None or not passes(old.entries[-1], mode, session):
        return None
    leaf = session.leaf_id
    grown = old.grown([(entry, entry.id == leaf or passes(entry, mode, session)) for entry in chain], leaf)
    _LEAF_TRANSCRIPTS[session] = kept._replace(
        transcript=grown, entries=len(entries), ids=len(session.by_id), leaf_had_children=False
    )
    return grown


def _chain_down(session: Session, top: str, added: list[Entry]) -> list[Entry] | None:
    """``added`` in path order when they are one chain from a child of ``top`` to the leaf, else None."""
    by_id = session.by_id
    fresh = {id(entry) for entry in added}
    chain: list[Entry] = []
    entry = session.get(session.leaf_id)
    while entry is not None and id(entry) in fresh and len(chain) < len(added):
        chain.append(entry)
        parent = entry.parent_id
        if parent == top:
            break
        entry = by_id.get(parent) if parent is not None and parent != entry.id else None
    if len(chain) != len(added) or not chain or chain[-1].parent_id != top:
        return None
    chain.reverse()
    return chain


def _made(session: Session, start: str | None, mode: str) -> Transcript:
    """The transcript of the conversation through ``start``, walked whole."""
    path = conversation(session, start) if start is not None else []
    leaf_id = path[-1].id if path else None
    session_leaf = session.leaf_id
    shown: list[Entry] = []
    hidden_after: list[str] = []  # hidden entries waiting for the next slot
    after: dict[str, int] = {}
    switches: dict[str, Switch] = {}
    pending: Switch | None = None  # a branch point whose child the filter hides: shown on the next slot
    children = session.tree.children
    roots = session.tree.roots
    previous: Entry | None = None
    for entry in path:
        siblings = children.get(previous.id, []) if previous is not None else roots
        if len(siblings) > 1:
            ids = tuple(s.id for s in siblings)
            index = next((i for i, s in enumerate(siblings) if s is entry), -1)
            if index < 0:  # a repeated id: the tree's object is another record with this id
                index = ids.index(entry.id) if entry.id in ids else 0
            pending = Switch(previous.id if previous is not None else None, ids, index)
        if entry.id == session_leaf or passes(entry, mode, session):  # the tree's rule for its rows
            slot = len(shown)
            shown.append(entry)
            for hidden in hidden_after:
                after[hidden] = slot
            hidden_after.clear()
            if pending is not None:
                switches[entry.id] = pending
                pending = None
        else:
            hidden_after.append(entry.id)
        previous = entry
    # The lookup is the session's dict, not the session: a transcript kept for a session
    # (_LEAF_TRANSCRIPTS, weak) must not hold it, or the session would never be let go.
    return Transcript(shown, leaf_id, mode, switches, after, frozenset(hidden_after), session.by_id.get)


def switched_leaf(session: Session, switch: Switch, index: int) -> str | None:
    """The leaf the conversation reaches through sibling ``index`` of a branch point.

    From that sibling the conversation goes on along the newest child at each step (toward the session's
    leaf when it lies below), as :func:`core.visible.navigation.conversation` does.

    Args:
        session: the session.
        switch: the branch point.
        index: which sibling (wrapped around: -1 is the last).
    """
    if not switch.siblings:
        return None
    target = switch.siblings[index % len(switch.siblings)]
    path = conversation(session, target)
    return path[-1].id if path else None


def branch_previews(session: Session, switch: Switch, width: int = 80) -> list[str]:
    """Each branch of a branch point in one line (its first entry's preview): what a switcher's menu lists.

    Args:
        session: the session.
        switch: the branch point.
        width: the most characters of a line.
    """
    entries = [session.get(entry_id) for entry_id in switch.siblings]
    known = [entry for entry in entries if entry is not None]
    bodies = iter(session.bodies(known))
    return [
        entry_preview(entry, next(bodies), width) if entry is not None else "(unknown entry)"
        for entry in entries
    ]
