"""The parse split across processes (issue 27): ``check`` and the window's first open, 1 against N processes.

For each file (default: ``benchmarks/out/size-chain-{26,12,4,3}.jsonl`` where present; ``size_scaling.py``
makes them), in rounds, each command a fresh process (``run_core.run_once``: wall, CPU of the process and
the children it waited for, peak RSS from ``os.wait4``, the largest of the process and its workers):

* ``bare``: ``benchmarks/bare_parse.py FILE`` (read the file, ``orjson.loads`` every line, keep nothing);
* ``check 1``: ``python -m core.cli check -v FILE`` with ``PRIME_SESSIONS_PARSERS=0`` (one process);
* ``check N``: the same with ``PRIME_SESSIONS_PARSERS=N`` for each ``--workers`` N (default: what the
  file's size and this machine's processors choose, and 2);

``check -v``'s output of every split run must equal one process's (else the script stops). With
``--window``, the window opening the file to its leaf (``image_heavy.py --window-child``: offscreen, a
private home, the catalogue built cold behind it), with ``PRIME_SESSIONS_PARSERS=0`` and unset.

Usage::

    python benchmarks/parallel_parse.py [--runs 3] [--workers auto,2,3] [--window] [FILE ...]
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
OUT = REPO / "benchmarks" / "out"
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "benchmarks"))

from run_core import Command, run_once  # noqa: E402

from tests.helpers import private_environment  # noqa: E402


def _run(argv: list[str], env: dict[str, str]) -> tuple[float, float, float, str]:
    """(wall s, CPU s, peak RSS MiB, stdout) of one fresh process."""
    sample, out, err = run_once(Command("run", argv[0], argv, REPO, env, "ours"), capture=True)
    if sample.status not in (0, 1):  # check says 1 for a file with problems
        raise SystemExit(f"{argv[:4]} failed ({sample.status}): {err[-600:]}")
    return sample.wall_s, sample.cpu_s, sample.maxrss_kib / 1024, out + err


def _env(**more: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PRIME_SESSIONS_")}
    return {**env, **more}


def _window(path: Path, parsers: str | None) -> tuple[float, float, float]:
    """(open s, longest stall ms, peak RSS MiB) of the window opening ``path``, alone in its folder."""
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "sessions"
        root.mkdir()
        os.link(path, root / path.name)
        env = private_environment(Path(tmp) / "home")
        env.pop("PRIME_SESSIONS_PARSERS", None)
        if parsers is not None:
            env["PRIME_SESSIONS_PARSERS"] = parsers
        child = [sys.executable, str(REPO / "benchmarks" / "image_heavy.py"), "--window-child", str(root)]
        child += [str(Path(tmp) / "catalogue"), str(root / path.name)]
        _wall, _cpu, rss, text = _run(child, env)
    result = next((x.split() for x in text.splitlines() if x.startswith("RESULT ")), None)
    if result is None:
        raise SystemExit(f"the window said no RESULT: {text[-600:]}")
    return float(result[1]), float(result[2]), rss


def _figure(values: list[float], digits: int = 2) -> str:
    if len(values) == 1:
        return f"{values[0]:.{digits}f}"
    return f"{statistics.median(values):.{digits}f} ({min(values):.{digits}f}-{max(values):.{digits}f})"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("files", nargs="*", type=Path)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--workers", default="auto,2", help="worker counts (or auto), by commas")
    parser.add_argument("--window", action="store_true", help="also the window's first open")
    args = parser.parse_args(argv)
    files = args.files or [OUT / f"size-chain-{n}.jsonl" for n in (26, 12, 4, 3)]
    files = [f for f in files if f.exists()]
    python = sys.executable
    print(f"load average at start: {os.getloadavg()}, processors: {len(os.sched_getaffinity(0))}", flush=True)
    for path in files:
        mb = path.stat().st_size / 1e6
        found: dict[str, list[tuple[float, float, float]]] = {}
        paths: dict[str, list[tuple[float, float]]] = {}
        reference = None
        for _round in range(args.runs):
            runs = [("bare", [python, str(REPO / "benchmarks" / "bare_parse.py"), str(path)], _env())]
            check = [python, "-m", "core.cli", "check", "-v", str(path)]
            runs.append(("check 1", check, _env(PRIME_SESSIONS_PARSERS="0")))
            for workers in args.workers.split(","):
                more = {} if workers == "auto" else {"PRIME_SESSIONS_PARSERS": workers}
                runs.append((f"check {workers}", check, _env(PRIME_SESSIONS_DEBUG="1", **more)))
            for name, command, env in runs:
                wall, cpu, rss, text = _run(command, env)
                found.setdefault(name, []).append((wall, cpu, rss))
                if name.startswith("check"):
                    said = [line for line in text.splitlines() if "worker processes" not in line]
                    if reference is None:
                        reference = said
                    elif said != reference:
                        raise SystemExit(f"{name} on {path.name} printed something else than one process")
                    split = [line for line in text.splitlines() if "worker processes" in line]
                    if split:
                        # "processor time 1.23 s here, 1.01 s the most of a worker": the read's critical path
                        here, worker = (float(x) for x in re.findall(r"([0-9.]+) s ", split[0] + " ")[-2:])
                        paths.setdefault(name, []).append((here, worker))
                        if _round == 0:
                            print(f"  {name}: {split[0].split(': ', 2)[-1]}", flush=True)
        if args.window:
            for parsers in ("0", None):
                for _round in range(args.runs):
                    opened, stall, rss = _window(path, parsers)
                    found.setdefault(f"window {parsers or 'auto'}", []).append((opened, stall, rss))
        print(f"\n{path.name} ({mb:,.0f} MB), load {os.getloadavg()[0]:.2f} after")
        print("| command | wall s | CPU s (all processes) | peak MiB (largest process) |")
        print("|---|---:|---:|---:|")
        for name, samples in found.items():
            walls, cpus, rsss = (list(column) for column in zip(*samples, strict=True))
            middle = f"stall ms {_figure(cpus, 0)}" if name.startswith("window") else _figure(cpus)
            shown = f"{name}: to the leaf" if name.startswith("window") else name
            print(f"| {shown} | {_figure(walls)} | {middle} | {_figure(rsss, 0)} |")
        for name, pairs in paths.items():
            here, worker = (list(column) for column in zip(*pairs, strict=True))
            print(
                f"{name}, processor s of the read: here {_figure(here)}, the busiest worker {_figure(worker)}"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
