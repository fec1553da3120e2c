"""Real child-session layouts, written the way each agent writes them, for the child-session tests.

* Prime Agent (its RLM runtime): a parent in ``~/.prime/agent/sessions/<id>.jsonl`` with two children in
  ``~/.prime/agent/session-artifacts/<parent id>/sub-<8 hex>/<child id>.jsonl`` (one with ``rlmDepth``, one
  older without) and a grandchild one ``sub-`` folder deeper; the parent's ``child_usage_attributed``
  entries replace the launching message's usage with the aggregate, as Prime Agent appends them (one per
  child assistant message, the aggregate growing).
* ``pi-subagents`` (npm): children in ``<project folder>/<parent file's stem>/<runId>/run-0/`` and, as
  older versions wrote, ``<project folder>/<parent id>/<runId>/``.
* ``tintinweb/pi-subagents``: an ordinary session whose header names the parent, beside a fork of the
  same parent (which copies its entries: a fork, not a child).
* ``pi-interactive-subagents``: ``~/.pi/agent/subagent-sessions/``, one file naming its parent, one not.

:func:`brute_force_cost` adds up every assistant message's own cost over the files with plain ``json``:
what the whole history cost, each model call once.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

T0 = "2026-03-01T10:00:00.000Z"


def _usage(cost: float, tokens: int = 100) -> dict[str, object]:
    return {
        "input": tokens - 10,
        "output": 10,
        "cacheRead": 0,
        "cacheWrite": 0,
        "totalTokens": tokens,
        "cost": {"input": cost, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": cost},
    }


class Writer:
    """One session file's lines, with ids and timestamps in order."""

    def __init__(self, sid: str, cwd: str, minute: int = 0, **header: object) -> None:
        self.sid = sid
        self.lines: list[dict[str, object]] = [
            {
                "type": "session",
                "version": 3,
                "id": sid,
                "timestamp": self._ts(minute, 0),
                "cwd": cwd,
                **header,
            }
        ]
        self.last: str | None = None
        self.minute = minute
        self.n = 0

    def _ts(self, minute: int, second: int) -> str:
        return f"2026-03-01T10:{minute:02d}:{second:02d}.000Z"

    def add(self, obj: dict[str, object]) -> str:
        self.n += 1
        eid = f"{self.sid[:4]}{self.n:04d}"
        stamp = self._ts(self.minute, self.n)
        message = obj.get("message")
        if isinstance(message, dict):  # a message's own time, in ms, as the agents write it
            when = datetime.fromisoformat(stamp.replace("Z", "+00:00"))
            obj = {**obj, "message": {**message, "timestamp": int(when.timestamp() * 1000)}}
        self.lines.append({"id": eid, "parentId": self.last, "timestamp": stamp, **obj})
        self.last = eid
        return eid

    def user(self, text: str) -> str:
        return self.add({"type": "message", "message": {"role": "user", "content": text, "timestamp": 1}})

    def assistant(self, text: str, cost: float, call: dict[str, object] | None = None) -> str:
        content: list[dict[str, object]] = [{"type": "text", "text": text}]
        if call is not None:
            content.append({"type": "toolCall", **call})
        message = {
            "role": "assistant",
            "content": content,
            "provider": "anthropic",
            "model": "claude-sonnet-4-5",
            "usage": _usage(cost),
            "stopReason": "toolUse" if call else "stop",
            "timestamp": 1,
        }
        return self.add({"type": "message", "message": message})

    def attribute(self, target: str, child: float, aggregate: float) -> str:
        return self.add(
            {
                "type": "child_usage_attributed",
                "targetId": target,
                "childUsage": _usage(child),
                "aggregateUsage": _usage(aggregate),
                "origin": "spawn_task",
            }
        )

    def write(self, path: Path) -> Path:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("".join(json.dumps(line) + "\n" for line in self.lines))
        return path


@dataclass
class Layout:
    """What a layout wrote: its files by role, and what each session's figure must be."""

    files: dict[str, Path] = field(default_factory=dict)
    family: dict[str, float] = field(default_factory=dict)  # role -> the list's figure
    parents: dict[str, str | None] = field(default_factory=dict)  # child role -> parent role
    depths: dict[str, int] = field(default_factory=dict)
    launchers: dict[str, str] = field(default_factory=dict)  # child role -> the parent's launching entry


