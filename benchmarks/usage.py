"""Benchmark of the usage reports on the 2,000-session benchmark history.

The history is ``benchmarks/out/history`` (``make_history.py`` writes it; about 2,000 files and 500 MB,
forks pointing at copies of their parents). A catalogue of it is built once in ``<out>/usage-catalogue``
(timed, but not a target), then:

* in this process, ``Catalogue.usage_report("daily", breakdown=True)`` and the other kinds, median of
  ``--runs`` after one warm-up (target for the daily report: under 50 ms), the grid, and
  ``Catalogue.usage_overview`` (every figure of the Usage window for one filter);
* as whole processes (``os.wait4``), ``prime-sessions usage daily ROOT --breakdown --json --no-refresh``
  (target: under 0.3 s) and the same with the refresh pass over the unchanged history (a stat of every
  file), start-up included.

Wall and CPU time are both printed: the project machine is shared, and CPU time says what the work
costs when other sessions load it.

Usage::

    python benchmarks/usage.py [--runs 7] [--out DIR]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from zoneinfo import ZoneInfo

REPO = Path(__file__).resolve().parent.parent
DEFAULT_OUT = REPO / "benchmarks" / "out"
sys.path.insert(0, str(REPO))


def timed(function: Callable[[], object], runs: int) -> tuple[float, float]:
    """Median (wall ms, cpu ms) of ``function()`` over ``runs`` calls after one warm-up."""
    function()
    walls, cpus = [], []
    for _ in range(runs):
        wall, cpu = time.perf_counter(), time.process_time()
        function()
        walls.append((time.perf_counter() - wall) * 1000)
        cpus.append((time.process_time() - cpu) * 1000)
    return statistics.median(walls), statistics.median(cpus)


def time_process(argv: list[str], env: dict[str, str]) -> tuple[float, float]:
    """(wall s, cpu s) of one process, output discarded."""
    start = time.perf_counter()
    with open(os.devnull, "wb") as sink:
        process = subprocess.Popen(argv, stdout=sink, stderr=subprocess.PIPE, cwd=REPO, env=env)
        _pid, status, usage = os.wait4(process.pid, 0)
    wall = time.perf_counter() - start
    assert process.stderr is not None
    if status != 0:
        raise SystemExit(f"{' '.join(argv)} failed: {process.stderr.read().decode(errors='replace')}")
    process.stderr.close()
    return wall, usage.ru_utime + usage.ru_stime


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark and print Markdown."""
    from core.catalogue import Catalogue
    from core.usage import UsageFilter

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    args = parser.parse_args(argv)
    sessions = args.out / "history" / "sessions"
    if not sessions.is_dir():
        raise SystemExit(f"{sessions} is missing: run python benchmarks/make_history.py first")
    folder = args.out / "usage-catalogue"
    catalogue = Catalogue(folder)
    started = time.perf_counter()
    stats = catalogue.refresh([sessions])
    print(f"catalogue: {stats.files_indexed} read, {stats.files_appended} appended in "
          f"{time.perf_counter() - started:.1f} s")  # fmt: skip
    conn = catalogue._connect()
    records = conn.execute("SELECT count(*) FROM usage WHERE kind != 'attribution'").fetchone()[0]
    groups = conn.execute("SELECT count(*) FROM usage_groups WHERE grain = 3600").fetchone()[0]
    copied = conn.execute("SELECT count(*) FROM usage WHERE copied = 1").fetchone()[0]
    print(f"{records:,} usage rows ({copied:,} copied by forks), {groups:,} hour groups\n")
    print("| in process | rows | median wall | median CPU |")
    print("|---|---:|---:|---:|")
    for kind in ("daily", "weekly", "monthly", "session", "model", "project", "blocks"):
        result = catalogue.usage_report(kind, UsageFilter(), True, [sessions])
        wall, cpu = timed(
            lambda k=kind: catalogue.usage_report(k, UsageFilter(), True, [sessions]), args.runs
        )
        print(
            f"| `usage_report({kind!r}, breakdown=True)` | {len(result.rows)} | {wall:.1f} ms"
            f" | {cpu:.1f} ms |"
        )
    wall, cpu = timed(lambda: catalogue.usage_grid(UsageFilter(), [sessions]), args.runs)
    print(f"| `usage_grid()` | 7x24 | {wall:.1f} ms | {cpu:.1f} ms |")
    # What the Usage window asks for: every figure of one filter at once (its default, then weekly bars,
    # then a model filter, then a zone half an hour off, which reads the 15-minute groups).
    for label, filt, period in (
        ("daily", UsageFilter(), "daily"),
        ("weekly", UsageFilter(), "weekly"),
        ("daily, model 'sonnet'", UsageFilter(model="sonnet"), "daily"),
        ("daily, Asia/Kolkata", UsageFilter(timezone=ZoneInfo("Asia/Kolkata")), "daily"),
    ):
        wall, cpu = timed(lambda f=filt, p=period: catalogue.usage_overview(f, p, [sessions], 50), args.runs)
        print(f"| `usage_overview()` {label} | | {wall:.1f} ms | {cpu:.1f} ms |")
    catalogue.close()
    env = {**os.environ, "PRIME_SESSIONS_CATALOGUE": str(folder)}
    # Bytecode cached as for an installed package (run_core.py does the same), even when the caller's
    # environment says not to write it: compiling the modules from source costs more than the report.
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env["PYTHONPYCACHEPREFIX"] = str(args.out / "pycache")
    command = [sys.executable, "-m", "core.cli", "usage", "daily", str(sessions), "--breakdown", "--json"]
    print("\n| whole process | median wall | median CPU |")
    print("|---|---:|---:|")
    for extra, label in ((["--no-refresh"], "--no-refresh"), ([], "with the refresh pass")):
        time_process(command + extra, env)
        results = [time_process(command + extra, env) for _ in range(args.runs)]
        wall = statistics.median(r[0] for r in results)
        cpu = statistics.median(r[1] for r in results)
        print(f"| `prime-sessions usage daily ROOT -b --json` {label} | {wall:.3f} s | {cpu:.3f} s |")
    bare = [time_process([sys.executable, "-c", "pass"], env) for _ in range(args.runs)]
    print(f"| `python -c pass` (the floor) | {statistics.median(r[0] for r in bare):.3f} s | "
          f"{statistics.median(r[1] for r in bare):.3f} s |")  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
