"""Plain text out of message content, the way the reference's session list extracts it."""

from __future__ import annotations


def message_text(content: object) -> str:
    """Text of a message's ``content``: a string as is, or its text blocks joined with one space.

    This is the reference's ``extractTextContent`` (used for ``firstMessage``): image, thinking and
    tool-call blocks are skipped; anything that is neither a string nor a list gives ``""``.
    """
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        return ""
    parts = []
    for block in content:
        if isinstance(block, dict) and block.get("type") == "text":
            text = block.get("text")
            parts.append(text if isinstance(text, str) else "" if text is None else _js_string(text))
    return " ".join(parts)


def _js_string(value: object) -> str:
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)
