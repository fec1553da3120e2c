"""Issue 27's leftovers, measured: what the usage worker reads back after a load; the notes after an append.

``usage FILE``: loads FILE as the window's load worker does, then runs the window's session-usage worker
(:func:`gui.controllers.usage.session_usage`: each subtree's usage and the current path against the
abandoned branches) and counts the lines it reads back from the file (``Session.raw_lines``,
``Session.bodies``) and their bytes, with its time.

``notes FILE``: copies FILE to a temporary file, loads it and gathers its notes (context edits, child runs:
:func:`core.kinds.notes.session_notes`), then times a full pass (``SessionNotes(session)``, what every
append cost before) against the notes brought up to date after appending one entry (five times each).

Usage::

    python benchmarks/leftovers_27.py usage benchmarks/out/size-chain-26.jsonl
    python benchmarks/leftovers_27.py notes benchmarks/out/size-chain-26.jsonl
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
import time
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))


def usage(path: Path) -> dict[str, Any]:
    from core.session import Session, load_session
    from gui.controllers.usage import session_usage

    started = time.perf_counter()
    session = load_session(path)
    session.tree  # noqa: B018 (the load worker builds it for the branch tree)
    loaded = time.perf_counter() - started
    read = {"lines": 0, "bytes": 0}
    raw_lines, bodies = Session.raw_lines, Session.bodies

    def counted(entries: Iterable[Any]) -> list[Any]:
        items = list(entries)
        read["lines"] += len(items)
        read["bytes"] += sum(e.length for e in items if not isinstance(e, str))
        return items

    def counted_raw(self: Session, entries: Iterable[Any]) -> Iterator[bytes]:
        return raw_lines(self, counted(entries))

    def counted_bodies(self: Session, entries: Iterable[Any], *, fold: bool = True) -> Iterator[Any]:
        return bodies(self, counted(entries), fold=fold)

    Session.raw_lines = counted_raw  # type: ignore[method-assign]
    Session.bodies = counted_bodies  # type: ignore[method-assign]
    started = time.perf_counter()
    found = session_usage(session)
    took = time.perf_counter() - started
    return {
        "file": path.name,
        "entries": len(session.entries),
        "load_s": round(loaded, 2),
        "session_usage_s": round(took, 2),
        "lines_read_back": read["lines"],
        "mb_read_back": round(read["bytes"] / 1e6, 1),
        "current": found.current,
        "abandoned": found.abandoned,
    }


def notes(path: Path) -> dict[str, Any]:
    from core.kinds.notes import SessionNotes, session_notes
    from core.session import load_session

    with tempfile.TemporaryDirectory() as folder:
        copy = Path(folder) / path.name
        shutil.copyfile(path, copy)
        session = load_session(copy)
        session_notes(session)
        full = []
        for _ in range(5):
            started = time.perf_counter()
            SessionNotes(session)
            full.append(time.perf_counter() - started)
        grown = []
        for i in range(5):
            entry = {
                "type": "message",
                "id": f"live{i:04d}",
                "parentId": session.leaf_id,
                "timestamp": "2026-03-02T10:00:00.000Z",
                "message": {"role": "user", "content": "x"},
            }
            with open(copy, "ab") as handle:
                handle.write(json.dumps(entry).encode() + b"\n")
            session.refresh()
            started = time.perf_counter()
            session_notes(session)
            grown.append(time.perf_counter() - started)
    return {
        "file": path.name,
        "entries": len(session.entries),
        "full_pass_ms": [round(min(full) * 1000, 2), round(max(full) * 1000, 2)],
        "after_an_append_ms": [round(min(grown) * 1000, 3), round(max(grown) * 1000, 3)],
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("what", choices=("usage", "notes"))
    parser.add_argument("file", type=Path)
    args = parser.parse_args()
    print(json.dumps(usage(args.file) if args.what == "usage" else notes(args.file)))
    return 0


if __name__ == "__main__":
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    raise SystemExit(main())
