"""Branch and session diffs on constructed sessions whose answers are known."""

from __future__ import annotations

import hashlib
import shutil
from pathlib import Path

import orjson
import pytest

from core.diff import (
    CHANGED,
    DELETED,
    INSERTED,
    SAME,
    Op,
    change_starts,
    diff_paths,
    diff_sessions,
    fold_runs,
    resolve_entry,
    resolve_parent_session,
)
from core.diff.tokens import line_ops, word_ops
from core.errors import InvalidRequestError
from core.session import load_session
from core.writing import fork_session
from tests.conftest import DEMO, shallow_stack

START_MS = 1_772_400_000_000


# ---------------------------------------------------------------------------- building sessions
class Builder:
    """Writes a version-3 session file entry by entry; ``add`` returns the new entry's id."""

    def __init__(self, session_id: str = "s-0001") -> None:
        self.session_id = session_id
        self.lines: list[dict] = [
            {"type": "session", "version": 3, "id": session_id, "timestamp": _iso(0), "cwd": "/home/dev/app"}
        ]
        self.last: str | None = None
        self.count = 0

    def add(self, message: dict, parent: str | type | None = ..., entry_id: str | None = None) -> str:
        self.count += 1
        entry_id = entry_id or f"{self.session_id[-4:]}{self.count:06x}"
        parent_id = self.last if parent is ... else parent
        self.lines.append(
            {
                "type": "message",
                "id": entry_id,
                "parentId": parent_id,
                "timestamp": _iso(self.count),
                "message": {**message, "timestamp": START_MS + self.count * 1000},
            }
        )
        self.last = entry_id
        return entry_id

    def add_raw(self, entry: dict) -> str:
        self.count += 1
        entry = {"id": f"{self.session_id[-4:]}{self.count:06x}", "parentId": self.last, **entry}
        entry.setdefault("timestamp", _iso(self.count))
        self.lines.append(entry)
        self.last = entry["id"]
        return entry["id"]

    def at(self, entry_id: str | None) -> Builder:
        """Continue from ``entry_id`` (start a branch there)."""
        self.last = entry_id
        return self

    def write(self, path: Path) -> Path:
        path.write_bytes(b"".join(orjson.dumps(line) + b"\n" for line in self.lines))
        return path


def _iso(seconds: int) -> str:
    from core.timefmt import iso_from_ms

    return str(iso_from_ms(START_MS + seconds * 1000))


def user(text: str) -> dict:
    return {"role": "user", "content": text}


def assistant(
    text: str = "",
    calls: list[tuple[str, dict]] | None = None,
    model: str = "claude-sonnet-4-5",
    provider: str = "anthropic",
    stop: str | None = None,
    tokens: int = 1000,
    cost: float = 0.01,
) -> dict:
    content: list[dict] = [{"type": "thinking", "thinking": "hmm " + text[:10]}]
    if text:
        content.append({"type": "text", "text": text})
    for index, (name, args) in enumerate(calls or []):
        content.append(
            {"type": "toolCall", "id": f"call_{name}_{index}_{text[:3]}", "name": name, "arguments": args}
        )
    return {
        "role": "assistant",
        "content": content,
        "api": "anthropic-messages",
        "provider": provider,
        "model": model,
        "usage": {
            "input": tokens - 100,
            "output": 100,
            "cacheRead": 0,
            "cacheWrite": 0,
            "totalTokens": tokens,
            "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": cost},
        },
        "stopReason": stop or ("toolUse" if calls else "stop"),
    }


def result(name: str, text: str, is_error: bool = False) -> dict:
    return {
        "role": "toolResult",
        "toolCallId": f"call_{name}",
        "toolName": name,
        "content": [{"type": "text", "text": text}],
        "isError": is_error,
    }


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def kinds(diff) -> list[str]:
    return [row.kind for row in diff.rows]


