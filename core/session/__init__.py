"""One session file: read leniently into an index by byte offset, its tree, what the model saw, its summary.

``session`` (the :class:`Session` object: lookups, bodies, incremental refresh), ``reader`` (lines into
the index, in-memory migration of legacy versions), ``entry`` (the per-entry record and its typed
``info``), ``tree`` (parents, children, roots), ``context`` (the reference's ``buildSessionContext``),
``summary``, ``usage`` (token and cost totals), ``diagnostics``, ``jsonl`` (one line to an object) and
``discovery`` (where session files are).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from core.lazy import lazy_exports

if TYPE_CHECKING:
    from core.session.context import DEFAULT_LEAF, build_context, iter_context
    from core.session.diagnostics import Diagnostic, Severity
    from core.session.discovery import default_roots, find_session_files
    from core.session.entry import AssistantInfo, CompactionInfo, Entry, EntryInfo, LabelInfo
    from core.session.session import RefreshResult, Session, load_session
    from core.session.summary import SessionSummary, summarize
    from core.session.tree import SessionTree

__getattr__, __dir__, __all__ = lazy_exports(
    __name__,
    {
        "DEFAULT_LEAF": "core.session.context",
        "build_context": "core.session.context",
        "iter_context": "core.session.context",
        "Diagnostic": "core.session.diagnostics",
        "Severity": "core.session.diagnostics",
        "default_roots": "core.session.discovery",
        "find_session_files": "core.session.discovery",
        "AssistantInfo": "core.session.entry",
        "CompactionInfo": "core.session.entry",
        "Entry": "core.session.entry",
        "EntryInfo": "core.session.entry",
        "LabelInfo": "core.session.entry",
        "RefreshResult": "core.session.session",
        "Session": "core.session.session",
        "load_session": "core.session.session",
        "SessionSummary": "core.session.summary",
        "summarize": "core.session.summary",
        "SessionTree": "core.session.tree",
    },
)
