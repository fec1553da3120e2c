r"""Decoding one JSONL line as leniently as the reference does, and no more.

The reference reads the file as UTF-8 (invalid bytes become U+FFFD) and calls ``JSON.parse`` on
each ``\n``-separated line. orjson is strict about UTF-8 and lone surrogates and rejects a BOM, so
we fall back to the standard library only for lines orjson refuses; the common case stays fast.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any, TypeAlias

import orjson

if TYPE_CHECKING:
    import json

JsonObject: TypeAlias = dict[str, object]
"""A parsed JSON object: values are narrowed with ``isinstance`` (or ``type(...) is``) where they are read."""

_BOM = b"\xef\xbb\xbf"

MAX_DEPTH = 100
"""How deep an entry's values may nest (the line's object is level 1). What lies deeper is folded.

Code all over the app recurses over a value (``str()``, ``repr()``, ``json.dumps``, ``==``, pickling,
the renderers) and Python allows 1,000 frames: a line nested 990 levels deep, which orjson parses (it
stops at 1,024), made the list, search and every command fail. No agent writes values anywhere near
100 levels deep; the few hostile ones are folded when the line is decoded, so nothing later ever sees
them, and the line gets a diagnostic."""

FOLDED = f"\u22ef (nested more than {MAX_DEPTH} levels deep: folded)"
"""What stands in for a folded value, where it was (shown as its text wherever the value is shown)."""
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


def may_be_deep(line: bytes) -> bool:
    """False when ``line`` cannot hold a value nested deeper than :data:`MAX_DEPTH` (cheap: two counts).

    Every level opens with ``[`` or ``{``, so a line with fewer of them, in strings or not, is shallow.
    """
    return line.count(b"[") + line.count(b"{") > MAX_DEPTH


def fold_deep(value: object) -> int:
    """Fold, in place, every container of ``value`` nested deeper than :data:`MAX_DEPTH`; its depth.

    Returns the depth of the deepest container found (0 for a scalar, 1 for ``{}``), before folding; a
    value deeper than :data:`MAX_DEPTH` had its deeper containers replaced by :data:`FOLDED`. Walks with
    a stack of its own, never recursing.
    """
    if not isinstance(value, (dict, list)):
        return 0
    deepest = 1
    stack: list[tuple[dict[object, object] | list[object], int]] = [(value, 1)]
    while stack:
        container, depth = stack.pop()
        deepest = max(deepest, depth)
        items = container.items() if isinstance(container, dict) else enumerate(container)
        folded: list[Any] = []  # keys of this very container
        for key, item in items:
            if isinstance(item, (dict, list)):
                # A folded value is still walked, to say how deep it went (orjson stops at 1,024).
                stack.append((item, depth + 1))
                if depth >= MAX_DEPTH:
                    folded.append(key)
        for key in folded:
            container[key] = FOLDED
    return deepest


def value_str(value: object) -> str:
    """``str(value)`` of a parsed JSON value at any depth.

    What nests deeper than :data:`MAX_DEPTH` is folded first, in place (``str`` of a list recurses on
    the C stack).
    """
    if isinstance(value, (dict, list)):
        fold_deep(value)
    return str(value)


def decode_line(line: bytes, *, fold: bool = True) -> tuple[object, str | None]:
    """Parse one line (without its newline), every value in it at most :data:`MAX_DEPTH` levels deep.

    ``fold=False`` leaves deep values to the caller (the reader folds them itself, with a diagnostic).

    Returns:
        ``(value, None)`` on a clean parse, ``(value, "invalid-utf8")`` when bytes had to be replaced,
        ``(value, "bom")`` when the line starts with a UTF-8 byte order mark (skipped), and
        ``(None, "invalid-json")`` when the line is not JSON at all. Note that ``null`` is valid JSON:
        ``(None, None)`` means the line was the JSON value null.
    """
    try:
        value = orjson.loads(line)
    except orjson.JSONDecodeError as err:
        if str(err).startswith("depth limit exceeded"):
            # Nested deeper than 1024 levels. The standard library gives up even sooner, after
            # recursing on the C stack (unsafe in a thread with a small stack), so stop here.
            return None, "invalid-json"
    else:
        if fold and may_be_deep(line):
            fold_deep(value)
        return value, None
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
        value = _fallback_decoder().decode(text.strip())
    except (ValueError, RecursionError):
        return None, "invalid-json"
    if fold and may_be_deep(line):
        fold_deep(value)
    return value, note


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
