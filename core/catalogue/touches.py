"""The files each session's tools touched, in the catalogue: its ``touches`` rows and the queries over them.

One row per file an entry touched and how (:mod:`core.kinds.touches`: read, edit, write, run, search),
made by :mod:`core.catalogue.touch_rows` for a whole read and an append alike; each file is a row of
``touched_paths`` once: ``path`` is the file resolved against the session's project folder, ``rel`` it
relative to that folder (``/`` between names) when it lies inside, else ``''``. A question names a file
or a folder: absolute, it is compared with ``path``; relative, with ``rel``, so ``src/auth/`` finds the
sessions of every project that touched a file under its own ``src/auth``. Both columns are indexed; a
folder is a range of the index (everything from ``folder/`` up to ``folder0``, ``0`` being the character
after ``/``), so no ``LIKE`` and its wildcards are involved.
"""

from __future__ import annotations

import ntpath
import os
import posixpath
import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass

from core.catalogue.schema import KNOWN_COLUMNS, PATH_PARAMETER, KnownFile, path_bytes
from core.catalogue.update import can_resume, roots_reach, within
from core.errors import InvalidRequestError
from core.kinds.touches import Touch, TouchedFile, touched_files, windows_style

__all__ = [
    "SessionTouches",
    "session_paths_touching",
    "sessions_touching",
    "touched_condition",
    "touched_ids",
]


def touched_condition(path: str, alias: str = "p") -> tuple[str, list[object]]:
    """The SQL condition over ``touched_paths`` (as ``alias``) for the file or folder ``path``.

    ``path`` is absolute (``/``, ``~``, a drive letter), compared with the resolved paths, or relative,
    compared with the paths relative to each session's project folder. A folder and everything below it
    match; a trailing separator changes nothing.

    Raises:
        InvalidRequestError: ``path`` is empty.
    """
    text = path.strip()
    if not text:
        raise InvalidRequestError("Say which file or folder: --touched needs a path.")
    if windows_style(text):
        column, value, sep = f"{alias}.path", ntpath.normpath(text), "\\"
    elif text.startswith(("/", "~")):
        column, value, sep = f"{alias}.path", posixpath.normpath(text), "/"
    else:
        column, value, sep = f"{alias}.rel", posixpath.normpath(text.replace("\\", "/")), "/"
        if value == ".":
            return f"{column} != ''", []  # anything inside the project
        if value.startswith("../"):
            raise InvalidRequestError(
                f"{path} leaves the project folder; give it as an absolute path instead."
            )
    below = value if value.endswith(sep) else value + sep
    upper = below[:-1] + chr(ord(sep) + 1)
    return f"({column} = ? OR ({column} >= ? AND {column} < ?))", [value, below, upper]


def touched_ids(where: str) -> str:
    """The condition over ``touches`` (as ``t``) for a :func:`touched_condition` over ``touched_paths``."""
    return f"t.path_id IN (SELECT p.id FROM touched_paths p WHERE {where})"


@dataclass(frozen=True)
class SessionTouches:
    """A session that touched the file or folder asked about, and which of its files it touched.

    Attributes:
        path: the session file.
        session_id, name, cwd: the session's id, name and project folder.
        modified_ms: when it was last active (as the list sorts it).
        files: the files under the asked path it touched, as :func:`core.kinds.touches.touched_files` says.
    """

    path: str
    session_id: str | None
    name: str | None
    cwd: str
    modified_ms: float | None
    files: tuple[TouchedFile, ...]

    def to_json(self) -> dict[str, object]:
        """A plain dict for JSON output."""
        return {
            "path": self.path,
            "sessionId": self.session_id,
            "name": self.name,
            "cwd": self.cwd,
            "files": [f.to_json() for f in self.files],
        }


