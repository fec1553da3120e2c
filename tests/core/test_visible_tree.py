"""core.visible without Qt: filter modes, heads and chains, groups, and what each kind of append changes."""

from __future__ import annotations

import tempfile
from datetime import UTC, datetime, timedelta
from pathlib import Path

import orjson
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from core import load_session
from core.session import Entry, Session
from core.visible import (
    FILTER_MODES,
    AppendResult,
    RowAppended,
    RowVacated,
    TreeStructure,
    VisibleTree,
    check_mode,
    passes,
    prepare,
)
from tests.conftest import DEMO, SAMPLES

PI_SESSIONS = SAMPLES / "pi-layout" / "sessions"
SESSION_FILES = sorted(PI_SESSIONS.glob("*/*.jsonl")) + sorted(DEMO.glob("*.jsonl"))
BRANCHES = next(PI_SESSIONS.glob("*/2026-03-03T14-02-51-403Z_*.jsonl"))
LINEAR = next(PI_SESSIONS.glob("*/2026-03-02T09-14-07-122Z_*.jsonl"))
HEADER = {"type": "session", "version": 3, "id": "s-1", "timestamp": "2026-01-01T00:00:00.000Z", "cwd": "/x"}
EPOCH = datetime(2026, 3, 4, tzinfo=UTC)


# ---------------------------------------------------------------------- sessions on disk
def line(eid: str, parent: str | None, kind: str = "user", second: int | None = 0, **extra: object) -> dict:
    """One entry: a message of role ``kind``, or an entry of type ``kind`` (custom, label, model_change)."""
    ts = (
        "not a time" if second is None else (EPOCH + timedelta(seconds=second)).strftime("%Y-%m-%dT%H:%M:%SZ")
    )
    obj: dict[str, object] = {"id": eid, "parentId": parent, "timestamp": ts}
    if kind in ("user", "assistant", "toolResult"):
        content: object = f"text of {eid}" if kind == "user" else [{"type": "text", "text": f"text of {eid}"}]
        obj |= {"type": "message", "message": {"role": kind, "content": content}}
    elif kind == "custom":
        obj |= {"type": "custom", "customType": "x", "data": {}}
    elif kind == "model_change":
        obj |= {"type": "model_change", "provider": "p", "modelId": "m"}
    else:
        obj |= {"type": "label", "targetId": parent, "label": eid}
    return obj | extra


def chain(count: int, first: int = 0, parent: str | None = None) -> list[dict]:
    """``count`` messages m<first>, m<first+1>, ... each the child of the one before, user and assistant."""
    found = []
    for i in range(first, first + count):
        found.append(line(f"m{i:03d}", parent, "user" if i % 2 == 0 else "assistant", i))
        parent = f"m{i:03d}"
    return found


def write(path: Path, objects: list[dict], *, header: bool = True) -> None:
    with open(path, "ab" if not header else "wb") as handle:
        handle.write(b"".join(orjson.dumps(o) + b"\n" for o in ([HEADER] if header else []) + objects))


def session_of(tmp_path: Path, objects: list[dict]) -> Session:
    path = tmp_path / "s.jsonl"
    write(path, objects)
    return load_session(path)


def refreshed(session: Session, objects: list[dict]) -> list[Entry]:
    """Append ``objects`` to the session's file; returns what ``Session.refresh()`` read."""
    write(Path(session.path), objects, header=False)
    result = session.refresh()
    assert not result.reloaded
    return result.appended


def append(tree: VisibleTree, objects: list[dict], shown: tuple[str, ...] = ()) -> AppendResult:
    """Append ``objects`` to the tree's session file, refresh it and hand the appended entries to the tree."""
    assert tree.session is not None
    return tree.append(refreshed(tree.session, objects), shown=shown)


def replay(history: tuple[list[dict], list[int]], folder: str) -> tuple[Session, list[list[dict]]]:
    """Write the first part of a random history (see :func:`histories`) to a session file in ``folder``;
    returns its session and the batches to append after it."""
    objects, cuts = history
    path = Path(folder) / "s.jsonl"
    first = cuts[0] if cuts else len(objects)
    write(path, objects[:first])
    bounds = zip([first, *cuts[1:]], [*cuts[1:], len(objects)], strict=True)
    return load_session(path), [objects[start:end] for start, end in bounds]


