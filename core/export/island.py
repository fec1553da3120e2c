"""The HTML export's data island: the sidebar tree's rows and the entries' fragments, as script-safe JSON.

The page's script builds the sidebar and the message list from one
``<script type="application/json" id="session-data">`` element holding ``{"n": rows, "h": fragments,
"u": shown under, "leaf": index}``. ``<`` and U+2028/2029 are escaped in it, so no string can close the
script element; a row's preview is shown with ``textContent``, never as markup.
"""

from __future__ import annotations

import json
import re
from typing import TYPE_CHECKING, TypeAlias

import orjson

from core.kinds.registry import entry_preview, kind_of
from core.session.content import Body

if TYPE_CHECKING:
    from core.export.redact import Redactor
    from core.session import Entry

__all__ = [
    "EMPTY_JSON",
    "Fragment",
    "Node",
    "entry_class",
    "island",
    "json_for_script",
    "json_fragment",
    "tree_node",
]

Node: TypeAlias = list[object]
"""One sidebar row: ``[parent index, class, preview, label, id, kind]``."""
Fragment: TypeAlias = bytes | list[bytes] | str
"""An entry's HTML in the island: its JSON, that JSON in pieces, or the text itself (see json_fragment)."""

# Inside <script type="application/json"> only "<" means anything to the HTML parser ("</script" ends
# the element, "<!--" changes how it ends), so "<" is the escape that matters; U+2028/2029 are escaped
# for JavaScript engines that once treated them as line ends. ">" and "&" are inert there and are left
# as they are: escaping them made the page 4 MB larger and the 20,000-message export 5% slower.
_JSON_ESCAPES = (
    (b"<", b"\\u003c"),
    ("\u2028".encode(), b"\\u2028"),
    ("\u2029".encode(), b"\\u2029"),
)
# Both separators in one pass (UTF-8 E2 80 A8 / E2 80 A9): two substring searches over the 37 MB island
# of the 20,000-message session took 60 ms, this one 14 ms, and it almost never finds anything.
_LINE_SEPARATORS = re.compile(b"\xe2\x80[\xa8\xa9]")
EMPTY_JSON = b'""'  # the island's fragment of an entry the options leave out
_SLICE = 1024 * 1024  # characters of a fragment encoded at a time (see json_fragment)
_CHUNK = 16 * 1024  # bytes of the island's fragments joined into one piece of the page (see island)


def entry_class(entry: Entry) -> str:
    """The CSS class of an entry: its kind's family (user, assistant, tool, bash, custom, summary, meta)."""
    return kind_of(entry).family


def json_fragment(text: str) -> Fragment:
    """``json_for_script(text)``, or ``text`` itself when orjson refuses it (a lone surrogate).

    :func:`island` then writes the whole island the slow way. A text longer than :data:`_SLICE` comes
    back as a list of pieces encoded a slice at a time: encoding is character by character, so the
    pieces joined are the same bytes, and the 90 MB fragment of a huge message is not held three
    times over (text, JSON, escaped JSON) at once.
    """
    try:
        if len(text) <= _SLICE:
            return _script_safe(orjson.dumps(text))
        pieces = [b'"']
        for start in range(0, len(text), _SLICE):
            pieces.append(_script_safe(orjson.dumps(text[start : start + _SLICE])[1:-1]))
        pieces.append(b'"')
        return pieces
    except TypeError:
        return text


