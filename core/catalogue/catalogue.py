"""The session catalogue: a persistent SQLite index of every session, with full-text search.

Opening the session list must not mean re-parsing gigabytes. The catalogue remembers, per session
file, its summary and where it stopped reading, and keeps an FTS5 index of the searchable text
(:mod:`core.catalogue.search_text`). Session files are append-only, so a file that grew and whose first bytes
and last bytes read are unchanged is read only from where the last pass stopped; a file that shrank,
was replaced or changed its header is read again whole; a deleted file leaves the catalogue. A pass
over an unchanged history only stats files.

The catalogue lives in the user's cache folder and is only ever a cache: a file that is corrupt or
from another schema version is deleted and rebuilt, never trusted. It never writes session files.

Design notes:

* The FTS5 table is contentless (``content=''``): the text is not stored twice, which halves the
  index size and makes indexing about 40% faster. Snippets are cut from the session file itself when
  a hit is shown (:func:`make_snippet`).
* Text is stored once however many entries hold it (content addressing): forks and clones copy
  their parent's entries, and the same file is read or the same output printed again and again.
  Each distinct text gets one FTS row; ``texts`` maps its key (64 bits of its SHA-1) to that
  rowid, and each searchable entry's row in ``entries`` points at it. Tokenizing is most of the
  cost of a cold build, and search scores each distinct text once. Two different texts sharing 64 bits
  (odds about 3 in 10^8 among a million texts) would make the second unfindable; nothing worse.
* A contentless table cannot delete rows without their text, so the text rows of a re-indexed or
  deleted file stay behind; every query joins on ``entries``, so they never show, and a file that is
  read again finds its texts already there.
* One connection per thread, reused (SQLite connections must not cross threads); WAL mode so the
  list can be read while a refresh writes.
* ``entries`` keeps one row per line (duplicate ids included) with the assistant's usage, and
  ``overrides`` the ``child_usage_attributed`` results, so a pass that only read an appended part
  can still give exactly what :func:`core.session.summary.summarize` gives for the whole file.
"""

from __future__ import annotations

import os
import re
import sqlite3
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import NamedTuple

import orjson

from core.catalogue.pool import ReaderDied, Readers, jobs_of, reader_count
from core.catalogue.reading import FILE_COLUMNS, WholeRead, entry_rows, guards, json_text, read_whole, walk_up
from core.catalogue.search_text import Doc, clean_text, entry_doc
from core.catalogue.snippets import OPERATORS, make_snippet, mark_spans, query_terms
from core.errors import PrimeSessionsError, SessionReadError
from core.session import SessionSummary, SessionTree
from core.session.diagnostics import KINDS, Severity
from core.session.discovery import default_roots, stat_session_files
from core.session.entry import KNOWN_TYPES, TYPE_ALIASES, AssistantInfo, Entry
from core.session.jsonl import decode_line
from core.session.session import Session, usage_totals
from core.timefmt import iso_from_ms, js_date_ms

SCHEMA_VERSION = 5

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
    # The distinct texts in fts: id is the FTS rowid (given in order: FTS5 stores rowid deltas, so
    # random rowids would double the index), key identifies the text (see text_key).
    "CREATE TABLE texts(id INTEGER PRIMARY KEY AUTOINCREMENT, key INTEGER NOT NULL UNIQUE)",
    "CREATE VIRTUAL TABLE fts USING fts5(body, content='', tokenize='unicode61 remove_diacritics 2')",
)


class CatalogueError(PrimeSessionsError):
    """The catalogue cannot be used (its folder is not writable, the disk is full...)."""


class QueryError(CatalogueError):
    """The search text is not a valid full-text query; the message says how to write one."""


def default_catalogue_dir() -> Path:
    """``$PRIME_SESSIONS_CATALOGUE``, else ``prime-sessions`` in the user's cache folder (platformdirs)."""
    override = os.environ.get("PRIME_SESSIONS_CATALOGUE")
    if override:
        return Path(override).expanduser()
    import platformdirs

    return Path(platformdirs.user_cache_dir("prime-sessions", appauthor=False))


@dataclass
class RefreshStats:
    """What one :meth:`Catalogue.refresh` pass did.

    Attributes:
        files_seen: session files found under the roots.
        files_indexed: files read whole (new, or changed in a way that is not an append).
        files_appended: files read only from where the last pass stopped.
        files_removed: files that disappeared and left the catalogue.
        files_from_readers: of the files read whole, those read by worker processes.
        readers: worker processes started (0: everything was read in this process).
        bytes_read: bytes of session files read.
        seconds: wall time of the pass.
        cancelled: the pass stopped early because ``cancel`` was set.
        errors: one sentence per file that could not be read.
    """

    files_seen: int = 0
    files_indexed: int = 0
    files_appended: int = 0
    files_removed: int = 0
    files_from_readers: int = 0
    readers: int = 0
    bytes_read: int = 0
    seconds: float = 0.0
    cancelled: bool = False
    errors: list[str] = field(default_factory=list)


@dataclass
class Hit:
    """One search result: an entry of a session.

    Attributes:
        sessionId, entryId, path: which session and entry.
        snippet: text around the match, matched words wrapped in ``«`` and ``»``.
        spans: ``(start, end)`` of the matched words in ``snippet`` without the marks.
        onCurrentBranch: True when the entry lies on the path to the session's leaf (False: an
            abandoned branch).
        role, tools, model: what kind of entry it is.
        timestamp: the message time (ISO).
        cwd, name: the session's project folder and name.
        rank: bm25 score (lower is better).
    """

    sessionId: str | None
    entryId: str
    path: str
    snippet: str
    spans: list[tuple[int, int]]
    onCurrentBranch: bool
    role: str
    tools: str
    model: str
    timestamp: str | None
    cwd: str
    name: str | None
    rank: float

    def to_json(self) -> dict:
        """A plain dict for JSON output."""
        return dict(self.__dict__)


