"""Bringing the catalogue up to date: which files changed and how, batches, and writing a file's rows.

Session files are append-only, so a file that grew and whose first bytes and last bytes read are
unchanged is read only from where the last pass stopped (:mod:`core.catalogue.append`); a file that
shrank, was replaced or changed its header is read again whole (:func:`write_whole`); a deleted file
leaves the catalogue. A pass over an unchanged history only stats files (:func:`plan_refresh`).

Text is stored once however many entries hold it (content addressing): forks and clones copy their
parent's entries, and the same file is read or the same output printed again and again. Each distinct
text gets one FTS row; ``texts`` maps its key (64 bits of its SHA-1) to that rowid, and each
searchable entry's row in ``entries`` points at it. Every query joins on ``entries``, so a text no
entry holds never shows; a pass in which files left the catalogue or were read again whole removes such
texts from the index and from the file's bytes (:mod:`core.catalogue.purge`), since a trashed session's
words must not stay in the cache.
"""

from __future__ import annotations

import os
import sqlite3
import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import NamedTuple, TypeAlias

from core.catalogue.purge import purge_unheld_texts
from core.catalogue.reading import FILE_COLUMNS, PATH_COLUMNS, EntryRow, OverrideRow, Part, WholeRead, guards
from core.catalogue.schema import (
    KNOWN_COLUMNS,
    PATH_PARAMETER,
    CatalogueError,
    KnownFile,
    path_bytes,
    transaction,
)
from core.catalogue.search_text import clean_text
from core.catalogue.touch_rows import TouchRow
from core.catalogue.usage_rows import delete_groups, insert_usage, regroup
from core.session.discovery import reached, search_roots, stat_session_files

ProgressCallback: TypeAlias = Callable[[int, int, int, int], None]
"""``progress(files_done, files_total, bytes_done, bytes_total)``."""

_REMEMBERED_TEXTS = 500_000  # about 60 MB of keys in a refresh pass's memory
_LOOKUP_CHUNK = 500  # keys per "key IN (...)" query, well under SQLite's limit of bound variables