# ---------------------------------------------------------------------------- branches of one session
def test_identical_branches_are_all_same_rows(tmp_path: Path) -> None:
    b = Builder()
    root = b.add(user("Explain the cache."))
    left = b.add(assistant("It is an LRU cache."))
    right = b.at(root).add(assistant("It is an LRU cache."))
    path = b.write(tmp_path / "s.jsonl")
    before = digest(path)
    diff = diff_paths(load_session(path), left, right)
    assert kinds(diff) == [SAME]
    assert diff.identical
    assert diff.common.ancestor_id == root and diff.common.matched_by == "tree"
    assert diff.common.messages == 1 and [m.entry_id for m in diff.common.tail] == [root]
    assert (diff.rows[0].left.entry_id, diff.rows[0].right.entry_id) == (left, right)
    assert digest(path) == before  # comparing never writes


def test_an_entry_against_itself_has_no_rows(tmp_path: Path) -> None:
    b = Builder()
    b.add(user("hi"))
    leaf = b.add(assistant("hello"))
    diff = diff_paths(load_session(b.write(tmp_path / "s.jsonl")), leaf, leaf)
    assert diff.rows == () and diff.identical
    assert diff.common.messages == 2 and diff.left.messages == diff.right.messages == 0


def test_one_inserted_tool_call_does_not_shift_what_follows(tmp_path: Path) -> None:
    b = Builder()
    root = b.add(user("Fix the bug in app.py"))
    b.add(assistant("Let me look.", [("read", {"path": "app.py"})]))
    b.add(result("read", "def main():\n    return 1\n"))
    b.add(assistant("", [("edit", {"path": "app.py", "oldText": "1", "newText": "2"})]))
    b.add(result("edit", "Edited app.py"))
    left = b.add(assistant("Fixed: main returns 2 now."))
    b.at(root)
    b.add(assistant("Let me look.", [("read", {"path": "app.py"})]))
    b.add(result("read", "def main():\n    return 1\n"))
    b.add(assistant("", [("read", {"path": "tests/test_app.py"})]))  # the inserted call
    b.add(result("read", "def test_main():\n    assert main() == 2\n"))
    b.add(assistant("", [("edit", {"path": "app.py", "oldText": "1", "newText": "2"})]))
    b.add(result("edit", "Edited app.py"))
    right = b.add(assistant("Fixed: main returns 2 now."))
    diff = diff_paths(load_session(b.write(tmp_path / "s.jsonl")), left, right)
    assert kinds(diff) == [SAME, SAME, INSERTED, INSERTED, SAME, SAME, SAME]
    assert diff.rows[2].right.calls[0].path == "tests/test_app.py"
    assert diff.counts == {SAME: 5, CHANGED: 0, INSERTED: 2, DELETED: 0}
    assert diff.left.tool_calls == 2 and diff.right.tool_calls == 3
    assert diff.left.files_touched == diff.right.files_touched == ("app.py",)
    assert change_starts(diff.rows) == [2]


def test_a_rewritten_answer_is_one_changed_row_with_word_changes(tmp_path: Path) -> None:
    b = Builder()
    root = b.add(user("What is the answer?"))
    left = b.add(assistant("The answer is 42 because of the tests."))
    right = b.at(root).add(assistant("The answer is 43 because of the docs."))
    diff = diff_paths(load_session(b.write(tmp_path / "s.jsonl")), left, right)
    assert kinds(diff) == [CHANGED]
    (text,) = diff.rows[0].sections
    assert text.name == "text" and text.unit == "word"
    assert text.ops == (
        Op("equal", "The answer is "),
        Op("delete", "42"),
        Op("insert", "43"),
        Op("equal", " because of the "),
        Op("delete", "tests"),
        Op("insert", "docs"),
        Op("equal", "."),
    )
    swapped = diff.swapped()
    assert swapped.rows[0].left.entry_id == right
    assert swapped.rows[0].sections[0].ops[1] == Op("insert", "42")


