"""The conversation's messages: the user's, the assistant's, system messages, and unknown roles.

The assistant's card holds its thinking and its tool calls with their results; pi 1.x's system message
folds its prompt away; a message of a role nobody declared shows its text and its JSON.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from core.kinds.common import (
    content_part,
    content_parts,
    diff_text,
    fold_key,
    message_ms,
    one_line,
    raw_json,
    tool_call_preview,
)
from core.kinds.derived import DiffMessage, SearchWords
from core.kinds.derived import ToolCall as DiffToolCall
from core.kinds.document import (
    ERROR,
    NOTE,
    WARN,
    Block,
    Bullets,
    Card,
    Fold,
    Inline,
    Markdown,
    Para,
    Thinking,
    bold,
    code,
)
from core.kinds.kind import Kind
from core.kinds.notes import note_blocks
from core.kinds.tools import call_words, diff_call, tool_call
from core.kinds.touches import Touch, call_touches
from core.kinds.wording import GENERIC_MARK, assistant_facts, stop_note, system_facts, usage_text
from core.session.content import (
    as_dict,
    as_text,
    content_blocks,
    joined_text,
    message_of,
    message_text,
    numbered_blocks,
)
from core.session.usage import ASSISTANT_USAGE, UsageSource, model_key, usage_totals
from core.session.vocabulary import (
    ASSISTANT,
    STOP_ABORTED,
    STOP_DEFERRED,
    STOP_END,
    STOP_ERROR,
    STOP_LENGTH,
    STOP_PENDING,
    STOP_TOOL_USE,
    SYSTEM,
    TEXT_BLOCK,
    THINKING_BLOCK,
    TOOL_CALL_BLOCK,
    USER,
)

if TYPE_CHECKING:
    from collections.abc import Mapping

    from core.kinds.notes import EntryNotes
    from core.kinds.pairing import Results
    from core.session import Entry
    from core.session.content import Body

__all__ = ["AssistantKind", "MessageKind", "SystemKind", "UserKind", "system_blocks"]

MAX_TOOL_DESCRIPTION = 200  # characters of a tool's description where a system message adds the tool


class MessageKind(Kind):
    """A message entry whose role nobody declared (or with no message object): its text and its JSON."""

    name = "message"
    title = "Message"
    family = "other"
    in_diff = True
    known = False

    def preview(self, entry: Entry, body: Body, width: int = 100) -> str:
        """``role: text``."""
        message = message_of(body)
        return one_line(f"{message.get('role', '?')}: {message_text(message.get('content'))}", width)

    def search_words(self, entry: Entry, body: Body) -> SearchWords | None:
        """The text of its content (when it has a message object)."""
        message = body.get("message")
        if not isinstance(message, dict):
            return None
        return SearchWords(
            [joined_text(message.get("content"))], entry.role or "message", ts_ms=message_ms(message)
        )

    def diff_record(self, entry: Entry, body: Body, usage_override: dict[str, object] | None) -> DiffMessage:
        """Its role and text."""
        message = message_of(body)
        role = entry.role or as_text(message.get("role")) or "message"
        return DiffMessage(
            entry.id, entry.kind, role, text=diff_text(message.get("content")), ts_ms=entry.ts_ms
        )

    def card(
        self, entry: Entry, body: Body, results: Results | None = None, notes: EntryNotes | None = None
    ) -> Card:
        """``[message ROLE]``, the words for an unknown kind, its content, and its JSON folded away."""
        message = body.get("message")
        role = message.get("role") if isinstance(message, dict) else None
        title = f"[{entry.type or 'entry'}{' ' + role if isinstance(role, str) and role else ''}]"
        blocks: list[Block] = [Para((GENERIC_MARK[0].upper() + GENERIC_MARK[1:] + ".",), NOTE)]
        if isinstance(message, dict):
            blocks.extend(content_parts(message.get("content"), entry.id))
        blocks.append(raw_json(entry, body))
        return self.heading_card(entry, blocks, title=title)


class UserKind(Kind):
    """What the user typed (and the images they pasted)."""

    name = USER
    roles = (USER,)
    title = "User"
    family = "user"
    user_turn = True
    turn = True
    in_diff = True

    def preview(self, entry: Entry, body: Body, width: int = 100) -> str:
        """``user: text``."""
        return one_line(f"user: {message_text(message_of(body).get('content'))}", width)

    def search_words(self, entry: Entry, body: Body) -> SearchWords | None:
        """Its text."""
        message = message_of(body)
        return SearchWords([joined_text(message.get("content"))], USER, ts_ms=message_ms(message))

    def diff_record(self, entry: Entry, body: Body, usage_override: dict[str, object] | None) -> DiffMessage:
        """Its text (an image as ``[image]``)."""
        content = message_of(body).get("content")
        return DiffMessage(entry.id, entry.kind, USER, text=diff_text(content), ts_ms=entry.ts_ms)

    def card(
        self, entry: Entry, body: Body, results: Results | None = None, notes: EntryNotes | None = None
    ) -> Card:
        """Its text as Markdown and its images."""
        message = message_of(body)
        return self.heading_card(
            entry, content_parts(message.get("content"), entry.id), (), message.get("timestamp")
        )


class AssistantKind(Kind):
    """A model's reply: text, thinking, tool calls with their results, how it stopped, what it cost."""

    name = ASSISTANT
    roles = (ASSISTANT,)
    title = "Assistant"
    family = "assistant"
    turn = True
    in_diff = True
    has_usage = True
    touches_files = True

    def preview(self, entry: Entry, body: Body, width: int = 100) -> str:
        """``assistant: text → read path; bash cmd`` (or why it has no text: aborted, thinking...)."""
        message = message_of(body)
        raw = message.get("content")
        content = raw if isinstance(raw, list) else []
        text = message_text(content)
        calls = [
            tool_call_preview(b.get("name"), b.get("arguments"))
            for b in content
            if type(b) is dict and b.get("type") == TOOL_CALL_BLOCK
        ]
        if text or calls:
            shown = text or "; ".join(calls)
            if text and calls:
                shown += " → " + "; ".join(calls)
            return one_line(f"assistant: {shown}", width)
        stop = message.get("stopReason")
        if stop in (STOP_ABORTED, STOP_ERROR):
            error = message.get("errorMessage")
            return one_line(f"assistant: ({stop}{': ' + error if isinstance(error, str) else ''})", width)
        if stop in (STOP_PENDING, STOP_DEFERRED):
            return f"assistant: ({stop})"
        thinking = any(isinstance(b, dict) and b.get("type") == THINKING_BLOCK for b in content)
        return "assistant: (thinking)" if thinking else "assistant: (empty)"

    def search_words(self, entry: Entry, body: Body) -> SearchWords | None:
        """Text, thinking, tool names and arguments, the error; the tools called and the model."""
        message = message_of(body)
        parts: list[str] = []
        names: list[str] = []
        content = message.get("content")
        for block in content if type(content) is list else ():
            if type(block) is not dict:
                continue
            kind = block.get("type")
            if kind == TEXT_BLOCK:
                text = block.get("text")
                if type(text) is str:
                    parts.append(text)
            elif kind == THINKING_BLOCK:
                text = block.get("thinking")
                if type(text) is str:
                    parts.append(text)
            elif kind == TOOL_CALL_BLOCK:
                name = block.get("name")
                if type(name) is str:
                    names.append(name)
                    parts.append(name)
                parts.append(call_words(block.get("arguments")))
        error = message.get("errorMessage")
        if type(error) is str:
            parts.append(error)
        return SearchWords(parts, ASSISTANT, " ".join(names), _model_name(message) or "", message_ms(message))

    def touches(self, entry: Entry, body: Body) -> list[Touch]:
        """The files its tool calls name, call by call (:func:`core.kinds.touches.call_touches`)."""
        content = message_of(body).get("content")
        touches: list[Touch] = []
        for block in content if type(content) is list else ():
            if type(block) is dict and block.get("type") == TOOL_CALL_BLOCK:
                touches += call_touches(block.get("name"), block.get("arguments"))
        return touches

    def diff_record(self, entry: Entry, body: Body, usage_override: dict[str, object] | None) -> DiffMessage:
        """Text, tool calls (arguments as ``key: value`` lines), model, how it stopped, what it cost."""
        message = message_of(body)
        texts: list[str] = []
        calls: list[DiffToolCall] = []
        for block in content_blocks(message.get("content")):
            if block.get("type") == TEXT_BLOCK:
                texts.append(as_text(block.get("text")))
            elif block.get("type") == TOOL_CALL_BLOCK:
                calls.append(diff_call(block))
        usage = usage_override if usage_override is not None else message.get("usage")
        tokens, cost = usage_totals(usage)
        stop, error = message.get("stopReason"), message.get("errorMessage")
        return DiffMessage(
            entry.id,
            entry.kind,
            ASSISTANT,
            text="\n\n".join(t for t in texts if t),
            calls=tuple(calls),
            model=_model_name(message),
            stop_reason=stop if isinstance(stop, str) else None,
            error=error if isinstance(error, str) else None,
            tokens=tokens,
            cost=cost,
            ts_ms=entry.ts_ms,
        )

    def usage_source(self, body: Mapping[str, object]) -> UsageSource | None:
        """The reply's usage, billed to the model that answered (``responseModel`` first)."""
        message = body.get("message")
        if not isinstance(message, dict):
            return None
        model = message.get("responseModel") or message.get("model")
        return UsageSource(ASSISTANT_USAGE, message.get("usage"), model_key(message.get("provider"), model))

    def card(
        self, entry: Entry, body: Body, results: Results | None = None, notes: EntryNotes | None = None
    ) -> Card:
        """Model and usage in the heading; thinking, text, tool calls with results; how it stopped."""
        message = message_of(body)
        facts = []
        name = _model_name(message)
        if name:
            facts.append(name)
        facts.extend(assistant_facts(message))
        children = notes.children if notes is not None else None
        # With child runs attributed, the message's usage is the aggregate (as Prime Agent reloads it).
        usage = usage_text(
            children.aggregate if children is not None and children.aggregate else message.get("usage")
        )
        if usage:
            facts.append(usage)
        blocks: list[Block] = []
        looked = results is not None
        for index, (block, image_index) in enumerate(numbered_blocks(message.get("content"))):
            kind = block.get("type")
            if kind == TEXT_BLOCK:  # content_part's first case, written out: most blocks are text
                text = block.get("text")
                if type(text) is str and text.strip():
                    blocks.append(Markdown(text))
            elif kind == TOOL_CALL_BLOCK:
                call_id = block.get("id")
                result = results.get(call_id) if looked and isinstance(call_id, str) else None  # type: ignore[union-attr]
                result_notes = _result_notes(notes, call_id) if notes is not None else []
                blocks.append(tool_call(entry, index, block, result, looked, result_notes))
            elif kind == THINKING_BLOCK:
                text = as_text(block.get("thinking")).replace("\r\n", "\n")
                redacted = block.get("redacted") is True
                if text.strip() or redacted:
                    blocks.append(Thinking(text, redacted, fold_key(entry.id, "thinking", index)))
            else:
                blocks.extend(content_part(block, image_index, entry.id))
        if message.get("stopReason") not in _PLAIN_STOPS or "errorMessage" in message:
            blocks.extend(_stop_blocks(message))
        return self.heading_card(entry, blocks, facts, message.get("timestamp"), model=name or "")


