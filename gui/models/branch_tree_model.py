"""The branch tree of one session: a lazy ``QAbstractItemModel`` over ``core.session.session.Session``.

The model adapts what core already indexed (``Session.tree``, ``Session.path_to``, ``Session.labels``) and
asks core for an entry's body (``Session.bodies``) when its row is first shown; the one-line previews it
keeps are GUI state. Everything is iterative: sessions can be 100,000 entries deep.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QAbstractItemModel, QModelIndex, QObject, QPersistentModelIndex, Qt, Signal
from PySide6.QtGui import QColor, QFont, QGuiApplication, QIcon, QPainter, QPixmap

from gui.models.roles import Role

if TYPE_CHECKING:  # typing only: importing the model must not load core's I/O modules
    from core.session import Entry, Session

ModelIndex = QModelIndex | QPersistentModelIndex

FILTER_MODES = ("default", "no-tools", "user", "labeled", "all")
# The reference's Default filter hides these entry kinds (FORMAT.md section 6).
_DEFAULT_HIDDEN = frozenset({"label", "custom", "model_change", "thinking_level_change"})
_STATE_ROLES = [
    Qt.ItemDataRole.DisplayRole,
    Qt.ItemDataRole.FontRole,
    Role.ON_PATH,
    Role.IS_LEAF,
    Role.LABEL,
]
_KIND_COLOURS = {
    "user": "#3b82f6",
    "assistant": "#22c55e",
    "toolResult": "#f59e0b",
    "bashExecution": "#64748b",
    "compaction": "#a855f7",
    "compactionSummary": "#a855f7",
    "branch_summary": "#a855f7",
    "branchSummary": "#a855f7",
    "custom": "#ec4899",
    "custom_message": "#ec4899",
    "label": "#eab308",
}
_OTHER_COLOUR = "#9ca3af"
# Made once: flags() runs for every row of every relayout, and enum arithmetic costs microseconds.
_ENTRY_FLAGS = Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable | Qt.ItemFlag.ItemIsEditable
_GROUP_FLAGS = Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable
_NO_FLAGS = Qt.ItemFlag.NoItemFlags
_icons: dict[str, QIcon] = {}


def _kind_icon(kind: str) -> QIcon | None:
    """A small filled circle in the kind's colour (made on first use: it needs a QGuiApplication)."""
    if QGuiApplication.instance() is None:
        return None
    colour = _KIND_COLOURS.get(kind, _OTHER_COLOUR)
    icon = _icons.get(colour)
    if icon is None:
        pixmap = QPixmap(12, 12)
        pixmap.fill(Qt.GlobalColor.transparent)
        painter = QPainter(pixmap)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(QColor(colour))
        painter.drawEllipse(1, 1, 10, 10)
        painter.end()
        icon = _icons[colour] = QIcon(pixmap)
    return icon


class _Node:
    """One visible entry as a row, or a group of rows. Owned by the model (``_root`` down, ``_nodes`` by id).

    A *group* node (``entry`` None, ``start`` >= 0) stands for ``group_size`` consecutive rows of a holder
    whose rows are too many to show flat: ``holder.rows[start : start + group_size]``.

    ``createIndex`` stores a bare pointer to the node without a reference, so the model must keep every node
    alive for as long as an index to it can exist: nodes are dropped only inside a reset, or after a layout
    change has moved every persistent index to the new nodes.
    """

    __slots__ = ("children", "entry", "grouped", "parent", "row", "rows", "start")

    def __init__(self, entry: Entry | None, parent: _Node | None, row: int, start: int = -1) -> None:
        self.entry = entry  # None for the invisible root and for groups
        self.parent = parent
        self.row = row  # the row in ``parent``, fixed at creation: rows are only ever appended
        self.children: list[_Node] | None = None  # the fetched prefix of the display rows; None until fetched
        self.rows: list[Entry] | None = None  # every entry under this node; computed on first need
        self.grouped = False  # the display rows are groups of ``rows`` (set when ``rows`` is computed)
        self.start = start  # a group's first position in its holder's ``rows``; -1 for other nodes