def layout(tree: VisibleTree) -> dict[str, object]:
    """Everything the tree shows, from the top level down (makes every holder's rows): to compare trees."""
    holders: dict[str | None, tuple[list[str], bool]] = {}
    stack: list[str | None] = [None]
    while stack:
        holder = stack.pop()
        rows = [e.id for e in tree.rows(holder)]
        holders[holder] = (rows, tree.is_grouped(holder))
        stack.extend(rows)
    shown = [eid for rows, _grouped in holders.values() for eid in rows]
    assert len(shown) == len(set(shown))  # every visible entry is the row of exactly one holder
    return {
        "holders": holders,
        "kids": {eid: [e.id for e in tree.visible_children(eid)] for eid in [None, *shown]},
        "where": {eid: (tree.holder_of(eid), tree.position(eid), tree.is_head(eid)) for eid in shown},
        "path": set(tree.path),
        "leaf": tree.leaf,
    }


def outline(tree: VisibleTree) -> list[tuple[int, str]]:
    """Every row as (depth, id) in display order (groups not counted as a level)."""
    found: list[tuple[int, str]] = []
    stack = [(0, e.id) for e in reversed(tree.rows(None))]
    while stack:
        depth, eid = stack.pop()
        found.append((depth, eid))
        stack.extend((depth + 1, e.id) for e in reversed(tree.rows(eid)))
    return found


def ids(steps: object) -> list[tuple[str, str | None, int, str, bool | None]]:
    assert isinstance(steps, list | tuple)
    return [
        (
            type(s).__name__,
            s.holder,
            s.position,
            s.entry.id,
            s.takeover if isinstance(s, RowAppended) else None,
        )
        for s in steps
    ]


# ---------------------------------------------------------------------- filter modes
def test_filter_modes_on_the_branches_sample() -> None:
    session = load_session(BRANCHES, checksum=False)
    counts = {}
    for mode in FILTER_MODES:
        tree = VisibleTree(session, mode)
        shown = [session.by_id[eid] for _depth, eid in outline(tree)]
        counts[mode] = len(shown)
        assert session.leaf in shown  # the leaf is always visible
        assert all(passes(e, mode, session) for e in shown if e is not session.leaf)
        hidden = [e for e in session.entries if not tree.is_visible(e.id)]
        assert not any(passes(e, mode, session) for e in hidden)
    assert counts == {"default": 27, "no-tools": 18, "user": 5, "labeled": 3, "all": 35}
    assert [eid for _d, eid in outline(VisibleTree(session, "labeled"))] == [
        "9fe792d3",
        "c9332a10",
        "c5a192f8",
    ]
    with pytest.raises(ValueError, match="unknown filter mode 'bogus'"):
        VisibleTree(session, "bogus")
    assert check_mode("user") == "user"


def test_what_each_mode_passes(tmp_path: Path) -> None:
    session = session_of(
        tmp_path,
        [
            line("u", None, "user"),
            line("a", "u", "assistant"),
            line("t", "a", "toolResult"),
            line("c", "t", "custom"),
            line("m", "c", "model_change"),
            line("l", "m", "label", targetId="a", label="kept"),
            line("z", "l", "user"),
        ],
    )
    table = {
        mode: "".join(e.id for e in session.entries if passes(e, mode, session)) for mode in FILTER_MODES
    }
    assert table == {"default": "uatz", "no-tools": "uaz", "user": "uz", "labeled": "a", "all": "uatcmlz"}
    assert not passes(session.by_id["a"], "labeled", None)


# ---------------------------------------------------------------------- heads, chains, groups
def test_a_linear_conversation_is_one_chain_under_its_root() -> None:
    session = load_session(LINEAR, checksum=False)
    tree = VisibleTree(session, "all")
    root = session.tree.roots[0].id
    assert [e.id for e in tree.rows(None)] == [root]
    assert [e.id for e in tree.rows(root)] == session.tree.order[1:]
    assert all(tree.holder_of(eid) == root and not tree.is_head(eid) for eid in session.tree.order[1:])
    assert tree.ancestry(session.leaf_id) == [root, session.leaf_id]
    assert tree.position(session.leaf_id) == len(session.entries) - 2
    assert tree.path == set(session.tree.order) and tree.leaf == session.leaf_id