def prime_agent(home: Path) -> Layout:
    """A Prime Agent parent with two children, one with a grandchild, in ``session-artifacts``."""
    out = Layout()
    sessions = home / ".prime" / "agent" / "sessions"
    artifacts = home / ".prime" / "agent" / "session-artifacts"
    parent_id = "0194a000-pa00-7000-8000-000000000001"
    parent_path = sessions / f"{parent_id}.jsonl"
    c1_id, c2_id, gc_id = "c1c1c1c1-0000", "c2c2c2c2-0000", "gcgcgcgc-0000"
    c1_path = artifacts / parent_id / "sub-1a2b3c4d" / f"{c1_id}.jsonl"
    gc_path = artifacts / parent_id / "sub-1a2b3c4d" / "sub-5e6f7a8b" / f"{gc_id}.jsonl"
    c2_path = artifacts / parent_id / "sub-9c0d1e2f" / f"{c2_id}.jsonl"

    gc = Writer(gc_id, "/home/u/proj", 3, parentSession=str(c1_path), rlmDepth=2)
    gc.user("count the files")
    gc.assistant("there are 12", 0.05)
    gc.write(gc_path)

    c1 = Writer(c1_id, "/home/u/proj", 2, parentSession=str(parent_path), rlmDepth=1)
    c1.user("survey the repository")
    launch_gc = c1.assistant("spawning a helper", 0.25)
    c1.attribute(launch_gc, 0.05, 0.30)  # the grandchild's answer, attributed to the child's message
    c1.assistant("the survey is done", 0.10)
    c1.write(c1_path)

    c2 = Writer(c2_id, "/home/u/proj", 4, parentSession=str(parent_path))  # older: no rlmDepth
    c2.user("write the tests")
    c2.assistant("tests written", 0.40)
    c2.write(c2_path)

    p = Writer(parent_id, "/home/u/proj", 1)
    p.user("Refactor the parser with helpers")
    p.assistant("planning", 0.10)
    launch = p.assistant("launching two children", 0.20, {"id": "call1", "name": "rlm", "arguments": {}})
    # One attribution per child assistant message, the aggregate growing (what Prime Agent appends): the
    # child's first message carries the grandchild's aggregate (0.30), then 0.10, then the other child.
    p.attribute(launch, 0.30, 0.50)
    p.attribute(launch, 0.10, 0.60)
    p.attribute(launch, 0.40, 1.00)
    p.assistant("all merged", 0.15)
    p.write(parent_path)

    out.files = {"parent": parent_path, "c1": c1_path, "c2": c2_path, "gc": gc_path}
    # The parent's figure: its own 0.45 and the children's 0.80 inside its aggregate (grandchild included).
    out.family = {"parent": 1.25, "c1": 0.40, "c2": 0.40, "gc": 0.05}
    out.parents = {"c1": "parent", "c2": "parent", "gc": "c1"}
    out.depths = {"c1": 1, "c2": 1, "gc": 2}
    out.launchers = {"c1": launch, "c2": launch}
    return out


def pi_subagents(home: Path) -> Layout:
    """``pi-subagents`` (npm): children under a folder named after the parent's file (stem, or old: id)."""
    out = Layout()
    project = home / ".pi" / "agent" / "sessions" / "--home-u-app--"
    parent_id = "5f316403-aaaa-4bbb-8ccc-000000000001"
    stem = f"2026-03-01T10-00-00-000Z_{parent_id}"
    parent_path = project / f"{stem}.jsonl"
    p = Writer(parent_id, "/home/u/app", 10)
    p.user("Review the app with two scouts")
    call = p.assistant("asking the scouts", 0.05, {"id": "sa1", "name": "subagent", "arguments": {}})
    p.add({"type": "message", "message": {"role": "toolResult", "toolCallId": "sa1", "toolName": "subagent",
                                          "content": [{"type": "text", "text": "done"}], "isError": False,
                                          "timestamp": 1}})  # fmt: skip
    p.write(parent_path)
    a = Writer("a1a1a1a1-run0", "/home/u/app", 11)
    a.user("scout the routes")
    a.assistant("routes scouted", 0.20)
    a_path = a.write(project / stem / "3f2e1d0c" / "run-0" / "2026-03-01T10-11-00-000Z_a1a1a1a1-run0.jsonl")
    b = Writer("b2b2b2b2-old", "/home/u/app", 12)
    b.user("scout the models")
    b.assistant("models scouted", 0.15)
    b_path = b.write(project / parent_id / "7a6b5c4d" / "2026-03-01T10-12-00-000Z_b2b2b2b2-old.jsonl")
    out.files = {"parent": parent_path, "a": a_path, "b": b_path}
    out.family = {"parent": 0.40, "a": 0.20, "b": 0.15}
    out.parents = {"a": "parent", "b": "parent"}
    out.depths = {"a": 1, "b": 1}
    out.launchers = {"a": call, "b": call}
    return out