@dataclass
class RefreshStats:
    """What one :meth:`core.catalogue.Catalogue.refresh` pass did.

    Attributes:
        files_seen: session files found under the roots.
        files_indexed: files read whole (new, or changed in a way that is not an append).
        files_appended: files read only from where the last pass stopped.
        files_removed: files that disappeared and left the catalogue.
        texts_purged: texts no entry held any more (those files' words), removed from the index.
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
    texts_purged: int = 0
    files_from_readers: int = 0
    readers: int = 0
    bytes_read: int = 0
    seconds: float = 0.0
    cancelled: bool = False
    errors: list[str] = field(default_factory=list)


class WorkItem(NamedTuple):
    """One file a pass brings up to date.

    Attributes:
        path: the file.
        st: its stat, taken by the pass.
        row: what the catalogue holds for it (None: a new file).
        resume: True when only what was appended needs reading.
        size: bytes to read (the appended part, or the whole file).
    """

    path: str
    st: os.stat_result
    row: KnownFile | None
    resume: bool
    size: int


def plan_refresh(conn: sqlite3.Connection, root_paths: list[Path], stats: RefreshStats) -> list[WorkItem]:
    """The files under ``root_paths`` that changed since the last pass, newest first.

    Files that disappeared leave the catalogue here (``stats.files_removed``); ``stats.files_seen``
    counts the files found. An unchanged file costs a stat and nothing else.
    """
    # Only what the unchanged test needs: the rest (guards, header) is fetched for changed files.
    # Rows as SQLite gives them, (id, path, dev, ino, size, mtime_ns): 20,000 of them in a warm pass.
    known = {row[1]: row for row in conn.execute("SELECT id, path, dev, ino, size, mtime_ns FROM files")}
    found: dict[str, os.stat_result] = {}
    identities: set[tuple[int, int]] = set()
    for root in root_paths:
        for path, st in stat_session_files(root):  # root paths are absolute: so are these
            # A file reached from two roots (one inside the other, or a link) is catalogued once.
            if (st.st_dev, st.st_ino) not in identities:
                identities.add((st.st_dev, st.st_ino))
                found[path] = st
    stats.files_seen = len(found)
    # Only files a root's search reaches can be gone: `list ~` must not drop every session
    # catalogued from ~/.pi/agent/sessions just because they lie deeper than it looks.
    reach = roots_reach(root_paths)
    gone = [ident[0] for path, ident in known.items() if path not in found and within(path, reach)]
    if gone:
        with transaction(conn):
            for file_id in gone:
                delete_file_rows(conn, file_id)
        stats.files_removed = len(gone)
        # Before any batch: no batch of this pass remembers a text id yet.
        stats.texts_purged += purge_unheld_texts(conn)
    work = []
    for path, st in found.items():
        ident = known.get(path)
        if ident is not None and ident[2:] == (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns):
            continue  # unchanged: a stat was all it cost
        row = None
        if ident is not None:
            row = KnownFile._make(
                conn.execute(f"SELECT {KNOWN_COLUMNS} FROM files WHERE id = ?", (ident[0],)).fetchone()
            )
        resume = row is not None and can_resume(path, st, row)
        work.append(
            WorkItem(path, st, row, resume, st.st_size - row.read_end if resume and row else st.st_size)
        )
    # Newest first, so a list can show recent sessions while older ones are still read.
    work.sort(key=lambda item: item.st.st_mtime_ns, reverse=True)
    return work


def can_resume(path: str, st: os.stat_result, row: KnownFile) -> bool:
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


def roots_reach(roots: Iterable[str | os.PathLike[str]]) -> set[str]:
    """The roots and the child folders beside them (:func:`search_roots`), absolute, for :func:`within`."""
    return {os.path.abspath(r) for r in search_roots(roots)}


def within(path: str, reach: set[str]) -> bool:
    """True when a refresh of the roots finds ``path``: a root itself, or a file in one or in a sub-folder.

    The same rule as :func:`core.session.discovery.find_session_files`, child folders included.
    """
    parent = path.rpartition(os.sep)[0]
    if path in reach or parent in reach or parent.rpartition(os.sep)[0] in reach:
        return True
    return any(path.startswith(root + os.sep) and reached(path, root) for root in reach)


class Batch:
    """One write transaction over the files read in about a quarter of a second, a savepoint per file.

    Committing after every file cost a third of a cold build (FTS5 writes a segment per commit);
    a quarter of a second bounds how long another writer waits and how far a list reading the
    catalogue lags behind. The first transaction of a pass commits after its first file, so a list
    started on an empty catalogue shows the newest sessions within a fraction of a second rather than a
    batch later. A file whose writing fails is undone alone (its savepoint).

    ``indexed`` maps the keys of texts known to be indexed to their FTS rowid, sparing lookups.
    It is only a cache: emptied when anything is rolled back, when it grows too big, and when another
    connection wrote between two of its transactions (it may have purged texts, see
    :mod:`core.catalogue.purge`). ``replaced`` is set once a file's earlier rows were deleted.
    """

    SECONDS = 0.25

    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn = conn
        self.began: float | None = None
        self.commits = 0  # transactions committed
        self.indexed: dict[int, int] = {}
        self.replaced = False
        self._data_version: int | None = None  # PRAGMA data_version after this batch's last commit

    @contextmanager
    def file(self) -> Iterator[sqlite3.Connection]:
        """The connection, inside the batch's transaction (begun if needed) and a savepoint."""
        if not self.conn.in_transaction:
            self.conn.execute("BEGIN IMMEDIATE")
            self.began = time.monotonic()
            version = self.conn.execute("PRAGMA data_version").fetchone()[0]
            if version != self._data_version:
                self.indexed.clear()  # someone else committed since: what it knew may be gone
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
        """Commit when the transaction is a quarter of a second old, or is the first; True when it did."""
        if self.began is not None and (not self.commits or time.monotonic() - self.began >= self.SECONDS):
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
            self.commits += 1
            self._data_version = self.conn.execute("PRAGMA data_version").fetchone()[0]

    def abort(self) -> None:
        """Roll back what the batch wrote since its last commit (nothing happens after a commit)."""
        self.began = None
        if self.conn.in_transaction:
            self.indexed.clear()
            self.conn.execute("ROLLBACK")


class MissingText(Exception):
    """A worker left out a text it had handed over, but the catalogue has no row for it.

    It happens only when rows written from an earlier hand-over were rolled back; the file is then
    read again in this process, with every text.
    """


