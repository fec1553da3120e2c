"""Which session a file holds, read from its first lines only: its header's id.

The notes about a session (:mod:`core.notes`) are keyed by the session's id, so that they follow the
session when its file moves; this reads that id without indexing the file (a 1 GB session is read for two
lines, never whole).
"""

from __future__ import annotations

import os

from core.session.jsonl import decode_line
from core.session.vocabulary import HEADER, HEADER_VARIANT, TITLE_SLOT

__all__ = ["read_session_id"]

_LINE_LIMIT = 1 << 20  # a header is a few hundred bytes; a first "line" of a megabyte is not one
_HEADER_TYPES = (HEADER, HEADER_VARIANT)


def read_session_id(path: str | os.PathLike[str]) -> str | None:
    """The header id of the session file at ``path``, or None (no header, no id, or unreadable).

    The header is the first line, or the second after oh-my-pi's title slot, as the reader takes it
    (:mod:`core.session.decoding`). Never raises for a file that cannot be read: it has no id then.
    """
    try:
        with open(path, "rb") as handle:
            for _ in range(2):
                line = handle.readline(_LINE_LIMIT)
                if not line.endswith(b"\n") and len(line) >= _LINE_LIMIT:
                    return None
                obj, _note = decode_line(line.rstrip(b"\r\n"))
                if not isinstance(obj, dict):
                    return None
                kind = obj.get("type")
                if kind in _HEADER_TYPES:
                    value = obj.get("id")
                    return value if isinstance(value, str) and value else None
                if kind != TITLE_SLOT:
                    return None
    except OSError:
        return None
    return None
