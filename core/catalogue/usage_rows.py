"""The catalogue's ``usage`` table: one row per entry that records usage, written with the file's other rows.

A whole read stores every row (:func:`usage_db_rows` in the reader, :func:`insert_usage` in the same
transaction as the summary). An append stores the appended rows, applies appended
``child_usage_attributed`` entries to earlier rows (:func:`apply_attributions`), and marks the current
path again when the leaf moved (:func:`mark_usage_path`). The file's token and cost totals are added up
from these rows (:func:`file_totals`), so the session list and the usage report count alike.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Set
from typing import TypeAlias

from core.catalogue.search_text import clean_text
from core.usage.records import EntryUsage

UsageDbRow: TypeAlias = tuple[
    int,  # line
    str,  # entry_id
    float | None,  # ts_ms
    str,  # model
    str,  # kind
    int,  # input
    int,  # output
    int,  # cache_read
    int,  # cache_write
    int | float,  # total
    float,  # cost
    int,  # child_tokens
    float,  # child_cost
    bool,  # on the path to the leaf
]
"""One ``usage`` row without its file id."""


def counted(alias: str) -> str:
    """The SQL condition on the rows a report counts: not attributions, and only rows recording something.

    Args:
        alias: the name the query gives the ``usage`` table.
    """
    parts = " OR ".join(
        f"{alias}.{c} != 0" for c in ("total", "cost", "input", "output", "cache_read", "cache_write")
    )
    return f"{alias}.kind != 'attribution' AND ({parts})"


def usage_db_rows(rows: list[EntryUsage], on_path: Set[str]) -> list[UsageDbRow]:
    """The ``usage`` rows of some :class:`EntryUsage` rows; ``on_path``: ids on the path to the leaf."""
    return [(*row, row.entry_id in on_path) for row in rows]


def insert_usage(conn: sqlite3.Connection, file_id: int, rows: list[UsageDbRow]) -> None:
    """Add (or replace, by line) a file's usage rows.

    A model name or id holding half a surrogate pair (SQLite takes no such text) is stored with U+FFFD
    in its place, as every text of the catalogue is; checking every row up front would cost more than
    the rare retry.
    """
    if rows:
        sql = (
            "INSERT OR REPLACE INTO usage(file_id, line, entry_id, ts_ms, model, kind, input, output,"
            " cache_read, cache_write, total, cost, child_tokens, child_cost, on_path)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
        )
        try:
            conn.executemany(sql, [(file_id, *row) for row in rows])
        except UnicodeEncodeError:
            conn.executemany(sql, [(file_id, *map(clean_text, row)) for row in rows])


def reattribute(conn: sqlite3.Connection, file_id: int, targets: Iterable[str]) -> None:
    """Give the assistant rows of ``targets`` their attributed usage, from the stored attribution rows.

    The latest aggregate (by line) replaces the counters and the child shares add up, as
    :class:`core.usage.UsageCollector` applies them in one read; called after an append stored its
    rows, for the targets it attributed and the assistant messages it brought.
    """
    for target in targets:
        found = conn.execute(
            "SELECT input, output, cache_read, cache_write, total, cost FROM usage"
            " WHERE file_id = ? AND entry_id = ? AND kind = 'attribution' ORDER BY line DESC LIMIT 1",
            (file_id, target),
        ).fetchone()
        if found is None:
            continue
        tokens, cost = 0, 0.0
        for row_tokens, row_cost in conn.execute(
            "SELECT child_tokens, child_cost FROM usage"
            " WHERE file_id = ? AND entry_id = ? AND kind = 'attribution' ORDER BY line",
            (file_id, target),
        ):
            tokens += row_tokens
            cost += row_cost
        conn.execute(
            "UPDATE usage SET input=?, output=?, cache_read=?, cache_write=?, total=?, cost=?,"
            " child_tokens=?, child_cost=? WHERE file_id=? AND entry_id=? AND kind='assistant'",
            (*found, tokens, cost, file_id, target),
        )


def mark_usage_path(conn: sqlite3.Connection, file_id: int, path: Set[str]) -> None:
    """Set ``usage.on_path`` of a file's rows from the ids on the path to its leaf."""
    changed = [
        (entry_id in path, file_id, line)
        for line, entry_id, on_path in conn.execute(
            "SELECT line, entry_id, on_path FROM usage WHERE file_id = ?", (file_id,)
        )
        if (entry_id in path) != bool(on_path)
    ]
    conn.executemany("UPDATE usage SET on_path = ? WHERE file_id = ? AND line = ?", changed)


def file_totals(conn: sqlite3.Connection, file_id: int) -> tuple[int | float, float]:
    """``(tokens, cost)`` of a file from its usage rows, added in file order as summarize() adds them."""
    tokens: int | float = 0
    cost = 0.0
    for row_tokens, row_cost in conn.execute(
        "SELECT total, cost FROM usage WHERE file_id = ? AND kind != 'attribution' ORDER BY line", (file_id,)
    ):
        tokens += row_tokens
        cost += row_cost
    return tokens, round(cost, 10)


GRAINS = (3600, 900)
"""Seconds per group of ``usage_groups``: hours serve most zones, 15 minutes every zone."""


def delete_groups(conn: sqlite3.Connection, file_id: int) -> None:
    """Remove a file's ``usage_groups`` rows.

    By every grain: the key starts with the grain, so ``file_id`` alone would scan the whole table, once
    per file read (which made a cold build of 20,000 files quadratic: 11 of its 28 s at 6,000 files).
    """
    marks = ", ".join("?" * len(GRAINS))
    conn.execute(f"DELETE FROM usage_groups WHERE grain IN ({marks}) AND file_id = ?", (*GRAINS, file_id))


def regroup(conn: sqlite3.Connection, file_id: int) -> None:
    """Add up a file's counted rows into ``usage_groups`` again, and note its ``usage_sessions`` row.

    Called after a file's rows, flags or summary changed (a whole read, an append, a settle).
    """
    conn.execute("DELETE FROM usage_sessions WHERE file_id = ?", (file_id,))
    # Files without a session header are not sessions (the session list hides them too).
    conn.execute(
        "INSERT INTO usage_sessions SELECT id, path, session_id, cwd,"
        " coalesce(nullif(name, ''), nullif(first_message, ''), '(no messages)'),"
        " parent_session, read_end, created_ms FROM files WHERE id = ? AND header IS NOT NULL",
        (file_id,),
    )
    delete_groups(conn, file_id)
    moment = "coalesce(u.ts_ms, f.created_ms, 0)"
    for grain in GRAINS:
        conn.execute(
            f"INSERT INTO usage_groups SELECT {grain}, u.file_id, CAST({moment} / {grain}000.0 AS INTEGER),"
            " u.model, u.on_path, total(u.input), total(u.output), total(u.cache_read), total(u.cache_write),"
            f" total(u.total), sum(u.cost), sum(u.child_cost), min({moment}) / 1000.0, max({moment}) / 1000.0"
            " FROM usage u JOIN usage_sessions f ON f.file_id = u.file_id"
            f" WHERE u.file_id = ? AND u.copied = 0 AND {counted('u')} GROUP BY 3, 4, 5",
            (file_id,),
        )
