"""The user's notes about sessions: archived, pinned and tags, kept apart from the sessions themselves.

``note`` (one session's notes, its key, what a tag may be), ``store`` (the SQLite file in the user's
data folder; every change one transaction) and ``transfer`` (the notes as JSON, exported and imported).
Nothing here writes a session file: the notes are about sessions, not in them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from core.lazy import lazy_exports

if TYPE_CHECKING:
    from core.notes.note import Note, SessionRef, clean_tag, has_tags, note_key, ref_of_file
    from core.notes.store import NOTES_FILE, Notes, NotesError, default_notes_dir
    from core.notes.transfer import export_notes, parse_notes

# name(s) -> the module that defines them, imported on first use (see core.lazy)
__getattr__, __dir__, __all__ = lazy_exports(
    __name__,
    {
        "core.notes.note": "clean_tag has_tags Note note_key ref_of_file SessionRef",
        "core.notes.store": "default_notes_dir Notes NotesError NOTES_FILE",
        "core.notes.transfer": "export_notes parse_notes",
    },
)
