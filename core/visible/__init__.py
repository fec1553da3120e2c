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
    from core.visible.changes import AppendResult as AppendResult
    from core.visible.changes import RelayoutReason as RelayoutReason
    from core.visible.changes import RowAppended as RowAppended
    from core.visible.changes import RowVacated as RowVacated
    from core.visible.changes import Step as Step
    from core.visible.filters import DEFAULT_HIDDEN as DEFAULT_HIDDEN
    from core.visible.filters import FILTER_MODES as FILTER_MODES
    from core.visible.filters import check_mode as check_mode
    from core.visible.filters import passes as passes
    from core.visible.layout import VisibleTree as VisibleTree
    from core.visible.structure import TreeStructure as TreeStructure
    from core.visible.structure import prepare as prepare
    from core.visible.structure import read_previews as read_previews

__getattr__, __dir__, __all__ = lazy_exports(
    __name__,
    {
        "AppendResult": "core.visible.changes",
        "RelayoutReason": "core.visible.changes",
        "RowAppended": "core.visible.changes",
        "RowVacated": "core.visible.changes",
        "Step": "core.visible.changes",
        "DEFAULT_HIDDEN": "core.visible.filters",
        "FILTER_MODES": "core.visible.filters",
        "check_mode": "core.visible.filters",
        "passes": "core.visible.filters",
        "VisibleTree": "core.visible.layout",
        "TreeStructure": "core.visible.structure",
        "prepare": "core.visible.structure",
        "read_previews": "core.visible.structure",
    },
)