def header_linked(home: Path) -> Layout:
    """``tintinweb/pi-subagents``: a child whose header names its parent, beside a fork of that parent;
    ``pi-interactive-subagents``: ``subagent-sessions/``, one file naming its parent and one not."""
    out = Layout()
    project = home / ".pi" / "agent" / "sessions" / "--home-u-lib--"
    parent_id = "77777777-pppp-4000-8000-000000000001"
    parent_path = project / f"2026-03-01T10-20-00-000Z_{parent_id}.jsonl"
    p = Writer(parent_id, "/home/u/lib", 20)
    p.user("Plan the release")
    launch = p.assistant("delegating", 0.30, {"id": "ag1", "name": "Agent", "arguments": {}})
    p.minute = 25  # the subagents ran meanwhile: their answers come back, the parent goes on
    p.add({"type": "message", "message": {"role": "toolResult", "toolCallId": "ag1", "toolName": "Agent",
                                          "content": [{"type": "text", "text": "changelog drafted"}],
                                          "isError": False, "timestamp": 1}})  # fmt: skip
    p.assistant("the release is planned", 0.01)
    p.write(parent_path)
    child = Writer("88888888-cccc", "/home/u/lib", 21, parentSession=str(parent_path))
    child.user("draft the changelog")
    child.assistant("changelog drafted", 0.12)
    child_path = child.write(project / "2026-03-01T10-21-00-000Z_88888888-cccc.jsonl")
    # A fork: pi copies the parent's entries (same ids) into a new file whose header names the parent.
    fork = Writer("99999999-ffff", "/home/u/lib", 26, parentSession=str(parent_path))
    fork.lines += [dict(line) for line in p.lines[1:]]
    fork.last = p.last
    fork.sid = "9999"
    fork.assistant("a different plan", 0.07)
    fork_path = fork.write(project / "2026-03-01T10-22-00-000Z_99999999-ffff.jsonl")
    shelf = home / ".pi" / "agent" / "subagent-sessions"
    named = Writer("aaaa0000-inter", "/home/u/lib", 23, parentSession=str(parent_path))
    named.user("check the docs")
    named.assistant("docs checked", 0.08)
    named_path = named.write(shelf / "2026-03-01T10-23-00-000Z_aaaa0000-inter.jsonl")
    alone = Writer("bbbb0000-alone", "/home/u/lib", 24)
    alone.user("a reviewer run whose parent is not recorded")
    alone.assistant("reviewed", 0.02)
    alone_path = alone.write(shelf / "f00dcafe" / "session.jsonl")
    out.files = {"parent": parent_path, "child": child_path, "fork": fork_path, "named": named_path,
                 "alone": alone_path}  # fmt: skip
    out.family = {"parent": 0.51, "child": 0.12, "fork": 0.38, "named": 0.08, "alone": 0.02}
    out.parents = {"child": "parent", "named": "parent", "alone": None}
    out.depths = {"child": 1, "named": 1, "alone": 1}
    out.launchers = {"child": launch, "named": launch}
    return out


def brute_force_cost(files: list[Path]) -> float:
    """Every assistant message's own cost over ``files``, each model call once: plain ``json``.

    A fork's copied entries (an id a file its header names holds already) count in the parent only.
    """
    seen: set[tuple[str, str]] = set()
    total = 0.0
    by_path = {str(f): f for f in files}
    for path in files:
        lines = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
        header, entries = lines[0], lines[1:]
        parent = by_path.get(str(header.get("parentSession")))
        copied = set()
        if parent is not None:
            copied = {json.loads(x).get("id") for x in parent.read_text().splitlines()[1:] if x.strip()}
        for obj in entries:
            message = obj.get("message") or {}
            if obj.get("type") == "message" and message.get("role") == "assistant":
                if obj["id"] in copied or (str(path), obj["id"]) in seen:
                    continue
                seen.add((str(path), obj["id"]))
                total += message["usage"]["cost"]["total"]
    return round(total, 10)
