"""The :class:`Catalogue`: a persistent SQLite index of every session, with full-text search.

Opening the session list must not mean re-parsing gigabytes. The catalogue remembers, per session
file, its summary and where it stopped reading, and keeps an FTS5 index of the searchable text
(:mod:`core.catalogue.search_text`). A pass over an unchanged history only stats files; a file that
grew is read from where the last pass stopped; anything else is read again whole, in worker processes
when there is a lot to read (:mod:`core.catalogue.pool`).

The catalogue lives in the user's cache folder and is only ever a cache (:mod:`core.catalogue.schema`
rebuilds a stale or damaged one). It never writes session files. One connection per thread, reused
(SQLite connections must not cross threads); WAL mode so the list can be read while a refresh writes.

This module ties the parts together: :mod:`~core.catalogue.update` (which files changed, batches,
whole-file rows), :mod:`~core.catalogue.append` (appended bytes), :mod:`~core.catalogue.search`
(queries) and :mod:`~core.catalogue.reading` (one file read into rows).
"""

from __future__ import annotations

import os
import sqlite3
import threading
import time
from collections.abc import Callable, Generator, Iterable
from pathlib import Path
from typing import TYPE_CHECKING, TypeAlias, Unpack

import orjson

from core.catalogue import usage_query
from core.catalogue.append import append_file
from core.catalogue.children import child_paths, with_children
from core.catalogue.lookup import SessionKey, match_sessions
from core.catalogue.pool import ReaderDied, Readers, jobs_of, reader_count
from core.catalogue.purge import purge_unheld_texts
from core.catalogue.reading import Part, WholeRead, read_whole
from core.catalogue.schema import (
    LOCK_WAIT,
    PATH_PARAMETER,
    open_catalogue,
    os_reason,
    path_bytes,
    sqlite_errors,
    transaction,
)
from core.catalogue.search import Hit, SearchFilters, search_entries
from core.catalogue.touches import (
    SessionTouches,
    catalogued_touches,
    session_paths_touching,
    sessions_touching,
)
from core.catalogue.update import Batch as _Batch
from core.catalogue.update import (
    MissingText,
    ProgressCallback,
    RefreshStats,
    WorkItem,
    delete_file_rows,
    plan_refresh,
    roots_reach,
    within,
    writing_whole,
)
from core.catalogue.usage_lineage import settle as settle_usage
from core.errors import SessionReadError
from core.session.diagnostics import KINDS, Severity
from core.session.discovery import default_roots, search_roots
from core.session.summary import SessionSummary, problem_sentence
from core.timefmt import iso_from_ms

if TYPE_CHECKING:
    from core.kinds.touches import Touch
    from core.usage.overview import UsageOverview
    from core.usage.records import UsageRecord
    from core.usage.reports import UsageFilter, UsageReport


def default_catalogue_dir() -> Path:
    """``$PRIME_SESSIONS_CATALOGUE``, else ``prime-sessions`` in the user's cache folder (platformdirs)."""
    override = os.environ.get("PRIME_SESSIONS_CATALOGUE")
    if override:
        return Path(override).expanduser()
    import platformdirs

    return Path(platformdirs.user_cache_dir("prime-sessions", appauthor=False))


