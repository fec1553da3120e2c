"""One session file: read leniently into an index by byte offset, its tree, what the model saw, its summary.

``session`` (the :class:`Session` object: lookups, bodies, incremental refresh, values derived from the
whole session), ``reader`` (the file's index and its bookkeeping) with its stages ``framing`` (bytes to
complete lines), ``decoding`` (a line to an object, or its diagnostic) and ``indexing`` (an object to an
entry record, each type's part by a table), ``migration`` (a body as its agent holds it: legacy versions,
child usage), ``files`` (opening a file for reading), ``entry`` (the per-entry record and its typed
``info``), ``vocabulary`` (the format's words, spelt once), ``content`` (an entry's body read leniently),
``flavour`` (which agent wrote a file, so whose rules read it), ``tree`` (parents, children, roots),
``context`` (each agent's ``buildSessionContext``, with provenance), ``summary`` (the list row's record),
``usage`` (one usage object in figures), ``diagnostics``, ``jsonl`` (one line to an object and back) and
``discovery`` (where session files are). What each kind of entry shows or counts is :mod:`core.kinds`'.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from core.lazy import lazy_exports

if TYPE_CHECKING:
    from core.session.context import (
        DEFAULT_LEAF,
        ContextItem,
        build_context,
        context_edits_in_force,
        iter_context,
        iter_context_items,
    )
    from core.session.diagnostics import Diagnostic, Severity
    from core.session.discovery import default_roots, find_session_files
    from core.session.entry import (
        AssistantInfo,
        CompactionInfo,
        ContextEditInfo,
        Entry,
        EntryInfo,
        LabelInfo,
        UsageInfo,
        body_usage,
    )
    from core.session.flavour import Flavour
    from core.session.session import RefreshResult, Session, load_session
    from core.session.summary import SessionSummary
    from core.session.tree import SessionTree

# name(s) -> the module that defines them, imported on first use (see core.lazy)
__getattr__, __dir__, __all__ = lazy_exports(
    __name__,
    {
        "core.session.context": (
            "build_context ContextItem context_edits_in_force DEFAULT_LEAF iter_context iter_context_items"
        ),
        "core.session.diagnostics": "Diagnostic Severity",
        "core.session.discovery": "default_roots find_session_files",
        "core.session.entry": (
            "AssistantInfo body_usage CompactionInfo ContextEditInfo Entry EntryInfo LabelInfo UsageInfo"
        ),
        "core.session.flavour": "Flavour",
        "core.session.session": "load_session RefreshResult Session",
        "core.session.summary": "SessionSummary",
        "core.session.tree": "SessionTree",
    },
)