def test_branch_points_hold_heads_and_heads_hold_chains() -> None:
    session = load_session(BRANCHES, checksum=False)
    tree = VisibleTree(session, "all")
    (branch_point,) = [k for k, v in session.tree.children.items() if len(v) > 1]
    heads = ["9fe792d3", "2d71619e", "c9332a10"]
    root = session.tree.roots[0].id
    assert tree.ancestry(branch_point) == [root, branch_point]
    assert [e.id for e in tree.rows(branch_point)] == heads
    for head in heads:
        assert tree.is_head(head) and tree.holder_of(head) == branch_point
        expected, current = [], session.tree.children_of(head)
        while current:
            expected.append(current[0].id)
            current = session.tree.children_of(current[0].id)
        assert [e.id for e in tree.rows(head)] == expected
        assert all(tree.holder_of(eid) == head and tree.rows(eid) == [] for eid in expected)
    assert tree.ancestry("c5a192f8") == [root, branch_point, "c9332a10", "c5a192f8"]
    assert len(outline(tree)) == 35


def test_hidden_entries_hand_their_children_to_the_nearest_visible_ancestor() -> None:
    tree = VisibleTree(load_session(BRANCHES, checksum=False), "user")
    assert [e.id for e in tree.rows(None)] == ["99da7146"]  # the model_change root is hidden
    assert [e.id for e in tree.rows("99da7146")] == ["9fe792d3", "2d71619e", "63647ded"]
    assert [e.id for e in tree.rows("63647ded")] == ["c5a192f8"]
    assert tree.holder_of("c5a192f8") == "63647ded"


def test_more_than_twice_the_group_size_rows_are_grouped(tmp_path: Path) -> None:
    tree = VisibleTree(session_of(tmp_path, chain(12)), "all", group_size=3)
    assert len(tree.rows("m000")) == 11 and tree.is_grouped("m000") and not tree.is_grouped(None)
    assert tree.group_count(11) == 4 and tree.group_of(tree.position("m010")) == (3, 0)
    flat = VisibleTree(session_of(tmp_path, chain(7)), "all", group_size=3)
    assert len(flat.rows("m000")) == 6 and not flat.is_grouped("m000")


@pytest.mark.parametrize("mode", FILTER_MODES)
def test_a_prepared_structure_lays_out_like_a_fresh_one(mode: str) -> None:
    for path in SESSION_FILES:
        session = load_session(path, checksum=False)
        prepared = prepare(session, mode, preview_width=60, preview_rows=5)
        assert prepared.matches(session, mode) and not prepared.matches(session, "bogus")
        tree = VisibleTree(session, mode, group_size=3, prepared=prepared)
        assert tree.structure is prepared
        assert layout(tree) == layout(VisibleTree(session, mode, group_size=3)), path.name
        near_leaf = [e.id for e in session.path_to(session.leaf_id)[-5:] if tree.is_visible(e.id)]
        assert list(prepared.previews) == near_leaf and prepared.preview_width == 60
        assert all(isinstance(text, str) and text for text in prepared.previews.values())


def test_an_empty_tree() -> None:
    tree = VisibleTree(None)
    assert tree.rows(None) == [] and tree.leaf is None and tree.path == set()
    assert tree.append([]) == AppendResult((), frozenset(), None, None)
    assert not TreeStructure(None, "default").matches(None, "default")


# ---------------------------------------------------------------------- appends
def test_a_plain_append_extends_the_leafs_chain(tmp_path: Path) -> None:
    session = session_of(tmp_path, chain(5))
    tree = VisibleTree(session, "all")
    path = tree.path
    tree.rows("m000")
    result = append(tree, chain(2, 5, "m004"))
    assert result.relayout is None and result.vacant is None
    assert ids(result.steps) == [
        ("RowAppended", "m000", 4, "m005", False),
        ("RowAppended", "m000", 5, "m006", False),
    ]
    assert result.changed == {"m004", "m005", "m006"}  # the old leaf, and the new entries joined the path
    assert tree.leaf == "m006" and tree.path is path  # a live tail extends the path in place
    assert layout(tree) == layout(VisibleTree(session, "all"))


