"""Opening two sessions by turns in one window: memory after each open, and the longest GUI-thread stall.

Issue 27's third leftover: the open-session load froze everything alive (``gc.freeze()``) right after
unfreezing what an earlier load froze, so the garbage cycles an earlier session left, not yet collected,
went into the permanent generation for good. This opens session A, then B, then A, ... (``--opens``
times, default 10) in one offscreen window and prints, after each open has settled (the leaf shown and
the session's usage worked out), the resident set (``VmRSS``), the objects frozen
(``gc.get_freeze_count()``), how many of the sessions opened so far are still alive (weak references to
the ``Session`` objects), the longest gap of a 5 ms timer from the open to then, minus the interval, and
the longest garbage collection on the GUI thread in that time (``gc.callbacks``), with its generation.
With ``ALTERNATE_GARBAGE=1`` it ends by unfreezing and collecting, and prints what the permanent
generation held that was garbage.

Usage::

    python benchmarks/alternate_opens.py A.jsonl B.jsonl [--opens 10]
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import sys
import tempfile
import threading
import time
import weakref
from collections import Counter
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
TICK_MS = 5
SETTLE_MS = int(os.environ.get("ALTERNATE_SETTLE_MS", "1500"))


def _rss_mb() -> float:
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return 0.0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("a", type=Path)
    parser.add_argument("b", type=Path)
    parser.add_argument("--opens", type=int, default=10)
    args = parser.parse_args()

    from PySide6.QtCore import Qt, QTimer
    from PySide6.QtWidgets import QApplication

    from gui.main_window import MainWindow

    app = QApplication([sys.argv[0]])

    def failed(*error: Any) -> None:  # an exception in a slot: say so and end, rather than wait forever
        sys.__excepthook__(*error)
        app.exit(1)

    sys.excepthook = failed
    empty = Path(tempfile.mkdtemp(prefix="alternate-"))
    window = MainWindow(roots=[empty], catalogue_dir=empty / "catalogue")
    before_load: list[float] = []  # seconds of the collection made as each load is asked for, if any
    before_load_cpu: list[float] = []  # and of the GUI thread's processor time in it (others' load aside)
    scheduler = window.context.scheduler
    collect_garbage = getattr(scheduler, "collect_garbage", None)
    if collect_garbage is not None:

        def timed(frozen_too: bool) -> None:
            if os.environ.get("ALTERNATE_UNFROZEN"):
                counts = [len(gc.get_objects(g)) for g in range(3)]
                print("BEFORE LOAD", counts, gc.get_freeze_count(), flush=True)
            start, cpu = time.perf_counter(), time.thread_time()
            collect_garbage(frozen_too)
            before_load.append(time.perf_counter() - start)
            before_load_cpu.append(time.thread_time() - cpu)

        scheduler.collect_garbage = timed  # type: ignore[method-assign]
    window.show()
    gaps: list[float] = []
    last = [time.perf_counter()]

    def tick() -> None:
        now = time.perf_counter()
        gaps.append(now - last[0])
        last[0] = now

    timer = QTimer()
    timer.setTimerType(Qt.TimerType.PreciseTimer)
    timer.setInterval(TICK_MS)
    timer.timeout.connect(tick)
    collections: list[tuple[float, int]] = []  # (seconds, generation) of each GUI-thread collection
    started = [0.0]
    main_thread = threading.main_thread()

    def on_gc(phase: str, info: dict[str, int]) -> None:
        if threading.current_thread() is not main_thread:
            return
        if phase == "start":
            started[0] = time.perf_counter()
        else:
            collections.append((time.perf_counter() - started[0], info["generation"]))

    gc.callbacks.append(on_gc)
    alive: list[weakref.ref[Any]] = []
    rows: list[dict[str, Any]] = []
    order = [args.a if i % 2 == 0 else args.b for i in range(args.opens)]
    state = {"i": 0, "loaded": False, "usage": False, "t0": 0.0}

    def begin() -> None:
        if state["i"] == len(order):
            if os.environ.get("ALTERNATE_GARBAGE"):  # what the permanent generation kept that is garbage
                gc.unfreeze()
                gc.set_debug(gc.DEBUG_SAVEALL)
                found = gc.collect()
                kinds = Counter(type(o).__qualname__ for o in gc.garbage)
                print("GARBAGE", found, kinds.most_common(12), flush=True)
                gc.set_debug(0)
                gc.garbage.clear()
            window.close()
            app.quit()
            return
        state.update(loaded=False, usage=False, t0=time.perf_counter())
        gaps.clear()
        collections.clear()
        before_load.clear()
        before_load_cpu.clear()
        last[0] = time.perf_counter()
        timer.start()
        window.opened.open(str(order[state["i"]]))

    def settled() -> None:
        if not (state["loaded"] and state["usage"]):
            return
        # The collection timer and the posted work of the open have run by then; the scheduler lets a
        # finished job (and what it holds: the session it read) go a second after it ended.
        QTimer.singleShot(SETTLE_MS, finish)

    def finish() -> None:
        tick()
        timer.stop()
        session = window.opened.session
        live = sum(1 for ref in alive if ref() is not None)
        row = {
            "open": state["i"] + 1,
            "file": order[state["i"]].name,
            "entries": len(session.entries) if session is not None else 0,
            "seconds": round(time.perf_counter() - state["t0"], 2),
            "rss_mb": round(_rss_mb()),
            "frozen": gc.get_freeze_count(),
            "sessions_alive": live,
            "stall_ms": round(max(0.0, max(gaps) - TICK_MS / 1000) * 1000, 1),
            "longest_gc_ms": round(max(collections, default=(0.0, 0))[0] * 1000, 1),
            "longest_gc_generation": max(collections, default=(0.0, -1))[1],
            "gc_ms": round(sum(s for s, _g in collections) * 1000, 1),
            "collect_before_load_ms": round(sum(before_load) * 1000, 1) if before_load else None,
            "collect_before_load_cpu_ms": round(sum(before_load_cpu) * 1000, 1) if before_load else None,
        }
        if os.environ.get("ALTERNATE_UNFROZEN"):  # what a collection before the next load walks
            unfrozen = Counter(type(o).__qualname__ for o in gc.get_objects())
            row["unfrozen"] = sum(unfrozen.values())
            row["unfrozen_kinds"] = unfrozen.most_common(8)
        rows.append(row)
        print(json.dumps(row), flush=True)
        state["i"] += 1
        QTimer.singleShot(0, begin)

    def on_loaded(session: object) -> None:
        alive.append(weakref.ref(session))
        state["loaded"] = True
        settled()

    def on_usage(_usage: object) -> None:
        state["usage"] = True
        settled()

    window.context.session_loaded.connect(on_loaded)
    window.usage.session_usage_shown.connect(on_usage)
    QTimer.singleShot(500, begin)
    return app.exec()


if __name__ == "__main__":
    raise SystemExit(main())
