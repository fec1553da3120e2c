"""The catalogue's SQLite file: its schema, opening it (or rebuilding it when stale or damaged), errors.

The catalogue is only ever a cache: a file that is corrupt or from another schema version is deleted
and rebuilt, never trusted. A file that merely cannot be opened now (busy, read-only, a full disk)
is reported and left alone, since it may be fine.
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from functools import partial
from pathlib import Path
from typing import NamedTuple

from core.errors import PrimeSessionsError

SCHEMA_VERSION = 10  # 10: child sessions (issue 28); 9: the files each session touched (issue 28)
TOKENIZE = "unicode61 remove_diacritics 2"  # how the full-text index splits and folds words

# Statements one by one: the schema is created inside one write transaction, after checking again
# that nobody created it meanwhile (``executescript`` would commit that transaction first).
_SCHEMA = (
    """CREATE TABLE files(
        id INTEGER PRIMARY KEY,
        path TEXT NOT NULL UNIQUE,
        dev INTEGER, ino INTEGER, size INTEGER, mtime_ns INTEGER,
        read_end INTEGER NOT NULL, line_no INTEGER NOT NULL, unterminated INTEGER NOT NULL,
        head BLOB NOT NULL, tail BLOB NOT NULL,
        header TEXT, version INTEGER,
        session_id TEXT, cwd TEXT, name TEXT, parent_session TEXT,
        created_ms REAL, modified_ms REAL, last_activity_ms REAL, mtime_ms REAL,
        message_count INTEGER, first_message TEXT, entry_count INTEGER, models TEXT,
        total_tokens, cost, leaf_id TEXT, last_stop TEXT,
        problems INTEGER, diagnostics TEXT
    )""",
    "CREATE INDEX files_modified ON files(modified_ms DESC)",
    # One row per line, duplicates included. tokens is NULL except for assistant messages; tokens and
    # cost have no declared type so integers stay integers, as summarize() adds them. The search
    # columns (role to on_path) are NULL for entries with nothing to search: text_id is the rowid
    # of the entry's text in fts (and texts); on_path says the entry lies on the path to the file's
    # leaf, kept up to date by every pass so a search need not walk each hit's session tree. (One
    # table rather than a docs table beside it: a cold build inserts half as many rows.)
    """CREATE TABLE entries(
        file_id INTEGER NOT NULL, line INTEGER NOT NULL, entry_id TEXT NOT NULL, parent_id TEXT,
        tokens, cost, stop TEXT,
        role TEXT, tools TEXT, model TEXT, ts_ms REAL, offset INTEGER, length INTEGER,
        text_id INTEGER, on_path INTEGER,
        PRIMARY KEY(file_id, line)
    ) WITHOUT ROWID""",
    "CREATE INDEX entries_id ON entries(file_id, entry_id)",
    "CREATE INDEX entries_text ON entries(text_id) WHERE text_id IS NOT NULL",
    # child_usage_attributed: the latest aggregate usage per target entry, as (tokens, cost).
    """CREATE TABLE overrides(
        file_id INTEGER NOT NULL, target TEXT NOT NULL, tokens, cost,
        PRIMARY KEY(file_id, target)
    ) WITHOUT ROWID""",
    # One row per entry that records usage (core.catalogue.usage_rows): the counters as recorded, an
    # attributed aggregate in place of its target's own, on_path as in entries. entry_id is indexed
    # to find what a fork or clone copied from its parent.
    """CREATE TABLE usage(
        file_id INTEGER NOT NULL, line INTEGER NOT NULL, entry_id TEXT NOT NULL, ts_ms REAL,
        model TEXT NOT NULL, kind TEXT NOT NULL, input INTEGER, output INTEGER, cache_read INTEGER,
        cache_write INTEGER, total, cost REAL, child_tokens INTEGER, child_cost REAL, on_path INTEGER,
        copied INTEGER NOT NULL DEFAULT 0,
        PRIMARY KEY(file_id, line)
    ) WITHOUT ROWID""",
    "CREATE INDEX usage_id ON usage(file_id, entry_id)",
    # The counted usage rows (not copied from an ancestor) added up per file, hour (grain 3600) or 15
    # minutes (grain 900, for zones half an hour off), model and branch side: what reports read
    # (core.catalogue.usage_lineage keeps it and `copied` current).
    """CREATE TABLE usage_groups(
        grain INTEGER NOT NULL, file_id INTEGER NOT NULL, bucket INTEGER NOT NULL, model TEXT NOT NULL,
        on_path INTEGER NOT NULL,
        input, output, cache_read, cache_write, total, cost, child_cost, first REAL, last REAL,
        PRIMARY KEY(grain, file_id, bucket, model, on_path)
    ) WITHOUT ROWID""",
    "CREATE INDEX usage_groups_bucket ON usage_groups(grain, bucket)",
    # The files each entry's tools touched (core.catalogue.touches), how: read, edit, write, run or search.
    # A file once in touched_paths: path resolved against the session's project folder, rel relative to it
    # ('' outside it); a few hundred distinct files stand for tens of thousands of touches.
    """CREATE TABLE touched_paths(
        id INTEGER PRIMARY KEY, path TEXT NOT NULL, rel TEXT NOT NULL, UNIQUE(path, rel)
    )""",
    "CREATE INDEX touched_paths_rel ON touched_paths(rel) WHERE rel != ''",
    """CREATE TABLE touches(
        file_id INTEGER NOT NULL, line INTEGER NOT NULL, seq INTEGER NOT NULL, entry_id TEXT NOT NULL,
        path_id INTEGER NOT NULL, how TEXT NOT NULL,
        PRIMARY KEY(file_id, line, seq)
    ) WITHOUT ROWID""",
    "CREATE INDEX touches_path ON touches(path_id)",
    "CREATE TABLE usage_lineage(file_id INTEGER PRIMARY KEY, fingerprint TEXT NOT NULL)",
    # What reports and lineage need of each session, narrow: the files rows hold 8 KB of guard bytes
    # before these columns, which a scan of 2,000 files would read.
    """CREATE TABLE usage_sessions(
        file_id INTEGER PRIMARY KEY, path TEXT NOT NULL, session_id TEXT, cwd TEXT, title TEXT,
        parent_session TEXT, read_end INTEGER, created_ms REAL
    )""",
    # Child (subagent) sessions, worked out after each pass that changed anything (core.catalogue.children):
    # the parent's file (NULL when it is not catalogued), the depth, whether Prime Agent's RLM runtime
    # wrote it, and whether its cost is inside its parent's attributed aggregate (its usage rows are
    # then flagged copied: reports count it in the parent).
    """CREATE TABLE subagents(
        file_id INTEGER PRIMARY KEY, parent_id INTEGER, depth INTEGER NOT NULL, rlm INTEGER NOT NULL,
        inside INTEGER NOT NULL
    )""",
    "CREATE INDEX subagents_parent ON subagents(parent_id)",
    # The distinct texts in fts: id is the FTS rowid (given in order: FTS5 stores rowid deltas, so
    # random rowids would double the index), key identifies the text (see text_key).
    "CREATE TABLE texts(id INTEGER PRIMARY KEY AUTOINCREMENT, key INTEGER NOT NULL UNIQUE)",
    f"CREATE VIRTUAL TABLE fts USING fts5(body, content='', tokenize='{TOKENIZE}')",
)


class CatalogueError(PrimeSessionsError):
    """The catalogue cannot be used (its folder is not writable, the disk is full...)."""


class CatalogueBusyError(CatalogueError):
    """Another process holds the catalogue's lock (another window or command updating it).

    Raised once the connection's lock wait (:data:`LOCK_WAIT`, or what the caller chose) has passed; the
    caller says so at once and reads the session files, or waits longer with a note.
    """


LOCK_WAIT = 30.0
"""Seconds a catalogue connection waits for another process's lock by default."""
BUSY_SENTENCE = "Another process (another Prime Sessions window or command) is updating the catalogue"