def test_appends_to_rows_nobody_asked_for_are_not_reported(tmp_path: Path) -> None:
    session = session_of(tmp_path, chain(5))
    tree = VisibleTree(session, "all")
    result = append(tree, chain(1, 5, "m004"))
    assert result.steps == [] and result.changed == {"m004", "m005"} and not tree.has_rows_made("m000")
    # A holder the consumer shows gets its rows made first, so the new row is reported.
    result = append(tree, [line("m006", "m005", "user", 6)], shown=("m000",))
    assert ids(result.steps) == [("RowAppended", "m000", 5, "m006", False)]
    assert [e.id for e in tree.rows("m000")] == ["m001", "m002", "m003", "m004", "m005", "m006"]


def test_an_append_on_another_branch_moves_the_path(tmp_path: Path) -> None:
    path = tmp_path / "b.jsonl"
    path.write_bytes(BRANCHES.read_bytes())
    tree = VisibleTree(load_session(path), "all")
    old_path = set(tree.path)
    result = append(tree, [line("r1", "510bec83", "user", 3000)], shown=("2d71619e",))
    assert ids(result.steps) == [("RowAppended", "2d71619e", 7, "r1", False)]
    assert result.relayout is None and tree.leaf == "r1"
    assert result.changed == old_path ^ tree.path and "c5a192f8" in result.changed and "r1" in tree.path
    assert "c9332a10" not in tree.path and "99da7146" in tree.path  # the shared trunk stays on the path


def test_a_hidden_old_leaf_hands_its_row_to_the_next_entry(tmp_path: Path) -> None:
    session = session_of(tmp_path, chain(4))
    tree = VisibleTree(session, "default")
    tree.rows("m000")
    result = append(tree, [line("c1", "m003", "custom", 100)])
    assert ids(result.steps) == [("RowAppended", "m000", 3, "c1", False)]  # shown while it is the leaf
    result = append(tree, [line("n1", "c1", "user", 101)])
    assert ids(result.steps) == [
        ("RowVacated", "m000", 3, "c1", None),
        ("RowAppended", "m000", 3, "n1", True),
    ]
    assert result.vacant is None and result.relayout is None
    assert not tree.is_visible("c1") and result.changed == {"c1", "n1"}
    assert layout(tree) == layout(VisibleTree(session, "default"))


def test_a_vacated_row_nobody_takes_is_left_to_remove(tmp_path: Path) -> None:
    # m000 - m001 - m002 - m003, and m001 - s001: m001 is a branch point
    session = session_of(tmp_path, [*chain(4), line("s001", "m001", "assistant", 50)])
    tree = VisibleTree(session, "default")
    outline(tree)
    append(tree, [line("c1", "m003", "custom", 100)])
    result = append(tree, [line("s002", "s001", "user", 101)])
    assert ids(result.steps) == [
        ("RowVacated", "m002", 1, "c1", None),
        ("RowAppended", "s001", 0, "s002", False),
    ]
    assert result.vacant == result.steps[0]
    assert layout(tree) == layout(VisibleTree(session, "default"))


def test_a_vacated_row_in_groups(tmp_path: Path) -> None:
    session = session_of(tmp_path, chain(10))  # the root and 9 rows: groups of 3
    tree = VisibleTree(session, "default", group_size=3)
    assert tree.is_grouped("m000")
    append(tree, [line("c1", "m009", "custom", 100)])  # row 9: the first of a fourth group
    result = append(tree, [line("n1", "c1", "user", 101)])
    vacated, taken = result.steps
    assert isinstance(vacated, RowVacated) and (vacated.group, vacated.row) == (
        3,
        0,
    )  # the group is empty now
    assert isinstance(taken, RowAppended) and taken.takeover and (taken.group, taken.row) == (3, 0)
    assert layout(tree) == layout(VisibleTree(session, "default", group_size=3))


