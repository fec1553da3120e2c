"""What an append changed in the visible tree: plain records for a consumer (a Qt model) to map to its calls.

:meth:`core.visible.layout.VisibleTree.append` returns an :class:`AppendResult`. Its ``steps`` are the row
changes in the order they happened, each about a holder whose rows were made (see
:meth:`~core.visible.layout.VisibleTree.rows`); holders nobody asked rows of get them, up to date, when
first asked.
"""

from __future__ import annotations

from collections.abc import Sequence, Set
from typing import TYPE_CHECKING, Literal, NamedTuple

if TYPE_CHECKING:
    from core.session import Entry

# Why an append needs the whole structure computed again, rather than steps:
#   old leaf        the former leaf left the filter and its row cannot just go (a top-level row, a branch
#                   point's child, an entry with rows or with children from earlier lines, not its holder's
#                   last row, or grouped rows that would be few enough to show flat)
#   duplicate id    an appended entry repeats an id seen before (the later line wins)
#   broken link     an orphan, a self-parent or a forward reference, the missing parent of an orphan, or a
#                   new root in a session whose tree cut a parent-link loop: core's tree decides where it goes
#   label           a label entry in ``labeled`` mode (which entries pass changes)
#   hidden top      below a hidden top-level entry: its place among the top-level rows varies
#   branch point    a second child below an entry that had one: its chain moves one level down
#   sibling order   a child that sorts before its siblings (an earlier timestamp), or a new child of a branch
#                   point where it or the last visible child hangs below a hidden entry
#   groups          a holder's rows became too many to show flat: they are shown in groups now
RelayoutReason = Literal[
    "old leaf",
    "duplicate id",
    "broken link",
    "label",
    "hidden top",
    "branch point",
    "sibling order",
    "groups",
]


class RowAppended(NamedTuple):
    """An entry became the last row of a holder.

    Attributes:
        holder: the entry whose rows it joined (None: the top level).
        position: its index in the holder's rows.
        entry: the entry.
        group: the group it is in when the holder shows its rows in groups, else -1.
        row: its row in that group, or ``position`` when the rows are flat.
        takeover: it took over the row the former leaf vacated (see :class:`RowVacated`).
    """

    holder: str | None
    position: int
    entry: Entry
    group: int
    row: int
    takeover: bool


class RowVacated(NamedTuple):
    """The former leaf, no longer shown, left the last row of its holder.

    The entry appended next usually lands at that very row (a live tail alternating messages and hidden
    entries): it then takes the row over (:attr:`RowAppended.takeover`), so a view can change one row
    instead of removing and inserting one. A vacancy nobody took is :attr:`AppendResult.vacant`.

    Attributes:
        holder: the entry whose rows it left (never the top level).
        position: the index it had in the holder's rows.
        entry: the former leaf.
        group: the group it was in when the holder shows its rows in groups, else -1.
        row: its row in that group (0: the group is empty now), or ``position`` for flat rows.
    """

    holder: str
    position: int
    entry: Entry
    group: int
    row: int


Step = RowAppended | RowVacated


class AppendResult(NamedTuple):
    """What :meth:`~core.visible.layout.VisibleTree.append` changed.

    Attributes:
        steps: the row changes, in order.
        changed: ids of visible or hidden entries whose on-path or leaf state changed, and the targets of
            appended labels (empty when ``relayout`` is set).
        relayout: why the structure must be computed again, or None. When set, the tree is left as far
            as the append got (``steps`` say how far): apply them, then call
            :meth:`~core.visible.layout.VisibleTree.rebuild`.
        vacant: the vacated row when no appended entry took it over: it goes (None otherwise).
    """

    steps: Sequence[Step]
    changed: Set[str]
    relayout: RelayoutReason | None
    vacant: RowVacated | None


NOTHING = AppendResult((), frozenset(), None, None)
