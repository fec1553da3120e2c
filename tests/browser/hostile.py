"""A session full of hostile content, for the export safety tests (core and browser).

Every string an attacker controls in a session (user text, assistant text, thinking, tool names,
arguments, outputs, image types, labels, the session name, the project folder) tries to run script,
load something from the network or break the structure of the exported document. Two branches carry
the unique words ``needle-alpha`` and ``needle-beta`` so branch switching and search can be checked.
"""

from __future__ import annotations

import base64
from pathlib import Path

import orjson

PWN = "window.__pwned = (window.__pwned || 0) + 1"
SCRIPTS = [
    f"<script>{PWN}</script>",
    f"</script><script>{PWN}</script>",
    f'<img src=x onerror="{PWN}">',
    f'<svg onload="{PWN}"></svg>',
    '<iframe src="https://example.invalid/frame"></iframe>',
    '<link rel="stylesheet" href="https://example.invalid/x.css">',
    f"<!-- <script>{PWN}</script> -->",
    "\u2028\u2029",
]
MARKDOWN = (
    "Hostile markdown:\n\n"
    f"[click me](javascript:{PWN.replace(' ', '')})\n\n"
    "[data link](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==)\n\n"
    "![tracker](https://example.invalid/track.png)\n\n"
    "<https://example.invalid/autolink>\n\n"
    "````markdown\n```js\nalert('fence inside fence')\n```\n````\n\n"
    "``` `` ``` and `</script>` in code\n\n" + "\n\n".join(SCRIPTS)
)
PNG = base64.b64encode(
    bytes.fromhex(
        "89504e470d0a1a0a0000000d4948445200000001000000010806000000"
        "1f15c4890000000d49444154789c6360f8cf00000301010018dd8db00000000049454e44ae426082"
    )
).decode("ascii")
HTML_AS_IMAGE = base64.b64encode(f"<script>{PWN}</script>".encode()).decode("ascii")
T0 = 1767225600000


def _stamp(i: int) -> str:
    return f"2026-01-01T00:{i // 60:02d}:{i % 60:02d}.000Z"


def _assistant(text: str, blocks: list[dict] | None = None) -> dict:
    return {
        "role": "assistant",
        "content": [{"type": "thinking", "thinking": "thinking " + MARKDOWN}, {"type": "text", "text": text}]
        + (blocks or []),
        "api": "anthropic-messages",
        "provider": "anthropic</script>",
        "model": f"<script>{PWN}</script>",
        "usage": {"input": 1, "output": 1, "totalTokens": 2, "cost": {"total": 0.5}},
        "stopReason": "toolUse" if blocks else "stop",
        "timestamp": T0,
    }


def hostile_entries() -> tuple[dict, list[dict]]:
    """The header and the entries of the hostile session (two branches from the first answer)."""
    header = {
        "type": "session",
        "version": 3,
        "id": "019d0000-0000-7000-8000-00000000beef",
        "timestamp": _stamp(0),
        "cwd": f"/home/dev/<script>{PWN}</script>",
    }
    entries: list[dict] = []

    def add(entry_id: str, parent: str | None, body: dict) -> None:
        entries.append({"id": entry_id, "parentId": parent, "timestamp": _stamp(len(entries) + 1), **body})

    add("e0000001", None, {"type": "session_info", "name": f"</title><script>{PWN}</script>"})
    user = {
        "role": "user",
        "content": [
            {"type": "text", "text": MARKDOWN},
            {"type": "image", "mimeType": "text/html", "data": HTML_AS_IMAGE},
            {"type": "image", "mimeType": "image/png", "data": HTML_AS_IMAGE},
            {"type": "image", "mimeType": "image/png", "data": PNG},
        ],
        "timestamp": T0,
    }
    add("e0000002", "e0000001", {"type": "message", "message": user})
    calls = [
        {
            "type": "toolCall",
            "id": "call_1",
            "name": "bash",
            "arguments": {"command": f"echo '</script>{PWN}'"},
        },
        {
            "type": "toolCall",
            "id": "call_2",
            "name": "<img src=x onerror=alert(1)>",
            "arguments": {"x": "</script>"},
        },
    ]
    add("e0000003", "e0000002", {"type": "message", "message": _assistant(MARKDOWN, calls)})
    for n, call in enumerate(calls, start=1):
        result = {
            "role": "toolResult",
            "toolCallId": call["id"],
            "toolName": call["name"],
            "content": [
                {"type": "text", "text": MARKDOWN},
                {"type": "image", "mimeType": "text/html", "data": HTML_AS_IMAGE},
            ],
            "isError": n == 2,
            "timestamp": T0,
        }
        add(f"e000000{3 + n}", f"e000000{2 + n}", {"type": "message", "message": result})
    add("e0000006", "e0000005", {"type": "message", "message": _assistant("answer on branch needle-alpha")})
    add(
        "e0000007",
        "e0000006",
        {"type": "label", "targetId": "e0000006", "label": f'<b onmouseover="{PWN}">x</b>'},
    )
    add("e0000008", "e0000007", {"type": "custom", "customType": "<script>", "data": {"html": SCRIPTS}})
    add(
        "e0000009",
        "e0000008",
        {"type": "custom_message", "customType": "note", "content": MARKDOWN, "display": True},
    )
    bash = {
        "role": "bashExecution",
        "command": f"cat <<'EOF'\n</script>{PWN}\nEOF",
        "output": MARKDOWN,
        "exitCode": 0,
        "cancelled": False,
        "truncated": False,
        "timestamp": T0,
    }
    add("e000000a", "e0000009", {"type": "message", "message": bash})
    # The second branch, from the first answer's last result: the current leaf is on it.
    add(
        "e000000b",
        "e0000005",
        {"type": "message", "message": {"role": "user", "content": "other way", "timestamp": T0}},
    )
    add("e000000c", "e000000b", {"type": "message", "message": _assistant("answer on branch needle-beta")})
    return header, entries


def write_hostile_session(folder: Path) -> Path:
    """Write the hostile session into ``folder`` and return its path."""
    header, entries = hostile_entries()
    path = folder / "hostile.jsonl"
    path.write_bytes(b"".join(orjson.dumps(obj) + b"\n" for obj in [header, *entries]))
    return path