ProgressCallback = Callable[[int, int, int, int], None]
"""``progress(files_done, files_total, bytes_done, bytes_total)``."""


class _Known(NamedTuple):
    """What the catalogue remembers about a file, to decide how to bring it up to date."""

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


_KNOWN_COLUMNS = ", ".join(_Known._fields)


class Catalogue:
    """The catalogue in one folder (default: :func:`default_catalogue_dir`)."""

    def __init__(self, folder: str | os.PathLike[str] | None = None) -> None:
        self.folder = Path(folder) if folder is not None else default_catalogue_dir()
        self.path = self.folder / "catalogue.sqlite3"
        self.rebuilt_reason: str | None = None  # why an existing catalogue file was thrown away
        self._local = threading.local()
        self._refresh_lock = threading.Lock()
        self._connections: list[sqlite3.Connection] = []
        self._connections_lock = threading.Lock()
        self._connect()  # create or validate now, on the caller's thread, so errors surface early

    # ------------------------------------------------------------------ connections
    def _connect(self) -> sqlite3.Connection:
        conn = getattr(self._local, "conn", None)
        if conn is None:
            conn = self._open()
            self._local.conn = conn
            with self._connections_lock:
                self._connections.append(conn)
        return conn

    def _open(self) -> sqlite3.Connection:
        if self.folder.exists() and not self.folder.is_dir():
            raise CatalogueError(
                f"Cannot create the catalogue folder {self.folder}: it is a file, not a folder."
            )
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
        except OSError as err:
            raise CatalogueError(
                f"Cannot create the catalogue folder {self.folder}: {_os_reason(err)}."
            ) from err
        try:
            return self._open_checked()
        except (sqlite3.Error, _StaleSchema) as err:
            if not _is_damage(err):
                # Busy, read-only, cannot open, disk full: the file may be fine, so never delete it.
                raise CatalogueError(f"Cannot open the catalogue at {self.path}: {err}.") from err
            # A cache is never trusted when in doubt: throw it away and start again.
            self.rebuilt_reason = str(err) or type(err).__name__
            self._delete_files()
            try:
                return self._open_checked()
            except (sqlite3.Error, _StaleSchema) as again:
                raise CatalogueError(f"Cannot create the catalogue at {self.path}: {again}.") from again

    def _open_checked(self) -> sqlite3.Connection:
        conn = sqlite3.connect(self.path, timeout=30, isolation_level=None, check_same_thread=True)
        try:
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute("PRAGMA synchronous=NORMAL")
            conn.execute("PRAGMA temp_store=MEMORY")
            conn.execute("PRAGMA cache_size=-65536")
            if _schema_state(conn) == (0, 0):
                with _transaction(conn):
                    # Check again under the write lock: another process may have just created it.
                    if _schema_state(conn) == (0, 0):
                        for statement in _SCHEMA:
                            conn.execute(statement)
                        conn.execute(f"PRAGMA user_version={SCHEMA_VERSION}")
            version, _tables = _schema_state(conn)
            if version != SCHEMA_VERSION:
                raise _StaleSchema(f"schema version {version}, expected {SCHEMA_VERSION}")
            conn.execute(f"SELECT {_KNOWN_COLUMNS} FROM files LIMIT 1").fetchall()
            conn.execute("SELECT line, tokens, text_id, on_path FROM entries LIMIT 1").fetchall()
            conn.execute("SELECT target, tokens FROM overrides LIMIT 1").fetchall()
            conn.execute("SELECT id, key FROM texts LIMIT 1").fetchall()
            conn.execute("SELECT rowid FROM fts WHERE fts MATCH 'x' LIMIT 1").fetchall()
        except BaseException:
            conn.close()
            raise
        return conn

    def _delete_files(self) -> None:
        for suffix in ("", "-wal", "-shm", "-journal"):
            try:
                os.unlink(f"{self.path}{suffix}")
            except FileNotFoundError:
                pass
            except OSError as err:
                raise CatalogueError(
                    f"Cannot remove the damaged catalogue {self.path}: {_os_reason(err)}."
                ) from err

    def close(self) -> None:
        """Close every connection this catalogue opened (call from the owning thread at shutdown)."""
        with self._connections_lock:
            for conn in self._connections:
                try:
                    conn.close()
                except sqlite3.Error:
                    pass
            self._connections.clear()
        self._local = threading.local()

    # ------------------------------------------------------------------ refresh
    def refresh(
        self,
        roots: Iterable[str | os.PathLike[str]] | None = None,
        progress: ProgressCallback | None = None,
        cancel: threading.Event | None = None,
    ) -> RefreshStats:
        """Bring the catalogue up to date with the session files under ``roots``.

        Files are read newest first (by modification time), so a list can show recent sessions while
        older ones are still being read.

        Args:
            roots: session folders (default: :func:`core.session.discovery.default_roots`).
            progress: called after each file read with files and bytes done and in total. Rows
                are committed in batches of about a quarter of a second, so another reader sees
                a file at most that much later; a callback must not write to this catalogue.
            cancel: when set, the pass stops after the current file; what was done is kept.

        Returns:
            What the pass did. Unreadable files are listed in ``errors``; the pass goes on.

        Raises:
            CatalogueError: the catalogue itself cannot be read or written.
        """
        started = time.perf_counter()
        stats = RefreshStats()
        root_paths = [Path(os.path.abspath(r)) for r in (roots if roots is not None else default_roots())]
        with self._refresh_lock, _sqlite_errors("update"):
            conn = self._connect()
            # Only what the unchanged test needs: the rest (guards, header) is fetched for changed files.
            known = {
                path: (file_id, identity)
                for file_id, path, *identity in conn.execute(
                    "SELECT id, path, dev, ino, size, mtime_ns FROM files"
                )
            }
            found: dict[str, os.stat_result] = {}
            for root in root_paths:
                found.update(stat_session_files(root))  # root paths are absolute: so are these
            stats.files_seen = len(found)
            # Only files a root's search reaches can be gone: `list ~` must not drop every session
            # catalogued from ~/.pi/agent/sessions just because they lie deeper than it looks.
            reach = _reach(root_paths)
            gone = [ident[0] for path, ident in known.items() if path not in found and _within(path, reach)]
            if gone:
                with _transaction(conn):
                    for file_id in gone:
                        _delete_file_rows(conn, file_id)
                stats.files_removed = len(gone)
            work = []
            for path, st in found.items():
                ident = known.get(path)
                if ident is not None and ident[1] == [st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns]:
                    continue  # unchanged: a stat was all it cost
                row = None
                if ident is not None:
                    row = _Known._make(
                        conn.execute(
                            f"SELECT {_KNOWN_COLUMNS} FROM files WHERE id = ?", (ident[0],)
                        ).fetchone()
                    )
                resume = row is not None and _can_resume(path, st, row)
                work.append(
                    (path, st, row, resume, st.st_size - row.read_end if resume and row else st.st_size)
                )
            # Newest first, so a list can show recent sessions while older ones are still read.
            work.sort(key=lambda item: item[1].st_mtime_ns, reverse=True)
            batch = _Batch(conn)
            jobs = list(jobs_of(work))
            workers = reader_count(sum(st.st_size for _path, st in jobs)) if jobs else 0
            readers = Readers(jobs, workers) if workers else None
            stats.readers = workers
            try:
                self._read_files(batch, work, stats, progress, cancel, readers)
            finally:
                if readers is not None:
                    readers.close()
                batch.abort()  # an error escaped: what the open batch wrote is undone
        stats.seconds = time.perf_counter() - started
        return stats

    def _read_files(
        self,
        batch: _Batch,
        work: list[tuple[str, os.stat_result, _Known | None, bool, int]],
        stats: RefreshStats,
        progress: ProgressCallback | None,
        cancel: threading.Event | None,
        readers: Readers | None,
    ) -> None:
        """Bring each file of ``work`` up to date, newest first, through ``batch``.

        Files read whole come from ``readers`` when there are workers; appends are read here,
        since they depend on what the catalogue holds.
        """
        bytes_total = sum(item[4] for item in work)
        bytes_done = 0
        for done, (path, st, row, resume, size) in enumerate(work, start=1):
            if cancel is not None and cancel.is_set():
                stats.cancelled = True
                break
            try:
                if resume and row is not None:
                    self._append_file(batch, path, st, row)
                    stats.files_appended += 1
                elif readers is not None:
                    try:
                        read = readers.take(path)
                        stats.files_from_readers += 1
                    except ReaderDied:  # a worker died (killed, out of memory): go on here
                        readers.close()
                        readers = None
                        read = read_whole(path, st)
                    try:
                        self._write_whole(batch, read)
                    except _MissingText:
                        stats.files_from_readers -= 1
                        self._index_file(batch, path, st)
                    stats.files_indexed += 1
                else:
                    self._index_file(batch, path, st)
                    stats.files_indexed += 1
            except (SessionReadError, OSError, UnicodeError) as err:
                if isinstance(err, SessionReadError):
                    stats.errors.append(str(err))
                else:
                    stats.errors.append(f"Cannot catalogue {path}: {_os_reason(err)}.")
                if row is not None:
                    with batch.file() as conn:
                        _delete_file_rows(conn, row.id)
            bytes_done += size
            stats.bytes_read = bytes_done
            batch.maybe_commit()  # a list reading the catalogue sees the files at most a batch late
            if progress is not None:
                progress(done, len(work), bytes_done, bytes_total)
        batch.commit()

    def _index_file(self, batch: _Batch, path: str, st: os.stat_result) -> None:
        """Read one file whole and replace whatever the catalogue held for it."""
        self._write_whole(batch, read_whole(path, st))

    def _write_whole(self, batch: _Batch, read: WholeRead) -> None:
        """Replace whatever the catalogue held for a file with a whole read of it."""
        with batch.file() as conn:
            # By path, inside the write lock: another process may have catalogued it meanwhile.
            for (old_id,) in conn.execute("SELECT id FROM files WHERE path = ?", (read.path,)).fetchall():
                _delete_file_rows(conn, old_id)
            file_id = conn.execute(
                "INSERT INTO files(path, read_end, line_no, unterminated, head, tail)"
                " VALUES (?, 0, 0, 0, x'', x'')",
                (read.path,),
            ).lastrowid
            _insert_entries(conn, file_id, read.entries, read.texts, batch.indexed)
            _insert_overrides(conn, file_id, read.overrides)
            assignments = ", ".join(f"{name.strip()}=?" for name in FILE_COLUMNS.split(","))
            conn.execute(f"UPDATE files SET {assignments} WHERE id=?", (*read.files, file_id))

    def _append_file(self, batch: _Batch, path: str, st: os.stat_result, row: _Known) -> None:
        """Read only what was appended to one file since the last pass, and update its summary."""
        file_id = row.id
        docs: dict[int, Doc] = {}  # by line

        def observe(entry: Entry, obj: dict) -> None:
            doc = entry_doc(entry, obj)
            if doc is not None:
                docs[entry.line] = doc

        header = orjson.loads(row.header or "{}")
        part = Session.resume(
            path, header, row.read_end, row.line_no, observer=observe, previous_id=row.leaf_id
        )
        head, tail = guards(path, part.size)
        with batch.file() as conn:
            old = conn.execute(
                "SELECT read_end, line_no, size, mtime_ns, message_count, first_message, last_activity_ms,"
                " models, name, entry_count, leaf_id, diagnostics, created_ms, total_tokens, cost, last_stop"
                " FROM files WHERE id = ?",
                (file_id,),
            ).fetchone()
            if old is None or tuple(old[:4]) != (row.read_end, row.line_no, row.size, row.mtime_ns):
                return  # another process brought this file up to date meanwhile
            message_count, first_message, last_activity, models, name, entry_count = old[4:10]
            leaf, diags, created, old_tokens, old_cost, old_stop = old[10:]
            old_leaf = leaf
            models = orjson.loads(models)
            for model in part.models:
                if model not in models:
                    models.append(model)
            if part.last_activity_ms is not None and (
                last_activity is None or part.last_activity_ms > last_activity
            ):
                last_activity = part.last_activity_ms
            # The part's header notes (line 1) were stored already; a held-back last line is looked at
            # again by every pass; tree notes depend on the whole file and are worked out below.
            kept = [d for d in orjson.loads(diags) if d[1] != "truncated-line"]
            read_notes = [d for d in kept if d[1] not in _TREE_KINDS]
            tree_notes = [d for d in kept if d[1] in _TREE_KINDS]
            new_notes = [
                [d.line, d.kind, d.message]
                for d in part.diagnostics
                if d.line > row.line_no and d.kind not in _TREE_KINDS
            ]
            leaf = clean_text(part.leaf_id) if part.entries else leaf  # as the entries rows hold it
            # Usually the new leaf continues from the old one: the path grows by appended entries.
            grown = _appended_path(part.entries, leaf, old_leaf)
            _insert_entries(
                conn, file_id, *entry_rows(part.entries, docs, grown or frozenset()), batch.indexed
            )
            overrides = [(target, *usage_totals(usage)) for target, usage in part.usage_overrides.items()]
            _insert_overrides(conn, file_id, overrides)
            scan = None
            if not tree_notes:
                scan = _scan_append(conn, file_id, part, old_leaf, leaf, old_tokens, old_cost, old_stop)
            ordinary = scan is not None  # no appended id repeats an earlier one
            if scan is None:  # something unusual: work it out from every stored entry
                scan = _scan_entries(conn, file_id, row.line_no + 1, leaf, bool(tree_notes))
            if grown is None or not ordinary:
                _mark_path(conn, file_id, leaf)  # the leaf moved to another branch, or ids repeat
            if scan.tree_notes is not None:
                tree_notes = scan.tree_notes
            # Sorted by line, as Session.diagnostics; the sort is stable, so on one line the reading
            # notes come first (in the order they were found), then the tree notes.
            diagnostics = sorted(
                read_notes + new_notes + scan.duplicate_notes + tree_notes, key=lambda d: d[0]
            )
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
                    head,
                    tail,
                    message_count + part.message_count,
                    first_message or clean_text(part.first_message),
                    last_activity,
                    _modified(last_activity, created, st.st_mtime_ns / 1e6),
                    json_text(models),
                    clean_text(part.name) if part.name_seen else name,
                    entry_count + len(part.entries),
                    leaf,
                    scan.tokens,
                    round(scan.cost, 10),
                    scan.last_stop,
                    sum(1 for d in diagnostics if _is_problem(d[1])),
                    json_text(diagnostics),
                    file_id,
                ),
            )

    # ------------------------------------------------------------------ reading
    def summaries(self, roots: Iterable[str | os.PathLike[str]] | None = None) -> list[SessionSummary]:
        """Summaries of the catalogued sessions (those a refresh of ``roots`` finds, if given), newest first.

        Raises:
            CatalogueError: the catalogue cannot be read.
        """
        with _sqlite_errors("read"):
            rows = (
                self._connect()
                .execute(f"SELECT {_SUMMARY_COLUMNS} FROM files ORDER BY modified_ms DESC, path")
                .fetchall()
            )
        if roots is not None:
            reach = _reach(roots)
            rows = [r for r in rows if _within(r[0], reach)]
        # Files without a session header are not sessions (the reference's list hides them too).
        return [_summary_from_row(r) for r in rows if r[14] is not None]

    def diagnostics(self, path: str | os.PathLike[str]) -> list[tuple[int, str, str]]:
        """The stored diagnostics ``(line, kind, message)`` of one catalogued file, by line.

        Raises:
            CatalogueError: the catalogue cannot be read.
        """
        with _sqlite_errors("read"):
            row = (
                self._connect()
                .execute("SELECT diagnostics FROM files WHERE path = ?", (os.path.abspath(path),))
                .fetchone()
            )
        return [tuple(d) for d in orjson.loads(row[0])] if row and row[0] else []

    def search(
        self,
        query: str,
        *,
        cwd: str | None = None,
        since: str | None = None,
        until: str | None = None,
        role: str | None = None,
        tool: str | None = None,
        model: str | None = None,
        named_only: bool = False,
        limit: int = 50,
    ) -> list[Hit]:
        """Full-text search over every catalogued session.

        ``query`` is FTS5 syntax: words (all must match), ``"exact phrases"``, ``prefix*`` and
        ``AND``/``OR``/``NOT``. Filters narrow the hits: project folder (``cwd``, its sub-folders
        included), entry date range (``since``/``until``, ``YYYY-MM-DD`` or ISO; both inclusive, a
        date meaning the whole day), message ``role``, ``tool`` name (exact), ``model`` (a substring of
        ``provider/model``, any case), sessions with a name only.

        Hits are ranked by bm25, newest first on ties.

        Raises:
            QueryError: the query is empty, FTS5 rejects it (the message says why, in one sentence),
                or a date does not parse.
            CatalogueError: the catalogue cannot be read.
        """
        if not query.strip():
            raise QueryError("The search is empty; type one or more words.")
        where = ["1"]
        params: list[object] = []
        if cwd:
            base = cwd.rstrip("/\\") or cwd
            sep = "\\" if "\\" in base and "/" not in base else "/"
            below = base if base.endswith(("/", "\\")) else base + sep
            where.append("(f.cwd = ? OR substr(f.cwd, 1, ?) = ?)")
            params += [base, len(below), below]
        if since:
            where.append("d.ts_ms >= ?")
            params.append(_date_ms(since, "since"))
        if until:
            moment, whole_day = _date_ms(until, "until"), _is_date_only(until)
            where.append("d.ts_ms < ?" if whole_day else "d.ts_ms <= ?")
            params.append(moment + 86_400_000 if whole_day else moment)  # a date includes that whole day
        if role:
            where.append("d.role = ?")
            params.append(role)
        if tool:
            where.append("instr(' ' || d.tools || ' ', ?) > 0")
            params.append(f" {tool} ")
        if model:
            where.append("instr(lower(d.model), lower(?)) > 0")
            params.append(model)
        if named_only:
            where.append("f.name IS NOT NULL")
        with _sqlite_errors("search"):
            conn = self._connect()
            try:
                rows = _ranked_entries(conn, query, " AND ".join(where), params, max(1, int(limit)))
            except sqlite3.OperationalError as err:
                if _is_query_error(err):
                    raise QueryError(_explain_query_error(query, err)) from err
                raise
        terms = query_terms(query)
        hits = []
        for (
            _file_id,
            entry_id,
            role_,
            tools,
            model_,
            ts,
            offset,
            length,
            path,
            sid,
            cwd_,
            name,
            on_path,
            score,
        ) in rows:
            text, spans = make_snippet(_read_doc_text(path, offset, length, entry_id), terms)
            hits.append(
                Hit(
                    sessionId=sid,
                    entryId=entry_id,
                    path=path,
                    snippet=mark_spans(text, spans),
                    spans=spans,
                    onCurrentBranch=bool(on_path),
                    role=role_ or "",
                    tools=tools or "",
                    model=model_ or "",
                    timestamp=iso_from_ms(ts),
                    cwd=cwd_ or "",
                    name=name,
                    rank=score,
                )
            )
        return hits


