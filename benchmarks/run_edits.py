"""Benchmark of the edit paths on the large session, side by side with the reference in the same run.

Whole process, each on a fresh copy of ``benchmarks/out/large-20000.jsonl`` (37.5 MB, 20,005 entries):

* label: ``prime-sessions label COPY ID TEXT`` vs the reference's ``open(COPY).appendLabelChange``
* fork: ``prime-sessions fork COPY --at LEAF`` vs the reference's ``open(COPY).createBranchedSession(LEAF)``
* clone: ``prime-sessions clone COPY --cwd /x`` vs the reference's ``SessionManager.forkFrom(COPY, "/x")``

and in process (what the window does on its GUI thread for one label edit on the open session):
``core.writing.label_edit(...).apply(session)`` on an already loaded session, plus the trash of 20 files.

Usage: python benchmarks/run_edits.py [--runs N] [--oracle DIR]
Writes benchmarks/out/edits-results.md (git-ignored).
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
LARGE = REPO / "benchmarks" / "out" / "large-20000.jsonl"
OUT = REPO / "benchmarks" / "out" / "edits-results.md"

REFERENCE = """
import {{ loadPi }} from "{lib}";
const {{ SessionManager }} = await loadPi({{ quiet: true }});
const [what, file, arg] = process.argv.slice(2);
if (what === "label") SessionManager.open(file).appendLabelChange(arg, "bench");
else if (what === "fork") SessionManager.open(file).createBranchedSession(arg);
else if (what === "clone") SessionManager.forkFrom(file, "/tmp/elsewhere", file.replace(/[^/]+$/, ""));
"""


def timed(argv: list[str], cwd: Path | None = None, env: dict[str, str] | None = None) -> float:
    """Wall time of one whole process; a failure stops the benchmark."""
    start = time.perf_counter()
    done = subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True, check=False)
    elapsed = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(argv)} failed: {done.stderr.strip()}")
    return elapsed


def did_something(copy: Path) -> None:
    """Both sides must really write: the copy grew (label) or a new session appeared beside it."""
    if copy.stat().st_size == LARGE.stat().st_size and len(list(copy.parent.rglob("*.jsonl"))) < 2:
        raise SystemExit(f"nothing was written for {copy}")


def fresh_copy(work: Path) -> Path:
    """A copy of the large session alone in a new folder."""
    folder = Path(tempfile.mkdtemp(dir=work))
    target = folder / LARGE.name
    shutil.copyfile(LARGE, target)
    return target


def main() -> int:
    """Run every measurement and write the Markdown table."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--oracle", default=os.environ.get("PRIME_ORACLE_DIR", "/tmp/oracle"))
    args = parser.parse_args()
    if not LARGE.is_file():
        raise SystemExit(f"{LARGE} is missing: run benchmarks/run_core.py first")
    sys.path.insert(0, str(REPO))
    from core import load_session
    from core.writing import label_edit, trash_sessions

    oracle = Path(args.oracle)
    session = load_session(LARGE, checksum=False)
    leaf, target = session.leaf_id, session.entries[len(session.entries) // 2].id
    work = Path(tempfile.mkdtemp(prefix="edits-bench-"))
    script = work / "reference.mjs"
    script.write_text(REFERENCE.format(lib=(oracle / "lib.mjs").as_uri()))
    ours = [sys.executable, "-m", "core.cli"]
    rows = []
    try:
        for name, our_args, ref_args in (
            ("label", lambda f: ["label", f, target, "bench"], lambda f: ["label", f, target]),
            ("fork", lambda f: ["fork", f, "--at", leaf], lambda f: ["fork", f, leaf]),
            ("clone --cwd", lambda f: ["clone", f, "--cwd", "/tmp/elsewhere"], lambda f: ["clone", f, ""]),
        ):
            mine, theirs = [], []
            for _ in range(args.runs):
                copy = fresh_copy(work)
                mine.append(timed([*ours, *our_args(str(copy))], cwd=REPO))
                did_something(copy)
                copy = fresh_copy(work)
                theirs.append(timed(["node", str(script), *ref_args(str(copy))], cwd=oracle))
                did_something(copy)
            rows.append((name, statistics.median(mine), statistics.median(theirs)))

        # In process: one label edit on an open session, as the window does it on the GUI thread.
        copy = fresh_copy(work)
        opened = load_session(copy)
        apply_times = []
        for i in range(args.runs * 4):
            start = time.perf_counter()
            label_edit(opened, target, f"label {i}").apply(opened)
            apply_times.append(time.perf_counter() - start)
        check = []
        for _ in range(args.runs):
            start = time.perf_counter()
            opened.unchanged_on_disk()
            check.append(time.perf_counter() - start)

        small = [p for p in sorted((REPO / "resources" / "demo").glob("*.jsonl"))]
        os.environ["XDG_DATA_HOME"] = str(work / "xdg-data")  # before send2trash is imported
        files = []
        for i in range(20):
            target_file = work / "trash-me" / f"{i}-{small[i % len(small)].name}"
            target_file.parent.mkdir(exist_ok=True)
            shutil.copyfile(small[i % len(small)], target_file)
            files.append(target_file)
        start = time.perf_counter()
        results = trash_sessions(files)
        trash_time = time.perf_counter() - start
        assert all(r.ok for r in results)
    finally:
        shutil.rmtree(work, ignore_errors=True)

    lines = [
        f"# Edit paths on {LARGE.name} ({LARGE.stat().st_size / 1e6:.1f} MB, {len(session.entries)} entries)",
        "",
        f"Median of {args.runs} runs, whole process, each on a fresh copy.",
        "",
        "| operation | prime-sessions | reference (node) |",
        "|---|---:|---:|",
        *(f"| {name} | {m * 1000:,.0f} ms | {r * 1000:,.0f} ms |" for name, m, r in rows),
        "",
        "In process (the window's GUI thread), on the already loaded session:",
        "",
        f"- one label edit (`label_edit(...).apply`): median {statistics.median(apply_times) * 1000:.1f} ms, "
        f"max {max(apply_times) * 1000:.1f} ms over {len(apply_times)} edits",
        f"- of which the full check that no byte read changed (`unchanged_on_disk`): median "
        f"{statistics.median(check) * 1000:.1f} ms",
        f"- moving 20 session files to the trash: {trash_time * 1000:.1f} ms",
        "",
    ]
    OUT.write_text("\n".join(lines))
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
