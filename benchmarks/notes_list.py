"""The session list with notes (archive, pin, tags): what each change costs the GUI thread, offscreen.

A list of 20,000 sessions (``SessionListModel`` under its ``SessionFilterProxy``, sorted by date, as the
window has them) is given the notes of 8,134 of them (2,000 archived, 200 pinned, 6,667 tagged), then
filtered and changed the way a user does. Each figure is the time the GUI thread spends in one call (the
model's signals and the proxy's filtering included), the median of ``--runs`` fresh processes (start-up
and imports are not in these figures; nothing here reads a file). The figures are in benchmarks/README.md
("The session list with notes").

Usage::

    python benchmarks/notes_list.py [--runs 5] [--rows 20000]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def child(rows: int) -> dict[str, float]:
    """One process: the steps in order, each timed once."""
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    sys.path.insert(0, str(REPO))
    from PySide6.QtCore import Qt
    from PySide6.QtWidgets import QApplication

    from core.notes.note import Note
    from core.session.summary import SessionSummary
    from gui.models.session_filter_proxy import SessionFilterProxy
    from gui.models.session_list_model import SessionListModel

    app = QApplication([])
    summaries = [
        SessionSummary(
            f"/s/{n:05d}.jsonl", f"id{n:05d}", "/home/dev/p", None, None, None,
            f"2026-01-01T00:{n % 60:02d}:00Z", n, f"message {n}",
        )
        for n in range(rows)
    ]  # fmt: skip
    model = SessionListModel(summaries)
    proxy = SessionFilterProxy()
    proxy.setSourceModel(model)
    model.sort(2, Qt.SortOrder.DescendingOrder)
    notes = {
        f"id{n:05d}": Note(
            f"id{n:05d}", archived=n % 10 == 0, pinned=n % 100 == 1, tags=("t",) * (n % 3 == 0)
        )
        for n in range(rows)
    }
    notes = {key: note for key, note in notes.items() if not note.empty}
    one_more = {**notes, "id00005": Note("id00005", archived=True)}
    steps = {
        "filter 'message 1', no notes": lambda: proxy.set_filter_text("message 1"),
        "filter cleared, no notes": lambda: proxy.set_filter_text(""),
        "notes first shown": lambda: model.set_notes(notes),
        "the same notes read again": lambda: model.set_notes(dict(notes)),
        "filter 'message 1', archived hidden": lambda: proxy.set_filter_text("message 1"),
        "filter cleared, archived hidden": lambda: proxy.set_filter_text(""),
        "filter tag:t": lambda: proxy.set_filter_text("tag:t"),
        "filter cleared again": lambda: proxy.set_filter_text(""),
        "archive one more session": lambda: model.set_notes(one_more),
        "show archived": lambda: proxy.set_show_archived(True),
        "sort by cost, pins first": lambda: model.sort(5, Qt.SortOrder.DescendingOrder),
    }
    result = {}
    for name, step in steps.items():
        start = time.perf_counter()
        step()
        result[name] = (time.perf_counter() - start) * 1000
    del app
    return result


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--rows", type=int, default=20_000)
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print("RESULT " + json.dumps(child(args.rows)))
        return 0
    runs: list[dict[str, float]] = []
    for _ in range(args.runs):
        done = subprocess.run(
            [sys.executable, __file__, "--child", "--rows", str(args.rows)],
            capture_output=True, text=True, check=True, cwd=REPO,
        )  # fmt: skip
        line = next(x for x in done.stdout.splitlines() if x.startswith("RESULT "))
        runs.append(json.loads(line.removeprefix("RESULT ")))
    print(f"{args.rows:,} sessions, median of {args.runs} processes (ms on the GUI thread):")
    for name in runs[0]:
        print(f"  {name:<40} {statistics.median(r[name] for r in runs):8.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
