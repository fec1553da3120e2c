"""BranchTreeModel over the sample and demo sessions, a 100,000-entry chain, and live appends."""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from PySide6.QtCore import QModelIndex, QPersistentModelIndex, Qt, qInstallMessageHandler
from PySide6.QtGui import QFont, QIcon
from PySide6.QtTest import QAbstractItemModelTester
from PySide6.QtWidgets import QTreeView

from core import load_session
from core.session import Session
from gui.models.branch_tree_model import FILTER_MODES, BranchTreeModel
from gui.models.roles import Role
from tests.conftest import DEMO, SAMPLES, shallow_stack
from tests.core.test_visible_tree import histories, refreshed, replay
from tests.helpers import append_entries

PI_SESSIONS = SAMPLES / "pi-layout" / "sessions"
SESSION_FILES = sorted(PI_SESSIONS.glob("*/*.jsonl")) + sorted(DEMO.glob("*.jsonl"))
BRANCHES = next(PI_SESSIONS.glob("*/2026-03-03T14-02-51-403Z_*.jsonl"))
LINEAR = next(PI_SESSIONS.glob("*/2026-03-02T09-14-07-122Z_*.jsonl"))
DISPLAY = Qt.ItemDataRole.DisplayRole


def rows(model: BranchTreeModel, parent: QModelIndex = QModelIndex()) -> list[QModelIndex]:  # noqa: B008
    while model.canFetchMore(parent):
        model.fetchMore(parent)
    return [model.index(r, 0, parent) for r in range(model.rowCount(parent))]


def outline(model: BranchTreeModel) -> list[tuple[int, str]]:
    """Every row as (depth, entry id) in display order, fetching everything (iteratively)."""
    found: list[tuple[int, str]] = []
    stack = [(i, 0) for i in reversed(rows(model))]
    while stack:
        index, depth = stack.pop()
        found.append((depth, index.data(Role.ID)))
        stack.extend((child, depth + 1) for child in reversed(rows(model, index)))
    return found


def write_session(path: Path, entries: list[dict]) -> None:
    header = {
        "type": "session",
        "version": 3,
        "id": "s-1",
        "timestamp": "2026-01-01T00:00:00.000Z",
        "cwd": "/x",
    }
    path.write_bytes(b"\n".join(orjson.dumps(o) for o in [header, *entries]) + b"\n")


def message(eid: str, parent: str | None, role: str, text: str, second: int = 0) -> dict:
    ts = f"2026-03-04T00:{second // 60 % 60:02d}:{second % 60:02d}.000Z"
    content = [{"type": "text", "text": text}]
    body = {"role": role, "content": content if role != "user" else text}
    return {"type": "message", "id": eid, "parentId": parent, "timestamp": ts, "message": body}


# ---------------------------------------------------------------------- model tester
def test_empty_model_passes_the_model_tester(qtmodeltester, qtbot) -> None:
    model = BranchTreeModel(None)
    qtmodeltester.check(model)
    assert model.rowCount() == 0
    assert not model.hasChildren()
    assert model.headerData(0, Qt.Orientation.Horizontal) == "Entry"
    assert model.index_for_entry("nope") == QModelIndex()


def test_a_header_only_session(qtmodeltester, qtbot, tmp_path: Path) -> None:
    path = tmp_path / "empty.jsonl"
    write_session(path, [])
    model = BranchTreeModel(load_session(path))
    qtmodeltester.check(model)
    assert model.rowCount() == 0 and not model.canFetchMore(QModelIndex())


@pytest.mark.parametrize("mode", FILTER_MODES)
@pytest.mark.parametrize("path", SESSION_FILES, ids=lambda p: p.name[:32])
def test_every_sample_in_every_mode(qtmodeltester, qtbot, path: Path, mode: str) -> None:
    session = load_session(path, checksum=False)
    model = BranchTreeModel(session, filter_mode=mode)
    qtmodeltester.check(model)
    shown = outline(model)
    ids = [eid for _depth, eid in shown]
    assert len(ids) == len(set(ids))
    assert session.leaf_id in ids  # the leaf is always visible
    for eid in ids:  # every visible entry is found again, at the same place
        index = model.index_for_entry(eid)
        assert index.isValid() and index.data(Role.ID) == eid
    if mode == "all":
        assert set(ids) == set(session.tree.order)


def test_sample_and_demo_files_were_found() -> None:
    assert len(SESSION_FILES) >= 14


