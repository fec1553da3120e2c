"""Bare-parse baseline for a whole session folder: the least a Python process must do to read it all.

Find every ``*.jsonl`` file directly in ROOT and in its immediate sub-folders (pi's
``sessions/--<cwd>--/`` layout, the same files ``core.session.discovery.find_session_files`` finds), read
each one whole, split it on ``\\n`` and ``orjson.loads`` every non-empty line. Nothing is kept,
indexed or written. ``run_catalogue.py`` times this whole process as the floor that a cold
``prime-sessions index`` is compared with.

Usage: ``python benchmarks/bare_parse_all.py ROOT [ROOT...]``
"""

from __future__ import annotations

import os
import sys

import orjson


def session_files(root: str) -> list[str]:
    """``*.jsonl`` files in ``root`` and in its immediate sub-folders, sorted."""
    found: list[str] = []
    with os.scandir(root) as top:
        for item in top:
            if item.name.endswith(".jsonl") and item.is_file():
                found.append(item.path)
            elif item.is_dir():
                with os.scandir(item.path) as inner:
                    found.extend(sub.path for sub in inner if sub.name.endswith(".jsonl") and sub.is_file())
    found.sort()
    return found


def parse_all(root: str) -> tuple[int, int, int]:
    """Parse every line of every session file under ``root``; return (files, lines, bytes)."""
    loads = orjson.loads
    files = lines = size = 0
    for path in session_files(root):
        with open(path, "rb") as handle:
            data = handle.read()
        files += 1
        size += len(data)
        for line in data.split(b"\n"):
            if line:
                loads(line)
                lines += 1
    return files, lines, size


def main(argv: list[str]) -> int:
    """Entry point: print how many files, lines and bytes were parsed."""
    if not argv:
        print("usage: python benchmarks/bare_parse_all.py ROOT [ROOT...]", file=sys.stderr)
        return 2
    files = lines = size = 0
    for root in argv:
        counts = parse_all(root)
        files, lines, size = files + counts[0], lines + counts[1], size + counts[2]
    print(f"{files} files, {lines} lines, {size / 1e6:.1f} MB parsed")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
