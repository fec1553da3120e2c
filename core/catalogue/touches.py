"""The files each session's tools touched, in the catalogue: its ``touches`` rows and the queries over them.

One row per file an entry touched and how (:mod:`core.kinds.touches`: read, edit, write, run, search),
made by :mod:`core.catalogue.touch_rows` for a whole read and an append alike. ``path`` is the file
resolved against the session's project folder; ``rel`` is it relative to that folder (``/`` between
names) when it lies inside, else NULL. A question names a file or a folder: absolute, it is compared
with ``path``; relative, with ``rel``, so ``src/auth/`` finds the sessions of every project that touched
a file under its own ``src/auth``. Both columns are indexed; a folder is a range of the index
(everything from ``folder/`` up to ``folder0``, ``0`` being the character after ``/``), so no ``LIKE``
and its wildcards are involved.
"""

from __future__ import annotations

import ntpath
import os
import posixpath
import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass

from core.catalogue.update import roots_reach, within
from core.errors import InvalidRequestError
from core.kinds.touches import Touch, TouchedFile, touched_files, windows_style

__all__ = ["SessionTouches", "sessions_touching", "touched_condition"]


def touched_condition(path: str, alias: str = "t") -> tuple[str, list[object]]:
    """The SQL condition over ``touches`` (as ``alias``) for touches of the file or folder ``path``.

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
            return f"{column} IS NOT NULL", []  # anything inside the project
        if value.startswith("../"):
            raise InvalidRequestError(
                f"{path} leaves the project folder; give it as an absolute path instead."
            )
    below = value if value.endswith(sep) else value + sep
    upper = below[:-1] + chr(ord(sep) + 1)
    return f"({column} = ? OR ({column} >= ? AND {column} < ?))", [value, below, upper]


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
    conn: sqlite3.Connection, path: str, roots: Sequence[str | os.PathLike[str]] | None = None
) -> list[SessionTouches]:
    """The catalogued sessions whose tools touched the file or folder ``path``, newest first.

    ``roots``: only sessions a refresh of these folders finds.

    Raises:
        InvalidRequestError: ``path`` is empty or leaves the project folder.
        sqlite3.Error: the catalogue cannot be read.
    """
    where, params = touched_condition(path)
    rows = conn.execute(
        "SELECT f.path, f.session_id, f.name, f.cwd, f.modified_ms, t.entry_id, t.path, t.how"
        " FROM touches t JOIN files f ON f.id = t.file_id"
        f" WHERE {where} AND f.header IS NOT NULL ORDER BY f.modified_ms DESC, f.path, t.line, t.seq",
        params,
    ).fetchall()
    reach = roots_reach(roots) if roots is not None else None
    grouped: dict[str, tuple[tuple[object, ...], list[tuple[str, Touch]]]] = {}
    for file_path, session_id, name, cwd, modified, entry_id, touched, how in rows:
        if reach is not None and not within(file_path, reach):
            continue
        head = (session_id, name, cwd or "", modified)
        grouped.setdefault(file_path, (head, []))[1].append((entry_id, Touch(touched, how)))
    found = []
    for file_path, ((session_id, name, cwd, modified), touches) in grouped.items():
        assert isinstance(cwd, str)
        found.append(
            SessionTouches(
                file_path,
                session_id if isinstance(session_id, str) else None,
                name if isinstance(name, str) else None,
                cwd,
                modified if isinstance(modified, float | int) else None,
                tuple(touched_files(touches, cwd)),
            )
        )
    return found
