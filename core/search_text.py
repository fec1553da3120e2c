"""The searchable text of an entry: what the catalogue puts in its full-text index.

User messages, assistant text and thinking, tool call names and arguments, tool results, bash
executions, custom messages, compaction and branch summaries. Images and signatures are left out.
"""

from __future__ import annotations

import orjson

from core.entry import Entry
from core.timefmt import js_date_ms


class Doc:
    """One row of the full-text index.

    Attributes:
        text: the searchable text.
        role: the message role (``user``, ``assistant``, ``toolResult``...) or the entry kind
            (``compaction``, ``branch_summary``, ``custom_message``).
        tools: tool names involved, space-separated (the calls an assistant message makes, or the
            tool of a result).
        model: ``provider/model`` of an assistant message, else ``""``.
        ts_ms: the message time (or the entry time), in ms.
    """

    __slots__ = ("model", "role", "text", "tools", "ts_ms")

    def __init__(self, text: str, role: str, tools: str, model: str, ts_ms: int | float | None) -> None:
        self.text = text
        self.role = role
        self.tools = tools
        self.model = model
        self.ts_ms = ts_ms


def _content_text(content: object) -> list[str]:
    if isinstance(content, str):
        return [content]
    parts: list[str] = []
    if isinstance(content, list):
        for block in content:
            if isinstance(block, dict) and block.get("type") == "text":
                text = block.get("text")
                if isinstance(text, str):
                    parts.append(text)
    return parts


def _arguments_text(arguments: object) -> str:
    if isinstance(arguments, dict):
        # Values, not JSON syntax: "path src/app.ts" is what people search for.
        pieces = []
        for key, value in arguments.items():
            pieces.append(str(key))
            pieces.append(value if isinstance(value, str) else orjson.dumps(value).decode())
        return " ".join(pieces)
    if arguments is None:
        return ""
    return orjson.dumps(arguments).decode()


def entry_doc(entry: Entry, obj: dict) -> Doc | None:
    """The index row for one entry, or None when the entry holds nothing worth searching."""
    kind = entry.kind
    ts = None
    parts: list[str]
    tools = ""
    model = ""
    if kind == "message":
        message = obj.get("message")
        if not isinstance(message, dict):
            return None
        role = entry.role or "message"
        moment = message.get("timestamp")
        ts = moment if isinstance(moment, int | float) and not isinstance(moment, bool) else None
        if role == "assistant":
            parts = []
            names = []
            content = message.get("content")
            for block in content if isinstance(content, list) else []:
                if not isinstance(block, dict):
                    continue
                kind_ = block.get("type")
                if kind_ == "text" and isinstance(block.get("text"), str):
                    parts.append(block["text"])
                elif kind_ == "thinking" and isinstance(block.get("thinking"), str):
                    parts.append(block["thinking"])
                elif kind_ == "toolCall":
                    name = block.get("name")
                    if isinstance(name, str):
                        names.append(name)
                        parts.append(name)
                    parts.append(_arguments_text(block.get("arguments")))
            error = message.get("errorMessage")
            if isinstance(error, str):
                parts.append(error)
            tools = " ".join(names)
            provider, name = message.get("provider"), message.get("model")
            if isinstance(name, str):
                model = f"{provider}/{name}" if isinstance(provider, str) else name
        elif role == "toolResult":
            tool = message.get("toolName")
            tools = tool if isinstance(tool, str) else ""
            parts = _content_text(message.get("content"))
        elif role == "bashExecution":
            tools = "bash"
            parts = [str(message.get("command") or ""), str(message.get("output") or "")]
        elif role in ("branchSummary", "compactionSummary"):
            parts = [str(message.get("summary") or "")]
        else:  # user, custom, hookMessage and anything unknown with content
            parts = _content_text(message.get("content"))
    elif kind in ("compaction", "branch_summary"):
        role = kind
        summary = obj.get("summary")
        parts = [summary] if isinstance(summary, str) else []
    elif kind == "custom_message":
        role = kind
        parts = _content_text(obj.get("content"))
        custom_type = obj.get("customType")
        if isinstance(custom_type, str):
            tools = custom_type
    else:
        return None
    text = "\n".join(p for p in parts if p)
    if not text.strip():
        return None
    if ts is None:
        ts = js_date_ms(entry.timestamp)
    return Doc(text, role, tools, model, ts)
