"""What a session's branch tree shows: filter modes, the visible structure, its rows, and appends.

``filters`` (the filter modes), ``structure`` (the snapshot a loader builds in its worker, with the
previews of the rows shown first), ``layout`` (the live rows per holder, groups, path and leaf, and what
an append changes) and ``changes`` (the records an append returns). Pure Python: ``gui.models`` maps it
onto a Qt model.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from core.lazy import lazy_exports

if TYPE_CHECKING:
    from core.visible.changes import AppendResult, RelayoutReason, RowAppended, RowVacated, Step
    from core.visible.filters import DEFAULT_HIDDEN, FILTER_LABELS, FILTER_MODES, check_mode, passes
    from core.visible.layout import VisibleTree
    from core.visible.navigation import conversation, next_user_message, sibling_branch
    from core.visible.structure import TreeStructure, prepare, read_previews
    from core.visible.transcript import Switch, Transcript, branch_previews, switched_leaf, transcript_of

# name(s) -> the module that defines them, imported on first use (see core.lazy)
__getattr__, __dir__, __all__ = lazy_exports(
    __name__,
    {
        "core.visible.changes": "AppendResult RelayoutReason RowAppended RowVacated Step",
        "core.visible.filters": "check_mode DEFAULT_HIDDEN FILTER_LABELS FILTER_MODES passes",
        "core.visible.layout": "VisibleTree",
        "core.visible.navigation": "conversation next_user_message sibling_branch",
        "core.visible.structure": "prepare read_previews TreeStructure",
        "core.visible.transcript": "branch_previews Switch switched_leaf Transcript transcript_of",
    },
)
