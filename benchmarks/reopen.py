"""Reopening a gigabyte session (issue 27): from the catalogue's snapshot against reading the file.

For one session file (default: ``size_scaling.py``'s largest, the 20,000-message session chained 26
times, 978 MB), in one run, each command a fresh process (offscreen, a private home):

1. ``index``: ``prime-sessions index ROOT --catalogue DIR`` on a folder holding only that file, cold: the
   catalogue's reader process parses it and writes its snapshot (wall, peak RSS of the largest process).
2. ``reopen``: the window started on that folder and catalogue, opening the file: seconds from the open to
   the tree at the leaf (``session_loaded``) and to the transcript's cards shown, the longest GUI-thread
   stall over that time (a 5 ms timer's longest gap, less 5 ms), the window's peak RSS. Then one message
   appended to the file as an agent appends it: seconds until the tree and the transcript end at it, and the
   longest stall over that time.
3. ``file``: the same with the snapshot moved away: the file parsed, split across processes from 64 MiB
   (``core.session.parallel``); ``file, one process``: parsed in the window's process alone, as before.
4. For scale, in the same run: the bare parse (``bare_parse.py``: read, ``orjson.loads`` every line, keep
   nothing) and pi 1.6.0 (``PI_REF=latest node open-once.mjs FILE``).

Usage::

    python benchmarks/reopen.py [--session FILE] [--runs 3] [--no-pi]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
OUT = REPO / "benchmarks" / "out"
if "--child" not in sys.argv:
    sys.path.insert(0, str(REPO))
    sys.path.insert(0, str(REPO / "benchmarks"))

TICK_MS = 5
TIMEOUT_MS = 300_000


# ============================================================================================== child
def child(root: str, catalogue: str, target: str) -> int:
    """One window: open ``target``, print ``RESULT {json}`` (tree and cards seconds, stall, peak RSS)."""
    from PySide6.QtCore import QTimer
    from PySide6.QtWidgets import QApplication

    from gui.main_window import MainWindow

    app = QApplication([sys.argv[0]])
    window = MainWindow(roots=[Path(root)], catalogue_dir=Path(catalogue))
    window.resize(1600, 1000)
    window.show()
    result: dict[str, Any] = {}
    started, last, stall = [0.0], [0.0], [0.0]

    def tick() -> None:
        now = time.perf_counter()
        if started[0]:
            stall[0] = max(stall[0], now - last[0] - TICK_MS / 1000)
        last[0] = now

    ticker = QTimer()
    ticker.setInterval(TICK_MS)
    ticker.timeout.connect(tick)

    def loaded(_session: object) -> None:
        result["tree_s"] = time.perf_counter() - started[0]
        session = window.opened.session
        result["entries"] = len(session.entries) if session is not None else 0
        wait_cards()

    def wait_cards() -> None:
        view = window.transcript
        if view.card_source is None or not view.rendered_slots:
            QTimer.singleShot(1, wait_cards)
            return
        app.processEvents()  # painted
        tick()
        result["cards_s"] = time.perf_counter() - started[0]
        result["stall_ms"] = stall[0] * 1000
        result["peak_rss_mib"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        QTimer.singleShot(1000, append)

    def append() -> None:  # the agent writes one more message: the tree and the transcript follow it
        session = window.opened.session
        line = {
            "type": "message",
            "id": "reopen01",
            "parentId": session.leaf_id if session is not None else None,
            "timestamp": "2026-12-06T00:00:00.000Z",
            "message": {"role": "user", "content": "One more thing", "timestamp": 1796515200000},
        }
        stall[0] = 0.0
        started[0] = last[0] = time.perf_counter()
        with open(target, "ab") as handle:
            handle.write(json.dumps(line).encode() + b"\n")
        wait_append()

    def wait_append() -> None:
        session, view = window.opened.session, window.transcript
        source = view.card_source
        if session is None or session.leaf_id != "reopen01" or source is None or len(source) == 0:
            QTimer.singleShot(1, wait_append)
            return
        if source.transcript.leaf_id != "reopen01":  # type: ignore[attr-defined]
            QTimer.singleShot(1, wait_append)
            return
        app.processEvents()
        tick()
        result["append_s"] = time.perf_counter() - started[0]
        result["append_stall_ms"] = stall[0] * 1000
        print("RESULT " + json.dumps(result), flush=True)
        window.close()
        app.quit()

    def open_it() -> None:
        started[0] = last[0] = time.perf_counter()
        ticker.start()
        window.files.open_path(Path(target))

    window.context.session_loaded.connect(loaded)
    QTimer.singleShot(300, open_it)  # after the catalogue's first (warm) pass has started
    QTimer.singleShot(TIMEOUT_MS, app.quit)
    app.exec()
    return 0


# ============================================================================================= parent
def window(root: Path, catalogue: Path, target: Path, env: dict[str, str]) -> dict[str, Any]:
    """One window child's result, with its whole-process wall time and peak RSS."""
    from image_heavy import run

    argv = [sys.executable, str(Path(__file__).resolve()), "--child", str(root), str(catalogue), str(target)]
    wall, rss, text = run(argv, {**env, "PYTHONPATH": str(REPO)})
    line = next((x for x in text.splitlines() if x.startswith("RESULT ")), None)
    found: dict[str, Any] = json.loads(line[7:]) if line else {"failed": text[-2000:]}
    found["process_s"], found["process_peak_mib"] = wall, rss
    return found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--session", type=Path, default=OUT / "size-chain-26.jsonl")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--no-pi", action="store_true")
    args = parser.parse_args(argv)
    from image_heavy import run
    from run_core import prepare_oracle

    from core.catalogue.snapshots import snapshot_file
    from tests.helpers import private_environment

    rows: dict[str, list[tuple[float, ...]]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "sessions"
        root.mkdir()
        target = root / args.session.name
        shutil.copyfile(args.session, target)  # a copy: each window appends a line to it
        written = target.stat()
        catalogue = Path(tmp) / "catalogue"
        env = private_environment(Path(tmp) / "home")
        env["QT_QPA_PLATFORM"] = "offscreen"
        cli = [sys.executable, "-m", "core.cli"]
        wall, rss, _ = run([*cli, "index", str(root), "--catalogue", str(catalogue)], env)
        snapshot = snapshot_file(catalogue, str(target))
        print(f"index (cold, snapshot written): {wall:.2f} s, {rss:,.0f} MiB;", end=" ")
        print(f"snapshot {snapshot.stat().st_size / 2**20:,.0f} MiB" if snapshot.exists() else "NO SNAPSHOT")
        aside = snapshot.with_suffix(".aside")
        oracle = None if args.no_pi else prepare_oracle(OUT / "oracle")
        for number in range(args.runs):
            for route in ("reopen", "file", "file, one process"):
                parsing = route != "reopen"
                if parsing:
                    snapshot.replace(aside)
                try:
                    one = {"PRIME_SESSIONS_PARSERS": "0"} if route == "file, one process" else {}
                    found = window(root, catalogue, target, {**env, **one})
                finally:
                    if parsing:
                        aside.replace(snapshot)
                    # Back to what was catalogued (size and time), so the snapshot holds for the next run.
                    os.truncate(target, written.st_size)
                    os.utime(target, ns=(written.st_atime_ns, written.st_mtime_ns))
                print(f"run {number + 1} {route}: {found}", flush=True)
                rows.setdefault(route, []).append(
                    (
                        found.get("tree_s", float("nan")),
                        found.get("cards_s", float("nan")),
                        found.get("stall_ms", float("nan")),
                        found["process_peak_mib"],
                        found.get("append_s", float("nan")),
                        found.get("append_stall_ms", float("nan")),
                    )
                )
            wall, rss, _ = run([sys.executable, str(REPO / "benchmarks" / "bare_parse.py"), str(target)])
            nan = float("nan")
            rows.setdefault("bare parse", []).append((wall, wall, nan, rss, nan, nan))
            if oracle is not None:
                pienv = {**os.environ, "PI_REF": "latest"}
                wall, rss, _ = run(["node", str(oracle / "open-once.mjs"), str(target)], pienv)
                rows.setdefault("pi 1.6.0 open", []).append((wall, wall, nan, rss, nan, nan))
    print()
    print(f"{args.session.name}, {args.session.stat().st_size / 1e6:,.0f} MB, {args.runs} runs each")
    print()
    print(
        "| route | tree at the leaf s | cards shown s | longest stall ms | peak RSS MiB"
        " | an append shown s | its longest stall ms |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|")
    for route, samples in rows.items():
        wide = (0, 1, 4)  # seconds; the others are whole ms and MiB
        cells = [
            " / ".join(f"{s[i]:,.2f}" if i in wide else f"{s[i]:,.0f}" for s in samples) for i in range(6)
        ]
        print(f"| {route} | {' | '.join(cells)} |")
    medians = {route: statistics.median(s[1] for s in samples) for route, samples in rows.items()}
    print()
    print("medians (cards shown, or the whole process):", {k: round(v, 2) for k, v in medians.items()})
    return 0


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--child":
        sys.exit(child(sys.argv[2], sys.argv[3], sys.argv[4]))
    sys.exit(main())
