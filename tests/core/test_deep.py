"""100,000-entry sessions: every operation is iterative, so nothing hits the recursion limit.

The in-process checks run with the recursion limit set just above the current stack depth, so any
code that recursed once per entry (or per generation) would fail here at once.
"""

from __future__ import annotations

import json
import subprocess
from collections.abc import Iterator
from pathlib import Path

import orjson
import pytest

from core import build_context, load_session, summarize
from core.session import Session
from tests.conftest import shallow_stack
from tests.helpers import run_cli

N = 100_000
HEADER = {
    "type": "session",
    "version": 3,
    "id": "019d0000-0000-7000-8000-000000000000",
    "timestamp": "2026-01-01T00:00:00.000Z",
    "cwd": "/home/dev/deep",
}
USAGE = {"input": 1, "output": 1, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 2, "cost": {"total": 0.001}}


def _id(i: int) -> str:
    return f"{i:08x}"


def _stamp(i: int) -> str:
    return f"2026-01-01T{i // 3_600_000:02d}:{i // 60_000 % 60:02d}:{i // 1000 % 60:02d}.{i % 1000:03d}Z"


def _message(i: int) -> dict:
    if i % 2 == 0:
        message: dict = {"role": "user", "content": f"q{i}", "timestamp": 1767225600000 + i}
    else:
        message = {
            "role": "assistant",
            "content": [{"type": "text", "text": f"a{i}"}],
            "api": "anthropic-messages",
            "provider": "anthropic",
            "model": "claude-sonnet-4-5",
            "usage": USAGE,
            "stopReason": "stop",
            "timestamp": 1767225600000 + i,
        }
    return {
        "type": "message",
        "id": _id(i),
        "parentId": _id(i - 1) if i else None,
        "timestamp": _stamp(i),
        "message": message,
    }


def _write(path: Path, entries: Iterator[dict]) -> Path:
    dumps = orjson.dumps
    with open(path, "wb") as handle:
        handle.write(dumps(HEADER) + b"\n")
        handle.write(b"\n".join(dumps(e) for e in entries) + b"\n")
    return path


