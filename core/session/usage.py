"""Token and cost totals of assistant messages, with ``child_usage_attributed`` results applied."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from core.session.entry import AssistantInfo, Entry

if TYPE_CHECKING:
    from core.session.session import Session


def usage_totals(usage: object) -> tuple[int | float, float]:
    """``(tokens, cost)`` of one usage object: totalTokens (or the sum of its parts) and cost.total."""
    if not isinstance(usage, dict):
        return 0, 0.0
    tokens = usage.get("totalTokens")
    if isinstance(tokens, bool) or not isinstance(tokens, int | float):
        tokens = 0
        for key in ("input", "output", "cacheRead", "cacheWrite"):
            part = usage.get(key)
            if isinstance(part, int | float) and not isinstance(part, bool):
                tokens += part
    cost = usage.get("cost")
    total = cost.get("total") if isinstance(cost, dict) else None
    if isinstance(total, bool) or not isinstance(total, int | float):
        total = 0.0
    return tokens, float(total)


def entries_usage(session: Session, entries: Iterable[Entry]) -> tuple[int | float, float]:
    """``(tokens, cost)`` summed over the assistant messages among ``entries`` of ``session``.

    A ``child_usage_attributed`` aggregate recorded for a message replaces that message's own usage, as
    the reference does.
    """
    tokens: int | float = 0
    cost = 0.0
    overrides = session.usage_overrides
    for entry in entries:
        info = entry.info
        if isinstance(info, AssistantInfo):
            usage = overrides.get(entry.id)
            if usage is not None:
                entry_tokens, entry_cost = usage_totals(usage)
                tokens += entry_tokens
                cost += entry_cost
            else:
                tokens += info.tokens
                cost += info.cost
    return tokens, cost