def is_busy(err: BaseException) -> bool:
    """True when a SQLite error says another connection holds the lock (SQLITE_BUSY or SQLITE_LOCKED)."""
    name = getattr(err, "sqlite_errorname", "") or ""
    return name.startswith(("SQLITE_BUSY", "SQLITE_LOCKED")) or "database is locked" in str(err)


class KnownFile(NamedTuple):
    """What the catalogue remembers about a file (a ``files`` row), to decide how to bring it up to date."""

    id: int
    path: str
    dev: int | None
    ino: int | None
    size: int | None
    mtime_ns: int | None
    read_end: int
    line_no: int
    unterminated: int
    head: bytes
    tail: bytes
    header: str | None
    version: int | None
    leaf_id: str | None


KNOWN_COLUMNS = ", ".join(KnownFile._fields)


def open_catalogue(
    folder: Path, path: Path, lock_wait: float = LOCK_WAIT
) -> tuple[sqlite3.Connection, str | None]:
    """A connection to the catalogue file ``path`` in ``folder``, created (or rebuilt) as needed.

    ``lock_wait``: seconds the connection waits for another process's lock, now and later.

    Returns:
        The connection, and why an existing file was thrown away and rebuilt (None when it was not).

    Raises:
        CatalogueError: the folder cannot be created, or the file cannot be opened (never deleted
            then: busy, read-only or a full disk say nothing about the file being damaged);
            CatalogueBusyError when another process held its lock for ``lock_wait`` seconds.
    """
    if folder.exists() and not folder.is_dir():
        raise CatalogueError(f"Cannot create the catalogue folder {folder}: it is a file, not a folder.")
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as err:
        raise CatalogueError(f"Cannot create the catalogue folder {folder}: {os_reason(err)}.") from err
    try:
        return _open_checked(path, lock_wait), None
    except (sqlite3.Error, _StaleSchema) as err:
        if is_busy(err):
            raise CatalogueBusyError(f"{BUSY_SENTENCE} at {path}, so it cannot be opened now.") from err
        if not _is_damage(err):
            # Busy, read-only, cannot open, disk full: the file may be fine, so never delete it.
            raise CatalogueError(f"Cannot open the catalogue at {path}: {err}.") from err
        # A cache is never trusted when in doubt: throw it away and start again.
        reason = str(err) or type(err).__name__
        _delete_files(path)
        try:
            return _open_checked(path, lock_wait), reason
        except (sqlite3.Error, _StaleSchema) as again:
            raise CatalogueError(f"Cannot create the catalogue at {path}: {again}.") from again


