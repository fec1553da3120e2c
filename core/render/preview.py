"""One-line previews of entries, for tree views and terminal output."""

from __future__ import annotations

from typing import TYPE_CHECKING

from core.formatting import short_cost, short_tokens
from core.render.wording import (
    agent_status_text,
    git_text,
    model_change_name,
    session_state_text,
    system_facts,
)
from core.session.content import Body, as_dict, as_number, as_text, message_of, message_text, tool_calls

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
                if stop in ("pending", "deferred"):
                    return f"assistant: ({stop})"
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
        if role == "system":
            text = message_text(message.get("content"))
            facts = system_facts(message)
            return _one_line(f"system: {text or '(' + ', '.join(facts or ['empty']) + ')'}", width)
        return _one_line(f"{role}: {message_text(message.get('content'))}", width)
    if kind == "compaction":
        return f"[compaction: {short_tokens(as_number(body.get('tokensBefore')))} tokens]"
    if kind == "branch_summary":
        summary = body.get("summary")
        return _one_line(f"[branch summary] {summary if isinstance(summary, str) else ''}", width).rstrip()
    if kind == "model_change":
        return f"[model: {model_change_name(body)}]"
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
        cost = as_number(as_dict(as_dict(body.get("childUsage")).get("cost")).get("total"))
        return f"[child usage → {body.get('targetId')}{': ' + short_cost(cost) if cost is not None else ''}]"
    if kind == "usage":
        parts = [as_text(body.get("kind")) or "usage", as_text(body.get("model"))]
        cost = as_number(as_dict(as_dict(body.get("usage")).get("cost")).get("total"))
        parts.append(short_cost(cost) if cost is not None else "")
        return _one_line(f"[usage: {' · '.join(p for p in parts if p)}]", width)
    if kind == "context_edit":
        target = body.get("targetId")
        replacement = body.get("replacement")
        if replacement is None:
            return f"[context edit: drop {target}]"
        text = message_text(as_dict(replacement).get("content"))
        return _one_line(f"[context edit: replace {target}] {text}", width).rstrip()
    if kind == "session_state":
        return f"[session state: {session_state_text(body)}]"
    if kind == "agent_status":
        agent = agent_status_text(body)
        head = f"[agent status: {agent.task}]" if agent.task else "[agent status]"
        return _one_line(f"{head} {agent.summary}", width).rstrip()
    if kind == "git_state":
        return _one_line(f"[git: {git_text(body.get('git'))}]", width)
    return f"[{entry.type or 'entry'}]"
