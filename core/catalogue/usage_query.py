"""Usage over the whole catalogue: records and reports from the ``usage`` table, forks counted once.

A fork's or clone's copies of its ancestors' entries (same id and timestamp) are found in SQL, over
every catalogued session, so a fork under the roots asked for whose parent lies elsewhere still leaves
the parent's entries to the parent (the rule of :mod:`core.usage.lineage`). Reports other than blocks
are added up in SQL first, per 15 minutes, model, session and branch side (every time zone's offset is
a multiple of 15 minutes, so each group falls on one local day and hour), and folded into rows by
:func:`core.usage.reports.fold`: a daily report over 2,000 sessions reads a few thousand groups, not
every record.
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Iterable
from typing import NamedTuple

from core.catalogue.update import roots_reach, within
from core.catalogue.usage_rows import counted
from core.session.lineage import parent_paths
from core.session.summary import SessionSummary
from core.usage.lineage import ancestors
from core.usage.records import UsageRecord
from core.usage.reports import (
    LocalClock,
    UsageFilter,
    UsageReport,
    fold,
    hour_weekday_grid,
    key_function,
    report,
)


class _File(NamedTuple):
    path: str
    session_id: str
    project: str
    title: str
    parent: str | None
    created_ms: float | None


def _files(conn: sqlite3.Connection) -> dict[int, _File]:
    # Files without a session header are not sessions (the session list hides them too).
    return {
        file_id: _File(path, sid or "", cwd or "", name or first or "(no messages)", parent, created)
        for file_id, path, sid, cwd, name, first, parent, created in conn.execute(
            "SELECT id, path, session_id, cwd, name, first_message, parent_session, created_ms FROM files"
            " WHERE header IS NOT NULL"
        )
    }


def _copied(conn: sqlite3.Connection, files: dict[int, _File]) -> list[tuple[int, int]]:
    """``(file id, line)`` of the rows a fork or clone copied from one of its ancestors."""
    summaries = [
        SessionSummary(f.path, f.session_id or None, f.project, None, f.parent, None, None, 0, "")
        for f in files.values()
    ]
    parents = parent_paths(summaries)
    if not parents:
        return []
    id_of = {f.path: file_id for file_id, f in files.items()}
    pairs = [(id_of[child], id_of[ancestor]) for child in parents for ancestor in ancestors(child, parents)]
    conn.execute("CREATE TEMP TABLE IF NOT EXISTS usage_pairs(child INTEGER, ancestor INTEGER)")
    conn.execute("DELETE FROM usage_pairs")
    conn.executemany("INSERT INTO usage_pairs VALUES (?, ?)", pairs)
    found: list[tuple[int, int]] = conn.execute(
        "SELECT DISTINCT c.file_id, c.line FROM usage_pairs p"
        " JOIN usage c ON c.file_id = p.child"
        " JOIN usage a ON a.entry_id = c.entry_id AND a.file_id = p.ancestor"
        " JOIN files cf ON cf.id = c.file_id JOIN files af ON af.id = a.file_id"
        " WHERE c.kind != 'attribution' AND a.kind != 'attribution'"
        " AND coalesce(c.ts_ms, cf.created_ms, 0) = coalesce(a.ts_ms, af.created_ms, 0)"
    ).fetchall()
    conn.execute("DELETE FROM usage_pairs")
    return found


def _prepare_copied(conn: sqlite3.Connection, copied: list[tuple[int, int]]) -> None:
    conn.execute(
        "CREATE TEMP TABLE IF NOT EXISTS usage_copied("
        "file_id INTEGER, line INTEGER, PRIMARY KEY(file_id, line))"
    )
    conn.execute("DELETE FROM usage_copied")
    conn.executemany("INSERT OR IGNORE INTO usage_copied VALUES (?, ?)", copied)


_COUNTED = (
    " FROM usage u JOIN files f ON f.id = u.file_id"
    " LEFT JOIN usage_copied x ON x.file_id = u.file_id AND x.line = u.line"
    " WHERE f.header IS NOT NULL AND x.line IS NULL AND " + counted("u")
)


def usage_records(
    conn: sqlite3.Connection, roots: Iterable[str | os.PathLike[str]] | None = None
) -> list[UsageRecord]:
    """Every usage record of the catalogued sessions (under ``roots`` if given), in file order per file.

    Forks' and clones' copies of their ancestors' entries are left out (see the module).
    """
    files = _files(conn)
    _prepare_copied(conn, _copied(conn, files))
    reach = roots_reach(roots) if roots is not None else None
    records: list[UsageRecord] = []
    rows = conn.execute(
        "SELECT u.file_id, u.entry_id, coalesce(u.ts_ms, f.created_ms, 0) / 1000.0, u.model, u.kind,"
        " u.input, u.output, u.cache_read, u.cache_write, u.total, u.cost, u.on_path, u.child_tokens,"
        " u.child_cost" + _COUNTED + " ORDER BY u.file_id, u.line"
    )
    for file_id, entry_id, ts, model, kind, i, o, cr, cw, total, cost, on_path, ct, cc in rows:
        f = files[file_id]
        if reach is not None and not within(f.path, reach):
            continue
        records.append(
            UsageRecord(
                f.path,
                f.session_id,
                entry_id,
                ts,
                model,
                f.project,
                kind,
                i,
                o,
                cr,
                cw,
                int(total),
                cost,
                bool(on_path),
                ct,
                cc,
            )
        )
    return records


def usage_report(
    conn: sqlite3.Connection,
    kind: str,
    filt: UsageFilter,
    breakdown: bool = False,
    roots: Iterable[str | os.PathLike[str]] | None = None,
) -> UsageReport:
    """A usage report over the catalogue (see :func:`core.usage.reports`; the same rows, added up in SQL)."""
    files = _files(conn)
    titles = {f.path: f.title for f in files.values()}
    if kind == "blocks":
        return report(usage_records(conn, roots), kind, filt, breakdown, titles)
    if kind not in ("daily", "weekly", "monthly", "session", "model", "project"):
        raise ValueError(f"unknown usage report {kind!r}")
    _prepare_copied(conn, _copied(conn, files))
    reach = roots_reach(roots) if roots is not None else None
    clock = LocalClock(filt.timezone)
    key_of = key_function(kind, clock)
    needle = filt.model.lower() if filt.model else None
    where = ""
    args: list[object] = []
    if filt.branches != "all":
        where += " AND u.on_path = ?"
        args.append(1 if filt.branches == "current" else 0)
    if filt.project is not None:
        where += " AND f.cwd = ?"
        args.append(filt.project)
    keyed: list[tuple[str, UsageRecord, float]] = []
    groups = conn.execute(
        "SELECT CAST(coalesce(u.ts_ms, f.created_ms, 0) / 900000.0 AS INTEGER) AS b,"
        " u.model, u.file_id, u.on_path,"
        " sum(u.input), sum(u.output), sum(u.cache_read), sum(u.cache_write), sum(u.total), sum(u.cost),"
        " sum(u.child_tokens), sum(u.child_cost),"
        " min(coalesce(u.ts_ms, f.created_ms, 0)) / 1000.0, max(coalesce(u.ts_ms, f.created_ms, 0)) / 1000.0"
        + _COUNTED
        + where
        + " GROUP BY b, u.model, u.file_id, u.on_path",
        args,
    )
    for _b, model, file_id, on_path, i, o, cr, cw, total, cost, ct, cc, first, last in groups:
        f = files[file_id]
        if reach is not None and not within(f.path, reach):
            continue
        if needle is not None and needle not in model.lower():
            continue
        if filt.since is not None or filt.until is not None:
            day = clock.at(first)[0]
            if (filt.since is not None and day < filt.since) or (filt.until is not None and day > filt.until):
                continue
        group = UsageRecord(
            f.path,
            f.session_id,
            "",
            first,
            model,
            f.project,
            "",
            i,
            o,
            cr,
            cw,
            int(total),
            cost,
            bool(on_path),
            ct,
            cc,
        )
        keyed.append((key_of(group), group, last))
    return fold(keyed, kind, breakdown, titles)


def usage_grid(
    conn: sqlite3.Connection, filt: UsageFilter, roots: Iterable[str | os.PathLike[str]] | None = None
) -> list[list[float]]:
    """The hour-by-weekday cost grid over the catalogue (see :func:`core.usage.hour_weekday_grid`)."""
    return hour_weekday_grid(usage_records(conn, roots), filt)
