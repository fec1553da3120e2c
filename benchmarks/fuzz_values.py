"""The hostile-value property of issue 29 run longer: generated values in any field, every command.

The property of ``tests/core/test_hostile_properties.py`` (:func:`tests.core.hostile_sessions.check_hostile`):
one to three fields of a small session beside the demo sessions hold generated hostile values (nested
up to 1,100 levels, integers up to 2**70, 1.5e308, NaN, 1e400, times of year 33,658, lone surrogates,
every JSON type); the catalogue's list, search, every usage report, check, show, tree, context, the
Markdown and HTML exports, the diff and the window's renderings (previews, cards, what the model saw,
the transcript) run over it in process. No internal error, the other sessions listed and counted as
alone, the file unchanged. A failure prints Hypothesis's minimal failing input: add it to that test's
``@example`` cases.

Usage::

    PYTHONPATH=. python benchmarks/fuzz_values.py [--examples 1000] [--seed N]

Prints the examples run, the commands run, the failures and the time taken.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
import traceback
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from hypothesis import HealthCheck, given, seed, settings

from tests.core import hostile_sessions
from tests.core.hostile_sessions import alone_facts, check_hostile, placements


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--examples", type=int, default=1000, help="generated sessions to try")
    parser.add_argument("--seed", type=int, default=None, help="a fixed seed (default: a fresh one)")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as base:
        alone = alone_facts(Path(base))
    counts = {"examples": 0, "commands": 0}
    real_run = hostile_sessions.run

    def counted(*argv: str | Path) -> hostile_sessions.Ran:
        counts["commands"] += 1
        return real_run(*argv)

    hostile_sessions.run = counted  # run_everything looks it up at each call

    @settings(
        max_examples=args.examples, deadline=None, database=None, suppress_health_check=list(HealthCheck)
    )
    @given(placements())
    def values(chosen: list[tuple[str, bytes]]) -> None:
        counts["examples"] += 1
        with tempfile.TemporaryDirectory() as folder:
            check_hostile(Path(folder), chosen, alone)

    run = values if args.seed is None else seed(args.seed)(values)
    failures = 0
    start = time.perf_counter()
    try:
        run()
    except Exception:  # Hypothesis has shrunk it and printed the minimal input
        failures += 1
        traceback.print_exc()
    took = time.perf_counter() - start
    print(
        f"examples run: {counts['examples']} sessions, {counts['commands']} commands;"
        f" failures: {failures}; {took:.0f} s"
    )
    return 1 if failures else 0


if __name__ == "__main__":
    raise SystemExit(main())
