"""Peak memory of exporting a session that holds one huge line (issue 15: a 200 MB line peaked at 6.9 GB).

A session is generated with a few ordinary entries and one huge line: a tool result whose text is
``--mb`` MiB of source-like text (``--kind tool``), an assistant reply of that much Markdown
(``--kind assistant``) or a user message (``--kind user``). Each export then runs as its own process
(``python -m core.cli export FILE -o OUT``), and its whole-process peak RSS comes from ``ru_maxrss``
of ``os.wait4`` (what ``/usr/bin/time -v`` calls "Maximum resident set size"), with the wall time.

Usage::

    python benchmarks/big_line_export.py [--mb 50 200] [--kind tool] [--format html md] [--keep] [--repo DIR]

``--repo`` runs the export with another checkout's code (before/after figures: ``git archive COMMIT |
tar -x -C DIR``).
The sessions are written to ``benchmarks/out/big-line-*.jsonl`` (made once, kept), the exports to a
temporary folder. Prints one Markdown table row per export.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
OUT = REPO / "benchmarks" / "out"
MIB = 1024 * 1024
# A line of source-like text with the characters an export escapes (<, >, &, quotes, backticks).
_TEXT_LINE = 'if (a < b && c > d) { return "<tag>" + `x` + path.join(dir, name); } // 0123456789\n'


def make_session(path: Path, mb: int, kind: str) -> None:
    """Write a session whose one huge line carries ``mb`` MiB of text in a ``kind`` entry."""
    repeats = mb * MIB // len(_TEXT_LINE)
    big = _TEXT_LINE * repeats
    header = {"type": "session", "version": 3, "id": "big-line", "timestamp": "2026-01-01T00:00:00.000Z"}
    header["cwd"] = "/home/dev/big"
    lines = [header]

    def add(entry_id: str, parent: str | None, message: dict[str, object], second: int) -> None:
        stamp = f"2026-01-01T00:00:{second:02d}.000Z"
        lines.append(
            {"type": "message", "id": entry_id, "parentId": parent, "timestamp": stamp, "message": message}
        )

    user_text = big if kind == "user" else "Show me the file."
    add("u1", None, {"role": "user", "content": user_text, "timestamp": 1767225600000}, 0)
    call = {"type": "toolCall", "id": "call1", "name": "read", "arguments": {"path": "big.ts"}}
    if kind == "assistant":
        add("a1", "u1", {"role": "assistant", "content": [{"type": "text", "text": big}]}, 1)
        last = "a1"
    else:
        add("a1", "u1", {"role": "assistant", "content": [{"type": "text", "text": "Reading."}, call]}, 1)
        result_text = big if kind == "tool" else "short"
        result = {
            "role": "toolResult",
            "toolCallId": "call1",
            "toolName": "read",
            "content": [{"type": "text", "text": result_text}],
            "isError": False,
        }
        add("t1", "a1", result, 2)
        add("a2", "t1", {"role": "assistant", "content": [{"type": "text", "text": "Done."}]}, 3)
        last = "a2"
    add("u2", last, {"role": "user", "content": "Thanks.", "timestamp": 1767225604000}, 4)
    del big
    with path.open("w", encoding="utf-8") as out:
        for line in lines:
            out.write(json.dumps(line, ensure_ascii=False) + "\n")


def run_export(session: Path, fmt: str, target: Path, repo: Path = REPO) -> tuple[float, float, int]:
    """Export in a fresh process, with the code of ``repo``; return (wall s, peak RSS MiB, exit status)."""
    argv = [sys.executable, "-m", "core.cli", "export", str(session), "--format", fmt, "-o", str(target)]
    env = {**os.environ, "PYTHONPATH": str(repo), "PYTHONDONTWRITEBYTECODE": "1"}
    start = time.perf_counter()
    proc = subprocess.Popen(argv, cwd=repo, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _pid, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    stderr = proc.stderr.read().decode("utf-8", "replace") if proc.stderr else ""
    if proc.stderr:
        proc.stderr.close()
    code = os.waitstatus_to_exitcode(status)
    if code != 0:
        print(f"failed ({code}): {' '.join(argv)}\n{stderr}", file=sys.stderr)
    return wall, usage.ru_maxrss / 1024, code


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--mb", type=int, nargs="+", default=[50, 200], help="sizes of the huge line, MiB")
    parser.add_argument("--kind", choices=("tool", "assistant", "user"), default="tool")
    parser.add_argument("--format", nargs="+", default=["html"], choices=("html", "md"))
    parser.add_argument("--keep", action="store_true", help="keep the exported files (printed)")
    parser.add_argument(
        "--repo",
        type=Path,
        default=REPO,
        help="export with the code of this checkout (e.g. an earlier commit's)",
    )
    args = parser.parse_args(argv)
    OUT.mkdir(parents=True, exist_ok=True)
    print("| line | kind | format | file MiB | output MiB | peak RSS MiB | peak / line | wall s |")
    print("|---:|---|---|---:|---:|---:|---:|---:|")
    with tempfile.TemporaryDirectory() as tmp:
        for mb in args.mb:
            session = OUT / f"big-line-{args.kind}-{mb}.jsonl"
            if not session.exists():
                make_session(session, mb, args.kind)
            for fmt in args.format:
                target = Path(tmp) / f"{session.stem}.{fmt}"
                wall, peak, code = run_export(session, fmt, target, args.repo.resolve())
                size = target.stat().st_size / MIB if target.exists() else 0.0
                file_mb = session.stat().st_size / MIB
                print(
                    f"| {mb} MiB | {args.kind} | {fmt} | {file_mb:.0f} | {size:.0f} | {peak:,.0f} | "
                    f"{peak / file_mb:.1f} | {wall:.1f} |" + ("" if code == 0 else f" exit {code}"),
                    flush=True,
                )
                if args.keep:
                    kept = OUT / target.name
                    target.replace(kept)
                    print(f"kept {kept}", file=sys.stderr)
                else:
                    target.unlink(missing_ok=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
