"""Usage window benchmark: opening it over the 2,000-session history, and main-thread stalls, offscreen.

Every run is a fresh child process (this script with ``--child``): the window over the benchmark history
with its warm catalogue (``benchmarks/out/history``, ``benchmarks/out/catalogue``, see run_catalogue.py),
once its start-up refresh has finished. Measured in the child, with ``time.perf_counter``:

* ``first``: ``show_window()`` to ``figures_shown``: the first opening (the window made, a part per turn
  of the event loop, and shown, the catalogue's usage overview computed in a worker once it has painted,
  the cards and tables filled, every chart drawn);
* ``shown``: ``show_window()`` to the end of the first ``show_figures`` call (cards and tables filled);
  ``first cpu`` and ``again cpu``: the process's CPU time (every thread) over those steps;
* ``filter``: a change of filter (the cheapest model) to its figures drawn;
* ``again``: the window closed, 100 ms later the catalogue refreshed (nothing changed) and the window
  shown again: from that showing (its old figures on show at once, the new ones computed; equal, they are
  kept, not drawn again); the closing's turn counts in the stall;
* ``stall``: the longest gap between ticks of a 5 ms timer (started before the first opening) that ends
  after the first ``show_window()`` call, to the end, minus 5 ms (target: none over 50 ms); where each run's
  longest one ended is printed (the step under way, and how long after it began); ``paint``: the longest
  single ``show_figures`` call.

Usage::

    python benchmarks/run_usage_gui.py [--runs 5]
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
OUT = REPO / "benchmarks" / "out"
TARGET_OPEN_S = 0.300
TARGET_STALL_S = 0.050


def child(root: Path, catalogue: Path) -> int:
    from PySide6.QtCore import QCoreApplication, Qt, QTimer
    from PySide6.QtWidgets import QApplication

    from gui.main_window import MainWindow

    QCoreApplication.setOrganizationName("prime-sessions-bench")
    app = QApplication([sys.argv[0]])
    window = MainWindow(roots=[root], catalogue_dir=catalogue)
    window.show()
    result: dict[str, float] = {}
    ticks: list[float] = []
    timer = QTimer()
    timer.setTimerType(Qt.TimerType.PreciseTimer)
    timer.setInterval(5)
    timer.timeout.connect(lambda: ticks.append(time.perf_counter()))
    paints: list[float] = []
    steps = ["first", "filter", "again"]
    started = {"t": 0.0, "cpu": 0.0}
    opened = {"t": 0.0}
    begun: dict[str, float] = {}  # each step's start

    def measure_paint(usage: object) -> None:
        original = usage.show_figures  # type: ignore[attr-defined]

        def timed(figures: object) -> None:
            t = time.perf_counter()
            original(figures)
            paints.append(time.perf_counter() - t)
            result.setdefault("shown", time.perf_counter() - opened["t"])

        usage.show_figures = timed  # type: ignore[attr-defined]

    def next_step(_figures: object = None) -> None:
        now, cpu = time.perf_counter(), time.process_time()
        if started["t"]:
            result[steps[0] + " cpu"] = cpu - started["cpu"]
            result[steps.pop(0)] = now - started["t"]
        if not steps:
            timer.stop()
            # Gaps ending after the first show_window() call: the window's construction counts too.
            gaps = [(b - a, b) for a, b in itertools.pairwise(ticks) if b > opened["t"]]
            gap, end = max(gaps, default=(0.0, 0.0))
            result["stall"] = gap - 0.005
            # Where it ended: the step under way then, and how long after that step began.
            step = max((t, name) for name, t in begun.items() if t <= end)[1] if end else ""
            where = f"{step} +{(end - begun[step]) * 1000:.0f} ms" if step else ""
            result["paint"] = max(paints, default=0.0)
            print("RESULT " + json.dumps({**result, "where": where}), flush=True)
            app.quit()
            return
        started["t"], started["cpu"] = time.perf_counter(), time.process_time()
        begun[steps[0]] = started["t"]
        usage = window.usage.window
        if steps[0] == "first":
            opened["t"] = started["t"]
            usage = window.usage.show_window()
            measure_paint(usage)
        elif steps[0] == "filter":
            box = usage.model_box
            box.setCurrentIndex(box.findData(usage.figures.models[-1].key))
        else:
            usage.close()

            def reopen() -> None:  # as a user would: a while after closing it, not in the same turn
                started["t"], started["cpu"] = time.perf_counter(), time.process_time()
                window.usage.catalogue_refreshed(True)  # hidden: the figures are only marked stale
                window.usage.show_window()

            QTimer.singleShot(100, reopen)

    def refreshed(_ok: bool) -> None:
        window.catalogue.refresh_finished.disconnect(refreshed)
        window.usage.figures_shown.connect(lambda figures: QTimer.singleShot(0, lambda: next_step(figures)))
        timer.start()  # ticking before the first opening, so that a long first turn is seen
        QTimer.singleShot(200, next_step)

    window.catalogue.refresh_finished.connect(refreshed)
    QTimer.singleShot(300_000, app.quit)
    app.exec()
    window.close()
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--child", action="store_true")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--root", type=Path, default=OUT / "history" / "sessions")
    parser.add_argument("--catalogue", type=Path, default=OUT / "catalogue")
    args = parser.parse_args()
    if args.child:
        return child(args.root, args.catalogue)
    if not args.catalogue.is_dir():
        print("run_usage_gui: no catalogue; run `python -m core.cli index ROOT --catalogue DIR` first")
        return 1
    results = []
    with tempfile.TemporaryDirectory() as config:
        env = dict(os.environ, QT_QPA_PLATFORM="offscreen", XDG_CONFIG_HOME=config, PYTHONPATH=str(REPO))
        for run in range(args.runs + 1):
            out = subprocess.run(
                [
                    sys.executable,
                    __file__,
                    "--child",
                    "--root",
                    str(args.root),
                    "--catalogue",
                    str(args.catalogue),
                ],
                env=env,
                capture_output=True,
                text=True,
                check=True,
            ).stdout
            line = next(line for line in out.splitlines() if line.startswith("RESULT "))
            if run:  # the first run warms the page cache and the bytecode
                results.append(json.loads(line[7:]))
    print("longest stall of each run ended in: " + "; ".join(r.pop("where") for r in results))
    print(f"| measurement | median | worst of {args.runs} | target |")
    print("|---|---:|---:|---|")
    for key, target in (
        ("shown", None),
        ("first", TARGET_OPEN_S),
        ("first cpu", None),
        ("filter", None),
        ("again", TARGET_OPEN_S),
        ("again cpu", None),
        ("stall", TARGET_STALL_S),
        ("paint", TARGET_STALL_S),
    ):
        values = [r[key] * 1000 for r in results]
        goal = f"under {target * 1000:.0f} ms" if target else ""
        print(f"| {key} | {statistics.median(values):.0f} ms | {max(values):.0f} ms | {goal} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
