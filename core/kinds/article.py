"""The second format document's tool calls and results: entries of their own, not parts of messages.

The article in ``shared/spec`` describes ``{"type": "toolCall", "toolCallId", "name", "arguments"}`` and
``{"type": "toolResult", "toolCallId", "toolName", "content", "isError"}`` lines beside the messages. No
agent of the pi family writes them (pi keeps a call in its assistant message and a result in a message of
the ``toolResult`` role), so nothing reads them into what the model saw; a file that has them is read
leniently and each shows as what it is, instead of as an unknown entry's JSON.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from core.kinds.common import fold_key, message_ms, one_line, tool_call_preview
from core.kinds.derived import DiffMessage, SearchWords
from core.kinds.document import Card, ToolCall
from core.kinds.kind import NO_TOOLS_MODE, TOOLS, Kind
from core.kinds.tools import call_blocks, call_words, diff_call, result_blocks, tool_head
from core.kinds.touches import Touch, call_touches
from core.session.content import as_dict, as_text, joined_text, message_text

if TYPE_CHECKING:
    from core.kinds.notes import EntryNotes
    from core.kinds.pairing import Results
    from core.session import Entry
    from core.session.content import Body

__all__ = ["ToolCallEntryKind", "ToolResultEntryKind"]


class ToolCallEntryKind(Kind):
    """A tool call written as an entry of its own (``type: toolCall``)."""

    name = "toolCall"
    types = ("toolCall", "tool_call")
    title = "Tool call"
    family = "tool"
    export_part = TOOLS
    in_diff = True
    touches_files = True

    def preview(self, entry: Entry, body: Body, width: int = 100) -> str:
        """``read README.md``."""
        return one_line(tool_call_preview(body.get("name"), body.get("arguments")), width)

    def search_words(self, entry: Entry, body: Body) -> SearchWords | None:
        """The tool's name and its arguments."""
        name = as_text(body.get("name"))
        return SearchWords([name, call_words(body.get("arguments"))], self.name, name, "", message_ms(body))

    def touches(self, entry: Entry, body: Body) -> list[Touch]:
        """The files the call names (:func:`core.kinds.touches.call_touches`)."""
        return call_touches(body.get("name"), body.get("arguments"))

    def diff_record(self, entry: Entry, body: Body, usage_override: dict[str, object] | None) -> DiffMessage:
        """The call, as an assistant message's calls are compared."""
        return DiffMessage(entry.id, entry.kind, self.name, calls=(diff_call(body),), ts_ms=entry.ts_ms)

    def card(
        self, entry: Entry, body: Body, results: Results | None = None, notes: EntryNotes | None = None
    ) -> Card:
        """The call as a tool call block: its head and what it does (its result is an entry of its own)."""
        name = as_text(body.get("name")) or "tool"
        args = as_dict(body.get("arguments"))
        key = fold_key(entry.id, "tool")
        path = as_text(args.get("path")) or as_text(args.get("file_path"))
        call = ToolCall(name, tool_head(name, args), tuple(call_blocks(name, body, key, path, "")), None, key)
        return self.heading_card(entry, (call,), (), body.get("timestamp"))


class ToolResultEntryKind(Kind):
    """A tool result written as an entry of its own (``type: toolResult``)."""

    name = "toolResult"
    types = ("toolResult", "tool_result")
    title = "Tool result"
    family = "tool"
    hidden_in = frozenset({NO_TOOLS_MODE})
    export_part = TOOLS
    in_diff = True

    def preview(self, entry: Entry, body: Body, width: int = 100) -> str:
        """``[read] the first words of the output``."""
        mark = " error" if body.get("isError") else ""
        return one_line(f"[{body.get('toolName', 'tool')}{mark}] {message_text(body.get('content'))}", width)

    def search_words(self, entry: Entry, body: Body) -> SearchWords | None:
        """The output's text; the tool's name."""
        tool = as_text(body.get("toolName"))
        return SearchWords([joined_text(body.get("content"))], self.name, tool, "", message_ms(body))

    def diff_record(self, entry: Entry, body: Body, usage_override: dict[str, object] | None) -> DiffMessage:
        """The output and whether it failed."""
        tool = body.get("toolName")
        return DiffMessage(
            entry.id,
            entry.kind,
            self.name,
            result=joined_text(body.get("content")),
            is_error=body.get("isError") is True,
            tool_name=tool if isinstance(tool, str) else None,
            ts_ms=entry.ts_ms,
        )

    def card(
        self, entry: Entry, body: Body, results: Results | None = None, notes: EntryNotes | None = None
    ) -> Card:
        """The tool's name, its output, images and how it ran, as a tool result shown alone."""
        error = body.get("isError") is True
        facts = [as_text(body.get("toolName")) or "tool"] + (["✗ error"] if error else [])
        blocks = result_blocks(body, entry.id, fold_key(entry.id, "result"))
        return self.heading_card(entry, blocks, facts, body.get("timestamp"))
