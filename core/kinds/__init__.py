"""The registry of entry kinds: what each kind of entry is, says, shows and costs, in one place.

Each kind of entry (a user message, a compaction, a label, a context edit...) is one module here. A
kind declares the type names and message roles it stands for (with their variant spellings), its
one-line preview, the words the catalogue indexes, its record in a branch diff, where it records usage,
which filter modes show it, and its content as a list of blocks (:mod:`core.kinds.document`), which the
message view, the HTML export and the Markdown export each render. :func:`kind_of` finds an entry's
kind; an entry of a type nobody declared gets the generic kind. ``pairing`` finds which tool result
answers which call.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from core.lazy import lazy_exports

if TYPE_CHECKING:
    from core.kinds.cards import card, window_cards
    from core.kinds.derived import DiffMessage, SearchWords
    from core.kinds.kind import Kind
    from core.kinds.notes import EntryNotes, SessionNotes, context_edit_marks, edits_in_force, session_notes
    from core.kinds.pairing import (
        answered_before,
        call_ids,
        edits_as_diff,
        paired,
        result_call_id,
        results_in_window,
        tool_results_for,
    )
    from core.kinds.registry import KINDS, entry_preview, hidden_types, kind_for, kind_of, usage_source

# name(s) -> the module that defines them, imported on first use (see core.lazy)
__getattr__, __dir__, __all__ = lazy_exports(
    __name__,
    {
        "core.kinds.cards": "card window_cards",
        "core.kinds.derived": "DiffMessage SearchWords",
        "core.kinds.kind": "Kind",
        "core.kinds.notes": "context_edit_marks edits_in_force EntryNotes session_notes SessionNotes",
        "core.kinds.registry": "entry_preview hidden_types kind_for kind_of KINDS usage_source",
        "core.kinds.pairing": (
            "answered_before call_ids edits_as_diff paired result_call_id results_in_window tool_results_for"
        ),
    },
)
