"""The ``tree`` command's text output stays linear in size however deep the branch points nest."""

from __future__ import annotations

import re
from pathlib import Path

import orjson

from tests.helpers import run_cli


def _nested_branches(path: Path, depth: int) -> None:
    """A chain of ``depth`` branch points: each has a dead-end child and the child the chain goes on from."""
    ts = "2026-01-01T00:00:00.000Z"
    lines = [{"type": "session", "version": 3, "id": "deep", "timestamp": ts, "cwd": "/p"}]
    parent = None
    for i in range(depth + 1):
        entry_id = f"m{i:07d}"
        lines.append(
            {
                "type": "message",
                "id": entry_id,
                "parentId": parent,
                "timestamp": ts,
                "message": {"role": "user", "content": f"turn {i}", "timestamp": 1767225600000},
            }
        )
        if i < depth:  # a sibling branch that ends at once: this entry becomes a branch point
            lines.append(
                {
                    "type": "message",
                    "id": f"d{i:07d}",
                    "parentId": entry_id,
                    "timestamp": ts,
                    "message": {"role": "user", "content": "dead end", "timestamp": 1767225600000},
                }
            )
        parent = entry_id
    path.write_bytes(b"".join(orjson.dumps(line) + b"\n" for line in lines))


def test_deep_branch_points_print_their_depth_instead_of_indenting_further(tmp_path: Path) -> None:
    path = tmp_path / "deep.jsonl"
    _nested_branches(path, 10_000)  # was 200 MB of indentation
    result = run_cli("tree", path, "--width", "30")
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert len(lines) == 20_001
    assert max(len(line) for line in lines) < 100  # linear: no line grows with the depth
    by_id = {re.findall(r"[md]\d{7}", line)[0]: line for line in lines}
    # Two spaces per branch point, as before, up to 12; deeper lines say how deep they are instead.
    assert by_id["m0000000"].startswith("* m0000000 ")
    assert by_id["d0000000"].startswith("    d0000000 ")  # not on the path, below one branch point
    assert by_id["m0000012"].startswith("* " + "  " * 12 + "m0000012 ")
    assert by_id["m0000013"].startswith("* " + "  " * 12 + "+13 m0000013 ")
    assert by_id["d0000013"].startswith("  " + "  " * 12 + "+14 d0000013 ")
    assert by_id["m0010000"].startswith("@ " + "  " * 12 + "+10000 m0010000 ")