def test_a_completely_different_answer_still_pairs_with_its_counterpart(tmp_path: Path) -> None:
    b = Builder()
    root = b.add(user("Name a colour."))
    left = b.add(assistant("Red."))
    right = b.at(root).add(assistant("I would pick ultramarine blue, a deep pigment."))
    diff = diff_paths(load_session(b.write(tmp_path / "s.jsonl")), left, right)
    assert kinds(diff) == [CHANGED]
    assert diff.rows[0].similarity == 0.0


def test_different_models_with_the_same_words(tmp_path: Path) -> None:
    b = Builder()
    root = b.add(user("Say hi."))
    left = b.add(assistant("Hi!", tokens=500, cost=0.02))
    right = b.at(root).add(assistant("Hi!", model="gpt-5.1-codex", provider="openai", tokens=300, cost=0.005))
    diff = diff_paths(load_session(b.write(tmp_path / "s.jsonl")), left, right)
    assert kinds(diff) == [CHANGED]
    names = [s.name for s in diff.rows[0].sections]
    assert names == ["text", "meta"]
    assert diff.rows[0].sections[0].ops == (Op("equal", "Hi!"),)
    assert diff.left.models == ("anthropic/claude-sonnet-4-5",)
    assert diff.right.models == ("openai/gpt-5.1-codex",)
    assert (diff.left.tokens, diff.left.cost) == (500, 0.02)
    assert (diff.right.tokens, diff.right.cost) == (300, 0.005)


def test_one_side_empty(tmp_path: Path) -> None:
    b = Builder()
    b.add(user("Start"))
    point = b.add(assistant("Which way?"))
    b.add(user("Go left"))
    leaf = b.add(assistant("Went left.", stop="aborted"))
    diff = diff_paths(load_session(b.write(tmp_path / "s.jsonl")), point, leaf)
    assert kinds(diff) == [INSERTED, INSERTED]
    assert diff.left.messages == 0 and diff.left.ended is None and diff.left.last_role is None
    assert diff.right.messages == 2 and diff.right.ended == "aborted"
    assert diff.common.ancestor_id == point
    flipped = diff.swapped()
    assert kinds(flipped) == [DELETED, DELETED]
    assert flipped.left.entry_id == leaf


def test_divergence_at_the_root(tmp_path: Path) -> None:
    b = Builder()
    b.add(user("First attempt"), parent=None)
    left = b.add(assistant("One."))
    b.add(user("Second attempt"), parent=None)
    right = b.add(assistant("One."))
    diff = diff_paths(load_session(b.write(tmp_path / "s.jsonl")), left, right)
    assert diff.common.ancestor_id is None and diff.common.matched_by == "none"
    assert diff.common.messages == 0 and diff.common.tail == ()
    assert kinds(diff) == [CHANGED, SAME]


def test_how_each_branch_ended_and_how_long_it_took(tmp_path: Path) -> None:
    b = Builder()
    root = b.add(user("Deploy"))
    b.add(assistant("", [("bash", {"command": "make deploy"})]))
    b.add(result("bash", "permission denied", is_error=True))
    left = b.add_raw(
        {
            "type": "message",
            "message": {**assistant("", stop="error"), "errorMessage": "Overloaded"},
        }
    )
    b.at(root)
    b.add(assistant("", [("write", {"path": "deploy.sh", "content": "make deploy\n"})]))
    b.add(result("write", "Wrote deploy.sh"))
    right = b.add(user("and now?"))
    diff = diff_paths(load_session(b.write(tmp_path / "s.jsonl")), left, right)
    assert diff.left.ended == "error" and diff.left.error == "Overloaded"
    assert diff.right.ended == "toolUse" and diff.right.last_role == "user"
    assert diff.right.files_touched == ("deploy.sh",) and diff.left.files_touched == ()
    assert diff.left.duration_ms == 3000  # from the common ancestor's time to the last entry's
    assert diff.right.duration_ms == 6000


