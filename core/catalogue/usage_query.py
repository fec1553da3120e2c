"""Usage over the whole catalogue: records, reports and the hour grid, from the ``usage`` tables.

Forks' and clones' copies of their ancestors' rows are flagged when a refresh settles
(:mod:`core.catalogue.usage_lineage`) and never counted. Reports other than blocks read
``usage_groups`` (counted rows added up per file, 15 minutes, model and branch side: every time zone's
offset is a multiple of 15 minutes, so a group falls on one local day and hour). Each group's bucket is
given its row key in Python (the user's zone, daylight saving included), and SQL adds the groups up by
key and model: a daily report over 2,000 sessions reads a few hundred rows, not every record. The rows
are those :func:`core.usage.report` makes from the records.
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Iterable, Sequence
from datetime import date, timedelta
from typing import NamedTuple

from core.catalogue.update import roots_reach, within
from core.catalogue.usage_rows import GRAINS, counted
from core.timefmt import on_calendar
from core.usage.records import UsageRecord
from core.usage.reports import LocalClock, UsageFilter, UsageReport, UsageRow, add_counts, report


class SessionFile(NamedTuple):
    """What a usage query needs of one catalogued session (a ``usage_sessions`` row)."""

    path: str
    session_id: str
    project: str
    title: str


def session_files(
    conn: sqlite3.Connection, roots: Iterable[str | os.PathLike[str]] | None
) -> dict[int, SessionFile]:
    """File id -> :class:`SessionFile` of the catalogued sessions (under ``roots`` if given)."""
    reach = roots_reach(roots) if roots is not None else None
    return {
        file_id: SessionFile(path, sid or "", cwd or "", title)
        for file_id, path, sid, cwd, title in conn.execute(
            "SELECT file_id, path, session_id, cwd, title FROM usage_sessions"
        )
        if reach is None or within(path, reach)
    }


def usage_records(
    conn: sqlite3.Connection, roots: Iterable[str | os.PathLike[str]] | None = None
) -> list[UsageRecord]:
    """Every counted usage record of the catalogued sessions (under ``roots`` if given), by file and line."""
    files = session_files(conn, roots)
    records: list[UsageRecord] = []
    rows = conn.execute(
        "SELECT u.file_id, u.entry_id, coalesce(u.ts_ms, f.created_ms, 0) / 1000.0, u.model, u.kind,"
        " u.input, u.output, u.cache_read, u.cache_write, u.total, u.cost, u.on_path, u.child_tokens,"
        " u.child_cost FROM usage u JOIN usage_sessions f ON f.file_id = u.file_id"
        f" WHERE u.copied = 0 AND {counted('u')} ORDER BY u.file_id, u.line"
    )
    for file_id, entry_id, ts, model, kind, i, o, cr, cw, total, cost, on_path, ct, cc in rows:
        f = files.get(file_id)
        if f is not None:
            record = UsageRecord(
                f.path, f.session_id, entry_id, ts, model, f.project, kind,
                i, o, cr, cw, int(total), cost, bool(on_path), ct, cc,
            )  # fmt: skip
            records.append(record)
    return records


def temp_table(conn: sqlite3.Connection, name: str, columns: str, rows: Iterable[tuple[object, ...]]) -> None:
    """Fill the temporary table ``name`` (created on first use) with ``rows``.

    ``columns`` has no commas but those between columns.
    """
    conn.execute(f"CREATE TEMP TABLE IF NOT EXISTS {name}({columns})")
    conn.execute(f"DELETE FROM {name}")
    marks = ", ".join("?" * (columns.count(",") + 1))
    conn.executemany(f"INSERT OR IGNORE INTO {name} VALUES ({marks})", rows)


def dated(bucket: int, grain: int) -> bool:
    """True when the whole of a bucket of ``grain`` seconds has calendar dates (see ``on_calendar``)."""
    return on_calendar(bucket * grain) and on_calendar((bucket + 1) * grain)


def bucket_days(
    conn: sqlite3.Connection, filt: UsageFilter
) -> tuple[int, LocalClock, list[tuple[int, date | None]]]:
    """The grain to read, the filter's clock, and the local day of each bucket with usage in the date range.

    Hours serve when the zone's offset is a whole number of hours at every hour with usage; otherwise
    (India, Nepal, Newfoundland...) 15 minutes do. A bucket outside the calendar has no day (None):
    it is in no range of dates.
    """
    clock = LocalClock(filt.timezone)
    for grain in GRAINS:
        buckets = [
            b for (b,) in conn.execute("SELECT DISTINCT bucket FROM usage_groups WHERE grain = ?", (grain,))
        ]
        if grain == GRAINS[-1] or all(
            clock.offset(b * grain) % grain == 0 for b in buckets if dated(b, grain)
        ):
            break
    days: list[tuple[int, date | None]] = []
    dateless = filt.since is None and filt.until is None
    for bucket in buckets:
        if not dated(bucket, grain):
            if dateless:
                days.append((bucket, None))
            continue
        day = clock.at(bucket * grain)[0]
        if (filt.since is not None and day < filt.since) or (filt.until is not None and day > filt.until):
            continue
        days.append((bucket, day))
    return grain, clock, days


def _bucket_keys(conn: sqlite3.Connection, kind: str, filt: UsageFilter) -> tuple[int, list[tuple[int, str]]]:
    """The grain to read, and ``(bucket, row key)`` of each of its buckets that the date range keeps.

    A bucket without a calendar date has the key :data:`UNDATED`.
    """
    grain, _clock, days = bucket_days(conn, filt)
    keyed = []
    for bucket, day in days:
        if day is None:
            key = UNDATED
        elif kind == "daily":
            key = day.isoformat()
        elif kind == "weekly":
            key = (day - timedelta(days=day.weekday())).isoformat()
        elif kind == "monthly":
            key = day.isoformat()[:7]
        else:
            key = day.isoformat()
        keyed.append((bucket, key))
    return grain, keyed


UNDATED = ""
"""The row key of usage outside the calendar: left out of the period rows, counted in the others."""

_SUMS = (
    "total(g.input), total(g.output), total(g.cache_write), total(g.cache_read), total(g.total), sum(g.cost),"
    " sum(CASE WHEN g.on_path THEN 0 ELSE g.cost END), sum(g.child_cost), min(g.first), max(g.last),"
    " count(DISTINCT g.file_id)"
)


def group_source(
    conn: sqlite3.Connection, kind: str, filt: UsageFilter, files: dict[int, SessionFile], narrow: bool
) -> tuple[int, str, str, list[object]]:
    """The grain read, the row key's SQL, the FROM ... WHERE clause over ``usage_groups g``, its arguments.

    The temporary table ``usage_keys`` maps each bucket the date range keeps to its row key (for the
    period kinds; the local day's ISO date otherwise). ``narrow``: join only ``files`` (see
    :func:`restricted`).
    """
    grain, keys = _bucket_keys(conn, kind, filt)
    temp_table(conn, "usage_keys", "bucket INTEGER PRIMARY KEY, key TEXT", keys)
    sql = " FROM usage_groups g JOIN usage_keys k ON k.bucket = g.bucket"
    if kind == "project" or filt.project is not None:
        sql += " JOIN usage_sessions s ON s.file_id = g.file_id"
    if narrow:  # some catalogued sessions lie outside the roots asked for
        temp_table(conn, "usage_files", "file_id INTEGER PRIMARY KEY", [(i,) for i in files])
        sql += " JOIN usage_files ff ON ff.file_id = g.file_id"
    sql += " WHERE g.grain = ?"
    args: list[object] = [grain]
    if filt.branches != "all":
        sql += " AND g.on_path = ?"
        args.append(1 if filt.branches == "current" else 0)
    if filt.project is not None:
        sql += " AND s.cwd = ?"
        args.append(filt.project)
    if filt.model:
        needle = filt.model.lower()
        every = conn.execute("SELECT DISTINCT model FROM usage_groups")
        models = [m for (m,) in every if needle in m.lower()]
        sql += f" AND g.model IN ({', '.join('?' * len(models))})" if models else " AND 0"
        args += models
    row_key = {"session": "g.file_id", "model": "g.model", "project": "s.cwd"}.get(kind, "k.key")
    if kind == "session":  # a child's rows go to the top session of its family (issue 28)
        temp_table(conn, "usage_family", "file_id INTEGER PRIMARY KEY, top INTEGER", family_tops(conn, files))
        sql = sql.replace(
            " WHERE g.grain = ?", " LEFT JOIN usage_family fam ON fam.file_id = g.file_id WHERE g.grain = ?"
        )
        row_key = "coalesce(fam.top, g.file_id)"
    return grain, row_key, sql, args


def family_tops(conn: sqlite3.Connection, files: dict[int, SessionFile]) -> list[tuple[int, int]]:
    """(child file id, the id of the top session of its family) for every catalogued child in ``files``.

    The top is the farthest parent among ``files`` (a loop, which the catalogue never records, would
    stop where it comes back).
    """
    parents = {
        file_id: parent_id
        for file_id, parent_id in conn.execute(
            "SELECT file_id, parent_id FROM subagents WHERE parent_id IS NOT NULL"
        )
    }
    tops = []
    for file_id in parents:
        if file_id not in files:
            continue
        top, seen = file_id, {file_id}
        while (up := parents.get(top)) is not None and up in files and up not in seen:
            seen.add(up)
            top = up
        if top != file_id:
            tops.append((file_id, top))
    return tops


# In a session report, what a child costs is its parent's child cost.
_FAMILY_SUMS = _SUMS.replace(
    "sum(g.child_cost)", "sum(CASE WHEN fam.top IS NULL THEN g.child_cost ELSE g.cost END)"
)


def _row(key: str, values: Sequence[float]) -> UsageRow:
    i, o, cw, cr, total, cost, abandoned, child, first, last, sessions = values
    return UsageRow(
        key,
        input_tokens=int(i),
        output_tokens=int(o),
        cache_creation_tokens=int(cw),
        cache_read_tokens=int(cr),
        total_tokens=int(total),
        total_cost=float(cost),
        sessions=int(sessions),
        abandoned_cost=float(abandoned),
        first=float(first),
        last=float(last),
        child_cost=float(child),
        models_used=[key],
    )


def _add(row: UsageRow, part: UsageRow) -> None:
    tokens = (part.input_tokens, part.output_tokens, part.cache_creation_tokens, part.cache_read_tokens)
    add_counts(row, (*tokens, part.total_tokens), part.total_cost, part.abandoned_cost, part.child_cost)
    row.first = min(row.first, part.first)
    row.last = max(row.last, part.last)
    row.models_used.append(part.key)
    row.model_breakdowns.append(part)


def restricted(
    conn: sqlite3.Connection, files: dict[int, SessionFile], roots: Iterable[str | os.PathLike[str]] | None
) -> bool:
    """True when some catalogued sessions lie outside ``roots`` (then the query joins the ones inside)."""
    return (
        roots is not None and len(files) < conn.execute("SELECT count(*) FROM usage_sessions").fetchone()[0]
    )


def usage_report(
    conn: sqlite3.Connection,
    kind: str,
    filt: UsageFilter,
    breakdown: bool = False,
    roots: Iterable[str | os.PathLike[str]] | None = None,
) -> UsageReport:
    """A usage report over the catalogue: the rows :func:`core.usage.report` makes, added up in SQL."""
    files = session_files(conn, roots)
    if kind == "blocks":
        titles = {f.path: f.title for f in files.values()}
        return report(usage_records(conn, roots), kind, filt, breakdown, titles)
    if kind not in ("daily", "weekly", "monthly", "session", "model", "project"):
        raise ValueError(f"unknown usage report {kind!r}")
    _grain, row_key, source, args = group_source(conn, kind, filt, files, restricted(conn, files, roots))

    def name(key: str | int) -> str:
        return files[int(key)].path if kind == "session" else str(key)

    rows: dict[str, UsageRow] = {}
    for key, model, *values in conn.execute(
        f"SELECT {row_key}, g.model, {_FAMILY_SUMS if kind == 'session' else _SUMS}{source} GROUP BY 1, 2",
        args,
    ):
        row = rows.get(name(key))
        if row is None:
            row = rows[name(key)] = UsageRow(name(key), first=float("inf"), last=float("-inf"))
        _add(row, _row(model, values))
    sessions: dict[str, set[int]] = {}
    for key, file_id in conn.execute(f"SELECT DISTINCT {row_key}, g.file_id{source}", args):
        sessions.setdefault(name(key), set()).add(file_id)
    undated = rows.pop(UNDATED, None) if row_key == "k.key" else None
    if undated is not None:
        undated.sessions = len(sessions.pop(UNDATED))
        undated.model_breakdowns = []
    totals = UsageRow("total")
    ordered = list(rows.values())
    for row in ordered:
        row.sessions = len(sessions[row.key])
        row.models_used.sort()
        row.model_breakdowns.sort(key=lambda p: (-p.total_cost, p.key))
        if not breakdown:
            row.model_breakdowns = []
    if ordered:
        totals.first, totals.last = float("inf"), float("-inf")
        models: set[str] = set()
        for row in ordered:
            _add(totals, row)
            models.update(row.models_used)
        totals.models_used, totals.model_breakdowns = sorted(models), []
        totals.sessions = len(set().union(*sessions.values()))
    if kind == "session":
        by_path = {f.path: f for f in files.values()}
        for row in ordered:
            found = by_path[row.key]
            row.title, row.project, row.session_id = found.title, found.project, found.session_id
    if kind in ("session", "model", "project"):
        ordered.sort(key=lambda row: (-row.total_cost, row.key))
    else:
        ordered.sort(key=lambda row: row.key)
    return UsageReport(kind, ordered, totals, undated)


def usage_grid(
    conn: sqlite3.Connection, filt: UsageFilter, roots: Iterable[str | os.PathLike[str]] | None = None
) -> list[list[float]]:
    """Cost by local weekday (Monday first) and hour: the groups' buckets placed in the user's zone."""
    files = session_files(conn, roots)
    grain, _key, source, args = group_source(conn, "daily", filt, files, restricted(conn, files, roots))
    return grid_of_groups(conn, filt, grain, source, args)


def grid_of_groups(
    conn: sqlite3.Connection, filt: UsageFilter, grain: int, source: str, args: list[object]
) -> list[list[float]]:
    """Cost by local weekday and hour of the groups ``source`` selects (see :func:`group_source`)."""
    clock = LocalClock(filt.timezone)
    grid = [[0.0] * 24 for _ in range(7)]
    for bucket, cost in conn.execute(f"SELECT g.bucket, sum(g.cost){source} GROUP BY 1", args):
        if not dated(bucket, grain):
            continue
        day, hour = clock.at(bucket * grain)
        grid[day.weekday()][hour] += cost
    return grid
