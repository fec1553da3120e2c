"""The branch tree model's rows: one node per visible entry or group of rows, owned by the model.

Kept apart from the model so its lifetime rules are in one place: ``createIndex`` stores a bare pointer to a
node, and a dropped tree must neither crash a view that still holds an index on it nor linger in the
garbage collector's frozen generation.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from core.session import Entry

__all__ = ["Node", "release_nodes"]


class Node:
    """One visible entry as a row, or a group of rows. Owned by the model (``_root`` down, ``_nodes`` by id).

    A *group* node (``entry`` None, ``start`` >= 0) stands for ``group_size`` consecutive rows of a holder
    whose rows are too many to show flat: ``holder.rows[start : start + group_size]``.

    ``createIndex`` stores a bare pointer to the node without a reference, so the model must keep every node
    alive for as long as an index to it can exist: nodes are dropped only inside a reset, or after a layout
    change has moved every persistent index to the new nodes.
    """

    __slots__ = ("children", "count", "entry", "grouped", "parent", "row", "rows", "start")

    def __init__(self, entry: Entry | None, parent: Node | None, row: int, start: int = -1) -> None:
        self.entry = entry  # None for the invisible root and for groups
        self.parent = parent
        self.row = row  # the row in ``parent``, fixed at creation: rows are only ever appended
        self.children: list[Node] | None = None  # the fetched prefix of the display rows; None until fetched
        self.rows: list[Entry] | None = None  # core's rows of this holder (VisibleTree.rows); on first need
        # How many of ``rows`` views know of. Core extends ``rows`` during an append, before this model maps
        # the steps; a row joins the model only inside its beginInsertRows/endInsertRows, so that a view
        # asking canFetchMore meanwhile never fetches it a second time.
        self.count = 0
        self.grouped = False  # the display rows are groups of ``rows`` (core's decision, when rows are made)
        self.start = start  # a group's first position in its holder's ``rows``; -1 for other nodes


def release_nodes(root: Node) -> list[Node]:
    """Break the parent/children cycles of a dropped node tree; returns its nodes.

    The loader freezes live objects for the garbage collector (see gui.controllers.opened.load), so cycles in
    a dropped tree would stay until the next load; without them reference counting frees the nodes. The
    caller keeps the returned list until the next release: a view may still hold a plain index on an old
    node until its next layout, and an index does not keep its node alive.
    """
    nodes: list[Node] = []
    stack = [root]
    while stack:
        node = stack.pop()
        nodes.append(node)
        if node.children:
            stack.extend(node.children)
        node.children = None
        node.parent = None
    return nodes
