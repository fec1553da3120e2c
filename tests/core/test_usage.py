"""Usage and cost: totals over assistant messages, with child usage attribution applied on load."""

from __future__ import annotations

from pathlib import Path

import orjson

from core import build_context, load_session, summarize


def usage(tokens: int, cost: float) -> dict:
    return {
        "input": tokens,
        "output": 0,
        "cacheRead": 0,
        "cacheWrite": 0,
        "totalTokens": tokens,
        "cost": {"input": cost, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": cost},
    }


def write(path: Path, rows: list[dict]) -> Path:
    path.write_bytes(b"".join(orjson.dumps(r) + b"\n" for r in rows))
    return path


def test_child_usage_attribution_is_applied_to_the_target(tmp_path: Path) -> None:
    ts = "2026-01-01T00:00:0{}.000Z"
    file = write(
        tmp_path / "s.jsonl",
        [
            {"type": "session", "version": 3, "id": "sid", "timestamp": ts.format(0), "cwd": "/p"},
            {
                "type": "message",
                "id": "u1",
                "parentId": None,
                "timestamp": ts.format(1),
                "message": {"role": "user", "content": "go", "timestamp": 1},
            },
            {
                "type": "message",
                "id": "a1",
                "parentId": "u1",
                "timestamp": ts.format(2),
                "message": {
                    "role": "assistant",
                    "content": [],
                    "provider": "anthropic",
                    "model": "m1",
                    "usage": usage(100, 0.5),
                    "stopReason": "stop",
                    "timestamp": 2,
                },
            },
            {
                "type": "message",
                "id": "a2",
                "parentId": "a1",
                "timestamp": ts.format(3),
                "message": {
                    "role": "assistant",
                    "content": [],
                    "provider": "openai",
                    "model": "m2",
                    "usage": usage(10, 0.25),
                    "stopReason": "error",
                    "timestamp": 3,
                },
            },
            {
                "type": "child_usage_attributed",
                "id": "c1",
                "parentId": "a2",
                "timestamp": ts.format(4),
                "targetId": "a1",
                "childUsage": usage(50, 1.0),
                "aggregateUsage": usage(150, 1.5),
            },
        ],
    )
    session = load_session(file)
    assert session.body("a1")["message"]["usage"]["totalTokens"] == 150
    assert session.body("a2")["message"]["usage"]["totalTokens"] == 10
    summary = summarize(session)
    assert summary.totalTokens == 160
    assert summary.cost == 1.75
    assert summary.models == ["anthropic/m1", "openai/m2"]
    assert summary.lastStopReason == "error"
    # bookkeeping never enters the context, but the attributed usage shows on the message
    context = build_context(session)
    assert [m["role"] for m in context["messages"]] == ["user", "assistant", "assistant"]
    assert context["messages"][1]["usage"]["totalTokens"] == 150
    assert not [d for d in session.diagnostics if d.is_problem]
