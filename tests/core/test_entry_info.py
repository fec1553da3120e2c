"""Entry.info is a typed record per kind, and still a plain tuple for code that indexes it."""

from __future__ import annotations

from pathlib import Path

import orjson

from core.session import AssistantInfo, CompactionInfo, LabelInfo, load_session

HEADER = {"type": "session", "version": 3, "id": "s1", "timestamp": "2026-01-01T00:00:00.000Z", "cwd": "/p"}
TS = "2026-01-01T00:00:01.000Z"


def _write(path: Path, *entries: dict) -> Path:
    path.write_bytes(b"".join(orjson.dumps(e) + b"\n" for e in (HEADER, *entries)))
    return path


def test_each_kind_gets_its_record(tmp_path: Path) -> None:
    usage = {"totalTokens": 12, "cost": {"total": 0.5}}
    session = load_session(
        _write(
            tmp_path / "s.jsonl",
            {
                "type": "message",
                "id": "u",
                "parentId": None,
                "timestamp": TS,
                "message": {"role": "user", "content": "hi"},
            },
            {
                "type": "message",
                "id": "a",
                "parentId": "u",
                "timestamp": TS,
                "message": {"role": "assistant", "content": [], "usage": usage, "stopReason": "stop"},
            },
            {"type": "label", "id": "l", "parentId": "a", "timestamp": TS, "targetId": "u", "label": "x"},
            {
                "type": "compaction",
                "id": "c",
                "parentId": "l",
                "timestamp": TS,
                "summary": "s",
                "firstKeptEntryId": "a",
                "tokensBefore": 999,
            },
            {"type": "session_info", "id": "n", "parentId": "c", "timestamp": TS, "name": " Named "},
        )
    )
    info = {e.id: e.info for e in session.entries}
    assert info["u"] is None
    assert info["a"] == AssistantInfo(tokens=12, cost=0.5, stop_reason="stop")
    assert isinstance(info["a"], AssistantInfo) and info["a"].tokens == 12
    assert info["l"] == LabelInfo(target="u", label="x")
    assert isinstance(info["l"], LabelInfo) and info["l"][0] == "u"  # readers that index it still work
    assert info["c"] == CompactionInfo(tokens_before=999)
    assert info["n"] == "Named"


def test_records_keep_what_was_written_unchecked(tmp_path: Path) -> None:
    session = load_session(
        _write(
            tmp_path / "s.jsonl",
            {
                "type": "message",
                "id": "a",
                "parentId": None,
                "timestamp": TS,
                "message": {"role": "assistant", "content": [], "stopReason": 7},
            },
            {"type": "label", "id": "l", "parentId": "a", "timestamp": TS, "targetId": 5},
        )
    )
    assistant, label = (e.info for e in session.entries)
    assert assistant == AssistantInfo(0, 0.0, 7)
    assert label == LabelInfo(5, None)
