"""The light per-entry index record and the small typed records it keeps per kind.

Message bodies stay on disk: an :class:`Entry` holds where its line is (byte offset and length) and
the few fields the tree, the labels and the summaries need. :meth:`core.session.session.Session.body` reads
and decodes the full entry when someone asks for it.
"""

from __future__ import annotations

from typing import NamedTuple, TypeAlias

from core.session.vocabulary import KNOWN_TYPES
from core.timefmt import js_date_ms


def js_truthy(value: object) -> bool:
    """JavaScript truthiness, which the reference uses for labels and summaries (``[]`` is truthy)."""
    if value is None or value is False:
        return False
    if isinstance(value, int | float) and not isinstance(value, bool):
        return value != 0 and value == value  # NaN is falsy
    if isinstance(value, str):
        return value != ""
    return True


class AssistantInfo(NamedTuple):
    """What the index keeps of an assistant message: its usage and why it stopped.

    Attributes:
        tokens: ``usage.totalTokens`` (or the sum of its parts; 0 without usage).
        cost: ``usage.cost.total`` (0.0 without it).
        stop_reason: ``stopReason`` as written (normally a string; anything else is kept as it is).
    """

    tokens: int | float
    cost: float
    stop_reason: object


class LabelInfo(NamedTuple):
    """What the index keeps of a label entry: ``targetId`` and ``label`` as written (unchecked)."""

    target: object
    label: object


class UsageInfo(NamedTuple):
    """Usage recorded in the body of an entry that is not an assistant message, in figures.

    A tool result (a nested model call), a ``usage`` record, a branch summary or a compaction (the
    summarising call) may record a usage object; the index keeps its :func:`core.session.usage.usage_totals`
    when it is an object, so that nobody reads the line again to add it up.

    Attributes:
        tokens: ``totalTokens`` (or the sum of its parts).
        cost: ``cost.total`` (0.0 without it).
    """

    tokens: int | float
    cost: float


class CompactionInfo(NamedTuple):
    """What the index keeps of a compaction entry: ``tokensBefore`` as written; its usage, if recorded."""

    tokens_before: object
    usage: UsageInfo | None = None


class ContextEditInfo(NamedTuple):
    """What the index keeps of a pi 1.x ``context_edit`` entry.

    Attributes:
        target: ``targetId`` as written (unchecked; an edit whose target is not a string never applies).
        drops: True when ``replacement`` is null: the target leaves the context; otherwise only its
            content is replaced (read the body for the new content).
    """

    target: object
    drops: bool


# A NamedTuple is a tuple (same memory, ``info[0]`` still works) whose fields have names and types.
EntryInfo: TypeAlias = AssistantInfo | LabelInfo | CompactionInfo | ContextEditInfo | UsageInfo | str | None
"""``Entry.info``: the record of the entry's kind, a session_info's name (str, or None once cleared)."""


def body_usage(entry: Entry) -> UsageInfo | None:
    """The usage the index read from ``entry``'s body (not an assistant message's), None when none.

    Which kinds of entries count it is their kinds' to say (``Kind.usage_in_body``, :mod:`core.kinds`).
    """
    info = entry.info
    if isinstance(info, UsageInfo):
        return info
    if isinstance(info, CompactionInfo):
        return info.usage
    return None


class Entry:
    r"""One entry of a session file (any line but the header), as a light index record.

    Ids are the file's own strings. JSON may escape half a surrogate pair (``\ud800``, which
    ``JSON.parse`` accepts), which gives a ``str`` that strict UTF-8 cannot encode; such an id is handed
    out as it is, because parent links, labels and edits name it exactly so. Whoever writes an id out encodes
    it with ``errors="surrogatepass"`` or ``"backslashreplace"`` (the CLI's output does the latter).

    Attributes:
        id: the entry id (synthesised for legacy v1 entries and for entries without one).
        parent_id: the parent's id, or None for a root.
        type: the ``type`` string as written in the file.
        kind: ``type`` with variant spellings normalised (``modelChange`` -> ``model_change``).
        timestamp: the entry's ``timestamp`` value as written (normally an ISO string).
        ts_ms: ``timestamp`` in ms since the epoch, None when it does not parse.
        line: 1-based line number in the file.
        offset, length: where the line's bytes are in the file (without the newline).
        role: ``message.role`` for message entries, else None.
        synthetic: True when ``id``/``parentId`` were assigned in memory (legacy v1 migration).
        info: a small record of what the kind needs (:data:`EntryInfo`): :class:`AssistantInfo` for an
            assistant message, :class:`LabelInfo` for a label, :class:`CompactionInfo` for a
            compaction, :class:`ContextEditInfo` for a context_edit, :class:`UsageInfo` for a tool
            result, usage record or branch summary that records usage, the name (or None) for a
            session_info, None for the rest.
    """

    __slots__ = (
        "id",
        "info",
        "kind",
        "length",
        "line",
        "offset",
        "parent_id",
        "role",
        "synthetic",
        "timestamp",
        "type",
    )

    def __init__(
        self,
        id: str,
        parent_id: str | None,
        type: str,
        kind: str,
        timestamp: object,
        line: int,
        offset: int,
        length: int,
        role: str | None = None,
        synthetic: bool = False,
        info: EntryInfo = None,
    ) -> None:
        self.id = id
        self.parent_id = parent_id
        self.type = type
        self.kind = kind
        self.timestamp = timestamp
        self.line = line
        self.offset = offset
        self.length = length
        self.role = role
        self.synthetic = synthetic
        self.info = info

    @property
    def ts_ms(self) -> int | float | None:
        """``timestamp`` in ms since the epoch, None when it does not parse.

        Computed when asked: only sibling sorting needs it, and converting 20,000 timestamps on every
        load is measurable.
        """
        return js_date_ms(self.timestamp)

    @property
    def is_known(self) -> bool:
        """False for entry types this library does not know (kept and shown generically)."""
        return self.kind in KNOWN_TYPES

    def __repr__(self) -> str:
        role = f" {self.role}" if self.role else ""
        return f"<Entry {self.id} {self.kind}{role} line {self.line} parent={self.parent_id}>"
