"""Reading entry bodies (core.session.content); pairing tool calls with results (core.kinds.pairing)."""

from __future__ import annotations

from pathlib import Path

import orjson

from core.kinds.pairing import (
    call_ids,
    edits_as_diff,
    paired,
    result_call_id,
    results_in_window,
    tool_results_for,
)
from core.session import load_session
from core.session.content import (
    content_blocks,
    content_of,
    joined_text,
    message_text,
    numbered_blocks,
    tool_calls,
)

TS = "2026-01-01T00:00:{:02d}.000Z"


def write(path: Path, rows: list[dict]) -> Path:
    header = {"type": "session", "version": 3, "id": "sid", "timestamp": TS.format(0), "cwd": "/p"}
    lines = [header]
    for n, row in enumerate(rows, 1):
        parent = row.pop("parent", f"e{n - 1}" if n > 1 else None)
        lines.append({"id": f"e{n}", "parentId": parent, "timestamp": TS.format(n), **row})
    path.write_bytes(b"".join(orjson.dumps(r) + b"\n" for r in lines))
    return path


def call(*ids: str) -> dict:
    content = [{"type": "toolCall", "id": i, "name": "bash", "arguments": {"command": i}} for i in ids]
    return {"type": "message", "message": {"role": "assistant", "content": content}}


def answer(call_id: str, **row: object) -> dict:
    content = [{"type": "text", "text": f"out {call_id}"}]
    message = {"role": "toolResult", "toolCallId": call_id, "toolName": "bash", "content": content}
    return {"type": "message", "message": message, **row}


def user(text: str) -> dict:
    return {"type": "message", "message": {"role": "user", "content": text}}


# ------------------------------------------------------------------------------------------- content


def test_content_blocks_and_text() -> None:
    content = ["stray", {"type": "text", "text": "a"}, {"type": "image"}, {"type": "text", "text": None}]
    assert content_blocks("hi") == [{"type": "text", "text": "hi"}]
    assert content_blocks(content) == content[1:]
    assert content_blocks({"type": "text"}) == []
    assert joined_text("plain") == "plain"
    assert joined_text([{"type": "text", "text": "a"}, {"type": "text", "text": "b"}]) == "a\nb"
    assert joined_text(content) == "a"
    # The reference's extractTextContent: JavaScript's String() of odd values, one space between.
    assert message_text(content) == "a "
    assert message_text([{"type": "text", "text": True}, {"type": "text", "text": 3.0}]) == "true 3"
    assert message_text(42) == ""


def test_content_of_reads_messages_and_custom_messages() -> None:
    assert content_of({"message": {"content": "m"}, "content": "top"}) == "m"
    assert content_of({"type": "custom_message", "content": "top"}) == "top"
    assert content_of("not a body") is None


def test_images_are_numbered_among_images_only() -> None:
    content = [{"type": "image"}, "stray", {"type": "text", "text": "x"}, {"type": "image"}]
    assert [n for _block, n in numbered_blocks(content)] == [0, -1, 1]


def test_tool_calls_and_their_ids() -> None:
    body = call("a", "b")
    body["message"]["content"].append({"type": "toolCall", "name": "no id"})
    assert [b.get("id") for b in tool_calls(body["message"]["content"])] == ["a", "b", None]
    assert call_ids(body) == ["a", "b"]
    assert call_ids({"message": {"content": "text only"}}) == []


def test_edits_as_diff() -> None:
    args = {"edits": [{"oldText": "a\nb", "newText": "c"}, {"oldText": "", "newText": "d"}, "junk"]}
    assert edits_as_diff(args) == "-a\n-b\n+c\n@@\n+d"
    assert edits_as_diff({"oldText": "x", "newText": "y"}) == "-x\n+y"


# ------------------------------------------------------------------------------------------- pairing


def test_paired_takes_the_results_that_follow_their_call(tmp_path: Path) -> None:
    session = load_session(
        write(tmp_path / "s.jsonl", [call("a", "b"), answer("b"), answer("a"), answer("a")])
    )
    rows = list(paired(session.entries, session.bodies(session.entries)))
    assert [(e.id, sorted(r) if r is not None else None) for e, _b, r in rows] == [
        ("e1", ["a", "b"]),
        ("e4", None),  # a second answer to "a" is not handed over: it stays on its own
    ]
    assert result_call_id(session.entries[1], session.body(session.entries[1])) == "b"
    assert result_call_id(session.entries[0], session.body(session.entries[0])) is None


def test_a_window_shows_each_result_once(tmp_path: Path) -> None:
    session = load_session(
        write(
            tmp_path / "s.jsonl",
            [call("a"), answer("a"), user("next"), call("b", "c"), answer("b"), answer("c")],
        )
    )
    entries = session.entries
    first = entries[:5]  # ends before "c" is answered: the last call looks past the window
    results, under = results_in_window(session, first, list(session.bodies(first)))
    assert sorted(results) == [0, 3]
    assert sorted(results[3]) == ["b", "c"]
    assert under == {1, 4}
    second = entries[5:]  # "c" belongs to a call before this window: shown by the window before
    results, under = results_in_window(session, second, list(session.bodies(second)))
    assert results == {} and under == {0}


def test_tool_results_for_searches_the_descendants(tmp_path: Path) -> None:
    rows = [call("a", "b"), user("aside"), answer("a", parent="e1"), answer("b", parent="e3")]
    session = load_session(write(tmp_path / "s.jsonl", rows))
    found = tool_results_for(session, session.entries[0])
    assert {k: v["id"] for k, v in found.items()} == {"a": "e3", "b": "e4"}
    assert tool_results_for(session, session.entries[1]) == {}