# ---------------------------------------------------------------------------- helpers
class _StaleSchema(Exception):
    pass


_TREE_KINDS = frozenset({"orphan", "self-parent", "cycle"})

_SUMMARY_COLUMNS = (
    "path, session_id, cwd, name, parent_session, created_ms, modified_ms, message_count, first_message,"
    " version, entry_count, models, total_tokens, cost, header, leaf_id, size, problems, last_stop, read_end"
)


def _reach(roots: Iterable[str | os.PathLike[str]]) -> set[str]:
    """The roots as absolute paths, for :func:`_within`."""
    return {os.path.abspath(r) for r in roots}


def _within(path: str, reach: set[str]) -> bool:
    """True when a refresh of the roots finds ``path``: a root itself, or a file in one or in a sub-folder.

    The same rule as :func:`core.session.discovery.find_session_files`.
    """
    parent = path.rpartition(os.sep)[0]
    return path in reach or parent in reach or parent.rpartition(os.sep)[0] in reach


def _is_problem(kind: str) -> bool:
    # Diagnostic.is_problem, for a stored kind.
    return KINDS.get(kind, Severity.WARNING) is not Severity.INFO


def _schema_state(conn: sqlite3.Connection) -> tuple[int, int]:
    version = conn.execute("PRAGMA user_version").fetchone()[0]
    tables = conn.execute("SELECT count(*) FROM sqlite_master").fetchone()[0]
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