# How most replies end: with nothing to say about it (the others get a line, see _stop_blocks).
_PLAIN_STOPS = frozenset({STOP_END, STOP_TOOL_USE})


def _stop_blocks(message: dict[str, object]) -> list[Block]:
    """How a reply stopped when it did not simply end: aborted, failed, cut at the length limit, pending."""
    stop = message.get("stopReason")
    error = as_text(message.get("errorMessage"))
    if stop == STOP_ABORTED:
        return [Para((bold("Aborted"), ": " + error if error else ""), WARN)]
    if stop == STOP_ERROR or error:
        return [Para((bold("Error"), ": " + (error or "the request failed")), ERROR)]
    if stop == STOP_LENGTH:
        return [Para(("Stopped: the reply reached the output length limit.",), WARN)]
    note = stop_note(stop)
    return [Para((note,), WARN)] if note else []


def _result_notes(notes: EntryNotes | None, call_id: object) -> list[Block]:
    """What other entries say about the result shown under ``call_id`` (a later context edit of it)."""
    if notes is None:
        return []
    result = notes.of_result(call_id)
    if result is None:
        return []
    return note_blocks(result)


class SystemKind(Kind):
    """pi 1.x's system prompt in force, as a message: its facts, its text folded away like thinking."""

    name = SYSTEM
    roles = (SYSTEM,)
    title = "System message"
    family = "summary"
    in_diff = True

    def preview(self, entry: Entry, body: Body, width: int = 100) -> str:
        """``system: text``, or what it changes when it has no text (``system: (2 tools added)``)."""
        message = message_of(body)
        text = message_text(message.get("content"))
        facts = system_facts(message)
        return one_line(f"system: {text or '(' + ', '.join(facts or ['empty']) + ')'}", width)

    def search_words(self, entry: Entry, body: Body) -> SearchWords | None:
        """Its text, its named sections, the names and descriptions of the tools it adds."""
        message = message_of(body)
        parts = [joined_text(message.get("content")), *_system_words(message)]
        return SearchWords(parts, SYSTEM, ts_ms=message_ms(message))

    def diff_record(self, entry: Entry, body: Body, usage_override: dict[str, object] | None) -> DiffMessage:
        """Its text and named sections."""
        message = message_of(body)
        sections = message.get("sections")
        named = [
            f"[{name}] {value if isinstance(value, str) else '(removed)'}"
            for name, value in (sections.items() if isinstance(sections, dict) else ())
        ]
        text = "\n\n".join([diff_text(message.get("content")), *named])
        return DiffMessage(entry.id, entry.kind, SYSTEM, text=text, ts_ms=entry.ts_ms)

    def card(
        self, entry: Entry, body: Body, results: Results | None = None, notes: EntryNotes | None = None
    ) -> Card:
        """What it changes in the heading; the prompt, its sections and tools in a fold."""
        message = message_of(body)
        fold = system_blocks(message, fold_key(entry.id, "system"), "System prompt")
        return self.heading_card(entry, (fold,), system_facts(message), message.get("timestamp"))


