"""One session's notes (archived, pinned, tags), the key they are kept under, and what a tag may be.

Notes are keyed by the session's id (its header's), so they follow a session whose file moves or comes
back from the trash; the path is kept beside them only as a hint for the reader of an export. A file
without a header id is keyed by the id its file name carries. Copies of one session (same header id)
therefore share their notes. Pure values: importing this module opens nothing.
"""

from __future__ import annotations

import os
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass

from core.errors import InvalidRequestError

__all__ = ["MAX_TAG_LENGTH", "Note", "SessionRef", "clean_tag", "has_tags", "note_key", "ref_of_file"]

MAX_TAG_LENGTH = 100
_REFUSED = frozenset({"Cc", "Cf", "Cs", "Co", "Cn"})  # control, format, surrogate, private, unassigned


@dataclass(frozen=True, slots=True)
class SessionRef:
    """Which session a note is about: its key (:func:`note_key`) and the path it was seen at."""

    key: str
    path: str | None = None


@dataclass(frozen=True, slots=True)
class Note:
    """What the user noted about one session.

    Attributes:
        key: the session's id (:func:`note_key`).
        path: the file the session was last noted at (a hint: the key finds the session).
        archived: hidden from the list unless archived sessions are shown.
        pinned: kept at the top of the list.
        tags: free text, as first written, in the order added; compared ignoring case.
    """

    key: str
    path: str | None = None
    archived: bool = False
    pinned: bool = False
    tags: tuple[str, ...] = ()

    @property
    def empty(self) -> bool:
        """True when nothing is noted (such a note is not kept)."""
        return not (self.archived or self.pinned or self.tags)

    def to_json(self) -> dict[str, object]:
        """The note as an export writes it (:mod:`core.notes.transfer`)."""
        return {
            "id": self.key,
            "path": self.path,
            "archived": self.archived,
            "pinned": self.pinned,
            "tags": list(self.tags),
        }


def note_key(session_id: str | None, path: str | os.PathLike[str]) -> str:
    """The key of a session's notes: its header id, else the id its file name carries, else the name.

    ``<time>_<id>.jsonl`` (pi) gives ``<id>``, ``<id>.jsonl`` (Prime Agent) the id.
    """
    if session_id:
        return session_id
    name = os.path.basename(os.fspath(path))
    stem = name[: -len(".jsonl")] if name.lower().endswith(".jsonl") else name
    return stem.rsplit("_", 1)[-1] or stem or name


def ref_of_file(path: str | os.PathLike[str]) -> SessionRef:
    """The :class:`SessionRef` of the session file at ``path`` (its header read, never the whole file)."""
    from core.session.identity import read_session_id

    absolute = os.path.abspath(os.fspath(path))
    return SessionRef(note_key(read_session_id(absolute), absolute), absolute)


def clean_tag(text: str) -> str:
    """``text`` as a tag: trimmed, inner runs of white space one space.

    Raises:
        InvalidRequestError: the tag is empty, too long, or holds a comma or a control character (the
            Tags… editor separates tags with commas).
    """
    tag = " ".join(str(text).split())
    if not tag:
        raise InvalidRequestError("A tag cannot be empty.")
    if len(tag) > MAX_TAG_LENGTH:
        raise InvalidRequestError(f"A tag is at most {MAX_TAG_LENGTH} characters long ({tag[:40]}… is not).")
    if "," in tag:
        raise InvalidRequestError(f"A tag cannot hold a comma ({tag!r}); commas separate tags.")
    # Format characters include the bidirectional overrides that make text read other than it is; the
    # zero-width joiner stays (emoji sequences need it).
    if any(unicodedata.category(c) in _REFUSED and c != "\u200d" for c in tag):
        raise InvalidRequestError(f"A tag cannot hold control or invisible characters ({tag!r}).")
    return tag


def fold(tag: str) -> str:
    """How tags are compared: ignoring case (``Bug`` and ``bug`` are one tag)."""
    return tag.casefold()


def has_tags(note: Note | None, wanted: Iterable[str]) -> bool:
    """True when ``note`` has every tag of ``wanted`` (ignoring case); True for no tags wanted."""
    wanted = [fold(w) for w in wanted]
    if not wanted:
        return True
    if note is None:
        return False
    held = {fold(t) for t in note.tags}
    return all(w in held for w in wanted)
