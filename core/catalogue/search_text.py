"""The searchable text of an entry: what the catalogue puts in its full-text index.

Each kind says what words its entries hold (``Kind.search_words``, :mod:`core.kinds`): user messages,
assistant text and thinking, tool call names and arguments, tool results, bash executions, custom
messages, compaction and branch summaries (with their instructions), system messages (their text, named
sections and the tools they add), and the newer entries that hold words: pi 1.6's context edits (the
replacement text) and usage records (their note), Prime Agent's agent status (its summary) and git
snapshots (branch and repository). Images and signatures are left out, and so is the payload of a
base64 data URI written in text (:func:`without_data_payloads`); here they become an index row.
"""

from __future__ import annotations

import re
from typing import TypeVar, overload

from core.kinds.registry import kind_of
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


def entry_doc(entry: Entry, obj: JsonObject) -> Doc | None:
    """The index row for one entry, or None when the entry holds nothing worth searching.

    What an entry holds in words is its kind's (``Kind.search_words``, :mod:`core.kinds`).
    """
    words = kind_of(entry).search_words(entry, obj)
    if words is None:
        return None
    text = "\n".join(words.parts)
    if not text or text.isspace():
        return None
    ts = words.ts_ms if words.ts_ms is not None else js_date_ms(entry.timestamp)
    return Doc(stored_text(text), words.role, words.tools, words.model, ts)  # the rest is cleaned later