def system_blocks(message: dict[str, object], key: str, title: str) -> Fold:
    """A system message's text, named sections and tool changes, folded under ``title (N characters)``."""
    text = joined_text(message.get("content"))
    parts: list[Block] = [Markdown(text) if text.strip() else Para(("(no instruction text)",), NOTE)]
    sections = message.get("sections")
    for name, value in sections.items() if isinstance(sections, dict) else ():
        parts.append(Para((bold(f"Section {name}"),)))
        if isinstance(value, str) and value.strip():
            parts.append(Markdown(value))
        else:
            parts.append(Para(("(removed)" if value is None else "(empty)",), NOTE))
    added = message.get("toolsAdded")
    if isinstance(added, list) and added:
        items: list[Inline] = []
        for tool in added:
            record = as_dict(tool)
            description = " ".join(as_text(record.get("description")).split())[:MAX_TOOL_DESCRIPTION]
            items.append(
                (code(as_text(record.get("name")) or "tool"), ": " + description if description else "")
            )
        parts += [Para((bold("Tools added"),)), Bullets(tuple(items))]
    removed = message.get("toolsRemoved")
    if isinstance(removed, list) and removed:
        names: list[str | object] = [bold("Tools removed:"), " "]
        for i, tool in enumerate(removed):
            names += [", "] if i else []
            names.append(code(as_text(as_dict(tool).get("name")) or "?"))
        parts.append(Para(tuple(names)))  # type: ignore[arg-type]
    size = f" ({len(text):,} characters)" if text else ""
    return Fold(title + size, tuple(parts), key)


def _model_name(message: dict[str, object]) -> str | None:
    """``provider/model`` of an assistant message (the model alone without a provider), None without one."""
    model = message.get("model")
    if not isinstance(model, str):
        return None
    provider = message.get("provider")
    return f"{provider}/{model}" if isinstance(provider, str) and provider else model


def _system_words(message: dict[str, object]) -> list[str]:
    """A system message's named sections and the names and descriptions of the tools it adds."""
    words: list[str] = []
    sections = message.get("sections")
    if isinstance(sections, dict):
        words.extend(text for text in sections.values() if isinstance(text, str))
    added = message.get("toolsAdded")
    for tool in added if isinstance(added, list) else ():
        if isinstance(tool, dict):
            words.extend(text for key in ("name", "description") if isinstance(text := tool.get(key), str))
    return words
