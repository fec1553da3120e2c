"""Child (subagent) sessions in the catalogue: the ``subagents`` table, and the list's figures from it.

Which catalogued session started which depends on other files (a parent may be read after its child),
so, like forks' copies (:mod:`core.catalogue.usage_lineage`), it is settled after each refresh pass that
changed anything (:func:`settle_children`): every link is worked out again from the ``files`` rows by
:func:`core.session.subagents.child_links`, which reads no file. A child whose cost is inside its parent's
attributed aggregate (Prime Agent) is marked ``inside``; the lineage pass then flags its usage rows as
copies, so usage reports count it once, in the parent. :func:`with_children` gives the list's summaries
their parent, depth, child count and cost split.
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Iterable
from typing import Any

import orjson

from core.catalogue.usage_rows import GRAINS
from core.session.subagents import ChildLink, Listed, child_links, rlm_depth, with_families
from core.session.summary import SessionSummary

__all__ = ["child_paths", "settle_children", "with_children"]


def settle_children(conn: sqlite3.Connection) -> set[int]:
    """Work the ``subagents`` table out again; returns the files whose cost is inside their parent's.

    Call inside a write transaction, after a refresh pass that changed anything.
    """
    rows = conn.execute(
        "SELECT id, path, session_id, parent_session,"
        " CASE WHEN instr(header, 'rlmDepth') THEN header END, created_ms, last_activity_ms"
        " FROM files WHERE header IS NOT NULL"
    ).fetchall()
    ids = {path: file_id for file_id, path, *_rest in rows}
    # The links depend on these rows only; a pass that appended to a session (a live one, every few
    # seconds) leaves them alone unless it moved the last message of a session some header names as a
    # parent. Worked out again (30 ms for 2,000 sessions) only when they changed.
    named = {os.path.basename(parent) for *_a, parent, _h, _c, _l in rows if parent}
    key = [(*row[:6], row[6] if os.path.basename(row[1]) in named else None) for row in rows]
    last = _memo.get("last")
    if last is not None and last[0] == key:
        links: dict[str, ChildLink] = last[1]
    else:
        links = child_links(_listed(rows), lambda child, parent: _shares_entries(conn, ids, child, parent))
        _memo["last"] = (key, links)  # one assignment: another thread sees both or neither
    aggregating = _shares(conn, {ids[link.parent] for link in links.values() if link.parent is not None})
    conn.execute("DELETE FROM subagents")
    inside: set[int] = set()
    table = []
    for link in links.values():
        parent_id = ids.get(link.parent) if link.parent is not None else None
        within = link.rlm and parent_id is not None and parent_id in aggregating
        if within:
            inside.add(ids[link.path])
        table.append((ids[link.path], parent_id, link.depth, int(link.rlm), int(within)))
    conn.executemany("INSERT INTO subagents VALUES (?, ?, ?, ?, ?)", table)
    return inside


_memo: dict[str, Any] = {}  # the last rows settle_children worked the links out from, and the links


def _listed(rows: list[tuple[Any, ...]]) -> list[Listed]:
    """``files`` rows as :func:`child_links` takes them."""
    return [
        Listed(path, sid, parent, _rlm_depth(header), created, last)
        for _i, path, sid, parent, header, created, last in rows
    ]


def _shares_entries(conn: sqlite3.Connection, ids: dict[str, int], child: str, parent: str) -> bool:
    """Whether the catalogued ``child`` holds an entry id of ``parent`` (a fork's or a clone's copies)."""
    found = conn.execute(
        "SELECT 1 FROM entries c WHERE c.file_id = ? AND EXISTS"
        " (SELECT 1 FROM entries p WHERE p.file_id = ? AND p.entry_id = c.entry_id) LIMIT 1",
        (ids[child], ids[parent]),
    ).fetchone()
    return found is not None


def with_children(conn: sqlite3.Connection, summaries: list[SessionSummary]) -> list[SessionSummary]:
    """``summaries`` with their parent, depth, child count and cost split filled in (the others as given).

    A parent's figure counts each listed child once (:func:`core.session.subagents.family_costs`); a
    parent's child share recorded in its aggregate counts even when its children are not listed.
    """
    by_path = {s.path: s for s in summaries}
    paths = dict(conn.execute("SELECT id, path FROM files"))
    links: dict[str, ChildLink] = {}
    for file_id, parent_id, depth, rlm in conn.execute(
        "SELECT file_id, parent_id, depth, rlm FROM subagents"
    ):
        path = paths.get(file_id)
        if path is None or path not in by_path:
            continue
        parent = paths.get(parent_id) if parent_id is not None else None
        links[path] = ChildLink(path, parent if parent in by_path else None, depth, bool(rlm))
    ids = {path: file_id for file_id, path in paths.items()}
    parents = {ids[link.parent] for link in links.values() if link.parent is not None}
    shares = {paths[i]: share for i, share in _shares(conn, parents).items() if paths.get(i) in by_path}
    return with_families(summaries, links, shares)


def _shares(conn: sqlite3.Connection, parents: Iterable[int] = ()) -> dict[int, float]:
    """File id -> the child share inside its attributed aggregates, for the files that hold one.

    Read from ``usage_groups`` (a few rows per file and hour) for every counted file, and from the
    ``usage`` rows of ``parents`` (a child inside its own parent's aggregate has no groups: its rows are
    flagged copies, yet its grandchildren are inside its aggregate).
    """
    shares = {
        file_id: float(share)
        for file_id, share in conn.execute(
            "SELECT file_id, sum(child_cost) FROM usage_groups WHERE grain = ? GROUP BY file_id"
            " HAVING sum(child_cost) != 0",
            (GRAINS[0],),
        )
    }
    for file_id in set(parents) - set(shares):
        (share,) = conn.execute(
            "SELECT sum(child_cost) FROM usage WHERE file_id = ? AND kind != 'attribution'", (file_id,)
        ).fetchone()
        if share:
            shares[file_id] = float(share)
    return shares


def _rlm_depth(header: str | None) -> int | None:
    """Prime Agent's ``rlmDepth`` in a stored header, or None (absent, or not a whole number)."""
    if header is None:
        return None
    try:
        found = orjson.loads(header)
    except orjson.JSONDecodeError:
        return None
    return rlm_depth(found if isinstance(found, dict) else {})


def child_paths(conn: sqlite3.Connection, path: str) -> list[str]:
    """The catalogued child sessions of the session at ``path``, oldest first."""
    return [
        p
        for (p,) in conn.execute(
            "SELECT c.path FROM subagents s JOIN files c ON c.id = s.file_id"
            " JOIN files p ON p.id = s.parent_id WHERE p.path = ? ORDER BY c.created_ms, c.path",
            (path,),
        )
    ]
