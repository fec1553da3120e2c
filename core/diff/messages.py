"""Session entries as :class:`~core.diff.types.DiffMessage` records, for the branch diff.

A record holds the visible text, the tool calls (arguments flattened to ``key: value`` lines), a tool
result's or command's output, the model, stop reason and usage. pi 1.6's usage records (kind, note,
model, tokens, cost), context edits (what they replace or drop) and system messages (text and named
sections) are records too.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from core.diff.types import DiffMessage, ToolCall
from core.session.content import Block, Body, as_dict, as_text, content_blocks, message_of
from core.session.usage import usage_totals

if TYPE_CHECKING:
    from core.session import Entry, Session

__all__ = ["messages"]

_PATH_KEYS = ("path", "file_path", "filePath")


def messages(session: Session, entries: list[Entry]) -> list[DiffMessage]:
    """The diff records of ``entries`` (content entries of ``session``), their bodies read in one pass."""
    if not entries:
        return []
    overrides = session.usage_overrides
    return [
        _message(entry, body, overrides.get(entry.id))
        for entry, body in zip(entries, session.bodies(entries), strict=True)
    ]


def _message(entry: Entry, body: Body, usage_override: dict[str, object] | None) -> DiffMessage:
    kind = entry.kind
    ts = entry.ts_ms
    if kind == "compaction":
        return DiffMessage(entry.id, kind, "compaction", text=as_text(body.get("summary")), ts_ms=ts)
    if kind == "branch_summary":
        return DiffMessage(entry.id, kind, "branch_summary", text=as_text(body.get("summary")), ts_ms=ts)
    if kind == "custom_message":
        text = _content_text(body.get("content"))
        return DiffMessage(
            entry.id, kind, "custom_message", text=text, tool_name=_opt(body.get("customType")), ts_ms=ts
        )
    if kind == "usage":
        maker, model_id = as_text(body.get("provider")), as_text(body.get("model"))
        tokens, cost = usage_totals(body.get("usage"))
        words = " · ".join(part for part in (as_text(body.get("kind")), as_text(body.get("note"))) if part)
        name = (f"{maker}/{model_id}" if maker else model_id) or None
        return DiffMessage(
            entry.id, kind, "usage", text=words, model=name, tokens=tokens, cost=cost, ts_ms=ts
        )
    if kind == "context_edit":
        target = as_text(body.get("targetId")) or "?"
        replacement = body.get("replacement")
        if replacement is None:
            text = f"drops {target}"
        else:
            text = f"replaces {target}: {_content_text(as_dict(replacement).get('content'))}"
        return DiffMessage(entry.id, kind, "context_edit", text=text, ts_ms=ts)
    message = message_of(body)
    role = entry.role or as_text(message.get("role")) or "message"
    if role == "assistant":
        texts: list[str] = []
        calls: list[ToolCall] = []
        for block in content_blocks(message.get("content")):
            if block.get("type") == "text":
                texts.append(as_text(block.get("text")))
            elif block.get("type") == "toolCall":
                calls.append(_tool_call(block))
        provider, model = message.get("provider"), message.get("model")
        model_name = (
            (f"{provider}/{model}" if isinstance(provider, str) else model)
            if isinstance(model, str)
            else None
        )
        usage = usage_override if usage_override is not None else message.get("usage")
        tokens, cost = usage_totals(usage)
        return DiffMessage(
            entry.id,
            kind,
            role,
            text="\n\n".join(t for t in texts if t),
            calls=tuple(calls),
            model=model_name,
            stop_reason=_opt(message.get("stopReason")),
            error=_opt(message.get("errorMessage")),
            tokens=tokens,
            cost=cost,
            ts_ms=ts,
        )
    if role == "toolResult":
        return DiffMessage(
            entry.id,
            kind,
            role,
            result=_content_text(message.get("content"), joiner="\n"),
            is_error=message.get("isError") is True,
            tool_name=_opt(message.get("toolName")),
            ts_ms=ts,
        )
    if role == "bashExecution":
        code = message.get("exitCode")
        failed = message.get("cancelled") is True or (
            isinstance(code, int) and not isinstance(code, bool) and code != 0
        )
        return DiffMessage(
            entry.id,
            kind,
            role,
            text=f"$ {as_text(message.get('command'))}",
            result=as_text(message.get("output")),
            is_error=failed,
            ts_ms=ts,
        )
    if role in ("branchSummary", "compactionSummary"):
        return DiffMessage(entry.id, kind, role, text=as_text(message.get("summary")), ts_ms=ts)
    if role == "system":
        sections = message.get("sections")
        named = [
            f"[{name}] {value if isinstance(value, str) else '(removed)'}"
            for name, value in (sections.items() if isinstance(sections, dict) else ())
        ]
        text = "\n\n".join([_content_text(message.get("content")), *named])
        return DiffMessage(entry.id, kind, role, text=text, ts_ms=ts)
    return DiffMessage(entry.id, kind, role, text=_content_text(message.get("content")), ts_ms=ts)


def _tool_call(block: Block) -> ToolCall:
    name = as_text(block.get("name")) or "tool"
    args = block.get("arguments")
    path = None
    if isinstance(args, dict):
        text = "\n".join(f"{key}: {value}" for key, value in _flatten(args))
        for key in _PATH_KEYS:
            if isinstance(args.get(key), str):
                path = args[key]
                break
    else:
        text = "" if args is None else _json(args)
    return ToolCall(name, text, path)


def _flatten(args: dict[str, object]) -> list[tuple[str, str]]:
    """Arguments as ``(dotted key, value)`` pairs, iteratively.

    Strings stay raw, so an edit's ``edits[0].oldText`` shows its lines rather than JSON escapes; nesting
    deeper than a few levels stays JSON.
    """
    out: list[tuple[str, str]] = []
    stack: list[tuple[str, object, int]] = [(str(k), v, 0) for k, v in reversed(list(args.items()))]
    while stack:
        key, value, depth = stack.pop()
        if isinstance(value, str):
            out.append((key, value))
        elif isinstance(value, dict) and value and depth < 4:
            stack.extend((f"{key}.{k}", v, depth + 1) for k, v in reversed(list(value.items())))
        elif isinstance(value, list) and value and depth < 4:
            stack.extend((f"{key}[{i}]", v, depth + 1) for i, v in reversed(list(enumerate(value))))
        else:
            out.append((key, _json(value)))
    return out


def _content_text(content: object, joiner: str = "\n\n") -> str:
    """The text blocks of ``content`` joined, an image block as ``[image]`` (so a changed image shows).

    Unlike :func:`core.session.content.joined_text`, a text block without a string keeps its place as an
    empty part.
    """
    return joiner.join(
        "[image]" if kind == "image" else as_text(block.get("text"))
        for block in content_blocks(content)
        if (kind := block.get("type")) in ("text", "image")
    )


def _json(value: object) -> str:
    try:
        return json.dumps(value, ensure_ascii=False, default=str)
    except (ValueError, TypeError, RecursionError):
        return "(cannot be shown)"


def _opt(value: object) -> str | None:
    return value if isinstance(value, str) else None
