"""Which catalogued session a reference names: a session id, a unique id prefix or an exact name.

The command line takes any of them where it takes a session file (``show 01a139df``), and prints short
ids (``list``, ``usage session``) that are guaranteed to name one session. Both rest on the same idea of
a session's ids: its header's id and the id in its file name (``<time>_<id>.jsonl`` or ``<id>.jsonl``).
The two usually agree; Prime Agent's checkpoint files may carry a new id in the name and keep the old one
in the header, so either finds the file.

Pure functions over ``(path, session id, name)`` rows; :class:`~core.catalogue.Catalogue` feeds them.
"""

from __future__ import annotations

import bisect
import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

__all__ = ["SHORT_ID_LENGTH", "SessionKey", "file_name_id", "match_sessions", "short_ids"]

SHORT_ID_LENGTH = 8
"""The fewest characters a short id has (git's habit; longer only where 8 would name two sessions)."""


@dataclass(frozen=True, slots=True)
class SessionKey:
    """What a reference is matched against, for one catalogued session file.

    Attributes:
        path: the file.
        session_id: its header's id (None when the header has none).
        name: its name (the latest ``session_info`` name), or None.
    """

    path: str
    session_id: str | None
    name: str | None

    @property
    def ids(self) -> tuple[str, ...]:
        """The header's id and the file name's, once each (the header's first)."""
        found = [i for i in (self.session_id, file_name_id(self.path)) if i]
        return tuple(dict.fromkeys(found))


def file_name_id(path: str) -> str:
    """The id a session file's name carries: ``<time>_<id>.jsonl`` (pi) or ``<id>.jsonl`` (Prime Agent)."""
    stem = os.path.basename(path)
    stem = stem[: -len(".jsonl")] if stem.endswith(".jsonl") else os.path.splitext(stem)[0]
    return stem.rsplit("_", 1)[-1]


def match_sessions(ref: str, keys: Iterable[SessionKey]) -> list[SessionKey]:
    """The sessions ``ref`` names, best kind of match only (more than one: the reference is ambiguous).

    In order, the first that finds any: an id equal to ``ref`` (the header's or the file name's), a name
    equal to ``ref`` (exactly, as written), an id starting with ``ref`` (ASCII letters in any case). Sessions
    are kept in the order given.
    """
    keys = list(keys)
    if not ref:
        return []
    exact = [k for k in keys if ref in k.ids]
    if exact:
        return exact
    named = [k for k in keys if k.name is not None and k.name == ref]
    if named:
        return named
    folded = _fold(ref)
    return [k for k in keys if any(_fold(i).startswith(folded) for i in k.ids)]


def short_ids(keys: Sequence[SessionKey], minimum: int = SHORT_ID_LENGTH) -> dict[str, str]:
    """Path -> the shortest prefix (at least ``minimum`` characters) of its header's id naming it alone.

    "Alone" as :func:`match_sessions` reads a prefix: no other file has an id (header's or file name's)
    starting with it (ASCII letters in any case). Copies of a session (files with the same id) get the
    prefix that tells their id from every other id: no prefix can tell the copies apart, so it names all of
    them and ``show`` lists them with their paths. A file without a header id gets its file name's.
    """
    owners: list[tuple[str, int]] = sorted(
        {(_fold(i), n) for n, key in enumerate(keys) for i in key.ids}  # every id, with its file
    )
    result: dict[str, str] = {}
    for n, key in enumerate(keys):
        ids = key.ids
        if not ids:
            continue
        own, folded = ids[0], _fold(ids[0])
        needed = minimum
        at = bisect.bisect_left(owners, (folded, -1))
        # The ids sharing the longest prefix with ours are its nearest neighbours in sorted order; look
        # each way, past our own file's ids and copies of our id (no prefix tells those apart), to the
        # nearest other id.
        before = at - 1
        while before >= 0 and (owners[before][1] == n or owners[before][0] == folded):
            before -= 1
        after = at
        while after < len(owners) and (owners[after][1] == n or owners[after][0] == folded):
            after += 1
        for i in (before, after):
            if 0 <= i < len(owners):
                needed = max(needed, _common_length(folded, owners[i][0]) + 1)
        result[key.path] = own[: min(needed, len(own))]
    return result


_ASCII_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")


def _fold(text: str) -> str:
    # ASCII letters only, so a prefix keeps its length (str.casefold turns "ß" into "ss").
    return text.translate(_ASCII_LOWER)


def _common_length(a: str, b: str) -> int:
    length = 0
    for x, y in zip(a, b, strict=False):
        if x != y:
            break
        length += 1
    return length
