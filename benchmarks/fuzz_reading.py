"""A long run of the reading properties of ``tests/core/test_reading_properties.py``.

The suite runs each property on a few dozen generated session files so it stays fast; this script
runs the same generators and checks for as many examples as asked: loading, the tree, paths and the
context at every leaf of any file however damaged (``reading``), and appends in random chunks with a
refresh after each equal to a fresh load (``appends``). A failure is shrunk by Hypothesis to a
minimal input, printed as a line to add to ``REGRESSIONS`` in the test module.

Usage: python benchmarks/fuzz_reading.py [--examples 50000] [--property reading|appends|all] [--seed N]
Exit status 1 when a property failed. Not a timing: nothing here is measured against the clock.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
import traceback
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from hypothesis import HealthCheck, given, seed, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from tests.core.test_reading_properties import check_appends, check_reading, session_bytes  # noqa: E402


def _run(name: str, examples: int, chosen_seed: int | None) -> bool:
    """Run one property for ``examples`` examples; True when it held."""
    count = 0
    folder = Path(tempfile.mkdtemp(prefix="fuzz-reading-"))
    found: list[tuple[bytes, list[int]]] = []
    config = settings(
        max_examples=examples,
        deadline=None,
        database=None,
        suppress_health_check=list(HealthCheck),
        print_blob=True,
    )

    @config
    @given(data=session_bytes(), cuts=st.lists(st.integers(1, 4000), max_size=5))
    def prop(data: bytes, cuts: list[int]) -> None:
        nonlocal count
        count += 1
        path = folder / f"{name}.jsonl"
        cut_at = [c % (len(data) + 1) for c in cuts]
        try:
            if name == "reading":
                path.write_bytes(data)
                check_reading(path)
            else:
                check_appends(path, data, cut_at)
        except BaseException:
            found[:] = [(data, cut_at)]
            raise

    if chosen_seed is not None:
        prop = seed(chosen_seed)(prop)
    started = time.monotonic()
    try:
        prop()
    except Exception:
        traceback.print_exc()
        data, cuts = found[0] if found else (b"", [])
        print(f"\n{name}: FAILED after {count} executions. Minimal input, for REGRESSIONS:", flush=True)
        print(f'    ("{name}: <what broke>", {data!r}, {cuts!r}),', flush=True)
        return False
    finally:
        for leftover in folder.iterdir():
            leftover.unlink()
        folder.rmdir()
    print(f"{name}: held over {count} executions ({time.monotonic() - started:.0f} s)", flush=True)
    return True


def main(argv: list[str] | None = None) -> int:
    """Run the chosen properties; returns the exit status."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--examples", type=int, default=50_000, help="examples per property (default 50000)")
    parser.add_argument("--property", choices=["reading", "appends", "all"], default="all")
    parser.add_argument("--seed", type=int, help="a fixed seed, to repeat a run")
    args = parser.parse_args(argv)
    names = ["reading", "appends"] if args.property == "all" else [args.property]
    held = [_run(name, args.examples, args.seed) for name in names]
    return 0 if all(held) else 1


if __name__ == "__main__":
    sys.exit(main())
