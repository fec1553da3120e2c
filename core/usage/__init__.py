"""Usage and cost: where the tokens and the money went, by day, model, project, session and branch.

``records`` (one :class:`UsageRecord` per entry recording usage, by the counting rules of
:mod:`core.session.usage`), ``lineage`` (forks and clones counted once), ``reports`` (rows in ccusage's
shapes, filters, the hour-by-weekday grid) and ``subtree`` (each subtree's cost, current path versus
abandoned branches).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from core.lazy import lazy_exports

if TYPE_CHECKING:
    from core.usage.lineage import deduplicate
    from core.usage.records import EntryUsage, UsageCollector, UsageRecord, iter_usage
    from core.usage.reports import KINDS, UsageFilter, UsageReport, UsageRow, hour_weekday_grid, report
    from core.usage.subtree import path_split, subtree_usage

# name(s) -> the module that defines them, imported on first use (see core.lazy)
__getattr__, __dir__, __all__ = lazy_exports(
    __name__,
    {
        "core.usage.lineage": "deduplicate",
        "core.usage.records": "EntryUsage UsageCollector UsageRecord iter_usage",
        "core.usage.reports": "KINDS UsageFilter UsageReport UsageRow hour_weekday_grid report",
        "core.usage.subtree": "path_split subtree_usage",
    },
)
