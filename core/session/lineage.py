"""Which listed session a fork or clone came from, when the recorded ``parentSession`` path may be stale.

A fork's header records the path its parent had on the machine that wrote it. Histories are copied and
synced between machines, so that path often names a folder that is not here; the parent is usually
still among the listed sessions, under the same file name or at least with the same session id (pi's
file names end in ``_<session id>.jsonl``, Prime Agent's are ``<session id>.jsonl``). This resolves
parents among known summaries only: no file is read, so the session list can thread forks as it sorts.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from core.session.summary import SessionSummary

__all__ = ["parent_paths", "recorded_name_keys"]

_SEPARATORS = re.compile(r"[\\/]")


def recorded_name_keys(recorded: str) -> tuple[str, list[str]]:
    """The file name of a recorded parent path and the session ids it may carry.

    Args:
        recorded: a ``parentSession`` value, with forward or backward slashes (Windows paths arrive too).

    Returns:
        ``(file name, [candidate ids])``: the stem, and the part after its last ``_`` when there is one.
    """
    name = _SEPARATORS.split(recorded)[-1]
    stem = name[: -len(".jsonl")] if name.lower().endswith(".jsonl") else name
    ids = [stem]
    if "_" in stem:
        ids.append(stem.rsplit("_", 1)[1])
    return name, [i for i in ids if i]


def parent_paths(summaries: Iterable[SessionSummary]) -> dict[str, str]:
    """Each listed session's parent among the listed ones: session path -> parent path.

    The recorded path is used when it is listed; else a listed session with the same file name, else one
    whose session id the recorded file name carries. A name or id shared by two listed sessions decides
    nothing (the parent stays unknown rather than guessed). A session is never its own parent.

    Args:
        summaries: the known sessions.

    Returns:
        Paths as the summaries give them, for the sessions whose parent was found.
    """
    rows = list(summaries)
    by_path = {os.path.normpath(s.path): s.path for s in rows}
    by_name: dict[str, str | None] = {}
    by_id: dict[str, str | None] = {}
    for s in rows:
        name = os.path.basename(s.path)
        by_name[name] = None if name in by_name else s.path  # None: ambiguous
        if s.id:
            by_id[s.id] = None if s.id in by_id else s.path
    parents: dict[str, str] = {}
    for s in rows:
        recorded = s.parentSessionPath
        if not recorded:
            continue
        parent = by_path.get(os.path.normpath(recorded))
        if parent is None:
            name, ids = recorded_name_keys(recorded)
            parent = by_name.get(name)
            for candidate in ids:
                if parent is not None:
                    break
                parent = by_id.get(candidate)
        if parent is not None and os.path.normpath(parent) != os.path.normpath(s.path):
            parents[s.path] = parent
    return parents
