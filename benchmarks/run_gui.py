"""GUI benchmark: start-up, opening the 36 MB session, and main-thread stalls, offscreen.

Every measurement runs in a fresh child process (``QT_QPA_PLATFORM=offscreen``), so interpreter
start-up, imports and Qt start-up count. The child is this script in a ``--child MODE`` mode; it
prints one ``RESULT {json}`` line. Times that span processes use ``time.perf_counter`` (the
monotonic clock on Linux, shared by parent and child), so "from ``Popen``" figures need no pipe.

a. ``shown``: from the parent's ``Popen`` to ``summaries_shown`` with at least 2,000 rows in the
   table (target under 1 s).
b. ``open``: from ``window.files.open_path(FILE)`` of the 36 MB session to ``session_loaded`` with the
   tree model holding rows (target under 1 s).
c. stalls: the longest gap of the event loop, measured with a 5 ms ``QTimer`` (max gap minus the
   interval), during the open of the 36 MB session, a warm catalogue refresh, a refresh after
   appending one entry to the open session, and a live tail (50 entries appended at 20 ms
   intervals from a thread); target: no stall over 50 ms.

The history and catalogue are those of ``run_catalogue.py`` (``benchmarks/out/history``,
``benchmarks/out/catalogue``). The 36 MB session is truncated back to its manifest size after each
append and the catalogue refreshed again, so every child starts from a warm catalogue.

Usage::

    python benchmarks/run_gui.py [--runs 5] [--only shown,open,refresh,append,tail]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
BENCH = REPO / "benchmarks"
DEFAULT_OUT = BENCH / "out"
MODES = ("shown", "open", "refresh", "append", "tail")
TARGET_SHOWN_S = 1.0
TARGET_OPEN_S = 1.0
TARGET_STALL_S = 0.050
TICK_MS = 5
TAIL_ENTRIES = 50
TAIL_INTERVAL_S = 0.020
CHILD_TIMEOUT_S = 120
# PRIME_BENCH_PROFILE=PREFIX: each child writes a cProfile of its main thread over the measured span to
# PREFIX.MODE.prof (read it with `python -m pstats`); the times are then not comparable.
PROFILE = os.environ.get("PRIME_BENCH_PROFILE")


# ============================================================================================== child
def child(mode: str, root: Path, catalogue: Path, target: Path) -> int:
    """Run one measurement inside this (fresh) process and print ``RESULT {json}``."""
    t_top = time.perf_counter()
    from PySide6.QtCore import QCoreApplication, QModelIndex, Qt, QTimer
    from PySide6.QtWidgets import QApplication

    t_qt = time.perf_counter()
    from gui.main_window import MainWindow
    from gui.settings import APPLICATION, ORGANIZATION

    t_imports = time.perf_counter()
    QCoreApplication.setOrganizationName(ORGANIZATION)
    QCoreApplication.setApplicationName(APPLICATION)
    app = QApplication([sys.argv[0]])
    result: dict[str, Any] = {"mode": mode, "t_top": t_top, "t_qt": t_qt, "t_imports": t_imports}

    class Stalls:
        """The longest gap between ticks of a 5 ms timer while started."""

        def __init__(self) -> None:
            self.timer = QTimer()
            self.timer.setTimerType(Qt.TimerType.PreciseTimer)
            self.timer.setInterval(TICK_MS)
            self.timer.timeout.connect(self._tick)
            self.last = 0.0
            self.gaps: list[float] = []

        def _tick(self) -> None:
            now = time.perf_counter()
            self.gaps.append(now - self.last)
            self.last = now

        def start(self) -> None:
            self.gaps = []
            self.last = time.perf_counter()
            self.timer.start()
            if PROFILE:  # to find what blocks the main thread: cProfile sees only this thread
                import cProfile

                self.profile = cProfile.Profile()
                self.profile.enable()

        def stop(self) -> float:
            self._tick()
            self.timer.stop()
            if PROFILE:
                self.profile.disable()
                self.profile.dump_stats(f"{PROFILE}.{mode}.prof")
            return max(0.0, max(self.gaps) - TICK_MS / 1000)

        def over(self, seconds: float) -> int:
            return sum(1 for g in self.gaps if g - TICK_MS / 1000 > seconds)

    stalls = Stalls()
    window = MainWindow(roots=[root], catalogue_dir=catalogue)
    window.show()
    t_window = time.perf_counter()
    result["t_window"] = t_window
    state: dict[str, Any] = {"refreshes": 0, "updates": 0, "appended": 0}

    def finish(code: int = 0) -> None:
        print("RESULT " + json.dumps(result), flush=True)
        state["code"] = code
        window.close()
        app.quit()

    def fail(why: str) -> None:
        result["error"] = why
        finish(1)

    def on_shown(rows: int) -> None:
        result["t_shown"] = time.perf_counter()
        result["rows_signal"] = rows
        result["rows_table"] = window.table.model().rowCount()
        if mode == "shown":
            window.table.viewport().repaint()  # the first paint of the filled list, synchronously
            result["t_painted"] = time.perf_counter()

    def on_refresh(ok: bool) -> None:
        state["refreshes"] += 1
        state.setdefault("first_refresh_at", time.perf_counter())
        if not ok:
            fail("refresh_finished(False)")
            return
        step = state.get("on_refresh")
        if step is not None:
            step()

    def on_loaded(_session: object) -> None:
        step = state.get("on_loaded")
        if step is not None:
            step()

    def on_updated(res: object) -> None:
        state["updates"] += 1
        step = state.get("on_updated")
        if step is not None:
            step(res)

    window.catalogue.summaries_shown.connect(on_shown)
    window.catalogue.refresh_finished.connect(on_refresh)
    window.context.session_loaded.connect(on_loaded)
    window.context.session_updated.connect(on_updated)

    def after_startup(step: Any) -> None:
        """Run ``step`` once the start-up refresh has finished and the loop has settled."""

        def first_refresh() -> None:
            state["on_refresh"] = None
            QTimer.singleShot(300, step)

        state["on_refresh"] = first_refresh

    def open_session(then: Any) -> None:
        """Open the 36 MB session; call ``then`` when the tree is ready."""
        model = window.tree.model()

        def loaded() -> None:
            state["on_loaded"] = None
            result["t_loaded"] = time.perf_counter()
            result["tree_rows"] = model.rowCount()
            result["entries"] = len(window.opened.session.entries) if window.opened.session is not None else 0
            if model.rowCount() <= 0:
                fail("session_loaded with an empty tree")
                return
            then()

        def reset() -> None:  # the tree's rows exist from here; session_loaded follows select_leaf()
            if "t_reset" not in result:
                result["t_reset"] = time.perf_counter()
                result["tree_rows_at_reset"] = model.rowCount()
                result["can_fetch_more_at_reset"] = model.canFetchMore(QModelIndex())

        model.modelReset.connect(reset)
        state["on_loaded"] = loaded
        result["t_open"] = time.perf_counter()
        window.files.open_path(target)

    if mode == "shown":

        def shown_done() -> None:
            finish(0 if result.get("rows_table", 0) >= 2000 else 1)

        state["on_refresh"] = lambda: QTimer.singleShot(0, shown_done)

    elif mode == "open":

        def measure_open() -> None:
            stalls.start()

            def settled() -> None:
                QTimer.singleShot(200, done)  # the first paints of the tree and the message view

            def done() -> None:
                result["stall"] = stalls.stop()
                result["stalls_over_50ms"] = stalls.over(TARGET_STALL_S)
                finish()

            open_session(settled)

        after_startup(measure_open)

    elif mode == "refresh":

        def measure_refresh() -> None:
            stalls.start()

            def done() -> None:
                result["t_refreshed"] = time.perf_counter()
                result["stall"] = stalls.stop()
                result["stalls_over_50ms"] = stalls.over(TARGET_STALL_S)
                finish()

            state["on_refresh"] = lambda: QTimer.singleShot(50, done)
            result["t_refresh"] = time.perf_counter()
            window.refresh()

        after_startup(measure_refresh)

    elif mode in ("append", "tail"):
        sys.path.insert(0, str(BENCH))
        import random

        from run_catalogue import append_line, last_entry_id

        rng = random.Random(20261130)
        count = 1 if mode == "append" else TAIL_ENTRIES

        def measure_append() -> None:
            parent = last_entry_id(target)
            stalls.start()
            state["refreshes_before"] = state["refreshes"]

            def writer() -> None:
                nonlocal parent
                for i in range(count):
                    kind = "message" if i % 2 == 0 else "custom"
                    parent, _n = append_line(target, kind, parent, rng, i)
                    state["appended"] += 1
                    if i + 1 < count:
                        time.sleep(TAIL_INTERVAL_S)
                    else:
                        state["t_written"] = time.perf_counter()

            def check_done() -> None:
                session = window.opened.session
                seen = session is not None and len(session.entries) >= result["entries"] + count
                if seen and "t_seen" not in state:
                    state["t_seen"] = time.perf_counter()

            def on_up(_res: object) -> None:
                check_done()

            def refreshed() -> None:
                check_done()
                if "t_seen" in state and "t_written" in state:
                    QTimer.singleShot(50, done)

            def done() -> None:
                if "stall" in result:
                    return
                result["stall"] = stalls.stop()
                result["stalls_over_50ms"] = stalls.over(TARGET_STALL_S)
                result["appended"] = state["appended"]
                result["updates"] = state["updates"]
                result["refreshes"] = state["refreshes"] - state["refreshes_before"]
                result["lag_last_entry"] = state["t_seen"] - state["t_written"]
                result["tree_rows_after"] = window.tree.model().rowCount()
                finish()

            state["on_updated"] = on_up
            state["on_refresh"] = refreshed
            threading.Thread(target=writer, daemon=True).start()

        def opened() -> None:
            QTimer.singleShot(300, measure_append)

        after_startup(lambda: open_session(opened))

    QTimer.singleShot(CHILD_TIMEOUT_S * 1000, lambda: fail("timeout"))
    app.exec()
    return int(state.get("code", 1))


# ============================================================================================== parent
def run_child(args: argparse.Namespace, env: dict[str, str], mode: str) -> dict[str, Any]:
    """Run one child measurement; return its RESULT with ``t_popen`` and the peak RSS added."""
    sys.path.insert(0, str(BENCH))
    argv = [args.python, str(Path(__file__).resolve()), "--child", mode]
    argv += ["--root", str(args.root), "--catalogue", str(args.catalogue), "--target", str(args.target)]
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        start = time.perf_counter()
        proc = subprocess.Popen(argv, cwd=REPO, env=env, stdin=subprocess.DEVNULL, stdout=out, stderr=err)
        killer = threading.Timer(CHILD_TIMEOUT_S + 30, proc.kill)  # never hang
        killer.start()
        _pid, wait_status, rusage = os.wait4(proc.pid, 0)
        killer.cancel()
        proc.returncode = os.waitstatus_to_exitcode(wait_status)  # already reaped
        usage = rusage.ru_maxrss / 1024
        out.seek(0)
        err.seek(0)
        stdout = out.read().decode("utf-8", "replace")
        stderr = err.read().decode("utf-8", "replace")
    lines = [x for x in stdout.splitlines() if x.startswith("RESULT ")]
    if not lines:
        return {"mode": mode, "error": f"exit {proc.returncode}: {stderr.strip()[-800:]}"}
    result = json.loads(lines[-1][len("RESULT ") :])
    result["t_popen"] = start
    result["status"] = proc.returncode
    result["maxrss_mib"] = usage
    if proc.returncode != 0 and "error" not in result:
        result["error"] = f"exit {proc.returncode}: {stderr.strip()[-800:]}"
    return result


def restore(target: Path, size: int, mtime_ns: int, args: argparse.Namespace, env: dict[str, str]) -> None:
    """Truncate the 36 MB session back to ``size``, reset its mtime, bring the catalogue up to date."""
    if target.stat().st_size != size:
        with open(target, "r+b") as handle:
            handle.truncate(size)
        os.utime(target, ns=(mtime_ns, mtime_ns))
    index(args, env)


def index(args: argparse.Namespace, env: dict[str, str]) -> float:
    """``python -m core.cli index ROOT --catalogue DIR``; return the seconds it took."""
    start = time.perf_counter()
    argv = [args.python, "-m", "core.cli", "index", str(args.root), "--catalogue", str(args.catalogue)]
    done = subprocess.run(argv, cwd=REPO, env=env, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise SystemExit(f"run_gui: index failed ({done.returncode}): {done.stderr[-1500:]}")
    return time.perf_counter() - start


def fmt(seconds: float | None) -> str:
    """Seconds as ms below 10 s."""
    if seconds is None:
        return "-"
    return f"{seconds * 1000:.0f} ms" if seconds < 10 else f"{seconds:.1f} s"


def figures(mode: str, r: dict[str, Any]) -> dict[str, float]:
    """The named figures (seconds) of one child result."""
    f: dict[str, float] = {}
    if "t_popen" in r:
        f["python + imports (Popen to Qt and gui imported)"] = r["t_imports"] - r["t_popen"]
        f["window constructed and shown (Popen to show())"] = r["t_window"] - r["t_popen"]
    if mode == "shown" and "t_shown" in r:
        f["shown"] = r["t_shown"] - r["t_popen"]
        f["shown+paint"] = r["t_painted"] - r["t_popen"]
    if mode == "open" and "t_loaded" in r:
        f["open"] = r["t_loaded"] - r["t_open"]
        if "t_reset" in r:
            f["reset"] = r["t_reset"] - r["t_open"]
    if "stall" in r:
        f["stall"] = r["stall"]
    if mode == "refresh" and "t_refreshed" in r:
        f["refresh"] = r["t_refreshed"] - r["t_refresh"]
    if "lag_last_entry" in r:
        f["lag"] = r["lag_last_entry"]
    return f


def med_min(values: list[float]) -> tuple[float | None, float | None]:
    """Median and minimum, or None when there are no values."""
    return (statistics.median(values), min(values)) if values else (None, None)


ROWS = [
    # (mode, figure key, label, target seconds or None)
    (
        "shown",
        "shown",
        "a. window shown, list filled (Popen to `summaries_shown`, >= 2,000 rows)",
        TARGET_SHOWN_S,
    ),
    ("shown", "shown+paint", "a. ... plus a synchronous repaint of the table", None),
    (
        "shown",
        "python + imports (Popen to Qt and gui imported)",
        "a. of which: Python start + Qt + gui imports",
        None,
    ),
    (
        "shown",
        "window constructed and shown (Popen to show())",
        "a. of which: ... + MainWindow() + show()",
        None,
    ),
    (
        "open",
        "open",
        "b. open the 36 MB session (`open_path` to `session_loaded`, tree rows > 0)",
        TARGET_OPEN_S,
    ),
    ("open", "reset", "b. ... of which: `open_path` to the tree model's `modelReset`", None),
    ("open", "stall", "c. longest stall while opening the 36 MB session", TARGET_STALL_S),
    (
        "refresh",
        "stall",
        "c. longest stall during a warm refresh (`window.refresh()`, nothing open)",
        TARGET_STALL_S,
    ),
    ("refresh", "refresh", "c. ... that refresh, `refresh()` to `refresh_finished`", None),
    (
        "append",
        "stall",
        "c. longest stall: append 1 entry to the open session, watcher + debounced refresh",
        TARGET_STALL_S,
    ),
    ("append", "lag", "c. ... write to the entry in the session (incl. watcher)", None),
    (
        "tail",
        "stall",
        f"c. longest stall: live tail, {TAIL_ENTRIES} entries at {TAIL_INTERVAL_S * 1000:.0f} ms",
        TARGET_STALL_S,
    ),
    ("tail", "lag", "c. ... last write to its entry in the session", None),
]


def render(results: dict[str, list[dict[str, Any]]], info: list[str], runs: int) -> tuple[str, bool]:
    """The Markdown report and whether every target passed."""
    lines = ["# prime-sessions GUI benchmark", "", *info, ""]
    lines.append(
        f"{runs} runs per measurement, each in a fresh process (`QT_QPA_PLATFORM=offscreen`); median and "
        f"minimum over the runs. Stalls: the longest gap between ticks of a {TICK_MS} ms `QTimer` minus "
        f'{TICK_MS} ms (so the worst single stall; for stalls the "min" column is the best run).'
    )
    lines += ["", "| measurement | median | min | max | target | verdict |", "|---|---:|---:|---:|---|---|"]
    all_ok = True
    for mode, key, label, target in ROWS:
        if mode not in results:
            continue
        rs = results[mode]
        values = [figures(mode, r)[key] for r in rs if key in figures(mode, r)]
        errors = [r["error"] for r in rs if "error" in r]
        med, low = med_min(values)
        if target is None:
            verdict = "info"
        elif errors or med is None:
            verdict = "**INVALID**"
            all_ok = False
        else:
            ok = med < target
            all_ok &= ok
            verdict = "**PASS**" if ok else "**FAIL**"
        high = max(values) if values else None
        tgt = f"< {fmt(target)}" if target is not None else ""
        lines.append(f"| {label} | {fmt(med)} | {fmt(low)} | {fmt(high)} | {tgt} | {verdict} |")
    notes = []
    for mode, rs in results.items():
        for r in rs:
            if "error" in r:
                notes.append(f"- {mode}: {r['error'][:400]}")
        ok_rs = [r for r in rs if "error" not in r]
        if not ok_rs:
            continue
        r = ok_rs[-1]
        rss = max(x.get("maxrss_mib", 0) for x in ok_rs)
        extra = f"peak RSS of the child {rss:.0f} MiB"
        if "rows_table" in r:
            extra += f"; rows in the table {r['rows_table']}"
        if "tree_rows" in r:
            extra += f"; tree rows after load {r['tree_rows']}, entries {r['entries']}"
        if "tree_rows_at_reset" in r:
            extra += (
                f"; at `modelReset`: rowCount() {r['tree_rows_at_reset']},"
                f" canFetchMore(root) {r['can_fetch_more_at_reset']}"
            )
        if "stalls_over_50ms" in r:
            extra += f"; gaps over 50 ms in the last run {r['stalls_over_50ms']}"
        if "appended" in r:
            extra += f"; appended {r['appended']}, session_updated {r['updates']}, refreshes {r['refreshes']}"
        notes.append(f"- {mode}: {extra}")
    lines += ["", "Notes:", "", *notes]
    return "\n".join(lines) + "\n", all_ok


def machine_info(args: argparse.Namespace) -> list[str]:
    """A few lines on the machine and the code."""
    sys.path.insert(0, str(BENCH))
    from run_core import first_line

    nproc = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    py = first_line(
        [args.python, "-c", "import sys, PySide6; print(sys.version.split()[0], PySide6.__version__)"]
    )
    commit = first_line(["git", "-C", str(REPO), "rev-parse", "--short", "HEAD"])
    load = ", ".join(f"{x:.2f}" for x in os.getloadavg())
    return [
        f"- code: commit {commit}",
        f"- date: {datetime.now(UTC).strftime('%Y-%m-%d %H:%M UTC')}",
        f"- machine: {platform.system()} {platform.release()}; nproc {nproc}; load average before {load}",
        f"- python / PySide6: {py}",
        f"- history: {args.root} (2,000 sessions); catalogue {args.catalogue} (warm)",
        f"- 36 MB session: {args.target.name}",
    ]


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    """Command-line options."""
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--runs", type=int, default=5, help="runs per measurement (default 5)")
    p.add_argument("--out", type=Path, default=DEFAULT_OUT, help="work folder (default benchmarks/out)")
    p.add_argument("--catalogue", type=Path, help="catalogue folder (default <out>/catalogue)")
    p.add_argument("--python", default=sys.executable, help="interpreter for the children")
    p.add_argument("--only", help=f"comma-separated measurements ({','.join(MODES)})")
    p.add_argument("--child", choices=MODES, help=argparse.SUPPRESS)
    p.add_argument("--root", type=Path, help=argparse.SUPPRESS)
    p.add_argument("--target", type=Path, help=argparse.SUPPRESS)
    return p.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    """Prepare, run the children, print and save the report."""
    args = parse_args(argv)
    if args.child:
        return child(args.child, args.root, args.catalogue, args.target)
    args.out = args.out.resolve()
    history = args.out / "history"
    manifest_path = history / "manifest.json"
    if not manifest_path.is_file():
        print("run_gui: no history; run `python benchmarks/make_history.py` first", file=sys.stderr)
        return 2
    manifest = json.loads(manifest_path.read_text())
    args.root = history / str(manifest["sessionsDir"])
    args.target = history / str(manifest["appendSession"]["path"])
    size = int(manifest["appendSession"]["bytes"])
    args.catalogue = (args.catalogue or args.out / "catalogue").resolve()
    modes = [m for m in MODES if not args.only or m in args.only.split(",")]

    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(REPO), *filter(None, [env.get("PYTHONPATH")])])
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env["PYTHONPYCACHEPREFIX"] = str(args.out / "pycache")
    env["QT_QPA_PLATFORM"] = "offscreen"
    env["PRIME_AGENT_DIR"] = str(history)
    env["PRIME_SESSIONS_CATALOGUE"] = str(args.catalogue)
    config = tempfile.TemporaryDirectory(prefix="run-gui-config-")
    env["XDG_CONFIG_HOME"] = config.name  # QSettings (geometry, recent files) stay out of the user's
    env["XDG_RUNTIME_DIR"] = config.name

    if args.target.stat().st_size > size:  # left long by an interrupted run
        with open(args.target, "r+b") as handle:
            handle.truncate(size)
    mtime_ns = args.target.stat().st_mtime_ns
    built = not (args.catalogue / "catalogue.sqlite3").exists()
    print(f"catalogue {'build (about 25 s)' if built else 'refresh'}: {index(args, env):.2f} s", flush=True)
    info = machine_info(args)

    results: dict[str, list[dict[str, Any]]] = {m: [] for m in modes}
    try:
        for mode in modes:  # one untimed run each: page cache, .pyc files, fontconfig cache
            r = run_child(args, env, mode)
            print(f"warm-up {mode}: {'ERROR ' + r['error'] if 'error' in r else 'ok'}", flush=True)
            if mode in ("append", "tail"):
                restore(args.target, size, mtime_ns, args, env)
        for run in range(1, args.runs + 1):
            for mode in modes:
                r = run_child(args, env, mode)
                if mode in ("append", "tail"):
                    restore(args.target, size, mtime_ns, args, env)
                results[mode].append(r)
                shown = ", ".join(f"{k.split(' (')[0]} {fmt(v)}" for k, v in figures(mode, r).items())
                print(f"run {run}/{args.runs} {mode}: {r.get('error') or shown}", flush=True)
    finally:
        restore(args.target, size, mtime_ns, args, env)
        config.cleanup()
    report, ok = render(results, info, args.runs)
    print()
    print(report)
    (args.out / "gui-results.md").write_text(report)
    (args.out / "gui-results.json").write_text(json.dumps(results, indent=1) + "\n")
    print(f"written: {args.out / 'gui-results.md'}, {args.out / 'gui-results.json'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
