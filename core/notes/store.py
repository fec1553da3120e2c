"""The notes file: a small SQLite file in the user's data folder, never in the cache, never deleted.

The catalogue is a cache that may be thrown away and rebuilt; the notes are the user's own words, so they
live apart from it (``notes.sqlite3`` in :func:`default_notes_dir`) and survive a rebuilt or deleted
catalogue. Every change is one SQLite transaction (``BEGIN IMMEDIATE`` ... ``COMMIT``, synchronous
``FULL``): written whole or not at all, and two processes (the window and the command line) take turns.
Reading never creates the file. A file that is not a notes file is reported in one sentence and left as
it is: it may be the only copy of the user's notes.

Each call opens its own connection and closes it: notes change a few times a minute at most, and a
connection never crosses threads.
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TypeVar

from core.errors import PrimeSessionsError
from core.notes.note import Note, SessionRef, clean_tag, fold

__all__ = ["NOTES_FILE", "SCHEMA_VERSION", "Notes", "NotesError", "default_notes_dir"]

NOTES_FILE = "notes.sqlite3"
SCHEMA_VERSION = 1
_T = TypeVar("_T")

_SCHEMA = (
    """CREATE TABLE IF NOT EXISTS notes(
        session_key TEXT PRIMARY KEY,
        path TEXT,
        archived INTEGER NOT NULL DEFAULT 0,
        pinned INTEGER NOT NULL DEFAULT 0
    ) WITHOUT ROWID""",
    # A tag as first written, and its folded form, which is unique per session ("Bug" and "bug" are one).
    """CREATE TABLE IF NOT EXISTS tags(
        session_key TEXT NOT NULL,
        folded TEXT NOT NULL,
        tag TEXT NOT NULL,
        added INTEGER NOT NULL,
        PRIMARY KEY(session_key, folded)
    ) WITHOUT ROWID""",
)


class NotesError(PrimeSessionsError):
    """The notes file cannot be read or written; the message says so in one sentence."""


def default_notes_dir() -> Path:
    """``$PRIME_SESSIONS_NOTES``, else ``prime-sessions`` in the user's data folder (platformdirs).

    The data folder, not the cache: a cache may be emptied by the user or the system at any time.
    """
    override = os.environ.get("PRIME_SESSIONS_NOTES")
    if override:
        return Path(override).expanduser()
    import platformdirs

    return Path(platformdirs.user_data_dir("prime-sessions", appauthor=False))


class Notes:
    """The notes file in one folder (default :func:`default_notes_dir`).

    Attributes:
        folder: the folder.
        path: the SQLite file in it.
    """

    def __init__(self, folder: str | os.PathLike[str] | None = None) -> None:
        self.folder = Path(folder) if folder is not None else default_notes_dir()
        self.path = self.folder / NOTES_FILE

    # ------------------------------------------------------------------ reading
    def all(self) -> dict[str, Note]:
        """Every session's notes, by key (empty when there is no notes file yet).

        Raises:
            NotesError: the file cannot be read.
        """
        if not self.path.exists():
            return {}
        return self._run(_read_all, write=False)

    def get(self, key: str) -> Note:
        """The notes of the session ``key`` (an empty :class:`Note` when it has none)."""
        return self.all().get(key) or Note(key)

    # ------------------------------------------------------------------ changing
    def set_flags(
        self, refs: Iterable[SessionRef], *, archived: bool | None = None, pinned: bool | None = None
    ) -> dict[str, Note]:
        """Archive or unarchive, pin or unpin sessions (None leaves that flag as it is); every note after.

        Raises:
            NotesError: the file cannot be written (nothing is changed then).
        """
        refs = list(refs)

        def change(conn: sqlite3.Connection) -> None:
            for ref in refs:
                _upsert(conn, ref)
                if archived is not None:
                    conn.execute(
                        "UPDATE notes SET archived = ? WHERE session_key = ?", (int(archived), ref.key)
                    )
                if pinned is not None:
                    conn.execute("UPDATE notes SET pinned = ? WHERE session_key = ?", (int(pinned), ref.key))
                _drop_if_empty(conn, ref.key)

        return self._change(change)

    def add_tags(self, refs: Iterable[SessionRef], tags: Iterable[str]) -> dict[str, Note]:
        """Give sessions these tags (one already there, in any case, stays as first written).

        Raises:
            InvalidRequestError: a tag is not one (:func:`~core.notes.note.clean_tag`); nothing changes.
            NotesError: the file cannot be written.
        """
        return self.change_tags(refs, add=tags)

    def remove_tags(self, refs: Iterable[SessionRef], tags: Iterable[str]) -> dict[str, Note]:
        """Take these tags (any case) off sessions; a tag a session does not have is no error."""
        return self.change_tags(refs, remove=tags)

    def change_tags(
        self, refs: Iterable[SessionRef], *, add: Iterable[str] = (), remove: Iterable[str] = ()
    ) -> dict[str, Note]:
        """Take ``remove`` off and give ``add`` to each session, in one transaction; every note after.

        Raises:
            InvalidRequestError: a tag to add is not one (:func:`~core.notes.note.clean_tag`); nothing
                changes.
            NotesError: the file cannot be written.
        """
        added = [clean_tag(t) for t in add]
        removed = [fold(" ".join(str(t).split())) for t in remove]
        refs = list(refs)

        def change(conn: sqlite3.Connection) -> None:
            for ref in refs:
                if removed:
                    conn.executemany(
                        "DELETE FROM tags WHERE session_key = ? AND folded = ?",
                        [(ref.key, f) for f in removed],
                    )
                if added:
                    _upsert(conn, ref)
                    _add_tags(conn, ref.key, added)
                _drop_if_empty(conn, ref.key)

        return self._change(change)

    def set_tags(self, ref: SessionRef, tags: Iterable[str]) -> dict[str, Note]:
        """Make ``tags`` the session's tags, in this order (the Tags… editor)."""
        cleaned = [clean_tag(t) for t in tags]

        def change(conn: sqlite3.Connection) -> None:
            _upsert(conn, ref)
            conn.execute("DELETE FROM tags WHERE session_key = ?", (ref.key,))
            _add_tags(conn, ref.key, cleaned)
            _drop_if_empty(conn, ref.key)

        return self._change(change)

    def merge(self, notes: Iterable[Note]) -> dict[str, Note]:
        """Take in imported notes: their archived and pinned flags, and their tags added to any held.

        All of them in one transaction: an import is whole or not at all.
        """
        notes = list(notes)

        def change(conn: sqlite3.Connection) -> None:
            for note in notes:
                _upsert(conn, SessionRef(note.key, note.path))
                conn.execute(
                    "UPDATE notes SET archived = ?, pinned = ? WHERE session_key = ?",
                    (int(note.archived), int(note.pinned), note.key),
                )
                _add_tags(conn, note.key, [clean_tag(t) for t in note.tags])
                _drop_if_empty(conn, note.key)

        return self._change(change)

    # ------------------------------------------------------------------ the file
    def _change(self, change: Callable[[sqlite3.Connection], None]) -> dict[str, Note]:
        def run(conn: sqlite3.Connection) -> dict[str, Note]:
            change(conn)
            return _read_all(conn)

        return self._run(run, write=True)

    def _run(self, work: Callable[[sqlite3.Connection], _T], *, write: bool) -> _T:
        with self._connection(write) as conn:
            try:
                conn.execute("BEGIN IMMEDIATE" if write else "BEGIN")
                if write:
                    _ensure_schema(conn, self.path)
                else:
                    _check_version(conn, self.path)
                result = work(conn)
                conn.execute("COMMIT")
                return result
            except BaseException:
                if conn.in_transaction:
                    conn.execute("ROLLBACK")
                raise

    @contextmanager
    def _connection(self, write: bool) -> Iterator[sqlite3.Connection]:
        try:
            if write:
                self.folder.mkdir(parents=True, exist_ok=True)
            # A read opens the file read-only: reading never creates or changes it.
            target = str(self.path) if write else self.path.absolute().as_uri() + "?mode=ro"
            conn = sqlite3.connect(target, timeout=10, isolation_level=None, uri=not write)
        except (OSError, sqlite3.Error) as err:
            raise NotesError(f"The notes file {self.path} cannot be opened: {_reason(err)}.") from err
        try:
            if write:
                conn.execute("PRAGMA synchronous = FULL")
            yield conn
        except sqlite3.Error as err:
            raise NotesError(f"The notes file {self.path} cannot be used: {_reason(err)}.") from err
        finally:
            conn.close()


