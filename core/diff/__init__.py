"""Comparing two branches of a session, or paths of two sessions, message by message.

``compare`` (the entry points), ``types`` (the records), ``messages`` (entries to diff records),
``align`` and ``patience`` (which messages pair up), ``tokens`` (word and line changes) and ``render``
(text, JSON and an HTML page).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from core.lazy import lazy_exports

if TYPE_CHECKING:
    from core.diff.compare import (
        change_starts,
        diff_paths,
        diff_sessions,
        find_parent_file,
        fold_runs,
        resolve_entry,
        resolve_parent_session,
    )
    from core.diff.render import cell_html, render_html, render_json, render_text, summary_lines
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
        "cell_html": "core.diff.render",
        "render_html": "core.diff.render",
        "render_json": "core.diff.render",
        "render_text": "core.diff.render",
        "summary_lines": "core.diff.render",
    },
)
