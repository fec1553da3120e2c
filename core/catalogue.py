"""The session catalogue: a persistent SQLite index of every session, with full-text search.

Opening the session list must not mean re-parsing gigabytes. The catalogue remembers, per session
file, its summary and where it stopped reading, and keeps an FTS5 index of the searchable text
(:mod:`core.search_text`). Session files are append-only, so a file that grew and whose first bytes
are unchanged is read only from where the last pass stopped; a file that shrank or changed its
header is read again whole; a deleted file leaves the catalogue. A pass over an unchanged history
only stats files.

The catalogue lives in the user's cache folder and is only ever a cache: a file that is corrupt or
from another schema version is deleted and rebuilt, never trusted. It never writes session files.

Design notes:

* The FTS5 table is contentless (``content=''``): the text is not stored twice, which halves the
  index size and makes indexing about 40% faster. Snippets are cut from the session file itself when
  a hit is shown (:func:`make_snippet`).
* A contentless table cannot delete rows without their text, so rows of a re-indexed or deleted
  file are left in the FTS index and dropped from ``docs``; every query joins on ``docs``, so they
  never show. ``docs.id`` is AUTOINCREMENT so an orphaned FTS rowid is never reused.
* One connection per thread, reused (SQLite connections must not cross threads); WAL mode so the
  list can be read while a refresh writes.
"""

from __future__ import annotations

import os
import re
import sqlite3
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import orjson

from core.discovery import default_roots, find_session_files
from core.entry import KNOWN_TYPES, TYPE_ALIASES, Entry
from core.errors import PrimeSessionsError, SessionReadError
from core.search_text import entry_doc
from core.session import Session, usage_totals
from core.summary import SessionSummary, summarize
from core.timefmt import iso_from_ms, js_date_ms

SCHEMA_VERSION = 1
_HEAD = 4096  # bytes compared to decide that a grown file is the same file, appended to