class Catalogue:
    """The catalogue in one folder (default: :func:`default_catalogue_dir`).

    Attributes:
        folder: the folder.
        path: the SQLite file in it.
        rebuilt_reason: why an existing catalogue file was thrown away and rebuilt, or None.
    """

    def __init__(self, folder: str | os.PathLike[str] | None = None, *, lock_wait: float = LOCK_WAIT) -> None:
        self.folder = Path(folder) if folder is not None else default_catalogue_dir()
        self._lock_wait = lock_wait
        self.path = self.folder / "catalogue.sqlite3"
        self.rebuilt_reason: str | None = None  # why an existing catalogue file was thrown away
        self._local = threading.local()
        self._refresh_lock = threading.Lock()
        self._connections: list[sqlite3.Connection] = []
        self._connections_lock = threading.Lock()
        self._connect()  # create or validate now, on the caller's thread, so errors surface early

    # ------------------------------------------------------------------ connections
    def _connect(self) -> sqlite3.Connection:
        conn: sqlite3.Connection | None = getattr(self._local, "conn", None)
        if conn is None:
            conn, rebuilt = open_catalogue(self.folder, self.path, self._lock_wait)
            if rebuilt is not None:
                self.rebuilt_reason = rebuilt
            self._local.conn = conn
            with self._connections_lock:
                self._connections.append(conn)
        return conn

    def wait_for_lock(self, seconds: float) -> None:
        """From now on, wait up to ``seconds`` for another process's lock (this thread's connection too)."""
        self._lock_wait = seconds
        conn: sqlite3.Connection | None = getattr(self._local, "conn", None)
        if conn is not None:
            conn.execute(f"PRAGMA busy_timeout={int(seconds * 1000)}")

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
        wanted = roots if roots is not None else default_roots()
        root_paths = [Path(os.path.abspath(r)) for r in search_roots(wanted)]
        with self._refresh_lock, sqlite_errors("update"):
            conn = self._connect()
            work = plan_refresh(conn, root_paths, stats)
            batch = _Batch(conn)
            jobs = list(jobs_of(work))
            workers = reader_count(sum(st.st_size for _path, st in jobs)) if jobs else 0
            readers = Readers(jobs, workers, str(self.folder)) if workers else None
            stats.readers = workers
            try:
                self._read_files(batch, work, stats, progress, cancel, readers)
                if work or stats.files_removed:  # forks' copies depend on other files: settle them
                    with transaction(conn):
                        settle_usage(conn)
            finally:
                if readers is not None:
                    readers.close()
                batch.abort()  # an error escaped: what the open batch wrote is undone
            if stats.files_removed:
                from core.catalogue.snapshots import prune_snapshots  # not for every CLI command

                prune_snapshots(self.folder)
            if batch.replaced and not stats.cancelled:
                # Files read again whole may have lost texts (an edited file); a cancelled pass leaves
                # that to the next pass that removes a file.
                stats.texts_purged += purge_unheld_texts(conn)
        stats.seconds = time.perf_counter() - started
        return stats

    def _read_files(
        self,
        batch: _Batch,
        work: list[WorkItem],
        stats: RefreshStats,
        progress: ProgressCallback | None,
        cancel: threading.Event | None,
        readers: Readers | None,
    ) -> None:
        """Bring each file of ``work`` up to date, newest first, through ``batch``.

        Files read whole come from ``readers`` when there are workers; appends are read here,
        since they depend on what the catalogue holds.
        """
        bytes_total = sum(item.size for item in work)
        bytes_done = 0

        def within_file(part: Part) -> None:  # progress inside a big file, after each of its parts
            if progress is not None:
                progress(done - 1, len(work), bytes_done + part.read_to, bytes_total)

        for done, (path, st, row, resume, size) in enumerate(work, start=1):
            if cancel is not None and cancel.is_set():
                stats.cancelled = True
                break
            try:
                if resume and row is not None:
                    append_file(batch, path, st, row)
                    stats.files_appended += 1
                elif readers is not None:
                    try:
                        _write_taken(batch, readers.take(path), within_file)
                        stats.files_from_readers += 1
                    except ReaderDied:  # a worker died (killed, out of memory): go on here
                        readers.close()
                        readers = None
                        self._index_file(batch, path, st, within_file)
                    except MissingText:
                        self._index_file(batch, path, st, within_file)
                    stats.files_indexed += 1
                else:
                    self._index_file(batch, path, st, within_file)
                    stats.files_indexed += 1
            except (SessionReadError, OSError, UnicodeError) as err:
                if isinstance(err, SessionReadError):
                    stats.errors.append(str(err))
                else:
                    stats.errors.append(f"Cannot catalogue {path}: {os_reason(err)}.")
                if row is not None:
                    with batch.file() as conn:
                        delete_file_rows(conn, row.id)
                    batch.replaced = True
            bytes_done += size
            stats.bytes_read = bytes_done
            batch.maybe_commit()  # a list reading the catalogue sees the files at most a batch late
            if progress is not None:
                progress(done, len(work), bytes_done, bytes_total)
        batch.commit()

    def _index_file(
        self, batch: _Batch, path: str, st: os.stat_result, written: Callable[[Part], None]
    ) -> None:
        """Read one file whole and replace whatever the catalogue held for it, its parts written as read.

        ``written`` is called after each part is written.
        """
        with writing_whole(batch, path) as writer:

            def part(item: Part) -> None:
                writer.part(item)
                written(item)

            writer.finish(read_whole(path, st, on_part=part))

    # ------------------------------------------------------------------ reading
    def summaries(self, roots: Iterable[str | os.PathLike[str]] | None = None) -> list[SessionSummary]:
        """Summaries of the catalogued sessions (those a refresh of ``roots`` finds, if given), newest first.

        Raises:
            CatalogueError: the catalogue cannot be read.
        """
        with sqlite_errors("read"):
            conn = self._connect()
            rows: list[_SummaryRow] = conn.execute(
                f"SELECT {_SUMMARY_COLUMNS} FROM files ORDER BY modified_ms DESC, path"
            ).fetchall()
            if roots is not None:
                reach = roots_reach(roots)
                rows = [r for r in rows if within(r[0], reach)]
            # Files without a session header are not sessions (the reference's list hides them too).
            # Child sessions: their parent and depth, and each parent's figure with its children's cost.
            return with_children(conn, [_summary_from_row(r) for r in rows if r[14] is not None])

    def child_sessions(self, path: str | os.PathLike[str]) -> list[str]:
        """The catalogued child (subagent) sessions of the session at ``path``, oldest first.

        Raises:
            CatalogueError: the catalogue cannot be read.
        """
        with sqlite_errors("read"):
            return child_paths(self._connect(), os.path.abspath(path))

    def session_keys(self) -> list[SessionKey]:
        """Every catalogued session's path, header id and name, newest first (what a reference matches).

        Raises:
            CatalogueError: the catalogue cannot be read.
        """
        with sqlite_errors("read"):
            rows = (
                self._connect()
                .execute(
                    "SELECT path, session_id, name FROM files WHERE header IS NOT NULL"
                    " ORDER BY modified_ms DESC, path"
                )
                .fetchall()
            )
        return [SessionKey(path, sid, name) for path, sid, name in rows]

    def find_sessions(self, ref: str) -> list[SessionSummary]:
        """The catalogued sessions ``ref`` names, newest first; more than one means it is ambiguous.

        ``ref`` is an id, an exact name or an id prefix (see :func:`core.catalogue.lookup.match_sessions`).

        Raises:
            CatalogueError: the catalogue cannot be read.
        """
        paths = [key.path for key in match_sessions(ref, self.session_keys())]
        found: dict[str, SessionSummary] = {}
        with sqlite_errors("read"):
            conn = self._connect()
            for start in range(0, len(paths), 500):  # SQLite's limit on bound values, with room to spare
                chunk = paths[start : start + 500]
                marks = ", ".join("?" * len(chunk))
                for row in conn.execute(
                    f"SELECT {_SUMMARY_COLUMNS} FROM files WHERE path IN ({marks})", chunk
                ):
                    found[row[0]] = _summary_from_row(row)
        return [found[p] for p in paths if p in found]

    def usage_records(self, roots: Iterable[str | os.PathLike[str]] | None = None) -> list[UsageRecord]:
        """Usage records of the catalogued sessions (under ``roots`` if given), forks' copies counted once.

        Raises:
            CatalogueError: the catalogue cannot be read.
        """
        with sqlite_errors("read"):
            return usage_query.usage_records(self._connect(), roots)

    def usage_report(
        self,
        kind: str,
        filt: UsageFilter,
        breakdown: bool = False,
        roots: Iterable[str | os.PathLike[str]] | None = None,
    ) -> UsageReport:
        """A usage report (``daily``, ``weekly``, ... see :data:`core.usage.KINDS`) over the catalogue.

        Raises:
            CatalogueError: the catalogue cannot be read.
            ValueError: ``kind`` is not a report kind.
        """
        with sqlite_errors("read"):
            return usage_query.usage_report(self._connect(), kind, filt, breakdown, roots)

    def usage_overview(
        self,
        filt: UsageFilter,
        period: str = "daily",
        roots: Iterable[str | os.PathLike[str]] | None = None,
        top: int | None = None,
    ) -> UsageOverview:
        """Every figure of a usage dashboard for ``filt`` at once (see :class:`core.usage.UsageOverview`).

        Raises:
            CatalogueError: the catalogue cannot be read.
            ValueError: ``period`` is not ``daily``, ``weekly`` or ``monthly``.
        """
        from core.catalogue.usage_overview import usage_overview

        with sqlite_errors("read"):
            return usage_overview(self._connect(), filt, period, roots, top)

    def usage_grid(
        self, filt: UsageFilter, roots: Iterable[str | os.PathLike[str]] | None = None
    ) -> list[list[float]]:
        """Cost by local weekday (Monday first) and hour over the catalogue: 7 rows of 24, for a heatmap.

        Raises:
            CatalogueError: the catalogue cannot be read.
        """
        with sqlite_errors("read"):
            return usage_query.usage_grid(self._connect(), filt, roots)

    def diagnostics(self, path: str | os.PathLike[str]) -> list[tuple[int, str, str]]:
        """The stored diagnostics ``(line, kind, message)`` of one catalogued file, by line.

        Raises:
            CatalogueError: the catalogue cannot be read.
        """
        with sqlite_errors("read"):
            row = (
                self._connect()
                .execute(
                    f"SELECT diagnostics FROM files WHERE path = {PATH_PARAMETER}",
                    (path_bytes(os.path.abspath(path)),),
                )
                .fetchone()
            )
        return (
            [(line, kind, message) for line, kind, message in orjson.loads(row[0])] if row and row[0] else []
        )

    def search(self, query: str, **filters: Unpack[SearchFilters]) -> list[Hit]:
        """Full-text search over every catalogued session.

        ``query`` is FTS5 syntax: words (all must match), ``"exact phrases"``, ``prefix*`` and
        ``AND``/``OR``/``NOT``. Filters (keywords, :class:`~core.catalogue.search.SearchFilters`) narrow
        the hits: project folder (``cwd``, its sub-folders included), entry date range
        (``since``/``until``, ``YYYY-MM-DD`` or ISO; both inclusive, a date meaning the whole day),
        message ``role``, ``tool`` name (exact), ``model`` (a substring of ``provider/model``, any case),
        sessions with a name only (``named_only``), sessions that touched a file or folder (``touched``);
        at most ``limit`` hits (default 50).

        Hits are ranked by bm25, newest first on ties.

        Raises:
            QueryError: the query is empty, FTS5 rejects it (the message says why, in one sentence),
                or a date does not parse.
            CatalogueError: the catalogue cannot be read.
        """
        return search_entries(self._connect(), query, filters)

    def touched(
        self, path: str, roots: Iterable[str | os.PathLike[str]] | None = None, limit: int | None = None
    ) -> list[SessionTouches]:
        """The sessions (under ``roots``) that touched the file or folder ``path``: see :mod:`.touches`."""
        with sqlite_errors("read"):
            return sessions_touching(self._connect(), path, None if roots is None else list(roots), limit)

    def session_touches(
        self, path: str | os.PathLike[str], up_to_line: int
    ) -> tuple[list[tuple[str, Touch]], int] | None:
        """The touches catalogued for one session file and the last line they cover, or None.

        See :func:`.touches.catalogued_touches`: the window lists the files a session touched unread.

        Raises:
            CatalogueError: the catalogue cannot be read.
        """
        with sqlite_errors("read"):
            return catalogued_touches(self._connect(), os.path.abspath(path), up_to_line)

    def touched_paths(self, path: str) -> list[str]:
        """The paths of the sessions that touched the file or folder ``path``, newest first."""
        with sqlite_errors("read"):
            return session_paths_touching(self._connect(), path)


