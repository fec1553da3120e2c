"""What each subtree of one session cost, and the split between the current path and abandoned branches.

Both are worked out from the figures the index keeps (:func:`core.usage.totals.entry_totals`), the same
as :func:`core.usage.iter_usage`'s records, so opening a session never reads its lines again for them.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from core.usage.totals import entry_totals

if TYPE_CHECKING:
    from core.session.session import Session


def _figures(session: Session) -> Iterator[tuple[str, int, float]]:
    """``(entry id, tokens, cost)`` of each entry recording usage, in file order (tokens cut to integers)."""
    for entry, tokens, cost in entry_totals(session, session.entries):
        if tokens or cost:
            yield entry.id, tokens if type(tokens) is int else int(tokens), cost


def _own_usage(session: Session) -> dict[str, tuple[int, float]]:
    own: dict[str, tuple[int, float]] = {}
    for entry_id, tokens, cost in _figures(session):
        had_tokens, had_cost = own.get(entry_id, (0, 0.0))
        own[entry_id] = (had_tokens + tokens, had_cost + cost)
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
    for entry_id, tokens, cost in _figures(session):
        if entry_id in on_path:
            current_tokens += tokens
            current_cost += cost
        else:
            abandoned_tokens += tokens
            abandoned_cost += cost
    return (current_tokens, current_cost), (abandoned_tokens, abandoned_cost)
