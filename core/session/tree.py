"""The entry tree: roots, children in the reference's order, pre-order walk, and broken links.

Everything here is iterative: sessions can be 100,000 entries deep.
"""

from __future__ import annotations

import math
from collections.abc import Iterator

from core.session.diagnostics import Diagnostic
from core.session.entry import Entry


def _sort_key(entry: Entry) -> float:
    # The reference sorts children by Date.parse(timestamp), stable; unparsable times go last here.
    return entry.ts_ms if entry.ts_ms is not None else math.inf


def _parent(entry: Entry, by_id: dict[str, Entry]) -> Entry:
    """The parent of an entry that no walk from a root reached: such an entry always has one in ``by_id``."""
    parent_id = entry.parent_id
    assert parent_id is not None, entry  # an entry without a parent is a root, and every root is walked
    return by_id[parent_id]


class SessionTree:
    """Parent/child structure over a session's entries.

    A node is a root when its ``parentId`` is null, equals its own id (self-parent), or names no
    entry (orphan), exactly as the reference's ``getTree``. Parent links that loop (which hang the
    reference) are broken at the loop's first entry in file order, which becomes a root. For
    duplicate ids the later entry is the node, as in the reference's lookups.

    Attributes:
        roots: root entries in file order.
        children: entry id -> child entries, sorted by timestamp (stable, so ties keep file order).
        root_ids: the ids of ``roots``.
        diagnostics: orphans, self-parents and cycles, with line numbers.
    """

    def __init__(self, entries: list[Entry], by_id: dict[str, Entry]) -> None:
        self.roots: list[Entry] = []
        self.children: dict[str, list[Entry]] = {}
        self.diagnostics: list[Diagnostic] = []
        # With no repeated id every entry is a node: no pass over 520,000 entries to find that out.
        nodes = entries if len(by_id) == len(entries) else [e for e in entries if by_id.get(e.id) is e]
        children = self.children
        for entry in nodes:
            parent = entry.parent_id
            if parent is None:
                self.roots.append(entry)
            elif parent == entry.id:
                self.roots.append(entry)
                self._diag(entry, "self-parent", "The entry is its own parent; it is shown as a root.")
            elif parent not in by_id:
                self.roots.append(entry)
                self._diag(entry, "orphan", f"Parent {parent} does not exist; the entry is shown as a root.")
            else:
                siblings = children.get(parent)
                if siblings is None:
                    children[parent] = [entry]
                else:
                    siblings.append(entry)
        for siblings in children.values():
            if len(siblings) > 1:
                siblings.sort(key=_sort_key)
        self.root_ids = {e.id for e in self.roots}
        self._order = self._walk(self.roots)
        if len(self._order) < len(nodes):
            self._break_cycles(nodes, by_id)

    def _diag(self, entry: Entry, kind: str, message: str) -> None:
        self.diagnostics.append(Diagnostic(entry.line, kind, message, entry.id))

    def _walk(self, starts: list[Entry]) -> list[str]:
        # Every node sits in exactly one place (the roots or one parent's children), and a loop is
        # never reachable from a root or from the entry where it was cut, so no visited set is needed.
        order: list[str] = []
        append = order.append
        stack = starts[::-1]
        pop, extend = stack.pop, stack.extend
        get = self.children.get
        while stack:
            entry_id = pop().id
            append(entry_id)
            kids = get(entry_id)
            if kids:
                extend(kids[::-1])
        return order

    def _break_cycles(self, nodes: list[Entry], by_id: dict[str, Entry]) -> None:
        seen = set(self._order)
        for entry in nodes:
            if entry.id in seen:
                continue
            # Climb until an entry repeats: everything from that entry up is the loop.
            trail: dict[str, Entry] = {}
            current = entry
            while current.id not in trail and current.id not in seen:
                trail[current.id] = current
                current = _parent(current, by_id)
            if current.id in seen:
                continue  # hangs below an entry reached meanwhile; cannot happen, kept for safety
            loop = []
            walker = current
            while True:
                loop.append(walker)
                walker = _parent(walker, by_id)
                if walker is current:
                    break
            breaker = min(loop, key=lambda e: e.line)
            siblings = self.children.get(_parent(breaker, by_id).id, [])
            if breaker in siblings:
                siblings.remove(breaker)
            lines = ", ".join(str(e.line) for e in sorted(loop, key=lambda e: e.line))
            self._diag(
                breaker,
                "cycle",
                f"Parent links loop (lines {lines}); the loop is cut here and this entry is shown as a root.",
            )
            self.roots.append(breaker)
            self.root_ids.add(breaker.id)
            walked = self._walk([breaker])
            seen.update(walked)
            self._order.extend(walked)

    @property
    def order(self) -> list[str]:
        """Entry ids in pre-order: roots in file order, children by timestamp (the reference's order)."""
        return self._order

    def children_of(self, entry_id: str) -> list[Entry]:
        """Children of one entry, in display order."""
        return self.children.get(entry_id, [])

    def walk(self) -> Iterator[tuple[Entry, int]]:
        """Pre-order ``(entry, depth)`` pairs, where depth counts branch points, not generations.

        A chain without siblings stays at one depth, as in the reference's tree views, so a
        100,000-entry conversation does not indent off the screen.
        """
        stack: list[tuple[Entry, int]] = [(e, 0 if len(self.roots) == 1 else 1) for e in reversed(self.roots)]
        children = self.children
        while stack:
            entry, depth = stack.pop()
            yield entry, depth
            kids = children.get(entry.id)
            if kids:
                child_depth = depth + 1 if len(kids) > 1 else depth
                stack.extend((kid, child_depth) for kid in reversed(kids))
