"""Which listed session a fork or clone came from, when the recorded ``parentSession`` path may be stale.

A fork's header records the path its parent had on the machine that wrote it. Histories are copied and
synced between machines, so that path often names a folder that is not here; the parent is usually
still among the listed sessions, under the same file name, or under a name carrying the same id (pi's
names are ``<time>_<id>.jsonl``, Prime Agent's ``<id>.jsonl``), or at least with that session id.

The header's id is the session id; a file name is only a path. They usually agree, but need not:
Prime Agent's ``writeCheckpointFile()`` names a file by a new id, and the file may keep the old session
id in its header, so two files then hold one session id. So the id a recorded path's name carries is
looked for first among the listed files' names (it named a file), and only then among their header
ids; a name or id two listed files share decides nothing (the parent stays unknown rather than
guessed). This resolves parents among known summaries only: no file is read, so the session list can
thread forks as it sorts.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from core.session.summary import SessionSummary

__all__ = ["file_name_ids", "parent_paths", "recorded_name_keys"]

_SEPARATORS = re.compile(r"[\\/]")


def recorded_name_keys(recorded: str) -> tuple[str, list[str]]:
    """The file name of a recorded parent path and the ids it may carry.

    Args:
        recorded: a ``parentSession`` value, with forward or backward slashes (Windows paths arrive too).

    Returns:
        ``(file name, [candidate ids])``: the name, and :func:`file_name_ids` of it.
    """
    name = _SEPARATORS.split(recorded)[-1]
    return name, file_name_ids(name)


def file_name_ids(name: str) -> list[str]:
    """The ids a session file's name may carry: its stem, and the part after its last ``_`` if any.

    ``<time>_<id>.jsonl`` (pi) gives the stem and ``<id>``; ``<id>.jsonl`` (Prime Agent) the id. Such an
    id names the file; the session's id is its header's, which may differ (a checkpoint file).
    """
    stem = name[: -len(".jsonl")] if name.lower().endswith(".jsonl") else name
    ids = [stem]
    if "_" in stem:
        ids.append(stem.rsplit("_", 1)[1])
    return [i for i in ids if i]


def parent_paths(summaries: Iterable[SessionSummary]) -> dict[str, str]:
    """Each listed session's parent among the listed ones: session path -> parent path.

    The recorded path is used when it is listed; else a listed session with the same file name, else one
    whose file name carries an id the recorded name carries, else one whose session (header) id the
    recorded name carries. A name or id shared by two listed sessions decides nothing (the parent stays
    unknown rather than guessed). A session is never its own parent.

    Args:
        summaries: the known sessions.

    Returns:
        Paths as the summaries give them, for the sessions whose parent was found.
    """
    rows = list(summaries)
    by_path = {os.path.normpath(s.path): s.path for s in rows}
    by_name: dict[str, str | None] = {}
    by_name_id: dict[str, str | None] = {}  # an id a file name carries -> the file
    by_id: dict[str, str | None] = {}  # a header id -> the file
    for s in rows:
        name = os.path.basename(s.path)
        _note(by_name, name, s.path)
        for name_id in set(file_name_ids(name)):
            _note(by_name_id, name_id, s.path)
        if s.id:
            _note(by_id, s.id, s.path)
    parents: dict[str, str] = {}
    for s in rows:
        recorded = s.parentSessionPath
        if not recorded:
            continue
        parent = by_path.get(os.path.normpath(recorded))
        if parent is None:
            name, ids = recorded_name_keys(recorded)
            parent = by_name.get(name)
            for table in (by_name_id, by_id):
                for candidate in ids:
                    if parent is not None:
                        break
                    parent = table.get(candidate)
        if parent is not None and os.path.normpath(parent) != os.path.normpath(s.path):
            parents[s.path] = parent
    return parents


def _note(table: dict[str, str | None], key: str, path: str) -> None:
    """``table[key] = path``, or None (ambiguous) when another path has that key already."""
    table[key] = None if key in table and table[key] != path else path
