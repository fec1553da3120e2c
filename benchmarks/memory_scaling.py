"""Time and peak memory of ``tree`` and the HTML export: one huge line, and many tiny entries (issue 29).

The audit: a single 300 MB line cost about 19 times its size (``tree`` 17 s / 5.7 GiB, the HTML export
16 s / 5.2 GiB; 100 MB: 2.2 s / 1.9 GiB), and the HTML export of a million tiny entries took 53 s /
2.5 GiB against 4.1 s / 280 MiB for 100,000. Each command runs as its own process (``python -m core.cli
...``, output to a temporary file); its whole-process peak RSS is ``ru_maxrss`` of ``os.wait4`` (what
``/usr/bin/time -v`` calls "Maximum resident set size").

Usage::

    python benchmarks/memory_scaling.py line [--mb 100] [--kind tool rows blocks] [--command tree html]
    python benchmarks/memory_scaling.py tiny [--entries 100000 1000000] [--command tree html]

``--repo DIR`` runs the commands with another checkout's code (``git archive COMMIT | tar -x -C DIR``).
The sessions are written to ``benchmarks/out/`` once and kept. Prints one Markdown table row per run.
"""

from __future__ import annotations

import argparse
import importlib.util
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


def _big_line_module():  # type: ignore[no-untyped-def]
    spec = importlib.util.spec_from_file_location(
        "big_line_export", REPO / "benchmarks" / "big_line_export.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def make_tiny(path: Path, entries: int) -> None:
    """A session of ``entries`` short messages in one chain, user and assistant in turn."""
    header = {
        "type": "session",
        "version": 3,
        "id": "tiny",
        "timestamp": "2026-01-01T00:00:00.000Z",
        "cwd": "/w",
    }
    with path.open("w", encoding="utf-8") as out:
        out.write(json.dumps(header) + "\n")
        parent = None
        for i in range(entries):
            entry_id = f"{i:08x}"
            if i % 2:
                message = {"role": "assistant", "content": [{"type": "text", "text": f"ok {i}"}]}
            else:
                message = {"role": "user", "content": f"step {i}", "timestamp": 1767225600000 + i}
            stamp = f"2026-01-01T{i // 3600 % 24:02d}:{i // 60 % 60:02d}:{i % 60:02d}.000Z"
            line = {
                "type": "message",
                "id": entry_id,
                "parentId": parent,
                "timestamp": stamp,
                "message": message,
            }
            out.write(json.dumps(line) + "\n")
            parent = entry_id


def make_many_values(path: Path, mb: int, kind: str) -> None:
    """One line of about ``mb`` MiB made of many small values, where parsing costs most per byte.

    ``rows``: a custom entry whose data is a list of small objects; ``blocks``: an assistant message of
    one-word text blocks.
    """
    header = {
        "type": "session",
        "version": 3,
        "id": "s",
        "timestamp": "2026-01-01T00:00:00.000Z",
        "cwd": "/w",
    }
    user = {"role": "user", "content": "hi", "timestamp": 1767225600000}
    first = {
        "type": "message",
        "id": "u1",
        "parentId": None,
        "timestamp": header["timestamp"],
        "message": user,
    }
    count = mb * MIB // 20
    big: dict[str, object] = {"id": "c1", "parentId": "u1", "timestamp": "2026-01-01T00:00:02.000Z"}
    if kind == "rows":
        big.update(type="custom", customType="x", data={"rows": [{"i": i, "s": "ab"} for i in range(count)]})
    else:
        words = [{"type": "text", "text": "w"} for _ in range(count)]
        big.update(type="message", message={"role": "assistant", "content": words})
    with path.open("w", encoding="utf-8") as out:
        for line in (header, first, big):
            out.write(json.dumps(line, separators=(",", ":")) + "\n")


def run(command: str, session: Path, target: Path, repo: Path) -> tuple[float, float, int]:
    """``command`` (``tree``, ``html``, ``md``) run by ``repo``'s code: (wall s, peak MiB, exit status)."""
    if command == "tree":
        argv = [sys.executable, "-m", "core.cli", "tree", str(session)]
    else:
        argv = [
            sys.executable,
            "-m",
            "core.cli",
            "export",
            str(session),
            "--format",
            command,
            "-o",
            str(target),
        ]
    env = {**os.environ, "PYTHONPATH": str(repo), "PYTHONDONTWRITEBYTECODE": "1"}
    start = time.perf_counter()
    with target.with_suffix(".stdout").open("wb") as stdout:
        proc = subprocess.Popen(argv, cwd=repo, env=env, stdout=stdout, stderr=subprocess.PIPE)
        _pid, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    code = os.waitstatus_to_exitcode(status)
    if code != 0 and proc.stderr is not None:
        print(
            f"failed ({code}): {' '.join(argv)}\n{proc.stderr.read().decode(errors='replace')}",
            file=sys.stderr,
        )
    if proc.stderr is not None:
        proc.stderr.close()
    return wall, usage.ru_maxrss / 1024, code


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("part", choices=("line", "tiny"))
    parser.add_argument("--mb", type=int, nargs="+", default=[100], help="sizes of the huge line, MiB")
    parser.add_argument(
        "--kind",
        nargs="+",
        default=["assistant", "tool"],
        choices=("tool", "assistant", "user", "rows", "blocks"),
    )
    parser.add_argument("--entries", type=int, nargs="+", default=[100_000, 1_000_000])
    parser.add_argument("--command", nargs="+", default=["tree", "html"], choices=("tree", "html", "md"))
    parser.add_argument("--repo", type=Path, default=REPO, help="run with the code of this checkout")
    args = parser.parse_args(argv)
    OUT.mkdir(parents=True, exist_ok=True)
    sessions: list[tuple[str, Path]] = []
    if args.part == "line":
        big = _big_line_module()
        for mb in args.mb:
            for kind in args.kind:
                session = OUT / f"big-line-{kind}-{mb}.jsonl"
                if not session.exists() and kind in ("rows", "blocks"):
                    make_many_values(session, mb, kind)
                elif not session.exists():
                    big.make_session(session, mb, kind)
                sessions.append((f"{mb} MiB line ({kind})", session))
    else:
        for count in args.entries:
            session = OUT / f"tiny-{count}.jsonl"
            if not session.exists():
                make_tiny(session, count)
            sessions.append((f"{count:,} tiny entries", session))
    print("| session | file MiB | command | peak RSS MiB | peak / file | wall s |")
    print("|---|---:|---|---:|---:|---:|")
    with tempfile.TemporaryDirectory() as tmp:
        for name, session in sessions:
            file_mb = session.stat().st_size / MIB
            for command in args.command:
                target = Path(tmp) / f"{session.stem}.{command}"
                wall, peak, code = run(command, session, target, args.repo.resolve())
                ratio = peak / file_mb
                print(
                    f"| {name} | {file_mb:.0f} | {command} | {peak:,.0f} | {ratio:.1f} | {wall:.1f} |"
                    + ("" if code == 0 else f" exit {code}"),
                    flush=True,
                )
                target.unlink(missing_ok=True)
                target.with_suffix(".stdout").unlink(missing_ok=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