def test_a_hidden_old_leaf_of_rows_not_made_yet_does_not_come_back(tmp_path: Path) -> None:
    session = session_of(tmp_path, [*chain(4), line("c1", "m003", "custom", 100)])
    tree = VisibleTree(session, "default", prepared=prepare(session, "default"))  # the chain is prepared
    result = append(tree, [line("n1", "c1", "user", 101)])
    assert result.steps == [] and result.relayout is None
    assert [e.id for e in tree.rows("m000")] == ["m001", "m002", "m003", "n1"]


@pytest.mark.parametrize(
    ("objects", "mode", "reason"),
    [
        ([line("f1", "m002", "assistant", 50)], "all", "branch point"),  # m002 had one child
        ([line("m001", "m004", "user", 50)], "all", "duplicate id"),
        ([line("o1", "nowhere", "user", 50)], "all", "broken link"),  # an orphan
        ([line("s1", "s1", "user", 50)], "all", "broken link"),  # its own parent
        ([line("w1", "w2", "user", 50), line("w2", "m004", "user", 51)], "all", "broken link"),  # forward
        ([line("l1", "m006", "label", 50, targetId="m006", label="x")], "labeled", "label"),  # keeps the leaf
        ([line("m007", "m006", "user", 7)], "all", "groups"),  # the seventh row of groups of three
        ([line("n1", "m000", "user", 50)], "user", "hidden top"),  # below the hidden model_change root
    ],
    ids=lambda v: v if isinstance(v, str) else None,
)
def test_appends_that_need_a_relayout(tmp_path: Path, objects: list[dict], mode: str, reason: str) -> None:
    root = line("m000", None, "model_change" if mode == "user" else "user", 0)
    session = session_of(tmp_path, [root, *chain(6, 1, "m000")])
    tree = VisibleTree(session, mode, group_size=3)
    outline(tree)
    result = append(tree, objects, shown=tuple(eid for _d, eid in outline(tree)))
    assert result.relayout == reason and result.changed == frozenset() and result.vacant is None
    tree.rebuild()
    assert layout(tree) == layout(VisibleTree(session, mode, group_size=3))


def test_a_sibling_sorting_first_and_an_old_leaf_at_the_top_need_a_relayout(tmp_path: Path) -> None:
    session = session_of(
        tmp_path, [*chain(3), line("b1", "m001", "user", 10), line("b2", "m001", "user", 20)]
    )
    tree = VisibleTree(session, "all")
    assert append(tree, [line("b0", "m001", "user", 5)]).relayout == "sibling order"
    tree.rebuild()
    assert append(tree, [line("b3", "m001", "user", 30)]).relayout is None  # after the last: appended
    top = VisibleTree(session_of(tmp_path, [line("c0", None, "custom", 0)]), "default")
    assert top.rows(None)[0].id == "c0"
    assert append(top, [line("n0", "c0", "user", 1)]).relayout == "old leaf"  # a top-level row


def test_the_parent_an_orphan_waited_for_is_a_relayout(tmp_path: Path) -> None:
    session = session_of(tmp_path, [*chain(3), line("w1", "w2", "user", 50)])
    tree = VisibleTree(session, "all")
    assert tree.structure.awaited == {"w2"} and tree.holder_of("w1") is None  # a root while w2 is missing
    assert append(tree, [line("w2", "m002", "user", 60)], shown=("m000",)).relayout == "broken link"
    tree.rebuild()
    assert tree.holder_of("w1") == "m000" and layout(tree) == layout(VisibleTree(session, "all"))


def test_a_new_root_after_a_cut_loop_is_a_relayout(tmp_path: Path) -> None:
    # a1 and a2 name each other: core's tree cuts the loop at a1 and lists it after every other root
    session = session_of(tmp_path, [line("a1", "a2", "user", 1), line("a2", "a1", "user", 2)])
    tree = VisibleTree(session, "all")
    assert tree.structure.cycle_roots
    assert append(tree, [line("r1", None, "user", 3)]).relayout == "broken link"
    tree.rebuild()
    assert [e.id for e in tree.rows(None)] == ["r1", "a1"] == [e.id for e in session.tree.roots]