def test_non_content_entries_do_not_make_rows(tmp_path: Path) -> None:
    b = Builder()
    root = b.add(user("Hi"))
    b.add_raw({"type": "model_change", "provider": "openai", "modelId": "gpt-5"})
    b.add_raw({"type": "label", "targetId": root, "label": "start"})
    left = b.add(assistant("Hello"))
    right = b.at(root).add(assistant("Hello"))
    diff = diff_paths(load_session(b.write(tmp_path / "s.jsonl")), left, right)
    assert kinds(diff) == [SAME]


def test_a_100000_entry_common_prefix_needs_no_recursion(tmp_path: Path) -> None:
    b = Builder()
    for index in range(100_000):
        b.add(user(f"step {index}") if index % 2 == 0 else assistant(f"done {index}"))
    fork = b.last
    left = b.add(assistant("left ending"))
    right = b.at(fork).add(assistant("right ending"))
    path = b.write(tmp_path / "deep.jsonl")
    session = load_session(path)
    with shallow_stack():
        diff = diff_paths(session, left, right)
    assert diff.common.messages == 100_000 and diff.common.entries == 100_000
    assert diff.common.ancestor_id == fork
    assert len(diff.common.tail) == 3 and diff.common.tail[-1].entry_id == fork
    assert kinds(diff) == [CHANGED]


def test_unknown_entries_are_one_sentence(tmp_path: Path) -> None:
    b = Builder()
    leaf = b.add(user("Hi"))
    session = load_session(b.write(tmp_path / "s.jsonl"))
    with pytest.raises(InvalidRequestError, match=r"^There is no entry nope in .*s\.jsonl\.$"):
        diff_paths(session, leaf, "nope")
    empty = tmp_path / "empty.jsonl"
    empty.write_bytes(
        b'{"type":"session","version":3,"id":"e","timestamp":"2026-01-01T00:00:00Z","cwd":"/"}\n'
    )
    with pytest.raises(InvalidRequestError, match=r"empty\.jsonl has no entries to compare\.$"):
        diff_sessions(session, None, load_session(empty), None)


# ---------------------------------------------------------------------------- two sessions
def test_a_fork_against_its_parent(tmp_path: Path) -> None:
    b = Builder("parent-0001")
    b.add(user("Write a parser"))
    b.add(assistant("Plan: tokenise, then parse."))
    point = b.add(user("Use recursive descent"))
    b.add_raw({"type": "label", "targetId": point, "label": "decision"})  # dropped by the fork
    b.add(assistant("Recursive descent it is.", [("write", {"path": "parser.py", "content": "x"})]))
    parent_leaf = b.add(result("write", "Wrote parser.py"))
    parent_path = b.write(tmp_path / "parent.jsonl")
    parent = load_session(parent_path)
    before = digest(parent_path)
    fork_path = fork_session(parent, point, dest_dir=tmp_path / "forks")
    assert digest(parent_path) == before
    with open(fork_path, "ab") as handle:  # the agent continues in the fork
        last = load_session(fork_path).leaf_id
        message = {
            "role": "assistant",
            **assistant("A Pratt parser instead.", [("write", {"path": "pratt.py"})]),
        }
        entry = {
            "type": "message",
            "id": "fork0001",
            "parentId": last,
            "timestamp": _iso(99),
            "message": message,
        }
        handle.write(orjson.dumps(entry) + b"\n")
    fork = load_session(fork_path)
    assert resolve_parent_session(fork) == str(parent_path)
    diff = diff_sessions(parent, None, fork, None)
    assert diff.common.matched_by == "ids"
    assert diff.common.ancestor_id == point and diff.common.messages == 3
    assert kinds(diff) == [CHANGED, DELETED]
    assert diff.left.entry_id == parent_leaf and diff.right.entry_id == "fork0001"
    assert diff.left.files_touched == ("parser.py",) and diff.right.files_touched == ("pratt.py",)