class BranchTreeModel(QAbstractItemModel):
    """Every entry of a session as a tree with one column, filtered like the reference's sidebar.

    Visibility: the filter mode (:data:`FILTER_MODES`) decides which entries are visible; the current leaf is
    always visible. A hidden entry's visible descendants hang off its nearest visible ancestor (or become
    top-level rows when it has none). ``default`` hides label, custom, model_change and
    thinking_level_change entries; ``no-tools`` also hides tool results; ``user`` shows only user messages;
    ``labeled`` only labeled entries; ``all`` everything. Visible children keep core's order (the branch
    holding the leaf is not moved first). Unlike the reference, assistant messages holding only tool calls are
    not hidden: telling them apart needs every body, and the model reads bodies only for rows it creates.

    Flattening (in terms of the visible tree): a *head* is a top-level entry or a child of a branch point
    (an entry with two or more visible children). Its *chain* is its only child, that child's only child and
    so on, down to the first entry with no child or with several. Then

    * the top-level rows are the heads without a visible parent;
    * a head with exactly one child has its chain as rows: the head's only child is its first row, and every
      later only child is the next sibling of its parent at that same level, so a linear conversation is a
      flat list under its root and only real branch points nest;
    * a branch point (head or chain member) has its children, which are heads, as rows;
    * every other entry has no rows.

    ``parent()`` is O(1) from the row cached in each node. Rows are created lazily in batches
    (``hasChildren``/``canFetchMore``/``fetchMore``); an entry's body is read for its preview when its
    row is first shown.

    Groups: a node with more than ``2 * group_size`` rows shows them as expandable groups of ``group_size``
    ("Entries 1–500 of 20,006"). QTreeView lays out every row of every expanded parent again after each
    insertion, with a Python call or three per row; in groups, a live append to a 20,000-message
    conversation re-lays out ~540 rows instead of 20,000, and opening it at its leaf creates and previews
    one group of rows instead of all of them.
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
        if filter_mode not in FILTER_MODES:
            raise ValueError(f"unknown filter mode {filter_mode!r}; expected one of {FILTER_MODES}")
        self._session = session
        self._mode = filter_mode
        self._batch = max(1, batch_size)
        self._group = max(1, group_size)
        self._width = preview_width
        self._previews: dict[str, str] = {}  # entry id -> one-line preview without the label badge
        self._inserting = False  # inside beginInsertRows/endInsertRows
        # (holder, parent, row, node, position) of the former leaf's row while append_entries runs
        self._vacancy: tuple[_Node, _Node, int, _Node, int] | None = None
        self._retired: list[_Node] = []  # the last dropped tree's nodes (see _release_nodes)
        self._bold = QFont()
        self._bold.setBold(True)
        self._rebuild()

    # ------------------------------------------------------------------ public API
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
        if mode not in FILTER_MODES:
            raise ValueError(f"unknown filter mode {mode!r}; expected one of {FILTER_MODES}")
        if mode == self._mode:
            return
        old_root = self._root
        self.beginResetModel()
        self._mode = mode
        self._rebuild()
        self.endResetModel()
        self._retired = _release_nodes(old_root)

    @staticmethod
    def prepare(
        session: Session, filter_mode: str = "default", *, preview_width: int = 100, preview_rows: int = 400
    ) -> TreeStructure:
        """The visible structure of ``session``, for :meth:`reset_session`.

        Pure Python, so a loader can compute it in its worker thread (it takes ~60 ms for 20,000 entries)
        while nothing refreshes the session. The previews of the last ``preview_rows`` entries on the path
        to the leaf are read too: those are the rows shown first, when the view selects the leaf.
        """
        structure = TreeStructure(session, filter_mode)
        near_leaf = [e for e in session.path_to(structure.leaf)[-preview_rows:] if e.id in structure.vparent]
        _read_previews(session, near_leaf, preview_width, structure.previews)
        structure.preview_width = preview_width
        return structure

    def reset_session(self, session: Session | None, prepared: TreeStructure | None = None) -> None:
        """Show another session, or the same one after ``refresh()`` reloaded the file (a model reset).

        ``prepared`` (from :meth:`prepare`) is used when it was made for this session, leaf and filter mode.
        """
        old_root = self._root
        self.beginResetModel()
        self._session = session
        self._previews.clear()
        self._rebuild(prepared)
        self.endResetModel()
        self._retired = _release_nodes(old_root)

    @property
    def leaf_id(self) -> str | None:
        """The session's current leaf as the model last saw it."""
        return self._leaf

    def entry_for_index(self, index: ModelIndex) -> Entry | None:
        """The core entry of a row, or None for an invalid index or a group row."""
        return index.internalPointer().entry if index.isValid() else None

    def index_for_entry(self, entry_id: str | None) -> QModelIndex:
        """The index showing ``entry_id`` (fetching rows as needed), or an invalid one when it is hidden."""
        return self._locate(entry_id, signal=True)

    def append_entries(self, entries: Iterable[Entry]) -> None:
        """Show entries that ``Session.refresh()`` appended (``RefreshResult.appended``, not reloaded).

        New rows are inserted with ``beginInsertRows``/``endInsertRows``; rows whose path/leaf state or
        label changed get coalesced ``dataChanged``. When an append changes the shape of rows already shown
        (a new branch below an entry that had one child, a sibling sorted before others, duplicate ids,
        broken links, labels in ``labeled`` mode, the old leaf leaving a filter that only kept it because it
        was the leaf) the structure is rebuilt as a layout change: persistent indexes (selection, current
        index) are moved to the same entries, so selection and scrolling survive.
        """
        entries = list(entries)
        session = self._session
        if not entries or session is None:
            return
        for entry in entries:
            self._previews.pop(entry.id, None)  # a repeated id: the later line wins
        new_leaf = session.leaf_id
        old_leaf, old_path = self._leaf, self._path
        structural = False
        label_targets: set[str] = set()
        if old_leaf is not None and old_leaf != new_leaf:
            old_entry = session.by_id.get(old_leaf)
            if old_leaf in self._vparent and (old_entry is None or not self._passes(old_entry)):
                # The old leaf was shown only because it was the leaf (a custom entry, a model change, ...);
                # in a live tail that is every other append, so take its row out without a relayout.
                structural = old_entry is None or not self._drop_old_leaf(old_entry)
        vparent, vkids, hidden, ids = self._vparent, self._vkids, self._hidden_anchor, self._ids
        for entry in entries:
            if structural:
                break
            eid, pid = entry.id, entry.parent_id
            if eid in ids or session.by_id.get(eid) is not entry:
                structural = True
                break
            if pid is not None and (pid == eid or pid not in ids):
                structural = True  # an orphan, self-parent or forward reference: let core's tree decide
                break
            ids.add(eid)
            if entry.kind == "label":
                if self._mode == "labeled":
                    structural = True
                    break
                info = entry.info
                if isinstance(info, tuple) and info and isinstance(info[0], str):
                    label_targets.add(info[0])
            if not (eid == new_leaf or self._passes(entry)):
                hidden[eid] = None if pid is None else (pid if pid in vparent else hidden[pid])
                continue
            anchor = None if pid is None else (pid if pid in vparent else hidden[pid])
            if anchor is None and pid is not None:
                structural = True  # below a hidden top-level entry: its place among top-level rows varies
                break
            siblings = vkids[anchor] if anchor is None else vkids.get(anchor, [])
            if anchor is None:
                holder: str | None = None
            elif not siblings:
                holder = anchor if self._is_head(anchor) else self._display_parent_id(anchor)
            elif len(siblings) == 1:
                structural = True  # a new branch point: the old only child and its chain move one level down
                break
            elif _ts_key(entry) >= _ts_key(siblings[-1]):
                holder = anchor
            else:
                structural = True
                break
            holder_node = self._root if holder is None else self._nodes.get(holder)
            if holder_node is not None:
                self._rows_for(holder_node)  # computed from the structure before this entry
            if anchor is not None and not siblings:
                vkids[anchor] = siblings
            siblings.append(entry)
            vparent[eid] = anchor
            if holder_node is not None and not self._append_row(holder_node, entry):
                structural = True  # the holder now has too many rows to show flat: show them in groups
                break
        vacancy, self._vacancy = self._vacancy, None
        if structural:
            self._relayout()
            return
        if vacancy is not None:  # nothing took the former leaf's row: remove it now
            _holder, parent, row, _node, _position = vacancy
            assert parent.children is not None
            self.beginRemoveRows(self._index_of(parent), row, row)
            parent.children.pop()
            self.endRemoveRows()
        self._leaf = new_leaf
        self._path = self._path_after(old_leaf, old_path, new_leaf, len(entries))
        changed = (old_path ^ self._path) | label_targets
        changed.update(i for i in (old_leaf, new_leaf) if i is not None)
        self._emit_changed(changed)

    # ------------------------------------------------------------------ Qt model interface
    def index(self, row: int, column: int = 0, parent: ModelIndex = QModelIndex()) -> QModelIndex:  # noqa: B008
        node = self._node(parent)
        children = node.children
        if column != 0 or children is None or not 0 <= row < len(children):
            return QModelIndex()
        return self.createIndex(row, 0, children[row])

    def parent(self, index: ModelIndex | None = None) -> Any:  # type: ignore[override]
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
        rows = node.rows
        return bool(rows) if rows is not None else self._display_count(node) > 0

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
            return f"[{label}] {text}" if label else text
        if role == Qt.ItemDataRole.EditRole:
            return self._label(eid) or ""
        if role == Role.ITEM:
            return entry
        if role == Role.ID:
            return eid
        if role == Role.SORT:
            return entry.line
        if role == Role.ON_PATH:
            return eid in self._path
        if role == Role.IS_LEAF:
            return eid == self._leaf
        if role == Role.LABEL:
            return self._label(eid)
        if role == Role.KIND:
            return _kind(entry)
        if role == Qt.ItemDataRole.FontRole:
            return self._bold if eid in self._path else None
        if role == Qt.ItemDataRole.DecorationRole:
            return _kind_icon(_kind(entry))
        if role == Qt.ItemDataRole.ToolTipRole:
            return f"id: {eid}\ntype: {entry.type}\ntimestamp: {entry.timestamp}\nline: {entry.line}"
        return None

    def _group_data(self, node: _Node, role: int) -> Any:
        if role not in (Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.ToolTipRole):
            return None
        holder = node.parent
        assert holder is not None and holder.rows is not None
        total = len(holder.rows)
        last = min(node.start + self._group, total)
        if role == Qt.ItemDataRole.DisplayRole:
            return f"Entries {node.start + 1:,}–{last:,}"
        return f"{last - node.start:,} of the {total:,} entries in a row here; expand to see them"

    # ------------------------------------------------------------------ structure
    def _rebuild(self, prepared: TreeStructure | None = None) -> None:
        """Recompute visibility and drop every node (callers wrap this in a reset or a layout change).

        ``prepared`` is the structure computed in a worker by :meth:`prepare`, used when it still matches.
        """
        self._root = _Node(None, None, -1)
        self._nodes: dict[str, _Node] = {}
        self._row_in_parent: dict[str, int] = {}
        session = self._session
        if prepared is None or not prepared.matches(session, self._mode):
            prepared = TreeStructure(session, self._mode)
        self._vkids = prepared.vkids
        self._vparent = prepared.vparent
        self._hidden_anchor = prepared.hidden  # hidden entry -> its nearest visible ancestor
        self._ids = prepared.ids
        self._chain_head = prepared.heads
        self._chains = prepared.chains  # rows of chain heads, taken by _rows_for
        self._row_in_parent.update(prepared.positions)
        self._leaf = prepared.leaf
        self._path = prepared.path
        if prepared.preview_width == self._width:
            self._previews.update(prepared.previews)

    def _relayout(self) -> None:
        """Rebuild the structure as a layout change, moving persistent indexes to the same entries."""
        persistent = self.persistentIndexList()
        # A group row has no entry: an index on it becomes invalid (a rebuild may group rows differently).
        entries = [p.internalPointer().entry if p.isValid() else None for p in persistent]
        wanted = [entry.id if entry is not None else None for entry in entries]
        self.layoutAboutToBeChanged.emit()
        old_root = self._root  # keeps the old nodes alive until no persistent index points at them
        self._rebuild()
        moved = [self._locate(eid, signal=False) for eid in wanted]
        self.changePersistentIndexList(persistent, moved)
        self.layoutChanged.emit()
        self._retired = _release_nodes(old_root)

    def _passes(self, entry: Entry) -> bool:
        return _passes(entry, self._mode, self._session)

    def _label(self, entry_id: str) -> str | None:
        return self._session.label_for(entry_id) if self._session is not None else None

    def _is_head(self, entry_id: str) -> bool:
        anchor = self._vparent[entry_id]
        return anchor is None or len(self._vkids[anchor]) != 1

    def _display_parent_id(self, entry_id: str) -> str | None:
        """The entry whose rows hold ``entry_id`` (None: top level). Climbs a chain iteratively.

        The head found is remembered for every chain member climbed: a live tail asks for the leaf's holder
        after each append, and climbing a 20,000-entry chain each time cost ~5 ms. Heads change only with
        the structure, which a rebuild recomputes (and this cache with it).
        """
        anchor = self._vparent[entry_id]
        if anchor is None or len(self._vkids[anchor]) != 1:
            return anchor
        known = self._chain_head
        climbed = [entry_id]
        while anchor not in known and not self._is_head(anchor):  # each climbed has one visible child
            climbed.append(anchor)
            anchor = self._vparent[anchor]
        head = known.get(anchor, anchor)
        known.update(dict.fromkeys(climbed, head))
        return head

    def _rows_for(self, node: _Node) -> list[Entry]:
        rows = node.rows
        if rows is None:
            vkids = self._vkids
            known = 0  # leading rows whose positions the prepared structure already put in _row_in_parent
            if node.entry is None:
                rows = list(vkids[None])
            else:
                eid = node.entry.id
                kids = vkids.get(eid, ())
                if len(kids) == 1 and self._is_head(eid):
                    # The chain prepared with the structure, continued by what was appended since.
                    prepared = self._chains.pop(eid, None)
                    rows, known = (prepared, len(prepared)) if prepared else ([kids[0]], 0)
                    nxt = vkids.get(rows[-1].id, ())
                    while len(nxt) == 1:
                        rows.append(nxt[0])
                        nxt = vkids.get(nxt[0].id, ())
                else:
                    rows = list(kids) if len(kids) >= 2 else []
            node.rows = rows
            node.grouped = len(rows) > 2 * self._group
            self._row_in_parent.update((rows[i].id, i) for i in range(known, len(rows)))
        return rows

    def _path_after(
        self, old_leaf: str | None, old_path: set[str], new_leaf: str | None, added: int
    ) -> set[str]:
        """The ids on the path to ``new_leaf`` after an append of ``added`` entries.

        In a live tail the new leaf descends from the old one: walk up only the new entries (at most
        ``added`` steps) instead of the whole 20,000-entry path.
        """
        session = self._session
        assert session is not None
        by_id = session.by_id
        walked: list[str] = []
        current = new_leaf
        while current is not None and current != old_leaf and len(walked) <= added:
            walked.append(current)
            entry = by_id.get(current)
            current = entry.parent_id if entry is not None else None
        if old_leaf is not None and current == old_leaf:
            return old_path | set(walked)
        return {e.id for e in session.path_to(new_leaf)}

    def _drop_old_leaf(self, entry: Entry) -> bool:
        """Hide the former leaf, which no longer passes the filter, when it is the last row of a chain.

        Its row is not removed at once but left *vacant* (``_vacancy``): the entry appended after it
        usually lands at that very row, and then takes it over with one ``dataChanged`` instead of a
        removal and an insertion, each of which makes QTreeView lay out every row again. A vacancy
        nobody took is removed at the end of :meth:`append_entries`.

        Returns False, changing nothing, in every other case (the caller then relays out the structure).
        """
        eid = entry.id
        anchor = self._vparent[eid]
        if anchor is None or len(self._vkids.get(anchor, ())) != 1 or self._vkids.get(eid):
            return False  # a top-level row, a branch point's child or an entry with rows: shapes change
        holder_id = self._display_parent_id(eid)
        holder = self._root if holder_id is None else self._nodes.get(holder_id)
        rows = holder.rows if holder is not None else None
        if holder is not None and rows is not None:
            if not rows or rows[-1] is not entry:
                return False
            position = len(rows) - 1
            parent, row = holder, position
            whole_group = False
            if holder.grouped:
                if position <= 2 * self._group:
                    return False  # the rows would go back to a flat list
                group, row = divmod(position, self._group)
                groups = holder.children or []
                if row == 0:  # the group would be empty: remove the group row
                    parent, row, whole_group = holder, group, True
                elif len(groups) > group:
                    parent = groups[group]
                    at = self.createIndex(parent.row, 0, parent)
                    self.dataChanged.emit(at, at, [Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.ToolTipRole])
                else:
                    parent = None
            children = parent.children if parent is not None else None
            if parent is not None and children is not None and len(children) == row + 1:
                if not whole_group:
                    rows.pop()
                    self._vacancy = (holder, parent, row, children[row], position)
                else:
                    self.beginRemoveRows(self._index_of(parent), row, row)
                    rows.pop()
                    children.pop()
                    self.endRemoveRows()
            else:
                rows.pop()  # the row was never fetched
        self._nodes.pop(eid, None)
        self._row_in_parent.pop(eid, None)
        self._chain_head.pop(eid, None)
        del self._vparent[eid]
        self._vkids[anchor] = []
        self._hidden_anchor[eid] = anchor
        return True

    def _display_count(self, node: _Node) -> int:
        """How many rows ``node`` shows: entries, groups, or a group's share of its holder's rows."""
        if node.start >= 0:  # a group
            holder = node.parent
            assert holder is not None and holder.rows is not None
            return min(self._group, len(holder.rows) - node.start)
        count = len(self._rows_for(node))
        return -(-count // self._group) if node.grouped else count

    def _node(self, index: ModelIndex) -> _Node:
        return index.internalPointer() if index.isValid() else self._root

    def _index_of(self, node: _Node) -> QModelIndex:
        return QModelIndex() if node is self._root else self.createIndex(node.row, 0, node)

    def _fetch(self, node: _Node, upto: int, *, signal: bool) -> None:
        """Create the rows of ``node`` up to ``upto`` (exclusive), with insert signals when asked."""
        count = self._display_count(node)
        if node.children is None:
            node.children = []
        first = len(node.children)
        last = min(upto, count) - 1
        if last < first:
            return
        if node.grouped:  # group rows: no entry, nothing to read
            created = [_Node(None, node, row, row * self._group) for row in range(first, last + 1)]
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

    def _append_row(self, holder: _Node, entry: Entry) -> bool:
        """Add a last row to ``holder`` (rows already computed); insert it when all rows are fetched.

        Returns False, changing nothing, when the holder would have to switch to groups (a layout change).
        """
        rows = holder.rows
        assert rows is not None
        position = len(rows)
        vacancy = self._vacancy
        if vacancy is not None and vacancy[0] is holder and vacancy[4] == position:
            # The row the former leaf left: the new entry takes it over (see _drop_old_leaf).
            self._vacancy = None
            node = vacancy[3]
            self._row_in_parent[entry.id] = position
            rows.append(entry)
            node.entry = entry
            self._nodes[entry.id] = node
            self._read_previews([entry])
            at = self.createIndex(node.row, 0, node)
            self.dataChanged.emit(at, at)
            return True
        if not holder.grouped and position + 1 > 2 * self._group:
            return False
        self._row_in_parent[entry.id] = position
        parent, row = holder, position
        if holder.grouped:
            group, row = divmod(position, self._group)
            groups = holder.children
            if groups is None or len(groups) < group:
                rows.append(entry)  # the view has not fetched the groups that far: it will fetch this one
                return True
            if len(groups) == group:  # the first entry of a new group: insert the group row
                self._inserting = True
                self.beginInsertRows(self._index_of(holder), group, group)
                rows.append(entry)
                groups.append(_Node(None, holder, group, position))
                self.endInsertRows()
                self._inserting = False
                return True
            parent = groups[group]
            at = self.createIndex(parent.row, 0, parent)
            # the group's text shows its last position; the append changes it
            self.dataChanged.emit(at, at, [Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.ToolTipRole])
        if parent.children is None and row == 0:
            parent.children = []  # the row had no children before: make the new one known to views now
        if parent.children is None or len(parent.children) != row:
            rows.append(entry)  # not fetched that far yet: the view fetches it like the rows before it
            return True
        created = self._make_nodes(parent, [entry], row)
        # The row joins ``rows`` only inside begin/end: a view asking canFetchMore from the about-to-be
        # signal must not fetch it a second time.
        self._inserting = True
        self.beginInsertRows(self._index_of(parent), row, row)
        rows.append(entry)
        parent.children.extend(created)
        self.endInsertRows()
        self._inserting = False
        return True

    def _make_nodes(self, parent: _Node, entries: list[Entry], first: int) -> list[_Node]:
        # No previews here: rows are created in batches of hundreds (all those before the leaf, at every
        # level of a branchy session), but only the few in view are ever shown; data() reads those.
        nodes = [_Node(entry, parent, first + i) for i, entry in enumerate(entries)]
        self._nodes.update((n.entry.id, n) for n in nodes)
        return nodes

    def _read_previews(self, entries: list[Entry]) -> None:
        """Ask core for the bodies of a batch (one open file) and cache their one-line previews."""
        if self._session is not None:
            _read_previews(self._session, entries, self._width, self._previews)

    def _locate(self, entry_id: str | None, *, signal: bool) -> QModelIndex:
        if entry_id is None or entry_id not in self._vparent:
            return QModelIndex()
        chain = []
        current: str | None = entry_id
        while current is not None:
            chain.append(current)
            current = self._display_parent_id(current)
        node = self._root
        for eid in reversed(chain):
            self._rows_for(node)
            row = self._row_in_parent[eid]
            if node.grouped:
                group, row = divmod(row, self._group)
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

    def _emit_changed(self, entry_ids: set[str]) -> None:
        """One ``dataChanged`` per run of consecutive rows under one parent, for rows that exist."""
        by_parent: dict[int, tuple[_Node, list[int]]] = {}
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


def _release_nodes(root: _Node) -> list[_Node]:
    """Break the parent/children cycles of a dropped node tree; returns its nodes.

    The loader freezes live objects for the garbage collector (see gui.main_window._load), so cycles in
    a dropped tree would stay until the next load; without them reference counting frees the nodes. The
    caller keeps the returned list until the next release: a view may still hold a plain index on an old
    node until its next layout, and an index does not keep its node alive.
    """
    nodes: list[_Node] = []
    stack = [root]
    while stack:
        node = stack.pop()
        nodes.append(node)
        if node.children:
            stack.extend(node.children)
        node.children = None
        node.parent = None
    return nodes


def _read_previews(session: Session, entries: list[Entry], width: int, previews: dict[str, str]) -> None:
    """Read the bodies of ``entries`` missing from ``previews`` (one open file) and add their previews."""
    from core.errors import SessionReadError
    from core.render import entry_preview

    missing = [e for e in entries if e.id not in previews]
    if not missing:
        return
    try:
        for entry, body in zip(missing, session.bodies(missing), strict=False):
            previews[entry.id] = entry_preview(entry, body, width)
    except (SessionReadError, OSError):
        pass  # the file changed underneath: rows show their type until the session is reloaded
    for entry in missing:
        previews.setdefault(entry.id, f"[{entry.type or 'entry'}]")


def _passes(entry: Entry, mode: str, session: Session | None) -> bool:
    """Whether ``entry`` is shown in filter ``mode`` (the leaf is shown whatever this says)."""
    if mode == "all":
        return True
    if mode == "labeled":
        return bool(session.label_for(entry.id)) if session is not None else False
    if mode == "user":
        return entry.kind == "message" and entry.role == "user"
    if entry.kind in _DEFAULT_HIDDEN:
        return False
    return not (mode == "no-tools" and entry.kind == "message" and entry.role == "toolResult")


class TreeStructure:
    """Which entries a filter mode shows and how they hang together; a snapshot of one session state.

    ``vkids`` maps a visible entry (None: the top level) to its visible children in core's order,
    ``vparent`` a visible entry to its nearest visible ancestor, ``hidden`` a hidden entry to its nearest
    visible ancestor; ``ids`` holds every entry id seen. Computed iteratively (no recursion).
    """

    __slots__ = (
        "chains",
        "heads",
        "hidden",
        "ids",
        "leaf",
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
        self.ids: set[str] = set()
        # chain member -> its head, and head -> its chain (its rows): what the model would otherwise climb
        # and walk on the GUI thread the first time it shows a long conversation.
        self.heads: dict[str, str] = {}
        self.chains: dict[str, list[Entry]] = {}
        self.previews: dict[str, str] = {}  # entry id -> one-line preview, for rows near the leaf
        self.positions: dict[str, int] = {}  # chain member -> its row among its head's rows
        self.preview_width = 0
        self.leaf = session.leaf_id if session is not None else None
        self.path: set[str] = {e.id for e in session.path_to(self.leaf)} if session is not None else set()
        self.size = len(session.entries) if session is not None else 0
        if session is None:
            return
        tree = session.tree
        leaf = self.leaf
        vkids, vparent, hidden, ids = self.vkids, self.vparent, self.hidden, self.ids
        children = tree.children
        stack: list[tuple[Entry, str | None]] = [(root, None) for root in reversed(tree.roots)]
        pop, extend = stack.pop, stack.extend
        while stack:
            entry, anchor = pop()
            eid = entry.id
            ids.add(eid)
            if eid == leaf or _passes(entry, mode, session):
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
                extend((kid, anchor) for kid in reversed(kids))
        # Depth-first order puts every chain member after its parent, so a parent's head is known first.
        heads, chains = self.heads, self.chains
        stack2: list[str | None] = [None]
        while stack2:
            anchor = stack2.pop()
            kids = vkids.get(anchor)
            if not kids:
                continue
            if anchor is not None and len(kids) == 1:
                head = heads.get(anchor, anchor)
                heads[kids[0].id] = head
                chain = chains.get(head)
                if chain is None:
                    chains[head] = [kids[0]]
                else:
                    chain.append(kids[0])
            stack2.extend(kid.id for kid in reversed(kids))
        positions = self.positions
        for chain in chains.values():
            positions.update((entry.id, row) for row, entry in enumerate(chain))

    def matches(self, session: Session | None, mode: str) -> bool:
        """Whether this was made for ``session`` as it is now (same entries and leaf) and ``mode``."""
        if session is None or session is not self.session or mode != self.mode:
            return False
        return self.size == len(session.entries) and self.leaf == session.leaf_id


def _kind(entry: Entry) -> str:
    return entry.role if entry.kind == "message" and entry.role else entry.kind


def _ts_key(entry: Entry) -> float:
    ts = entry.ts_ms
    return ts if ts is not None else float("inf")