@pytest.mark.parametrize(
    ("parent", "second"),
    [("a0", 30), ("c1", 60)],
    ids=["beside a hidden branch", "below a hidden entry"],
)
def test_a_child_of_a_branch_point_with_hidden_branches_is_a_relayout(
    tmp_path: Path, parent: str, second: int
) -> None:
    """a0's children are u1 (10 s) and the custom c1 (50 s), which holds u2 (20 s): a0 shows u1 and u2.

    A new child's place among them follows c1's place among a0's children, not the new child's time.
    """
    objects = [line("a0", None, "assistant", 0), line("u1", "a0", "user", 10), line("c1", "a0", "custom", 50)]
    session = session_of(tmp_path, [*objects, line("u2", "c1", "user", 20)])
    tree = VisibleTree(session, "default")
    assert [e.id for e in tree.rows("a0")] == ["u1", "u2"]
    assert append(tree, [line("u3", parent, "user", second)], shown=("a0",)).relayout == "sibling order"
    tree.rebuild()
    assert layout(tree) == layout(VisibleTree(session, "default"))


def test_a_former_leaf_with_children_from_earlier_lines_is_a_relayout(tmp_path: Path) -> None:
    # k1 names the custom leaf c9 as its parent before c9's line: hiding c9 moves where k1 hangs
    session = session_of(
        tmp_path, [*chain(2), line("k1", "c9", "custom", 5), line("c9", "m001", "custom", 9)]
    )
    tree = VisibleTree(session, "default")
    assert tree.structure.leaf_has_children and tree.is_visible("c9") and not tree.is_visible("k1")
    assert append(tree, [line("n1", "m001", "user", 20)], shown=("m000",)).relayout == "old leaf"
    tree.rebuild()
    assert append(tree, [line("n2", "k1", "user", 30)], shown=("m000",)).relayout == "branch point"
    tree.rebuild()
    assert layout(tree) == layout(VisibleTree(session, "default"))


def test_labels_change_their_targets_rows(tmp_path: Path) -> None:
    session = session_of(tmp_path, chain(4))
    tree = VisibleTree(session, "default")
    result = append(tree, [line("l1", "m003", "label", 50, targetId="m001", label="here")])
    assert result.relayout is None and "m001" in result.changed
    assert tree.is_visible("l1") and tree.leaf == "l1"  # a label is hidden, but the leaf always shown
    assert session.label_for("m001") == "here"


# ---------------------------------------------------------------------- property: append == from scratch
KINDS = ("user", "user", "assistant", "assistant", "toolResult", "custom", "label", "model_change")


@st.composite
def histories(draw: st.DrawFn) -> tuple[list[dict], list[int]]:
    """A random session's entries (chains, branches, hidden kinds, labels, the odd broken link, repeated id
    or unordered time) and where the file is cut into the initial load and the appended batches."""
    count = draw(st.integers(1, 24))
    objects: list[dict] = []
    for i in range(count):
        eid = f"e{i:02d}"
        made = [o["id"] for o in objects]
        parent: str | None
        how = draw(st.sampled_from(["last"] * 6 + ["any"] * 3 + ["root", "odd"]))
        if not made or how == "root":
            parent = None
        elif how == "last":
            parent = made[-1]
        elif how == "any":
            parent = draw(st.sampled_from(made))
        else:
            parent = draw(st.sampled_from(["nowhere", eid, f"e{i + 1:02d}"]))  # orphan, self, forward
        if made and draw(st.integers(0, 19)) == 0:
            eid = draw(st.sampled_from(made))  # a repeated id: the later line wins
        kind = draw(st.sampled_from(KINDS))
        second = draw(st.sampled_from([i * 10] * 8 + [i * 10 - 15, None]))
        extra: dict[str, object] = {}
        if kind == "label":
            extra = {"targetId": draw(st.sampled_from([*made, "nowhere"] if made else ["nowhere"]))}
            extra["label"] = draw(st.sampled_from(["x", "y", ""]))
        objects.append(line(eid, parent, kind, second, **extra))
    cuts = sorted(draw(st.lists(st.integers(0, count), max_size=5)))
    return objects, cuts


