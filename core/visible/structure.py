"""The visible structure of one session state, built from scratch (in a loader's worker thread).

A :class:`TreeStructure` says which entries a filter mode shows and how they hang together: visible
children, nearest visible ancestors, chain heads and chains. :func:`prepare` builds one and reads the
previews of the rows shown first; :class:`core.visible.layout.VisibleTree` takes it over and keeps it up
to date as entries are appended. Everything is iterative: sessions can be 100,000 entries deep.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from core.visible.filters import HIDDEN_KINDS, passes

if TYPE_CHECKING:  # typing only: building a structure needs no reader module
    from core.session import Entry, Session


class TreeStructure:
    """Which entries a filter mode shows and how they hang together; a snapshot of one session state.

    Attributes:
        session: the session it was made for (None: an empty structure).
        mode: the filter mode (one of :data:`core.visible.filters.FILTER_MODES`).
        vkids: a visible entry (None: the top level) -> its visible children, in core's order.
        vparent: a visible entry -> its nearest visible ancestor (None at the top level).
        hidden: a hidden entry -> its nearest visible ancestor (every entry is in this or ``vparent``).
        heads: a chain member -> the head whose rows it is in.
        chains: a head with one visible child -> its chain (its rows), taken over by the layout.
        positions: a chain member -> its row among its head's rows.
        leaf: the session's leaf when this was made; always visible.
        path: the ids on the path from the root to ``leaf``.
        size: how many entries the session had.
        previews: entry id -> one-line preview, for the rows near the leaf (see :func:`prepare`).
        preview_width: the width ``previews`` were made for (0: none were read).
        awaited: the missing parents that orphans name: an entry appended with such an id adopts them.
        cycle_roots: whether core's tree cut a parent-link loop, making a root that it lists after every
            other root (so a new top-level entry does not simply go last).
        leaf_has_children: whether ``leaf`` has children (lines before it that name it as parent: a
            forward reference or a repeated id); hiding it then changes where they hang.

    A :class:`~core.visible.layout.VisibleTree` given this structure continues it in place: after that
    the snapshot no longer describes the session it was made for, and :meth:`matches` says so once the
    session has grown.
    """

    __slots__ = (
        "awaited",
        "chains",
        "cycle_roots",
        "heads",
        "hidden",
        "leaf",
        "leaf_has_children",
        "mode",
        "path",
        "positions",
        "preview_width",
        "previews",
        "session",
        "size",
        "vkids",
        "vparent",
    )

    def __init__(self, session: Session | None, mode: str) -> None:
        self.session = session
        self.mode = mode
        self.vkids: dict[str | None, list[Entry]] = {None: []}
        self.vparent: dict[str, str | None] = {}
        self.hidden: dict[str, str | None] = {}
        # What a consumer would otherwise climb and walk on the GUI thread the first time it shows a long
        # conversation.
        self.heads: dict[str, str] = {}
        self.chains: dict[str, list[Entry]] = {}
        self.previews: dict[str, str] = {}
        self.positions: dict[str, int] = {}
        self.preview_width = 0
        self.leaf = session.leaf_id if session is not None else None
        self.path: set[str] = {e.id for e in session.path_to(self.leaf)} if session is not None else set()
        self.size = len(session.entries) if session is not None else 0
        self.awaited: set[str] = set()
        self.cycle_roots = False
        self.leaf_has_children = False
        if session is not None:
            self._find_visible(session)
            self._find_chains()

    def _find_visible(self, session: Session) -> None:
        """Fill ``vkids``, ``vparent`` and ``hidden`` with one pre-order walk of core's tree.

        And ``awaited`` and ``cycle_roots`` from its roots: a root with a parent id is an orphan, a
        self-parent, or the entry where core's tree cut a loop.
        """
        tree = session.tree
        leaf, mode = self.leaf, self.mode
        vkids, vparent, hidden = self.vkids, self.vparent, self.hidden
        children = tree.children
        by_id = session.by_id
        self.leaf_has_children = leaf is not None and bool(children.get(leaf))
        for root in tree.roots:
            parent = root.parent_id
            if parent is None or parent == root.id:
                continue
            if parent in by_id:
                self.cycle_roots = True  # a root whose parent exists: where core's tree cut a loop
            else:
                self.awaited.add(parent)
        # passes() for the two modes that need only the entry's kind, as a set lookup: this loop runs once
        # per entry (520,000 times for a 1 GB session), and a call per entry was a fifth of it.
        hidden_kinds = HIDDEN_KINDS.get(mode)
        stack: list[tuple[Entry, str | None]] = [(root, None) for root in reversed(tree.roots)]
        pop, push, extend = stack.pop, stack.append, stack.extend
        while stack:
            entry, anchor = pop()
            eid = entry.id
            if hidden_kinds is not None:
                shown = entry.kind not in hidden_kinds or eid == leaf
            else:
                shown = eid == leaf or passes(entry, mode, session)
            if shown:
                vparent[eid] = anchor
                siblings = vkids.get(anchor)
                if siblings is None:
                    vkids[anchor] = [entry]
                else:
                    siblings.append(entry)
                anchor = eid
            else:
                hidden[eid] = anchor
            kids = children.get(eid)
            if kids:
                if len(kids) == 1:  # most entries: no generator for one child
                    push((kids[0], anchor))
                else:
                    extend((kid, anchor) for kid in reversed(kids))

    def _find_chains(self) -> None:
        """Fill ``heads``, ``chains`` and ``positions`` from ``vkids``."""
        vkids, heads, chains, positions = self.vkids, self.heads, self.chains, self.positions
        get = vkids.get
        # A head is a top-level entry or a child of a branch point; its chain runs down while each
        # entry has exactly one visible child. Walk each chain in a loop of its own: nearly every entry
        # of a long conversation is a chain member, and this is one dict lookup and two stores each.
        stack: list[Entry] = list(reversed(vkids[None]))
        pop, extend = stack.pop, stack.extend
        while stack:
            head = pop().id
            kids = get(head)
            if not kids:
                continue
            if len(kids) == 1:
                chain: list[Entry] = []
                chains[head] = chain
                while kids and len(kids) == 1:
                    only = kids[0]
                    member = only.id
                    heads[member] = head
                    positions[member] = len(chain)
                    chain.append(only)
                    kids = get(member)
                if not kids:
                    continue
            extend(reversed(kids))  # a branch point's children are heads

    def matches(self, session: Session | None, mode: str) -> bool:
        """Whether this was made for ``session`` as it is now (same entries and leaf) and ``mode``."""
        if session is None or session is not self.session or mode != self.mode:
            return False
        return self.size == len(session.entries) and self.leaf == session.leaf_id


def prepare(
    session: Session, mode: str = "default", *, preview_width: int = 100, preview_rows: int = 400
) -> TreeStructure:
    """The visible structure of ``session`` in filter ``mode``, with the previews of the rows shown first.

    Pure Python, so a loader can compute it in its worker thread (~60 ms for 20,000 entries) while nothing
    refreshes the session. The previews of the last ``preview_rows`` visible entries on the path to the
    leaf are read too: those are the rows shown first, when a view selects the leaf.
    """
    structure = TreeStructure(session, mode)
    near_leaf = [e for e in _up_from(session, structure.leaf, preview_rows) if e.id in structure.vparent]
    read_previews(session, near_leaf, preview_width, structure.previews)
    structure.preview_width = preview_width
    return structure


def _up_from(session: Session, entry_id: str | None, count: int) -> list[Entry]:
    """The last ``count`` entries of the path to ``entry_id``, top first, climbed in ``count`` steps.

    :meth:`Session.path_to` would walk the whole path (520,000 entries in a 1 GB session) to keep its end.
    """
    roots = session.tree.root_ids
    by_id = session.by_id
    climbed: list[Entry] = []
    entry = session.get(entry_id)
    while entry is not None and len(climbed) < count:
        climbed.append(entry)
        if entry.id in roots or entry.parent_id is None:
            break  # a root (an orphan's or a cut loop's parent may still exist: never climb past it)
        entry = by_id.get(entry.parent_id)
    climbed.reverse()
    return climbed


def read_previews(session: Session, entries: list[Entry], width: int, previews: dict[str, str]) -> None:
    """Read the bodies of ``entries`` missing from ``previews`` (one open file) and add their previews.

    An entry whose body cannot be read (the file changed underneath) gets ``[its type]``, until the
    session is reloaded.
    """
    from core.errors import SessionReadError
    from core.kinds import entry_preview

    missing = [e for e in entries if e.id not in previews]
    if not missing:
        return
    try:
        for entry, body in zip(missing, session.bodies(missing), strict=False):
            previews[entry.id] = entry_preview(entry, body, width)
    except (SessionReadError, OSError):
        pass
    for entry in missing:
        previews.setdefault(entry.id, f"[{entry.type or 'entry'}]")