def test_two_sessions_without_shared_ids_match_by_content(tmp_path: Path) -> None:
    one = Builder("aaaa-0001")
    one.add(user("Summarise README.md"))
    one.add(assistant("", [("read", {"path": "README.md"})]))
    one.add(result("read", "# Title\nSome text\n"))
    one.add(assistant("It is a title and some text."))
    two = Builder("bbbb-0002")
    two.add(user("Summarise README.md"))
    two.add(assistant("", [("read", {"path": "README.md"})]))
    two.add(result("read", "# Title\nOther text\n"))
    two.add(assistant("It is a title and other text."))
    left = load_session(one.write(tmp_path / "one.jsonl"))
    right = load_session(two.write(tmp_path / "two.jsonl"))
    diff = diff_sessions(left, None, right, None)
    assert diff.common.matched_by == "content" and diff.common.messages == 2
    assert diff.common.ancestor_id != diff.common.right_ancestor_id
    assert kinds(diff) == [CHANGED, CHANGED]
    section = diff.rows[0].sections[0]
    assert section.name == "result" and section.unit == "line"
    assert section.ops == (
        Op("equal", "# Title\n"),
        Op("delete", "Some text\n"),
        Op("insert", "Other text\n"),
    )


def test_two_unrelated_sessions(tmp_path: Path) -> None:
    one = Builder("aaaa-0001")
    one.add(user("Sort a list in Rust"))
    one.add(assistant("Use v.sort()."))
    two = Builder("bbbb-0002")
    two.add(user("Tell me a joke"))
    two.add(assistant("Why did the chicken cross the road?"))
    two.add(user("Why?"))
    diff = diff_sessions(
        load_session(one.write(tmp_path / "one.jsonl")),
        None,
        load_session(two.write(tmp_path / "two.jsonl")),
        None,
    )
    assert diff.common.matched_by == "none" and diff.common.ancestor_id is None
    assert kinds(diff) == [CHANGED, CHANGED, INSERTED]


def test_the_demo_fork_against_its_parent(tmp_path: Path) -> None:
    for path in DEMO.glob("*.jsonl"):
        shutil.copy2(path, tmp_path / path.name)
    fork = load_session(tmp_path / "019cbd70-9d00-7654-b79e-0404ef27578f.jsonl")
    parent_path = resolve_parent_session(fork)
    assert parent_path == str(tmp_path / "019cadd3-8790-76fa-8ab0-c952ebef2dfd.jsonl")
    diff = diff_sessions(load_session(parent_path), None, fork, None)
    assert diff.common.matched_by == "ids" and diff.common.ancestor_id == "16b62db5"
    assert diff.left.messages == 0 and kinds(diff) == [INSERTED] * 6


def test_large_gaps_keep_every_message_once(tmp_path: Path) -> None:
    b = Builder()
    root = b.add(user("go"))
    for index in range(300):
        b.add(user(f"left question {index}") if index % 2 == 0 else assistant(f"left answer {index}"))
    left = b.last
    b.at(root)
    for index in range(301):
        b.add(user(f"right question {index}") if index % 2 == 0 else assistant(f"right answer {index}"))
    right = b.last
    diff = diff_paths(load_session(b.write(tmp_path / "s.jsonl")), left, right)
    left_ids = [r.left.entry_id for r in diff.rows if r.left]
    right_ids = [r.right.entry_id for r in diff.rows if r.right]
    assert len(left_ids) == len(set(left_ids)) == 300 and len(right_ids) == len(set(right_ids)) == 301
    assert all(r.left.role == r.right.role for r in diff.rows if r.kind == CHANGED)
    assert diff.counts[CHANGED] == 300 and diff.counts[INSERTED] == 1


