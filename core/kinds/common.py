"""Small helpers every kind uses: one-line previews, JSON shown as text, fold keys, content as blocks.

A kind's preview is one line (the tree's rows, the command line's ``tree``); its JSON excerpts never
recurse into a value (sessions hold values nested a thousand levels deep); a fold key names a block
that a reader may open or close in the message view (see :mod:`core.render.links`).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING

import orjson

from core.kinds.document import ITALIC, NOTE, Block, Code, Fold, Image, Markdown, Para, Span
from core.session.content import Block as ContentBlock
from core.session.content import as_text, content_blocks, numbered_blocks
from core.session.vocabulary import IMAGE_BLOCK, TEXT_BLOCK
from core.timefmt import js_time

if TYPE_CHECKING:
    from core.session import Entry

__all__ = [
    "MAX_RAW_JSON",
    "content_part",
    "content_parts",
    "diff_text",
    "fold_key",
    "json_excerpt",
    "json_text",
    "message_ms",
    "one_line",
    "raw_block",
    "raw_json",
    "tool_call_preview",
]

MAX_RAW_JSON = 20_000
"""Characters of JSON shown for an unknown entry or block, or an extension's data."""


def one_line(text: str, width: int) -> str:
    """``text`` on one line (runs of white space as one space), cut to ``width`` characters with ``…``."""
    if len(text) > 2 * width:
        # Flattening the start of a text gives the start of the flattened text: when twice the width
        # already flattens to more than the width, the rest is never split (tool outputs of hundreds of
        # kilobytes made the HTML page's sidebar a sixth of the export's time).
        start = " ".join(text[: 2 * width].split())
        if len(start) > width:
            return start[: max(0, width - 1)] + "…"
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


def fold_key(entry_id: str, kind: str, index: int | None = None) -> str:
    """The key of a block a reader opens and closes (``RenderOptions.expanded``, toggle links).

    Args:
        entry_id: the entry the block belongs to.
        kind: ``"thinking"`` (a thinking block), ``"tool"`` (a tool call and its result), ``"result"``
            (a tool result shown alone), ``"output"`` (a shell run's output), ``"system"`` (a system
            message's text) or ``"json"`` (the JSON of an entry of an unknown type).
        index: the block's position in the message content (thinking and tool blocks).

    Returns:
        ``ENTRYID/KIND`` or ``ENTRYID/KIND/INDEX``.
    """
    return f"{entry_id}/{kind}" if index is None else f"{entry_id}/{kind}/{index}"


def json_text(value: object) -> str:
    """``value`` as indented JSON; a string as it is; a note when it cannot be written."""
    if isinstance(value, str):
        return value
    try:
        return json.dumps(value, indent=2, ensure_ascii=False, default=str)
    except RecursionError:
        return "(nested too deeply to show)"
    except (ValueError, TypeError):
        return "(cannot be shown)"


def json_excerpt(value: object, limit: int = MAX_RAW_JSON) -> str:
    """:func:`json_text` cut to ``limit`` characters, with a note of how many more there are.

    Only the excerpt is written out: the JSON of a 100 MB value of millions of small objects, written
    whole by the standard library's encoder (in Python, in millions of pieces), took 4 GB and half a
    minute. What follows the excerpt is counted; past :data:`_COUNTED` characters by orjson's writing of
    the same JSON (fast), which can differ by a few characters (``null`` for ``NaN``), so the note then
    says "about".
    """
    if isinstance(value, str):
        more = len(value) - limit
        return value if more <= 0 else f"{value[:limit]}\n… ({more:,} more characters)"
    encoder = json.JSONEncoder(indent=2, ensure_ascii=False, default=str)
    pieces: list[str] = []
    size = 0
    try:
        chunks = encoder.iterencode(value)
        for chunk in chunks:
            pieces.append(chunk)
            size += len(chunk)
            if size > limit:
                break
        else:
            return "".join(pieces)
        head = "".join(pieces)[:limit]
        del pieces
        about = ""
        for chunk in chunks:
            size += len(chunk)
            if size > _COUNTED:
                size, exact = _json_length(value, size, chunks)
                about = "" if exact else "about "
                break
    except RecursionError:
        return "(nested too deeply to show)"
    except (ValueError, TypeError):
        return "(cannot be shown)"
    return head + f"\n… ({about}{size - limit:,} more characters)"


_COUNTED = 1 << 20  # characters of a value's JSON counted piece by piece (beyond: see _json_length)
_CONTINUATION = bytes(range(0x80, 0xC0))  # UTF-8 bytes that continue a character


def _json_length(value: object, counted: int, rest: Iterator[str]) -> tuple[int, bool]:
    """Characters in ``value``'s indented JSON, and whether exactly: by orjson, else by counting ``rest``."""
    try:
        data = orjson.dumps(value, option=orjson.OPT_INDENT_2 | orjson.OPT_NON_STR_KEYS)
    except (TypeError, orjson.JSONEncodeError):
        return counted + sum(map(len, rest)), True
    step = 16 << 20
    chars = sum(len(data[i : i + step].translate(None, _CONTINUATION)) for i in range(0, len(data), step))
    return chars, False


def raw_block(block: ContentBlock) -> tuple[Block, ...]:
    """A content block of a type nobody declared: its type, and its JSON."""
    name = as_text(block.get("type")) or "block"
    return Para((Span(f"[{name}]", ITALIC),), NOTE), Code(json_excerpt(block), "json")


def content_parts(content: object, entry_id: str) -> list[Block]:
    """Message content as blocks: text as Markdown, images, anything else as its JSON; blank text left out.

    Args:
        content: a message's ``content`` (a string, or a list of content blocks).
        entry_id: the entry whose content it is (its images are numbered within it).
    """
    out: list[Block] = []
    for block, image_index in numbered_blocks(content):
        out.extend(content_part(block, image_index, entry_id))
    return out


def content_part(block: ContentBlock, image_index: int, entry_id: str) -> Iterable[Block]:
    """One content block as document blocks (none for blank text)."""
    kind = block.get("type")
    if kind == TEXT_BLOCK:
        text = block.get("text")
        return (Markdown(text),) if isinstance(text, str) and text.strip() else ()
    if kind == IMAGE_BLOCK:
        return (Image(entry_id, image_index, block),)
    return raw_block(block)


def message_ms(message: dict[str, object]) -> int | float | None:
    """A message's own ms ``timestamp`` (what a search hit shows), None when it has none."""
    return js_time(message.get("timestamp"))


def diff_text(content: object, joiner: str = "\n\n") -> str:
    """Text blocks joined, an image block as ``[image]`` (so a changed image shows in a branch diff).

    Unlike :func:`core.session.content.joined_text`, a text block without a string keeps its place as
    an empty part.
    """
    return joiner.join(
        "[image]" if kind == IMAGE_BLOCK else as_text(block.get("text"))
        for block in content_blocks(content)
        if (kind := block.get("type")) in (TEXT_BLOCK, IMAGE_BLOCK)
    )


def raw_json(entry: Entry, body: object) -> Fold:
    """An entry's JSON, folded away (the cards of unknown kinds show it on request)."""
    key = fold_key(entry.id, "json")
    return Fold("JSON", (Code(json_excerpt(body), "json", "", key),), key, "raw")
