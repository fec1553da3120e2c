"""The usage summary of an export: what the exported entries cost, by model, by place and by branch.

Rows for the page's metadata table, counted by the rules of :mod:`core.usage` (the five places, an
attributed aggregate in place of its target's usage) over the exported scope only: the path exported,
or every branch of a whole-tree export, which is then split between the current path and the others.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from core.formatting import short_cost, whole_tokens
from core.usage.records import iter_usage

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


def usage_rows(
    session: Session, entries: Sequence[Entry], redactor: Redactor | None, whole_tree: bool
) -> list[tuple[str, str]]:
    """``(label, value)`` rows summarising the usage of ``entries`` (none when they record none).

    Args:
        session: the session exported.
        entries: the entries exported.
        redactor: applied to model names (they come from the session); None for none.
        whole_tree: the export holds every branch: add the split between current path and the rest.
    """
    wanted = {e.id for e in entries}
    records = [r for r in iter_usage(session) if r.entry_id in wanted]
    if not records:
        return []
    by_model: dict[str, list[float]] = {}
    by_place: dict[str, list[float]] = {}
    for r in records:
        for table, key in ((by_model, r.model), (by_place, _PLACES.get(r.kind, r.kind))):
            sums = table.setdefault(key, [0, 0.0])
            sums[0] += r.total
            sums[1] += r.cost

    def listed(table: dict[str, list[float]]) -> str:
        ranked = sorted(table.items(), key=lambda item: (-item[1][1], item[0]))
        return " · ".join(f"{name} {short_cost(c)} ({whole_tokens(t)} tokens)" for name, (t, c) in ranked)

    models = listed(by_model)
    rows = [
        ("Cost by model", redactor.text(models) if redactor is not None else models),
        ("Cost by place", listed(by_place)),
    ]
    if whole_tree:
        current = sum(r.cost for r in records if r.current)
        rows.append(
            (
                "Current path / other branches",
                f"{short_cost(current)} / {short_cost(sum(r.cost for r in records) - current)}",
            )
        )
    child = sum(r.child_cost for r in records)
    if child:
        rows.append(("Child runs", f"{short_cost(child)} of it, attributed to the replies that started them"))
    return rows
