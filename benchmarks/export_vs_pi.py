"""Whole-process HTML export of the 20,000-message session: ours against pi 0.73.1's and pi 1.6.0's exporters.

Issue 18's target: the HTML export of the whole tree in at most half of pi 1.6.0's own export time on
the same file, with a peak RSS under a third of its. One invocation times, taking turns run after run:

* ``ours``: ``python -m core.cli export FILE --format html --tree -o OUT`` (``--tree``: every branch,
  as pi's page holds every entry; it forks a child to render part of the page when the load
  average leaves a processor idle);
* ``ours-fork``: the same with ``PRIME_SESSIONS_EXPORT_WORKERS=2`` (the child whatever the load);
* ``ours-serial``: the same with ``PRIME_SESSIONS_EXPORT_WORKERS=1`` (one process, no forked child);
* ``pi-0.73``: ``node benchmarks/export_reference.mjs FILE OUT`` (``exportFromFile`` of 0.73.1);
* ``pi-1.6``: the same with ``PI_REF=latest`` (``exportFromFile`` of 1.6.0);
* ``other``: with ``--repo DIR``, ours from another checkout (same interpreter), for an A/B.

Wall time, CPU (user + system of the process and its reaped children) and peak RSS come from
``run_core.run_once`` (``os.wait4``). The peak RSS of a process whose forked child it reaped is the
larger of the two (Linux), so the child's own peak is also reported: ``PRIME_SESSIONS_EXPORT_STATS``
makes our export print it. The 1-minute load average is recorded before every round.

Usage::

    python benchmarks/export_vs_pi.py [--runs 7] [--repo ../main] [--only ours,pi-1.6]

The session is ``benchmarks/out/large-20000.jsonl`` (``run_core.ensure_session``); the oracle comes
from ``run_core.prepare_oracle`` (``$PRIME_ORACLE_DIR``). Results go to
``benchmarks/out/export-vs-pi.md`` and ``.json``.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from run_core import (  # the benchmarks' whole-process timer and setup
    DEFAULT_OUT,
    REPO,
    BenchError,
    Command,
    ensure_session,
    prepare_oracle,
    run_once,
)

TARGET_TIME = 0.5  # ours / pi 1.6.0, medians, at most
TARGET_RSS = 1 / 3  # ours / pi 1.6.0, peak RSS, below


def build(args: argparse.Namespace, oracle: Path, session: Path, work: Path) -> list[Command]:
    """The commands to time, in table order."""
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # an installed package has its .pyc files
    env["PYTHONPYCACHEPREFIX"] = str(DEFAULT_OUT / "pycache")
    env["PRIME_ORACLE_DIR"] = str(oracle)
    env.pop("PI_REF", None)
    ours_env = dict(env, PYTHONPATH=str(REPO), PRIME_SESSIONS_EXPORT_STATS=str(work / "stats-ours"))
    serial_env = dict(ours_env, PRIME_SESSIONS_EXPORT_WORKERS="1")
    serial_env["PRIME_SESSIONS_EXPORT_STATS"] = str(work / "stats-serial")
    fork_env = dict(ours_env, PRIME_SESSIONS_EXPORT_WORKERS="2")
    fork_env["PRIME_SESSIONS_EXPORT_STATS"] = str(work / "stats-fork")

    def ours(out: str) -> list[str]:
        return [
            args.python,
            "-m",
            "core.cli",
            "export",
            str(session),
            "--format",
            "html",
            "--tree",
            "--force",
            "-o",
            str(work / out),
        ]

    reference = [args.node, str(REPO / "benchmarks" / "export_reference.mjs"), str(session)]
    commands = [
        Command(
            "ours",
            "python -m core.cli export FILE --format html --tree (a child at a load under 2)",
            ours("ours.html"),
            REPO,
            ours_env,
            "ours",
        ),
        Command(
            "ours-fork",
            "the same, PRIME_SESSIONS_EXPORT_WORKERS=2 (the child whatever the load)",
            ours("fork.html"),
            REPO,
            fork_env,
            "ours",
        ),
        Command(
            "ours-serial",
            "the same, PRIME_SESSIONS_EXPORT_WORKERS=1",
            ours("serial.html"),
            REPO,
            serial_env,
            "ours",
        ),
        Command(
            "pi-0.73",
            "node export_reference.mjs FILE (pi 0.73.1)",
            [*reference, str(work / "pi073.html")],
            REPO,
            env,
            "reference",
        ),
        Command(
            "pi-1.6",
            "PI_REF=latest node export_reference.mjs FILE (pi 1.6.0)",
            [*reference, str(work / "pi16.html")],
            REPO,
            dict(env, PI_REF="latest"),
            "reference",
        ),
    ]
    if args.repo is not None:
        other = args.repo.resolve()
        other_env = dict(env, PYTHONPATH=str(other), PYTHONPYCACHEPREFIX=str(DEFAULT_OUT / "pycache-other"))
        commands.append(
            Command("other", f"ours from {other}", [*ours("other.html")], other, other_env, "ours")
        )
    if args.only:
        wanted = set(args.only.split(","))
        commands = [c for c in commands if c.key in wanted]
    return commands


def child_peaks(path: Path) -> list[float]:
    """The forked child's peak RSS (MiB) of every run that had one (from our export's stats file)."""
    peaks = []
    try:
        for line in path.read_text().splitlines():
            record = json.loads(line)
            if record.get("child_peak_kib"):
                peaks.append(record["child_peak_kib"] / 1024)
    except (OSError, ValueError):
        pass
    return peaks


def main(argv: list[str] | None = None) -> int:
    """Prepare, run, print and save the comparison."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--runs", type=int, default=7, help="timed runs per command (default 7)")
    parser.add_argument("--python", default=sys.executable)
    parser.add_argument("--node", default=shutil.which("node") or "node")
    parser.add_argument("--repo", type=Path, help="also time ours from this checkout")
    parser.add_argument(
        "--only", help="comma-separated keys: ours,ours-fork,ours-serial,pi-0.73,pi-1.6,other"
    )
    args = parser.parse_args(argv)
    try:
        oracle = prepare_oracle(DEFAULT_OUT)
        session, _meta = ensure_session(oracle, DEFAULT_OUT, args.node, 20000, 0)
    except BenchError as err:
        print(f"export_vs_pi: {err}", file=sys.stderr)
        return 1
    work = Path(tempfile.mkdtemp(prefix="export-vs-pi-"))
    loads: list[float] = []
    try:
        commands = build(args, oracle, session, work)
        for c in commands:  # warm-up: page cache, .pyc files; a failing command stops the run
            sample, _out, err = run_once(c)
            print(f"warm-up {c.key:<12} {sample.wall_s:6.2f} s  exit {sample.status}", flush=True)
            if sample.status != 0:
                print(err[-2000:], file=sys.stderr)
                return 1
        for stats in work.glob("stats-*"):
            stats.unlink()
        for run in range(1, args.runs + 1):
            loads.append(os.getloadavg()[0])
            for c in commands:
                sample, _out, err = run_once(c)
                c.samples.append(sample)
                if sample.status != 0:
                    print(f"  {c.key} exited {sample.status}: {err.strip()[-500:]}", file=sys.stderr)
            times = "  ".join(f"{c.key} {c.samples[-1].wall_s:.2f}" for c in commands)
            print(f"run {run}/{args.runs} (load {loads[-1]:.2f}): {times}", flush=True)
        sizes = {p.name: p.stat().st_size for p in work.glob("*.html")}
        peaks = {key: child_peaks(work / f"stats-{key[5:] or 'ours'}") for key in ("ours", "ours-fork")}
    finally:
        shutil.rmtree(work, ignore_errors=True)
    report, rows = render(commands, loads, sizes, peaks, session, args.runs)
    DEFAULT_OUT.mkdir(parents=True, exist_ok=True)
    (DEFAULT_OUT / "export-vs-pi.md").write_text(report)
    (DEFAULT_OUT / "export-vs-pi.json").write_text(
        json.dumps({"rows": rows, "loads": loads}, indent=2) + "\n"
    )
    print(report)
    return 1 if any(c.failed for c in commands) else 0