def _reason(err: BaseException) -> str:
    text = getattr(err, "strerror", None) or str(err) or type(err).__name__
    return text.rstrip(".")


def _check_version(conn: sqlite3.Connection, path: Path) -> None:
    version = conn.execute("PRAGMA user_version").fetchone()[0]
    if version > SCHEMA_VERSION:
        raise NotesError(
            f"The notes file {path} was written by a newer version of Prime Sessions; it was left as it is."
        )
    if version == 0 and not _has_tables(conn):
        return  # a new, empty file (the schema comes with the first change)
    if version != SCHEMA_VERSION or not _has_tables(conn):
        raise NotesError(f"The notes file {path} is not a Prime Sessions notes file; it was left as it is.")


def _has_tables(conn: sqlite3.Connection) -> bool:
    names = {row[0] for row in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    return {"notes", "tags"} <= names


def _ensure_schema(conn: sqlite3.Connection, path: Path) -> None:
    _check_version(conn, path)
    if not _has_tables(conn):
        for statement in _SCHEMA:
            conn.execute(statement)
        conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")


def _upsert(conn: sqlite3.Connection, ref: SessionRef) -> None:
    """Make sure ``ref`` has a row; its path hint becomes the one given (when given)."""
    conn.execute(
        "INSERT INTO notes(session_key, path) VALUES (?, ?) ON CONFLICT(session_key) DO UPDATE SET"
        " path = coalesce(excluded.path, notes.path)",
        (ref.key, ref.path),
    )


def _add_tags(conn: sqlite3.Connection, key: str, tags: list[str]) -> None:
    start = conn.execute("SELECT coalesce(max(added), 0) FROM tags WHERE session_key = ?", (key,)).fetchone()[
        0
    ]
    conn.executemany(
        "INSERT OR IGNORE INTO tags(session_key, folded, tag, added) VALUES (?, ?, ?, ?)",
        [(key, fold(tag), tag, start + n) for n, tag in enumerate(tags, start=1)],
    )


def _drop_if_empty(conn: sqlite3.Connection, key: str) -> None:
    """A session with nothing noted keeps no row: the file holds notes, not every session ever seen."""
    conn.execute(
        "DELETE FROM notes WHERE session_key = ? AND NOT archived AND NOT pinned"
        " AND NOT EXISTS (SELECT 1 FROM tags WHERE tags.session_key = notes.session_key)",
        (key,),
    )


def _read_all(conn: sqlite3.Connection) -> dict[str, Note]:
    if not _has_tables(conn):
        return {}
    tags: dict[str, list[str]] = {}
    for key, tag in conn.execute("SELECT session_key, tag FROM tags ORDER BY session_key, added"):
        tags.setdefault(key, []).append(tag)
    notes = {}
    for key, path, archived, pinned in conn.execute("SELECT session_key, path, archived, pinned FROM notes"):
        notes[key] = Note(key, path, bool(archived), bool(pinned), tuple(tags.get(key, ())))
    return notes
