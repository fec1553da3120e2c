"""A hand-written session with every entry type and field pi 1.6 and Prime Agent write today.

``../shared/reference/FORMAT-latest.md`` lists them; the ``modern`` sample of ``samples-latest`` has the
pi 1.6 types as pi writes them, this file adds the fields and Prime Agent types no sample holds. Ids are
readable (``sys1``, ``edit1``...) so tests can name what they look at.
"""

from __future__ import annotations

from pathlib import Path

import orjson

HEADER = {
    "type": "session",
    "version": 3,
    "id": "current",
    "timestamp": "2026-10-14T10:00:00.000Z",
    "cwd": "/home/dev/proj",
    "rlmDepth": 0,
    "git": {
        "repoUrl": "https://github.com/acme/proj.git",
        "commit": "141986b61970bbbb5916",
        "branch": "main",
    },
}
USAGE = {
    "input": 3460,
    "output": 120,
    "cacheRead": 31136,
    "cacheWrite": 0,
    "reasoning": 40,
    "totalTokens": 34716,
    "cost": {"input": 0.0173, "output": 0.003, "cacheRead": 0.015568, "cacheWrite": 0, "total": 0.035868},
}
CHILD = {
    "input": 1000,
    "output": 100,
    "cacheRead": 0,
    "cacheWrite": 0,
    "totalTokens": 1100,
    "cost": {"total": 0.25},
}
SYSTEM_TEXT = "You are a careful coding agent working on proj."
SECTION_TEXT = "Prefer small commits in this repository."


def _ms(second: int) -> int:
    return 1791972000000 + second * 1000


def _rows() -> list[dict]:
    call = {"type": "toolCall", "id": "c1", "name": "codemode", "arguments": {"script": "run()"}}
    bad_call = {
        "type": "toolCall",
        "id": "c2",
        "name": "bash",
        "arguments": {},
        "argumentsError": "not JSON: {cmd",
    }
    nested = {
        "calls": [
            {"id": "n1", "name": "read", "arguments": {"path": "a.py"}, "status": "ok", "durationMs": 12},
            {"id": "n2", "name": "bash", "argumentsBytes": 90000, "status": "error", "error": "exit 2: boom"},
        ],
        "complete": False,
    }
    return [
        {"type": "model_change", "id": "model1", "model": "openrouter/qwen3-coder"},
        {
            "type": "message",
            "id": "sys1",
            "message": {
                "role": "system",
                "content": SYSTEM_TEXT,
                "sections": {"repo-rules": SECTION_TEXT, "old-rules": None},
                "toolsAdded": [
                    {"name": "codemode", "description": "Run a script that calls tools.", "parameters": {}}
                ],
                "toolsRemoved": [{"name": "write"}],
                "timestamp": _ms(1),
            },
        },
        {
            "type": "message",
            "id": "user1",
            "message": {"role": "user", "content": "Find the parser.", "timestamp": _ms(2)},
        },
        {
            "type": "message",
            "id": "asst1",
            "message": {
                "role": "assistant",
                "content": [{"type": "text", "text": "Looking.", "textSignature": "sig"}, call, bad_call],
                "api": "openai-responses",
                "provider": "openai",
                "model": "gpt-5",
                "responseModel": "gpt-5-2026-08-01",
                "thinkingLevel": "high",
                "usage": USAGE,
                "stopReason": "toolUse",
                "durationMs": 4250,
                "timestamp": _ms(3),
            },
        },
        {
            "type": "message",
            "id": "res1",
            "message": {
                "role": "toolResult",
                "toolCallId": "c1",
                "toolName": "codemode",
                "content": [{"type": "text", "text": "parser is in src/parse.ts"}],
                "usage": {
                    "input": 200,
                    "output": 10,
                    "cacheRead": 0,
                    "cacheWrite": 0,
                    "totalTokens": 210,
                    "cost": {"total": 0.001},
                },
                "nestedCalls": nested,
                "durationMs": 1234,
                "isError": False,
                "timestamp": _ms(4),
            },
        },
        {
            "type": "message",
            "id": "res2",
            "message": {
                "role": "toolResult",
                "toolCallId": "c2",
                "toolName": "bash",
                "content": [{"type": "text", "text": "invalid arguments"}],
                "isError": True,
                "timestamp": _ms(5),
            },
        },
        {
            "type": "child_usage_attributed",
            "id": "child1",
            "targetId": "asst1",
            "childUsage": CHILD,
            "aggregateUsage": {**USAGE, "input": 4460, "output": 220, "cost": {"total": 0.285868}},
            "origin": "spawn_task",
        },
        {
            "type": "usage",
            "id": "use1",
            "kind": "cache_warm",
            "provider": "openai",
            "model": "gpt-5",
            "usage": USAGE,
            "note": "keep the prompt cache warm",
        },
        {
            "type": "context_edit",
            "id": "edit1",
            "targetId": "res1",
            "replacement": {"content": [{"type": "text", "text": "[elided parser listing]"}]},
        },
        {"type": "context_edit", "id": "edit2", "targetId": "user1", "replacement": None},
        {
            "type": "message",
            "id": "asst2",
            "message": {
                "role": "assistant",
                "content": [],
                "api": "openai-responses",
                "provider": "openai",
                "model": "gpt-5",
                "usage": USAGE,
                "stopReason": "deferred",
                "timestamp": _ms(8),
            },
        },
        {"type": "session_state", "id": "state1", "state": {"status": "archived"}},
        {
            "type": "agent_status",
            "id": "status1",
            "status": {
                "summary": "Waiting for the parser review.",
                "taskState": "needs_input",
                "basedOnMessageCount": 6,
            },
        },
        {
            "type": "git_state",
            "id": "git1",
            "git": {"branch": "fix-parser", "commit": "0123456789abcdef0123"},
        },
        {
            "type": "compaction",
            "id": "comp1",
            "summary": "## Goal\nFix the parser.",
            "firstKeptEntryId": "comp1",
            "tokensBefore": 61234,
            "usage": USAGE,
            "customInstructions": "Keep the file names.",
            "systemMessage": {"role": "system", "content": SYSTEM_TEXT, "timestamp": _ms(12)},
        },
        {
            "type": "branch_summary",
            "id": "bsum1",
            "fromId": "root",
            "summary": "Tried another parser.",
            "usage": USAGE,
        },
        {
            "type": "message",
            "id": "asst3",
            "message": {
                "role": "assistant",
                "content": [],
                "provider": "openai",
                "model": "gpt-5",
                "stopReason": "pending",
                "timestamp": _ms(14),
            },
        },
    ]


def write_current_session(path: Path) -> Path:
    """Write the session to ``path`` (each entry the child of the one before) and return ``path``."""
    lines = [HEADER]
    previous = None
    for n, row in enumerate(_rows()):
        stamp = f"2026-10-14T10:00:{n + 1:02d}.000Z"
        lines.append({"type": row["type"], "id": row["id"], "parentId": previous, "timestamp": stamp, **row})
        previous = row["id"]
    path.write_bytes(b"".join(orjson.dumps(line) + b"\n" for line in lines))
    return path