# ---------------------------------------------------------------------------- pieces
def test_resolve_entry_accepts_ids_prefixes_and_leaf(tmp_path: Path) -> None:
    b = Builder()
    b.add(user("a"), entry_id="abc11111")
    b.add(user("b"), entry_id="abc22222")
    b.add(user("c"), entry_id="def33333")
    session = load_session(b.write(tmp_path / "s.jsonl"))
    assert resolve_entry(session, "leaf") == "def33333"
    assert resolve_entry(session, "abc1") == "abc11111"
    assert resolve_entry(session, "def33333") == "def33333"
    with pytest.raises(InvalidRequestError, match="matches 2 entries"):
        resolve_entry(session, "abc")
    with pytest.raises(InvalidRequestError, match="There is no entry zz"):
        resolve_entry(session, "zz")


def test_word_and_line_ops_rebuild_both_sides() -> None:
    left, right = "alpha beta gamma\ndelta", "alpha BETA gamma\ndelta epsilon"
    for ops in (word_ops(left, right), line_ops(left, right)):
        assert "".join(o.text for o in ops if o.tag != "insert") == left
        assert "".join(o.text for o in ops if o.tag != "delete") == right
    assert word_ops("same", "same") == (Op("equal", "same"),)
    assert word_ops("Let's try an LRU cache.", "Let's use HTTP cache headers.") == (
        Op("equal", "Let's "),
        Op("delete", "try an LRU"),
        Op("insert", "use HTTP"),
        Op("equal", " cache"),
        Op("insert", " headers"),
        Op("equal", "."),
    )
    import random

    chooser = random.Random(20260115)
    pieces = ["const", "await", "the", "cache.", "x,", "(y)", "é", "\u2028"]
    for _ in range(500):
        a, b = (
            "".join(
                chooser.choice(pieces) + chooser.choice([" ", "  ", "\n", ""])
                for _ in range(chooser.randint(0, 30))
            )
            for _ in range(2)
        )
        for ops in (word_ops(a, b), line_ops(a, b)):
            assert "".join(o.text for o in ops if o.tag != "insert") == a
            assert "".join(o.text for o in ops if o.tag != "delete") == b
    assert line_ops("a\u2028b\n", "a\u2028c\n") == (Op("delete", "a\u2028b\n"), Op("insert", "a\u2028c\n"))


def test_fold_runs_keep_context_around_changes() -> None:
    from core.diff import DiffMessage, DiffRow

    message = DiffMessage("x", "message", "user", text="t")
    rows = (
        [DiffRow(SAME, message, message)] * 20
        + [DiffRow(INSERTED, None, message)]
        + [DiffRow(SAME, message, message)] * 3
    )
    assert fold_runs(rows) == [(0, 18)]  # two rows of context before the change; 3 after are too few to fold
    assert change_starts(rows) == [20]


# ---------------------------------------------------------------------------- real files
def _real_files() -> list[Path]:
    from tests.conftest import CORPUS, SAMPLES

    files = sorted(SAMPLES.rglob("*.jsonl")) + sorted(DEMO.glob("*.jsonl")) + sorted(CORPUS.glob("*.jsonl"))
    return [f for f in files if f.is_file()]


@pytest.mark.parametrize("path", _real_files(), ids=lambda p: p.name)
def test_every_pair_of_leaves_of_real_sessions(path: Path) -> None:
    session = load_session(path)
    leaves = [e.id for e in session.entries if not session.tree.children_of(e.id) and e.id in session.by_id][
        :4
    ]
    leaves.append(session.leaf_id)
    for left in leaves:
        for right in leaves:
            diff = diff_paths(session, left, right)
            left_ids = [r.left.entry_id for r in diff.rows if r.left]
            right_ids = [r.right.entry_id for r in diff.rows if r.right]
            assert len(left_ids) == len(set(left_ids)) == diff.left.messages
            assert len(right_ids) == len(set(right_ids)) == diff.right.messages
            if left == right:
                assert diff.rows == ()


