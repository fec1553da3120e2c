"""Benchmark of the branch diff: two 5,000-message branches, whole process, beside a bare load of the file.

The session is made from the messages of ``benchmarks/out/large-20000.jsonl`` (oracle-written, realistic
sizes; regenerate it with ``benchmarks/run_core.py`` when missing): a 200-message common part, then a left
branch of 5,000 messages and a right branch holding the same messages with changes every few dozen
messages (a reworded answer every 50, an extra tool call and result every 200, a dropped message every
500). Written to ``benchmarks/out/diff-5000x5000.jsonl`` (git-ignored).

Timed, each as its own process from start to exit (``os.wait4``), round robin after one warm-up run:

* ``prime-sessions diff FILE LEFT RIGHT --format json|text|html > /dev/null`` (ours);
* ``load_session(FILE)`` alone in a fresh interpreter, and ``benchmarks/bare_parse.py FILE`` (the floor);

and in this process, the median of ``diff_paths`` on the loaded session (reading bodies, aligning,
word diffs, summaries), which is what the issue's "under 1 s" is about.

Usage::

    python benchmarks/run_diff.py [--runs 5] [--out DIR]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import time
from datetime import UTC, datetime
from pathlib import Path

import orjson

REPO = Path(__file__).resolve().parent.parent
DEFAULT_OUT = REPO / "benchmarks" / "out"
BRANCH = 5000
COMMON = 200


def build_session(source: Path, target: Path) -> tuple[str, str, int]:
    """Write the two-branch session; returns (left leaf id, right leaf id, entries written)."""
    messages: list[dict] = []
    with open(source, "rb") as handle:
        for raw in handle:
            obj = orjson.loads(raw)
            if obj.get("type") == "message":
                messages.append(obj["message"])
                if len(messages) >= COMMON + BRANCH:
                    break
    if len(messages) < COMMON + BRANCH:
        raise SystemExit(f"{source} has only {len(messages)} messages; {COMMON + BRANCH} are needed.")
    lines = [
        {
            "type": "session",
            "version": 3,
            "id": "bench-diff",
            "timestamp": "2026-01-01T00:00:00.000Z",
            "cwd": "/b",
        }
    ]
    clock = [0]

    def add(entry_id: str, parent: str | None, message: dict) -> str:
        clock[0] += 1
        seconds = clock[0]
        stamp = f"2026-01-01T{seconds // 3600 % 24:02d}:{seconds // 60 % 60:02d}:{seconds % 60:02d}.000Z"
        lines.append(
            {"type": "message", "id": entry_id, "parentId": parent, "timestamp": stamp, "message": message}
        )
        return entry_id

    parent = None
    for index in range(COMMON):
        parent = add(f"c{index:07x}", parent, messages[index])
    fork = parent
    left = fork
    for index in range(BRANCH):
        left = add(f"l{index:07x}", left, messages[COMMON + index])
    right = fork
    for index in range(BRANCH):
        message = messages[COMMON + index]
        if index % 500 == 250:
            continue  # dropped on the right
        if index % 200 == 100:
            call = {
                "type": "toolCall",
                "id": f"extra{index}",
                "name": "read",
                "arguments": {"path": f"extra/{index}.md"},
            }
            right = add(
                f"x{index:07x}",
                right,
                {**_assistant_like(messages), "content": [call], "stopReason": "toolUse"},
            )
            result = {
                "role": "toolResult",
                "toolCallId": f"extra{index}",
                "toolName": "read",
                "content": [{"type": "text", "text": f"contents of extra/{index}.md\n" * 20}],
                "isError": False,
                "timestamp": 0,
            }
            right = add(f"y{index:07x}", right, result)
        if index % 50 == 25 and message.get("role") == "assistant":
            message = _reworded(message)
        right = add(f"r{index:07x}", right, message)
    target.write_bytes(b"".join(orjson.dumps(line) + b"\n" for line in lines))
    return left, right, len(lines) - 1


def _assistant_like(messages: list[dict]) -> dict:
    return next(m for m in messages if m.get("role") == "assistant")


def _reworded(message: dict) -> dict:
    content = []
    for block in message.get("content", []):
        if isinstance(block, dict) and block.get("type") == "text":
            words = block["text"].split(" ")
            words[len(words) // 2 : len(words) // 2 + 3] = ["reworded", "on", "the", "right"]
            block = {**block, "text": " ".join(words)}
        content.append(block)
    return {**message, "content": content}


def time_process(argv: list[str]) -> tuple[float, float, float]:
    """(wall s, cpu s, peak RSS MiB) of one process, output discarded."""
    start = time.perf_counter()
    with open(os.devnull, "wb") as sink:
        process = subprocess.Popen(argv, stdout=sink, stderr=subprocess.PIPE, cwd=REPO)
        _pid, status, usage = os.wait4(process.pid, 0)
    wall = time.perf_counter() - start
    if status != 0:
        raise SystemExit(f"{' '.join(argv)} failed: {process.stderr.read().decode(errors='replace')}")
    process.stderr.close()
    return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    args = parser.parse_args(argv)
    source = args.out / "large-20000.jsonl"
    if not source.is_file():
        raise SystemExit(f"{source} is missing; run benchmarks/run_core.py first to generate it.")
    session_file = args.out / "diff-5000x5000.jsonl"
    left, right, entries = build_session(source, session_file)
    python = sys.executable
    load = (
        f"from core.session.session import load_session; load_session({str(session_file)!r}, checksum=False)"
    )
    commands = {
        "diff --format json": [
            python,
            "-m",
            "core.cli",
            "diff",
            str(session_file),
            left,
            right,
            "--format",
            "json",
        ],
        "diff --format text": [python, "-m", "core.cli", "diff", str(session_file), left, right],
        "diff --format html": [
            python,
            "-m",
            "core.cli",
            "diff",
            str(session_file),
            left,
            right,
            "--format",
            "html",
        ],
        "load_session only": [python, "-c", load],
        "bare_parse.py": [python, str(REPO / "benchmarks" / "bare_parse.py"), str(session_file)],
    }
    samples: dict[str, list[tuple[float, float, float]]] = {key: [] for key in commands}
    for argv_ in commands.values():
        time_process(argv_)  # warm-up: bytecode and file cache
    for _run in range(args.runs):
        for key, argv_ in commands.items():
            samples[key].append(time_process(argv_))

    sys.path.insert(0, str(REPO))
    from core.diff import diff_paths
    from core.session import load_session

    session = load_session(session_file, checksum=False)
    in_process = []
    diff = None
    for _run in range(args.runs):
        start = time.perf_counter()
        diff = diff_paths(session, left, right)
        in_process.append(time.perf_counter() - start)
    assert diff is not None

    rows = []
    for key, values in samples.items():
        rows.append(
            {
                "command": key,
                "median_s": round(statistics.median(v[0] for v in values), 3),
                "min_s": round(min(v[0] for v in values), 3),
                "cpu_s": round(statistics.median(v[1] for v in values), 3),
                "peak_rss_mib": round(max(v[2] for v in values), 1),
            }
        )
    result = {
        "date": datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "machine": f"{platform.system()} {platform.machine()}, nproc {os.cpu_count()}, "
        f"load {', '.join(f'{x:.2f}' for x in os.getloadavg())}",
        "python": platform.python_version(),
        "file": {"path": str(session_file), "bytes": session_file.stat().st_size, "entries": entries},
        "diff": {"rows": len(diff.rows), "counts": diff.counts, "common": diff.common.messages},
        "in_process_diff_paths_s": {
            "median": round(statistics.median(in_process), 3),
            "min": round(min(in_process), 3),
        },
        "processes": rows,
    }
    (args.out / "diff-results.json").write_text(json.dumps(result, indent=2) + "\n")
    md = [
        "# Branch diff benchmark",
        "",
        f"- date: {result['date']}; {result['machine']}; Python {result['python']}",
        f"- file: `{session_file.name}`, {result['file']['bytes']:,} B, {entries:,} entries; "
        f"{COMMON} common messages, then {BRANCH:,} messages on the left and "
        f"{diff.right.messages:,} on the right",
        f"- diff: {len(diff.rows):,} rows, {diff.counts}",
        f"- `diff_paths` in process (bodies, alignment, word diffs, summaries): median "
        f"{result['in_process_diff_paths_s']['median']} s, min {result['in_process_diff_paths_s']['min']} s "
        f"over {args.runs} runs (target < 1 s)",
        "",
        f"Whole process, output to /dev/null; {args.runs} timed runs each (round robin) after one warm-up.",
        "",
        "| command | median s | min s | CPU s | peak RSS MiB |",
        "|---|---:|---:|---:|---:|",
    ]
    for row in rows:
        md.append(
            f"| `{row['command']}` | {row['median_s']} | {row['min_s']} | {row['cpu_s']} "
            f"| {row['peak_rss_mib']} |"
        )
    (args.out / "diff-results.md").write_text("\n".join(md) + "\n")
    print("\n".join(md))
    return 0


if __name__ == "__main__":
    sys.exit(main())