@pytest.fixture(scope="module")
def chain(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _write(tmp_path_factory.mktemp("deep") / "chain.jsonl", (_message(i) for i in range(N)))


COMPACT_AT = N - 10  # the compaction entry's position in the chain
FIRST_KEPT = N - 30


def _with_compaction() -> Iterator[dict]:
    for i in range(N):
        if i == COMPACT_AT:
            yield {
                "type": "compaction",
                "id": _id(i),
                "parentId": _id(i - 1),
                "timestamp": _stamp(i),
                "summary": "Everything so far, summarised.",
                "firstKeptEntryId": _id(FIRST_KEPT),
                "tokensBefore": 123456,
            }
        else:
            yield _message(i)


@pytest.fixture(scope="module")
def compacted(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _write(tmp_path_factory.mktemp("deep") / "compacted.jsonl", _with_compaction())


def cli(*args: str) -> subprocess.CompletedProcess[bytes]:
    return run_cli(*args, timeout=300, text=False)


# ---------------------------------------------------------------------------- in process
@pytest.fixture(scope="module")
def chain_session(chain: Path) -> Session:
    with shallow_stack():
        return load_session(chain)


def test_a_100k_chain_loads_and_walks(chain_session: Session) -> None:
    session = chain_session
    with shallow_stack():
        assert len(session.entries) == N
        assert session.diagnostics == []
        leaf = session.leaf_id
        assert leaf == _id(N - 1)
        path = session.path_to(leaf)
        assert len(path) == N
        assert path[0].id == _id(0) and path[0].parent_id is None
        assert [e.line for e in path[:3]] == [2, 3, 4]
        tree = session.tree
        assert len(tree.order) == N
        assert tree.order[0] == _id(0) and tree.order[-1] == _id(N - 1)
        assert tree.order[12345] == _id(12345)
        assert [e.id for e in tree.roots] == [_id(0)]
        walked = list(tree.walk())
        assert len(walked) == N
        assert {depth for _, depth in walked} == {0}  # a chain without branches does not indent
        assert walked[-1][0].id == _id(N - 1)


def test_a_100k_chain_context_and_summary(chain_session: Session) -> None:
    session = chain_session
    with shallow_stack():
        context = build_context(session)
        assert len(context["messages"]) == N
        assert context["messages"][0] == {"role": "user", "content": "q0", "timestamp": 1767225600000}
        assert context["messages"][-1]["content"] == [{"type": "text", "text": f"a{N - 1}"}]
        assert context["thinkingLevel"] == "off"
        assert context["model"] == {"provider": "anthropic", "modelId": "claude-sonnet-4-5"}
        summary = summarize(session)
        assert summary.messageCount == N
        assert summary.totalTokens == N  # 50,000 assistant replies of 2 tokens
        assert summary.lastStopReason == "stop"
        assert summary.firstMessage == "q0"


def test_a_100k_chain_with_a_compaction_near_the_end(compacted: Path) -> None:
    with shallow_stack():
        session = load_session(compacted)
        assert session.diagnostics == []
        assert len(session.path_to(session.leaf_id)) == N
        context = build_context(session)
        messages = context["messages"]
        kept = COMPACT_AT - FIRST_KEPT  # entries FIRST_KEPT .. COMPACT_AT-1
        after = N - COMPACT_AT - 1
        assert len(messages) == 1 + kept + after == 30
        assert messages[0] == {
            "role": "compactionSummary",
            "summary": "Everything so far, summarised.",
            "tokensBefore": 123456,
            "timestamp": 1767225600000 + COMPACT_AT,
        }
        assert messages[1]["content"] == f"q{FIRST_KEPT}"
        assert messages[kept]["content"] == [{"type": "text", "text": f"a{COMPACT_AT - 1}"}]
        assert messages[kept + 1]["content"] == [{"type": "text", "text": f"a{COMPACT_AT + 1}"}]
        # a leaf before the compaction sees the whole path up to it
        assert len(build_context(session, _id(999))["messages"]) == 1000


def test_a_100k_loop_is_broken_once(tmp_path: Path) -> None:
    def looped() -> Iterator[dict]:
        for i in range(N):
            entry = _message(i)
            if i == 0:
                entry["parentId"] = _id(N - 1)  # the whole chain is one cycle
            yield entry

    path = _write(tmp_path / "loop.jsonl", looped())
    with shallow_stack():
        session = load_session(path)
        assert [(d.line, d.kind) for d in session.diagnostics] == [(2, "cycle")]
        assert len(session.tree.order) == N
        assert [e.id for e in session.tree.roots] == [_id(0)]
        assert len(session.path_to(session.leaf_id)) == N


def test_a_deep_chain_in_reverse_file_order(tmp_path: Path) -> None:
    size = N // 2
    path = _write(tmp_path / "reverse.jsonl", (_message(i) for i in reversed(range(size))))
    with shallow_stack():
        session = load_session(path)
        assert session.diagnostics == []
        assert session.leaf_id == _id(0)  # the last line is the root
        assert len(session.path_to(_id(size - 1))) == size
        assert session.tree.order[:3] == [_id(0), _id(1), _id(2)]
        assert len(session.tree.order) == size


def test_a_deep_comb_of_branches(tmp_path: Path) -> None:
    teeth = 20_000

    def comb() -> Iterator[dict]:
        for i in range(teeth):
            yield _message(i)
            side = _message(i)
            side["id"] = f"s{i:07x}"
            side["timestamp"] = _stamp(i + 1)  # sorts after the spine's next entry
            yield side

    path = _write(tmp_path / "comb.jsonl", comb())
    with shallow_stack():
        session = load_session(path)
        tree = session.tree
        assert len(tree.order) == 2 * teeth
        assert [e.id for e in tree.roots] == [_id(0), "s0000000"]
        assert [e.id for e in tree.children_of(_id(5))] == [_id(6), "s0000006"]
        depths = [depth for _, depth in tree.walk()]
        # two roots start at depth 1; each of the teeth - 1 branch points adds one level
        assert max(depths) == teeth
        assert len(session.path_to(f"s{teeth - 1:07x}")) == teeth


# ---------------------------------------------------------------------------- the CLI on it
def test_cli_tree_json_on_100k(chain: Path) -> None:
    result = cli("tree", "--json", str(chain))
    assert result.returncode == 0, result.stderr.decode()
    assert result.stderr == b""
    tree = json.loads(result.stdout)
    assert tree["roots"] == [_id(0)]
    assert len(tree["order"]) == N
    assert len(tree["nodes"]) == N
    assert tree["nodes"][_id(7)] == {
        "type": "message",
        "parentId": _id(6),
        "children": [_id(8)],
        "role": "assistant",
    }


def test_cli_check_on_100k(compacted: Path, chain: Path) -> None:
    result = cli("check", str(chain), str(compacted))
    assert result.returncode == 0, result.stderr.decode()
    assert result.stdout.decode().splitlines() == [
        f"{chain}: ok ({N} entries, {N} in the tree)",
        f"{compacted}: ok ({N} entries, {N} in the tree)",
    ]


# ---------------------------------------------------------------------------- deep JSON inside one entry
def _nested(depth: int) -> object:
    """``depth`` levels, objects and lists by turns, built without recursion."""
    value: object = "bottom"
    for level in range(depth):
        value = [value] if level % 2 else {"k": value}
    return value


def test_json_nested_1000_levels_deep_is_loaded_and_its_context_printed_folded(tmp_path: Path) -> None:
    # Issue 15: orjson reads up to 1024 levels, so the loader accepts such a line, but printing the
    # context recursed (the standard library's encoder, after orjson's 255-level writer gave up).
    # Issue 29: every value is folded to MAX_DEPTH levels before it is used whole, so the context
    # holds the value as written down to that depth, then the fold's note; check names the line.
    from core.session.jsonl import FOLDED, MAX_DEPTH

    depth = 1000
    nested = b'{"k":[' * (depth // 2) + b'"bottom"' + b"]}" * (depth // 2)
    message = b'{"role":"user","content":[{"type":"text","text":"deep","x":' + nested + b"}]}"
    line = (
        b'{"type":"message","id":"00000000","parentId":null,"timestamp":"2026-01-01T00:00:00.000Z","message":'
    )
    path = tmp_path / "nested.jsonl"
    path.write_bytes(orjson.dumps(HEADER) + b"\n" + line + message + b"}\n")
    with shallow_stack():
        session = load_session(path)
        assert session.diagnostics == []  # nothing the index reads is deep: found where it is used
        assert len(build_context(session)["messages"]) == 1
    result = cli("context", str(path))
    assert result.returncode == 0, result.stderr
    printed = result.stdout.split(b"\n")
    assert printed[0] == b'{"messages": ['
    # The line's object is level 1, the message 2, content 3, the block 4: "x" keeps levels 5 to 100.
    kept = MAX_DEPTH - 4
    folded = b'{"k":[' * (kept // 2) + orjson.dumps(FOLDED) + b"]}" * (kept // 2)
    start = b'{"role":"user","content":[{"type":"text","text":"deep","x":'
    assert printed[1].startswith(start + folded + b"}]}], ")  # compact, then the settings
    checked = cli("check", str(path))
    assert checked.returncode == 1
    assert f"{path}:2: warning deep-value: A value on this line is nested 1,004 levels deep;" in (
        checked.stdout.decode()
    )


def test_encode_json_writes_any_depth_without_recursion_and_as_orjson_does() -> None:
    from core.session.jsonl import encode_json

    ordinary = {"a": [1, 2.5, None, True, {"b": "c\u2028"}], "e": {}, "f": []}
    assert encode_json(ordinary) == orjson.dumps(ordinary)
    assert encode_json({"k": "half \ud83d", "n": [1e300]}) == b'{"k":"half \\ud83d","n":[1e+300]}'
    with shallow_stack(headroom=60):
        data = encode_json(_nested(5000))
    assert data.startswith(b'[{"k":' * 3) and data.endswith(b'"bottom"' + b"}]" * 2500)
    assert data.count(b'{"k":') == 2500 and data.count(b"[") == 2500