# ---------------------------------------------------------------------- structure and filters
def test_a_linear_conversation_is_a_flat_list_under_its_root(qtbot) -> None:
    session = load_session(LINEAR, checksum=False)
    assert len(session.tree.roots) == 1
    model = BranchTreeModel(session, filter_mode="all")
    top = rows(model)
    assert [i.data(Role.ID) for i in top] == [session.tree.roots[0].id]
    under = rows(model, top[0])
    assert [i.data(Role.ID) for i in under] == session.tree.order[1:]
    assert all(not model.hasChildren(i) for i in under)
    assert model.index_for_entry(session.leaf_id).parent() == top[0]


def test_branch_points_nest_and_chains_stay_flat(qtbot) -> None:
    session = load_session(BRANCHES, checksum=False)
    model = BranchTreeModel(session, filter_mode="all")
    shown = outline(model)
    assert len(shown) == len(session.entries) == 35
    depths = {eid: depth for depth, eid in shown}
    (branch_point,) = [k for k, v in session.tree.children.items() if len(v) > 1]
    heads = [e.id for e in session.tree.children_of(branch_point)]
    assert heads == ["9fe792d3", "2d71619e", "c9332a10"]
    root = session.tree.roots[0].id
    assert depths[root] == 0 and depths[branch_point] == 1
    assert [depths[h] for h in heads] == [2, 2, 2]
    # each branch's chain is the rows of its head, in core's order
    for head in heads:
        chain = [i.data(Role.ID) for i in rows(model, model.index_for_entry(head))]
        expected, current = [], session.tree.children_of(head)
        while current:
            expected.append(current[0].id)
            current = session.tree.children_of(current[0].id)
        assert chain == expected
    assert model.index_for_entry(heads[1]).parent().data(Role.ID) == branch_point
    # parent() agrees with index() for every row
    for _depth, eid in shown:
        index = model.index_for_entry(eid)
        assert model.index(index.row(), 0, index.parent()) == index


def test_path_leaf_and_roles_on_the_branches_sample(qtbot) -> None:
    session = load_session(BRANCHES, checksum=False)
    model = BranchTreeModel(session, filter_mode="all")
    path = {e.id for e in session.path_to(session.leaf_id)}
    assert len(path) == 16
    on_path = set()
    for _depth, eid in outline(model):
        index = model.index_for_entry(eid)
        if index.data(Role.ON_PATH):
            on_path.add(eid)
            assert index.data(Qt.ItemDataRole.FontRole).bold()
        else:
            assert index.data(Qt.ItemDataRole.FontRole) is None
        assert index.data(Role.IS_LEAF) == (eid == "c5a192f8")
        entry = index.data(Role.ITEM)
        assert entry is session.by_id[eid] and index.data(Role.ID) == eid
        assert index.data(Role.KIND) == (entry.role or entry.kind)
        assert isinstance(index.data(Qt.ItemDataRole.DecorationRole), QIcon)
        tip = index.data(Qt.ItemDataRole.ToolTipRole)
        assert eid in tip and entry.type in tip and f"line: {entry.line}" in tip
    assert on_path == path
    assert "9fe792d3" not in on_path and "c9332a10" in on_path
    lru = model.index_for_entry("9fe792d3")
    assert lru.data(Role.LABEL) == "approach-A-lru"
    assert lru.data(DISPLAY) == "[approach-A-lru] user: Let's try an in-memory LRU cache."
    assert model.index_for_entry("9ae53169").data(Role.LABEL) is None  # the label was cleared
    assert model.index_for_entry("c5a192f8").data(DISPLAY).startswith("assistant: ")


def test_filters_on_the_branches_sample(qtbot) -> None:
    session = load_session(BRANCHES, checksum=False)
    model = BranchTreeModel(session)
    assert model.filter_mode == "default"
    counts = {}
    for mode in FILTER_MODES:
        model.filter_mode = mode
        shown = [session.by_id[eid] for _d, eid in outline(model)]
        counts[mode] = len(shown)
        kinds = {e.kind for e in shown}
        roles = {e.role for e in shown}
        if mode in ("default", "no-tools", "user"):
            assert not kinds & {"label", "custom", "model_change", "thinking_level_change"}
        if mode == "no-tools":
            assert "toolResult" not in roles
        if mode == "user":
            assert [e for e in shown if e.role != "user"] == [session.leaf]  # plus the leaf, always
            assert [e.id for e in shown] == ["99da7146", "9fe792d3", "2d71619e", "63647ded", "c5a192f8"]
        if mode == "labeled":
            assert [e.id for e in shown] == ["9fe792d3", "c9332a10", "c5a192f8"]
    assert counts == {"default": 27, "no-tools": 18, "user": 5, "labeled": 3, "all": 35}
    with pytest.raises(ValueError):
        model.filter_mode = "bogus"


