r"""Decoding one JSONL line as leniently as the reference does, and no more.

The reference reads the file as UTF-8 (invalid bytes become U+FFFD) and calls ``JSON.parse`` on
each ``\n``-separated line. orjson is strict about UTF-8 and lone surrogates and rejects a BOM, so
we fall back to the standard library only for lines orjson refuses; the common case stays fast.
"""

from __future__ import annotations

import json

import orjson

_BOM = b"\xef\xbb\xbf"


def _reject_constant(name: str) -> object:
    # JSON.parse rejects NaN/Infinity; the stdlib would accept them.
    raise ValueError(f"invalid JSON constant {name}")


_lenient = json.JSONDecoder(parse_constant=_reject_constant)


def decode_line(line: bytes) -> tuple[object, str | None]:
    """Parse one line (without its newline).

    Returns:
        ``(value, None)`` on a clean parse, ``(value, "invalid-utf8")`` when bytes had to be replaced,
        and ``(None, "invalid-json")`` when the line is not JSON at all.
    """
    try:
        return orjson.loads(line), None
    except orjson.JSONDecodeError:
        pass
    note = None
    if line.startswith(_BOM):
        line = line[3:]
    try:
        text = line.decode("utf-8")
    except UnicodeDecodeError:
        text = line.decode("utf-8", errors="replace")
        note = "invalid-utf8"
    try:
        return _lenient.decode(text.strip()), note
    except (ValueError, RecursionError):
        return None, "invalid-json"