def write_whole(batch: Batch, read: WholeRead) -> None:
    """Replace whatever the catalogue held for a file with a whole read of it.

    Raises:
        MissingText: the read left out a text the catalogue does not hold (see :class:`MissingText`).
    """
    with writing_whole(batch, read.path) as writer:
        writer.finish(read)


class WholeWriter:
    """Writes one file's whole read: its :class:`~core.catalogue.reading.Part` s as they come, then the rest.

    Made by :func:`writing_whole`, inside the file's savepoint: nothing is seen by others, and nothing
    stays, unless :meth:`finish` ran and the savepoint was released.
    """

    def __init__(self, batch: Batch, conn: sqlite3.Connection, file_id: int) -> None:
        self._batch = batch
        self._conn = conn
        self.file_id = file_id

    def part(self, part: Part) -> None:
        """Insert the rows and new texts of one part of the file.

        Raises:
            MissingText: see :func:`insert_entries`.
        """
        insert_entries(self._conn, self.file_id, part.entries, part.texts, self._batch.indexed)

    def finish(self, read: WholeRead) -> None:
        """Insert the rest of the read and the file's row; mark the path through the parts' entries.

        Raises:
            MissingText: see :func:`insert_entries`.
        """
        conn, file_id = self._conn, self.file_id
        insert_entries(conn, file_id, read.entries, read.texts, self._batch.indexed)
        # The parts' searchable rows were written before the leaf was known (on_path false).
        conn.executemany(
            "UPDATE entries SET on_path = 1"
            " WHERE file_id = ? AND line BETWEEN ? AND ? AND on_path IS NOT NULL",
            [(file_id, first, last) for first, last in read.path_lines],
        )
        insert_overrides(conn, file_id, read.overrides)
        insert_usage(conn, file_id, read.usage)
        insert_touches(conn, file_id, read.touches)
        assignments = ", ".join(
            f"{name}={PATH_PARAMETER}" if name in PATH_COLUMNS else f"{name}=?"
            for name in (column.strip() for column in FILE_COLUMNS.split(","))
        )
        conn.execute(f"UPDATE files SET {assignments} WHERE id=?", (*read.files, file_id))
        regroup(conn, file_id)


@contextmanager
def writing_whole(batch: Batch, path: str) -> Iterator[WholeWriter]:
    """A :class:`WholeWriter` for ``path``, in a savepoint of ``batch``: its earlier rows are deleted first.

    The writer must :meth:`~WholeWriter.finish`; an exception undoes everything written for the file.
    """
    with batch.file() as conn:
        # By path, inside the write lock: another process may have catalogued it meanwhile.
        stored = path_bytes(path)
        for (old_id,) in conn.execute(f"SELECT id FROM files WHERE path = {PATH_PARAMETER}", (stored,)):
            delete_file_rows(conn, old_id)
            batch.replaced = True
        file_id = conn.execute(
            "INSERT INTO files(path, read_end, line_no, unterminated, head, tail)"
            f" VALUES ({PATH_PARAMETER}, 0, 0, 0, x'', x'')",
            (stored,),
        ).lastrowid
        assert file_id is not None  # an INSERT into a rowid table always gives one
        yield WholeWriter(batch, conn, file_id)


def delete_file_rows(conn: sqlite3.Connection, file_id: int) -> None:
    """Remove a file and its entries and overrides from the catalogue.

    Its texts stay in the index (other files may hold them) until :mod:`core.catalogue.purge` removes
    those no entry holds; without an entries row no query returns them meanwhile.
    """
    conn.execute("DELETE FROM entries WHERE file_id = ?", (file_id,))
    conn.execute("DELETE FROM overrides WHERE file_id = ?", (file_id,))
    # Its files no other session touched leave too: nothing of a trashed session stays behind.
    conn.execute(
        "DELETE FROM touched_paths WHERE id IN (SELECT path_id FROM touches WHERE file_id = ?1)"
        " AND NOT EXISTS (SELECT 1 FROM touches t WHERE t.path_id = touched_paths.id AND t.file_id != ?1)",
        (file_id,),
    )
    conn.execute("DELETE FROM touches WHERE file_id = ?", (file_id,))
    conn.execute("DELETE FROM usage WHERE file_id = ?", (file_id,))
    delete_groups(conn, file_id)
    conn.execute("DELETE FROM usage_lineage WHERE file_id = ?", (file_id,))
    conn.execute("DELETE FROM usage_sessions WHERE file_id = ?", (file_id,))
    conn.execute("DELETE FROM subagents WHERE file_id = ?", (file_id,))
    conn.execute("DELETE FROM files WHERE id = ?", (file_id,))


