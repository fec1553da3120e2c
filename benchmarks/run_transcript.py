"""Transcript benchmark (issue 25): the 50,000-message session and the 1 GB session read as a conversation.

Every measurement runs in a fresh child process (offscreen, a private home), side by side with the window
before the transcript (``--base DIR``: a checkout of an earlier commit, whose message pane showed one entry):

a. ``after tree``: from the tree shown (``session_loaded``) to the transcript shown at the leaf (cards in
   the document, the reader's place at the last turn); target under 0.5 s.
b. Page Up held from the leaf to the root: a key event every 33 ms (a keyboard's repeat rate) posted to
   the transcript; the longest gap of the event loop, measured with a 5 ms ``QTimer`` (gap minus the
   interval), and how many gaps were over 50 ms; target: none. ``--pageup-seconds`` caps the run (the
   50,000-message path is about 9,000 screens).
c. Ctrl+Home from the leaf: from the key event to the first card painted; target under 200 ms.
d. Memory: RSS with the session open at its leaf, and after the Page Up run, against the earlier window's
   RSS with the same session open; target: at most 60 MB more.

The 50,000-message session is ``run_core.py``'s 20,000-message session (written by the reference's own
writer) chained three times (``size_scaling.py``) and cut after its 50,000th message; the 1 GB session is
that session chained 26 times (``size_scaling.py``'s largest).

Usage::

    python benchmarks/run_transcript.py [--base /path/to/old/checkout] [--runs 3] [--skip-gb]
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
OUT = REPO / "benchmarks" / "out"
if "--child" not in sys.argv:  # a child imports the GUI of the checkout it runs in (PYTHONPATH)
    sys.path.insert(0, str(REPO))
    sys.path.insert(0, str(REPO / "benchmarks"))

MESSAGES = 50_000
KEY_INTERVAL_MS = 33
TICK_MS = 5
STALL_S = 0.050
CHILD_TIMEOUT_S = 1500


def _rss_mib() -> float:
    """The current resident set of this process, MiB (from /proc: the peak would hide what was let go)."""
    with open("/proc/self/statm") as handle:
        pages = int(handle.read().split()[1])
    return pages * os.sysconf("SC_PAGE_SIZE") / 2**20


# ============================================================================================== child
def child(target: str, empty: str, catalogue: str, pageup_seconds: float, transcript: bool) -> int:
    """One window on ``target``: print ``RESULT {json}`` (see the module docstring for what is measured)."""
    from PySide6.QtCore import QEvent, Qt, QTimer
    from PySide6.QtGui import QKeyEvent
    from PySide6.QtWidgets import QApplication

    from gui.main_window import MainWindow

    app = QApplication([sys.argv[0]])
    window = MainWindow(roots=[Path(empty)], catalogue_dir=Path(catalogue))
    window.resize(1600, 1000)
    window.show()
    result: dict[str, Any] = {}
    gaps: list[float] = []
    last = [0.0]

    def tick() -> None:
        now = time.perf_counter()
        if last[0]:
            gaps.append(now - last[0] - TICK_MS / 1000)
        last[0] = now

    ticker = QTimer()
    ticker.setInterval(TICK_MS)
    ticker.timeout.connect(tick)

    def finish() -> None:
        result["peak_rss_mib"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        print("RESULT " + json.dumps(result), flush=True)
        window.close()
        app.quit()

    def shown() -> bool:
        if not transcript:
            return window.opened.session is not None
        view = window.transcript
        return view.card_source is not None and bool(view.rendered_slots)

    def wait_shown() -> None:
        if not shown():
            QTimer.singleShot(1, wait_shown)
            return
        app.processEvents()  # painted
        result["after_tree_s"] = time.perf_counter() - result.pop("_tree")
        QTimer.singleShot(500, idle)

    def idle() -> None:  # both windows compared with their background passes done (usage, previews)
        if window.runner.busy:
            QTimer.singleShot(50, idle)
            return
        gc.collect()
        QTimer.singleShot(500, settled)

    def loaded(_session: object) -> None:
        result["_tree"] = time.perf_counter()
        result["entries"] = len(window.opened.session.entries) if window.opened.session else 0
        wait_shown()

    def settled() -> None:
        result["rss_open_mib"] = _rss_mib()
        if not transcript:
            finish()
            return
        view = window.transcript
        result["slots"] = len(view.card_source) if view.card_source is not None else 0
        result["start_slot"] = view.reading_slot()
        view.setFocus()
        page_up(view)

    def page_up(view: Any) -> None:
        gaps.clear()
        last[0] = 0.0
        ticker.start()
        deadline = time.perf_counter() + pageup_seconds
        sent = [0]
        began = time.perf_counter()

        def press() -> None:
            reading = view.reading_slot()
            at_root = reading == 0 and view.verticalScrollBar().value() == 0
            if at_root or time.perf_counter() > deadline:
                ticker.stop()
                result["pageup_s"] = time.perf_counter() - began
                result["pageup_events"] = sent[0]
                result["end_slot"] = reading
                result["max_gap_ms"] = max(gaps, default=0.0) * 1000
                result["gaps_over_50ms"] = sum(1 for g in gaps if g > STALL_S)
                result["p99_gap_ms"] = sorted(gaps)[int(len(gaps) * 0.99)] * 1000 if gaps else 0.0
                gc.collect()
                result["rss_after_pageup_mib"] = _rss_mib()
                QTimer.singleShot(200, lambda: home(view))
                return
            app.postEvent(
                view, QKeyEvent(QEvent.Type.KeyPress, Qt.Key.Key_PageUp, Qt.KeyboardModifier.NoModifier)
            )
            sent[0] += 1
            QTimer.singleShot(KEY_INTERVAL_MS, press)

        press()

    def home(view: Any) -> None:
        view.go_end()
        app.processEvents()
        began = time.perf_counter()
        app.sendEvent(
            view, QKeyEvent(QEvent.Type.KeyPress, Qt.Key.Key_Home, Qt.KeyboardModifier.ControlModifier)
        )
        view.viewport().repaint()  # painted now, not at the next turn
        result["ctrl_home_s"] = time.perf_counter() - began
        result["home_slot"] = view.reading_slot()
        finish()

    window.context.session_loaded.connect(loaded)
    QTimer.singleShot(0, lambda: window.files.open_path(Path(target)))
    QTimer.singleShot(CHILD_TIMEOUT_S * 1000, app.quit)
    app.exec()
    return 0


# ============================================================================================= parent
def fifty_thousand(base: Path) -> Path:
    """The 50,000-message session: ``base`` chained three times, cut after its 50,000th message."""
    from size_scaling import chained

    target = OUT / f"transcript-{MESSAGES}.jsonl"
    if target.exists():
        return target
    chain = chained(base, 3)
    count = 0
    with open(chain, "rb") as source, open(target.with_suffix(".tmp"), "wb") as out:
        for number, line in enumerate(source):
            if number and b'"type":"message"' in line[:40]:
                count += 1
                if count > MESSAGES:
                    break
            out.write(line)
    target.with_suffix(".tmp").replace(target)
    return target


def run_child(code: Path, target: Path, seconds: float, transcript: bool) -> dict[str, Any]:
    """One child on ``target`` with the GUI of checkout ``code``, Page Up held for at most ``seconds``."""
    from tests.helpers import private_environment

    with tempfile.TemporaryDirectory() as tmp:
        empty = Path(tmp) / "empty"
        empty.mkdir()
        env = private_environment(Path(tmp) / "home")
        env.update(QT_QPA_PLATFORM="offscreen", PYTHONPATH=str(code), PYTHONDONTWRITEBYTECODE="1")
        argv = [sys.executable, str(Path(__file__).resolve()), "--child", str(target), str(empty)]
        argv += [str(Path(tmp) / "catalogue"), str(seconds), "1" if transcript else "0"]
        done = subprocess.run(
            argv, cwd=code, env=env, capture_output=True, text=True, timeout=CHILD_TIMEOUT_S
        )
    line = next((x for x in done.stdout.splitlines() if x.startswith("RESULT ")), None)
    if line is None:
        raise SystemExit(f"child failed on {target.name}: {(done.stdout + done.stderr)[-600:]}")
    return json.loads(line[len("RESULT ") :])


def median(rows: list[dict[str, Any]], key: str) -> float:
    return statistics.median(float(r[key]) for r in rows if key in r)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--base", type=Path, help="a checkout of the window before the transcript")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--pageup-seconds", type=float, default=1200.0)
    parser.add_argument(
        "--gb-pageup-seconds",
        type=float,
        default=60.0,
        help="Page Up on the 1 GB session (its path is about 26 times the 50,000-message one's)",
    )
    parser.add_argument("--skip-gb", action="store_true", help="only the 50,000-message session")
    parser.add_argument("--child", nargs=5, metavar=("FILE", "EMPTY", "CATALOGUE", "SECONDS", "TRANSCRIPT"))
    args = parser.parse_args(argv)
    if args.child:
        target, empty, catalogue, seconds, transcript = args.child
        return child(target, empty, catalogue, float(seconds), transcript == "1")
    from run_core import ensure_session, prepare_oracle
    from size_scaling import chained

    OUT.mkdir(parents=True, exist_ok=True)
    base, _meta = ensure_session(prepare_oracle(OUT), OUT, "node", 20_000, 0)  # run_core.py's, made once
    sessions = [fifty_thousand(base)]
    if not args.skip_gb:
        sessions.append(chained(base, 26))
    lines = ["| session | measure | transcript | before | target |", "|---|---|---|---|---|"]
    for number, target in enumerate(sessions):
        seconds = args.pageup_seconds if number == 0 else args.gb_pageup_seconds
        ours = [run_child(REPO, target, seconds, transcript=True) for _ in range(args.runs)]
        before = (
            [run_child(args.base, target, seconds, transcript=False) for _ in range(args.runs)]
            if args.base
            else []
        )
        size = target.stat().st_size / 1e6
        name = f"{size:,.0f} MB, {ours[0]['entries']:,} entries, path of {ours[0]['slots']:,} slots"
        old_rss = median(before, "rss_open_mib") if before else float("nan")
        rows = [
            (
                "transcript shown after the tree (s)",
                median(ours, "after_tree_s"),
                median(before, "after_tree_s") if before else float("nan"),
                "< 0.5",
            ),
            ("Page Up held: longest stall (ms)", max(r["max_gap_ms"] for r in ours), float("nan"), "< 50"),
            ("Page Up held: stalls over 50 ms", max(r["gaps_over_50ms"] for r in ours), float("nan"), "0"),
            ("Page Up held: p99 gap (ms)", median(ours, "p99_gap_ms"), float("nan"), ""),
            (
                "Page Up held: cards passed / seconds",
                median(ours, "start_slot") - median(ours, "end_slot"),
                median(ours, "pageup_s"),
                "to the root",
            ),
            ("Ctrl+Home (ms)", median(ours, "ctrl_home_s") * 1000, float("nan"), "< 200"),
            ("RSS open at the leaf (MiB)", median(ours, "rss_open_mib"), old_rss, "<= before + 60"),
            (
                "RSS after Page Up to the root (MiB)",
                median(ours, "rss_after_pageup_mib"),
                old_rss,
                "<= before + 60",
            ),
        ]
        for measure, value, old, goal in rows:
            lines.append(f"| {name} | {measure} | {value:,.2f} | {old:,.2f} | {goal} |")
        (OUT / f"transcript-{target.stem}.json").write_text(
            json.dumps({"ours": ours, "before": before}, indent=1)
        )
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