def _os_reason(err: BaseException) -> str:
    return getattr(err, "strerror", None) or str(err) or type(err).__name__


@contextmanager
def _sqlite_errors(action: str) -> Iterator[None]:
    """Turn SQLite failures (locked for too long, disk full, I/O errors) into one CatalogueError."""
    try:
        yield
    except sqlite3.Error as err:
        raise CatalogueError(f"Cannot {action} the catalogue: {err}.") from err


class _transaction:
    """``BEGIN IMMEDIATE`` ... ``COMMIT`` (rolled back on error), for a connection in autocommit mode."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn = conn

    def __enter__(self) -> sqlite3.Connection:
        self.conn.execute("BEGIN IMMEDIATE")
        return self.conn

    def __exit__(self, kind: object, *_rest: object) -> None:
        if kind is None:
            try:
                self.conn.execute("COMMIT")
            except sqlite3.Error as err:
                self.conn.execute("ROLLBACK")
                raise CatalogueError(f"Cannot write the catalogue: {err}.") from err
        elif self.conn.in_transaction:
            self.conn.execute("ROLLBACK")


class _Batch:
    """One write transaction over the files read in about a quarter of a second, a savepoint per file.

    Committing after every file cost a third of a cold build (FTS5 writes a segment per commit);
    a quarter of a second bounds how long another writer waits and how far a list reading the
    catalogue lags behind. A file whose writing fails is undone alone (its savepoint).

    ``indexed`` maps the keys of texts known to be indexed to their FTS rowid, sparing lookups.
    It is only a cache: emptied when anything is rolled back, and when it grows too big.
    """

    SECONDS = 0.25

    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn = conn
        self.began: float | None = None
        self.indexed: dict[int, int] = {}

    @contextmanager
    def file(self) -> Iterator[sqlite3.Connection]:
        """The connection, inside the batch's transaction (begun if needed) and a savepoint."""
        if not self.conn.in_transaction:
            self.conn.execute("BEGIN IMMEDIATE")
            self.began = time.monotonic()
        self.conn.execute("SAVEPOINT file")
        try:
            yield self.conn
        except BaseException:
            self.indexed.clear()  # it may hold keys of rows now undone
            if self.conn.in_transaction:  # some errors (a full disk) roll the whole transaction back
                self.conn.execute("ROLLBACK TO file")
                self.conn.execute("RELEASE file")
            raise
        self.conn.execute("RELEASE file")

    def maybe_commit(self) -> bool:
        """Commit when the transaction is a quarter of a second old; True when it did."""
        if self.began is not None and time.monotonic() - self.began >= self.SECONDS:
            self.commit()
            return True
        return False

    def commit(self) -> None:
        """Commit what the batch wrote (nothing happens when nothing is open)."""
        self.began = None
        if len(self.indexed) > _REMEMBERED_TEXTS:
            self.indexed.clear()
        if self.conn.in_transaction:
            try:
                self.conn.execute("COMMIT")
            except sqlite3.Error as err:
                self.abort()
                raise CatalogueError(f"Cannot write the catalogue: {err}.") from err

    def abort(self) -> None:
        """Roll back what the batch wrote since its last commit (nothing happens after a commit)."""
        self.began = None
        if self.conn.in_transaction:
            self.indexed.clear()
            self.conn.execute("ROLLBACK")


