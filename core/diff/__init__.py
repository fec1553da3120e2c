"""Comparing two branches of a session, or paths of two sessions, message by message.

``compare`` (the entry points), ``types`` (the records), ``messages`` (entries to diff records),
``align`` and ``patience`` (which messages pair up), ``tokens`` (word and line changes), ``summary``
(what each side did), and the outputs: ``text`` (the terminal), ``json_doc`` (JSON), ``page`` (a
self-contained HTML page) and ``cells`` (the app's table cells, Qt rich text).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from core.lazy import lazy_exports

if TYPE_CHECKING:
    from core.diff.cells import cell_html
    from core.diff.compare import (
        change_starts,
        diff_paths,
        diff_sessions,
        find_parent_file,
        fold_runs,
        resolve_entry,
        resolve_parent_session,
    )
    from core.diff.json_doc import render_json
    from core.diff.page import render_html
    from core.diff.summary import summary_lines
    from core.diff.text import render_text
    from core.diff.types import CHANGED, DELETED, INSERTED, SAME, BranchDiff, DiffMessage, DiffRow, Op

__getattr__, __dir__, __all__ = lazy_exports(
    __name__,
    {
        "change_starts": "core.diff.compare",
        "diff_paths": "core.diff.compare",
        "diff_sessions": "core.diff.compare",
        "find_parent_file": "core.diff.compare",
        "fold_runs": "core.diff.compare",
        "resolve_entry": "core.diff.compare",
        "resolve_parent_session": "core.diff.compare",
        "CHANGED": "core.diff.types",
        "DELETED": "core.diff.types",
        "INSERTED": "core.diff.types",
        "SAME": "core.diff.types",
        "BranchDiff": "core.diff.types",
        "DiffMessage": "core.diff.types",
        "DiffRow": "core.diff.types",
        "Op": "core.diff.types",
        "cell_html": "core.diff.cells",
        "render_html": "core.diff.page",
        "render_json": "core.diff.json_doc",
        "render_text": "core.diff.text",
        "summary_lines": "core.diff.summary",
    },
)
