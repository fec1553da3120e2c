r"""Decoding one JSONL line as leniently as the reference does, and no more.

The reference reads the file as UTF-8 (invalid bytes become U+FFFD) and calls ``JSON.parse`` on
each ``\n``-separated line. orjson is strict about UTF-8 and lone surrogates and rejects a BOM, so
we fall back to the standard library only for lines orjson refuses; the common case stays fast.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, TypeAlias

import orjson

if TYPE_CHECKING:
    import json

JsonObject: TypeAlias = dict[str, object]
"""A parsed JSON object: values are narrowed with ``isinstance`` (or ``type(...) is``) where they are read."""

_BOM = b"\xef\xbb\xbf"
_INT_MIN = -(1 << 63)
_INT_MAX = (1 << 64) - 1


def _reject_constant(name: str) -> object:
    # JSON.parse rejects NaN/Infinity; the stdlib would accept them.
    raise ValueError(f"invalid JSON constant {name}")


def _js_int(text: str) -> int | float:
    # Every JavaScript number is a double. Keep the integers orjson keeps (64-bit) and turn larger
    # ones into floats as orjson does, so both decoders give the same value and it can be written back.
    value = int(text)
    return value if _INT_MIN <= value <= _INT_MAX else float(value)


def _js_float(text: str) -> float | None:
    # JSON.parse reads 1e400 as Infinity, which JSON.stringify writes as null: keep the null.
    value = float(text)
    return value if math.isfinite(value) else None


_lenient: json.JSONDecoder | None = (
    None  # the standard library's decoder, made on first need (most files never need it)
)


def _fallback_decoder() -> json.JSONDecoder:
    global _lenient
    if _lenient is None:
        import json

        _lenient = json.JSONDecoder(parse_constant=_reject_constant, parse_int=_js_int, parse_float=_js_float)
    return _lenient


def decode_line(line: bytes) -> tuple[object, str | None]:
    """Parse one line (without its newline).

    Returns:
        ``(value, None)`` on a clean parse, ``(value, "invalid-utf8")`` when bytes had to be replaced,
        ``(value, "bom")`` when the line starts with a UTF-8 byte order mark (skipped), and
        ``(None, "invalid-json")`` when the line is not JSON at all. Note that ``null`` is valid JSON:
        ``(None, None)`` means the line was the JSON value null.
    """
    try:
        return orjson.loads(line), None
    except orjson.JSONDecodeError as err:
        if str(err).startswith("depth limit exceeded"):
            # Nested deeper than 1024 levels. The standard library gives up even sooner, after
            # recursing on the C stack (unsafe in a thread with a small stack), so stop here.
            return None, "invalid-json"
    note = None
    if line.startswith(_BOM):
        line = line[3:]
        note = "bom"
    try:
        text = line.decode("utf-8")
    except UnicodeDecodeError:
        text = line.decode("utf-8", errors="replace")
        note = "invalid-utf8"
    try:
        return _fallback_decoder().decode(text.strip()), note
    except (ValueError, RecursionError):
        return None, "invalid-json"
