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
        diff_paths,
        diff_sessions,
        find_parent_file,
        resolve_entry,
        resolve_parent_session,
    )
    from core.diff.json_doc import render_json
    from core.diff.page import render_html
    from core.diff.rows import change_starts, fold_runs
    from core.diff.summary import summary_lines
    from core.diff.text import render_text
    from core.diff.types import CHANGED, DELETED, INSERTED, SAME, BranchDiff, DiffMessage, DiffRow, Op

# name(s) -> the module that defines them, imported on first use (see core.lazy)
__getattr__, __dir__, __all__ = lazy_exports(
    __name__,
    {
        "core.diff.cells": "cell_html",
        "core.diff.compare": "diff_paths diff_sessions find_parent_file resolve_entry resolve_parent_session",
        "core.diff.json_doc": "render_json",
        "core.diff.page": "render_html",
        "core.diff.rows": "change_starts fold_runs",
        "core.diff.summary": "summary_lines",
        "core.diff.text": "render_text",
        "core.diff.types": "BranchDiff CHANGED DELETED DiffMessage DiffRow INSERTED Op SAME",
    },
)