def test_hidden_entries_hand_their_children_to_the_nearest_visible_ancestor(qtbot) -> None:
    session = load_session(BRANCHES, checksum=False)
    model = BranchTreeModel(session, filter_mode="user")
    top = rows(model)
    assert [i.data(Role.ID) for i in top] == ["99da7146"]  # the model_change root is hidden
    assert [i.data(Role.ID) for i in rows(model, top[0])] == ["9fe792d3", "2d71619e", "63647ded"]
    etag = model.index_for_entry("63647ded")
    assert [i.data(Role.ID) for i in rows(model, etag)] == ["c5a192f8"]


def test_filter_change_resets_the_model(qtbot) -> None:
    model = BranchTreeModel(load_session(BRANCHES, checksum=False))
    with qtbot.waitSignals([model.modelAboutToBeReset, model.modelReset], timeout=1000):
        model.filter_mode = "all"


# ---------------------------------------------------------------------- lazy fetching, deep chains
def test_children_are_fetched_in_batches(qtbot) -> None:
    model = BranchTreeModel(load_session(BRANCHES, checksum=False), filter_mode="all", batch_size=4)
    inserted: list[tuple[int, int]] = []
    model.rowsInserted.connect(lambda _p, first, last: inserted.append((first, last)))
    top = rows(model)
    assert model.rowCount(top[0]) == 0 and model.hasChildren(top[0]) and model.canFetchMore(top[0])
    model.fetchMore(top[0])
    assert model.rowCount(top[0]) == 4
    model.fetchMore(top[0])
    assert model.rowCount(top[0]) == 5 and not model.canFetchMore(top[0])
    assert inserted == [(0, 0), (0, 3), (4, 4)]


