"""Reading an entry's body: its message, content blocks, text, and JSON values of the expected type.

A body is the entry's JSON object as read from its line. Files are written by many versions of the agent
and by hand, so nothing in one is trusted to have the type the format says: every reader here returns an
empty or neutral value for anything unexpected instead of raising.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import TypeAlias

from core.session.jsonl import value_str
from core.session.vocabulary import IMAGE_BLOCK, TEXT_BLOCK, TOOL_CALL_BLOCK

__all__ = [
    "Block",
    "Body",
    "as_dict",
    "as_number",
    "as_text",
    "content_blocks",
    "content_of",
    "is_image_block",
    "joined_text",
    "message_of",
    "message_text",
    "numbered_blocks",
    "tool_calls",
]

Body: TypeAlias = dict[str, object]
"""An entry's JSON object (``Session.body``)."""

Block: TypeAlias = dict[str, object]
"""One content block of a message: ``{"type": "text", "text": ...}``, an image, a tool call..."""


def as_dict(value: object) -> dict[str, object]:
    """``value`` when it is a JSON object, else an empty dict (a fresh one: callers may not keep it)."""
    return value if isinstance(value, dict) else {}


def as_text(value: object) -> str:
    """``value`` when it is a string, else ``""``."""
    return value if isinstance(value, str) else ""


def as_number(value: object) -> float | None:
    """``value`` as a float when it is a JSON number (not a bool, not NaN), else None."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return float(value) if value == value else None


def message_of(body: Mapping[str, object]) -> dict[str, object]:
    """The ``message`` object of a message entry's body; an empty dict when there is none."""
    message = body.get("message")
    return message if isinstance(message, dict) else {}


def content_of(body: object) -> object:
    """The ``content`` of a body: ``message.content`` for a message entry, else the body's own.

    A custom_message entry keeps its content at the top level; anything but a dict gives None.
    """
    if not isinstance(body, dict):
        return None
    message = body.get("message")
    if isinstance(message, dict):
        return message.get("content")
    return body.get("content")


def content_blocks(content: object) -> list[Block]:
    """Message content as a list of blocks.

    Args:
        content: a message's ``content``: a string, a list of blocks, or anything else.

    Returns:
        One text block for a string; the dict items of a list (others are dropped); ``[]`` otherwise.
    """
    if isinstance(content, str):
        return [{"type": TEXT_BLOCK, "text": content}]
    if not isinstance(content, list):
        return []
    return [b for b in content if isinstance(b, dict)]


def numbered_blocks(content: object) -> Iterator[tuple[Block, int]]:
    """The blocks of some message content (see :func:`content_blocks`), each image block numbered.

    Yields:
        ``(block, n)``: ``n`` is the block's position among the image blocks (0, 1, ...) for an image
        block, -1 for any other. The numbers are the ones ``image:ENTRYID/N`` sources use, and what
        :func:`core.render.links.image_bytes` counts.
    """
    if isinstance(content, str):
        yield {"type": TEXT_BLOCK, "text": content}, -1
        return
    if not isinstance(content, list):
        return
    images = 0
    for block in content:  # content_blocks without its list: this runs for every block of an export
        if not isinstance(block, dict):
            continue
        if block.get("type") == IMAGE_BLOCK:
            yield block, images
            images += 1
        else:
            yield block, -1


def is_image_block(value: object) -> bool:
    """Whether a JSON value is an image content block (whose ``data`` is base64 bytes, not words)."""
    return isinstance(value, dict) and value.get("type") == IMAGE_BLOCK


def tool_calls(content: object) -> list[Block]:
    """The ``toolCall`` blocks of some message content, in order."""
    return [b for b in content_blocks(content) if b.get("type") == TOOL_CALL_BLOCK]


def joined_text(content: object, joiner: str = "\n") -> str:
    """The string texts of the text blocks of some message content, joined (on their own lines by default).

    Text blocks whose ``text`` is not a string are left out; a string ``content`` is returned as it is.
    This is what a reader sees of a message or a tool's output; for the reference's one-line wording use
    :func:`message_text`.
    """
    if isinstance(content, str):
        return content
    if type(content) is list and len(content) == 1:  # most tool outputs: one text block
        only = content[0]
        if type(only) is dict and only.get("type") == TEXT_BLOCK:
            text = only.get("text")
            return text if isinstance(text, str) else ""
    return joiner.join(
        text
        for b in content_blocks(content)
        if b.get("type") == TEXT_BLOCK and isinstance(text := b.get("text"), str)
    )


def message_text(content: object) -> str:
    """Text of a message's ``content``: a string as is, or its text blocks joined with one space.

    This is the reference's ``extractTextContent`` (used for ``firstMessage``, the session list and the
    catalogue): image, thinking and tool-call blocks are skipped; a text block's non-string ``text``
    is written as JavaScript would (``null`` and a missing one as nothing, ``true``, ``3``); anything
    that is neither a string nor a list gives ``""``.
    """
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        return ""
    if len(content) == 1:  # most messages: one text block
        only = content[0]
        if type(only) is dict and only.get("type") == TEXT_BLOCK and type(text := only.get("text")) is str:
            return text
    parts = []
    for block in content:
        if isinstance(block, dict) and block.get("type") == TEXT_BLOCK:
            text = block.get("text")
            parts.append(text if isinstance(text, str) else "" if text is None else _js_string(text))
    return " ".join(parts)


def _js_string(value: object) -> str:
    """``String(value)`` in JavaScript, for the JSON values a text block may hold by mistake."""
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return value_str(value)
