"""In-process timings of the catalogue API, printed as JSON for ``run_catalogue.py``.

``run_catalogue.py`` times whole processes from the outside; this helper runs inside one process
and reports how long the library calls themselves take (no interpreter start-up, no imports):

* ``refresh``: ``Catalogue(DIR)`` then one ``Catalogue.refresh(ROOTS)``; prints the seconds of
  each and the returned stats.
* ``search``: ``Catalogue(DIR)`` then, for each query, one untimed call followed by ``--repeat``
  timed calls of ``Catalogue.search(query, limit=LIMIT)``; prints every time and the hit count.

Usage::

    python benchmarks/catalogue_probe.py refresh --catalogue DIR ROOT...
    python benchmarks/catalogue_probe.py search --catalogue DIR [--repeat 5] [--limit 50] QUERY...
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))


def _plain(value: object) -> object:
    """A JSON-friendly version of a stats object (dataclass, object with attributes, or as is)."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return dataclasses.asdict(value)
    if hasattr(value, "__dict__"):
        return {k: v for k, v in vars(value).items() if not k.startswith("_")}
    return value


def _count(result: object) -> int:
    """The number of hits in whatever ``Catalogue.search`` returns."""
    hits = getattr(result, "hits", None)
    if hits is None and isinstance(result, dict):
        hits = result.get("hits")
    if hits is None:
        hits = result
    try:
        return len(hits)  # type: ignore[arg-type]
    except TypeError:
        return -1


def probe_refresh(folder: str, roots: list[str]) -> dict[str, object]:
    """Open the catalogue and refresh it once; return the timings and the stats."""
    started = time.perf_counter()
    from core.catalogue import Catalogue

    imported = time.perf_counter()
    catalogue = Catalogue(folder)
    opened = time.perf_counter()
    stats = catalogue.refresh(roots)
    refreshed = time.perf_counter()
    catalogue.close()
    return {
        "import_s": imported - started,
        "open_s": opened - imported,
        "refresh_s": refreshed - opened,
        "stats": _plain(stats),
    }


def probe_search(folder: str, queries: list[str], repeat: int, limit: int) -> dict[str, object]:
    """Time ``Catalogue.search`` for each query: one untimed call, then ``repeat`` timed ones."""
    from core.catalogue import Catalogue

    catalogue = Catalogue(folder)
    results = []
    for query in queries:
        row: dict[str, object] = {"query": query}
        try:
            started = time.perf_counter()
            hits = _count(catalogue.search(query, limit=limit))
            row["first_s"] = time.perf_counter() - started
            times = []
            for _ in range(repeat):
                started = time.perf_counter()
                catalogue.search(query, limit=limit)
                times.append(time.perf_counter() - started)
            row["times_s"] = times
            row["hits"] = hits
        except Exception as err:  # a query the catalogue rejects is reported, not fatal
            row["error"] = f"{type(err).__name__}: {err}"
        results.append(row)
    catalogue.close()
    return {"limit": limit, "repeat": repeat, "queries": results}


def main(argv: list[str] | None = None) -> int:
    """Command line: run one probe and print its JSON."""
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = p.add_subparsers(dest="what", required=True)
    r = sub.add_parser("refresh")
    r.add_argument("--catalogue", required=True)
    r.add_argument("roots", nargs="+")
    s = sub.add_parser("search")
    s.add_argument("--catalogue", required=True)
    s.add_argument("--repeat", type=int, default=5)
    s.add_argument("--limit", type=int, default=50)
    s.add_argument("queries", nargs="+")
    args = p.parse_args(argv)
    if args.what == "refresh":
        result = probe_refresh(args.catalogue, args.roots)
    else:
        result = probe_search(args.catalogue, args.queries, args.repeat, args.limit)
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
