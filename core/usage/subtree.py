"""What each subtree of one session cost, and the split between the current path and abandoned branches."""

from __future__ import annotations

from typing import TYPE_CHECKING

from core.usage.records import iter_usage

if TYPE_CHECKING:
    from core.session.session import Session


def _own_usage(session: Session) -> dict[str, tuple[int, float]]:
    own: dict[str, tuple[int, float]] = {}
    for record in iter_usage(session):
        tokens, cost = own.get(record.entry_id, (0, 0.0))
        own[record.entry_id] = (tokens + record.total, cost + record.cost)
    return own


def subtree_usage(session: Session) -> dict[str, tuple[int, float]]:
    """Entry id -> ``(tokens, cost)`` of that entry and everything below it, on every branch.

    Iterative (sessions are 100,000 entries deep): the tree's pre-order, walked backwards, meets every
    child before its parent. Entries whose subtree records no usage are included with ``(0, 0.0)``.
    """
    own = _own_usage(session)
    tree = session.tree
    by_id = session.by_id
    totals: dict[str, tuple[int, float]] = {}
    for entry_id in reversed(tree.order):
        tokens, cost = own.get(entry_id, (0, 0.0))
        for child in tree.children_of(entry_id):
            child_tokens, child_cost = totals[child.id]
            tokens += child_tokens
            cost += child_cost
        totals[entry_id] = (tokens, cost)
    # Ids of duplicate lines that the tree does not hold (the later line wins) carry their own usage.
    for entry_id, value in own.items():
        if entry_id not in totals and entry_id not in by_id:
            totals[entry_id] = value
    return totals


def path_split(session: Session, leaf_id: str | None) -> tuple[tuple[int, float], tuple[int, float]]:
    """``((tokens, cost) on the path to leaf_id, (tokens, cost) everywhere else)`` of one session.

    Args:
        session: a loaded session.
        leaf_id: the leaf whose path is "current" (normally :attr:`Session.leaf_id`).
    """
    on_path = {e.id for e in session.path_to(leaf_id)}
    current_tokens = abandoned_tokens = 0
    current_cost = abandoned_cost = 0.0
    for record in iter_usage(session):
        if record.entry_id in on_path:
            current_tokens += record.total
            current_cost += record.cost
        else:
            abandoned_tokens += record.total
            abandoned_cost += record.cost
    return (current_tokens, current_cost), (abandoned_tokens, abandoned_cost)
