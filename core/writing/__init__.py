"""Every write to disk: label and name appends, new session files (fork, clone), exports, the trash.

``writer`` (appends that check every byte already read, new files by temporary name + fsync + link),
``edits`` (label and name edits with their inverses, for undo), ``trash`` (send2trash, never a delete)
and ``ids`` (new entry and session ids).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from core.lazy import lazy_exports

if TYPE_CHECKING:
    from core.writing.edits import SetLabel, SetName, label_edit, name_edit
    from core.writing.trash import TrashResult, trash_sessions
    from core.writing.writer import append_label, append_session_name, clone_session, fork_session, write_file

__getattr__, __dir__, __all__ = lazy_exports(
    __name__,
    {
        "SetLabel": "core.writing.edits",
        "SetName": "core.writing.edits",
        "label_edit": "core.writing.edits",
        "name_edit": "core.writing.edits",
        "TrashResult": "core.writing.trash",
        "trash_sessions": "core.writing.trash",
        "append_label": "core.writing.writer",
        "append_session_name": "core.writing.writer",
        "clone_session": "core.writing.writer",
        "fork_session": "core.writing.writer",
        "write_file": "core.writing.writer",
    },
)
