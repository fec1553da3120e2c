"""Sessions holding one hostile value, and every reading command run over them (issue 29).

One value in one file must cost that line, never the list: :func:`hostile_file` writes a small session
(a user message, an assistant reply calling a tool, its result, a label, a name, a second branch) with
one field replaced by raw JSON text (nested 1,000 levels deep, an integer of 2**63, a time of
1.5e308...), beside a copy of the demo sessions; :func:`run_everything` runs every command that reads
it, in process, with ``PRIME_SESSIONS_DEBUG`` set so that an internal error raises; :func:`others_unchanged`
compares what the other sessions show with what they show alone. The parametrised cases of
``test_hostile_values.py``, the property test beside them and ``benchmarks/fuzz_values.py`` share it.
"""

from __future__ import annotations

import io
import json
import os
import shutil
import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import orjson

from core.cli.program import main

REPO = Path(__file__).resolve().parents[2]
DEMO = REPO / "resources" / "demo"
SESSION_ID = "019d0000-0000-7000-8000-00000000beef"
NAME = f"{SESSION_ID}.jsonl"
_HOLE = "\u0000hostile\u0000"  # stands where the raw value goes
_HOLE_JSON = orjson.dumps(_HOLE)

_USAGE = {
    "input": 400,
    "output": 20,
    "cacheRead": 0,
    "cacheWrite": 0,
    "totalTokens": 420,
    "cost": {"input": 0.0012, "output": 0.0003, "cacheRead": 0, "cacheWrite": 0, "total": 0.0015},
}


def base_lines() -> list[dict[str, object]]:
    """The session's objects, line by line (fresh each call)."""

    def entry(
        kind: str, entry_id: str, parent: str | None, second: int, **fields: object
    ) -> dict[str, object]:
        stamp = f"2026-03-02T09:16:{second:02d}.000Z"
        return {"type": kind, "id": entry_id, "parentId": parent, "timestamp": stamp, **fields}

    def message(role: str, content: object, second: int, **fields: object) -> dict[str, object]:
        return {"role": role, "content": content, "timestamp": 1772442960000 + second * 1000, **fields}

    call = {"type": "toolCall", "id": "t1", "name": "read", "arguments": {"path": "src/app.ts"}}
    lookup = {"type": "toolCall", "id": "t2", "name": "lookup", "arguments": {"query": "app"}}
    reply = message(
        "assistant",
        [{"type": "text", "text": "Let me read it."}, call, lookup],
        2,
        provider="anthropic",
        model="claude-sonnet-4-5",
        usage=json.loads(json.dumps(_USAGE)),
        stopReason="toolUse",
    )
    result = message("toolResult", [{"type": "text", "text": "export const app = 1;"}], 3)
    result.update(toolCallId="t1", toolName="read", isError=False)
    other = message(
        "assistant",
        [{"type": "text", "text": "Another way."}],
        7,
        provider="anthropic",
        model="claude-sonnet-4-5",
        usage=json.loads(json.dumps(_USAGE)),
        stopReason="stop",
    )
    return [
        {
            "type": "session",
            "version": 3,
            "id": SESSION_ID,
            "timestamp": "2026-03-02T09:14:07.122Z",
            "cwd": "/home/dev/hostile",
        },
        entry("message", "a1", None, 1, message=message("user", "hello hostile world", 1)),
        entry("message", "a2", "a1", 2, message=reply),
        entry("message", "a3", "a2", 3, message=result),
        entry("label", "a4", "a3", 4, targetId="a1", label="start"),
        entry("session_info", "a5", "a4", 5, name="A hostile session"),
        entry("message", "a6", "a1", 6, message=message("user", "try another way", 6)),
        entry("message", "a7", "a6", 7, message=other),
    ]


FIELDS: dict[str, tuple[int, tuple[str | int, ...]]] = {
    "header.extra": (0, ("extra",)),
    "header.cwd": (0, ("cwd",)),
    "header.version": (0, ("version",)),
    "header.timestamp": (0, ("timestamp",)),
    "user.content": (1, ("message", "content")),
    "user.timestamp": (1, ("message", "timestamp")),
    "user.entry-timestamp": (1, ("timestamp",)),
    "assistant.text": (2, ("message", "content", 0, "text")),
    "assistant.arguments": (2, ("message", "content", 1, "arguments")),
    "assistant.tool-name": (2, ("message", "content", 1, "name")),
    "assistant.lookup-arguments": (2, ("message", "content", 2, "arguments")),
    "assistant.model": (2, ("message", "model")),
    "assistant.usage": (2, ("message", "usage")),
    "assistant.input": (2, ("message", "usage", "input")),
    "assistant.total-tokens": (2, ("message", "usage", "totalTokens")),
    "assistant.cost": (2, ("message", "usage", "cost", "total")),
    "assistant.timestamp": (2, ("message", "timestamp")),
    "assistant.entry-timestamp": (2, ("timestamp",)),
    "result.content": (3, ("message", "content")),
    "result.details": (3, ("message", "details")),
    "label.label": (4, ("label",)),
    "label.target": (4, ("targetId",)),
    "name.name": (5, ("name",)),
    "branch.content": (6, ("message", "content")),
    "branch.usage-output": (7, ("message", "usage", "output")),
    "branch.timestamp": (7, ("message", "timestamp")),
    "branch.entry-timestamp": (7, ("timestamp",)),
}
"""Where a hostile value can go: a name -> (line, the keys down to the field)."""


def nested(depth: int, leaf: bytes = b'"bottom"') -> bytes:
    """JSON text nested ``depth`` levels deep, objects and lists by turns (the outermost a list)."""
    opening = b"".join(b"[" if level % 2 == 0 else b'{"k":' for level in range(depth))
    closing = b"".join(b"]" if level % 2 == 0 else b"}" for level in reversed(range(depth)))
    return opening + leaf + closing


