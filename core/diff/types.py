"""The records of a branch diff, as pure data (no Qt), and the row kinds (a message's record is its kind's).

Word and line pieces, sections, messages, rows, side summaries, the common part and the whole diff.

Built by ``core/diff/compare.py`` (re-exported there); shown by ``core/diff/text.py``,
``core/diff/page.py``, ``core/diff/cells.py`` and the GUI; ``core/diff/json_doc.py`` writes them as JSON.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field, replace

from core.kinds.derived import DiffMessage, ToolCall

__all__ = [
    "CHANGED",
    "DELETED",
    "INSERTED",
    "SAME",
    "BranchDiff",
    "CommonPart",
    "DiffMessage",
    "DiffRow",
    "Op",
    "Section",
    "SideSummary",
    "ToolCall",
    "counts",
]

SAME, CHANGED, INSERTED, DELETED = "same", "changed", "inserted", "deleted"


# ---------------------------------------------------------------------------- data
@dataclass(frozen=True, slots=True)
class Op:
    """One piece of a word or line diff: ``tag`` is ``"equal"``, ``"delete"`` (left only) or ``"insert"``."""

    tag: str
    text: str


@dataclass(frozen=True, slots=True)
class Section:
    """The changes of one part of a changed message.

    Attributes:
        name: ``"text"``, ``"call N: NAME"`` (a tool call's arguments), ``"result"`` (a tool result or
            command output) or ``"meta"`` (model, stop reason, error flag).
        unit: ``"word"`` or ``"line"``.
        ops: the pieces in order; the left side is the equal and deleted pieces, the right side the
            equal and inserted ones.
    """

    name: str
    unit: str
    ops: tuple[Op, ...]

    def swapped(self) -> Section:
        """The same changes seen from the other side."""
        flip = {"delete": "insert", "insert": "delete", "equal": "equal"}
        return Section(self.name, self.unit, tuple(Op(flip[o.tag], o.text) for o in self.ops))


@dataclass(frozen=True, slots=True)
class DiffRow:
    """One aligned row of a diff.

    ``kind`` is ``same``, ``changed``, ``inserted`` (right only) or ``deleted`` (left only).
    ``sections`` holds the word and line changes of a changed row (empty otherwise); ``similarity`` is
    the share of words the two messages have in common (1.0 for same rows, 0.0 for one-sided rows).
    """

    kind: str
    left: DiffMessage | None
    right: DiffMessage | None
    sections: tuple[Section, ...] = ()
    similarity: float = 0.0

    def swapped(self) -> DiffRow:
        """The row seen from the other side (inserted and deleted trade places)."""
        kind = {INSERTED: DELETED, DELETED: INSERTED}.get(self.kind, self.kind)
        return DiffRow(
            kind, self.right, self.left, tuple(s.swapped() for s in self.sections), self.similarity
        )

    def to_json(self) -> dict[str, object]:
        """A plain dict for JSON output."""
        return {
            "kind": self.kind,
            "left": self.left.to_json() if self.left else None,
            "right": self.right.to_json() if self.right else None,
            "similarity": round(self.similarity, 4),
            "sections": [
                {"name": s.name, "unit": s.unit, "ops": [[o.tag, o.text] for o in s.ops]}
                for s in self.sections
            ],
        }


@dataclass(frozen=True, slots=True)
class SideSummary:
    """What one side did after the common part.

    Attributes:
        file: the session file.
        entry_id: the entry compared (the end of the side's path).
        messages: content entries after the common part (the rows of this side).
        tool_calls: tool calls made.
        tokens, cost: assistant usage summed.
        duration_ms: from the common ancestor (or the side's first entry) to its last entry; None
            when the timestamps do not tell.
        files_touched: the files its tool calls changed (edited or wrote, :mod:`core.kinds.touches`: the
            edit and write tools, a command's ``> file``, ``sed -i``...), as written, in order of first use.
        models: ``provider/model`` of its assistant messages, in order of first use.
        ended: how it ended: the last assistant message's ``stopReason`` (``stop``, ``toolUse``,
            ``length``, ``error``, ``aborted``), or ``None`` when the side has no assistant message.
        last_role: the role of the side's last message (``user`` means no answer came), or None.
        error: the last assistant message's error text, if it ended in an error.
        title: how a reader names the session: its name, else its first message (one line, cut), else
            its file name.
    """

    file: str
    entry_id: str | None
    messages: int = 0
    tool_calls: int = 0
    tokens: float = 0
    cost: float = 0.0
    duration_ms: float | None = None
    files_touched: tuple[str, ...] = ()
    models: tuple[str, ...] = ()
    ended: str | None = None
    last_role: str | None = None
    error: str | None = None
    title: str = ""

    def to_json(self) -> dict[str, object]:
        """A plain dict for JSON output."""
        return {
            "file": self.file,
            "entryId": self.entry_id,
            "messages": self.messages,
            "toolCalls": self.tool_calls,
            "tokens": self.tokens,
            "cost": round(self.cost, 10),
            "durationMs": self.duration_ms,
            "filesTouched": list(self.files_touched),
            "models": list(self.models),
            "ended": self.ended,
            "lastRole": self.last_role,
            "errorMessage": self.error,
        }


@dataclass(frozen=True, slots=True)
class CommonPart:
    """The part both sides share.

    Attributes:
        ancestor_id: the last shared entry on the left side's path (None when nothing is shared).
        right_ancestor_id: the same on the right side (differs from ``ancestor_id`` only when the
            common part was found by content).
        entries: shared entries (on the left path), all kinds.
        messages: shared content entries.
        matched_by: ``"tree"`` (one session), ``"ids"`` (shared entry ids), ``"content"`` (identical
            messages) or ``"none"``.
        tail: the last few shared messages, for display (the rest is only counted).
    """

    ancestor_id: str | None
    right_ancestor_id: str | None
    entries: int
    messages: int
    matched_by: str
    tail: tuple[DiffMessage, ...] = ()

    def swapped(self) -> CommonPart:
        """The common part seen from the other side."""
        return replace(self, ancestor_id=self.right_ancestor_id, right_ancestor_id=self.ancestor_id)

    def to_json(self) -> dict[str, object]:
        """A plain dict for JSON output."""
        return {
            "ancestorId": self.ancestor_id,
            "rightAncestorId": self.right_ancestor_id,
            "entries": self.entries,
            "messages": self.messages,
            "matchedBy": self.matched_by,
            "tail": [m.to_json() for m in self.tail],
        }


@dataclass(frozen=True, slots=True)
class BranchDiff:
    """The result of :func:`diff_paths` or :func:`diff_sessions`."""

    left: SideSummary
    right: SideSummary
    common: CommonPart
    rows: tuple[DiffRow, ...]
    counts: dict[str, int] = field(default_factory=dict)

    @property
    def identical(self) -> bool:
        """True when every row is the same on both sides (or there are none)."""
        return all(r.kind == SAME for r in self.rows)

    def swapped(self) -> BranchDiff:
        """The diff with the sides exchanged."""
        rows = tuple(r.swapped() for r in self.rows)
        return BranchDiff(self.right, self.left, self.common.swapped(), rows, counts(rows))

    def to_json(self) -> dict[str, object]:
        """The documented JSON shape (``format``/``version`` first; see ``core/diff/json_doc.py``)."""
        return {
            "format": "prime-sessions-diff",
            "version": 1,
            "left": self.left.to_json(),
            "right": self.right.to_json(),
            "common": self.common.to_json(),
            "counts": dict(self.counts),
            "rows": [r.to_json() for r in self.rows],
        }


# ---------------------------------------------------------------------------- helpers of the records
def counts(rows: Iterable[DiffRow]) -> dict[str, int]:
    """How many rows there are of each kind (every kind present, zero when none)."""
    counts = dict.fromkeys((SAME, CHANGED, INSERTED, DELETED), 0)
    for row in rows:
        counts[row.kind] += 1
    return counts
