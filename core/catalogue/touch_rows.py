"""The ``touches`` rows of the entries a read observes: the files their tools touched, resolved.

Made alike by a whole read (:mod:`core.catalogue.reading`) and by an append (:mod:`core.catalogue.append`);
queried by :mod:`core.catalogue.touches`.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TypeAlias

from core.kinds.registry import kind_of
from core.kinds.touches import Touch, relative_to, resolve
from core.session.entry import Entry
from core.session.jsonl import JsonObject

__all__ = ["TouchCollector", "TouchRow", "touch_rows"]

TouchRow: TypeAlias = tuple[int, int, str, str, str | None, str]
"""One ``touches`` row of a file: ``(line, seq, entry_id, path, rel, how)``; seq orders an entry's touches."""


class TouchCollector:
    """Gathers the touches of the entries a read observes (with their lines), to make rows at the end.

    The rows need the project folder, which a whole read knows only once the file is read.
    """

    __slots__ = ("found",)

    def __init__(self) -> None:
        self.found: list[tuple[int, str, Touch]] = []

    def add(self, entry: Entry, obj: JsonObject) -> None:
        """Note the files ``entry`` (its body ``obj``) touched, if its kind touches any."""
        kind = kind_of(entry)
        if kind.touches_files:
            self.found += [(entry.line, entry.id, touch) for touch in kind.touches(entry, obj)]

    def rows(self, cwd: str | None) -> list[TouchRow]:
        """The ``touches`` rows, resolved against the project folder ``cwd``."""
        return touch_rows(self.found, cwd or "")


def touch_rows(found: Iterable[tuple[int, str, Touch]], cwd: str) -> list[TouchRow]:
    """``touches`` rows of ``(line, entry id, touch)``: resolved, and relative where inside ``cwd``.

    Every touch is a row (two edits of a file in one message are two), as
    :func:`core.kinds.touches.touched_files` counts them. The project folder itself is left out (a ``ls``
    of ``.``): every session of the project is in it.
    """
    rows: list[TouchRow] = []
    seq = 0
    last_line = -1
    for line, entry_id, touch in found:
        path = resolve(touch.path, cwd)
        rel = relative_to(path, cwd)
        if rel == ".":
            continue
        seq = seq + 1 if line == last_line else 0
        last_line = line
        rows.append((line, seq, entry_id, path, rel, touch.how))
    return rows