def _can_resume(path: str, st: os.stat_result, row: _Known) -> bool:
    """True when the file only grew since the last pass: same inode, not smaller, bytes read unchanged."""
    if (row.dev, row.ino) != (st.st_dev, st.st_ino) or st.st_size < row.read_end:
        return False
    if row.header is None or (row.version or 0) < 2:
        return False  # without a header, or with v1 ids chained by position, only a whole read is right
    if row.unterminated:
        # The last pass ended on an entry whose newline was missing: whatever follows decides how that
        # line reads, so read the file again whole (rare: the reference always ends lines).
        return False
    try:
        head, tail = guards(path, row.read_end)
    except OSError:
        return False
    return head == row.head and tail == row.tail


def _delete_file_rows(conn: sqlite3.Connection, file_id: int) -> None:
    # FTS rows of a contentless table stay behind; without an entries row no query returns them.
    conn.execute("DELETE FROM entries WHERE file_id = ?", (file_id,))
    conn.execute("DELETE FROM overrides WHERE file_id = ?", (file_id,))
    conn.execute("DELETE FROM files WHERE id = ?", (file_id,))


def _insert_overrides(conn: sqlite3.Connection, file_id: int, rows: list[tuple]) -> None:
    """Insert ``(target, tokens, cost)`` rows of a file's ``child_usage_attributed`` results."""
    if rows:
        _insert_rows(
            conn, "INSERT OR REPLACE INTO overrides VALUES (?, ?, ?, ?)", [(file_id, *r) for r in rows]
        )


