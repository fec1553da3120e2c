r"""Decoding one JSONL line as leniently as the reference does, and no more.

The reference reads the file as UTF-8 (invalid bytes become U+FFFD) and calls ``JSON.parse`` on
each ``\n``-separated line. orjson is strict about UTF-8 and lone surrogates and rejects a BOM, so
we fall back to the standard library only for lines orjson refuses; the common case stays fast.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
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


_Member: TypeAlias = tuple[bytes, object]  # what goes before a value (a separator, a key), the value


def encode_json(value: object) -> bytes:
    r"""``value`` as compact JSON bytes, as ``orjson.dumps`` writes it, at any depth and with any string.

    orjson refuses two things a session file can hold: nesting deeper than 255 levels (the loader
    accepts up to 1024, as orjson parses) and lone surrogates (``JSON.parse`` accepts a ``"\ud800"``
    escape). Then the value is written without recursion, lone surrogates as the same escapes, as
    ``JSON.stringify`` does; every other value is written exactly as orjson writes it.
    """
    try:
        return orjson.dumps(value)
    except (TypeError, orjson.JSONEncodeError):
        pass
    pieces: list[bytes] = []
    append = pieces.append
    frames: list[Iterator[_Member]] = [iter(((b"", value),))]
    closers = [b""]
    while frames:
        member = next(frames[-1], None)  # a member is a tuple, never None
        if member is None:
            frames.pop()
            append(closers.pop())
            continue
        prefix, item = member
        append(prefix)
        if isinstance(item, dict) and item:
            append(b"{")
            frames.append(_members(item))
            closers.append(b"}")
        elif isinstance(item, list) and item:
            append(b"[")
            frames.append((b"," if index else b"", element) for index, element in enumerate(item))
            closers.append(b"]")
        else:
            append(_scalar(item))
    return b"".join(pieces)


def _members(obj: dict[object, object]) -> Iterator[_Member]:
    for index, (key, item) in enumerate(obj.items()):
        yield (b"," if index else b"") + _scalar(key if isinstance(key, str) else str(key)) + b":", item


def _scalar(value: object) -> bytes:
    try:
        return orjson.dumps(value)  # also {} and [], which are never nested
    except (TypeError, orjson.JSONEncodeError):
        if isinstance(value, str):
            import json

            return json.dumps(value, ensure_ascii=False).encode("utf-8", "backslashreplace")
        if isinstance(value, int):
            return str(value).encode()  # beyond 64 bits: JSON has no limit
        raise
