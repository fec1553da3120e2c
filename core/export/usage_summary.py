"""The usage summary of an export: what the exported entries cost, by model, by place and by branch.

Rows for the page's metadata table, counted by the rules of :mod:`core.usage` (the five places, an
attributed aggregate in place of its target's usage) over the exported scope only: the path exported,
or every branch of a whole-tree export, which is then split between the current path and the others.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from core.formatting import short_cost, whole_tokens
from core.kinds.registry import kind_of
from core.usage.records import EntryUsage, UsageCollector, iter_usage

if TYPE_CHECKING:
    from core.export.redact import Redactor
    from core.session.entry import Entry
    from core.session.session import Session

_PLACES = {
    "assistant": "replies",
    "tool_result": "tool results",
    "usage": "usage records",
    "compaction": "compactions",
    "branch_summary": "branch summaries",
}


def collector_for(session: Session) -> UsageCollector | None:
    """A collector for the export to feed with the bodies it renders, or None where that would differ.

    :func:`~core.usage.records.iter_usage` reads the lines back as written; the export's bodies are
    those lines after the in-memory migration, which is the same object in a version 3 file whose
    entries all have their ids and no ``child_usage_attributed`` entry (the migration then changes
    nothing, and no entry's usage depends on another's). Only then is the one parse shared; reading
    the lines back was a fifth of the 20,000-message HTML export.
    """
    if session.version < 3 or session.usage_overrides:
        return None
    for entry in session.entries:
        if entry.synthetic or kind_of(entry).attributes_usage:
            return None
    return UsageCollector()


def wants_usage(entry: Entry) -> bool:
    """Whether a collector must see ``entry``'s body (the entries ``entry_usages`` reads)."""
    return kind_of(entry).has_usage


def usage_rows(
    session: Session,
    entries: Sequence[Entry],
    redactor: Redactor | None,
    whole_tree: bool,
    collected: list[EntryUsage] | None = None,
) -> list[tuple[str, str]]:
    """``(label, value)`` rows summarising the usage of ``entries`` (none when they record none).

    Args:
        session: the session exported.
        entries: the entries exported.
        redactor: applied to model names (they come from the session); None for none.
        whole_tree: the export holds every branch: add the split between current path and the rest.
        collected: the rows of a :func:`collector_for` fed with every exported entry's body
            (``UsageCollector.finish()``); read from the file when None.
    """
    wanted = {e.id for e in entries}
    # (model, kind, total, cost, on the current path, child cost) of each record, in file order
    records: list[tuple[str, str, int | float, float, bool, float]]
    if collected is None:
        records = [
            (r.model, r.kind, r.total, r.cost, r.current, r.child_cost)
            for r in iter_usage(session)
            if r.entry_id in wanted
        ]
    else:
        on_path = {e.id for e in session.path_to(session.leaf_id)}
        records = [
            (r.model, r.kind, r.total, r.cost, r.entry_id in on_path, r.child_cost)
            for r in collected
            if r.entry_id in wanted
        ]
    if not records:
        return []
    by_model: dict[str, list[float]] = {}
    by_place: dict[str, list[float]] = {}
    for model, kind, total, cost, _current, _child in records:
        for table, key in ((by_model, model), (by_place, _PLACES.get(kind, kind))):
            sums = table.setdefault(key, [0, 0.0])
            sums[0] += total
            sums[1] += cost

    def listed(table: dict[str, list[float]]) -> str:
        ranked = sorted(table.items(), key=lambda item: (-item[1][1], item[0]))
        return " · ".join(f"{name} {short_cost(c)} ({whole_tokens(t)} tokens)" for name, (t, c) in ranked)

    models = listed(by_model)
    rows = [
        ("Cost by model", redactor.text(models) if redactor is not None else models),
        ("Cost by place", listed(by_place)),
    ]
    if whole_tree:
        current = sum(r[3] for r in records if r[4])
        rows.append(
            (
                "Current path / other branches",
                f"{short_cost(current)} / {short_cost(sum(r[3] for r in records) - current)}",
            )
        )
    child = sum(r[5] for r in records)
    if child:
        rows.append(("Child runs", f"{short_cost(child)} of it, attributed to the replies that started them"))
    return rows