def _insert_rows(conn: sqlite3.Connection, sql: str, rows: list[tuple]) -> None:
    """``executemany`` of an idempotent ``INSERT OR REPLACE``; text SQLite refuses is cleaned, then retried.

    Checking every value up front would cost more than the rare retry (lone surrogates in ids).
    """
    try:
        conn.executemany(sql, rows)
    except UnicodeEncodeError:
        conn.executemany(sql, [tuple(map(clean_text, row)) for row in rows])


class _Scan(NamedTuple):
    """What :func:`_scan_entries` works out over every entry of a file."""

    tokens: int | float
    cost: float
    last_stop: str | None
    duplicate_notes: list[list]
    tree_notes: list[list] | None  # None: the links are sound, the stored tree notes still hold


_FAST_LIMIT = 500  # appended entries looked up one query at a time; bigger appends take the full scan


def _scan_append(
    conn: sqlite3.Connection,
    file_id: int,
    part: Session,
    old_leaf: str | None,
    leaf: str | None,
    old_tokens: int | float | None,
    old_cost: float | None,
    old_stop: str | None,
) -> _Scan | None:
    """The :func:`_scan_entries` result for an ordinary append, from indexed lookups only.

    Ordinary means: no child usage attribution anywhere in the file, no appended id seen before, and
    every appended parent known. Then totals grow by the new assistant messages, the tree notes stay,
    and the last stop reason is found by walking up from the new leaf. Returns None otherwise, and
    the caller scans every stored entry, so a 36 MB session takes a few lookups, not 20,000 rows.
    """
    entries = part.entries
    if part.usage_overrides or len(entries) > _FAST_LIMIT:
        return None
    if conn.execute("SELECT 1 FROM overrides WHERE file_id = ? LIMIT 1", (file_id,)).fetchone():
        return None
    new = {e.id: e for e in entries}
    if len(new) != len(entries):
        return None  # an id repeats within the append
    if not entries:
        return _Scan(old_tokens or 0, old_cost or 0.0, old_stop, [], None) if leaf == old_leaf else None
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
        return None  # ids SQLite cannot hold as they are (lone surrogates): the full scan copes
    if any(entry_id in stored for entry_id in new):
        return None  # a duplicate of an earlier id
    if any(e.parent_id is not None and e.parent_id not in new and e.parent_id not in stored for e in entries):
        return None  # an orphan or worse: the tree notes change
    tokens: int | float = old_tokens or 0
    cost = old_cost or 0.0
    for entry in entries:
        if isinstance(entry.info, AssistantInfo):
            tokens += entry.info.tokens
            cost += entry.info.cost
    # The last stop reason: walk up from the leaf through the appended entries; an ordinary append
    # continues from the old leaf, whose answer is already known.
    current = leaf
    seen: set[str] = set()
    while current is not None and current in new and current not in seen:
        seen.add(current)
        entry = new[current]
        if isinstance(entry.info, AssistantInfo):
            stop = entry.info.stop_reason
            return _Scan(tokens, cost, stop if isinstance(stop, str) else None, [], None)
        current = entry.parent_id
    if current is None:
        return _Scan(tokens, cost, None, [], None)  # the whole path is new and has no assistant reply
    if current != old_leaf:
        return None  # the new leaf hangs off an older entry: walk the stored tree
    return _Scan(tokens, cost, old_stop, [], None)


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
    notes: list[list] = []
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
                    notes.append([line, "duplicate-id", message])
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
        tree_notes = [[d.line, d.kind, d.message] for d in SessionTree(entries, by_id).diagnostics]
    return _Scan(tokens, cost, last_stop, notes, tree_notes)