def render(
    commands: list[Command],
    loads: list[float],
    sizes: dict[str, int],
    peaks: dict[str, list[float]],
    session: Path,
    runs: int,
) -> tuple[str, list[dict[str, object]]]:
    """The Markdown table and the ratios against pi 1.6.0."""
    outputs = {
        "ours": "ours.html",
        "ours-fork": "fork.html",
        "ours-serial": "serial.html",
        "pi-0.73": "pi073.html",
        "pi-1.6": "pi16.html",
        "other": "other.html",
    }
    lines = [
        f"# HTML export of {session.name} ({session.stat().st_size / 1e6:.1f} MB), {runs} runs in turns",
        "",
        f"1-minute load average before each round: {', '.join(f'{x:.2f}' for x in loads)} "
        f"(median {statistics.median(loads):.2f})",
        "",
        "| command | median s | min s | CPU s | peak RSS MiB | forked child's peak MiB | page MB |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    rows = []
    for c in commands:
        child = peaks.get(c.key) or []
        flag = " (FAILED)" if c.failed else ""
        child_text = f"{max(child):.0f}" if child else "-"
        size = sizes.get(outputs[c.key], 0) / 1e6
        lines.append(
            f"| `{c.key}`{flag}: {c.label} | {c.median_s:.2f} | {c.min_s:.2f} | {c.median_cpu_s:.2f} "
            f"| {c.peak_rss_mib:.0f} | {child_text} | {size:.1f} |"
        )
        rows.append(
            {
                "key": c.key,
                "median_s": c.median_s,
                "min_s": c.min_s,
                "cpu_s": c.median_cpu_s,
                "peak_rss_mib": c.peak_rss_mib,
                "child_peak_mib": max(child) if child else None,
                "walls": [s.wall_s for s in c.samples],
            }
        )
    by_key = {c.key: c for c in commands}
    pi = by_key.get("pi-1.6")
    if pi is not None:
        lines += [
            "",
            "| against pi 1.6.0 | time (median) | time (min) | peak RSS | target |",
            "|---|---:|---:|---:|---|",
        ]
        for key in ("ours", "ours-fork", "ours-serial", "other"):
            c = by_key.get(key)
            if c is None:
                continue
            ratio = c.median_s / pi.median_s
            rss = c.peak_rss_mib / pi.peak_rss_mib
            met = "met" if ratio <= TARGET_TIME and rss < TARGET_RSS else "missed"
            lines.append(
                f"| `{key}` | {ratio:.2f}x | {c.min_s / pi.min_s:.2f}x | {rss:.2f}x "
                f"| time <= {TARGET_TIME}x, RSS < 0.33x: {met} |"
            )
    return "\n".join(lines) + "\n", rows


if __name__ == "__main__":
    sys.exit(main())
