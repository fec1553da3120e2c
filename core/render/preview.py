"""One-line previews of entries, for tree views and terminal output."""

from __future__ import annotations

from typing import TYPE_CHECKING

from core.body.content import Body, as_number, message_of, message_text, tool_calls
from core.formatting import short_tokens

if TYPE_CHECKING:
    from core.session import Entry

__all__ = ["entry_preview", "tool_call_preview"]


def _one_line(text: str, width: int) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= width else flat[: max(0, width - 1)] + "…"


def tool_call_preview(name: object, arguments: object) -> str:
    """``read path``, ``bash cmd``, ``edit path``... for a tool call; other tools show their name.

    Args:
        name: the call's ``name``.
        arguments: the call's ``arguments``; the first string of a path, command, pattern, URL or
            query argument is shown after the name.
    """
    args = arguments if isinstance(arguments, dict) else {}
    for key in ("path", "command", "pattern", "file_path", "url", "query"):
        value = args.get(key)
        if isinstance(value, str):
            return f"{name} {value}"
    return str(name)


def entry_preview(entry: Entry, body: Body, width: int = 100) -> str:
    """A one-line description of an entry, as the reference's tree shows it.

    Args:
        entry: the entry's index record.
        body: its body.
        width: the most characters of the line (longer texts end with ``…``).

    Returns:
        For example ``user: ...``, ``read src/app.ts``, ``[compaction: 148k tokens]``, ``[model: p/m]``.
    """
    kind = entry.kind
    if kind == "message":
        message = message_of(body)
        role = message.get("role", "?")
        if role == "assistant":
            raw = message.get("content")
            content = raw if isinstance(raw, list) else []
            text = message_text(content)
            calls = [tool_call_preview(b.get("name"), b.get("arguments")) for b in tool_calls(content)]
            stop = message.get("stopReason")
            if not text and not calls:
                if stop in ("aborted", "error"):
                    error = message.get("errorMessage")
                    return _one_line(
                        f"assistant: ({stop}{': ' + error if isinstance(error, str) else ''})", width
                    )
                thinking = any(isinstance(b, dict) and b.get("type") == "thinking" for b in content)
                return "assistant: (thinking)" if thinking else "assistant: (empty)"
            shown = text or "; ".join(calls)
            if text and calls:
                shown += " → " + "; ".join(calls)
            return _one_line(f"assistant: {shown}", width)
        if role == "toolResult":
            name = message.get("toolName", "tool")
            text = message_text(message.get("content"))
            mark = " error" if message.get("isError") else ""
            return _one_line(f"[{name}{mark}] {text}", width)
        if role == "bashExecution":
            code = message.get("exitCode")
            status = "cancelled" if message.get("cancelled") else f"exit {code}"
            return _one_line(f"bash {message.get('command', '')} ({status})", width)
        if role in ("custom", "hookMessage"):
            return _one_line(
                f"[{message.get('customType', 'custom')}] {message_text(message.get('content'))}", width
            )
        if role == "branchSummary":
            return _one_line(f"[branch summary] {message.get('summary', '')}", width)
        if role == "compactionSummary":
            return f"[compaction: {short_tokens(as_number(message.get('tokensBefore')))} tokens]"
        return _one_line(f"{role}: {message_text(message.get('content'))}", width)
    if kind == "compaction":
        return f"[compaction: {short_tokens(as_number(body.get('tokensBefore')))} tokens]"
    if kind == "branch_summary":
        summary = body.get("summary")
        return _one_line(f"[branch summary] {summary if isinstance(summary, str) else ''}", width).rstrip()
    if kind == "model_change":
        return f"[model: {body.get('provider')}/{body.get('modelId')}]"
    if kind == "thinking_level_change":
        return f"[thinking: {body.get('thinkingLevel')}]"
    if kind == "service_tier_change":
        return f"[service tier: {body.get('serviceTier')}]"
    if kind == "custom_message":
        hidden = "" if body.get("display") else " (hidden)"
        return _one_line(f"[{body.get('customType')}{hidden}] {message_text(body.get('content'))}", width)
    if kind == "custom":
        return f"[custom: {body.get('customType')}]"
    if kind == "label":
        label = body.get("label")
        return (
            f"[label {body.get('targetId')}: {label}]" if label else f"[label {body.get('targetId')} cleared]"
        )
    if kind == "session_info":
        name = body.get("name")
        return (
            _one_line(f"[name: {name}]", width)
            if isinstance(name, str) and name.strip()
            else "[name cleared]"
        )
    if kind == "child_usage_attributed":
        return f"[child usage → {body.get('targetId')}]"
    return f"[{entry.type or 'entry'}]"
