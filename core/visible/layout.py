"""The branch tree's rows: which entries each row holds, groups of rows, path and leaf, and appends.

:class:`VisibleTree` continues a :class:`~core.visible.structure.TreeStructure` (a snapshot) as a live
layout: the rows of each holder, computed when first asked, and what an append changes (an
:class:`~core.visible.changes.AppendResult`). It knows nothing of views: a Qt model maps its records to
begin/end calls over its own node objects.
"""

from __future__ import annotations

from collections.abc import Container, Iterable
from typing import TYPE_CHECKING

from core.session.entry import LabelInfo
from core.visible.changes import NOTHING, AppendResult, RelayoutReason, RowAppended, RowVacated, Step
from core.visible.filters import check_mode, passes
from core.visible.structure import TreeStructure

if TYPE_CHECKING:
    from core.session import Entry, Session


class VisibleTree:
    """The rows of a session's branch tree in one filter mode, kept up to date as entries are appended.

    Visibility: the filter mode (:func:`core.visible.filters.passes`) decides which entries are visible;
    the current leaf is always visible. A hidden entry's visible descendants hang off its nearest visible
    ancestor (or become top-level rows when it has none). Visible children keep core's order.

    Flattening (in terms of the visible tree): a *head* is a top-level entry or a child of a branch point
    (an entry with two or more visible children). Its *chain* is its only child, that child's only child
    and so on, down to the first entry with no child or with several. Then

    * the top-level rows (holder None) are the entries without a visible parent;
    * a head with exactly one child has its chain as rows, so a linear conversation is a flat list under
      its root and only real branch points nest;
    * a branch point (head or chain member) has its children, which are heads, as rows;
    * every other entry has no rows.

    Groups: a holder with more than ``2 * group_size`` rows shows them in groups of ``group_size``
    (decided when its rows are first made; an append that crosses the limit asks for a relayout).

    Rows are made per holder when first asked (:meth:`rows`); an append extends the rows already made
    and reports it, in O(appended entries) for a live tail.

    Attributes:
        session: the session shown (None: an empty tree).
        mode: the filter mode.
        group_size: how many rows a group holds.
        structure: the snapshot this tree continues (its dicts are this tree's own, kept up to date).
        leaf: the leaf as this tree last saw it.
        path: ids on the path from the root to ``leaf`` (read it, do not change it).
    """

    __slots__ = (
        "_chains",
        "_grouped",
        "_heads",
        "_hidden",
        "_positions",
        "_rows",
        "_vkids",
        "_vparent",
        "group_size",
        "leaf",
        "mode",
        "path",
        "session",
        "structure",
    )

    def __init__(
        self,
        session: Session | None,
        mode: str = "default",
        *,
        group_size: int = 200,
        prepared: TreeStructure | None = None,
    ) -> None:
        """Lay out ``session`` in filter ``mode``.

        Args:
            session: the session, or None for an empty tree.
            mode: one of :data:`core.visible.filters.FILTER_MODES`.
            group_size: rows per group (at least 1).
            prepared: a structure from :func:`core.visible.structure.prepare`, used when it was made for
                this session as it is now and this mode; otherwise one is computed.

        Raises:
            ValueError: for an unknown filter mode.
        """
        self.session = session
        self.mode = check_mode(mode)
        self.group_size = max(1, group_size)
        self.rebuild(prepared)

    def rebuild(self, prepared: TreeStructure | None = None) -> None:
        """Compute the visible structure again from the session (forgetting every row made)."""
        if prepared is None or not prepared.matches(self.session, self.mode):
            prepared = TreeStructure(self.session, self.mode)
        self.structure = prepared
        self._vkids = prepared.vkids
        self._vparent = prepared.vparent
        self._hidden = prepared.hidden
        self._heads = prepared.heads  # chain member -> head, extended as chains are climbed
        self._chains = prepared.chains  # prepared rows of heads, taken by rows()
        self._positions = prepared.positions  # row -> its index in its holder's rows
        self._rows: dict[str | None, list[Entry]] = {}
        self._grouped: set[str | None] = set()
        self.leaf = prepared.leaf
        self.path = prepared.path

    # ------------------------------------------------------------------ queries
    def is_visible(self, entry_id: str | None) -> bool:
        """Whether ``entry_id`` is shown as a row."""
        return entry_id in self._vparent

    def visible_children(self, entry_id: str | None) -> list[Entry]:
        """The visible children of a visible entry (None: the top-level entries), in core's order."""
        return list(self._vkids.get(entry_id, ()))

    def is_head(self, entry_id: str) -> bool:
        """Whether a visible entry is a head: top-level or a child of a branch point."""
        anchor = self._vparent[entry_id]
        return anchor is None or len(self._vkids[anchor]) != 1

    def holder_of(self, entry_id: str) -> str | None:
        """The entry whose rows hold visible ``entry_id`` (None: the top level)."""
        anchor = self._vparent[entry_id]
        if anchor is None or len(self._vkids[anchor]) != 1:
            return anchor
        return self._chain_head(entry_id, anchor)

    def _chain_head(self, entry_id: str, anchor: str) -> str:
        """The head of the chain ``entry_id`` is in (``anchor``, its visible parent, has one child).

        Climbs iteratively, and remembers the head for every member climbed: a live tail asks for the
        leaf's holder after each append, and climbing a 20,000-entry chain each time cost ~5 ms. Heads
        change only with the structure, which :meth:`rebuild` computes again (this cache with it).
        """
        known = self._heads
        climbed = [entry_id]
        while anchor not in known and not self.is_head(anchor):  # each climbed has one visible child
            climbed.append(anchor)
            parent = self._vparent[anchor]
            assert parent is not None  # a top-level entry is a head
            anchor = parent
        head = known.get(anchor, anchor)
        known.update(dict.fromkeys(climbed, head))
        return head

    def ancestry(self, entry_id: str) -> list[str]:
        """The holders above visible ``entry_id``, top first, then ``entry_id``: the rows to open to it."""
        chain: list[str] = []
        current: str | None = entry_id
        while current is not None:
            chain.append(current)
            current = self.holder_of(current)
        chain.reverse()
        return chain

    def rows(self, holder: str | None) -> list[Entry]:
        """The rows of ``holder`` (a visible entry, or None for the top level), made on first ask.

        The list is this tree's own and stays the same object until :meth:`rebuild`: appends extend it.
        """
        rows = self._rows.get(holder)
        if rows is not None:
            return rows
        vkids = self._vkids
        known = 0  # leading rows whose positions the prepared structure already holds
        if holder is None:
            rows = list(vkids[None])
        else:
            kids = vkids.get(holder, ())
            if len(kids) == 1 and self.is_head(holder):
                # The chain prepared with the structure, continued by what was appended since.
                prepared = self._chains.pop(holder, None)
                rows, known = (prepared, len(prepared)) if prepared else ([kids[0]], 0)
                nxt = vkids.get(rows[-1].id, ())
                while len(nxt) == 1:
                    rows.append(nxt[0])
                    nxt = vkids.get(nxt[0].id, ())
            else:
                rows = list(kids) if len(kids) >= 2 else []
        self._rows[holder] = rows
        if len(rows) > 2 * self.group_size:
            self._grouped.add(holder)
        self._positions.update((rows[i].id, i) for i in range(known, len(rows)))
        return rows

    def has_rows_made(self, holder: str | None) -> bool:
        """Whether :meth:`rows` was asked for ``holder`` (or an append made them) since the last rebuild."""
        return holder in self._rows

    def is_grouped(self, holder: str | None) -> bool:
        """Whether ``holder`` shows its rows in groups of ``group_size`` (makes its rows)."""
        self.rows(holder)
        return holder in self._grouped

    def position(self, entry_id: str) -> int:
        """The index of visible ``entry_id`` in its holder's rows (makes them)."""
        found = self._positions.get(entry_id)
        if found is None:
            self.rows(self.holder_of(entry_id))
            found = self._positions[entry_id]
        return found

    def group_of(self, position: int) -> tuple[int, int]:
        """(group, row in the group) of a position in grouped rows."""
        return divmod(position, self.group_size)

    def group_count(self, count: int) -> int:
        """How many groups ``count`` grouped rows make."""
        return -(-count // self.group_size)

    # ------------------------------------------------------------------ appends
    def append(self, entries: Iterable[Entry], shown: Container[str] = ()) -> AppendResult:
        """Take in entries that ``Session.refresh()`` appended (``RefreshResult.appended``, not reloaded).

        Args:
            entries: the appended entries, in file order.
            shown: ids of entries the consumer shows as rows. Their rows are made, if not yet, before an
                appended entry joins them, so that the result reports the entry (the consumer can then
                tell a view that the row has children now). The top level counts as shown.

        Returns:
            The row changes, the ids whose path/leaf/label state changed, and whether (and why) the
            structure must be rebuilt instead (see :class:`~core.visible.changes.AppendResult`).
        """
        entries = list(entries)
        session = self.session
        if not entries or session is None:
            return NOTHING
        steps: list[Step] = []
        new_leaf, old_leaf = session.leaf_id, self.leaf
        reason: RelayoutReason | None = None
        vacated: RowVacated | None = None
        if old_leaf is not None and old_leaf != new_leaf:
            old_entry = session.by_id.get(old_leaf)
            if old_leaf in self._vparent and (old_entry is None or not passes(old_entry, self.mode, session)):
                # The old leaf was shown only because it was the leaf (a custom entry, a model change, ...);
                # in a live tail that is every other append, so take its row out without a relayout.
                dropped = old_entry is not None and self._drop_old_leaf(old_entry)
                if dropped is False:
                    reason = "old leaf"
                elif dropped is not True:
                    vacated = dropped
                    steps.append(dropped)
        label_targets: set[str] = set()
        if reason is None:
            reason, vacated = self._append_all(entries, shown, steps, label_targets, vacated)
        if reason is not None:
            return AppendResult(steps, frozenset(), reason, None)
        self.leaf = new_leaf
        changed = self._move_path(old_leaf, new_leaf, len(entries)) | label_targets
        changed.update(i for i in (old_leaf, new_leaf) if i is not None)
        return AppendResult(steps, changed, None, vacated)

    def _append_all(
        self,
        entries: list[Entry],
        shown: Container[str],
        steps: list[Step],
        label_targets: set[str],
        vacated: RowVacated | None,
    ) -> tuple[RelayoutReason | None, RowVacated | None]:
        """Add each entry to the structure; returns why a relayout is needed (or None), and the vacancy."""
        session = self.session
        assert session is not None
        mode, new_leaf = self.mode, session.leaf_id
        vparent, vkids, hidden = self._vparent, self._vkids, self._hidden
        made = self._rows
        for entry in entries:
            reason = self._refusal(entry, label_targets)
            if reason is not None:
                return reason, vacated
            eid, pid = entry.id, entry.parent_id
            # Its nearest visible ancestor: the parent was seen (see _refusal), as visible or hidden.
            anchor = None if pid is None else (pid if pid in vparent else hidden[pid])
            if not (eid == new_leaf or passes(entry, mode, session)):
                hidden[eid] = anchor
                continue
            siblings = vkids[None] if anchor is None else vkids.get(anchor, [])
            reason, holder = self._holder_of_new(entry, anchor, siblings)
            if reason is not None:
                return reason, vacated
            rows = made.get(holder)
            if rows is None and (holder is None or holder in shown):
                rows = self.rows(holder)  # made from the structure before this entry
            if anchor is not None and not siblings:
                vkids[anchor] = siblings
            siblings.append(entry)
            vparent[eid] = anchor
            if rows is None:
                continue  # nobody asked for these rows: they are made with this entry when asked
            step = self._append_row(holder, rows, entry, vacated)
            if step is None:
                return "groups", vacated
            if step.takeover:
                vacated = None
            steps.append(step)
            # A row of rows already made: the consumer may show it, and then must hear of rows below it.
            made[eid] = []
        return None, vacated

    def _refusal(self, entry: Entry, label_targets: set[str]) -> RelayoutReason | None:
        """Why appended ``entry`` needs a relayout whether shown or not (None: it does not).

        Notes the target of a label in ``label_targets``, whose rows change.
        """
        session = self.session
        assert session is not None
        eid, pid = entry.id, entry.parent_id
        vparent, hidden = self._vparent, self._hidden
        # Every entry seen is visible or hidden: both maps together are the ids seen.
        if eid in vparent or eid in hidden or session.by_id.get(eid) is not entry:
            return "duplicate id"
        if pid is not None and (pid == eid or (pid not in vparent and pid not in hidden)):
            return "broken link"  # let core's tree decide where it goes
        if eid in self.structure.awaited:
            return "broken link"  # the parent orphans were waiting for: they move below it
        if self.structure.cycle_roots:
            # Core's tree cut a parent-link loop: where it cut, the path to a new leaf through the loop
            # (a hypothesis case: a leaf under a loop of two ids) and a new root's place (before the roots
            # cut at) are the whole tree's to say.
            return "broken link"
        info = entry.info
        if isinstance(info, LabelInfo):  # a label entry: it changes another row's label
            if self.mode == "labeled":
                return "label"
            if isinstance(info.target, str):
                label_targets.add(info.target)
        return None

    def _holder_of_new(
        self, entry: Entry, anchor: str | None, siblings: list[Entry]
    ) -> tuple[RelayoutReason | None, str | None]:
        """Whose rows visible ``entry`` joins as the last of ``siblings``, the children of ``anchor``.

        Returns (None, the holder), or (why a relayout is needed, None) when the entry's place is not
        simply the end of an existing holder's rows.
        """
        pid = entry.parent_id
        if anchor is None:
            if pid is not None:
                return "hidden top", None
            return None, None  # (a session with a cut loop never gets here: see _refusal)
        if not siblings:
            # Its only child now: it starts the chain of a head (is_head, written out: a live tail
            # passes here for every entry), or joins the chain the anchor is in.
            parent = self._vparent[anchor]
            if parent is None or len(self._vkids[parent]) != 1:
                return None, anchor
            return None, self._chain_head(anchor, parent)
        if len(siblings) == 1:
            return "branch point", None  # the old only child and its chain move one level down
        if pid == anchor and siblings[-1].parent_id == anchor and _ts_key(entry) >= _ts_key(siblings[-1]):
            # Both are children of the anchor itself, and core sorts children by time (ties in file
            # order): the entry goes last. Below a hidden entry, its place is that entry's.
            return None, anchor
        return "sibling order", None

    def _append_row(
        self, holder: str | None, rows: list[Entry], entry: Entry, vacated: RowVacated | None
    ) -> RowAppended | None:
        """Add ``entry`` as the last of ``rows``; None, changing nothing, when the rows must become groups."""
        position = len(rows)
        takeover = vacated is not None and vacated.holder == holder and vacated.position == position
        grouped = holder in self._grouped
        if not takeover and not grouped and position + 1 > 2 * self.group_size:
            return None
        rows.append(entry)
        self._positions[entry.id] = position
        group, row = divmod(position, self.group_size) if grouped else (-1, position)
        return RowAppended(holder, position, entry, group, row, takeover)

    def _drop_old_leaf(self, entry: Entry) -> RowVacated | bool:
        """Hide the former leaf, which no longer passes the filter, when it is the last row of a chain.

        Returns the vacated row when its holder's rows were made, True when they were not (nothing to
        report), and False, changing nothing, in every other case (a relayout is needed).
        """
        eid = entry.id
        anchor = self._vparent[eid]
        if anchor is None or len(self._vkids.get(anchor, ())) != 1 or self._vkids.get(eid):
            return False  # a top-level row, a branch point's child or an entry with rows: shapes change
        if eid == self.structure.leaf and self.structure.leaf_has_children:
            return False  # hidden entries below it would hang off it still (an appended leaf has none)
        holder = self._chain_head(eid, anchor)
        rows = self._rows.get(holder)
        vacated: RowVacated | bool = True
        if rows is not None:
            if not rows or rows[-1] is not entry:
                return False
            position = len(rows) - 1
            grouped = holder in self._grouped
            if grouped and position <= 2 * self.group_size:
                return False  # the rows would go back to a flat list
            rows.pop()
            group, row = divmod(position, self.group_size) if grouped else (-1, position)
            vacated = RowVacated(holder, position, entry, group, row)
        else:
            chain = self._chains.get(holder)
            if chain and chain[-1] is entry:
                chain.pop()  # the prepared chain must not bring it back when the rows are made
        self._positions.pop(eid, None)
        self._heads.pop(eid, None)
        self._rows.pop(eid, None)
        self._grouped.discard(eid)
        del self._vparent[eid]
        self._vkids[anchor] = []
        self._hidden[eid] = anchor
        return vacated

    def _move_path(self, old_leaf: str | None, new_leaf: str | None, added: int) -> set[str]:
        """Make ``path`` lead to ``new_leaf`` after ``added`` entries; returns the ids that joined or left it.

        In a live tail the new leaf descends from the old one: walk up only the new entries (at most
        ``added`` steps) and add them to the path in place, instead of copying the 20,000-entry path.
        """
        session = self.session
        assert session is not None
        by_id = session.by_id
        walked: list[str] = []
        current = new_leaf
        while current is not None and current != old_leaf and len(walked) <= added:
            walked.append(current)
            entry = by_id.get(current)
            current = entry.parent_id if entry is not None else None
        path = self.path
        if old_leaf is not None and current == old_leaf:
            joined = {eid for eid in walked if eid not in path}
            path.update(joined)
            return joined
        new_path = {e.id for e in session.path_to(new_leaf)}
        self.path = new_path
        return path ^ new_path


def _ts_key(entry: Entry) -> float:
    ts = entry.ts_ms
    return ts if ts is not None else float("inf")