PATH_PARAMETER = "CAST(? AS TEXT)"
"""How SQL takes a file path given as :func:`path_bytes`: as text, whatever its bytes."""


def path_bytes(path: str) -> bytes:
    r"""A file path as SQL takes it (with :data:`PATH_PARAMETER`): its bytes on disk.

    A file name need not be UTF-8 (one copied from an old system: ``caf\xe9.jsonl``); Python names it
    with lone surrogates, which SQLite cannot take as text. Its bytes, cast to text, it stores as they
    are, and the connection's text factory gives the same name back (:data:`decode_stored`). A UTF-8
    name's bytes are its UTF-8 text, so every other path is stored exactly as before.
    """
    return path.encode("utf-8", "surrogateescape")


# Text read back from the catalogue: what was stored as UTF-8 is read as before; a path's bytes that
# are not UTF-8 come back as the lone surrogates Python names them with (see path_bytes).
decode_stored = partial(str, encoding="utf-8", errors="surrogateescape")


def _open_checked(path: Path, lock_wait: float) -> sqlite3.Connection:
    conn = sqlite3.connect(path, timeout=lock_wait, isolation_level=None, check_same_thread=True)
    conn.text_factory = decode_stored
    try:
        conn.execute("PRAGMA journal_mode=WAL")
        conn.execute("PRAGMA synchronous=NORMAL")
        conn.execute("PRAGMA temp_store=MEMORY")
        conn.execute("PRAGMA cache_size=-65536")
        # What is deleted is overwritten with zeros: a trashed session's words must leave the file.
        conn.execute("PRAGMA secure_delete=ON")
        if _schema_state(conn) == (0, 0):
            with transaction(conn):
                # Check again under the write lock: another process may have just created it.
                if _schema_state(conn) == (0, 0):
                    for statement in _SCHEMA:
                        conn.execute(statement)
                    conn.execute(f"PRAGMA user_version={SCHEMA_VERSION}")
        version, _tables = _schema_state(conn)
        if version != SCHEMA_VERSION:
            raise _StaleSchema(f"schema version {version}, expected {SCHEMA_VERSION}")
        conn.execute(f"SELECT {KNOWN_COLUMNS} FROM files LIMIT 1").fetchall()
        conn.execute("SELECT line, tokens, text_id, on_path FROM entries LIMIT 1").fetchall()
        conn.execute("SELECT target, tokens FROM overrides LIMIT 1").fetchall()
        conn.execute("SELECT id, key FROM texts LIMIT 1").fetchall()
        conn.execute("SELECT line, ts_ms, total, on_path, copied FROM usage LIMIT 1").fetchall()
        conn.execute("SELECT grain, bucket, first FROM usage_groups LIMIT 1").fetchall()
        conn.execute("SELECT fingerprint FROM usage_lineage LIMIT 1").fetchall()
        conn.execute("SELECT line, seq, entry_id, path_id, how FROM touches LIMIT 1").fetchall()
        conn.execute("SELECT id, path, rel FROM touched_paths LIMIT 1").fetchall()
        conn.execute("SELECT path, title, read_end FROM usage_sessions LIMIT 1").fetchall()
        conn.execute("SELECT parent_id, depth, rlm, inside FROM subagents LIMIT 1").fetchall()
        conn.execute("SELECT rowid FROM fts WHERE fts MATCH 'x' LIMIT 1").fetchall()
    except BaseException:
        conn.close()
        raise
    return conn


