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
from typing import TYPE_CHECKING

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

    Args:
        session: the loaded session.
        entry_id: any entry of the conversation (a selected row); None or an unknown id gives the
            conversation to the session's leaf.
        mode: the tree's filter mode (see :mod:`core.visible.filters`).
    """
    check_mode(mode)
    start = entry_id if entry_id is not None and session.get(entry_id) is not None else session.leaf_id
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
    return Transcript(shown, leaf_id, mode, switches, after, frozenset(hidden_after), session.get)


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