def island(nodes: list[Node], fragments: list[Fragment], under: dict[str, int], leaf: int) -> list[bytes]:
    """``json_for_script({"n": nodes, "h": fragments, "u": under, "leaf": leaf})``, in pieces to join.

    The fragments come already encoded (:func:`json_fragment`), which is what orjson would write for them
    inside the list: the page is then made by one join, where encoding the whole island at once made
    three copies of its 37 MB (JSON, escaped JSON, page), and the memory for each came fresh from the
    system. A fragment left as text (a lone surrogate) or nodes orjson refuses send the whole island
    the old way: json_for_script then escapes every non-ASCII character of it, not just of that text.

    The island takes the fragments over: on the usual way, ``fragments`` is left holding
    :data:`EMPTY_JSON` alone, so that each fragment's memory can go once it is in a chunk.
    """
    if not any(isinstance(fragment, str) for fragment in fragments):
        try:
            head = _script_safe(orjson.dumps(nodes))
        except TypeError:
            pass
        else:
            pieces = [b'{"n":', head, b',"h":[']
            # Fragments are joined into chunks of about _CHUNK bytes as they are taken (the list's
            # reference dropped), so the page is written in some 2,500 pieces rather than 40,000
            # (a system call each: 0.12 s of the 20,000-message export under cProfile), and no more
            # than a chunk is ever held twice (16 KiB chunks fit in the memory the fragments free: 256 KiB
            # ones came fresh from the system, +20 MB). A fragment already in pieces (a huge one) stays so.
            chunk: list[bytes] = []
            size = 0
            last = len(fragments) - 1
            for index, fragment in enumerate(fragments):
                fragments[index] = EMPTY_JSON
                if isinstance(fragment, bytes):
                    chunk.append(fragment)
                    size += len(fragment)
                elif isinstance(fragment, list):
                    if chunk:
                        pieces.append(b"".join(chunk))
                        chunk, size = [], 0
                    pieces.extend(fragment)
                if index != last:
                    chunk.append(b",")
                    size += 1
                if size >= _CHUNK:
                    pieces.append(b"".join(chunk))
                    chunk, size = [], 0
            if chunk:
                pieces.append(b"".join(chunk))
            tail = b'],"u":' + json_for_script(under) + b',"leaf":' + json_for_script(leaf) + b"}"
            pieces.append(tail)
            return pieces
    texts = [
        f if isinstance(f, str) else orjson.loads(f if isinstance(f, bytes) else b"".join(f))
        for f in fragments
    ]
    return [json_for_script({"n": nodes, "h": texts, "u": under, "leaf": leaf})]


def tree_node(
    entry: Entry | None,
    body: Body,
    keep: bool,
    position: dict[str, int],
    labels: dict[str, str],
    redactor: Redactor | None,
) -> Node:
    """``[parent index, class, preview, label, id, kind]``: one sidebar row (shown with textContent).

    Args:
        entry: the entry; None for a stub row.
        body: its body.
        keep: whether the options keep the entry (a row left out says so instead of a preview).
        position: entry id -> its index in the island.
        labels: entry id -> its label.
        redactor: applied to the body (before its preview is cut) and the label; None for none (the
            HTML export passes bodies it has redacted already).
    """
    if entry is None:
        return [-1, "meta", "", None, "", ""]
    parent = position.get(entry.parent_id, -1) if entry.parent_id is not None else -1
    if keep:
        if redactor is not None:
            # The whole body first, the cut after: a secret across the cut would not be recognised.
            body = redactor.value(body)
        preview = entry_preview(entry, body, 120)
    else:
        preview = f"[{entry.type or 'entry'}: left out]"
    label = labels.get(entry.id)
    if label and redactor is not None:
        label = redactor.text(label)
    return [parent, entry_class(entry), preview, label or None, entry.id, entry.kind]


def json_for_script(value: object) -> bytes:
    r"""UTF-8 JSON that is safe inside ``<script type="application/json">``.

    Every ``<`` becomes ``\\u003c`` (so no string can close the element or open a comment), and
    U+2028/2029 are escaped too (see ``_JSON_ESCAPES``). On bytes: a ``str`` holding one emoji takes four
    bytes per character, and replacing in it is slower.
    """
    try:
        data = orjson.dumps(value)
    except TypeError:  # a lone surrogate (from a "\ud800" escape in the file) is no UTF-8: escape it
        data = json.dumps(value, ensure_ascii=True).encode("ascii")
    return _script_safe(data)


def _script_safe(data: bytes) -> bytes:
    """JSON with ``<`` and U+2028/2029 escaped (see ``_JSON_ESCAPES``)."""
    data = data.replace(b"<", b"\\u003c")
    if _LINE_SEPARATORS.search(data) is not None:
        for char, escape in _JSON_ESCAPES[1:]:
            data = data.replace(char, escape)
    return data
