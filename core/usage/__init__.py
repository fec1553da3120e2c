"""Usage and cost: where the tokens and the money went, by day, model, project, session and branch.

``totals`` (tokens and cost over entries, for the list, headers, exports and diffs), ``records`` (one
:class:`UsageRecord` per entry recording usage, where its kind says it is),
``lineage`` (forks and clones counted once), ``reports`` (rows in ccusage's
shapes, filters, the hour-by-weekday grid), ``overview`` (every figure of a dashboard for one filter) and
``subtree`` (each subtree's cost, current path versus abandoned branches).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from core.lazy import lazy_exports

if TYPE_CHECKING:
    # "as" re-exports: mypy's implicit_reexport override (pyproject.toml) does not list this package.
    from core.usage.lineage import deduplicate as deduplicate
    from core.usage.overview import UsageOverview as UsageOverview
    from core.usage.overview import overview_of as overview_of
    from core.usage.records import EntryUsage as EntryUsage
    from core.usage.records import UsageCollector as UsageCollector
    from core.usage.records import UsageRecord as UsageRecord
    from core.usage.records import iter_usage as iter_usage
    from core.usage.reports import KINDS as KINDS
    from core.usage.reports import UsageFilter as UsageFilter
    from core.usage.reports import UsageReport as UsageReport
    from core.usage.reports import UsageRow as UsageRow
    from core.usage.reports import hour_weekday_grid as hour_weekday_grid
    from core.usage.reports import report as report
    from core.usage.subtree import path_split as path_split
    from core.usage.subtree import subtree_usage as subtree_usage
    from core.usage.totals import entries_usage as entries_usage

# name(s) -> the module that defines them, imported on first use (see core.lazy)
__getattr__, __dir__, __all__ = lazy_exports(
    __name__,
    {
        "core.usage.lineage": "deduplicate",
        "core.usage.overview": "UsageOverview overview_of",
        "core.usage.records": "EntryUsage UsageCollector UsageRecord iter_usage",
        "core.usage.reports": "KINDS UsageFilter UsageReport UsageRow hour_weekday_grid report",
        "core.usage.subtree": "path_split subtree_usage",
        "core.usage.totals": "entries_usage",
    },
)