def _delete_files(path: Path) -> None:
    for suffix in ("", "-wal", "-shm", "-journal"):
        try:
            os.unlink(f"{path}{suffix}")
        except FileNotFoundError:
            pass
        except OSError as err:
            raise CatalogueError(f"Cannot remove the damaged catalogue {path}: {os_reason(err)}.") from err


class _StaleSchema(Exception):
    pass


def _schema_state(conn: sqlite3.Connection) -> tuple[int, int]:
    version: int = conn.execute("PRAGMA user_version").fetchone()[0]
    tables: int = conn.execute("SELECT count(*) FROM sqlite_master").fetchone()[0]
    return version, tables


def _is_damage(err: BaseException) -> bool:
    """True when ``err`` says the catalogue file itself is unusable (so it is rebuilt, not reported)."""
    if isinstance(err, _StaleSchema):
        return True
    name = getattr(err, "sqlite_errorname", "") or ""
    if name.startswith(("SQLITE_NOTADB", "SQLITE_CORRUPT")):
        return True
    # A table or column of this schema version is missing: someone else's file, or a damaged one.
    return name == "SQLITE_ERROR" and "no such" in str(err)


def os_reason(err: BaseException) -> str:
    """The operating system's words for ``err`` (``strerror``), else its text, else its type's name."""
    reason = getattr(err, "strerror", None)
    return reason if isinstance(reason, str) and reason else str(err) or type(err).__name__


@contextmanager
def sqlite_errors(action: str) -> Iterator[None]:
    """Turn SQLite failures (locked for too long, disk full, I/O errors) into one CatalogueError."""
    try:
        yield
    except sqlite3.Error as err:
        if is_busy(err):
            raise CatalogueBusyError(f"{BUSY_SENTENCE}, so this one could not {action} it now.") from err
        raise CatalogueError(f"Cannot {action} the catalogue: {err}.") from err


@contextmanager
def transaction(conn: sqlite3.Connection) -> Iterator[sqlite3.Connection]:
    """``BEGIN IMMEDIATE`` ... ``COMMIT`` (rolled back on error), for a connection in autocommit mode."""
    conn.execute("BEGIN IMMEDIATE")
    try:
        yield conn
    except BaseException:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        raise
    try:
        conn.execute("COMMIT")
    except sqlite3.Error as err:
        conn.execute("ROLLBACK")
        raise CatalogueError(f"Cannot write the catalogue: {err}.") from err
