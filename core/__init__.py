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
    from core.catalogue.summary import summarize
    from core.errors import PrimeSessionsError, SessionChangedError, SessionReadError, SessionWriteError
    from core.session.context import DEFAULT_LEAF, build_context
    from core.session.diagnostics import Diagnostic, Severity
    from core.session.discovery import default_roots, find_session_files
    from core.session.entry import Entry
    from core.session.session import RefreshResult, Session, load_session
    from core.session.summary import SessionSummary
    from core.session.tree import SessionTree

# name(s) -> the module that defines them, imported on first use (see core.lazy)
__getattr__, __dir__, __all__ = lazy_exports(
    __name__,
    {
        "core.errors": "PrimeSessionsError SessionChangedError SessionReadError SessionWriteError",
        "core.session.context": "build_context DEFAULT_LEAF",
        "core.session.diagnostics": "Diagnostic Severity",
        "core.session.discovery": "default_roots find_session_files",
        "core.session.entry": "Entry",
        "core.session.session": "load_session RefreshResult Session",
        "core.catalogue.summary": "summarize",
        "core.session.summary": "SessionSummary",
        "core.session.tree": "SessionTree",
    },
)
