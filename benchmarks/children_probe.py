"""What child (subagent) sessions add to a catalogue pass and to the list, in process (issue 28).

Over a catalogue built from a history (``run_catalogue.py``'s, or any folder), it times in CPU
milliseconds (median of ``--runs``; CPU, not wall time, because the machine is shared):

* ``settle_children``: working the ``subagents`` table out again, as every pass that changed anything
  does: from the rows (``cold``, what a new or rewritten file costs) and when the rows it depends on are
  unchanged (``warm``, what an append to a live session costs);
* ``with_children``: giving the list's summaries their parents and family figures (every
  ``Catalogue.summaries()``), and ``summaries()`` whole;
* the discovery walk over the roots and the folders beside them (every pass).

Usage::

    python benchmarks/children_probe.py --catalogue DIR --root SESSIONS [--runs 9]
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable
from pathlib import Path

from core.catalogue import Catalogue
from core.catalogue import children as children_module
from core.catalogue.schema import transaction
from core.session.discovery import search_roots, stat_session_files


def cpu_ms(work: Callable[[], object], runs: int) -> float:
    """Median CPU milliseconds of ``runs`` calls of ``work``."""
    times = []
    for _ in range(runs):
        start = time.process_time()
        work()
        times.append(time.process_time() - start)
    return statistics.median(times) * 1000


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--catalogue", type=Path, required=True, help="catalogue folder (built if missing)")
    p.add_argument("--root", type=Path, action="append", required=True, help="session folder")
    p.add_argument("--runs", type=int, default=9)
    args = p.parse_args()
    catalogue = Catalogue(args.catalogue)
    catalogue.refresh(args.root)
    conn = catalogue._connect()
    files, forks, kids = (
        conn.execute("SELECT count(*) FROM files").fetchone()[0],
        conn.execute("SELECT count(*) FROM files WHERE parent_session IS NOT NULL").fetchone()[0],
        conn.execute("SELECT count(*) FROM subagents").fetchone()[0],
    )

    def settle(cold: bool) -> None:
        if cold:
            children_module._memo.clear()
        with transaction(conn):
            children_module.settle_children(conn)

    summaries = catalogue.summaries(args.root)
    print(f"{files} sessions, {forks} with a parent in their header, {kids} children")
    print(f"settle_children, cold: {cpu_ms(lambda: settle(True), args.runs):.1f} ms CPU")
    print(f"settle_children, warm: {cpu_ms(lambda: settle(False), args.runs):.1f} ms CPU")
    print(
        f"with_children: {cpu_ms(lambda: children_module.with_children(conn, summaries), args.runs):.1f} ms"
    )
    print(f"summaries(): {cpu_ms(lambda: catalogue.summaries(args.root), args.runs):.1f} ms CPU")
    walk = cpu_ms(lambda: [stat_session_files(r) for r in search_roots(args.root)], args.runs)
    print(f"discovery walk: {walk:.1f} ms CPU")
    catalogue.close()


if __name__ == "__main__":
    main()
