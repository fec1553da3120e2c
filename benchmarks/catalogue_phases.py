"""Where a cold catalogue build's time goes, by phase (issue 27): cProfile's cumulative times, in process.

Builds the catalogue of ``ROOT`` into ``FOLDER`` (deleted first) in this process, with no reader processes,
under ``cProfile``, and prints each phase's cumulative time and its share of the pass. Profiling inflates
Python calls more than C calls, so the shares say where the work is, not what it costs unprofiled.

Usage::

    python benchmarks/catalogue_phases.py benchmarks/out/history/sessions /tmp/phases-catalogue
"""

from __future__ import annotations

import cProfile
import os
import pstats
import shutil
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))


def main(argv: list[str]) -> int:
    root, folder = argv[0], argv[1]
    os.environ["PRIME_SESSIONS_READERS"] = "0"
    from core.catalogue import Catalogue

    shutil.rmtree(folder, ignore_errors=True)
    profile = cProfile.Profile()
    started = time.perf_counter()
    profile.enable()
    Catalogue(folder).refresh([root])
    profile.disable()
    wall = time.perf_counter() - started
    stats = pstats.Stats(profile).stats  # type: ignore[attr-defined]

    def cumulative(file_end: str, function: str) -> float:
        return sum(v[3] for k, v in stats.items() if k[0].endswith(file_end) and k[2] == function)

    def builtin(name: str) -> float:
        return sum(v[3] for k, v in stats.items() if name in k[2])

    total = cumulative("catalogue.py", "refresh")
    reading = cumulative("reader.py", "_read_from")
    rows = {
        "parsing and indexing every line, observers included": reading,
        "  orjson.loads": builtin("orjson.loads"),
        "  the search text of each entry (entry_doc)": cumulative("search_text.py", "entry_doc"),
        "  the usage rows (UsageCollector.add)": cumulative("records.py", "add"),
        "  the files touched (TouchCollector.add)": cumulative("touch_rows.py", "add"),
        "the file's rows, texts and summary after the parse": cumulative("reading.py", "read_whole")
        - reading,
        "SQLite inserts (executemany, FTS5 included)": builtin("executemany"),
        "SQLite, the rest (execute)": builtin("method 'execute' of 'sqlite3"),
    }
    print(f"whole pass, profiled: {wall:.2f} s")
    print("| phase | s (profiled) | share |")
    print("|---|---:|---:|")
    for name, value in rows.items():
        print(f"| {name} | {value:.2f} | {100 * value / total:.0f}% |")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
