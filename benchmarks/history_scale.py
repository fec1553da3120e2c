"""The catalogue at gigabyte scale (issue 18): histories of 0.5, 1.5 and 5 GB, and one huge session.

Issue 18's target: "A 5 GB history (ten times the benchmark history): cold catalogue build linear in
bytes, progress shown, the list usable within 1 s of start while it runs, catalogue on disk under 25% of
the history's size; a warm start still under 0.2 s."

Histories come from ``make_history.py`` (run as a child, so this process stays small): ``--sizes
COUNT:MB ...``, by default 2,000 files / 500 MB (the benchmark history), 6,000 / 1,500 and 20,000 /
5,000, in ``<out>/scale/history-COUNT``. Sections (``--only``):

* ``cold``: ``prime-sessions index ROOT`` into an empty catalogue folder, taking turns with
  ``bare_parse_all.py ROOT``, ``--runs`` times per size: wall time, the peak RSS of the largest process
  (``os.wait4``) and of all its processes together (sampled from ``/proc`` every 50 ms), MB/s, and the
  catalogue's size on disk against the history's (and per table, from ``dbstat``).
* ``warm``: ``index`` again with nothing changed (whole process), and ``Catalogue.refresh`` in process
  (``catalogue_probe.py refresh``).
* ``window``: the window (offscreen, a private home, ``tests.helpers.private_environment``) started on the
  history with an empty catalogue, so the cold build runs: from ``Popen`` to the list showing rows, then
  how long a filter, a sort and a row selection take there, the longest event-loop stall over the first
  ``--window-seconds``, and what the status bar said (sampled every 250 ms).
* ``huge``: ``index`` of a folder holding only ``--huge FILE`` (default: the 978 MB session of
  ``size_scaling.py``, ``size-chain-26.jsonl``, hard-linked), beside ``check`` and ``bare_parse.py`` of the
  file; with ``--repo DIR`` also the ``index`` of another checkout (before/after), taking turns.

Usage::

    python benchmarks/history_scale.py [--sizes 2000:500 6000:1500 20000:5000] [--runs 3]
        [--only cold,warm,window,huge] [--huge FILE] [--repo OLD_CHECKOUT]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
BENCH = REPO / "benchmarks"
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(BENCH))

from run_core import Command, Sample  # noqa: E402  (the benchmarks' process record)

from tests.helpers import private_environment  # noqa: E402  (HOME and XDG of its own, offscreen)

OUT = BENCH / "out"
MIB = 1024 * 1024
PAGE = os.sysconf("SC_PAGE_SIZE")
SECTIONS = ("cold", "warm", "window", "huge")
TARGET_SHARE = 0.25  # catalogue on disk / history
TARGET_WARM_S = 0.2
TARGET_USABLE_S = 1.0


# ============================================================================================== processes
def _tree_rss(root: int) -> int:
    """Bytes resident in ``root`` and every process below it, now (from ``/proc/*/stat``)."""
    parents: dict[int, int] = {}
    rss: dict[int, int] = {}
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat", "rb") as handle:
                fields = handle.read().rsplit(b")", 1)[1].split()
        except OSError:
            continue
        parents[int(name)] = int(fields[1])  # ppid: the fourth field, second after the name
        rss[int(name)] = int(fields[21]) * PAGE
    total, todo = 0, [root]
    while todo:
        pid = todo.pop()
        total += rss.get(pid, 0)
        todo.extend(child for child, parent in parents.items() if parent == pid)
    return total


def run_sampled(cmd: Command, capture: bool = True) -> tuple[Sample, float, str, str]:
    """Run ``cmd`` once like ``run_core.run_once``, also sampling the RSS of all its processes.

    Returns:
        The sample (peak RSS of the largest process, from ``os.wait4``), the peak of all its processes
        together in MiB (every 50 ms), stdout and stderr.
    """
    with tempfile.TemporaryFile() as err, tempfile.TemporaryFile() as out:
        start = time.perf_counter()
        proc = subprocess.Popen(
            cmd.argv, cwd=cmd.cwd, env=cmd.env, stdin=subprocess.DEVNULL, stdout=out, stderr=err
        )
        peak = [0]
        done = threading.Event()

        def sample() -> None:
            while not done.wait(0.05):
                peak[0] = max(peak[0], _tree_rss(proc.pid))

        sampler = threading.Thread(target=sample, daemon=True)
        sampler.start()
        _pid, wait_status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - start
        done.set()
        sampler.join()
        status = os.waitstatus_to_exitcode(wait_status)
        proc.returncode = status  # already reaped
        err.seek(0)
        out.seek(0)
        stderr, stdout = err.read().decode("utf-8", "replace"), out.read().decode("utf-8", "replace")
    sample_ = Sample(wall, usage.ru_utime + usage.ru_stime, int(usage.ru_maxrss), status)
    if status != 0:
        print(f"  {cmd.key} exited {status}: {stderr.strip()[-800:]}", flush=True)
    return sample_, max(peak[0], usage.ru_maxrss * 1024) / MIB, stdout if capture else "", stderr


def bench_env(repo: Path = REPO) -> dict[str, str]:
    """The environment of our commands: sources of ``repo``, cached bytecode, no user's catalogue."""
    env = dict(os.environ)
    env["PYTHONPATH"] = str(repo)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env["PYTHONPYCACHEPREFIX"] = str(OUT / "pycache" / repo.name)
    return env


def load() -> str:
    """The 1-, 5- and 15-minute load averages, as ``uptime`` prints them."""
    return ", ".join(f"{x:.2f}" for x in os.getloadavg())


def med_min(values: list[float]) -> str:
    """``median (min)`` of some seconds."""
    return f"{statistics.median(values):.2f} s ({min(values):.2f} s)"


def folder_bytes(folder: Path) -> int:
    """Bytes of every file in ``folder`` (the catalogue with its WAL)."""
    return sum(f.stat().st_size for f in folder.rglob("*") if f.is_file())


def table_sizes(catalogue: Path) -> dict[str, int]:
    """Bytes per table and index of a catalogue (SQLite's ``dbstat``), biggest first."""
    conn = sqlite3.connect(f"file:{catalogue / 'catalogue.sqlite3'}?mode=ro", uri=True)
    try:
        rows = conn.execute("SELECT name, sum(pgsize) FROM dbstat GROUP BY name ORDER BY 2 DESC").fetchall()
    finally:
        conn.close()
    return {name: size for name, size in rows}


# ============================================================================================== sections
def ensure_history(count: int, mb: int) -> tuple[Path, dict[str, Any]]:
    """The history of ``count`` files and about ``mb`` MB (made by ``make_history.py`` in a child)."""
    out = OUT / "scale" / f"history-{count}"
    argv = [sys.executable, str(BENCH / "make_history.py"), "--out", str(out)]
    argv += ["--count", str(count), "--target-mb", str(mb)]
    subprocess.run(argv, check=True, stdout=subprocess.DEVNULL)
    return out / "sessions", json.loads((out / "manifest.json").read_text())


def index_cmd(root: Path, catalogue: Path, repo: Path = REPO, key: str = "index") -> Command:
    """``python -m core.cli index ROOT --catalogue DIR`` from ``repo``."""
    argv = [sys.executable, "-m", "core.cli", "index", str(root), "--catalogue", str(catalogue)]
    return Command(key, " ".join(argv), argv, repo, bench_env(repo), "ours")


def cold(root: Path, history_bytes: int, runs: int, report: dict[str, Any]) -> list[str]:
    """Cold builds taking turns with the bare parse; the catalogue's size."""
    catalogue = OUT / "scale" / f"catalogue-{root.parent.name}"
    bare_argv = [sys.executable, str(BENCH / "bare_parse_all.py"), str(root)]
    bare = Command("bare", " ".join(bare_argv), bare_argv, REPO, bench_env(), "bare")
    run_sampled(bare)  # page cache, .pyc files
    rows: dict[str, list[tuple[float, float, float]]] = {"bare": [], "index": []}
    loads = []
    for run in range(runs):
        loads.append(load())
        sample, peak, _out, _err = run_sampled(bare)
        rows["bare"].append((sample.wall_s, sample.maxrss_kib / 1024, peak))
        shutil.rmtree(catalogue, ignore_errors=True)
        sample, peak, out, _err = run_sampled(index_cmd(root, catalogue))
        rows["index"].append((sample.wall_s, sample.maxrss_kib / 1024, peak))
        print(
            f"  cold {run + 1}/{runs}: bare {rows['bare'][-1][0]:.1f} s, index {sample.wall_s:.1f} s,"
            f" {peak:.0f} MiB all processes (load {loads[-1]}): {out.strip()[:120]}",
            flush=True,
        )
    size = folder_bytes(catalogue)
    tables = table_sizes(catalogue)
    index_s = statistics.median(r[0] for r in rows["index"])
    report.update(cold=rows, catalogue_bytes=size, tables=tables, cold_loads=loads)
    top = ", ".join(f"{name} {b / MIB:.0f}" for name, b in list(tables.items())[:6])
    return [
        f"| cold `index` | {med_min([r[0] for r in rows['index']])} | "
        f"{max(r[1] for r in rows['index']):.0f} / {max(r[2] for r in rows['index']):.0f} | "
        f"{history_bytes / 1e6 / index_s:.0f} MB/s | {'; '.join(loads)} |",
        f"| `bare_parse_all.py` | {med_min([r[0] for r in rows['bare']])} | "
        f"{max(r[1] for r in rows['bare']):.0f} / {max(r[2] for r in rows['bare']):.0f} | "
        f"{index_s / statistics.median(r[0] for r in rows['bare']):.1f}x (index / bare) | |",
        f"| catalogue on disk | {size / 1e6:,.0f} MB | | {size / history_bytes:.1%} of the history "
        f"(target < {TARGET_SHARE:.0%}) | MiB: {top} |",
    ]


def warm(root: Path, runs: int, report: dict[str, Any]) -> list[str]:
    """``index`` with nothing changed, whole process and in process."""
    catalogue = OUT / "scale" / f"catalogue-{root.parent.name}"
    if not (catalogue / "catalogue.sqlite3").is_file():
        run_sampled(index_cmd(root, catalogue))
    probe_argv = [sys.executable, str(BENCH / "catalogue_probe.py"), "refresh", "--catalogue", str(catalogue)]
    probe = Command("probe", "", [*probe_argv, str(root)], REPO, bench_env(), "ours")
    whole, cpu, inside, loads = [], [], [], []
    run_sampled(index_cmd(root, catalogue))
    for _ in range(runs):
        loads.append(load())
        sample, _peak, _out, _err = run_sampled(index_cmd(root, catalogue))
        whole.append(sample.wall_s)
        cpu.append(sample.cpu_s)
        _sample, _peak, out, _err = run_sampled(probe)
        inside.append(json.loads(out)["refresh_s"])
    report.update(warm_whole=whole, warm_cpu=cpu, warm_refresh=inside, warm_loads=loads)
    return [
        f"| warm `index`, whole process | {med_min(whole)} | | target < {TARGET_WARM_S} s;"
        f" CPU {med_min(cpu)} | {loads[0]} |",
        f"| warm `Catalogue.refresh`, in process | {med_min(inside)} | | | {loads[-1]} |",
    ]


def window(
    root: Path, seconds: float, report: dict[str, Any], extra: dict[str, str], warm: bool = False
) -> list[str]:
    """The window on the history with an empty catalogue: rows, answers, stalls, the status bar.

    ``warm``: on the catalogue the cold section built instead (the history fully listed at once).
    """
    what = "warm window" if warm else "window"
    with tempfile.TemporaryDirectory() as tmp:
        env = private_environment(Path(tmp), PYTHONPYCACHEPREFIX=str(OUT / "pycache" / REPO.name), **extra)
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        argv = [sys.executable, str(Path(__file__).resolve()), "--window-child", str(root)]
        catalogue = OUT / "scale" / f"catalogue-{root.parent.name}" if warm else Path(tmp) / "catalogue"
        argv += [str(catalogue), str(seconds)]
        at_load = load()
        argv.append(repr(time.perf_counter()))  # the machine's monotonic clock: the child's too
        sample, peak, out, err = run_sampled(Command("window", "", argv, REPO, env, "ours"))
    lines = [x for x in out.splitlines() if x.startswith("RESULT ")]
    if not lines:
        raise SystemExit(f"window child failed ({sample.status}): {err.strip()[-1500:]}")
    found = json.loads(lines[-1][7:])
    found.update(peak_mib=peak, load=at_load)
    report[what] = found
    rows = found.get("rows_at")
    said = "; ".join(f"{t:.1f} s: {m}" for t, m in found["status"][:3] + found["status"][-2:])
    answers = "; ".join(
        f"at {a['at']:.1f} s, {a['rows']:,} rows: {a['filter_s'] * 1e3:.0f} / {a['sort_s'] * 1e3:.0f} /"
        f" {a['select_s'] * 1e3:.0f} ms"
        for a in found["answers"]
    )
    return [
        f"| {what}: Popen to rows listed | {rows:.2f} s | {peak:.0f} (all processes) | "
        f"target < {TARGET_USABLE_S} s, {found.get('rows', 0)} rows then | {at_load} |"
        if rows is not None
        else f"| {what}: no rows within {seconds} s | | | | {at_load} |",
        f"| {what}: filter / sort / select | {answers} | | longest stall in {seconds:.0f} s:"
        f" {found['stall_s'] * 1e3:.0f} ms, {found['stalls_over_50ms']} over 50 ms | |",
        f"| {what}: status bar | {said} | | | |",
    ]


def window_child(root: str, catalogue: str, seconds: float, start: float) -> int:
    """In a fresh process: the window on ``root`` with a cold catalogue; print ``RESULT {json}``.

    Times are seconds from ``start``, the parent's ``perf_counter`` just before it started this process.
    """
    from PySide6.QtCore import Qt, QTimer
    from PySide6.QtWidgets import QApplication

    from gui.main_window import MainWindow

    app = QApplication([sys.argv[0]])
    window = MainWindow(roots=[Path(root)], catalogue_dir=Path(catalogue))
    window.show()
    result: dict[str, Any] = {"status": [], "stall_s": 0.0, "stalls_over_50ms": 0, "answers": []}
    result["window_at"] = time.perf_counter() - start
    last = [time.perf_counter()]

    def tick() -> None:
        now = time.perf_counter()
        gap = now - last[0] - 0.005
        result["stall_s"] = max(result["stall_s"], gap)
        result["stalls_over_50ms"] += gap > 0.05
        last[0] = now
        if "rows_at" not in result and window.list_model.rowCount() > 0:
            result["rows_at"] = now - start
            result["rows"] = window.list_model.rowCount()
            QTimer.singleShot(0, answer)
            for later in (3, 6, 10):  # and again while the build goes on, over more rows
                QTimer.singleShot(int(later * 1000), answer)

    def answer() -> None:
        # What a user does first with the list: narrow it, sort it, choose a row.
        found: dict[str, float] = {"at": time.perf_counter() - start, "rows": window.list_model.rowCount()}
        began = time.perf_counter()
        window.proxy.set_filter_text("a")
        app.processEvents()
        found["filter_s"] = time.perf_counter() - began
        window.proxy.set_filter_text("")
        began = time.perf_counter()
        window.table.sortByColumn(3, Qt.SortOrder.DescendingOrder)
        app.processEvents()
        found["sort_s"] = time.perf_counter() - began
        began = time.perf_counter()
        window.table.selectRow(0)
        app.processEvents()
        found["select_s"] = time.perf_counter() - began
        result["answers"].append(found)

    def status() -> None:
        message = window.statusBar().currentMessage()
        if not result["status"] or result["status"][-1][1] != message:
            result["status"].append((time.perf_counter() - start, message))

    def finish() -> None:
        status()
        result["rows_end"] = window.list_model.rowCount()
        print("RESULT " + json.dumps(result), flush=True)
        window.close()
        app.quit()

    ticker = QTimer()
    ticker.setTimerType(Qt.TimerType.PreciseTimer)
    ticker.timeout.connect(tick)
    ticker.start(5)
    sampler = QTimer()
    sampler.timeout.connect(status)
    sampler.start(250)
    window.catalogue.refresh_finished.connect(lambda _ok: QTimer.singleShot(500, finish))
    QTimer.singleShot(int(seconds * 1000), finish)
    app.exec()
    return 0


def huge(file: Path, runs: int, old: Path | None, report: dict[str, Any]) -> list[str]:
    """``index`` of a folder holding only ``file``, beside ``check`` and the bare parse of it."""
    folder = OUT / "scale" / "huge" / "sessions"
    folder.mkdir(parents=True, exist_ok=True)
    target = folder / file.name
    if not target.exists():
        os.link(file, target)
    catalogue = OUT / "scale" / "huge" / "catalogue"
    python = sys.executable
    commands = [index_cmd(folder, catalogue)]
    if old is not None:
        commands.append(index_cmd(folder, catalogue, old, key="index (before)"))
    check = [python, "-m", "core.cli", "check", str(target)]
    commands.append(Command("check", " ".join(check), check, REPO, bench_env(), "info"))
    bare = [python, str(BENCH / "bare_parse.py"), str(target)]
    commands.append(Command("bare", " ".join(bare), bare, REPO, bench_env(), "bare"))
    got: dict[str, list[tuple[float, float, float, str]]] = {c.key: [] for c in commands}
    for run in range(runs):
        for cmd in commands:
            shutil.rmtree(catalogue, ignore_errors=True)
            at = load()
            sample, peak, _out, _err = run_sampled(cmd)
            got[cmd.key].append((sample.wall_s, sample.maxrss_kib / 1024, peak, at))
            print(f"  huge {run + 1}/{runs} {cmd.key}: {sample.wall_s:.1f} s, {peak:.0f} MiB (load {at})")
    report["huge"] = {"file": str(file), "bytes": file.stat().st_size, "runs": got}
    return [
        f"| {key} | {med_min([r[0] for r in rows])} | {max(r[1] for r in rows):.0f} / "
        f"{max(r[2] for r in rows):.0f} | {'; '.join(r[3] for r in rows)} |"
        for key, rows in got.items()
    ]


def never_shared(report: dict[str, Any]) -> list[str]:
    """The catalogue of the templates the histories are copied from (no text shared), and FTS5 variants."""
    folders = sorted(str(p) for p in (OUT / "scale" / "history-templates").glob("*/sessions"))
    files = [f for folder in folders for f in Path(folder).rglob("*.jsonl")]
    total = sum(f.stat().st_size for f in files)
    catalogue = OUT / "scale" / "catalogue-templates"
    shutil.rmtree(catalogue, ignore_errors=True)
    argv = [sys.executable, "-m", "core.cli", "index", *folders, "--catalogue", str(catalogue)]
    run_sampled(Command("index-templates", "", argv, REPO, bench_env(), "ours"))
    size, tables = folder_bytes(catalogue), table_sizes(catalogue)
    argv = [sys.executable, str(Path(__file__).resolve()), "--fts-variants", *folders]
    _sample, _peak, out, err = run_sampled(Command("fts", "", argv, REPO, bench_env(), "info"))
    variants = json.loads(out) if out.strip() else {"error": err[-500:]}
    report["never_shared"] = {"bytes": total, "catalogue": size, "tables": tables, "fts": variants}
    top = ", ".join(f"{name} {b / 1e6:.1f}" for name, b in list(tables.items())[:6])
    fts = "; ".join(f"{k}: {v / 1e6:.1f} MB ({v / total:.1%})" for k, v in variants.items() if k != "error")
    return [
        f"| catalogue of text never shared ({len(files)} templates, {total / 1e6:.1f} MB) |"
        f" {size / 1e6:.1f} MB | | {size / total:.1%} of the sessions | MB: {top} |",
        f"| its FTS5 index alone, rebuilt with other `detail` options | {fts} | | | |",
    ]


def fts_variants(folders: list[str]) -> int:
    """In a child: the distinct texts of ``folders`` indexed by FTS5 with ``detail`` full, column and none.

    Prints ``{variant: bytes}`` (each in a fresh file, merged into one segment and vacuumed).
    """
    from core.catalogue.reading import read_whole
    from core.catalogue.schema import TOKENIZE

    texts: dict[int, str] = {}
    for folder in folders:
        for path in sorted(Path(folder).rglob("*.jsonl")):
            texts.update(read_whole(str(path), path.stat()).texts)
    sizes = {}
    with tempfile.TemporaryDirectory() as tmp:
        for detail in ("full", "column", "none"):
            name = Path(tmp) / f"{detail}.sqlite3"
            conn = sqlite3.connect(name, isolation_level=None)
            options = f"content='', tokenize='{TOKENIZE}', detail={detail}"
            conn.execute(f"CREATE VIRTUAL TABLE fts USING fts5(body, {options})")
            conn.execute("BEGIN")
            conn.executemany("INSERT INTO fts(rowid, body) VALUES (?, ?)", enumerate(texts.values(), 1))
            conn.execute("COMMIT")
            conn.execute("INSERT INTO fts(fts) VALUES ('optimize')")
            conn.execute("VACUUM")
            conn.close()
            sizes[f"detail={detail}"] = name.stat().st_size
    print(json.dumps(sizes))
    return 0


# ============================================================================================== main
def parse_args(argv: list[str] | None) -> argparse.Namespace:
    """The command line."""
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--sizes", nargs="+", default=["2000:500", "6000:1500", "20000:5000"], help="COUNT:MB")
    p.add_argument("--runs", type=int, default=3)
    p.add_argument("--only", default=",".join(SECTIONS), help=f"sections among {','.join(SECTIONS)}")
    p.add_argument("--window-seconds", type=float, default=12.0)
    p.add_argument("--env", nargs="*", default=[], help="KEY=VALUE for the window's process (a PRIME_ knob)")
    p.add_argument("--huge", type=Path, default=OUT / "size-chain-26.jsonl", help="one huge session")
    p.add_argument("--repo", type=Path, help="another checkout to time `index` of the huge file with")
    return p.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    """Run the sections; print Markdown tables and write ``<out>/scale/results.json``."""
    args = parse_args(argv)
    only = set(args.only.split(","))
    report: dict[str, Any] = {"load_start": load(), "sizes": {}}
    print(f"load average at start: {report['load_start']}")
    head = "| measurement | median (min) | peak RSS MiB (largest / all) | figure | load avg |\n"
    head += "|---" * 5 + "|"
    for spec in args.sizes if only & {"cold", "warm", "window"} else []:
        count, mb = (int(x) for x in spec.split(":"))
        root, manifest = ensure_history(count, mb)
        total = int(manifest["totalBytes"])
        print(f"\n### {count:,} sessions, {total / 1e9:.2f} GB ({root})", flush=True)
        part: dict[str, Any] = {"bytes": total, "files": count}
        lines = []
        if "cold" in only:
            lines += cold(root, total, args.runs, part)
        if "warm" in only:
            lines += warm(root, max(3, args.runs), part)
        if "window" in only:
            extra = dict(x.split("=", 1) for x in args.env)
            lines += window(root, args.window_seconds, part, extra)
            if (OUT / "scale" / f"catalogue-{root.parent.name}" / "catalogue.sqlite3").is_file():
                lines += window(root, 8.0, part, extra, warm=True)
        report["sizes"][spec] = part
        print(head + "\n" + "\n".join(lines), flush=True)
    if "cold" in only:
        print("\n### text never shared", flush=True)
        print(head + "\n" + "\n".join(never_shared(report)), flush=True)
    if "huge" in only:
        file = args.huge if args.huge.exists() else Path("/work/main/benchmarks/out") / args.huge.name
        print(f"\n### one session of {file.stat().st_size / 1e6:,.0f} MB ({file})", flush=True)
        lines = huge(file, args.runs, args.repo, report)
        print("| command | median (min) | peak RSS MiB (largest / all) | load avg per run |")
        print("|---" * 4 + "|")
        print("\n".join(lines), flush=True)
    report["load_end"] = load()
    print(f"\nload average at the end: {report['load_end']}")
    (OUT / "scale").mkdir(parents=True, exist_ok=True)
    (OUT / "scale" / "results.json").write_text(json.dumps(report, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--fts-variants":
        sys.exit(fts_variants(sys.argv[2:]))
    if len(sys.argv) > 1 and sys.argv[1] == "--window-child":
        sys.exit(window_child(sys.argv[2], sys.argv[3], float(sys.argv[4]), float(sys.argv[5])))
    sys.exit(main())
