"""Reading what was appended to a catalogued file since the last pass, and what it changes.

Most passes over a live history find a few sessions that grew by a few entries. Only the appended
bytes are read (:meth:`core.session.Session.resume`); the file's summary is updated from what the
catalogue holds, with indexed lookups for an ordinary append (:func:`_scan_append`) and a scan of the
file's stored entries when something unusual happened (:func:`_scan_entries`). ``entries`` keeps one
row per line (duplicate ids included) with the assistant's usage, and ``overrides`` the
``child_usage_attributed`` results, so the result is exactly what
:func:`core.catalogue.summary.summarize` gives for the whole file.
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Sequence, Set
from typing import NamedTuple

import orjson

from core.catalogue.reading import StoredNote, entry_rows, guards, json_text, walk_up
from core.catalogue.schema import KnownFile
from core.catalogue.search_text import Doc, clean_text, entry_doc, stored_text
from core.catalogue.touch_rows import TouchCollector
from core.catalogue.update import Batch, insert_entries, insert_overrides, insert_touches
from core.catalogue.usage_rows import (
    file_totals,
    insert_usage,
    mark_usage_path,
    reattribute,
    regroup,
    usage_db_rows,
)
from core.session.diagnostics import KINDS, Severity
from core.session.entry import AssistantInfo, Entry
from core.session.jsonl import JsonObject
from core.session.session import Session
from core.session.tree import SessionTree
from core.session.usage import ASSISTANT_USAGE, usage_totals
from core.usage.records import UsageCollector

_TREE_KINDS = frozenset({"orphan", "self-parent", "cycle"})
_FAST_LIMIT = 500  # appended entries looked up one query at a time; bigger appends take the full scan


class _Stored(NamedTuple):
    """A file's summary as the catalogue holds it before an append: these columns of ``files``."""

    read_end: int
    line_no: int
    size: int | None
    mtime_ns: int | None
    message_count: int
    first_message: str | None
    last_activity_ms: float | None
    models: str  # a JSON list
    name: str | None
    entry_count: int
    leaf_id: str | None
    diagnostics: str  # a JSON list of StoredNote
    created_ms: float | None
    total_tokens: int | float | None
    cost: float | None
    last_stop: str | None


_SELECT_STORED = f"SELECT {', '.join(_Stored._fields)} FROM files WHERE id = ?"


def append_file(batch: Batch, path: str, st: os.stat_result, row: KnownFile) -> None:
    """Read only what was appended to one file since the last pass, and update its summary."""
    file_id = row.id
    part, docs, collector, touched = _read_appended(path, row)
    head, tail = guards(path, part.size)
    with batch.file() as conn:
        found = conn.execute(_SELECT_STORED, (file_id,)).fetchone()
        old = None if found is None else _Stored._make(found)
        if old is None or old[:4] != (row.read_end, row.line_no, row.size, row.mtime_ns):
            return  # another process brought this file up to date meanwhile
        read_notes, tree_notes = _stored_notes(old.diagnostics)
        leaf = clean_text(part.leaf_id) if part.entries else old.leaf_id  # as the entries rows hold it
        # Usually the new leaf continues from the old one: the path grows by appended entries.
        grown = _appended_path(part.entries, leaf, old.leaf_id)
        _insert_appended(conn, batch, file_id, part, docs, collector, grown or frozenset())
        cwd = conn.execute("SELECT cwd FROM files WHERE id = ?", (file_id,)).fetchone()[0]
        insert_touches(conn, file_id, touched.rows(cwd))  # the appended entries' files, as a whole read's
        scan = None
        if not tree_notes:
            scan = _scan_append(conn, file_id, part, old, leaf)
        ordinary = scan is not None  # no appended id repeats an earlier one
        if scan is None:  # something unusual: work it out from every stored entry
            scan = _scan_entries(conn, file_id, row.line_no + 1, leaf, bool(tree_notes))
        if grown is None or not ordinary:
            _mark_path(conn, file_id, leaf)  # the leaf moved to another branch, or ids repeat
        diagnostics = _notes_after(read_notes, tree_notes, part, row.line_no, scan)
        _update_summary(conn, file_id, st, part, old, (head, tail), leaf, scan.last_stop, diagnostics)
        regroup(conn, file_id)


def _read_appended(
    path: str, row: KnownFile
) -> tuple[Session, dict[int, Doc], UsageCollector, TouchCollector]:
    """The entries appended since ``row`` was stored, with their texts (by line), usage and files touched."""
    docs: dict[int, Doc] = {}
    collector = UsageCollector()
    touched = TouchCollector()

    def observe(entry: Entry, obj: JsonObject) -> None:
        doc = entry_doc(entry, obj)
        if doc is not None:
            docs[entry.line] = doc
        collector.add(entry, obj)
        touched.add(entry, obj)

    header = orjson.loads(row.header or "{}")
    part = Session.resume(path, header, row.read_end, row.line_no, observer=observe, previous_id=row.leaf_id)
    return part, docs, collector, touched


