"""The format's words: entry types, message roles and content-block types, each spelt once.

Session files name what an entry is with strings (``"type": "compaction"``, ``"role": "toolResult"``,
``{"type": "toolCall"}`` in a message's content). Those strings are written here once, as constants; the
session layer (reading, migration, the tree, what the model saw) uses the constants, and everything that
shows or derives something from an entry asks the registry of kinds (:mod:`core.kinds`), which maps
these names to what each kind of entry is. No other module compares a type or role with a literal
(``tests/core/test_kind_literals.py``).
"""

from __future__ import annotations

from typing import Final

# ----------------------------------------------------------------- entry types (the ``type`` field)
HEADER: Final = "session"
"""The header line's type (the first line of a file; not an entry)."""
HEADER_VARIANT: Final = "header"
"""A variant spelling of the header's type (the second format document)."""
TITLE_SLOT: Final = "title"
"""oh-my-pi's first line, before the header: a fixed-width slot (``{type, v, title, source?, updatedAt,
pad}``, 256 bytes) holding the session's current title, rewritten in place when the title changes."""
MESSAGE: Final = "message"
MODEL_CHANGE: Final = "model_change"
THINKING_LEVEL_CHANGE: Final = "thinking_level_change"
COMPACTION: Final = "compaction"
BRANCH_SUMMARY: Final = "branch_summary"
CUSTOM: Final = "custom"
"""An extension's data entry (``type``); also a message role (an extension's message)."""
CUSTOM_MESSAGE: Final = "custom_message"
LABEL: Final = "label"
SESSION_INFO: Final = "session_info"
USAGE: Final = "usage"
CONTEXT_EDIT: Final = "context_edit"
SERVICE_TIER_CHANGE: Final = "service_tier_change"
CHILD_USAGE_ATTRIBUTED: Final = "child_usage_attributed"
SESSION_STATE: Final = "session_state"
AGENT_STATUS: Final = "agent_status"
GIT_STATE: Final = "git_state"

# ----------------------------------------------------------------- message roles (``message.role``)
USER: Final = "user"
ASSISTANT: Final = "assistant"
TOOL_RESULT: Final = "toolResult"
BASH_EXECUTION: Final = "bashExecution"
HOOK_MESSAGE: Final = "hookMessage"
"""The role of an extension's message before version 3 (migrated to ``custom``)."""
BRANCH_SUMMARY_ROLE: Final = "branchSummary"
COMPACTION_SUMMARY_ROLE: Final = "compactionSummary"
SYSTEM: Final = "system"

# ----------------------------------------------------------------- content blocks (``content[i].type``)
TEXT_BLOCK: Final = "text"
THINKING_BLOCK: Final = "thinking"
TOOL_CALL_BLOCK: Final = "toolCall"
IMAGE_BLOCK: Final = "image"

# ----------------------------------------------------------------- stop reasons (``message.stopReason``)
STOP_END: Final = "stop"
STOP_TOOL_USE: Final = "toolUse"
STOP_ABORTED: Final = "aborted"
STOP_ERROR: Final = "error"
STOP_LENGTH: Final = "length"
STOP_PENDING: Final = "pending"
STOP_DEFERRED: Final = "deferred"

# Entry types, by who writes them (FORMAT.md, FORMAT-latest.md §2 and §6, the spec).
PI_TYPES = frozenset(
    {
        MESSAGE,
        MODEL_CHANGE,
        THINKING_LEVEL_CHANGE,
        COMPACTION,
        BRANCH_SUMMARY,
        CUSTOM,
        CUSTOM_MESSAGE,
        LABEL,
        SESSION_INFO,
    }
)
"""The nine types every pi writes (0.73.1 and 1.6.0 alike)."""

PI_1X_TYPES = frozenset({USAGE, CONTEXT_EDIT})
"""Written only by pi 1.x (0.74.0 on): ``usage`` (the cost of a side call such as a cache warm-up, never
in context) and ``context_edit`` (replaces or drops an earlier entry's content in the context)."""

PRIME_AGENT_TYPES = frozenset(
    {SERVICE_TIER_CHANGE, CHILD_USAGE_ATTRIBUTED, SESSION_STATE, AGENT_STATUS, GIT_STATE}
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
        USER,
        ASSISTANT,
        TOOL_RESULT,
        BASH_EXECUTION,
        CUSTOM,
        BRANCH_SUMMARY_ROLE,
        COMPACTION_SUMMARY_ROLE,
        SYSTEM,  # pi 1.x: the system prompt in force, as a message (FORMAT-latest §3)
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


def spellings(type_name: str) -> tuple[str, ...]:
    """A type's name and its variant spellings (:data:`TYPE_ALIASES`): what a kind declares it stands for."""
    return (type_name, *(alias for alias, name in TYPE_ALIASES.items() if name == type_name))


def normal_type(type_name: str) -> str:
    """A type as the index keeps it (``Entry.kind``): a variant spelling read as its canonical name."""
    return type_name if type_name in KNOWN_TYPES else TYPE_ALIASES.get(type_name, type_name)
