"""CLI start-up against ``rg -l`` (issue 18): ``--version`` and selective searches, whole process.

Each command runs ``--runs`` times in turn with the others (so a busy moment hits them all alike), each
a fresh process with cached bytecode (as an installed app has it), and the median wall time is shown:

* ``prime-sessions --version``;
* ``prime-sessions search QUERY ROOT --catalogue DIR --no-refresh`` and the same with the refresh a
  plain ``search`` does first (a warm catalogue: nothing to read);
* ``rg -l -i -F QUERY ROOT``: the files holding the text, as a user without a catalogue finds them
  (``rg`` stops reading a file at its first match, so a common word is cheap for it).

The history is ``make_history.py``'s (``benchmarks/out/history``); its catalogue is built first when
missing (``prime-sessions index``, not timed).

Usage::

    python benchmarks/cli_start.py [--runs 9] [--history DIR] [--catalogue DIR] [QUERY ...]
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "benchmarks"))

from run_core import Command, run_once  # noqa: E402  (the benchmarks' whole-process timer)

OUT = REPO / "benchmarks" / "out"
QUERIES = ("Redis", "migration rollback", "needle-absent-everywhere")


def timed(argv: list[str], env: dict[str, str]) -> float:
    """Wall seconds of one whole process (``run_core.run_once``; rg's 'nothing found' is fine)."""
    return run_once(Command("cli", argv[0], argv, REPO, env, "ours"))[0].wall_s


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("queries", nargs="*", default=list(QUERIES))
    parser.add_argument("--runs", type=int, default=9)
    parser.add_argument("--history", type=Path, default=OUT / "history" / "sessions")
    parser.add_argument("--catalogue", type=Path, default=OUT / "cli-start-catalogue")
    args = parser.parse_args(argv)
    rg = shutil.which("rg")
    if rg is None:
        print("rg (ripgrep) is not installed; apt-get install ripgrep", file=sys.stderr)
        return 2
    if not args.history.is_dir():
        print(f"no history at {args.history}: run benchmarks/make_history.py first", file=sys.stderr)
        return 2
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPATH"] = str(REPO)
    cli = [sys.executable, "-m", "core.cli"]
    root, catalogue = str(args.history), str(args.catalogue)
    subprocess.run([*cli, "index", "--catalogue", catalogue, root], env=env, check=True, capture_output=True)
    commands: dict[str, list[str]] = {"prime-sessions --version": [*cli, "--version"]}
    for query in args.queries:
        search = [*cli, "search", query, root, "--catalogue", catalogue, "--limit", "20"]
        commands[f"search '{query}' --no-refresh"] = [*search, "--no-refresh"]
        commands[f"search '{query}' (with its refresh)"] = search
        commands[f"rg -l -i -F '{query}'"] = [rg, "-l", "-i", "-F", query, root]
    for command in commands.values():
        timed(command, env)  # warm the page cache and the bytecode
    times: dict[str, list[float]] = {name: [] for name in commands}
    for _ in range(args.runs):
        for name, command in commands.items():
            times[name].append(timed(command, env))
    print(f"load {os.getloadavg()[0]:.1f}; {args.runs} runs each, in turn; median (min) wall seconds\n")
    print("| command | median s | min s |")
    print("|---|---:|---:|")
    for name, values in times.items():
        print(f"| `{name}` | {statistics.median(values):.3f} | {min(values):.3f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
