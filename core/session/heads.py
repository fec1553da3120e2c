"""The beginning of a huge line as a small JSON object: enough for a one-line preview, bounded in memory.

A one-line preview (``tree``, ``path``) needs an entry's first fields and the start of its text, never
all of a 300 MB line: parsing such a line whole costs up to 19 times its size when it holds many small
values. :func:`head_object` reads the first :data:`PREVIEW_BYTES` bytes of the line and closes what is
open there (a string cut short, then every array and object), so the result is valid JSON holding each
value as far as it got. Fields after the cut are missing; the writers put an entry's type, ids, role,
tool name and custom type before its long parts.
"""

from __future__ import annotations

import re

from core.session.jsonl import JsonObject, decode_line

PREVIEW_BYTES = 64 * 1024
"""Lines longer than this are previewed from their first this many bytes."""

# A string (possibly cut short at the end of the bytes: its closing quote optional) or a bracket. Scanning
# strings whole keeps quotes and brackets inside them from being taken for structure.
_TOKEN = re.compile(rb'"[^"\\]*(?:\\.[^"\\]*)*"?|[\[\]{}]')
_PARTIAL_ESCAPE = re.compile(rb"\\u[0-9a-fA-F]{0,3}\Z")  # a \uXXXX escape cut short
_CLOSER = {ord("{"): b"}", ord("["): b"]"}


def head_object(prefix: bytes) -> JsonObject | None:
    """The JSON object a line starting with ``prefix`` begins with, cut where ``prefix`` ends.

    A string cut short keeps its complete characters and is closed; a key cut short gets a null value;
    numbers and literals after the last string or bracket are left out. None when no object can be
    made (not an object, unbalanced, or nested deeper than the parser takes).
    """
    stack: list[int] = []
    end = 0
    open_string = False
    for match in _TOKEN.finditer(prefix):
        token = match.group()
        first = token[0]
        if first in _CLOSER:
            stack.append(first)
        elif first == ord('"'):
            open_string = len(token) == 1 or not _closed(token)
        elif not stack or _CLOSER[stack.pop()] != token:
            return None
        end = match.end()
    text = prefix[:end]
    if open_string:
        # Keep whole characters only (a multi-byte one may be cut), and no escape cut in half.
        text = text.decode("utf-8", "ignore").encode("utf-8")
        text = _PARTIAL_ESCAPE.sub(b"", text[: len(text) - _dangling_backslashes(text)]) + b'"'
    closers = b"".join(_CLOSER[opener] for opener in reversed(stack))
    for candidate in (text + closers, text + b":null" + closers):
        value, _note = decode_line(candidate)
        if isinstance(value, dict):
            return value
    return None


def _closed(token: bytes) -> bool:
    """True when a string token ends with its closing quote (not an escaped one)."""
    return token.endswith(b'"') and _dangling_backslashes(token[:-1]) % 2 == 0


def _dangling_backslashes(text: bytes) -> int:
    """How many backslashes ``text`` ends with: an odd count starts an escape cut in half."""
    return len(text) - len(text.rstrip(b"\\"))