def _stored_notes(diagnostics: str) -> tuple[list[StoredNote], list[StoredNote]]:
    """A file's stored notes as (reading notes, tree notes), without the held-back last line's.

    The part's header notes (line 1) were stored already; a held-back last line is looked at again by
    every pass; tree notes depend on the whole file and are worked out again when they may change.
    """
    kept: list[StoredNote] = [
        (line, kind, message) for line, kind, message in orjson.loads(diagnostics) if kind != "truncated-line"
    ]
    return [d for d in kept if d[1] not in _TREE_KINDS], [d for d in kept if d[1] in _TREE_KINDS]


def _insert_appended(
    conn: sqlite3.Connection,
    batch: Batch,
    file_id: int,
    part: Session,
    docs: dict[int, Doc],
    collector: UsageCollector,
    on_path: Set[str],
) -> None:
    """Store the appended entries, their search texts, child usage overrides and usage rows."""
    insert_entries(conn, file_id, *entry_rows(part.entries, docs, on_path), batch.indexed)
    overrides = [(target, *usage_totals(usage)) for target, usage in part.usage_overrides.items()]
    insert_overrides(conn, file_id, overrides)
    usage = collector.finish(keep_empty=True)
    insert_usage(conn, file_id, usage_db_rows(usage, on_path))
    insert_usage(conn, file_id, usage_db_rows(collector.attributions, frozenset()))
    new_targets = {row.entry_id for row in usage if row.kind == ASSISTANT_USAGE}
    reattribute(conn, file_id, set(collector.aggregates) | new_targets)


def _notes_after(
    read_notes: list[StoredNote], tree_notes: list[StoredNote], part: Session, last_line: int, scan: _Scan
) -> list[StoredNote]:
    """The file's notes after an append: the stored ones, the part's after ``last_line``, the scan's.

    Sorted by line, as Session.diagnostics; the sort is stable, so on one line the reading notes come
    first (in the order they were found), then the tree notes.
    """
    new_notes = [
        (d.line, d.kind, d.message)
        for d in part.diagnostics
        if d.line > last_line and d.kind not in _TREE_KINDS
    ]
    if scan.tree_notes is not None:
        tree_notes = scan.tree_notes
    return sorted(read_notes + new_notes + scan.duplicate_notes + tree_notes, key=lambda d: d[0])


def _update_summary(
    conn: sqlite3.Connection,
    file_id: int,
    st: os.stat_result,
    part: Session,
    old: _Stored,
    guard: tuple[bytes, bytes],
    leaf: str | None,
    last_stop: str | None,
    diagnostics: list[StoredNote],
) -> None:
    """Write the file's ``files`` row: the stored summary ``old`` carried on by the appended ``part``.

    ``guard`` is the new head and tail digests (:func:`~core.catalogue.reading.guards`).
    """
    models = orjson.loads(old.models)
    for model in part.models:
        if model not in models:
            models.append(model)
    last_activity = _later(old.last_activity_ms, part.last_activity_ms)
    tokens, cost = file_totals(conn, file_id)  # all five places, as summarize() counts them
    conn.execute(
        "UPDATE files SET size=?, mtime_ns=?, mtime_ms=?, read_end=?, line_no=?, unterminated=?,"
        " head=?, tail=?, message_count=?, first_message=?, last_activity_ms=?, modified_ms=?,"
        " models=?, name=?, entry_count=?, leaf_id=?, total_tokens=?, cost=?, last_stop=?,"
        " problems=?, diagnostics=? WHERE id=?",
        (
            st.st_size,
            st.st_mtime_ns,
            st.st_mtime_ns / 1e6,
            part.size,
            part.line_count,
            0 if part.ends_with_newline else 1,
            *guard,
            old.message_count + part.message_count,
            old.first_message or stored_text(part.first_message),
            last_activity,
            _modified(last_activity, old.created_ms, st.st_mtime_ns / 1e6),
            json_text(models),
            clean_text(part.name) if part.name_seen else old.name,
            old.entry_count + len(part.entries),
            leaf,
            tokens,
            cost,
            last_stop,
            sum(1 for d in diagnostics if _is_problem(d[1])),
            json_text(diagnostics),
            file_id,
        ),
    )


def _later(stored: float | None, appended: float | None) -> float | None:
    # The newer activity time; the stored one when the part has none or an older one.
    return appended if appended is not None and (stored is None or appended > stored) else stored