def _write_taken(
    batch: _Batch, taken: Generator[Part | WholeRead, None, None], written: Callable[[Part], None]
) -> None:
    """Write a read taken from the worker processes, its parts as they arrive (all undone on an error).

    ``written`` is called after each part is written.
    """
    try:
        item = next(taken)
        with writing_whole(batch, item.path) as writer:
            while isinstance(item, Part):
                writer.part(item)
                written(item)
                item = next(taken)
            writer.finish(item)
    finally:
        taken.close()  # stopped early: the worker hands over no more parts of this file


_SUMMARY_COLUMNS = (
    "path, session_id, cwd, name, parent_session, created_ms, modified_ms, message_count, first_message,"
    " version, entry_count, models, total_tokens, cost, header, leaf_id, size, problems, last_stop, read_end,"
    " CASE WHEN problems > 0 THEN diagnostics END"  # read only for damaged files: the tooltip says why
)


_SummaryRow: TypeAlias = tuple[
    str,  # path
    str | None,  # session_id
    str | None,  # cwd
    str | None,  # name
    str | None,  # parent_session
    float | None,  # created_ms
    float | None,  # modified_ms
    int | None,  # message_count
    str | None,  # first_message
    int | None,  # version
    int | None,  # entry_count
    str | None,  # models (JSON)
    int | float | None,  # total_tokens
    float | None,  # cost
    str | None,  # header (JSON)
    str | None,  # leaf_id
    int | None,  # size
    int | None,  # problems
    str | None,  # last_stop
    int | None,  # read_end
    str | None,  # diagnostics (JSON), of a damaged file only
]
"""A ``files`` row as :data:`_SUMMARY_COLUMNS` selects it."""


def _summary_from_row(row: _SummaryRow) -> SessionSummary:
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
        diagnostics,
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
        firstProblem=_first_problem(diagnostics),
    )


def _first_problem(diagnostics: str | None) -> str | None:
    """The first stored diagnostic that says the file is damaged, as a sentence (None for none)."""
    if not diagnostics:
        return None
    try:
        notes = orjson.loads(diagnostics)
    except orjson.JSONDecodeError:
        return None
    for note in notes if isinstance(notes, list) else ():
        if isinstance(note, list) and len(note) == 3 and KINDS.get(note[1]) is not Severity.INFO:
            line, _kind, message = note
            return problem_sentence(line if isinstance(line, int) else 0, str(message))
    return None
