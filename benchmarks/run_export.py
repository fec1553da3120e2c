"""Whole-process benchmark of export: our Markdown, HTML and PDF against the reference's HTML export.

Every command runs as its own process, timed from the outside from start to exit (interpreter or Node
start-up, imports, reading, rendering and writing all count): wall time from ``time.perf_counter``
around ``Popen`` + ``os.wait4``, peak RSS from ``ru_maxrss``. The commands take turns run after run,
so a busy machine slows them alike. The reference runs through ``benchmarks/export_reference.mjs``
(its own ``exportFromFile``), from the oracle in ``$ORACLE_DIR`` (default ``/tmp/oracle``; see
``/work/shared/reference/oracle/README.md``).

Usage::

    python benchmarks/run_export.py [--session benchmarks/out/large-20000.jsonl] [--runs 3] [--no-pdf]

Results go to ``benchmarks/out/export-results.md`` and ``.json``. The session is made by
``benchmarks/run_core.py`` when missing.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
OUT = REPO / "benchmarks" / "out"
DEFAULT_SESSION = OUT / "large-20000.jsonl"


def run_once(argv: list[str], env: dict[str, str]) -> tuple[float, float, int]:
    """Run one process; return (wall seconds, peak RSS MiB, exit status)."""
    start = time.perf_counter()
    proc = subprocess.Popen(argv, cwd=REPO, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _pid, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    stderr = proc.stderr.read().decode("utf-8", "replace") if proc.stderr else ""
    if proc.stderr:
        proc.stderr.close()
    if proc.returncode != 0:
        print(f"failed ({proc.returncode}): {' '.join(argv)}\n{stderr}", file=sys.stderr)
    return wall, usage.ru_maxrss / 1024, proc.returncode


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--session", type=Path, default=DEFAULT_SESSION)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--no-pdf", action="store_true", help="skip the PDF export (the slowest)")
    args = parser.parse_args(argv)
    session = args.session
    if not session.exists():
        print(f"{session} is missing; making it with benchmarks/run_core.py", file=sys.stderr)
        subprocess.run([sys.executable, str(REPO / "benchmarks" / "run_core.py"), "--runs", "1"], check=True)
    node = shutil.which("node")
    oracle = Path(os.environ.get("ORACLE_DIR") or os.environ.get("PRIME_ORACLE_DIR") or "/tmp/oracle")
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen")
    work = Path(tempfile.mkdtemp(prefix="export-bench-"))
    # --tree: every branch, as the reference's export holds every entry.
    ours = [sys.executable, "-m", "gui.launcher", "export", str(session), "--tree", "--force", "-o"]
    commands: dict[str, list[str]] = {
        "ours-md": [*ours, str(work / "ours.md")],
        "ours-html": [*ours, str(work / "ours.html")],
        "ours-html-redact": [*ours, str(work / "ours-redacted.html"), "--redact"],
    }
    if not args.no_pdf:
        commands["ours-pdf"] = [*ours, str(work / "ours.pdf")]
    if node and (oracle / "node_modules").is_dir():
        commands["reference-html"] = [
            node,
            str(REPO / "benchmarks" / "export_reference.mjs"),
            str(session),
            str(work / "reference.html"),
        ]
    else:
        print("the oracle is not installed; the reference is left out", file=sys.stderr)
    samples: dict[str, list[tuple[float, float, int]]] = {key: [] for key in commands}
    try:
        for run in range(args.runs):
            for key, command in commands.items():
                samples[key].append(run_once(command, env))
                print(f"run {run + 1}: {key} {samples[key][-1][0]:.2f} s", file=sys.stderr)
        sizes = {}
        for key in commands:
            name = {"ours-md": "ours.md", "ours-html": "ours.html", "ours-pdf": "ours.pdf"}.get(key)
            name = name or ("ours-redacted.html" if key == "ours-html-redact" else "reference.html")
            target = work / name
            sizes[key] = target.stat().st_size if target.exists() else 0
    finally:
        shutil.rmtree(work, ignore_errors=True)
    reference = (
        statistics.median(s[0] for s in samples["reference-html"]) if "reference-html" in samples else None
    )
    rows = []
    for key, runs in samples.items():
        median = statistics.median(s[0] for s in runs)
        rows.append(
            {
                "key": key,
                "median_s": round(median, 2),
                "min_s": round(min(s[0] for s in runs), 2),
                "peak_rss_mib": round(max(s[1] for s in runs), 1),
                "output_mb": round(sizes[key] / 1e6, 1),
                "vs_reference": round(median / reference, 2) if reference else None,
                "failed": any(s[2] != 0 for s in runs),
            }
        )
    lines = [
        f"# Export benchmark: {session.name} ({session.stat().st_size / 1e6:.1f} MB), {args.runs} runs each",
        "",
        "| command | median s | min s | peak RSS MiB | output MB | median / reference HTML |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for row in rows:
        ratio = f"{row['vs_reference']:.2f}" if row["vs_reference"] is not None else "-"
        flag = " (FAILED)" if row["failed"] else ""
        lines.append(
            f"| {row['key']}{flag} | {row['median_s']:.2f} | {row['min_s']:.2f} | {row['peak_rss_mib']:.0f} "
            f"| {row['output_mb']:.1f} | {ratio} |"
        )
    report = "\n".join(lines) + "\n"
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / "export-results.md").write_text(report)
    (OUT / "export-results.json").write_text(
        json.dumps({"session": str(session), "rows": rows}, indent=2) + "\n"
    )
    print(report)
    return 0


if __name__ == "__main__":
    sys.exit(main())
