"""What the index reads of a huge line, parsed as a stream: the line's skeleton, never its whole object.

Parsing a line whole costs up to 19 times its size when it holds millions of small values (5 million
Python dicts for a tool call's arguments, 7 million text blocks), yet the index reads a few small fields
of it (:mod:`core.session.indexing`). A line longer than :data:`HUGE_LINE` is therefore read by ijson's
C parser (yajl) as a stream of events, and only this is built of it, the *skeleton*:

* every key of the entry and of its ``message``, in their order; the values the index reads whole
  (``WHOLE_KEYS``, ``MESSAGE_WHOLE_KEYS``: ids, type, timestamps, role, usage, model, label, ...);
* every other value folded: a container as an empty one of its type, a string as ``""`` (the index
  asks only whether such a key is there, or is null);
* a user message's ``content`` while the session has no first message yet (its text is the session's
  first message): a string whole, a list as its blocks' ``type`` and ``text`` only.

The index then reads the skeleton exactly as it would read the whole object, so both give the same
entry and diagnostics. Where the two parsers could differ, the skeleton is not made (None) and the
caller parses the line whole, as for any other line: invalid JSON (which then gets its diagnostic), a
byte order mark or invalid UTF-8 (read leniently there), integers beyond 64 bits and floats beyond a
double (yajl refuses them; the lenient reading keeps them), a lone surrogate escape (yajl turns it into
``?``), a value nested deeper than :data:`core.session.jsonl.MAX_DEPTH` (folded there, with its
diagnostic), a repeated key where the skeleton keeps keys, and a line that is not an object. A body is
read again by offset when a card or an export needs it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import Any, TypeAlias

from core.session.jsonl import MAX_DEPTH, JsonObject
from core.session.vocabulary import USER

HUGE_LINE = 16 << 20
"""Lines longer than this many bytes are indexed from their skeleton (a module global: tests lower it)."""

READ_SIZE = 64 << 10  # what the parser asks for at a time (its events for one read are listed at once)

DENSE = 32
"""A huge line is streamed when it has a comma or an opening bracket at least every this many bytes.

