"""The light per-entry index record, and the entry-type vocabulary.

Message bodies stay on disk: an :class:`Entry` holds where its line is (byte offset and length) and
the few fields the tree, the labels and the summaries need. :meth:`core.session.session.Session.body` reads
and decodes the full entry when someone asks for it.
"""

from __future__ import annotations

from typing import NamedTuple, TypeAlias

from core.timefmt import js_date_ms

# Entry types, by who writes them (FORMAT.md, FORMAT-latest.md §2 and §6, the spec).
PI_TYPES = frozenset(
    {
        "message",
        "model_change",
        "thinking_level_change",
        "compaction",
        "branch_summary",
        "custom",
        "custom_message",
        "label",
        "session_info",
    }
)
"""The nine types every pi writes (0.73.1 and 1.6.0 alike)."""

PI_1X_TYPES = frozenset({"usage", "context_edit"})
"""Written only by pi 1.x (0.74.0 on): ``usage`` (the cost of a side call such as a cache warm-up, never
in context) and ``context_edit`` (replaces or drops an earlier entry's content in the context)."""

PRIME_AGENT_TYPES = frozenset(
    {"service_tier_change", "child_usage_attributed", "session_state", "agent_status", "git_state"}
)
"""Written only by Prime Agent (the fork the spec describes); none of them enters model context except
``service_tier_change``, which sets the context's ``serviceTier``."""

KNOWN_TYPES = PI_TYPES | PI_1X_TYPES | PRIME_AGENT_TYPES
"""Every entry type this library knows; anything else is kept and shown generically."""

# Variant spellings seen in the wild (the second format document). Read leniently, never written.
# pi 1.x's two new types have no variant spelling anywhere, so none is guessed for them: a guessed
# alias would change what the model saw for a line the agent itself ignores.
TYPE_ALIASES = {
    "modelChange": "model_change",
    "thinkingLevel": "thinking_level_change",
    "thinkingLevelChange": "thinking_level_change",
    "serviceTierChange": "service_tier_change",
    "branchSummary": "branch_summary",
    "customMessage": "custom_message",
    "sessionInfo": "session_info",
    "childUsageAttributed": "child_usage_attributed",
    "sessionState": "session_state",
    "agentStatus": "agent_status",
    "gitState": "git_state",
}

MESSAGE_ROLES = frozenset(
    {
        "user",
        "assistant",
        "toolResult",
        "bashExecution",
        "custom",
        "branchSummary",
        "compactionSummary",
        "system",  # pi 1.x: the system prompt in force, as a message (FORMAT-latest §3)
    }
)

# The fields each type carries beyond the base ``type, id, parentId, timestamp``, in the order the agents
# write them; optional ones included. A renderer shows these and folds anything else away as extra data.
ENTRY_FIELDS: dict[str, tuple[str, ...]] = {
    "message": ("message",),
    "model_change": ("provider", "modelId"),
    "thinking_level_change": ("thinkingLevel",),
    # 1.6.0 adds usage (the summarising call) and systemMessage; Prime Agent adds customInstructions.
    "compaction": (
        "summary",
        "firstKeptEntryId",
        "tokensBefore",
        "details",
        "usage",
        "fromHook",
        "customInstructions",
        "systemMessage",
    ),
    "branch_summary": ("fromId", "summary", "details", "usage", "fromHook"),
    "custom": ("customType", "data"),
    "custom_message": ("customType", "content", "display", "details"),
    "label": ("targetId", "label"),
    "session_info": ("name",),
    "usage": ("kind", "provider", "model", "usage", "note"),
    "context_edit": ("targetId", "replacement"),
    "service_tier_change": ("serviceTier",),
    "child_usage_attributed": ("targetId", "childUsage", "aggregateUsage", "origin"),
    "session_state": ("state",),  # {status: "active" | "archived" | "crash"}
    "agent_status": ("status",),  # {summary, taskState?, basedOnMessageCount}
    "git_state": ("git",),
}

# Message fields beyond ``role`` by role, as 0.73.1, 1.6.0 (its additions included) and the fork write them.
MESSAGE_FIELDS: dict[str, tuple[str, ...]] = {
    "user": ("content", "timestamp"),
    "assistant": (
        "content",
        "api",
        "provider",
        "model",
        "usage",
        "stopReason",  # 1.6.0 adds "pending" and "deferred" to stop, length, toolUse, error, aborted
        "errorMessage",
        "timestamp",
        # 1.6.0
        "responseModel",
        "responseId",
        "providerThinkingLevel",
        "thinkingLevel",
        "diagnostics",
        "deferred",
        "rawStopReason",
        "endTurn",
        "durationMs",
    ),
    "toolResult": (
        "toolCallId",
        "toolName",
        "content",
        "details",
        "isError",
        "timestamp",
        "usage",  # 1.6.0
        # 1.6.0: {calls: [{id, name, arguments?, argumentsBytes?, status, durationMs?, error?}], complete}
        "nestedCalls",
        "durationMs",  # 1.6.0
    ),
    "bashExecution": (
        "command",
        "output",
        "exitCode",
        "cancelled",
        "truncated",
        "fullOutputPath",
        "timestamp",
        "excludeFromContext",
    ),
    "custom": ("customType", "content", "display", "details", "timestamp"),
    "branchSummary": ("summary", "fromId", "timestamp"),
    "compactionSummary": (
        "summary",
        "tokensBefore",
        "retainedMessageCount",
        "customInstructions",
        "timestamp",
    ),
    "system": ("content", "sections", "toolsAdded", "toolsRemoved", "timestamp"),  # 1.6.0
}


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


class CompactionInfo(NamedTuple):
    """What the index keeps of a compaction entry: ``tokensBefore`` as written."""

    tokens_before: object


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
EntryInfo: TypeAlias = AssistantInfo | LabelInfo | CompactionInfo | ContextEditInfo | str | None
"""``Entry.info``: the record of the entry's kind, a session_info's name (str, or None once cleared)."""


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
            compaction, :class:`ContextEditInfo` for a context_edit, the name (or None) for a
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
