"""Forks and clones in the catalogue's usage rows: which rows a fork copied from its ancestors.

A fork's copied rows (same entry id and timestamp as a row of a session its header links to, or that
session's parent, and so on) are flagged ``copied`` and left out of ``usage_groups``, so they count once,
in the session that first had them; so are all the rows of a child session whose cost is inside its
parent's attributed aggregate (:mod:`core.catalogue.children`). (:mod:`core.usage.lineage` says the
same for loose records.) Which rows are copies depends on other files, which may be read before or
after the fork, so it is settled after each refresh pass (:func:`settle`): a file is worked out again
only when its chain of ancestors, or how much of any of them was read, or whether it is inside its
parent's aggregate, changed since the last time (its ``usage_lineage`` fingerprint).
"""

from __future__ import annotations

import sqlite3

from core.catalogue.children import settle_children
from core.catalogue.usage_rows import regroup
from core.session.lineage import parent_paths
from core.session.summary import SessionSummary
from core.usage.lineage import ancestors


def settle(conn: sqlite3.Connection) -> int:
    """Bring every file's ``copied`` flags (and then its groups) up to date; returns the files redone.

    Call inside a write transaction, after a refresh pass that changed anything.
    """
    files = conn.execute(
        "SELECT file_id, path, session_id, parent_session, read_end FROM usage_sessions"
    ).fetchall()
    summaries = [
        SessionSummary(path, sid, "", None, parent, None, None, 0, "") for _i, path, sid, parent, _e in files
    ]
    parents = parent_paths(summaries)
    inside = settle_children(conn)  # children whose cost is inside their parent's aggregate
    by_path = {path: (file_id, read_end) for file_id, path, _sid, _parent, read_end in files}
    stored = dict(conn.execute("SELECT file_id, fingerprint FROM usage_lineage"))
    redone = 0
    for file_id, path, _sid, _parent, read_end in files:
        chain = [by_path[a] for a in ancestors(path, parents) if a in by_path]
        fingerprint = ";".join(f"{i}:{end}" for i, end in [(file_id, read_end), *chain]) if chain else ""
        if file_id in inside:
            fingerprint = f"inside;{file_id}:{read_end}"
        if stored.get(file_id, "") == fingerprint:
            continue
        if file_id in inside:  # counted in the parent's aggregate: every row is a copy of what it holds
            conn.execute("UPDATE usage SET copied = 1 WHERE file_id = ?", (file_id,))
        else:
            _flag_copies(conn, file_id, [i for i, _end in chain])
        if fingerprint:
            conn.execute("INSERT OR REPLACE INTO usage_lineage VALUES (?, ?)", (file_id, fingerprint))
        else:
            conn.execute("DELETE FROM usage_lineage WHERE file_id = ?", (file_id,))
        regroup(conn, file_id)
        redone += 1
    return redone


def _flag_copies(conn: sqlite3.Connection, file_id: int, ancestor_ids: list[int]) -> None:
    conn.execute("UPDATE usage SET copied = 0 WHERE file_id = ? AND copied != 0", (file_id,))
    if not ancestor_ids:
        return
    marks = ",".join("?" * len(ancestor_ids))
    moment = "coalesce({}.ts_ms, {}.created_ms, 0)"
    conn.execute(
        "UPDATE usage SET copied = 1 WHERE file_id = ? AND line IN ("
        " SELECT c.line FROM usage c JOIN usage_sessions cf ON cf.file_id = c.file_id"
        " JOIN usage a ON a.entry_id = c.entry_id"
        f" JOIN usage_sessions af ON af.file_id = a.file_id AND af.file_id IN ({marks})"
        " WHERE c.file_id = ? AND c.kind != 'attribution' AND a.kind != 'attribution'"
        f" AND {moment.format('c', 'cf')} = {moment.format('a', 'af')})",
        (file_id, *ancestor_ids, file_id),
    )
