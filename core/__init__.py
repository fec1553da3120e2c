"""Prime Sessions core: read, understand and safely write Prime Agent session files.

This package is pure Python and never imports Qt (an import-linter contract enforces it).
The public API is re-exported here lazily, so ``import core.cli`` stays fast for the command line.
"""

from __future__ import annotations

import importlib

_EXPORTS = {
    "DEFAULT_LEAF": "core.context",
    "build_context": "core.context",
    "Diagnostic": "core.diagnostics",
    "Severity": "core.diagnostics",
    "default_roots": "core.discovery",
    "find_session_files": "core.discovery",
    "PrimeSessionsError": "core.errors",
    "SessionChangedError": "core.errors",
    "SessionReadError": "core.errors",
    "SessionWriteError": "core.errors",
    "Entry": "core.entry",
    "RefreshResult": "core.session",
    "Session": "core.session",
    "load_session": "core.session",
    "SessionSummary": "core.summary",
    "summarize": "core.summary",
    "SessionTree": "core.tree",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> object:
    """Import the submodule that defines ``name`` on first use."""
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'core' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return __all__