def test_damaged_files_are_compared_as_far_as_they_can_be_read(tmp_path: Path) -> None:
    b = Builder()
    root = b.add(user("Hi"))
    left = b.add(assistant("Hello"))
    right = b.at(root).add({"role": "assistant", "content": "not a list", "stopReason": 7})
    orphan = b.add(user("lost"), parent="nosuchparent")
    path = b.write(tmp_path / "damaged.jsonl")
    with open(path, "ab") as handle:
        handle.write(b"{not json\n[1, 2]\n")
        handle.write(orjson.dumps({"type": "message", "id": "nomsg", "parentId": left}) + b"\n")
        handle.write(
            b'{"type":"message","id":"half","parentId":"nomsg","message":{"role":"user","content":[{"ty'
        )
    session = load_session(path)
    diff = diff_paths(session, "nomsg", right)
    assert kinds(diff) == [CHANGED, DELETED]
    assert diff.rows[0].right.text == "not a list" and diff.rows[0].right.stop_reason is None
    assert diff.rows[1].left.role == "message"  # a message entry without a message object
    assert diff_paths(session, orphan, left).common.matched_by == "none"


def test_repeated_and_unrelated_messages_align_without_quadratic_work() -> None:
    # difflib over these took minutes (a thousand identical results; role sequences of two unrelated
    # sessions); the patience anchors and the linear pairing keep them to a blink. No timing is asserted:
    # a regression shows as a test run that does not end.
    from core.diff import DiffMessage
    from core.diff.align import align
    from core.diff.patience import matching_blocks

    ok_left = [DiffMessage(f"l{i}", "message", "toolResult", result="ok") for i in range(3000)]
    ok_right = [DiffMessage(f"r{i}", "message", "toolResult", result="ok") for i in range(3100)]
    rows = align(ok_left, ok_right)
    assert [r.kind for r in rows].count(SAME) == 3000 and [r.kind for r in rows].count(INSERTED) == 100
    roles = ["user", "assistant", "toolResult", "assistant", "toolResult"]
    left = [DiffMessage(f"l{i}", "message", roles[i % 5], text=f"left {i}") for i in range(5000)]
    right = [DiffMessage(f"r{i}", "message", roles[(i * 3) % 5], text=f"right {i}") for i in range(5000)]
    rows = align(left, right)
    assert sum(1 for r in rows if r.left) == 5000 and sum(1 for r in rows if r.right) == 5000
    assert all(r.left.role == r.right.role for r in rows if r.kind == CHANGED)
    assert matching_blocks([1, 2, 3, 2, 1], [2, 1, 2, 3, 9])[-1] == (5, 5, 0)


def test_usage_records_context_edits_and_system_messages_are_diff_records(tmp_path: Path) -> None:
    from core.diff.messages import messages
    from tests.core.current_entries import SECTION_TEXT, SYSTEM_TEXT, write_current_session

    session = load_session(write_current_session(tmp_path / "current.jsonl"))
    path = [e for e in session.path_to(session.leaf_id) if e.kind in ("usage", "context_edit", "message")]
    records = {m.entry_id: m for m in messages(session, path)}
    usage = records["use1"]
    assert (usage.role, usage.text, usage.model) == (
        "usage",
        "cache_warm · keep the prompt cache warm",
        "openai/gpt-5",
    )
    assert (usage.tokens, round(usage.cost, 6)) == (34716, 0.035868)
    assert records["edit1"].text == "replaces res1: [elided parser listing]"
    assert records["edit2"].text == "drops user1"
    system = records["sys1"]
    assert system.role == "system" and SYSTEM_TEXT in system.text
    assert f"[repo-rules] {SECTION_TEXT}" in system.text and "[old-rules] (removed)" in system.text


def test_a_context_edit_on_one_branch_is_a_row_of_the_diff() -> None:
    from tests.core.test_export_markdown import MODERN

    session = load_session(MODERN, checksum=False)
    diff = diff_paths(session, "e27aea1c", session.leaf_id)
    first = diff.rows[0]
    assert first.kind == DELETED and first.left is not None
    assert (first.left.role, first.left.text) == ("context_edit", "drops 8342e75a")
