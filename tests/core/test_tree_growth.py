"""A session's tree taken on as lines are appended equals the tree built again (issue 27).

After every line a live session gets, the tree was built again from every entry (0.8 s at 520,000, on
the window's GUI thread). Now the appended entries are taken into it when nothing already placed moves;
whatever is appended (chains, branches, orphans, self-parents, repeated ids, an entry an orphan awaited,
loops, torn lines), the tree and the diagnostics must be those of a fresh read of the same file.
"""

from __future__ import annotations

from pathlib import Path

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from core.session import load_session
from core.session.jsonl import encode_json
from core.session.tree import SessionTree
from tests.core.test_reading_properties import session_bytes


def _shape(tree: SessionTree) -> tuple[object, ...]:
    return (
        [entry.id for entry in tree.roots],
        {parent: [(kid.id, kid.line) for kid in kids] for parent, kids in tree.children.items() if kids},
        tree.root_ids,
        sorted((d.line, d.kind, d.message, d.entry_id) for d in tree.diagnostics),
        tree.order,
    )


@st.composite
def _appended(draw: st.DrawFn, ids: list[str]) -> bytes:
    """Entries naming earlier ids, new ids, each other, or nothing; sometimes a torn last line."""
    lines = []
    fresh: list[str] = []
    for number in range(draw(st.integers(1, 6))):
        entry_id = draw(st.one_of(st.just(f"n{number}"), st.sampled_from(["a", "b", "n0", "n1", *ids[:3]])))
        parent = draw(st.one_of(st.none(), st.sampled_from([*ids[-3:], *fresh, entry_id, "n5", "zz"])))
        entry = {"type": "message", "id": entry_id, "parentId": parent}
        entry["timestamp"] = draw(
            st.sampled_from(["2026-01-01T00:00:00Z", "2025-01-01T00:00:00Z", "garbage"])
        )
        entry["message"] = {"role": "user", "content": "x"}
        lines.append(encode_json(entry))
        fresh.append(entry_id)
    return b"\n".join(lines) + b"\n" + (b'{"type":' if draw(st.integers(0, 7)) == 0 else b"")


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(base=session_bytes(), data=st.data())
@example(
    base=b'{"type":"session","version":3,"id":"s"}\n{"type":"message","id":"a","parentId":"x"}\n', data=None
)
def test_a_grown_tree_equals_the_tree_built_again(tmp_path: Path, base: bytes, data: st.DataObject) -> None:
    path = tmp_path / "grows.jsonl"
    path.write_bytes(base if not base or base.endswith(b"\n") else base + b"\n")
    session = load_session(path)
    session.tree  # noqa: B018 (built, so the refresh takes the new entries into it)
    rounds = data.draw(st.integers(1, 3)) if data is not None else 1
    for _ in range(rounds):
        ids = [entry.id for entry in session.entries]
        more = (
            data.draw(_appended(ids))
            if data is not None
            else b'{"type":"message","id":"x","parentId":null}\n'
        )
        with open(path, "ab") as handle:
            handle.write(more)
        session.refresh()
        fresh = load_session(path)
        assert _shape(session.tree) == _shape(SessionTree(session.entries, session.by_id))
        assert _shape(session.tree) == _shape(fresh.tree)
        assert session.diagnostics == fresh.diagnostics


def test_a_line_appended_to_a_live_session_is_taken_into_its_tree(tmp_path: Path) -> None:
    path = tmp_path / "live.jsonl"
    header = encode_json({"type": "session", "version": 3, "id": "s", "timestamp": "2026-01-01T00:00:00Z"})
    first = encode_json({"type": "message", "id": "a", "parentId": None, "timestamp": "2026-01-01T00:00:00Z"})
    path.write_bytes(header + b"\n" + first + b"\n")
    session = load_session(path)
    tree = session.tree
    with open(path, "ab") as handle:
        handle.write(
            encode_json({"type": "message", "id": "b", "parentId": "a", "timestamp": "2026-01-01"}) + b"\n"
        )
    session.refresh()
    assert session.tree is tree  # not built again
    assert [kid.id for kid in tree.children_of("a")] == ["b"] and tree.order == ["a", "b"]


def test_after_a_cut_loop_a_new_root_goes_where_a_rebuild_puts_it(tmp_path: Path) -> None:
    # The reference lists roots in file order; the entry where a loop was cut comes after all of them,
    # so a root appended later goes before it: taking it in at the end would be wrong.
    path = tmp_path / "loop.jsonl"
    lines = [
        {"type": "session", "version": 3, "id": "s", "timestamp": "2026-01-01T00:00:00Z"},
        {"type": "message", "id": "a", "parentId": "b", "timestamp": "2026-01-01T00:00:00Z"},
        {"type": "message", "id": "b", "parentId": "a", "timestamp": "2026-01-01T00:00:00Z"},
        {"type": "message", "id": "r", "parentId": None, "timestamp": "2026-01-01T00:00:00Z"},
    ]
    path.write_bytes(b"".join(encode_json(line) + b"\n" for line in lines))
    session = load_session(path)
    assert [root.id for root in session.tree.roots] == ["r", "a"]
    with open(path, "ab") as handle:
        handle.write(
            encode_json({"type": "message", "id": "q", "parentId": None, "timestamp": "2026"}) + b"\n"
        )
    session.refresh()
    assert [root.id for root in session.tree.roots] == ["r", "q", "a"]
    assert _shape(session.tree) == _shape(load_session(path).tree)
