"""QtCharts against pyqtgraph for the Usage view: import time and a year of daily stacked bars, offscreen.

Each library is measured in a fresh child process of its own interpreter (a scratch virtual environment
with PySide6-Essentials and that library), so one library's imports never warm the other's. The child
draws 365 days x 5 models of stacked bars into a 1600 x 600 widget and grabs it (construction, layout
and the first full paint), then replaces the data and grabs again (what a live update costs), and prints
one ``RESULT {json}`` line with ``time.perf_counter`` stamps. The parent times the whole process with
``os.wait4``. ``none`` is the floor: the same process with PySide6 and an empty widget.

Bundle size is not measured here: build the bundle with each library (``packaging/prime-sessions.spec``)
and compare ``du`` of ``build/dist/prime-sessions`` (see benchmarks/README.md).

Usage::

    python benchmarks/chart_libraries.py --python qtcharts=/tmp/qc/bin/python \\
        --python pyqtgraph=/tmp/pg/bin/python [--runs 5]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import time

DAYS, MODELS = 365, 5
WIDTH, HEIGHT = 1600, 600


def _data(seed: int) -> list[list[float]]:
    rng = random.Random(seed)
    return [[round(rng.random() * (m + 1) * 3, 2) for _ in range(DAYS)] for m in range(MODELS)]


def _qtcharts(app: object) -> tuple[float, float, float]:
    t0 = time.perf_counter()
    from PySide6.QtCharts import QBarCategoryAxis, QBarSet, QChart, QChartView, QStackedBarSeries, QValueAxis
    from PySide6.QtCore import Qt

    t1 = time.perf_counter()
    chart = QChart()
    series = QStackedBarSeries()
    for m, values in enumerate(_data(1)):
        bar_set = QBarSet(f"model {m}")
        bar_set.append(values)
        series.append(bar_set)
    chart.addSeries(series)
    days = QBarCategoryAxis()
    days.append([f"d{d}" for d in range(DAYS)])
    days.setLabelsVisible(False)  # 365 category labels overlap: a real view would need a second axis
    chart.addAxis(days, Qt.AlignmentFlag.AlignBottom)
    series.attachAxis(days)
    money = QValueAxis()
    chart.addAxis(money, Qt.AlignmentFlag.AlignLeft)
    series.attachAxis(money)
    view = QChartView(chart)
    view.resize(WIDTH, HEIGHT)
    view.show()
    view.grab()
    t2 = time.perf_counter()
    for bar_set, values in zip(series.barSets(), _data(2), strict=True):
        bar_set.remove(0, DAYS)
        bar_set.append(values)
    view.grab()
    t3 = time.perf_counter()
    return t1 - t0, t2 - t1, t3 - t2


def _pyqtgraph(app: object) -> tuple[float, float, float]:
    t0 = time.perf_counter()
    import numpy as np
    import pyqtgraph as pg

    t1 = time.perf_counter()
    widget = pg.PlotWidget(axisItems={"bottom": pg.DateAxisItem()})
    x = np.arange(DAYS, dtype=float) * 86400 + 1_767_225_600
    bottom = np.zeros(DAYS)
    items = []
    for m, values in enumerate(_data(1)):
        heights = np.array(values)
        item = pg.BarGraphItem(x=x, height=heights, y0=bottom.copy(), width=86400 * 0.8, brush=pg.intColor(m))
        widget.addItem(item)
        items.append(item)
        bottom += heights
    widget.resize(WIDTH, HEIGHT)
    widget.show()
    widget.grab()
    t2 = time.perf_counter()
    bottom = np.zeros(DAYS)
    for item, values in zip(items, _data(2), strict=True):
        heights = np.array(values)
        item.setOpts(height=heights, y0=bottom.copy())
        bottom += heights
    widget.grab()
    t3 = time.perf_counter()
    return t1 - t0, t2 - t1, t3 - t2


def child(lib: str) -> int:
    t_start = time.perf_counter()
    from PySide6.QtWidgets import QApplication, QWidget

    app = QApplication([sys.argv[0]])
    t_qt = time.perf_counter()
    if lib == "none":
        widget = QWidget()
        widget.resize(WIDTH, HEIGHT)
        widget.show()
        widget.grab()
        imported = first = again = 0.0
    else:
        imported, first, again = {"qtcharts": _qtcharts, "pyqtgraph": _pyqtgraph}[lib](app)
    result = {
        "qt": t_qt - t_start,
        "import": imported,
        "draw": first,
        "redraw": again,
        "t_end": time.perf_counter(),
    }
    print("RESULT " + json.dumps(result), flush=True)
    return 0


def _run(python: str, lib: str) -> dict[str, float]:
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen")
    t0 = time.perf_counter()
    proc = subprocess.Popen(
        [python, os.path.abspath(__file__), "--child", lib], stdout=subprocess.PIPE, env=env, text=True
    )
    out, _ = proc.communicate()
    wall = time.perf_counter() - t0
    if proc.returncode:
        raise SystemExit(f"{lib}: child failed ({proc.returncode})")
    line = next(line for line in out.splitlines() if line.startswith("RESULT "))
    result: dict[str, float] = json.loads(line[7:])
    result["process"] = wall
    return result


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--child")
    parser.add_argument("--python", action="append", default=[], help="LIB=INTERPRETER (qtcharts, pyqtgraph)")
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    if args.child:
        return child(args.child)
    pythons = dict(item.split("=", 1) for item in args.python)
    libs = [("none", pythons.get("qtcharts") or sys.executable), *sorted(pythons.items())]
    for lib, python in libs:
        _run(python, lib)  # untimed: page cache and bytecode
    samples: dict[str, list[dict[str, float]]] = {lib: [] for lib, _ in libs}
    for _ in range(args.runs):
        for lib, python in libs:
            samples[lib].append(_run(python, lib))
    print(f"| library | whole process | import | first draw | redraw | (median of {args.runs}, ms) |")
    print("|---|---:|---:|---:|---:|---|")
    for lib, runs in samples.items():
        cells = [
            statistics.median(r[key] for r in runs) * 1000 for key in ("process", "import", "draw", "redraw")
        ]
        print(f"| {lib} | " + " | ".join(f"{c:.0f}" for c in cells) + " | |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