def test_a_100000_entry_chain(qtmodeltester, qtbot, tmp_path: Path) -> None:
    count = 100_000
    path = tmp_path / "deep.jsonl"
    header = {
        "type": "session",
        "version": 3,
        "id": "deep",
        "timestamp": "2026-01-01T00:00:00.000Z",
        "cwd": "/",
    }
    lines = [orjson.dumps(header)]
    parent = None
    for i in range(count):
        eid = f"e{i:06d}"
        role = "user" if i % 2 == 0 else "assistant"
        content = f"message {i}" if role == "user" else [{"type": "text", "text": f"reply {i}"}]
        obj = {
            "type": "message",
            "id": eid,
            "parentId": parent,
            "timestamp": "2026-01-01T00:00:00.000Z",
            "message": {"role": role, "content": content},
        }
        lines.append(orjson.dumps(obj))
        parent = eid
    path.write_bytes(b"\n".join(lines) + b"\n")
    session = load_session(path, checksum=False)
    with shallow_stack(60):
        model = BranchTreeModel(session, filter_mode="all", group_size=500)
        leaf = model.index_for_entry(session.leaf_id)
        assert leaf.isValid()
        assert leaf.data(Role.ID) == "e099999" and leaf.data(Role.IS_LEAF)
        assert leaf.data(DISPLAY) == "assistant: reply 99999"
        # The 99,999 rows under the root are shown in 200 groups of 500; the leaf is in the last one.
        group = leaf.parent()
        assert leaf.row() == (count - 2) % 500 and group.row() == 199
        assert group.data(DISPLAY) == "Entries 99,501–99,999" and group.data(Role.ID) is None
        assert group.parent().data(Role.ID) == "e000000" and model.entry_for_index(group) is None
        assert model.rowCount() == 1 and model.rowCount(group.parent()) == 200
        assert model.rowCount(group) == 499
        assert model.rowCount(model.index(0, 0, group.parent())) == 0  # groups before it are not fetched
        user = BranchTreeModel(session, filter_mode="user", group_size=500)
        last_user = user.index_for_entry("e099998")
        assert (last_user.parent().row(), last_user.row()) == divmod(count // 2 - 2, 500)
        leaf = user.index_for_entry("e099999")  # the leaf stays visible
        assert (leaf.parent().row(), leaf.row()) == divmod(count // 2 - 1, 500)
    qtmodeltester.check(BranchTreeModel(session, filter_mode="all"))


# ---------------------------------------------------------------------- live appends
@pytest.fixture
def live(tmp_path: Path) -> Session:
    path = tmp_path / BRANCHES.name
    shutil.copyfile(BRANCHES, path)
    path.chmod(0o644)
    return load_session(path)


def append_lines(session: Session, objects: list[dict]) -> None:
    append_entries(Path(session.path), objects)


def test_appends_extend_the_leaf_chain_without_a_reset(qtmodeltester, qtbot, live: Session) -> None:
    model = BranchTreeModel(live, filter_mode="all")
    view = QTreeView()
    qtbot.addWidget(view)
    view.setModel(model)
    old_leaf = model.index_for_entry(live.leaf_id)
    selected = model.index_for_entry("2d71619e")
    view.setCurrentIndex(selected)
    persistent = QPersistentModelIndex(selected)
    qtmodeltester.check(model)
    inserted: list[tuple[str, int, int]] = []
    changed: list[tuple[str, str]] = []
    resets: list[bool] = []
    model.rowsInserted.connect(lambda p, first, last: inserted.append((p.data(Role.ID), first, last)))
    model.dataChanged.connect(lambda tl, br, _roles: changed.append((tl.data(Role.ID), br.data(Role.ID))))
    model.modelReset.connect(lambda: resets.append(True))
    model.layoutChanged.connect(lambda: resets.append(False))

    append_lines(
        live,
        [
            message("n1", "c5a192f8", "user", "next question", 3000),
            message("n2", "n1", "assistant", "next answer", 3001),
        ],
    )
    result = live.refresh()
    assert [e.id for e in result.appended] == ["n1", "n2"] and not result.reloaded
    model.append_entries(result.appended)

    assert resets == []
    assert inserted == [("c9332a10", 9, 9), ("c9332a10", 10, 10)]
    assert persistent.isValid() and persistent.data(Role.ID) == "2d71619e"
    assert view.currentIndex().data(Role.ID) == "2d71619e"
    assert not old_leaf.data(Role.IS_LEAF) and old_leaf.data(Role.ON_PATH)
    new_leaf = model.index_for_entry("n2")
    assert new_leaf.data(Role.IS_LEAF) and new_leaf.data(Role.ON_PATH)
    assert new_leaf.data(DISPLAY) == "assistant: next answer"
    assert changed == [("c5a192f8", "n2")]  # old leaf and new rows, one coalesced range
    assert model.leaf_id == "n2"
    qtmodeltester.check(model)


def test_an_append_on_another_branch_moves_the_path(qtmodeltester, qtbot, live: Session) -> None:
    model = BranchTreeModel(live, filter_mode="all")
    outline(model)
    persistent = QPersistentModelIndex(model.index_for_entry("9ae53169"))
    inserted: list[tuple[str, int, int]] = []
    changed: list[tuple[int, int]] = []
    model.rowsInserted.connect(lambda p, first, last: inserted.append((p.data(Role.ID), first, last)))
    model.dataChanged.connect(lambda tl, br, _roles: changed.append((tl.row(), br.row())))
    # the Redis branch gets a new reply: its chain grows and becomes the path to the leaf
    append_lines(live, [message("r1", "510bec83", "user", "back to redis", 3000)])
    model.append_entries(live.refresh().appended)
    assert inserted == [("2d71619e", 7, 7)]
    redis = model.index_for_entry("2d71619e")
    assert redis.data(Role.ON_PATH) and model.index_for_entry("r1").data(Role.IS_LEAF)
    assert not model.index_for_entry("c9332a10").data(Role.ON_PATH)
    assert not model.index_for_entry("c5a192f8").data(Qt.ItemDataRole.FontRole)
    assert model.index_for_entry("99da7146").data(Role.ON_PATH)  # the shared trunk stays on the path
    # the ETag chain's nine rows left the path: one coalesced range
    assert (0, 8) in changed
    assert persistent.data(Role.ID) == "9ae53169"
    qtmodeltester.check(model)


def test_a_new_branch_is_a_layout_change_that_keeps_selection(qtmodeltester, qtbot, live: Session) -> None:
    model = BranchTreeModel(live, filter_mode="default")
    outline(model)
    persistent = QPersistentModelIndex(model.index_for_entry("848de94b"))
    assert persistent.parent().data(Role.ID) == "c9332a10"
    resets: list[bool] = []
    model.modelReset.connect(lambda: resets.append(True))
    model.layoutChanged.connect(lambda: resets.append(False))
    append_lines(live, [message("f1", "63647ded", "assistant", "another answer", 3000)])  # 63647ded forks
    model.append_entries(live.refresh().appended)
    assert resets == [False]
    assert persistent.isValid() and persistent.data(Role.ID) == "848de94b"
    assert persistent.parent().data(Role.ID) == "63647ded"  # the fork nests its two branches
    assert [i.data(Role.ID) for i in rows(model, persistent.parent())] == ["848de94b", "f1"]
    assert model.index_for_entry("f1").data(Role.IS_LEAF)
    qtmodeltester.check(model)


def test_appended_hidden_entries_and_labels(qtmodeltester, qtbot, live: Session) -> None:
    model = BranchTreeModel(live, filter_mode="default")
    outline(model)
    changed: list[str] = []
    model.dataChanged.connect(lambda tl, _br, _roles: changed.append(tl.data(Role.ID)))
    label = {
        "type": "label",
        "id": "l1",
        "parentId": "c5a192f8",
        "timestamp": "2026-03-03T15:00:00.000Z",
        "targetId": "2d71619e",
        "label": "redis",
    }
    append_lines(live, [label, message("u9", "l1", "user", "after the label", 4000)])
    model.append_entries(live.refresh().appended)
    assert model.index_for_entry("l1") == QModelIndex()  # labels are hidden in default mode
    child = model.index_for_entry("u9")
    assert child.parent().data(Role.ID) == "c9332a10" and child.row() == 6
    assert "2d71619e" in changed
    assert model.index_for_entry("2d71619e").data(DISPLAY).startswith("[redis] user:")
    qtmodeltester.check(model)


def test_reset_session_after_a_reload(qtbot, live: Session) -> None:
    model = BranchTreeModel(live)
    outline(model)
    Path(live.path).write_bytes(LINEAR.read_bytes())
    result = live.refresh()
    assert result.reloaded
    with qtbot.waitSignal(model.modelReset, timeout=1000):
        model.reset_session(live)
    assert [d for d, _ in outline(model)].count(0) == 1
    assert model.index_for_entry(live.leaf_id).data(Role.IS_LEAF)


def test_data_for_unknown_roles_is_none(qtbot) -> None:
    model = BranchTreeModel(load_session(LINEAR, checksum=False))
    index = rows(model)[0]
    assert index.data(Qt.ItemDataRole.WhatsThisRole) is None
    assert model.data(QModelIndex()) is None
    assert isinstance(model._bold, QFont)


def test_an_append_below_unfetched_rows_waits_for_the_fetch(qtmodeltester, qtbot, live: Session) -> None:
    model = BranchTreeModel(live, filter_mode="all", batch_size=4)
    head = model.index_for_entry("c9332a10")
    assert model.rowCount(head) == 0
    model.fetchMore(head)
    assert model.rowCount(head) == 4
    inserted: list[tuple[int, int]] = []
    model.rowsInserted.connect(lambda _p, first, last: inserted.append((first, last)))
    append_lines(live, [message("z1", "c5a192f8", "user", "later", 3000)])
    model.append_entries(live.refresh().appended)
    assert inserted == [] and model.canFetchMore(head)
    leaf = model.index_for_entry("z1")
    assert leaf.row() == 9 and leaf.parent() == head and leaf.data(Role.IS_LEAF)
    assert inserted == [(4, 9)]  # index_for_entry fetches whole batches up to the row it needs
    qtmodeltester.check(model)


# ---------------------------------------------------------------------- groups of rows in long chains
def chain(count: int, first: int = 0, parent: str | None = None) -> list[dict]:
    entries = []
    for i in range(first, first + count):
        entries.append(message(f"m{i:03d}", parent, "user" if i % 2 == 0 else "assistant", f"text {i}", i))
        parent = f"m{i:03d}"
    return entries


def test_long_chains_are_shown_in_groups(qtmodeltester, qtbot, tmp_path: Path) -> None:
    path = tmp_path / "chain.jsonl"
    write_session(path, chain(12))
    model = BranchTreeModel(load_session(path), filter_mode="all", group_size=3)
    top = rows(model)
    assert [i.data(Role.ID) for i in top] == ["m000"]
    groups = rows(model, top[0])
    assert [g.data(DISPLAY) for g in groups] == [
        "Entries 1–3",
        "Entries 4–6",
        "Entries 7–9",
        "Entries 10–11",
    ]
    assert [i.data(Role.ID) for i in rows(model, groups[1])] == ["m004", "m005", "m006"]
    assert not model.flags(groups[0]) & Qt.ItemFlag.ItemIsEditable
    assert model.data(groups[0], Role.ITEM) is None and model.data(groups[0], Role.ON_PATH) is None
    assert [d for d, _ in outline(model)] == [0] + [1, 2, 2, 2] * 2 + [1, 2, 2, 2, 1, 2, 2]
    qtmodeltester.check(model)
    # six rows (not more than twice the group size) stay flat
    write_session(path, chain(7))
    flat = BranchTreeModel(load_session(path), filter_mode="all", group_size=3)
    assert [i.data(Role.ID) for i in rows(flat, rows(flat)[0])] == [f"m{i:03d}" for i in range(1, 7)]


def test_appends_to_grouped_rows(qtmodeltester, qtbot, tmp_path: Path) -> None:
    path = tmp_path / "chain.jsonl"
    write_session(path, chain(7))  # the root and six rows: flat
    session = load_session(path)
    model = BranchTreeModel(session, filter_mode="all", group_size=3)
    view = QTreeView()
    qtbot.addWidget(view)
    view.setModel(model)
    selected = QPersistentModelIndex(model.index_for_entry("m002"))
    events: list[tuple] = []
    model.rowsInserted.connect(lambda p, first, last: events.append(("insert", p.data(DISPLAY), first, last)))
    model.layoutChanged.connect(lambda: events.append(("layout",)))
    model.modelReset.connect(lambda: events.append(("reset",)))

    append_lines(session, chain(1, 7, "m006"))  # a seventh row: the rows become groups
    model.append_entries(session.refresh().appended)
    assert events == [("layout",)]
    assert selected.isValid() and selected.data(Role.ID) == "m002"
    assert selected.parent().data(DISPLAY) == "Entries 1–3"
    leaf = model.index_for_entry("m007")
    assert leaf.parent().data(DISPLAY) == "Entries 7–7" and leaf.data(Role.IS_LEAF)
    qtmodeltester.check(model)

    events.clear()
    append_lines(session, chain(1, 8, "m007"))  # into the last group
    model.append_entries(session.refresh().appended)
    assert events == [("insert", "Entries 7–8", 1, 1)]
    events.clear()
    append_lines(session, chain(2, 9, "m008"))  # fills the group, then starts a new one
    model.append_entries(session.refresh().appended)
    # (the attached model tester may then fetch the new group's row)
    assert events[:2] == [("insert", "Entries 7–9", 2, 2), ("insert", "user: text 0", 3, 3)]
    last = model.index_for_entry("m010")
    assert last.parent().row() == 3 and last.row() == 0 and last.data(Role.IS_LEAF)
    assert not model.index_for_entry("m009").data(Role.IS_LEAF)
    assert selected.data(Role.ID) == "m002"
    qtmodeltester.check(model)


def custom(eid: str, parent: str, second: int) -> dict:
    ts = f"2026-03-04T00:{second // 60 % 60:02d}:{second % 60:02d}.000Z"
    return {"type": "custom", "id": eid, "parentId": parent, "timestamp": ts, "customType": "x", "data": {}}


@pytest.mark.parametrize("length", [4, 12], ids=["flat", "grouped"])
def test_a_hidden_old_leaf_hands_its_row_to_the_next_entry(
    qtmodeltester, qtbot, tmp_path: Path, length: int
) -> None:
    """A live tail that alternates messages and custom entries: the custom leaf's row is taken over."""
    path = tmp_path / "tail.jsonl"
    write_session(path, chain(length))
    session = load_session(path)
    model = BranchTreeModel(session, filter_mode="default", group_size=3)
    view = QTreeView()
    qtbot.addWidget(view)
    view.setModel(model)
    qtmodeltester.check(model)
    last = f"m{length - 1:03d}"
    view.setCurrentIndex(model.index_for_entry(last))
    append_lines(session, [custom("c1", last, 100)])
    model.append_entries(session.refresh().appended)
    shown = model.index_for_entry("c1")
    row, parent = shown.row(), QPersistentModelIndex(shown.parent())
    assert shown.data(Role.IS_LEAF)  # shown only because it is the leaf

    events: list[tuple] = []
    model.rowsInserted.connect(lambda p, first, last: events.append(("insert", first, last)))
    model.rowsRemoved.connect(lambda p, first, last: events.append(("remove", first, last)))
    model.layoutChanged.connect(lambda: events.append(("layout",)))
    model.modelReset.connect(lambda: events.append(("reset",)))
    model.dataChanged.connect(lambda tl, br, _roles: events.append(("changed", tl.data(Role.ID))))
    append_lines(session, [message("n1", "c1", "user", "after", 101)])
    model.append_entries(session.refresh().appended)
    # no rows come or go: the message takes over the custom entry's row
    assert [e for e in events if e[0] != "changed"] == [] and ("changed", "n1") in events
    assert not model.index_for_entry("c1").isValid()
    leaf = model.index_for_entry("n1")
    assert leaf.row() == row and leaf.parent() == QModelIndex(parent) and leaf.data(Role.IS_LEAF)
    assert leaf.data(DISPLAY) == "user: after"
    assert model.index_for_entry(last).data(Role.ON_PATH)
    qtmodeltester.check(model)
    assert outline(model) == outline(BranchTreeModel(load_session(path), filter_mode="default", group_size=3))


def test_a_hidden_old_leaf_whose_successor_lands_elsewhere_loses_its_row(
    qtmodeltester, qtbot, tmp_path: Path
) -> None:
    path = tmp_path / "two.jsonl"
    # m000 - m001 - m002 - m003, and m001 - s001 (the leaf): m001 is a branch point
    write_session(path, [*chain(4), message("s001", "m001", "assistant", "side", 50)])
    session = load_session(path)
    model = BranchTreeModel(session, filter_mode="default")
    outline(model)
    append_lines(session, [custom("c1", "m003", 100)])  # a custom leaf at the end of the main branch
    model.append_entries(session.refresh().appended)
    shown = model.index_for_entry("c1")
    row, parent_id = shown.row(), shown.parent().data(Role.ID)
    events: list[tuple] = []
    model.rowsRemoved.connect(lambda p, first, last: events.append(("remove", p.data(Role.ID), first, last)))
    model.rowsInserted.connect(lambda p, first, last: events.append(("insert", p.data(Role.ID), first, last)))
    model.layoutChanged.connect(lambda: events.append(("layout",)))
    append_lines(session, [message("s002", "s001", "user", "on the side branch", 101)])
    model.append_entries(session.refresh().appended)
    assert ("remove", parent_id, row, row) in events and ("layout",) not in events
    assert model.index_for_entry("s002").data(Role.IS_LEAF) and not model.index_for_entry("c1").isValid()
    qtmodeltester.check(model)
    assert outline(model) == outline(BranchTreeModel(load_session(path), filter_mode="default"))


@pytest.mark.parametrize("mode", FILTER_MODES)
def test_a_structure_prepared_in_a_worker_gives_the_same_rows(qtmodeltester, qtbot, mode: str) -> None:
    for path in SESSION_FILES:
        session = load_session(path, checksum=False)
        prepared = BranchTreeModel.prepare(session, mode)
        model = BranchTreeModel(filter_mode=mode, group_size=3)
        model.reset_session(session, prepared)
        assert outline(model) == outline(BranchTreeModel(session, filter_mode=mode, group_size=3)), path.name
    qtmodeltester.check(model)


def test_a_prepared_structure_continues_with_later_appends(qtmodeltester, qtbot, tmp_path: Path) -> None:
    path = tmp_path / "chain.jsonl"
    write_session(path, chain(5))
    session = load_session(path)
    stale = BranchTreeModel.prepare(session, "all")
    model = BranchTreeModel(filter_mode="all", group_size=3)
    model.reset_session(session, stale)  # rows not fetched yet
    append_lines(session, chain(2, 5, "m004"))
    model.append_entries(session.refresh().appended)
    assert outline(model) == outline(BranchTreeModel(session, filter_mode="all", group_size=3))
    assert model.index_for_entry("m006").data(Role.IS_LEAF)
    # a structure made before the appends is not used for the session as it is now
    model.reset_session(session, stale)
    assert outline(model) == outline(BranchTreeModel(session, filter_mode="all", group_size=3))
    qtmodeltester.check(model)


# ---------------------------------------------------------------------- appends that core.visible decides
def test_a_hidden_old_leaf_of_unfetched_rows_does_not_come_back(qtmodeltester, qtbot, tmp_path: Path) -> None:
    """A prepared chain whose rows no view fetched yet, ending in a custom leaf that a message hides."""
    path = tmp_path / "prepared.jsonl"
    write_session(path, [*chain(4), custom("c1", "m003", 100)])
    session = load_session(path)
    model = BranchTreeModel(filter_mode="default")
    model.reset_session(session, BranchTreeModel.prepare(session, "default"))
    append_lines(session, [message("n1", "c1", "user", "after", 101)])
    model.append_entries(session.refresh().appended)
    assert outline(model) == [(0, "m000"), (1, "m001"), (1, "m002"), (1, "m003"), (1, "n1")]
    assert outline(model) == outline(BranchTreeModel(session, filter_mode="default"))
    qtmodeltester.check(model)


def test_the_parent_an_orphan_waited_for_adopts_it(qtmodeltester, qtbot, tmp_path: Path) -> None:
    path = tmp_path / "orphan.jsonl"
    write_session(path, [*chain(3), message("w1", "w2", "user", "early", 50)])
    session = load_session(path)
    model = BranchTreeModel(session, filter_mode="all")
    assert outline(model)[-1] == (0, "w1")  # a root while its parent is missing
    events: list[str] = []
    model.layoutChanged.connect(lambda: events.append("layout"))
    append_lines(session, [message("w2", "m002", "user", "the parent", 60)])
    model.append_entries(session.refresh().appended)
    assert events == ["layout"]
    assert outline(model) == outline(BranchTreeModel(session, filter_mode="all"))
    assert model.index_for_entry("w1").parent().data(Role.ID) == "m000"  # in the chain, after w2
    qtmodeltester.check(model)


def test_a_new_root_after_a_cut_loop_is_placed_like_core_places_it(
    qtmodeltester, qtbot, tmp_path: Path
) -> None:
    path = tmp_path / "loop.jsonl"
    # a1 and a2 name each other as parents: core's tree cuts the loop at a1 and lists it after every root
    write_session(path, [message("a1", "a2", "user", "one", 1), message("a2", "a1", "user", "two", 2)])
    session = load_session(path)
    model = BranchTreeModel(session, filter_mode="all")
    outline(model)
    append_lines(session, [message("r1", None, "user", "a new root", 3)])
    model.append_entries(session.refresh().appended)
    assert [i.data(Role.ID) for i in rows(model)] == ["r1", "a1"]
    assert outline(model) == outline(BranchTreeModel(session, filter_mode="all"))
    qtmodeltester.check(model)


@settings(max_examples=60, deadline=None, database=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    history=histories(),
    mode=st.sampled_from(FILTER_MODES),
    group_size=st.integers(1, 3),
    batch=st.integers(1, 3),
    fetches=st.lists(st.integers(0, 40), max_size=8),
    prepared=st.booleans(),
)
def test_random_appends_to_a_partly_fetched_model_give_a_fresh_models_rows(
    qapp,
    history: tuple[list[dict], list[int]],
    mode: str,
    group_size: int,
    batch: int,
    fetches: list[int],
    prepared: bool,
) -> None:
    """Random sessions and append batches, with random rows fetched, under Qt's model tester: after each
    batch the model shows what a model built on the session from scratch shows."""
    with tempfile.TemporaryDirectory() as folder:
        session, batches = replay(history, folder)
        model = BranchTreeModel(filter_mode=mode, batch_size=batch, group_size=group_size)
        model.reset_session(session, BranchTreeModel.prepare(session, mode) if prepared else None)
        complaints: list[str] = []
        previous = qInstallMessageHandler(lambda _kind, _context, text: complaints.append(text))
        tester = QAbstractItemModelTester(model, QAbstractItemModelTester.FailureReportingMode.Warning)
        try:
            for lines in batches:
                # Fetch some rows, as a view scrolling and expanding would: one batch below a known row.
                known = [QModelIndex()]
                for pick in fetches:
                    parent = known[pick % len(known)]
                    if model.canFetchMore(parent):
                        model.fetchMore(parent)
                    known.extend(model.index(r, 0, parent) for r in range(model.rowCount(parent)))
                if not lines:
                    continue
                model.append_entries(refreshed(session, lines))
                assert complaints == []
                fresh = BranchTreeModel(session, filter_mode=mode, group_size=group_size)
                assert outline(model) == outline(fresh)
                assert model.leaf_id == session.leaf_id
                for eid in [eid for _depth, eid in outline(fresh) if eid is not None]:  # not group rows
                    index = model.index_for_entry(eid)
                    assert index.data(Role.ON_PATH) == fresh.index_for_entry(eid).data(Role.ON_PATH)
                    assert index.data(Role.IS_LEAF) == (eid == session.leaf_id)
            assert complaints == []
        finally:
            del tester
            qInstallMessageHandler(previous)


def test_the_reading_marker_moves_without_the_selection(qtbot) -> None:
    """The transcript's "you are here": one row tinted at a time, checked by Qt's model tester."""
    session = load_session(BRANCHES, checksum=False)
    model = BranchTreeModel(session, filter_mode="all")
    complaints: list[str] = []
    previous = qInstallMessageHandler(lambda _kind, _context, text: complaints.append(text))
    tester = QAbstractItemModelTester(model, QAbstractItemModelTester.FailureReportingMode.Warning)
    changed: list[str] = []
    model.dataChanged.connect(lambda top, _bottom, roles: changed.append(top.data(Role.ID)))
    try:
        path = [e.id for e in session.path_to(session.leaf_id)]
        for eid in (path[3], path[7], path[7], "9fe792d3"):
            index = model.set_reading(eid)
            assert index.isValid() and model.reading_id == eid
            assert index.data(Role.READING) is True
            assert index.data(Qt.ItemDataRole.BackgroundRole) is not None
            tinted = [e for _d, e in outline(model) if model.index_for_entry(e).data(Role.READING)]
            assert tinted == [eid]
        assert changed == [path[3], path[3], path[7], path[7], path[7], "9fe792d3"]
    finally:
        qInstallMessageHandler(previous)
        del tester
    assert not complaints
    model.reset_session(load_session(BRANCHES, checksum=False))  # another session object: no marker
    assert model.reading_id is None