def _is_problem(kind: str) -> bool:
    # Diagnostic.is_problem, for a stored kind.
    return KINDS.get(kind, Severity.WARNING) is not Severity.INFO


class _Scan(NamedTuple):
    """What :func:`_scan_entries` works out over every entry of a file."""

    tokens: int | float
    cost: float
    last_stop: str | None
    duplicate_notes: list[StoredNote]
    tree_notes: list[StoredNote] | None  # None: the links are sound, the stored tree notes still hold


def _scan_append(
    conn: sqlite3.Connection, file_id: int, part: Session, old: _Stored, leaf: str | None
) -> _Scan | None:
    """The :func:`_scan_entries` result for an ordinary append, from indexed lookups only.

    Ordinary means: no child usage attribution anywhere in the file, no appended id seen before, and
    every appended parent known. Then totals grow by the new assistant messages, the tree notes stay,
    and the last stop reason is found by walking up from the new leaf. Returns None otherwise, and
    the caller scans every stored entry, so a 36 MB session takes a few lookups, not 20,000 rows.
    """
    new = _ordinary_append(conn, file_id, part)
    if new is None:
        return None
    tokens: int | float = old.total_tokens or 0
    cost = old.cost or 0.0
    if not new:
        return _Scan(tokens, cost, old.last_stop, [], None) if leaf == old.leaf_id else None
    for entry in part.entries:
        if isinstance(entry.info, AssistantInfo):
            tokens += entry.info.tokens
            cost += entry.info.cost
    known, stop = _appended_stop(new, leaf, old.leaf_id, old.last_stop)
    return _Scan(tokens, cost, stop, [], None) if known else None


def _ordinary_append(conn: sqlite3.Connection, file_id: int, part: Session) -> dict[str, Entry] | None:
    """The appended entries by id when the append is ordinary (see :func:`_scan_append`), else None.

    Nor is an append of more than :data:`_FAST_LIMIT` entries: one query looks the appended ids up.
    """
    entries = part.entries
    if part.usage_overrides or len(entries) > _FAST_LIMIT:
        return None
    if conn.execute("SELECT 1 FROM overrides WHERE file_id = ? LIMIT 1", (file_id,)).fetchone():
        return None
    new = {e.id: e for e in entries}
    if len(new) != len(entries):
        return None  # an id repeats within the append
    if entries and not _links_to_stored(conn, file_id, entries, new):
        return None
    return new


def _links_to_stored(
    conn: sqlite3.Connection, file_id: int, entries: Sequence[Entry], new: dict[str, Entry]
) -> bool:
    """Whether appended ``entries`` (``new``: by id) repeat no stored id and have every parent, looked up."""
    wanted = list(new) + [e.parent_id for e in entries if e.parent_id is not None and e.parent_id not in new]
    marks = ",".join("?" * len(wanted))
    try:
        stored = {
            entry_id
            for (entry_id,) in conn.execute(
                f"SELECT entry_id FROM entries WHERE file_id = ? AND line < ? AND entry_id IN ({marks})",
                (file_id, entries[0].line, *wanted),
            )
        }
    except UnicodeEncodeError:
        return False  # ids SQLite cannot hold as they are (lone surrogates): the full scan copes
    if any(entry_id in stored for entry_id in new):
        return False  # a duplicate of an earlier id
    # A parent neither appended nor stored: an orphan or worse, the tree notes change.
    return not any(
        e.parent_id is not None and e.parent_id not in new and e.parent_id not in stored for e in entries
    )


def _appended_stop(
    new: dict[str, Entry], leaf: str | None, old_leaf: str | None, old_stop: str | None
) -> tuple[bool, str | None]:
    """The last stop reason on the path to ``leaf``, walking up through the appended entries ``new``.

    An ordinary append continues from the old leaf, whose answer ``old_stop`` is already known.
    Returns (True, the stop reason), or (False, None) when the path leaves the appended entries
    anywhere else: the caller walks the stored tree.
    """
    current = leaf
    seen: set[str] = set()
    while current is not None and current in new and current not in seen:
        seen.add(current)
        entry = new[current]
        if isinstance(entry.info, AssistantInfo):
            stop = entry.info.stop_reason
            return True, stop if isinstance(stop, str) else None
        current = entry.parent_id
    if current is None:
        return True, None  # the whole path is new and has no assistant reply
    if current != old_leaf:
        return False, None  # the new leaf hangs off an older entry
    return True, old_stop


