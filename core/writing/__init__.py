"""Every write to disk: label and name appends, new session files (fork, clone), exports, the trash.

``writer`` (appends that check every byte already read, under a lock, never cutting a partial line;
fork and clone), ``atomic`` (new files by temporary name + fsync + link, and the clean-up of temporary
files a killed write left), ``edits`` (label and name edits with their inverses, for undo), ``trash``
(send2trash, never a delete), ``demo`` (the user's copy of the shipped demo sessions) and ``ids`` (new
entry and session ids).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from core.lazy import lazy_exports

if TYPE_CHECKING:
    from core.writing.atomic import remove_stale_temporaries, write_file, write_new_file
    from core.writing.demo import default_data_dir, demo_copy, in_demo_copy, reset_demo_copy, shipped_demo_dir
    from core.writing.edits import SetLabel, SetName, label_edit, name_edit
    from core.writing.trash import TrashResult, trash_sessions
    from core.writing.writer import append_label, append_session_name, clone_session, fork_session

# name(s) -> the module that defines them, imported on first use (see core.lazy)
__getattr__, __dir__, __all__ = lazy_exports(
    __name__,
    {
        "core.writing.atomic": "remove_stale_temporaries write_file write_new_file",
        "core.writing.demo": "default_data_dir demo_copy in_demo_copy reset_demo_copy shipped_demo_dir",
        "core.writing.edits": "label_edit name_edit SetLabel SetName",
        "core.writing.trash": "trash_sessions TrashResult",
        "core.writing.writer": "append_label append_session_name clone_session fork_session",
    },
)
