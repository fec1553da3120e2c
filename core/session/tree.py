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
            elif parent == entry.id or parent not in by_id:
                self._broken_root(entry)
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
        self._cut = False  # a loop was cut: its entry is listed after every root (see grew)
        self._order: list[str] | None = self._walk(self.roots)
        if len(self._order) < len(nodes):
            self._break_cycles(nodes, by_id)
        # The parents orphans name: an entry appended with one of these ids adopts them (see grew).
        self._awaited = {
            root.parent_id
            for root in self.roots
            if root.parent_id is not None and root.parent_id != root.id and root.parent_id not in by_id
        }

    def grew(self, added: list[Entry], by_id: dict[str, Entry], known: int) -> bool:
        """Take entries appended to the session into this tree in place; False when only a rebuild is right.

        ``added`` are the new entries in file order, ``by_id`` the lookup with them, ``known`` how many
        distinct ids it held before. A rebuild walks every entry (0.8 s at 520,000, after every line a live
        session gets); taking the new ones in is a few dict operations each. It is done when no appended id
        repeats one, none is a parent an orphan awaited, every parent came before its child, and no loop was
        cut before: otherwise entries would move, which only a rebuild places as the reference does.
        """
        if self._cut or len(by_id) - known != len(added):
            return False
        batch = {entry.id for entry in added}
        earlier: set[str] = set()
        for entry in added:
            parent = entry.parent_id
            if entry.id in self._awaited or (
                parent in batch and parent != entry.id and parent not in earlier
            ):
                return False  # it adopts an orphan, or names a parent that comes after it
            earlier.add(entry.id)
        children = self.children
        for entry in added:
            parent = entry.parent_id
            if parent is None or parent == entry.id or parent not in by_id:
                if parent is None:
                    self.roots.append(entry)
                else:
                    self._broken_root(entry)
                    if parent != entry.id:
                        self._awaited.add(parent)
                self.root_ids.add(entry.id)
                continue
            siblings = children.get(parent)
            if siblings is None:
                children[parent] = [entry]
                continue
            key = _sort_key(entry)
            at = len(siblings)
            while at and _sort_key(siblings[at - 1]) > key:  # stable: after every sibling as old or older
                at -= 1
            siblings.insert(at, entry)
        self._order = None  # walked again when asked
        return True

    def _broken_root(self, entry: Entry) -> None:
        """Make a root of an entry whose parent link is broken: its own parent, or one that does not exist."""
        self.roots.append(entry)
        if entry.parent_id == entry.id:
            self._diag(entry, "self-parent", "The entry is its own parent; it is shown as a root.")
        else:
            self._diag(
                entry, "orphan", f"Parent {entry.parent_id} does not exist; the entry is shown as a root."
            )

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
        seen = set(self.order)
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
            self._cut = True
            walked = self._walk([breaker])
            seen.update(walked)
            self.order.extend(walked)

    @property
    def order(self) -> list[str]:
        """Entry ids in pre-order: roots in file order, children by timestamp (the reference's order)."""
        if self._order is None:
            self._order = self._walk(self.roots)  # no loop was cut (grew): the roots are in file order
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
