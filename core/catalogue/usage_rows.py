"""The catalogue's usage records: counted once across forks and clones, for reports over every session.

(A first version: the records are read from the session files on each call. The ``usage`` table that
holds them incrementally replaces this.)
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from typing import TYPE_CHECKING

from core.catalogue.update import roots_reach, within
from core.errors import SessionReadError
from core.session.lineage import parent_paths
from core.session.session import load_session
from core.usage.lineage import deduplicate
from core.usage.records import UsageRecord, iter_usage
from core.usage.report import UsageFilter, UsageReport, report

if TYPE_CHECKING:
    from core.catalogue.catalogue import Catalogue


def usage_records(
    catalogue: Catalogue, roots: Iterable[str | os.PathLike[str]] | None = None
) -> list[UsageRecord]:
    """Every usage record of the catalogued sessions (under ``roots`` if given), forks' copies dropped.

    Copies are found among all catalogued sessions, so a fork under ``roots`` whose parent lies
    elsewhere still leaves its parent's entries to the parent.
    """
    summaries = catalogue.summaries()
    records: list[UsageRecord] = []
    for summary in summaries:
        try:
            records.extend(iter_usage(load_session(summary.path, checksum=False)))
        except SessionReadError:
            continue  # gone or unreadable since the last refresh: the next refresh drops it
    kept = deduplicate(records, parent_paths(summaries))
    if roots is not None:
        reach = roots_reach(roots)
        kept = [r for r in kept if within(r.path, reach)]
    return kept


def usage_report(
    catalogue: Catalogue,
    kind: str,
    filt: UsageFilter,
    breakdown: bool = False,
    roots: Iterable[str | os.PathLike[str]] | None = None,
) -> UsageReport:
    """A usage report over the catalogued sessions (see :func:`core.usage.report`)."""
    titles = {s.path: s.title for s in catalogue.summaries(roots)}
    return report(usage_records(catalogue, roots), kind, filt, breakdown, titles)