Parsed whole, a value costs Python 50 to 100 bytes however short it is written, so a line of millions
of small values costs 19 times its size; a line of a few long texts (a tool's output, an image) costs
about its size, and orjson parses it 15 times faster than the stream. Commas in a text count too: a
line that only looks dense is streamed, which costs time, never the result. (A module global: the tests
raise it to stream every line.)"""

# What the index reads of an entry (core.session.indexing and decoding): kept whole.
WHOLE_KEYS = frozenset(
    (
        "type",
        "id",
        "parentId",
        "timestamp",
        "targetId",
        "label",
        "name",
        "modelId",
        "provider",
        "model",
        "tokensBefore",
        "aggregateUsage",
        "usage",
        "title",
    )
)
MESSAGE_KEY = "message"
# What the index reads of an entry's message; its content is kept only for a first user message.
MESSAGE_WHOLE_KEYS = frozenset(("role", "usage", "provider", "model", "stopReason", "timestamp"))
CONTENT_KEY = "content"
BLOCK_KEYS = frozenset(("type", "text"))  # what core.session.content.message_text reads of a block

# How a container's members are kept.
_WHOLE, _SKIP, _ENTRY, _MESSAGE, _CONTENT, _BLOCK = range(6)

# A surrogate pair (kept as is by both parsers) or a lone surrogate escape (yajl reads it as "?").
_SURROGATE = re.compile(
    rb"\\u[dD][89abAB][0-9a-fA-F]{2}\\u[dD][c-fC-F][0-9a-fA-F]{2}|\\u[dD][89a-fA-F][0-9a-fA-F]{2}"
)
_SEAM = 11  # bytes either side of a piece boundary that could hold a pair cut in two


class _Pieces:
    """A file-like ``read`` over a line's pieces, as the parser asks for it (never the whole line joined).

    yajl lexes a string that spans reads again from its start at every read, so a 100 MB string read
    1 MiB at a time took 5.5 s. While the reads fall inside one string (no quote in them but escaped
    ones) each read is twice the one before, which keeps that linear.
    """

    def __init__(self, pieces: Sequence[bytes]) -> None:
        self._pieces = pieces
        self._index = 0
        self._offset = 0
        self._grow = 0  # reads are READ_SIZE << _grow

    def read(self, size: int = READ_SIZE) -> bytes:
        want = size << self._grow
        parts: list[bytes] = []
        got = 0
        pieces = self._pieces
        while got < want and self._index < len(pieces):
            piece = pieces[self._index]
            start = self._offset
            part = piece if start == 0 and len(piece) <= want - got else piece[start : start + want - got]
            self._offset = start + len(part)
            if self._offset >= len(piece):
                self._index += 1
                self._offset = 0
            parts.append(part)
            got += len(part)
        data = parts[0] if len(parts) == 1 else b"".join(parts)
        inside_a_string = data.count(b'"') == data.count(b'\\"')
        self._grow = min(self._grow + 1, 12) if inside_a_string else 0
        return data


def worth_streaming(pieces: Sequence[bytes], length: int) -> bool:
    """Whether a huge line holds values enough that the skeleton pays (:data:`DENSE`)."""
    marks = sum(piece.count(b",") + piece.count(b"{") + piece.count(b"[") for piece in pieces)
    return marks * DENSE >= length


def may_hold_lone_surrogate(pieces: Sequence[bytes]) -> bool:
    r"""True when the line in ``pieces`` may hold a ``\uD800``-``\uDFFF`` escape outside a pair.

    A false alarm (an escaped backslash before ``u``, a pair cut by a piece boundary) only sends the
    line to the whole parse.
    """
    previous = b""
    for piece in pieces:
        if (b"\\ud" in piece or b"\\uD" in piece) and _lone(piece):
            return True
        if previous and _lone(previous[-_SEAM:] + piece[:_SEAM]):
            return True
        previous = piece
    return False


def _lone(data: bytes) -> bool:
    return any(match.end() - match.start() == 6 for match in _SURROGATE.finditer(data))


def skeleton(pieces: Sequence[bytes], first_text: bool) -> JsonObject | None:
    """The skeleton of the line made of ``pieces`` (see the module), or None: parse it whole instead.

    ``first_text``: the session has no first message yet, so a user message's text is kept.
    """
    if may_hold_lone_surrogate(pieces):
        return None
    try:
        # ijson's C back-end (yajl), named so that PyInstaller bundles it; imported only when a huge
        # line is read, off the start-up path. Without it, the line is parsed whole.
        from ijson.backends import yajl2_c
    except ImportError:
        return None
    try:
        events = yajl2_c.basic_parse(_Pieces(pieces), buf_size=READ_SIZE, use_float=True)
        return _Builder(first_text).build(events)
    except Exception:  # whatever yajl refuses (or cannot decode) is for the whole parse
        return None


def cut_short(pieces: Sequence[bytes]) -> bool:
    """True when the line in ``pieces`` is valid JSON up to its end but unfinished: a write in progress.

    Then no parser can read it (yajl stops at the first byte it refuses, so it reached the end), and it is
    told without building anything (a pass in C, about 2 s for 100 MB of small values).
    """
    try:
        from ijson.backends import yajl2_c
    except ImportError:
        return False
    try:
        for _ in yajl2_c.items(_Pieces(pieces), "\x00 nothing", buf_size=READ_SIZE):
            pass
    except Exception as err:  # yajl's errors, or bytes it cannot decode
        return "premature EOF" in str(err)
    return False


_Container: TypeAlias = "dict[str, object] | list[object]"


class _Builder:
    """Builds a skeleton from ijson's basic events (see :func:`skeleton`)."""

    def __init__(self, first_text: bool) -> None:
        self.first_text = first_text
        self.role: object = None  # the message's role, once read

    def build(self, events: Iterable[tuple[str, Any]]) -> JsonObject | None:
        """The skeleton, or None where it must not be made."""
        iterator = iter(events)
        first = next(iterator, None)
        if first is None or first[0] != "start_map":
            return None  # not an object: the whole parse says what it is
        root: JsonObject = {}
        stack: list[tuple[_Container, int]] = [(root, _ENTRY)]  # the open containers kept, how
        container: _Container = root
        mode = _ENTRY
        key: str | None = None  # the key of the next value, in an object
        skipped = 0  # how deep inside a skipped container
        for event, value in iterator:
            if skipped:
                # The hot loop on a huge line: millions of small values, none of them kept.
                if event == "start_map" or event == "start_array":
                    skipped += 1
                    if len(stack) + skipped > MAX_DEPTH:
                        return None  # folded, with its diagnostic, by the whole parse
                elif event == "end_map" or event == "end_array":
                    skipped -= 1
                continue
            if event == "map_key":
                key = value
                if (mode == _ENTRY or mode == _MESSAGE) and key in container:
                    return None  # a repeated key: which value wins is the whole parse's to say
            elif event == "start_map" or event == "start_array":
                if len(stack) >= MAX_DEPTH:
                    return None
                child: _Container = {} if event == "start_map" else []
                child_mode = self._child_mode(mode, key, event == "start_map")
                self._put(container, mode, key, child)
                if child_mode == _SKIP:
                    skipped = 1
                else:
                    stack.append((child, child_mode))
                    container, mode, key = child, child_mode, None
            elif event == "end_map" or event == "end_array":
                stack.pop()
                if not stack:
                    return root if next(iterator, None) is None else None
                container, mode = stack[-1]
            else:  # a scalar
                if mode == _MESSAGE and key == "role":
                    self.role = value
                if type(value) is str and not self._kept(mode, key):
                    value = ""
                self._put(container, mode, key, value)
        return None

    def _wants_text(self) -> bool:
        return self.first_text and (self.role is None or self.role == USER)

    def _child_mode(self, mode: int, key: str | None, is_object: bool) -> int:
        """How a container found as member ``key`` of a container kept as ``mode`` is kept."""
        if mode == _WHOLE:
            return _WHOLE
        if mode == _ENTRY:
            if key == MESSAGE_KEY:
                return _MESSAGE if is_object else _SKIP
            return _WHOLE if key in WHOLE_KEYS else _SKIP
        if mode == _MESSAGE:
            if key == CONTENT_KEY:
                return _CONTENT if not is_object and self._wants_text() else _SKIP
            return _WHOLE if key in MESSAGE_WHOLE_KEYS else _SKIP
        if mode == _CONTENT:
            return _BLOCK if is_object else _SKIP
        return _WHOLE if key in BLOCK_KEYS else _SKIP  # _BLOCK

    def _kept(self, mode: int, key: str | None) -> bool:
        """Whether a string member ``key`` of a container kept as ``mode`` is kept as it is."""
        if mode == _ENTRY:
            return key in WHOLE_KEYS
        if mode == _MESSAGE:
            return key in MESSAGE_WHOLE_KEYS or (key == CONTENT_KEY and self._wants_text())
        return True  # whole, or in a block (where only type and text are put), or in content (None)

    @staticmethod
    def _put(container: _Container, mode: int, key: str | None, value: object) -> None:
        if type(container) is list:
            # In a content list only blocks (objects) count; anything else stands as None.
            container.append(value if mode == _WHOLE or type(value) is dict else None)
        elif mode != _BLOCK or key in BLOCK_KEYS:
            container[key] = value  # type: ignore[call-overload,index]