def _scan_entries(
    conn: sqlite3.Connection, file_id: int, first_new: int, leaf: str | None, tree: bool
) -> _Scan:
    """Summary values of a whole catalogued file, from its stored entries, after an append.

    Args:
        conn: the connection (inside the append's transaction).
        file_id: the file.
        first_new: the first line read by this pass; earlier lines were catalogued before.
        leaf: the current leaf.
        tree: True to work out the tree notes even when the appended links look sound.

    Returns:
        Tokens and cost summed in file order with child usage applied (as summarize() adds them);
        the stop reason of the last assistant message on the path to ``leaf``; ``duplicate-id`` notes
        for appended ids that an earlier pass had seen (the appended part alone cannot know them);
        and the orphan, self-parent and loop notes when they may have changed.
    """
    overrides = {
        target: (tokens, cost)
        for target, tokens, cost in conn.execute(
            "SELECT target, tokens, cost FROM overrides WHERE file_id = ?", (file_id,)
        )
    }
    rows = conn.execute(
        "SELECT line, entry_id, parent_id, tokens, cost, stop FROM entries WHERE file_id = ? ORDER BY line",
        (file_id,),
    ).fetchall()
    tokens: int | float = 0
    cost = 0.0
    last_line: dict[str, int] = {}  # id -> the latest line holding it so far
    parents: dict[str, str | None] = {}
    stops: dict[str, tuple[bool, str | None]] = {}  # id -> (an assistant message, its stop reason)
    notes: list[StoredNote] = []
    appended: set[str] = set()
    suspect = tree
    for line, entry_id, parent_id, entry_tokens, entry_cost, stop in rows:
        assistant = entry_tokens is not None
        if assistant:
            override = overrides.get(entry_id)
            if override is not None:
                entry_tokens, entry_cost = override
            tokens += entry_tokens
            cost += entry_cost
        if line >= first_new:
            earlier = last_line.get(entry_id)
            if earlier is not None:
                suspect = True
                if entry_id not in appended:  # a repeat within the part is noted by the part itself
                    message = f"Id {entry_id} was already used on line {earlier}; this later entry wins."
                    notes.append((line, "duplicate-id", message))
            elif parent_id is not None and parent_id not in last_line:
                suspect = True  # an orphan, a self-parent or a loop: the tree will tell
            appended.add(entry_id)
        last_line[entry_id] = line
        parents[entry_id] = parent_id
        stops[entry_id] = (assistant, stop)
    last_stop = None
    for entry_id in walk_up(parents, leaf):
        assistant, stop = stops[entry_id]
        if assistant:
            last_stop = stop
            break
    tree_notes = None
    if suspect:
        entries = [
            Entry(entry_id, parent_id, "", "", None, line, 0, 0) for line, entry_id, parent_id, *_ in rows
        ]
        by_id = {entry.id: entry for entry in entries}  # the later entry wins, as in Session.by_id
        tree_notes = [(d.line, d.kind, d.message) for d in SessionTree(entries, by_id).diagnostics]
    return _Scan(tokens, cost, last_stop, notes, tree_notes)


def _modified(last_activity: float | None, created: float | None, mtime_ms: float) -> float:
    # The reference's rule: newest user/assistant message time, else the header time, else the mtime.
    if last_activity is not None and last_activity > 0:
        return last_activity
    return created if created is not None else mtime_ms


def _appended_path(entries: Sequence[Entry], leaf: str | None, old_leaf: str | None) -> set[str] | None:
    """The appended ids on the path to ``leaf`` when that path runs into ``old_leaf``, else None.

    None means the old path is no longer the start of the new one (the leaf moved to another
    branch, or the appended ids do not link up simply): the caller marks the path again whole.
    """
    new = {e.id: e.parent_id for e in entries}
    if len(new) != len(entries) or old_leaf in new:
        return None
    path = list(walk_up(new, leaf))
    end = new[path[-1]] if path else leaf  # where the walk left the appended part
    return set(path) if end == old_leaf else None


def _mark_path(conn: sqlite3.Connection, file_id: int, leaf: str | None) -> None:
    """Set ``entries.on_path`` of a file's searchable entries from its stored entries."""
    path = _path_ids(conn, file_id, leaf)
    changed = [
        (not on_path, file_id, line)
        for line, entry_id, on_path in conn.execute(
            "SELECT line, entry_id, on_path FROM entries WHERE file_id = ? AND text_id IS NOT NULL",
            (file_id,),
        )
        if (entry_id in path) != bool(on_path)
    ]
    conn.executemany("UPDATE entries SET on_path = ? WHERE file_id = ? AND line = ?", changed)
    mark_usage_path(conn, file_id, path)


def _path_ids(conn: sqlite3.Connection, file_id: int, leaf: str | None) -> set[str]:
    """Ids on the path from the root to ``leaf`` (for duplicate ids the later line wins)."""
    parents = dict(
        conn.execute("SELECT entry_id, parent_id FROM entries WHERE file_id = ? ORDER BY line", (file_id,))
    )
    return set(walk_up(parents, leaf))
