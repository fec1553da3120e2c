"""The branch tree of one session: a lazy ``QAbstractItemModel`` over ``core.visible.VisibleTree``.

Core decides what the tree shows (``core.visible``: filter modes, visibility, chain heads, the rows of each
holder, groups, path and leaf, and what an append changes); this model maps that onto Qt: node objects
for the rows fetched so far, lazy fetching in batches, the one-line previews of rows first shown (asking
core for their bodies), icons, fonts and roles, and the begin/end calls for what an append changed.
Everything is iterative: sessions can be 100,000 entries deep.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QAbstractItemModel, QModelIndex, QObject, QPersistentModelIndex, Qt, Signal
from PySide6.QtGui import QColor, QFont, QGuiApplication

from core.formatting import one_line, total_cost, whole_tokens
from core.visible import (
    FILTER_MODES,
    RowVacated,
    TreeStructure,
    VisibleTree,
    check_mode,
    prepare,
    read_previews,
)
from gui.models.kind_icons import entry_kind, kind_icon
from gui.models.roles import Role
from gui.models.tree_nodes import Node, release_nodes

if TYPE_CHECKING:  # typing only: importing the model must not load core's I/O modules
    from core.session import Entry, Session
    from core.session.subagents import ChildSession
    from core.visible import RowAppended

__all__ = ["FILTER_MODES", "BranchTreeModel", "TreeStructure"]

ModelIndex = QModelIndex | QPersistentModelIndex

_STATE_ROLES = [
    Qt.ItemDataRole.DisplayRole,
    Qt.ItemDataRole.FontRole,
    Role.ON_PATH,
    Role.IS_LEAF,
    Role.LABEL,
]
# Made once: flags() runs for every row of every relayout, and enum arithmetic costs microseconds.
_ENTRY_FLAGS = Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable | Qt.ItemFlag.ItemIsEditable
_GROUP_FLAGS = Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable
_NO_FLAGS = Qt.ItemFlag.NoItemFlags


class BranchTreeModel(QAbstractItemModel):
    """Every entry of a session as a tree with one column, filtered like the reference's sidebar.

    What is shown is :class:`core.visible.VisibleTree`'s: the filter mode (:data:`FILTER_MODES`) decides
    which entries are visible (the current leaf always is), a linear conversation is a flat list under its
    root and only real branch points nest, and a holder with more than ``2 * group_size`` rows shows them
    as expandable groups of ``group_size`` ("Entries 1–500 of 20,006"). QTreeView lays out every row of
    every expanded parent again after each insertion, with a Python call or three per row; in groups, a
    live append to a 20,000-message conversation re-lays out ~540 rows instead of 20,000, and opening it
    at its leaf creates and previews one group of rows instead of all of them.

    ``parent()`` is O(1) from the row cached in each node. Rows are created lazily in batches
    (``hasChildren``/``canFetchMore``/``fetchMore``); an entry's body is read for its preview when its
    row is first shown.
    """

    # (entry id, new label; "" clears it): emitted by setData, which never writes. The editing controller
    # appends the label entry through core; the row shows it once the appended entry is read back.
    label_edit_requested = Signal(str, str)

    def __init__(
        self,
        session: Session | None = None,
        parent: QObject | None = None,
        *,
        filter_mode: str = "default",
        batch_size: int = 500,
        group_size: int = 200,
        preview_width: int = 100,
    ) -> None:
        super().__init__(parent)
        self._session = session
        self._mode = check_mode(filter_mode)
        self._batch = max(1, batch_size)
        self._group = max(1, group_size)
        self._width = preview_width
        self._previews: dict[str, str] = {}  # entry id -> one-line preview without the label badge
        self._subtree_usage: dict[str, tuple[int, float]] = {}  # entry id -> (tokens, cost) of its subtree
        self._inserting = False  # inside beginInsertRows/endInsertRows or emitting layoutChanged: no fetch
        # (holder, parent, row, node, position) of the former leaf's row while append_entries maps steps
        self._vacancy: tuple[Node, Node, int, Node, int] | None = None
        self._retired: list[Node] = []  # the last dropped tree's nodes (see _release_nodes)
        self._bold = QFont()
        self._bold.setBold(True)
        self._root = Node(None, None, -1)
        self._nodes: dict[str, Node] = {}
        self._reading: str | None = None  # the entry whose card is at the top of the transcript
        self._tree = self._rebuild()

    # ------------------------------------------------------------------ public API
    @property
    def reading_id(self) -> str | None:
        """The entry marked "you are here" (its card is at the top of the transcript), if any."""
        return self._reading

    def set_reading(self, entry_id: str | None) -> QModelIndex:
        """Mark the row of ``entry_id`` "you are here" (a tint), unmarking the one before; its index.

        The selection does not move: the transcript reports where the reader is, the tree shows it.
        """
        old, self._reading = self._reading, entry_id
        roles = [Qt.ItemDataRole.BackgroundRole, Role.READING]
        node = self._nodes.get(old) if old is not None and old != entry_id else None
        if node is not None and node.parent is not None:  # a row not fetched yet needs no repaint
            before = self.createIndex(node.row, 0, node)
            self.dataChanged.emit(before, before, roles)
        index = self.index_for_entry(entry_id) if entry_id is not None else QModelIndex()
        if index.isValid():
            self.dataChanged.emit(index, index, roles)
        return index

    @property
    def session(self) -> Session | None:
        """The session shown (None for an empty model)."""
        return self._session

    @property
    def filter_mode(self) -> str:
        """One of :data:`FILTER_MODES`; setting it rebuilds the visible structure with a model reset."""
        return self._mode

    @filter_mode.setter
    def filter_mode(self, mode: str) -> None:
        check_mode(mode)
        if mode == self._mode:
            return
        old_root = self._root
        self.beginResetModel()
        self._mode = mode
        self._tree = self._rebuild()
        self.endResetModel()
        self._retired = release_nodes(old_root)

    @staticmethod
    def prepare(
        session: Session, filter_mode: str = "default", *, preview_width: int = 100, preview_rows: int = 400
    ) -> TreeStructure:
        """The visible structure of ``session``, for :meth:`reset_session` (see :func:`core.visible.prepare`).

        Pure Python, so a loader can compute it in its worker thread while nothing refreshes the session.
        """
        return prepare(session, filter_mode, preview_width=preview_width, preview_rows=preview_rows)

    def reset_session(self, session: Session | None, prepared: TreeStructure | None = None) -> None:
        """Show another session, or the same one after ``refresh()`` reloaded the file (a model reset).

        ``prepared`` (from :meth:`prepare`) is used when it was made for this session, leaf and filter mode.
        """
        old_root = self._root
        self.beginResetModel()
        if session is not self._session:
            self._subtree_usage = {}  # a fork shares entry ids with its parent: never show the other's
            self._reading = None
        self._session = session
        self._previews.clear()
        self._tree = self._rebuild(prepared)
        # The rows on the way to the leaf, which a view asks for first: made inside the reset, they need
        # no insert signal each (237 of them, 37 ms, for a leaf nested as deep as a 1 GB session's).
        self._locate(self._tree.leaf, signal=False)
        self.endResetModel()
        self._retired = release_nodes(old_root)

    def set_subtree_usage(self, session: Session | None, usage: dict[str, tuple[int, float]]) -> None:
        """Tokens and cost of each entry's subtree (``core.usage.subtree_usage``), shown in the row tooltip.

        Computed in a worker for ``session``; ignored when another session is shown by then. Tooltips are
        read when shown, so nothing is signalled.
        """
        if session is self._session:
            self._subtree_usage = usage

    @property
    def leaf_id(self) -> str | None:
        """The session's current leaf as the model last saw it."""
        return self._tree.leaf

    def entry_for_index(self, index: ModelIndex) -> Entry | None:
        """The core entry of a row, or None for an invalid index or a group row."""
        return index.internalPointer().entry if index.isValid() else None

    def index_for_entry(self, entry_id: str | None) -> QModelIndex:
        """The index showing ``entry_id`` (fetching rows as needed), or an invalid one when it is hidden."""
        return self._locate(entry_id, signal=True)

    def append_entries(self, entries: Iterable[Entry]) -> None:
        """Show entries that ``Session.refresh()`` appended (``RefreshResult.appended``, not reloaded).

        Core (:meth:`core.visible.VisibleTree.append`) says what changed; new rows are inserted with
        ``beginInsertRows``/``endInsertRows``, and rows whose path/leaf state or label changed get
        coalesced ``dataChanged``. When an append changes the shape of rows already shown (a new branch
        below an entry that had one child, a sibling sorted before others, duplicate ids, broken links,
        labels in ``labeled`` mode, a holder switching to groups, the old leaf leaving a filter that only
        kept it because it was the leaf) the structure is rebuilt as a layout change: persistent indexes
        (selection, current index) are moved to the same entries, so selection and scrolling survive.
        """
        entries = list(entries)
        if not entries or self._session is None:
            return
        for entry in entries:
            self._previews.pop(entry.id, None)  # a repeated id: the later line wins
        result = self._tree.append(entries, shown=self._nodes)
        for step in result.steps:
            if isinstance(step, RowVacated):
                self._vacate(step)
            else:
                self._add_row(step)
        vacancy, self._vacancy = self._vacancy, None
        if result.relayout is not None:
            self._relayout()
            return
        if vacancy is not None:  # nothing took the former leaf's row: remove it now
            _holder, parent, row, _node, _position = vacancy
            assert parent.children is not None
            self.beginRemoveRows(self._index_of(parent), row, row)
            parent.children.pop()
            self.endRemoveRows()
        self._emit_changed(result.changed)

    # ------------------------------------------------------------------ Qt model interface
    def index(self, row: int, column: int = 0, parent: ModelIndex = QModelIndex()) -> QModelIndex:  # noqa: B008
        node = self._node(parent)
        children = node.children
        if column != 0 or children is None or not 0 <= row < len(children):
            return QModelIndex()
        return self.createIndex(row, 0, children[row])

    def parent(self, index: ModelIndex | None = None) -> Any:
        if index is None:  # QObject.parent()
            return QObject.parent(self)
        if not index.isValid():
            return QModelIndex()
        up = index.internalPointer().parent
        if up is None or up is self._root:
            return QModelIndex()
        return self.createIndex(up.row, 0, up)

    def rowCount(self, parent: ModelIndex = QModelIndex()) -> int:  # noqa: B008
        if parent.isValid() and parent.column() != 0:
            return 0
        children = self._node(parent).children
        return len(children) if children is not None else 0

    def columnCount(self, parent: ModelIndex = QModelIndex()) -> int:  # noqa: B008
        return 1

    def hasChildren(self, parent: ModelIndex = QModelIndex()) -> bool:  # noqa: B008
        # Called for every row of every relayout: the common cases first, with as few calls as possible.
        if not parent.isValid():
            return self._display_count(self._root) > 0
        if parent.column() != 0:
            return False
        node = parent.internalPointer()
        if node.children or node.start >= 0:
            return True  # rows already fetched, or a group (never empty)
        return node.count > 0 if node.rows is not None else self._display_count(node) > 0

    def canFetchMore(self, parent: ModelIndex) -> bool:
        if parent.isValid() and parent.column() != 0:
            return False
        if self._inserting:
            return False
        node = self._node(parent)
        return len(node.children or ()) < self._display_count(node)

    def fetchMore(self, parent: ModelIndex) -> None:
        if self._inserting or (parent.isValid() and parent.column() != 0):
            return
        node = self._node(parent)
        self._fetch(node, len(node.children or ()) + self._batch, signal=True)

    def flags(self, index: ModelIndex) -> Qt.ItemFlag:
        if not index.isValid():
            return _NO_FLAGS
        # No ItemNeverHasChildren: a live append can give any row children. Editable: the label (setData).
        return _ENTRY_FLAGS if index.internalPointer().entry is not None else _GROUP_FLAGS

    def setData(self, index: ModelIndex, value: Any, role: int = Qt.ItemDataRole.EditRole) -> bool:
        """A label typed in the view: ask for it to be written (``label_edit_requested``); writes nothing."""
        entry = index.internalPointer().entry if index.isValid() else None
        if entry is None or role != Qt.ItemDataRole.EditRole:
            return False  # no entry (a group row) or not an edit
        text = "" if value is None else str(value)
        if text == (self._label(entry.id) or ""):
            return False  # unchanged: nothing to append
        self.label_edit_requested.emit(entry.id, text)
        return True

    def headerData(
        self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole
    ) -> Any:
        if orientation == Qt.Orientation.Horizontal and section == 0 and role == Qt.ItemDataRole.DisplayRole:
            return "Entry"
        return None

    def data(self, index: ModelIndex, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid():
            return None
        node = index.internalPointer()
        entry = node.entry
        if entry is None:
            return self._group_data(node, role)
        eid = entry.id
        if role == Qt.ItemDataRole.DisplayRole:
            text = self._previews.get(eid)
            if text is None:  # first shown: read its body (previews near the leaf were read in the loader)
                self._read_previews([entry])
                text = self._previews.get(eid) or f"[{entry.type or 'entry'}]"
            label = self._label(eid)
            text = f"[{label}] {text}" if label else text
            kids = self._launched(eid)
            if kids:  # the message started child sessions (Go > Open Subagent Session opens them)
                text += f"  ⤷ {len(kids)} subagent session{'s' if len(kids) != 1 else ''}"
            return text
        if role == Qt.ItemDataRole.EditRole:
            return self._label(eid) or ""
        if role == Role.ITEM:
            return entry
        if role == Role.ID:
            return eid
        if role == Role.SORT:
            return entry.line
        if role == Role.ON_PATH:
            return eid in self._tree.path
        if role == Role.IS_LEAF:
            return eid == self._tree.leaf
        if role == Role.LABEL:
            return self._label(eid)
        if role == Role.KIND:
            return entry_kind(entry)
        if role == Role.READING:
            return eid == self._reading
        if role == Qt.ItemDataRole.BackgroundRole:
            if eid != self._reading:
                return None
            tint = QColor(QGuiApplication.palette().highlight().color())
            tint.setAlpha(60)
            return tint
        if role == Qt.ItemDataRole.FontRole:
            return self._bold if eid in self._tree.path else None
        if role == Qt.ItemDataRole.DecorationRole:
            return kind_icon(entry)
        if role == Qt.ItemDataRole.ToolTipRole:
            tip = f"id: {eid}\ntype: {entry.type}\ntimestamp: {entry.timestamp}\nline: {entry.line}"
            usage = self._subtree_usage.get(eid)
            if usage is not None and (usage[0] or usage[1]):
                tip += f"\nthis entry and below: {total_cost(usage[1])} · {whole_tokens(usage[0])} tokens"
            for kid in self._launched(eid):
                tip += f"\nstarted the subagent session “{one_line(kid.title)[:80]}” (Ctrl+Alt+Down opens it)"
            return tip
        return None

    def entries_changed(self, entry_ids: list[str]) -> None:
        """What the rows of ``entry_ids`` show changed (the child sessions they started): repaint them."""
        for entry_id in entry_ids:
            index = self.index_for_entry(entry_id)
            if index.isValid():
                self.dataChanged.emit(index, index)

    def _launched(self, entry_id: str) -> tuple[ChildSession, ...]:
        """The child sessions the entry started (:attr:`core.session.Session.child_sessions`)."""
        session = self._session
        return session.child_sessions.get(entry_id, ()) if session is not None else ()

    def _group_data(self, node: Node, role: int) -> Any:
        if role not in (Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.ToolTipRole):
            return None
        holder = node.parent
        assert holder is not None
        total = holder.count
        last = min(node.start + self._group, total)
        if role == Qt.ItemDataRole.DisplayRole:
            return f"Entries {node.start + 1:,}–{last:,}"
        return f"{last - node.start:,} of the {total:,} entries in a row here; expand to see them"

    # ------------------------------------------------------------------ structure
    def _rebuild(self, prepared: TreeStructure | None = None) -> VisibleTree:
        """Lay out the session again and drop every node (callers wrap this in a reset).

        ``prepared`` is the structure computed in a worker by :meth:`prepare`, used when it still matches.
        """
        self._root = Node(None, None, -1)
        self._nodes = {}
        tree = VisibleTree(self._session, self._mode, group_size=self._group, prepared=prepared)
        structure = tree.structure
        if structure.preview_width == self._width:
            self._previews.update(structure.previews)
        return tree

    def _relayout(self) -> None:
        """Rebuild the structure as a layout change, moving persistent indexes to the same entries."""
        self.layoutAboutToBeChanged.emit()
        # Listed after the signal: its slots (a selection model, a proxy, a model tester) make persistent
        # indexes of their own, and those must move too.
        persistent = self.persistentIndexList()
        # A group row has no entry: an index on it becomes invalid (a rebuild may group rows differently).
        entries = [p.internalPointer().entry if p.isValid() else None for p in persistent]
        wanted = [entry.id if entry is not None else None for entry in entries]
        old_root = self._root  # keeps the old nodes alive until no persistent index points at them
        self._root = Node(None, None, -1)
        self._nodes = {}
        self._tree.rebuild()
        moved = [self._locate(eid, signal=False) for eid in wanted]
        self.changePersistentIndexList(persistent, moved)
        self._inserting = True  # no fetch (and its inserts) from slots while the layout change is signalled
        self.layoutChanged.emit()
        self._inserting = False
        self._retired = release_nodes(old_root)

    def _label(self, entry_id: str) -> str | None:
        return self._session.label_for(entry_id) if self._session is not None else None

    def _rows_for(self, node: Node) -> list[Entry]:
        """Core's rows of ``node`` (made on first need), all of them known to views from here on."""
        rows = node.rows
        if rows is None:
            holder = node.entry.id if node.entry is not None else None
            rows = node.rows = self._tree.rows(holder)
            node.count = len(rows)
            node.grouped = self._tree.is_grouped(holder)
        return rows

    # ------------------------------------------------------------------ mapping an append's steps
    def _vacate(self, step: RowVacated) -> None:
        """The former leaf left the last row of its holder: leave the row vacant, or remove an empty group.

        The row is not removed at once but left *vacant* (``_vacancy``): the entry appended after it
        usually lands at that very row, and then takes it over with one ``dataChanged`` instead of a
        removal and an insertion, each of which makes QTreeView lay out every row again. A vacancy
        nobody took is removed at the end of :meth:`append_entries`.
        """
        holder = self._nodes.get(step.holder)
        if holder is not None and holder.rows is not None:
            parent: Node | None = holder
            row = step.position
            whole_group = False
            if holder.grouped:
                groups = holder.children or []
                row = step.row
                if row == 0:  # the group is empty now: remove the group row
                    parent, row, whole_group = holder, step.group, True
                elif len(groups) > step.group:
                    parent = groups[step.group]
                    self._group_changed(parent)
                else:
                    parent = None
            children = parent.children if parent is not None else None
            if parent is not None and children is not None and len(children) == row + 1:
                if not whole_group:
                    holder.count -= 1
                    self._vacancy = (holder, parent, row, children[row], step.position)
                else:
                    self.beginRemoveRows(self._index_of(parent), row, row)
                    holder.count -= 1
                    children.pop()
                    self.endRemoveRows()
            else:
                holder.count -= 1  # the row was never fetched
        self._nodes.pop(step.entry.id, None)

    def _add_row(self, step: RowAppended) -> None:
        """A new last row of a holder: insert it (or its group row) when the view has fetched that far."""
        holder = self._root if step.holder is None else self._nodes.get(step.holder)
        if holder is None:
            return  # not shown: its rows are made, with this one, when the holder is
        entry, position = step.entry, step.position
        if holder.rows is None:
            self._rows_for(holder)
            holder.count = position  # the rows before this one
        vacancy = self._vacancy
        if step.takeover and vacancy is not None and vacancy[0] is holder and vacancy[4] == position:
            # The row the former leaf left: the new entry takes it over (see _vacate).
            self._vacancy = None
            node = vacancy[3]
            self._know(holder, position)
            node.entry = entry
            self._nodes[entry.id] = node
            self._read_previews([entry])
            at = self.createIndex(node.row, 0, node)
            self.dataChanged.emit(at, at)
            return
        parent, row = holder, position
        if holder.grouped:
            group, row = step.group, step.row
            groups = holder.children
            if groups is None or len(groups) < group:
                self._know(holder, position)  # the view has not fetched the groups that far
                return
            if len(groups) == group:  # the first entry of a new group: insert the group row
                self._inserting = True
                self.beginInsertRows(self._index_of(holder), group, group)
                self._know(holder, position)
                groups.append(Node(None, holder, group, position))
                self.endInsertRows()
                self._inserting = False
                return
            parent = groups[group]
            self._group_changed(parent)  # the group's text shows its last position; the append changes it
        if parent.children is None and row == 0:
            parent.children = []  # the row had no children before: make the new one known to views now
        if parent.children is None or len(parent.children) != row:
            self._know(holder, position)  # not fetched that far yet: the view fetches it like the rows before
            return
        created = self._make_nodes(parent, [entry], row)
        # The row joins the model only inside begin/end: a view asking canFetchMore from the about-to-be
        # signal must not fetch it a second time.
        self._inserting = True
        self.beginInsertRows(self._index_of(parent), row, row)
        self._know(holder, position)
        parent.children.extend(created)
        self.endInsertRows()
        self._inserting = False

    @staticmethod
    def _know(holder: Node, position: int) -> None:
        """Make the row at ``position`` of ``holder``'s rows known to views."""
        if holder.count <= position:
            holder.count = position + 1

    def _group_changed(self, group: Node) -> None:
        at = self.createIndex(group.row, 0, group)
        self.dataChanged.emit(at, at, [Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.ToolTipRole])

    # ------------------------------------------------------------------ nodes
    def _display_count(self, node: Node) -> int:
        """How many rows ``node`` shows: entries, groups, or a group's share of its holder's rows."""
        if node.start >= 0:  # a group
            holder = node.parent
            assert holder is not None
            return min(self._group, holder.count - node.start)
        self._rows_for(node)
        return self._tree.group_count(node.count) if node.grouped else node.count

    def _node(self, index: ModelIndex) -> Node:
        return index.internalPointer() if index.isValid() else self._root

    def _index_of(self, node: Node) -> QModelIndex:
        return QModelIndex() if node is self._root else self.createIndex(node.row, 0, node)

    def _fetch(self, node: Node, upto: int, *, signal: bool) -> None:
        """Create the rows of ``node`` up to ``upto`` (exclusive), with insert signals when asked."""
        count = self._display_count(node)
        if node.children is None:
            node.children = []
        first = len(node.children)
        last = min(upto, count) - 1
        if last < first:
            return
        if node.grouped:  # group rows: no entry, nothing to read
            created = [Node(None, node, row, row * self._group) for row in range(first, last + 1)]
        elif node.start >= 0:
            holder_rows = node.parent.rows if node.parent is not None else None
            assert holder_rows is not None
            created = self._make_nodes(node, holder_rows[node.start + first : node.start + last + 1], first)
        else:
            created = self._make_nodes(node, self._rows_for(node)[first : last + 1], first)
        if not signal:
            node.children.extend(created)
            return
        self._inserting = True  # no nested fetch from slots connected to the insert signals
        self.beginInsertRows(self._index_of(node), first, last)
        node.children.extend(created)
        self.endInsertRows()
        self._inserting = False

    def _make_nodes(self, parent: Node, entries: list[Entry], first: int) -> list[Node]:
        # No previews here: rows are created in batches of hundreds (all those before the leaf, at every
        # level of a branchy session), but only the few in view are ever shown; data() reads those.
        nodes = [Node(entry, parent, first + i) for i, entry in enumerate(entries)]
        self._nodes.update((entry.id, node) for node, entry in zip(nodes, entries, strict=True))
        return nodes

    def _read_previews(self, entries: list[Entry]) -> None:
        """Ask core for the bodies of a batch (one open file) and cache their one-line previews."""
        if self._session is not None:
            read_previews(self._session, entries, self._width, self._previews)

    def _locate(self, entry_id: str | None, *, signal: bool) -> QModelIndex:
        tree = self._tree
        if entry_id is None or not tree.is_visible(entry_id):
            return QModelIndex()
        node = self._root
        for eid in tree.ancestry(entry_id):
            self._rows_for(node)
            row = tree.position(eid)
            if node.grouped:
                group, row = tree.group_of(row)
                if len(node.children or ()) <= group:
                    self._fetch(node, self._display_count(node), signal=signal)  # every group row at once
                assert node.children is not None
                node = node.children[group]
            if len(node.children or ()) <= row:
                # Fetch whole batches, as a view scrolling down would.
                upto = (row // self._batch + 1) * self._batch
                self._fetch(node, upto, signal=signal)
            assert node.children is not None
            node = node.children[row]
        return self.createIndex(node.row, 0, node)

    def _emit_changed(self, entry_ids: Iterable[str]) -> None:
        """One ``dataChanged`` per run of consecutive rows under one parent, for rows that exist."""
        by_parent: dict[int, tuple[Node, list[int]]] = {}
        for eid in entry_ids:
            node = self._nodes.get(eid)
            if node is None or node.parent is None:
                continue
            by_parent.setdefault(id(node.parent), (node.parent, []))[1].append(node.row)
        for parent, rows in by_parent.values():
            rows.sort()
            start = prev = rows[0]
            for row in [*rows[1:], None]:
                if row is not None and row == prev + 1:
                    prev = row
                    continue
                assert parent.children is not None
                top = self.createIndex(start, 0, parent.children[start])
                bottom = self.createIndex(prev, 0, parent.children[prev])
                self.dataChanged.emit(top, bottom, _STATE_ROLES)
                if row is not None:
                    start = prev = row