_REMEMBERED_TEXTS = 500_000  # about 60 MB of keys in a refresh pass's memory
_LOOKUP_CHUNK = 500  # keys per "key IN (...)" query, well under SQLite's limit of bound variables


_FIRST_TEXTS = 256  # best-ranked texts fetched first; most searches need no more
_FIRST_GROUP = 8  # texts whose entries are fetched first; the groups grow fourfold
_HIT_COLUMNS = (
    "d.file_id, d.entry_id, d.role, d.tools, d.model, d.ts_ms, d.offset, d.length,"
    " f.path, f.session_id, f.cwd, f.name, d.on_path"
)


def _ranked_entries(
    conn: sqlite3.Connection, query: str, where: str, params: list[object], limit: int
) -> list[tuple]:
    """The best ``limit`` searchable entries (:data:`_HIT_COLUMNS` plus the score) for an FTS5 query.

    Texts are ranked by bm25, and the entries holding the best ones are fetched (and filtered by
    ``where`` over ``d``, the entry, and ``f``, its file) a growing group of texts at a time, until
    ``limit`` entries are found and the next text scores worse than the last of them. A text often
    stands for hundreds of entries, so joining every match before sorting cost 0.1 s for words in
    every session. Entries holding one text share its score and come newest first.

    Raises:
        sqlite3.OperationalError: FTS5 rejected the query.
    """
    depth = _FIRST_TEXTS
    ranked = _ranked_texts(conn, query, depth)
    done: set[int] = set()
    found: list[tuple[tuple, tuple]] = []  # (sort key, row)
    pos, group = 0, _FIRST_GROUP
    while True:
        if pos >= len(ranked):
            if len(ranked) < depth:
                break  # every matching text was looked at
            depth *= 8
            # Deeper, from the start again: texts of equal rank may come in another order.
            ranked = [item for item in _ranked_texts(conn, query, depth) if item[0] not in done]
            pos = 0
            continue
        chunk = [text_id for text_id, _score in ranked[pos : pos + min(group, _LOOKUP_CHUNK)]]
        pos += len(chunk)
        group *= 4
        done.update(chunk)
        score = dict(ranked[pos - len(chunk) : pos])
        marks = ",".join("?" * len(chunk))
        for text_id, line, *row in conn.execute(
            f"SELECT d.text_id, d.line, {_HIT_COLUMNS} FROM entries d JOIN files f ON f.id = d.file_id"
            f" WHERE d.text_id IN ({marks}) AND d.text_id IS NOT NULL AND {where}",
            [*chunk, *params],
        ):
            ts = row[5]
            # Best score first, then newest first (no time last), then in catalogue order.
            key = (score[text_id], ts is None, -(ts or 0.0), row[0], line)
            found.append((key, (*row, score[text_id])))
        if len(found) >= limit and pos < len(ranked):
            found.sort(key=lambda item: item[0])
            if ranked[pos][1] > found[limit - 1][0][0]:
                break  # every text left scores worse than the last hit kept
    found.sort(key=lambda item: item[0])
    return [row for _key, row in found[:limit]]


def _ranked_texts(conn: sqlite3.Connection, query: str, depth: int) -> list[tuple[int, float]]:
    """The ``depth`` best texts for an FTS5 query, as (rowid, bm25 rank), best first."""
    return conn.execute(
        "SELECT rowid, rank FROM fts WHERE fts MATCH ? ORDER BY rank LIMIT ?", (query, depth)
    ).fetchall()


class _MissingText(Exception):
    """A worker left out a text it had handed over, but the catalogue has no row for it.

    It happens only when rows written from an earlier hand-over were rolled back; the file is then
    read again in this process, with every text.
    """


