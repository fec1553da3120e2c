"""Prime Sessions core: read, understand and safely write Prime Agent session files.

This package is pure Python and never imports Qt (an import-linter contract enforces it). Its
sub-packages are named after what they hold: ``session`` (reading a file into an indexed tree, context,
summaries, discovery), ``catalogue`` (the SQLite index of every session), ``render`` (the message view's
HTML and one-line previews), ``export`` (Markdown, HTML and PDF exports, redaction), ``diff`` (branch and
session comparison), ``writing`` (every write: appends, new files, the trash) and ``cli`` (the command
line). The most used names are re-exported here lazily, so ``import core`` stays cheap.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from core.lazy import lazy_exports

if TYPE_CHECKING:
    from core.errors import PrimeSessionsError, SessionChangedError, SessionReadError, SessionWriteError
    from core.session import (
        DEFAULT_LEAF,
        Diagnostic,
        Entry,
        RefreshResult,
        Session,
        SessionSummary,
        SessionTree,
        Severity,
        build_context,
        default_roots,
        find_session_files,
        load_session,
        summarize,
    )

__getattr__, __dir__, __all__ = lazy_exports(
    __name__,
    {
        "DEFAULT_LEAF": "core.session.context",
        "build_context": "core.session.context",
        "Diagnostic": "core.session.diagnostics",
        "Severity": "core.session.diagnostics",
        "default_roots": "core.session.discovery",
        "find_session_files": "core.session.discovery",
        "PrimeSessionsError": "core.errors",
        "SessionChangedError": "core.errors",
        "SessionReadError": "core.errors",
        "SessionWriteError": "core.errors",
        "Entry": "core.session.entry",
        "RefreshResult": "core.session.session",
        "Session": "core.session.session",
        "load_session": "core.session.session",
        "SessionSummary": "core.session.summary",
        "summarize": "core.session.summary",
        "SessionTree": "core.session.tree",
    },
)
