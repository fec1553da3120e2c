"""The searchable text of an entry: what the catalogue puts in its full-text index.

User messages, assistant text and thinking, tool call names and arguments, tool results, bash
executions, custom messages, compaction and branch summaries (with a compaction's instructions), system
messages (their text, named sections and the tools they add), and the newer entries that hold words:
pi 1.6's context edits (the replacement text) and usage records (their note), Prime Agent's agent status
(its summary) and git snapshots (branch and repository). Images and signatures are left out, and so
is the payload of a base64 data URI written in text (:func:`without_data_payloads`).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import TypeVar, overload

import orjson

from core.session.content import as_dict, joined_text
from core.session.entry import Entry
from core.session.jsonl import JsonObject
from core.timefmt import js_date_ms

_T = TypeVar("_T")
_SURROGATE = re.compile("[\ud800-\udfff]")
# The payload of a base64 data URI (an image pasted into Markdown, a screenshot a tool printed): bytes,
# not words. At least 64 characters, so a short example in prose stays searchable.
_DATA_PAYLOAD = re.compile(r"(data:[\w.+-]*/?[\w.+-]*(?:;[\w.+=-]+)*;base64,)[A-Za-z0-9+/_=-]{64,}")


@overload
def clean_text(value: str) -> str: ...
@overload
def clean_text(value: _T) -> _T: ...
def clean_text(value: object) -> object:
    r"""``value`` with lone surrogates replaced by U+FFFD, so SQLite can store it; other values pass through.

    ``JSON.parse`` accepts a lone ``"\ud83d"`` escape (half an emoji, from a reply cut mid-character),
    and Python decodes it to a lone surrogate, which cannot be encoded as UTF-8.
    """
    if type(value) is str and not value.isascii():
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            return _SURROGATE.sub("\ufffd", value)
    return value


def without_data_payloads(text: str) -> str:
    """``text`` with the payload of every base64 data URI replaced by ``…`` (``data:image/png;base64,…``).

    The catalogue keeps words: an image's bytes in its index would make it as big as the sessions
    and match searches for random letters. (Image blocks are left out whole, see :func:`entry_doc`.)
    """
    if "base64," not in text:
        return text
    return _DATA_PAYLOAD.sub(r"\1…", text)


def stored_text(text: str) -> str:
    """``text`` as the catalogue keeps words: data-URI payloads left out, lone surrogates replaced."""
    return clean_text(without_data_payloads(text))


def _dumps(value: object) -> str:
    try:
        return orjson.dumps(value).decode()
    except (TypeError, orjson.JSONEncodeError):  # lone surrogates, or integers beyond 64 bits
        return json.dumps(value, ensure_ascii=False)


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


def _arguments_text(arguments: object) -> str:
    if isinstance(arguments, dict):
        # Values, not JSON syntax: "path src/app.ts" is what people search for.
        pieces = []
        for key, value in arguments.items():
            pieces.append(str(key))
            pieces.append(value if isinstance(value, str) else _dumps(value))
        return " ".join(pieces)
    if arguments is None:
        return ""
    if isinstance(arguments, str):  # arguments kept as the raw JSON text the model streamed
        return arguments
    return _dumps(arguments)


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


def _field(obj: object, *keys: str) -> list[str]:
    """The string values of ``keys`` in a JSON object (nothing for anything else)."""
    if not isinstance(obj, dict):
        return []
    return [text for key in keys if isinstance(text := obj.get(key), str)]


# Newer entry kinds that hold words -> those words (the rest of such an entry is numbers and ids).
_WORDS_OF: dict[str, Callable[[JsonObject], list[str]]] = {
    "context_edit": lambda obj: [joined_text(as_dict(obj.get("replacement")).get("content"))],
    "usage": lambda obj: _field(obj, "note"),
    "agent_status": lambda obj: _field(obj.get("status"), "summary"),
    "git_state": lambda obj: _field(obj.get("git"), "branch", "repoUrl"),
}


def entry_doc(entry: Entry, obj: JsonObject) -> Doc | None:
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
        ts = moment if type(moment) is int or type(moment) is float else None
        if role == "assistant":
            parts = []
            names = []
            content = message.get("content")
            for block in content if type(content) is list else ():
                if type(block) is not dict:
                    continue
                kind_ = block.get("type")
                if kind_ == "text":
                    text = block.get("text")
                    if type(text) is str:
                        parts.append(text)
                elif kind_ == "thinking":
                    text = block.get("thinking")
                    if type(text) is str:
                        parts.append(text)
                elif kind_ == "toolCall":
                    name = block.get("name")
                    if type(name) is str:
                        names.append(name)
                        parts.append(name)
                    parts.append(_arguments_text(block.get("arguments")))
            error = message.get("errorMessage")
            if type(error) is str:
                parts.append(error)
            tools = " ".join(names)
            name = message.get("model")
            if type(name) is str:
                provider = message.get("provider")
                model = f"{provider}/{name}" if type(provider) is str else name
        elif role == "toolResult":
            tool = message.get("toolName")
            tools = tool if isinstance(tool, str) else ""
            parts = [joined_text(message.get("content"))]
        elif role == "bashExecution":
            tools = "bash"
            parts = [str(message.get("command") or ""), str(message.get("output") or "")]
        elif role in ("branchSummary", "compactionSummary"):
            parts = [str(message.get("summary") or "")]
        elif role == "system":
            parts = [joined_text(message.get("content")), *_system_words(message)]
        else:  # user, custom, hookMessage and anything unknown with content
            parts = [joined_text(message.get("content"))]
    elif kind in ("compaction", "branch_summary"):
        role = kind
        parts = [text for key in ("summary", "customInstructions") if isinstance(text := obj.get(key), str)]
    elif kind == "custom_message":
        role = kind
        parts = [joined_text(obj.get("content"))]
        custom_type = obj.get("customType")
        if isinstance(custom_type, str):
            tools = custom_type
    elif kind in _WORDS_OF:
        role = kind
        parts = _WORDS_OF[kind](obj)
    else:
        return None
    text = "\n".join(parts)
    if not text or text.isspace():
        return None
    if ts is None:
        ts = js_date_ms(entry.timestamp)
    return Doc(stored_text(text), role, tools, model, ts)  # the rest is cleaned later
