"""What the kinds of entries derive for other parts of the app: search words and diff records.

Types only, so that a kind (:mod:`core.kinds`) can make them without importing the catalogue or the
diff, which sit above the kinds: the catalogue indexes :class:`SearchWords`, a branch diff compares
:class:`DiffMessage` records (re-exported by :mod:`core.diff.types`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, NamedTuple

from core.session.vocabulary import ASSISTANT, BASH_EXECUTION, STOP_ABORTED, STOP_ERROR, TOOL_RESULT

if TYPE_CHECKING:
    from core.kinds.touches import Touch

__all__ = ["DiffMessage", "SearchWords", "ToolCall"]


class SearchWords(NamedTuple):
    """What the catalogue's full-text index keeps of one entry (:mod:`core.catalogue.search_text`).

    Attributes:
        parts: the texts to index, in order (joined with newlines).
        role: what the search hit says the entry is: the message role (``user``, ``toolResult``...) or
            the entry kind (``compaction``, ``custom_message``).
        tools: tool names involved, space-separated (an assistant's calls, a result's tool).
        model: ``provider/model`` of an assistant message, else ``""``.
        ts_ms: the message's own ms time when it has one; None to use the entry's.
    """

    parts: list[str]
    role: str
    tools: str = ""
    model: str = ""
    ts_ms: int | float | None = None


@dataclass(frozen=True, slots=True)
class ToolCall:
    """A tool call of an assistant message: its name and its arguments as readable ``key: value`` lines."""

    name: str
    arguments: str
    path: str | None = None  # the file its path argument names
    touches: tuple[Touch, ...] = ()  # every file it names, and how (core.kinds.touches.call_touches)


@dataclass(frozen=True, slots=True)
class DiffMessage:
    """One message as the diff shows it.

    Attributes:
        entry_id: the entry id in its session.
        kind: the entry kind (``message``, ``compaction``, ``branch_summary``, ``custom_message``,
            ``usage``, ``context_edit``).
        role: the message role, or the kind for entries that are not messages.
        text: the visible text (text blocks; an image is ``[image]``; a command is ``$ COMMAND``; a
            usage record's kind and note; a context edit's ``replaces ID: TEXT`` or ``drops ID``).
        calls: the tool calls of an assistant message.
        result: a tool result's or a command's output.
        model: ``provider/model`` of an assistant message or a usage record.
        stop_reason: an assistant message's ``stopReason``.
        error: an assistant's ``errorMessage``.
        is_error: a tool result marked ``isError`` (or a command with a non-zero exit code).
        tool_name: a tool result's ``toolName``.
        tokens, cost: an assistant message's or a usage record's usage.
        ts_ms: the entry timestamp in ms.
    """

    entry_id: str
    kind: str
    role: str
    text: str = ""
    calls: tuple[ToolCall, ...] = ()
    result: str = ""
    model: str | None = None
    stop_reason: str | None = None
    error: str | None = None
    is_error: bool = False
    tool_name: str | None = None
    tokens: float = 0
    cost: float = 0.0
    ts_ms: float | None = None

    @property
    def key(self) -> tuple[object, ...]:
        """What must be equal for two messages to count as the same (ids and times left out)."""
        return (
            self.role,
            self.model,
            _norm(self.text),
            tuple((c.name, _norm(c.arguments)) for c in self.calls),
            _norm(self.result),
            self.is_error,
            self.stop_reason if self.failed else None,
        )

    @property
    def meta(self) -> str:
        """Model, stop reason and error flag as one line (compared word by word in a changed row)."""
        parts = []
        if self.model:
            parts.append(f"model {self.model}")
        if self.stop_reason:
            parts.append(f"stop {self.stop_reason}")
        if self.is_error:
            parts.append("error")
        return " · ".join(parts)

    def preview(self, width: int = 100) -> str:
        """A one-line description (``assistant: text → read path``)."""
        text = " ".join(self.text.split())
        if self.calls:
            calls = "; ".join(f"{c.name} {c.path}" if c.path else c.name for c in self.calls)
            text = f"{text} → {calls}" if text else calls
        if self.role == TOOL_RESULT:
            text = f"[{self.tool_name or 'tool'}{' error' if self.is_error else ''}] " + " ".join(
                self.result.split()
            )
        elif self.role == BASH_EXECUTION:
            text = f"{text} ({' '.join(self.result.split())})"
        else:
            text = f"{self.role}: {text}"
        return text if len(text) <= width else text[: max(0, width - 1)] + "…"

    @property
    def failed(self) -> bool:
        """Whether the reply stopped on an error or was aborted."""
        return self.stop_reason in (STOP_ERROR, STOP_ABORTED)

    @property
    def is_reply(self) -> bool:
        """Whether it is an assistant message (its model and how it stopped sum up a branch)."""
        return self.role == ASSISTANT

    def to_json(self) -> dict[str, object]:
        """A plain dict for JSON output."""
        return {
            "entryId": self.entry_id,
            "kind": self.kind,
            "role": self.role,
            "text": self.text,
            "toolCalls": [{"name": c.name, "arguments": c.arguments, "path": c.path} for c in self.calls],
            "result": self.result,
            "toolName": self.tool_name,
            "model": self.model,
            "stopReason": self.stop_reason,
            "errorMessage": self.error,
            "isError": self.is_error,
            "tokens": self.tokens,
            "cost": self.cost,
            "timestamp": self.ts_ms,
        }


def _norm(text: str) -> str:
    return " ".join(text.split())