def session_bytes(field: str, raw: bytes) -> bytes:
    """The session file with ``field`` (a key of :data:`FIELDS`) holding the JSON text ``raw``."""
    lines = base_lines()
    line, keys = FIELDS[field]
    holder: object = lines[line]
    for key in keys[:-1]:
        holder = holder[key]  # type: ignore[index]
    holder[keys[-1]] = _HOLE  # type: ignore[index]
    encoded = [orjson.dumps(obj) for obj in lines]
    encoded[line] = encoded[line].replace(_HOLE_JSON, raw)
    return b"\n".join(encoded) + b"\n"


def demo_folder(folder: Path) -> Path:
    """A copy of the demo sessions in ``folder`` (made)."""
    folder.mkdir(parents=True, exist_ok=True)
    for path in DEMO.glob("*.jsonl"):
        shutil.copy2(path, folder / path.name)
    return folder


def hostile_file(folder: Path, field: str, raw: bytes) -> Path:
    """Write the hostile session into ``folder`` (beside the demo copy) and return its path."""
    path = folder / NAME
    path.write_bytes(session_bytes(field, raw))
    return path


@dataclass
class Ran:
    """One command's exit status and what it printed."""

    argv: Sequence[str]
    status: int
    out: str
    err: str


@contextmanager
def _captured() -> Iterator[tuple[io.BytesIO, io.BytesIO]]:
    out, err = io.BytesIO(), io.BytesIO()
    saved = sys.stdout, sys.stderr
    wrappers = [io.TextIOWrapper(buffer, encoding="utf-8", write_through=True) for buffer in (out, err)]
    sys.stdout, sys.stderr = wrappers
    try:
        yield out, err
    finally:
        sys.stdout, sys.stderr = saved
        for wrapper in wrappers:
            wrapper.flush()
            wrapper.detach()  # a wrapper closes its buffer when it goes


def run(*argv: str | Path) -> Ran:
    """``prime-sessions ARGV`` in this process; an internal error raises (``PRIME_SESSIONS_DEBUG``)."""
    args = [os.fspath(a) for a in argv]
    previous = os.environ.get("PRIME_SESSIONS_DEBUG")
    os.environ["PRIME_SESSIONS_DEBUG"] = "1"
    try:
        with _captured() as (out, err):
            status = main(args)
    finally:
        if previous is None:
            del os.environ["PRIME_SESSIONS_DEBUG"]
        else:
            os.environ["PRIME_SESSIONS_DEBUG"] = previous
    ran = Ran(
        args, status, out.getvalue().decode("utf-8", "replace"), err.getvalue().decode("utf-8", "replace")
    )
    assert "internal error" not in ran.err, (args, ran.err)
    return ran


REPORTS = ("daily", "weekly", "monthly", "session", "model", "project", "blocks")


def run_everything(folder: Path, path: Path, catalogue: Path, out: Path) -> dict[str, Ran]:
    """Every reading command over ``folder`` (the list, search, usage) and over ``path`` (the rest).

    Returns the runs by a short name. Statuses are checked: 0 everywhere but ``check`` (1 when it
    finds a problem) and ``search`` (0 with or without hits).
    """
    out.mkdir(parents=True, exist_ok=True)
    cat = ("--catalogue", catalogue)
    commands: dict[str, tuple[str | Path, ...]] = {
        "check": ("check", "-v", path),
        "show": ("show", path),
        "tree": ("tree", path),
        "tree-json": ("tree", "--json", path),
        "context": ("context", path),
        "md": ("export", path, "-o", out / "path.md", "--force"),
        "html": ("export", path, "-o", out / "path.html", "--force"),
        "html-tree": ("export", path, "--tree", "-o", out / "tree.html", "--force"),
        "md-tree": ("export", path, "--tree", "--redact", "-o", out / "tree.md", "--force"),
        "diff": ("diff", path, "a5", "a7"),
        "diff-json": ("diff", path, "a5", "a7", "--format", "json"),
        "diff-html": ("diff", path, "a5", "a7", "-o", out / "diff.html", "--force"),
        "list": ("list", "--json", folder, *cat),
        "list-files": ("list", "--json", "--no-catalogue", folder),
        "search": ("search", "hostile", folder, "--json", *cat),
        **{f"usage-{kind}": ("usage", kind, folder, "--json", *cat) for kind in REPORTS},
        "usage-table": ("usage", "daily", folder, "-b", *cat),
        "usage-zone": ("usage", "session", folder, "-z", "Pacific/Kiritimati", *cat),
    }
    ran = {name: run(*argv) for name, argv in commands.items()}
    for name, result in ran.items():
        allowed = (0, 1) if name == "check" else (0,)
        assert result.status in allowed, (name, result.argv, result.status, result.err)
    return ran


def listed(ran: dict[str, Ran]) -> dict[str, dict[str, object]]:
    """Session id -> its ``list --json`` summary, from the catalogue's list."""
    return {str(item["id"]): item for item in json.loads(ran["list"].out)}


_SHOWN = ("id", "path", "messageCount", "firstMessage", "totalTokens", "cost", "name", "modified", "cwd")


def summary_facts(summary: dict[str, object]) -> tuple[object, ...]:
    """What the list shows of a session (its path without the folder)."""
    return tuple(os.path.basename(str(v)) if k == "path" else v for k, v in summary.items() if k in _SHOWN)


def usage_rows(ran: Ran) -> dict[str, tuple[object, ...]]:
    """Session path's file name -> (tokens, cost) of a ``usage session --json`` report."""
    rows = json.loads(ran.out)["sessions"]
    return {os.path.basename(r["session"]): (r["totalTokens"], round(r["totalCost"], 10)) for r in rows}
