"""The export property tests run longer: fresh random sessions full of hostile text, as many as asked for.

The same properties as ``tests/core/test_export_properties.py`` (no export raises; the HTML page holds
only its own scripts and allowed elements, attributes and links; the safe Markdown renders inert; the
diff renderings finish) and redaction idempotence, over ``--examples`` generated sessions and texts
each. A failure prints Hypothesis's minimal failing input: add it to that test file's regression cases.

Usage::

    python benchmarks/fuzz_export.py [--examples 500] [--seed N]

Prints the examples run, the failures and the time taken.
"""

from __future__ import annotations

import argparse
import sys
import time
import traceback
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from hypothesis import HealthCheck, given, seed, settings

from core.export.redact import Redactor
from tests.core.export_strategies import hostile_text, session_lines
from tests.core.test_export_properties import check_session


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--examples", type=int, default=500, help="generated sessions (and texts) to try")
    parser.add_argument("--seed", type=int, default=None, help="a fixed seed (default: a fresh one)")
    args = parser.parse_args(argv)
    ran = {"sessions": 0, "texts": 0}
    failures = 0
    options = settings(
        max_examples=args.examples,
        deadline=None,
        database=None,
        suppress_health_check=list(HealthCheck),
    )

    @options
    @given(session_lines())
    def sessions(lines: list[dict[str, object]]) -> None:
        ran["sessions"] += 1
        check_session(lines)

    @options
    @given(hostile_text())
    def redaction(text: str) -> None:
        ran["texts"] += 1
        once = Redactor().text(text)
        assert Redactor().text(once) == once

    start = time.perf_counter()
    for run in (sessions, redaction):
        if args.seed is not None:
            run = seed(args.seed)(run)
        try:
            run()
        except Exception:  # Hypothesis has shrunk it and printed the minimal input
            failures += 1
            traceback.print_exc()
    took = time.perf_counter() - start
    print(
        f"examples run: {ran['sessions']} sessions, {ran['texts']} texts; failures: {failures}; {took:.0f} s"
    )
    return 1 if failures else 0


if __name__ == "__main__":
    raise SystemExit(main())
