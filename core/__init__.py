"""Prime Sessions core: read, understand and safely write Prime Agent session files.

This package is pure Python and never imports Qt (an import-linter contract enforces it).
The public API is re-exported here.
"""

from core.context import DEFAULT_LEAF, build_context
from core.diagnostics import Diagnostic, Severity
from core.discovery import default_roots, find_session_files
from core.errors import PrimeSessionsError, SessionChangedError, SessionReadError, SessionWriteError
from core.session import Entry, RefreshResult, Session, load_session
from core.summary import SessionSummary, summarize
from core.tree import SessionTree

__all__ = [
    "DEFAULT_LEAF",
    "Diagnostic",
    "Entry",
    "PrimeSessionsError",
    "RefreshResult",
    "Session",
    "SessionChangedError",
    "SessionReadError",
    "SessionSummary",
    "SessionTree",
    "SessionWriteError",
    "Severity",
    "build_context",
    "default_roots",
    "find_session_files",
    "load_session",
    "summarize",
]
