"""The notes as JSON: what ``prime-sessions notes export`` writes and ``notes import`` reads.

::

    {"format": "prime-sessions-notes", "version": 1,
     "sessions": [{"id": "019c…", "path": "/home/…/x.jsonl", "archived": true, "pinned": false,
                   "tags": ["auth", "needs review"]}, …]}

An import is checked whole before anything is written: a file that is not JSON, not this format, too large
or holding one bad value is refused in one sentence saying where, and the notes stay as they were.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

import orjson

from core.errors import InvalidRequestError
from core.notes.note import Note, clean_tag

__all__ = ["FORMAT", "MAX_IMPORT_BYTES", "VERSION", "export_notes", "parse_notes"]

FORMAT = "prime-sessions-notes"
VERSION = 1
MAX_IMPORT_BYTES = 64 << 20  # a million sessions' notes fit in far less
_MAX_ID = 1000
_MAX_PATH = 8192
_MAX_TAGS = 1000
_NOTHING = "; nothing was imported."


def export_notes(notes: Iterable[Note]) -> bytes:
    """The notes as an indented JSON document (sessions in key order), ending with a newline."""
    sessions = [note.to_json() for note in sorted(notes, key=lambda n: n.key) if not note.empty]
    document = {"format": FORMAT, "version": VERSION, "sessions": sessions}
    return orjson.dumps(document, option=orjson.OPT_INDENT_2) + b"\n"


def parse_notes(data: bytes, source: str) -> list[Note]:
    """The notes an export holds, checked whole.

    Args:
        data: the file's bytes.
        source: how to name the file in a sentence.

    Raises:
        InvalidRequestError: it is not a notes export, or one value in it is wrong (the sentence says
            which); nothing of it is to be taken then.
    """
    if len(data) > MAX_IMPORT_BYTES:
        raise InvalidRequestError(
            f"{source} is {len(data) / 1e6:,.0f} MB, larger than any notes export"
            f" ({MAX_IMPORT_BYTES >> 20} MB at most){_NOTHING}"
        )
    try:
        document = orjson.loads(data)
    except orjson.JSONDecodeError as err:
        raise InvalidRequestError(
            f"{source} is not JSON ({_first_line(err)}); nothing was imported."
        ) from err
    if not isinstance(document, Mapping) or document.get("format") != FORMAT:
        raise InvalidRequestError(
            f'{source} is not a Prime Sessions notes export (no "format": "{FORMAT}"); nothing was imported.'
        )
    version = document.get("version")
    if type(version) is not int or version < 1:
        raise InvalidRequestError(f"{source} has no valid format version; nothing was imported.")
    if version > VERSION:
        raise InvalidRequestError(
            f"{source} was exported by a newer version of Prime Sessions (format {version}){_NOTHING}"
        )
    sessions = document.get("sessions")
    if not isinstance(sessions, list):
        raise InvalidRequestError(f'{source} has no list of "sessions"; nothing was imported.')
    notes = []
    for number, item in enumerate(sessions, start=1):
        try:
            notes.append(_note(item))
        except (InvalidRequestError, ValueError) as err:
            raise InvalidRequestError(
                f"{source}: session {number} of {len(sessions)} is not valid ({_clause(str(err))});"
                " nothing was imported."
            ) from err
    return notes


def _note(item: object) -> Note:
    if not isinstance(item, Mapping):
        raise ValueError("it is not an object")
    key = item.get("id")
    if not isinstance(key, str) or not key.strip() or len(key) > _MAX_ID:
        raise ValueError('its "id" is not a session id')
    path = item.get("path")
    if path is not None and (not isinstance(path, str) or len(path) > _MAX_PATH or "\x00" in path):
        raise ValueError('its "path" is not a path')
    flags = {}
    for name in ("archived", "pinned"):
        value = item.get(name, False)
        if not isinstance(value, bool):
            raise ValueError(f'its "{name}" is not true or false')
        flags[name] = value
    tags = item.get("tags", [])
    if not isinstance(tags, list) or len(tags) > _MAX_TAGS or not all(isinstance(t, str) for t in tags):
        raise ValueError('its "tags" are not a list of texts')
    cleaned = tuple(dict.fromkeys(clean_tag(t) for t in tags))
    return Note(key, path, flags["archived"], flags["pinned"], cleaned)


def _first_line(err: Exception) -> str:
    return str(err).splitlines()[0].rstrip(".") if str(err) else type(err).__name__


def _clause(sentence: str) -> str:
    """A sentence as a clause inside another: no final full stop."""
    return sentence.rstrip(".")