def insert_overrides(conn: sqlite3.Connection, file_id: int, rows: list[OverrideRow]) -> None:
    """Insert ``(target, tokens, cost)`` rows of a file's ``child_usage_attributed`` results."""
    if rows:
        insert_rows(
            conn, "INSERT OR REPLACE INTO overrides VALUES (?, ?, ?, ?)", [(file_id, *r) for r in rows]
        )


def insert_touches(conn: sqlite3.Connection, file_id: int, rows: list[TouchRow]) -> None:
    """Insert a file's ``touches`` rows, each file once in ``touched_paths`` (:mod:`.touches`)."""
    if not rows:
        return
    ids: dict[tuple[str, str], int] = {}
    for _line, _seq, _entry, path, rel, _how in rows:
        key = (clean_text(path), clean_text(rel or ""))
        if key not in ids:
            conn.execute("INSERT OR IGNORE INTO touched_paths(path, rel) VALUES (?, ?)", key)
            ids[key] = conn.execute(
                "SELECT id FROM touched_paths WHERE path = ? AND rel = ?", key
            ).fetchone()[0]
    insert_rows(
        conn,
        "INSERT OR REPLACE INTO touches VALUES (?, ?, ?, ?, ?, ?)",
        [
            (file_id, line, seq, entry_id, ids[clean_text(path), clean_text(rel or "")], how)
            for line, seq, entry_id, path, rel, how in rows
        ],
    )


def insert_rows(conn: sqlite3.Connection, sql: str, rows: list[tuple[object, ...]]) -> None:
    """``executemany`` of an idempotent ``INSERT OR REPLACE``; text SQLite refuses is cleaned, then retried.

    Checking every value up front would cost more than the rare retry (lone surrogates in ids).
    """
    try:
        conn.executemany(sql, rows)
    except UnicodeEncodeError:
        conn.executemany(sql, [tuple(map(clean_text, row)) for row in rows])


def insert_entries(
    conn: sqlite3.Connection,
    file_id: int,
    rows: list[EntryRow],
    texts: dict[int, str],
    indexed: dict[int, int],
) -> None:
    """Insert :func:`core.catalogue.reading.entry_rows` of a file, and FTS rows for texts not indexed before.

    ``indexed`` maps text keys known to be in ``texts`` to their FTS rowid (see :class:`Batch`);
    the keys this file found or added are put in it.

    Raises:
        MissingText: a new text is not in ``texts``.
    """
    unknown = list({row[12] for row in rows if row[12] is not None and row[12] not in indexed})
    for start in range(0, len(unknown), _LOOKUP_CHUNK):
        chunk = unknown[start : start + _LOOKUP_CHUNK]
        marks = ",".join("?" * len(chunk))
        indexed.update(conn.execute(f"SELECT key, id FROM texts WHERE key IN ({marks})", chunk).fetchall())
    new = [key for key in unknown if key not in indexed]
    if new:
        if any(key not in texts for key in new):
            raise MissingText
        # Explicit ids (inside this write transaction nobody else can take them) spare a round
        # trip per row; AUTOINCREMENT keeps the ids of left-behind FTS rows from being reused.
        seq = conn.execute("SELECT seq FROM sqlite_sequence WHERE name = 'texts'").fetchone()
        first = (seq[0] if seq else 0) + 1
        ids = [(first + i, key) for i, key in enumerate(new)]
        conn.executemany("INSERT INTO texts(id, key) VALUES (?, ?)", ids)
        conn.executemany("INSERT INTO fts(rowid, body) VALUES (?, ?)", [(i, texts[key]) for i, key in ids])
        indexed.update((key, i) for i, key in ids)
    insert_rows(
        conn,
        "INSERT OR REPLACE INTO entries VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        [(file_id, *row[:12], None if row[12] is None else indexed[row[12]], row[13]) for row in rows],
    )
