"""Time and memory against session size, ours beside pi 1.6.0's, from 37 MB to about 1 GB (issue 18).

The 20,000-message session the reference's own writer makes (``run_core.py``'s, about 37 MB) is
chained ``--copies`` times into one session (each copy's ids get a suffix, its root hangs off the
previous copy's leaf), as users' sessions grow. For each size, each a fresh process, one run each:

* ``check``: ``prime-sessions check FILE`` (wall, peak RSS from ``os.wait4``);
* ``window``: the window (offscreen, a private home) opening the file to its leaf's message shown;
* ``pi 1.6.0``: ``PI_REF=latest node open-once.mjs FILE`` (``SessionManager.open``, its context and tree).

Prints a Markdown table and writes ``benchmarks/out/size-scaling.png`` (two charts: time and memory
against size, drawn with Qt Charts offscreen).

Usage::

    python benchmarks/size_scaling.py [--copies 1 4 12 26]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
OUT = REPO / "benchmarks" / "out"
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "benchmarks"))

from image_heavy import run  # noqa: E402  (a fresh process: wall s, peak RSS MiB, stdout)
from run_core import ensure_session, prepare_oracle  # noqa: E402

from tests.helpers import private_environment  # noqa: E402

MIB = 1024 * 1024
ID_FIELDS = ("id", "parentId", "targetId", "firstKeptEntryId", "fromId", "parentEntryId")


def chained(base: Path, copies: int) -> Path:
    """``base`` chained ``copies`` times into one session (made once, kept), by a child process.

    A child: a process's peak RSS survives exec, so the processes measured (forked from this one)
    would otherwise start from the memory the chaining took here.
    """
    target = OUT / f"size-chain-{copies}.jsonl"
    if not target.exists():
        argv = [sys.executable, str(Path(__file__).resolve()), "--make-chain", str(base), str(copies)]
        subprocess.run(argv, check=True)
    return target


def write_chain(base: Path, copies: int) -> None:
    """Write ``size-chain-COPIES.jsonl``: ``base`` chained ``copies`` times."""
    target = OUT / f"size-chain-{copies}.jsonl"
    lines = base.read_bytes().splitlines()
    header, entries = lines[0], [json.loads(line) for line in lines[1:] if line.strip()]
    leaf = None
    with open(target.with_suffix(".tmp"), "w", encoding="utf-8") as out:
        out.write(header.decode() + "\n")
        for copy in range(copies):
            suffix = f"-{copy}" if copy else ""
            for entry in entries:
                moved = dict(entry)
                for field in ID_FIELDS:
                    if isinstance(moved.get(field), str):
                        moved[field] = moved[field] + suffix
                if moved.get("parentId") is None and "parentId" in moved:
                    moved["parentId"] = leaf
                out.write(json.dumps(moved, ensure_ascii=False, separators=(",", ":")) + "\n")
            leaf = entries[-1]["id"] + suffix
    target.with_suffix(".tmp").replace(target)


def measure(path: Path, oracle: Path) -> dict[str, tuple[float, float]]:
    """Wall s and peak RSS MiB of ``check``, the window and pi 1.6.0 on ``path``."""
    python = sys.executable
    found: dict[str, tuple[float, float]] = {}
    wall, rss, _ = run([python, "-m", "core.cli", "check", str(path)])
    found["check"] = (wall, rss)
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "sessions"
        root.mkdir()
        os.link(path, root / path.name)
        env = private_environment(Path(tmp) / "home")
        child = [python, str(REPO / "benchmarks" / "image_heavy.py"), "--window-child", str(root)]
        child += [str(Path(tmp) / "catalogue"), str(root / path.name)]
        wall, rss, text = run(child, env)
        result = next((x.split() for x in text.splitlines() if x.startswith("RESULT ")), None)
        opened, stall = (float(result[1]), float(result[2])) if result else (wall, float("nan"))
        found["window"] = (wall, rss)
        found["window open"] = (opened, rss)
        found["window stall"] = (stall, rss)
    env = {**os.environ, "PI_REF": "latest"}
    wall, rss, _ = run(["node", str(oracle / "open-once.mjs"), str(path)], env)
    found["pi 1.6.0"] = (wall, rss)
    return found


def plot(rows: list[tuple[float, dict[str, tuple[float, float]]]], target: Path) -> None:
    """Two line charts (seconds, MiB against MB), saved as one PNG, drawn offscreen with Qt Charts."""
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtCharts import QChart, QChartView, QLineSeries, QValueAxis
    from PySide6.QtCore import QPointF, Qt
    from PySide6.QtGui import QPainter, QPixmap
    from PySide6.QtWidgets import QApplication, QHBoxLayout, QWidget

    app = QApplication.instance() or QApplication([])
    widget = QWidget()
    layout = QHBoxLayout(widget)
    for index, (title, unit) in enumerate((("Time to open", "seconds"), ("Peak memory", "MiB"))):
        chart = QChart()
        chart.setTitle(f"{title} against session size")
        x_axis, y_axis = QValueAxis(), QValueAxis()
        x_axis.setTitleText("session MB")
        y_axis.setTitleText(unit)
        chart.addAxis(x_axis, Qt.AlignmentFlag.AlignBottom)
        chart.addAxis(y_axis, Qt.AlignmentFlag.AlignLeft)
        top = 0.0
        for name in ("check", "window open", "pi 1.6.0"):
            series = QLineSeries()
            series.setName(name)
            series.setPointsVisible(True)
            for size, found in rows:
                value = found[name][index]
                top = max(top, value)
                series.append(QPointF(size, value))
            chart.addSeries(series)
            series.attachAxis(x_axis)
            series.attachAxis(y_axis)
        x_axis.setRange(0, max(size for size, _ in rows) * 1.05)
        y_axis.setRange(0, top * 1.1)
        x_axis.applyNiceNumbers()
        y_axis.applyNiceNumbers()
        x_axis.setLabelFormat("%.0f")
        y_axis.setLabelFormat("%.1f" if index == 0 else "%.0f")
        view = QChartView(chart)
        view.setRenderHint(QPainter.RenderHint.Antialiasing)
        layout.addWidget(view)
    widget.resize(1400, 520)
    widget.show()
    app.processEvents()
    pixmap: QPixmap = widget.grab()
    pixmap.save(str(target))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--copies", type=int, nargs="+", default=[1, 4, 12, 26])
    parser.add_argument("--plot", type=Path, default=OUT / "size-scaling.png")
    args = parser.parse_args(argv)
    oracle = prepare_oracle(OUT)
    base, _meta = ensure_session(oracle, OUT, "node", 20_000, 0)  # run_core.py's session, made once
    rows = []
    print(f"load {os.getloadavg()[0]:.1f}\n")
    print("| session | check s | check MiB | window open s | longest stall ms | window s (process) |", end="")
    print(" window MiB | pi 1.6.0 s | pi 1.6.0 MiB |")
    print("|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for copies in args.copies:
        path = chained(base, copies)
        size = path.stat().st_size / 1e6
        found = measure(path, oracle)
        rows.append((size, found))
        c, w, o, p = found["check"], found["window"], found["window open"], found["pi 1.6.0"]
        cells = [f"{size:,.0f} MB", f"{c[0]:.2f}", f"{c[1]:,.0f}", f"{o[0]:.2f}"]
        cells += [f"{found['window stall'][0]:.0f}", f"{w[0]:.2f}"]
        cells += [f"{w[1]:,.0f}", f"{p[0]:.2f}", f"{p[1]:,.0f}"]
        print("| " + " | ".join(cells) + " |", flush=True)
    plot(rows, args.plot)
    print(f"\nplot: {args.plot}")
    return 0


if __name__ == "__main__":
    if sys.argv[1:2] == ["--make-chain"]:
        write_chain(Path(sys.argv[2]), int(sys.argv[3]))
        sys.exit(0)
    sys.exit(main())