def _insert_entries(
    conn: sqlite3.Connection, file_id: int, rows: list[tuple], texts: dict[int, str], indexed: dict[int, int]
) -> None:
    """Insert :func:`core.catalogue.reading.entry_rows` of a file, and FTS rows for texts not indexed before.

    ``indexed`` maps text keys known to be in ``texts`` to their FTS rowid (see :class:`_Batch`);
    the keys this file found or added are put in it.

    Raises:
        _MissingText: a new text is not in ``texts``.
    """
    unknown = list({row[12] for row in rows if row[12] is not None and row[12] not in indexed})
    for start in range(0, len(unknown), _LOOKUP_CHUNK):
        chunk = unknown[start : start + _LOOKUP_CHUNK]
        marks = ",".join("?" * len(chunk))
        indexed.update(conn.execute(f"SELECT key, id FROM texts WHERE key IN ({marks})", chunk).fetchall())
    new = [key for key in unknown if key not in indexed]
    if new:
        if any(key not in texts for key in new):
            raise _MissingText
        # Explicit ids (inside this write transaction nobody else can take them) spare a round
        # trip per row; AUTOINCREMENT keeps the ids of left-behind FTS rows from being reused.
        seq = conn.execute("SELECT seq FROM sqlite_sequence WHERE name = 'texts'").fetchone()
        first = (seq[0] if seq else 0) + 1
        ids = [(first + i, key) for i, key in enumerate(new)]
        conn.executemany("INSERT INTO texts(id, key) VALUES (?, ?)", ids)
        conn.executemany("INSERT INTO fts(rowid, body) VALUES (?, ?)", [(i, texts[key]) for i, key in ids])
        indexed.update((key, i) for i, key in ids)
    _insert_rows(
        conn,
        "INSERT OR REPLACE INTO entries VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        [(file_id, *row[:12], None if row[12] is None else indexed[row[12]], row[13]) for row in rows],
    )


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


def _path_ids(conn: sqlite3.Connection, file_id: int, leaf: str | None) -> set[str]:
    """Ids on the path from the root to ``leaf`` (for duplicate ids the later line wins)."""
    parents = dict(
        conn.execute("SELECT entry_id, parent_id FROM entries WHERE file_id = ? ORDER BY line", (file_id,))
    )
    return set(walk_up(parents, leaf))


def _summary_from_row(row: tuple) -> SessionSummary:
    (
        path,
        sid,
        cwd,
        name,
        parent,
        created,
        modified,
        count,
        first,
        version,
        entry_count,
        models,
        tokens,
        cost,
        _header,
        leaf,
        _size,
        problems,
        last_stop,
        read_end,
    ) = row
    return SessionSummary(
        path=path,
        id=sid,
        cwd=cwd or "",
        name=name,
        parentSessionPath=parent,
        created=iso_from_ms(created),
        modified=iso_from_ms(modified),
        messageCount=count or 0,
        firstMessage=first or "(no messages)",
        version=version if version is not None else 3,
        entryCount=entry_count or 0,
        models=orjson.loads(models) if models else [],
        totalTokens=tokens if tokens is not None else 0,
        cost=round(cost or 0.0, 10),
        leafId=leaf,
        fileSize=read_end or 0,
        problems=problems or 0,
        lastStopReason=last_stop,
    )


def _read_doc_text(path: str, offset: int, length: int, entry_id: str) -> str:
    """The searchable text of one entry, read back from its session file (empty if it changed)."""
    try:
        with open(path, "rb") as handle:
            handle.seek(offset)
            raw = handle.read(length)
    except OSError:
        return ""
    obj, _note = decode_line(raw)  # as leniently as it was read when indexed (a BOM, bad UTF-8)
    if not isinstance(obj, dict):
        return ""
    typ = obj.get("type") if isinstance(obj.get("type"), str) else ""
    kind = typ if typ in KNOWN_TYPES else TYPE_ALIASES.get(typ, typ)
    message = obj.get("message")
    role = message.get("role") if isinstance(message, dict) and isinstance(message.get("role"), str) else None
    entry = Entry(entry_id, None, typ, kind, obj.get("timestamp"), 0, offset, length, role)
    doc = entry_doc(entry, obj)
    return doc.text if doc is not None else ""


def _is_date_only(value: str) -> bool:
    return re.fullmatch(r"\d{4}-\d{2}-\d{2}", value.strip()) is not None


def _date_ms(value: str, name: str) -> float:
    ms = js_date_ms(value.strip())
    if ms is None:
        raise QueryError(f"--{name} {value!r} is not a date; use YYYY-MM-DD or an ISO time.")
    return float(ms)


def _is_query_error(err: sqlite3.Error) -> bool:
    """True when FTS5 refused the query text (not a locked or damaged catalogue)."""
    text = str(err)
    return text.startswith(("fts5:", "unterminated string", "no such column", "unknown special query"))


def _explain_query_error(query: str, err: sqlite3.Error) -> str:
    """One sentence saying what is wrong with ``query``, in the user's words, and how to write it."""
    detail = str(err)
    near = re.fullmatch(r'fts5: syntax error near "(.*)"', detail, re.DOTALL)
    column = re.fullmatch(r"no such column: (.*)", detail, re.DOTALL)
    if detail.startswith("unterminated string"):
        why = 'a double quote (") is not closed'
    elif detail.startswith("unknown special query"):
        why = 'a "*" must end a word (as in cach*)'
    elif column is not None:
        # FTS5 reads "word:" and "-word" as column filters; the message would name a column.
        words = [w for w in query.split() if ":" in w or "-" in w]
        shown = f'"{words[0]}"' if words else f'"{column.group(1)}"'
        why = f'{shown} holds a ":" or "-", which only work inside quotes'
    elif near is not None and near.group(1) in OPERATORS:
        why = f"{near.group(1)} needs a search word on each side"
    elif near is not None and near.group(1):
        why = f'"{near.group(1)}" only works inside quotes'
    elif near is not None:
        why = "it ends too early (an operator or an opening bracket needs something after it)"
    else:
        why = detail.removeprefix("fts5: ")
    return (
        f'The search {query!r} is not a valid query: {why}; use words, "exact phrases", prefix* and'
        ' AND, OR, NOT, and put anything else inside double quotes (as in "LoginForm.tsx").'
    )