_SCHEMA = """
CREATE TABLE files(
    id INTEGER PRIMARY KEY,
    path TEXT NOT NULL UNIQUE,
    dev INTEGER, ino INTEGER, size INTEGER, mtime_ns INTEGER,
    read_end INTEGER NOT NULL, line_no INTEGER NOT NULL, unterminated INTEGER NOT NULL,
    head BLOB NOT NULL,
    header TEXT, version INTEGER,
    session_id TEXT, cwd TEXT, name TEXT, parent_session TEXT,
    created_ms REAL, modified_ms REAL, last_activity_ms REAL, mtime_ms REAL,
    message_count INTEGER, first_message TEXT, entry_count INTEGER, models TEXT,
    total_tokens REAL, cost REAL, leaf_id TEXT, last_stop TEXT,
    problems INTEGER, diagnostics TEXT
);
CREATE INDEX files_modified ON files(modified_ms DESC);
CREATE TABLE entries(
    file_id INTEGER NOT NULL, entry_id TEXT NOT NULL, parent_id TEXT,
    tokens REAL, cost REAL, stop TEXT,
    PRIMARY KEY(file_id, entry_id)
) WITHOUT ROWID;
CREATE TABLE docs(
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    file_id INTEGER NOT NULL, entry_id TEXT NOT NULL,
    role TEXT, tools TEXT, model TEXT, ts_ms REAL, offset INTEGER, length INTEGER
);
CREATE INDEX docs_file ON docs(file_id);
CREATE VIRTUAL TABLE fts USING fts5(body, content='', tokenize='unicode61 remove_diacritics 2');
"""


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
        bytes_read: bytes of session files read.
        seconds: wall time of the pass.
        cancelled: the pass stopped early because ``cancel`` was set.
        errors: one sentence per file that could not be read.
    """

    files_seen: int = 0
    files_indexed: int = 0
    files_appended: int = 0
    files_removed: int = 0
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
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
        except OSError as err:
            raise CatalogueError(
                f"Cannot create the catalogue folder {self.folder}: {err.strerror}."
            ) from err
        try:
            return self._open_checked()
        except (sqlite3.DatabaseError, _StaleSchema) as err:
            # A cache is never trusted when in doubt: throw it away and start again.
            self.rebuilt_reason = str(err) or type(err).__name__
            self._delete_files()
            try:
                return self._open_checked()
            except sqlite3.Error as again:
                raise CatalogueError(f"Cannot create the catalogue at {self.path}: {again}.") from again
        except sqlite3.Error as err:
            raise CatalogueError(f"Cannot open the catalogue at {self.path}: {err}.") from err

    def _open_checked(self) -> sqlite3.Connection:
        conn = sqlite3.connect(self.path, timeout=30, isolation_level=None, check_same_thread=True)
        try:
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute("PRAGMA synchronous=NORMAL")
            conn.execute("PRAGMA temp_store=MEMORY")
            conn.execute("PRAGMA cache_size=-65536")
            version = conn.execute("PRAGMA user_version").fetchone()[0]
            tables = conn.execute("SELECT count(*) FROM sqlite_master").fetchone()[0]
            if version == 0 and tables == 0:
                conn.executescript(
                    f"BEGIN IMMEDIATE; {_SCHEMA} PRAGMA user_version={SCHEMA_VERSION}; COMMIT;"
                )
            elif version != SCHEMA_VERSION:
                raise _StaleSchema(f"schema version {version}, expected {SCHEMA_VERSION}")
            else:
                conn.execute("SELECT id, path, head FROM files LIMIT 1").fetchall()
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
                    f"Cannot remove the damaged catalogue {self.path}: {err.strerror}."
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

        Args:
            roots: session folders (default: :func:`core.discovery.default_roots`).
            progress: called after each file with files and bytes done and in total.
            cancel: when set, the pass stops after the current file; what was done is kept.

        Returns:
            What the pass did. Unreadable files are listed in ``errors``; the pass goes on.
        """
        started = time.perf_counter()
        stats = RefreshStats()
        root_paths = [Path(os.path.abspath(r)) for r in (roots if roots is not None else default_roots())]
        with self._refresh_lock:
            conn = self._connect()
            known = {
                row[1]: row
                for row in conn.execute(
                    "SELECT id, path, dev, ino, size, mtime_ns, read_end, line_no, unterminated, head,"
                    " header, version FROM files"
                )
            }
            found: dict[str, os.stat_result] = {}
            for root in root_paths:
                for path in find_session_files(root):
                    key = os.path.abspath(path)
                    try:
                        found[key] = os.stat(key)
                    except OSError:
                        continue
            stats.files_seen = len(found)
            prefixes = tuple(str(r) + os.sep for r in root_paths)
            exact = {str(r) for r in root_paths}  # a root may be a single file
            gone = [
                row[0]
                for path, row in known.items()
                if path not in found and (path.startswith(prefixes) or path in exact)
            ]
            if gone:
                with _transaction(conn):
                    for file_id in gone:
                        _delete_file_rows(conn, file_id)
                stats.files_removed = len(gone)
            work = []
            for path, st in found.items():
                row = known.get(path)
                if row is not None and (row[2], row[3], row[4], row[5]) == (
                    st.st_dev,
                    st.st_ino,
                    st.st_size,
                    st.st_mtime_ns,
                ):
                    continue  # unchanged: a stat was all it cost
                work.append((path, st, row))
            # Newest first, so a list can show recent sessions while older ones are still read.
            work.sort(key=lambda item: item[1].st_mtime_ns, reverse=True)
            bytes_total = sum(_bytes_to_read(st, row) for _path, st, row in work)
            bytes_done = 0
            for done, (path, st, row) in enumerate(work, start=1):
                if cancel is not None and cancel.is_set():
                    stats.cancelled = True
                    break
                try:
                    appended = self._index_file(conn, path, st, row)
                except SessionReadError as err:
                    stats.errors.append(str(err))
                    if row is not None:
                        with _transaction(conn):
                            _delete_file_rows(conn, row[0])
                else:
                    if appended:
                        stats.files_appended += 1
                    else:
                        stats.files_indexed += 1
                bytes_done += _bytes_to_read(st, row)
                if progress is not None:
                    progress(done, len(work), bytes_done, bytes_total)
            stats.bytes_read = bytes_done
        stats.seconds = time.perf_counter() - started
        return stats

    def _index_file(self, conn: sqlite3.Connection, path: str, st: os.stat_result, row: tuple | None) -> bool:
        """Index one file; returns True when only its appended part was read."""
        if row is not None and _can_resume(path, st, row):
            return self._append_file(conn, path, st, row)
        docs: list[tuple[Entry, object]] = []

        def observe(entry: Entry, obj: dict) -> None:
            doc = entry_doc(entry, obj)
            if doc is not None:
                docs.append((entry, doc))

        session = Session(path, checksum=False, observer=observe)
        summary = summarize(session, st.st_mtime_ns / 1e6)
        diagnostics = [[d.line, d.kind, d.message] for d in session.diagnostics]
        with _transaction(conn):
            if row is not None:
                _delete_file_rows(conn, row[0])
            file_id = conn.execute(
                "INSERT INTO files(path, read_end, line_no, unterminated, head) VALUES (?, 0, 0, 0, x'')",
                (path,),
            ).lastrowid
            _insert_entries(conn, file_id, session.entries, session.usage_overrides)
            _insert_docs(conn, file_id, docs)
            _store_file(conn, file_id, session, st, summary, diagnostics, path)
        return False

    def _append_file(self, conn: sqlite3.Connection, path: str, st: os.stat_result, row: tuple) -> bool:
        file_id = row[0]
        docs: list[tuple[Entry, object]] = []

        def observe(entry: Entry, obj: dict) -> None:
            doc = entry_doc(entry, obj)
            if doc is not None:
                docs.append((entry, doc))

        header = orjson.loads(row[10])
        part = Session.resume(path, header, row[6], row[7], observer=observe)
        old = conn.execute(
            "SELECT message_count, first_message, last_activity_ms, models, name, entry_count, leaf_id,"
            " diagnostics, created_ms FROM files WHERE id = ?",
            (file_id,),
        ).fetchone()
        message_count, first_message, last_activity, models, name, entry_count, leaf, diags, created = old
        models = orjson.loads(models)
        for model in part.models:
            if model not in models:
                models.append(model)
        if part.last_activity_ms is not None and (
            last_activity is None or part.last_activity_ms > last_activity
        ):
            last_activity = part.last_activity_ms
        diagnostics = orjson.loads(diags) + [
            [d.line, d.kind, d.message] for d in part.diagnostics if d.kind not in _TREE_KINDS
        ]
        with _transaction(conn):
            _insert_entries(conn, file_id, part.entries, part.usage_overrides)
            _insert_docs(conn, file_id, docs)
            leaf = part.leaf_id if part.entries else leaf
            tokens, cost = conn.execute(
                "SELECT total(tokens), total(cost) FROM entries WHERE file_id = ?", (file_id,)
            ).fetchone()
            conn.execute(
                "UPDATE files SET size=?, mtime_ns=?, mtime_ms=?, read_end=?, line_no=?, unterminated=?,"
                " message_count=?, first_message=?, last_activity_ms=?, modified_ms=?, models=?, name=?,"
                " entry_count=?, leaf_id=?, total_tokens=?, cost=?, last_stop=?, problems=?, diagnostics=?"
                " WHERE id=?",
                (
                    st.st_size,
                    st.st_mtime_ns,
                    st.st_mtime_ns / 1e6,
                    part.size,
                    part.line_count,
                    0 if part.ends_with_newline else 1,
                    message_count + part.message_count,
                    first_message or part.first_message,
                    last_activity,
                    _modified(last_activity, created, st.st_mtime_ns / 1e6),
                    orjson.dumps(models).decode(),
                    part.name if part.name_seen else name,
                    entry_count + len(part.entries),
                    leaf,
                    tokens,
                    cost,
                    _last_stop(conn, file_id, leaf),
                    sum(1 for d in diagnostics if d[1] not in _INFO_KINDS),
                    orjson.dumps(diagnostics).decode(),
                    file_id,
                ),
            )
        return True

    # ------------------------------------------------------------------ reading
    def summaries(self, roots: Iterable[str | os.PathLike[str]] | None = None) -> list[SessionSummary]:
        """Summaries of the catalogued sessions (under ``roots`` when given), newest first."""
        conn = self._connect()
        rows = conn.execute(
            f"SELECT {_SUMMARY_COLUMNS} FROM files ORDER BY modified_ms DESC, path"
        ).fetchall()
        if roots is not None:
            bases = [os.path.abspath(r) for r in roots]
            prefixes = tuple(b + os.sep for b in bases)
            rows = [r for r in rows if r[0].startswith(prefixes) or r[0] in bases]
        # Files without a session header are not sessions (the reference's list hides them too).
        return [_summary_from_row(r) for r in rows if r[14] is not None]

    def diagnostics(self, path: str | os.PathLike[str]) -> list[tuple[int, str, str]]:
        """The stored diagnostics ``(line, kind, message)`` of one catalogued file."""
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
        included), entry date range (``since``/``until``, ``YYYY-MM-DD`` or ISO), message ``role``,
        ``tool`` name, ``model`` (a substring of ``provider/model``), sessions with a name only.

        Hits are ranked by bm25, newest first on ties. Raises :class:`QueryError` with a clear
        sentence when FTS5 rejects the query.
        """
        if not query.strip():
            raise QueryError("The search is empty; type one or more words.")
        where = ["fts MATCH ?"]
        params: list[object] = [query]
        if cwd:
            base = cwd.rstrip("/\\") or cwd
            where.append("(f.cwd = ? OR substr(f.cwd, 1, ?) = ?)")
            params += [base, len(base) + 1, base + ("\\" if "\\" in base and "/" not in base else "/")]
        if since:
            where.append("d.ts_ms >= ?")
            params.append(_date_ms(since, "since"))
        if until:
            where.append("d.ts_ms < ?")
            params.append(_date_ms(until, "until", end_of_day=True))
        if role:
            where.append("d.role = ?")
            params.append(role)
        if tool:
            where.append("(' ' || d.tools || ' ') LIKE ?")
            params.append(f"% {tool} %")
        if model:
            where.append("d.model LIKE ?")
            params.append(f"%{model}%")
        if named_only:
            where.append("f.name IS NOT NULL")
        sql = (
            "SELECT d.file_id, d.entry_id, d.role, d.tools, d.model, d.ts_ms, d.offset, d.length,"
            " f.path, f.session_id, f.cwd, f.name, f.leaf_id, bm25(fts) AS score"
            " FROM fts JOIN docs d ON d.id = fts.rowid JOIN files f ON f.id = d.file_id"
            f" WHERE {' AND '.join(where)} ORDER BY score, d.ts_ms DESC LIMIT ?"
        )
        params.append(max(1, int(limit)))
        conn = self._connect()
        try:
            rows = conn.execute(sql, params).fetchall()
        except sqlite3.OperationalError as err:
            raise QueryError(_explain_query_error(query, err)) from err
        branches: dict[int, set[str]] = {}
        terms = query_terms(query)
        hits = []
        for (
            file_id,
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
            leaf,
            score,
        ) in rows:
            on_path = branches.get(file_id)
            if on_path is None:
                on_path = branches[file_id] = _path_ids(conn, file_id, leaf)
            plain, spans = make_snippet(_read_doc_text(path, offset, length, entry_id), terms)
            hits.append(
                Hit(
                    sessionId=sid,
                    entryId=entry_id,
                    path=path,
                    snippet=mark_spans(plain, spans),
                    spans=spans,
                    onCurrentBranch=entry_id in on_path,
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


_TREE_KINDS = frozenset({"orphan", "self-parent", "cycle", "missing-header"})
_INFO_KINDS = frozenset({"unknown-type", "variant"})

_SUMMARY_COLUMNS = (
    "path, session_id, cwd, name, parent_session, created_ms, modified_ms, message_count, first_message,"
    " version, entry_count, models, total_tokens, cost, header, leaf_id, size, problems, last_stop, read_end"
)


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
        else:
            self.conn.execute("ROLLBACK")


def _bytes_to_read(st: os.stat_result, row: tuple | None) -> int:
    if row is not None and row[4] is not None and st.st_size >= row[6]:
        return st.st_size - row[6] if st.st_ino == row[3] else st.st_size
    return st.st_size


def _can_resume(path: str, st: os.stat_result, row: tuple) -> bool:
    """True when the file only grew since the last pass: same inode, bigger, same first bytes."""
    _id, _path, dev, ino, _size, _mtime, read_end, _line_no, unterminated, head, header, version = row
    if (dev, ino) != (st.st_dev, st.st_ino) or st.st_size < read_end or header is None or (version or 0) < 2:
        return False
    try:
        with open(path, "rb") as handle:
            if handle.read(len(head)) != head:
                return False
    except OSError:
        return False
    # The last pass ended on an entry whose newline was missing: whatever follows decides how that
    # line reads, so read the file again whole (rare: the reference always ends lines).
    return not unterminated


def _delete_file_rows(conn: sqlite3.Connection, file_id: int) -> None:
    # FTS rows of a contentless table stay behind; without their docs row no query returns them.
    conn.execute("DELETE FROM docs WHERE file_id = ?", (file_id,))
    conn.execute("DELETE FROM entries WHERE file_id = ?", (file_id,))
    conn.execute("DELETE FROM files WHERE id = ?", (file_id,))


def _insert_entries(
    conn: sqlite3.Connection, file_id: int, entries: Sequence[Entry], overrides: dict[str, dict]
) -> None:
    rows = []
    for entry in entries:
        tokens = cost = stop = None
        if entry.role == "assistant" and isinstance(entry.info, tuple):
            tokens, cost, stop = entry.info
            stop = stop if isinstance(stop, str) else None
        rows.append((file_id, entry.id, entry.parent_id, tokens, cost, stop))
    conn.executemany("INSERT OR REPLACE INTO entries VALUES (?, ?, ?, ?, ?, ?)", rows)
    for target, usage in overrides.items():
        tokens, cost = usage_totals(usage)
        conn.execute(
            "UPDATE entries SET tokens = ?, cost = ?"
            " WHERE file_id = ? AND entry_id = ? AND tokens IS NOT NULL",
            (tokens, cost, file_id, target),
        )


def _insert_docs(conn: sqlite3.Connection, file_id: int, docs: list[tuple[Entry, object]]) -> None:
    if not docs:
        return
    found = conn.execute("SELECT seq FROM sqlite_sequence WHERE name = 'docs'").fetchone()
    first = (found[0] if found else 0) + 1
    # Explicit ids (inside this write transaction nobody else can take them) let the FTS rows use the
    # same rowids without a round trip per row.
    conn.executemany(
        "INSERT INTO docs(id, file_id, entry_id, role, tools, model, ts_ms, offset, length)"
        " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
        [
            (
                first + i,
                file_id,
                entry.id,
                doc.role,
                doc.tools,
                doc.model,
                doc.ts_ms,
                entry.offset,
                entry.length,
            )
            for i, (entry, doc) in enumerate(docs)
        ],
    )
    conn.executemany(
        "INSERT INTO fts(rowid, body) VALUES (?, ?)", [(first + i, d.text) for i, (_e, d) in enumerate(docs)]
    )


def _store_file(
    conn: sqlite3.Connection,
    file_id: int,
    session: Session,
    st: os.stat_result,
    summary: SessionSummary,
    diagnostics: list,
    path: str,
) -> None:
    with open(path, "rb") as handle:
        head = handle.read(min(_HEAD, session.size))
    conn.execute(
        "UPDATE files SET dev=?, ino=?, size=?, mtime_ns=?, mtime_ms=?, read_end=?, line_no=?,"
        " unterminated=?,"
        " head=?, header=?, version=?, session_id=?, cwd=?, name=?, parent_session=?, created_ms=?,"
        " modified_ms=?, last_activity_ms=?, message_count=?, first_message=?, entry_count=?, models=?,"
        " total_tokens=?, cost=?, leaf_id=?, last_stop=?, problems=?, diagnostics=? WHERE id=?",
        (
            st.st_dev,
            st.st_ino,
            st.st_size,
            st.st_mtime_ns,
            st.st_mtime_ns / 1e6,
            session.size,
            session.line_count,
            0 if session.ends_with_newline else 1,
            head,
            orjson.dumps(session.header).decode() if session.header is not None else None,
            session.version,
            summary.id,
            summary.cwd,
            summary.name,
            summary.parentSessionPath,
            session.created_ms,
            js_date_ms(summary.modified),
            session.last_activity_ms,
            summary.messageCount,
            session.first_message,
            summary.entryCount,
            orjson.dumps(summary.models).decode(),
            summary.totalTokens,
            summary.cost,
            summary.leafId,
            summary.lastStopReason,
            summary.problems,
            orjson.dumps(diagnostics).decode(),
            file_id,
        ),
    )


def _modified(last_activity: float | None, created: float | None, mtime_ms: float) -> float:
    # The reference's rule: newest user/assistant message time, else the header time, else the mtime.
    if last_activity is not None and last_activity > 0:
        return last_activity
    return created if created is not None else mtime_ms


def _parent_map(conn: sqlite3.Connection, file_id: int) -> dict[str, str | None]:
    return dict(conn.execute("SELECT entry_id, parent_id FROM entries WHERE file_id = ?", (file_id,)))


def _path_ids(conn: sqlite3.Connection, file_id: int, leaf: str | None) -> set[str]:
    """Ids on the path from the root to ``leaf`` (iterative; stops at a repeat, so loops end)."""
    parents = _parent_map(conn, file_id)
    seen: set[str] = set()
    current = leaf
    while current is not None and current in parents and current not in seen:
        seen.add(current)
        current = parents[current]
    return seen


def _last_stop(conn: sqlite3.Connection, file_id: int, leaf: str | None) -> str | None:
    rows = dict(
        (eid, (parent, stop))
        for eid, parent, stop in conn.execute(
            "SELECT entry_id, parent_id, coalesce(stop, '') FROM entries WHERE file_id = ?", (file_id,)
        )
    )
    seen: set[str] = set()
    current = leaf
    while current is not None and current in rows and current not in seen:
        seen.add(current)
        parent, stop = rows[current]
        if stop:
            return stop
        current = parent
    return None


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
        version=version or 3,
        entryCount=entry_count or 0,
        models=orjson.loads(models) if models else [],
        totalTokens=int(tokens) if tokens is not None and float(tokens).is_integer() else (tokens or 0),
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
        obj = orjson.loads(raw)
    except (OSError, orjson.JSONDecodeError):
        return ""
    if not isinstance(obj, dict):
        return ""
    typ = obj.get("type") if isinstance(obj.get("type"), str) else ""
    kind = typ if typ in KNOWN_TYPES else TYPE_ALIASES.get(typ, typ)
    message = obj.get("message")
    role = message.get("role") if isinstance(message, dict) and isinstance(message.get("role"), str) else None
    entry = Entry(entry_id, None, typ, kind, obj.get("timestamp"), 0, offset, length, role)
    doc = entry_doc(entry, obj)
    return doc.text if doc is not None else ""


_OPERATORS = {"AND", "OR", "NOT", "NEAR"}


def query_terms(query: str) -> list[tuple[str, bool]]:
    """The words of an FTS5 query as ``(word, is_prefix)``, operators left out (for highlighting)."""
    terms = []
    for match in re.finditer(r"(\w+)(\*?)", query):
        word = match.group(1)
        if word in _OPERATORS:
            continue
        terms.append((word.lower(), bool(match.group(2))))
    return terms


def make_snippet(
    text: str, terms: list[tuple[str, bool]], width: int = 160
) -> tuple[str, list[tuple[int, int]]]:
    """About ``width`` characters of ``text`` around the first match, and the matched spans in it.

    Returns:
        ``(snippet, spans)``: whitespace is collapsed, an ellipsis marks cut ends, and ``spans`` are
        ``(start, end)`` offsets of matched words within ``snippet`` (for highlighting by the caller,
        who knows how: ``«»`` in a terminal, ``<mark>`` in HTML after escaping).
    """
    flat = " ".join(text.split())
    if not terms:
        return flat[:width], []
    pattern = re.compile(
        "|".join(rf"\b{re.escape(w)}\w*" if prefix else rf"\b{re.escape(w)}\b" for w, prefix in terms),
        re.IGNORECASE,
    )
    first = pattern.search(flat)
    start = 0
    if first is not None and first.start() > width // 3:
        start = flat.rfind(" ", 0, first.start() - width // 3) + 1
    lead = "…" if start > 0 else ""
    window = lead + flat[start : start + width] + ("…" if start + width < len(flat) else "")
    spans = [(m.start(), m.end()) for m in pattern.finditer(window)]
    return window, spans


def mark_spans(snippet: str, spans: list[tuple[int, int]], before: str = "«", after: str = "»") -> str:
    """``snippet`` with each span wrapped in ``before``/``after``."""
    out, last = [], 0
    for start, end in spans:
        out += [snippet[last:start], before, snippet[start:end], after]
        last = end
    out.append(snippet[last:])
    return "".join(out)


def _date_ms(value: str, name: str, end_of_day: bool = False) -> float:
    text = value.strip()
    ms = js_date_ms(text)
    if ms is None:
        raise QueryError(f"--{name} {value!r} is not a date; use YYYY-MM-DD or an ISO time.")
    if end_of_day and len(text) == 10:
        ms += 86_400_000  # "until 2026-03-05" includes that whole day
    return float(ms)


def _explain_query_error(query: str, err: sqlite3.Error) -> str:
    detail = str(err)
    detail = detail.removeprefix("fts5: ")
    return (
        f'The search {query!r} is not a valid query ({detail}). Use words, "exact phrases", '
        "prefix* and AND, OR, NOT; put special characters inside quotes."
    )
