"""The bundled demo sessions (resources/demo): clean, complete, and read as the reference reads them."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import orjson
import pytest

from core import build_context, load_session
from core.session import Session

DEMO = Path(__file__).resolve().parent.parent / "resources" / "demo"
DEMO_FILES = sorted(DEMO.glob("*.jsonl"))
MAX_TOTAL_BYTES = 300_000


def _blocks(body: dict) -> list[dict]:
    message = body.get("message")
    content = message.get("content") if isinstance(message, dict) else None
    return [block for block in content if isinstance(block, dict)] if isinstance(content, list) else []


def _message_blocks(session: Session) -> list[dict]:
    messages = [e for e in session.entries if e.kind == "message"]
    return [block for body in session.bodies(messages) for block in _blocks(body)]


@pytest.fixture(scope="module")
def sessions() -> dict[str, Session]:
    return {path.name: load_session(path) for path in DEMO_FILES}


def test_demo_folder_is_small_and_flat() -> None:
    assert len(DEMO_FILES) >= 5
    assert sum(p.stat().st_size for p in DEMO_FILES) < MAX_TOTAL_BYTES
    assert [p for p in DEMO.iterdir() if p.is_dir()] == []
    assert (DEMO / "README.md").is_file()


@pytest.mark.parametrize("path", DEMO_FILES, ids=lambda p: p.name)
def test_demo_file_loads_without_problems(path: Path) -> None:
    session = load_session(path)
    assert session.header is not None
    assert session.version == 3
    assert [d for d in session.diagnostics if d.is_problem] == []
    # Prime Agent layout: <session-id>.jsonl
    assert path.name == f"{session.session_id}.jsonl"
    # No path of the machine that generated them.
    text = path.read_text(encoding="utf-8")
    assert "/tmp/" not in text
    assert "/work/" not in text


def test_demo_set_shows_every_feature(sessions: dict[str, Session]) -> None:
    seen: set[str] = set()
    for session in sessions.values():
        if any(len(session.tree.children_of(e.id)) > 1 for e in session.entries):
            seen.add("branch point")
        if any(e.kind == "compaction" for e in session.entries):
            seen.add("compaction")
        if session.labels:
            seen.add("label")
        if session.name:
            seen.add("session name")
        blocks = _message_blocks(session)
        if any(b.get("type") == "image" for b in blocks):
            seen.add("image")
        if any(b.get("type") == "toolCall" for b in blocks):
            seen.add("tool call")
        parent = session.parent_session
        if parent:
            # parentSession is resolved by file name within the same folder (the paths are sanitised).
            name = parent.replace("\\", "/").rsplit("/", 1)[-1]
            assert name in sessions, f"{session.path}: parent {parent} is not in the demo folder"
            seen.add("fork with parent")
    wanted = {"branch point", "compaction", "label", "session name", "image", "tool call", "fork with parent"}
    assert wanted - seen == set()


@pytest.mark.parametrize("path", DEMO_FILES, ids=lambda p: p.name)
def test_demo_context_matches_reference(path: Path, oracle_dir: Path) -> None:
    result = subprocess.run(
        ["node", str(oracle_dir / "context.mjs"), str(path), "--tree", "none"],
        capture_output=True,
        timeout=60,
        stdin=subprocess.DEVNULL,
    )
    assert result.returncode == 0, result.stderr.decode(errors="replace")
    reference = json.loads(result.stdout)
    assert reference["rewrittenOnOpen"] is False

    session = load_session(path)
    ours = json.loads(orjson.dumps(build_context(session)))
    expected = {key: value for key, value in reference["context"].items() if key != "messageCount"}
    assert ours == expected
    assert reference["context"]["messageCount"] == len(ours["messages"])

    assert reference["leafId"] == session.leaf_id
    assert reference["branch"] == [e.id for e in session.path_to(session.leaf_id)]
    assert reference["labels"] == session.labels
    assert reference["sessionName"] == session.name