def sessions_touching(
    conn: sqlite3.Connection,
    path: str,
    roots: Sequence[str | os.PathLike[str]] | None = None,
    limit: int | None = None,
) -> list[SessionTouches]:
    """The catalogued sessions whose tools touched the file or folder ``path``, newest first.

    ``roots``: only sessions a refresh of these folders finds; ``limit``: at most this many (the newest),
    whose touches alone are read.

    Raises:
        InvalidRequestError: ``path`` is empty or leaves the project folder.
        sqlite3.Error: the catalogue cannot be read.
    """
    where, params = touched_condition(path)
    sessions = _sessions_with(conn, where, params, roots)[:limit]
    touches: dict[int, list[tuple[str, Touch]]] = {file_id: [] for file_id, *_rest in sessions}
    ids = list(touches)
    for start in range(0, len(ids), _CHUNK):
        chunk = ids[start : start + _CHUNK]
        marks = ",".join("?" * len(chunk))
        for file_id, entry_id, touched, how in conn.execute(
            "SELECT t.file_id, t.entry_id, p.path, t.how FROM touches t"
            f" JOIN touched_paths p ON p.id = t.path_id WHERE t.file_id IN ({marks}) AND {where}"
            " ORDER BY t.file_id, t.line, t.seq",
            [*chunk, *params],
        ):
            touches[file_id].append((entry_id, Touch(touched, how)))
    return [
        SessionTouches(
            file_path,
            session_id if isinstance(session_id, str) else None,
            name if isinstance(name, str) else None,
            cwd or "",
            modified if isinstance(modified, float | int) else None,
            tuple(touched_files(touches[file_id], cwd or "")),
        )
        for file_id, file_path, session_id, name, cwd, modified in sessions
    ]


def session_paths_touching(
    conn: sqlite3.Connection, path: str, roots: Sequence[str | os.PathLike[str]] | None = None
) -> list[str]:
    """The paths of the sessions :func:`sessions_touching` finds, newest first (no touch is read)."""
    where, params = touched_condition(path)
    return [row[1] for row in _sessions_with(conn, where, params, roots)]


_CHUNK = 500  # file ids per "IN (...)" query, well under SQLite's limit of bound variables


def _sessions_with(
    conn: sqlite3.Connection, where: str, params: list[object], roots: Sequence[str | os.PathLike[str]] | None
) -> list[tuple[int, str, object, object, str | None, object]]:
    """``(file id, path, session id, name, cwd, modified)`` of the sessions with a touch ``where`` holds."""
    rows: list[tuple[int, str, object, object, str | None, object]] = conn.execute(
        "SELECT f.id, f.path, f.session_id, f.name, f.cwd, f.modified_ms FROM files f"
        " WHERE f.header IS NOT NULL"
        f" AND f.id IN (SELECT t.file_id FROM touches t WHERE {touched_ids(where)})"
        " ORDER BY f.modified_ms DESC, f.path",
        params,
    ).fetchall()
    if roots is not None:
        reach = roots_reach(roots)
        rows = [row for row in rows if within(row[1], reach)]
    return rows


def catalogued_touches(
    conn: sqlite3.Connection, path: str, up_to_line: int
) -> tuple[list[tuple[str, Touch]], int] | None:
    """The catalogue's touches of session file ``path`` up to line ``up_to_line``, and the last line covered.

    The catalogue may have read less, or more, than the caller. ``(entry id, touch)`` in file order, each
    touch's path as the catalogue resolved it (which :func:`core.kinds.touches.touched_files` takes as it
    is). None when the catalogue cannot vouch for the file as it is now: not catalogued, replaced,
    shortened or changed in what was read (the checks of an append, :func:`core.catalogue.update.can_resume`).

    Raises:
        sqlite3.Error: the catalogue cannot be read.
    """
    row = conn.execute(
        f"SELECT {KNOWN_COLUMNS} FROM files WHERE path = {PATH_PARAMETER}", (path_bytes(path),)
    ).fetchone()
    if row is None:
        return None
    known = KnownFile._make(row)
    try:
        st = os.stat(path)
    except OSError:
        return None
    if not can_resume(path, st, known):
        return None
    touches = [
        (entry_id, Touch(touched, how))
        for entry_id, touched, how in conn.execute(
            "SELECT t.entry_id, p.path, t.how FROM touches t JOIN touched_paths p ON p.id = t.path_id"
            " WHERE t.file_id = ? AND t.line <= ? ORDER BY t.line, t.seq",
            (known.id, up_to_line),
        )
    ]
    return touches, min(known.line_no, up_to_line)
