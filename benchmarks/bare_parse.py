"""Bare-parse baseline: the least a Python process must do to read a session file.

Read the whole file, split it on ``\\n`` and ``orjson.loads`` every non-empty line. Nothing is
kept, indexed or checked. ``run_core.py`` times this whole process (interpreter start, ``import
orjson``, read, parse, exit) as the floor that ``prime-sessions check`` is compared with.

Usage: ``python benchmarks/bare_parse.py FILE``
"""

from __future__ import annotations

import sys

import orjson


def parse_all(path: str) -> int:
    """Parse every line of ``path`` with orjson and return how many lines were parsed."""
    with open(path, "rb") as handle:
        data = handle.read()
    loads = orjson.loads
    count = 0
    for line in data.split(b"\n"):
        if line:
            loads(line)
            count += 1
    return count


def main(argv: list[str]) -> int:
    """Entry point: print the number of parsed lines."""
    if len(argv) != 1:
        print("usage: python benchmarks/bare_parse.py FILE", file=sys.stderr)
        return 2
    print(f"{parse_all(argv[0])} lines parsed")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