def _msg(eid: str, parent: str | None, second: int, role: str = "user") -> dict:
    content = f"text of {eid}" if role == "user" else [{"type": "text", "text": f"text of {eid}"}]
    minute, sec = divmod(second, 60)
    return {
        "id": eid,
        "parentId": parent,
        "timestamp": f"2026-03-04T00:{minute:02d}:{sec:02d}Z",
        "type": "message",
        "message": {"role": role, "content": content},
    }


# Found by hypothesis in CI: a leaf appended under a loop of two ids (e02 -> e08 -> e02), repeated ids.
LOOP_UNDER_LEAF = (
    [
        _msg("e00", None, 0),
        _msg("e00", "e00", 10),
        _msg("e02", "e00", 20),
        _msg("e00", "e02", 30),
        _msg("e00", "e00", 40),
        _msg("e05", "e00", 50),
        _msg("e06", "e05", 60),
        _msg("e02", "e08", 70),
        _msg("e08", "e02", 80, "toolResult"),
        _msg("e09", "e08", 90, "toolResult"),
        _msg("e10", "e02", 100),
    ],
    [9],
)


@example(history=LOOP_UNDER_LEAF, mode="no-tools", group_size=1, use_prepared=False, asked=[], show="none")
@settings(max_examples=150, deadline=None, database=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    history=histories(),
    mode=st.sampled_from(FILTER_MODES),
    group_size=st.integers(1, 4),
    use_prepared=st.booleans(),
    asked=st.lists(st.integers(0, 30), max_size=6),
    show=st.sampled_from(["none", "made", "all"]),
)
def test_appends_leave_the_tree_as_a_fresh_layout_of_the_session(
    history: tuple[list[dict], list[int]],
    mode: str,
    group_size: int,
    use_prepared: bool,
    asked: list[int],
    show: str,
) -> None:
    with tempfile.TemporaryDirectory() as folder:
        session, batches = replay(history, folder)
        prepared = prepare(session, mode, preview_rows=3) if use_prepared else None
        if prepared is not None:  # the previews are read for the end of the leaf's path, loops or not
            near_leaf = [e.id for e in session.path_to(session.leaf_id)[-3:] if e.id in prepared.vparent]
            assert list(prepared.previews) == near_leaf
        tree = VisibleTree(session, mode, group_size=group_size, prepared=prepared)
        for batch in batches:
            # Ask for some holders' rows, as a view showing some of them would.
            visible = [e.id for e in session.entries if tree.is_visible(e.id)]
            for pick in asked:
                if visible:
                    tree.ancestry(visible[pick % len(visible)])
                    tree.rows(visible[pick % len(visible)])
            if not batch:
                continue
            old_path, old_leaf = set(tree.path), tree.leaf
            visible = [e.id for e in session.entries if tree.is_visible(e.id)]
            shown = {"none": (), "made": tuple(v for v in visible if tree.has_rows_made(v)), "all": visible}
            result = tree.append(refreshed(session, batch), shown=shown[show])
            fresh = VisibleTree(session, mode, group_size=group_size)
            if result.relayout is not None:
                tree.rebuild()
            else:
                assert set(result.changed) >= (old_path ^ tree.path) | {old_leaf, tree.leaf} - {None}
                for step in result.steps:
                    if isinstance(step, RowAppended):  # where the step put it is where it belongs
                        assert (fresh.holder_of(step.entry.id), fresh.position(step.entry.id)) == (
                            step.holder,
                            step.position,
                        )
                        assert step.group == (
                            fresh.group_of(step.position)[0] if fresh.is_grouped(step.holder) else -1
                        )
            every = list(session.by_id)
            assert [i for i in every if tree.is_visible(i)] == [i for i in every if fresh.is_visible(i)]
            # The rows already made are those of a fresh layout, before anything else is asked.
            for holder in [None, *(e.id for e in session.entries)]:
                if (holder is None or tree.is_visible(holder)) and tree.has_rows_made(holder):
                    assert [e.id for e in tree.rows(holder)] == [e.id for e in fresh.rows(holder)], holder
                    assert tree.is_grouped(holder) == fresh.is_grouped(holder)
            assert tree.path == fresh.path and tree.leaf == fresh.leaf
        assert layout(tree) == layout(VisibleTree(session, mode, group_size=group_size))
