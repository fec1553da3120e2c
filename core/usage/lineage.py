"""Forks and clones counted once: their copied entries belong to the session that first had them.

A fork or clone copies its parent's entries with the same ids and timestamps, and its header's
``parentSession`` names the parent. ccusage counted such copies in every copy (about 36x on one day, its
issue #1634). Here a record whose ``(entry id, timestamp)`` also stands in the parent, or the parent's
parent and so on, is dropped from the copy. Sessions copied by hand, with no ``parentSession`` link, are
separate sessions and keep everything.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping

from core.usage.records import UsageRecord


def ancestors(path: str, parents: Mapping[str, str]) -> Iterator[str]:
    """The parent of ``path``, its parent and so on (a loop ends the walk)."""
    seen = {path}
    current = parents.get(path)
    while current is not None and current not in seen:
        seen.add(current)
        yield current
        current = parents.get(current)


def deduplicate(records: Iterable[UsageRecord], parents: Mapping[str, str]) -> list[UsageRecord]:
    """``records`` without the copies a fork or clone made of its ancestors' entries.

    Args:
        records: the records of any number of sessions.
        parents: session path -> its parent session's path (as :func:`core.session.lineage.parent_paths`
            resolves them); sessions without a known parent are not in it.

    Returns:
        The records kept, in the order given.
    """
    items = list(records)
    if not parents:
        return items
    keys: dict[str, set[tuple[str, float]]] = {}
    for r in items:
        keys.setdefault(r.path, set()).add((r.entry_id, r.timestamp))
    copied: dict[str, set[tuple[str, float]]] = {}
    for path in keys:
        inherited: set[tuple[str, float]] = set()
        for ancestor in ancestors(path, parents):
            inherited |= keys.get(ancestor, set())
        if inherited:
            copied[path] = inherited
    if not copied:
        return items
    return [r for r in items if (r.entry_id, r.timestamp) not in copied.get(r.path, ())]
