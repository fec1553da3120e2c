"""Whole-process benchmark: prime-sessions against the reference (pi 0.73.1) on a large session.

Every command is run as its own process and timed from the outside, start to exit: interpreter or
Node start-up, imports, reading, parsing, indexing and printing all count. Wall time comes from
``time.perf_counter`` around ``Popen`` + ``os.wait4``; peak RSS is the ``ru_maxrss`` that
``os.wait4`` returns for the child (Linux reports KiB). No external timing tool is needed.

Usage (from anywhere; the repository root is found from this file)::

    python benchmarks/run_core.py [--messages 20000] [--runs 5] [--out DIR]

See ``benchmarks/README.md`` for what is measured and the targets.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
BENCH = REPO / "benchmarks"
DEFAULT_OUT = BENCH / "out"
ORACLE_SOURCES = (REPO.parent / "shared" / "reference" / "oracle", Path("/work/shared/reference/oracle"))
PI_PACKAGE = Path("node_modules") / "@mariozechner" / "pi-coding-agent" / "package.json"

TARGET_SPEEDUP = 2.5  # reference / ours, at least
TARGET_BARE_RATIO = 1.5  # ours / bare parse, at most
TARGET_RSS_MIB = 100.0  # our peak RSS, below


class BenchError(Exception):
    """A setup step failed; the message says which and why."""


@dataclass
class Command:
    """One process to time.

    Attributes:
        key: short stable name (used in results.json).
        label: what the table shows.
        argv: the command line (no shell).
        cwd: working folder.
        env: the full environment.
        role: ``ours``, ``reference``, ``bare`` or ``info``.
    """

    key: str
    label: str
    argv: list[str]
    cwd: Path
    env: dict[str, str]
    role: str
    samples: list[Sample] = field(default_factory=list)

    @property
    def show_output(self) -> bool:
        """Whether the warm-up run captures and shows stdout (not for the large JSON outputs)."""
        return "/dev/null" not in self.label

    @property
    def median_s(self) -> float:
        """Median wall time in seconds."""
        return statistics.median(s.wall_s for s in self.samples)

    @property
    def min_s(self) -> float:
        """Fastest wall time in seconds."""
        return min(s.wall_s for s in self.samples)

    @property
    def median_cpu_s(self) -> float:
        """Median user + system CPU time in seconds."""
        return statistics.median(s.cpu_s for s in self.samples)

    @property
    def peak_rss_mib(self) -> float:
        """Highest peak RSS over all runs, in MiB."""
        return max(s.maxrss_kib for s in self.samples) / 1024

    @property
    def failed(self) -> bool:
        """True when any run exited with a non-zero status."""
        return any(s.status != 0 for s in self.samples)

    @property
    def statuses(self) -> set[int]:
        """Exit statuses seen."""
        return {s.status for s in self.samples}


@dataclass
class Sample:
    """One timed run of one command."""

    wall_s: float
    cpu_s: float  # user + system
    maxrss_kib: int
    status: int


# ---------------------------------------------------------------------------------------------- running
def run_once(cmd: Command, capture: bool = False) -> tuple[Sample, str, str]:
    """Run ``cmd`` once; return the sample plus (when ``capture``) stdout, and always stderr."""
    with tempfile.TemporaryFile() as err, tempfile.TemporaryFile() as out:
        stdout = out if capture else subprocess.DEVNULL
        start = time.perf_counter()
        proc = subprocess.Popen(
            cmd.argv, cwd=cmd.cwd, env=cmd.env, stdin=subprocess.DEVNULL, stdout=stdout, stderr=err
        )
        _pid, wait_status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - start
        status = os.waitstatus_to_exitcode(wait_status)
        proc.returncode = status  # already reaped: keep Popen from waiting again
        err.seek(0)
        out.seek(0)
        stderr_text = err.read().decode("utf-8", "replace")
        stdout_text = out.read().decode("utf-8", "replace") if capture else ""
    cpu = usage.ru_utime + usage.ru_stime
    return Sample(wall, cpu, int(usage.ru_maxrss), status), stdout_text, stderr_text


def run_checked(argv: list[str], cwd: Path, what: str, env: dict[str, str] | None = None) -> str:
    """Run a setup command, echoing it; raise :class:`BenchError` with its output when it fails."""
    print(f"$ {' '.join(argv)}   (in {cwd})", flush=True)
    try:
        done = subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True, check=False)
    except FileNotFoundError as err:
        raise BenchError(f"{what}: {argv[0]} not found") from err
    if done.returncode != 0:
        raise BenchError(f"{what} failed ({done.returncode}):\n{done.stdout[-2000:]}\n{done.stderr[-2000:]}")
    return done.stdout


def count_instructions(cmd: Command, valgrind: str) -> int | None:
    """Instructions executed by one run of ``cmd`` under callgrind (deterministic; about 50x slower)."""
    argv = [valgrind, "--tool=callgrind", "--callgrind-out-file=/dev/null", *cmd.argv]
    done = subprocess.run(argv, cwd=cmd.cwd, env=cmd.env, capture_output=True, text=True, check=False)
    for line in done.stderr.splitlines():
        if "Collected :" in line:
            return int(line.rsplit(":", 1)[1].strip())
    return None


# ---------------------------------------------------------------------------------------------- setup
def _make_writable(root: Path) -> None:
    for folder, _dirs, files in os.walk(root):
        os.chmod(folder, 0o755)
        for name in files:
            os.chmod(os.path.join(folder, name), 0o644)


def prepare_oracle(out: Path) -> Path:
    """Return a folder holding a runnable oracle (``open-once.mjs``, ``gen.mjs`` and its packages).

    ``$PRIME_ORACLE_DIR`` wins when set. Otherwise the read-only reference folder is copied to
    ``<out>/oracle`` and ``npm ci --ignore-scripts`` runs there once.
    """
    given = os.environ.get("PRIME_ORACLE_DIR")
    if given:
        oracle = Path(given).resolve()
        if not (oracle / "open-once.mjs").is_file():
            raise BenchError(f"PRIME_ORACLE_DIR={given} has no open-once.mjs")
        if not (oracle / "node_modules").is_dir() and not os.environ.get("PI_PKG_DIR"):
            raise BenchError(f"PRIME_ORACLE_DIR={given} has no node_modules (run npm ci --ignore-scripts)")
        return oracle
    oracle = out / "oracle"
    if not (oracle / "open-once.mjs").is_file():
        shared = os.environ.get("PRIME_SHARED_DIR")
        sources = (Path(shared) / "reference" / "oracle",) if shared else ()
        sources += ORACLE_SOURCES
        source = next((s for s in sources if (s / "open-once.mjs").is_file()), None)
        if source is None:
            raise BenchError(
                "reference oracle not found; set PRIME_ORACLE_DIR or check out shared/reference/oracle "
                f"(looked in {', '.join(str(s) for s in sources)})"
            )
        print(f"copying {source} -> {oracle}", flush=True)
        shutil.copytree(source, oracle, ignore=shutil.ignore_patterns("node_modules"), dirs_exist_ok=True)
        _make_writable(oracle)  # the source is read-only; npm must be able to write here
    if not (oracle / "node_modules").is_dir():
        npm = shutil.which("npm")
        if npm is None:
            raise BenchError("npm not found; install Node 20.6+ or set PRIME_ORACLE_DIR")
        run_checked([npm, "ci", "--ignore-scripts", "--no-audit", "--no-fund"], oracle, "npm ci")
    return oracle


def ensure_session(
    oracle: Path, out: Path, node: str, messages: int, compact_every: int
) -> tuple[Path, dict[str, object]]:
    """Generate the large session once with the reference's own writer; return its path and manifest."""
    stem = f"large-{messages}" + (f"-compact{compact_every}" if compact_every else "")
    target = out / f"{stem}.jsonl"
    meta_path = out / f"{stem}.manifest.json"
    if target.is_file() and meta_path.is_file():
        return target, json.loads(meta_path.read_text())
    work = out / f"gen-{stem}"
    shutil.rmtree(work, ignore_errors=True)
    argv = [node, "gen.mjs", str(work), "--only", "large", "--large", str(messages), "--layout", "spec"]
    if compact_every:
        argv += ["--large-compact-every", str(compact_every)]
    run_checked(argv, oracle, "session generation")
    manifest = json.loads((work / "manifest.json").read_text())
    large = next((s for s in manifest["sessions"] if s["name"] == "large"), None)
    if large is None:
        raise BenchError(f"gen.mjs wrote no 'large' session in {work}")
    shutil.move(large["file"], target)
    meta = {k: v for k, v in large.items() if k not in ("file", "relPath")}
    meta["reference"] = manifest.get("reference")
    meta["seed"] = manifest.get("seed")
    meta_path.write_text(json.dumps(meta, indent=2) + "\n")
    shutil.rmtree(work, ignore_errors=True)
    return target, meta


# ---------------------------------------------------------------------------------------------- info
def first_line(argv: list[str]) -> str:
    try:
        done = subprocess.run(argv, capture_output=True, text=True, check=False, timeout=30)
    except (OSError, subprocess.SubprocessError):
        return "?"
    text = (done.stdout or done.stderr).strip()
    return text.splitlines()[0] if text else "?"


def machine_info(python: str, node: str, oracle: Path, session: Path, meta: dict[str, object]) -> list[str]:
    """Lines describing the machine, the tools and the input file."""
    cpu = "?"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    mem = "?"
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal:"):
                mem = f"{int(line.split()[1]) / 1024 / 1024:.1f} GiB"
                break
    except OSError:
        pass
    usable = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    py = first_line([python, "-c", "import sys, orjson; print(sys.version.split()[0], orjson.__version__)"])
    py_version, _, orjson_version = py.partition(" ")
    ref = "?"
    try:
        ref = json.loads((oracle / PI_PACKAGE).read_text())["version"]
    except (OSError, ValueError, KeyError):
        ref = os.environ.get("PI_PKG_DIR", "?")
    load = ", ".join(f"{x:.2f}" for x in os.getloadavg()) if hasattr(os, "getloadavg") else "?"
    size = session.stat().st_size
    commit = first_line(["git", "-C", str(REPO), "rev-parse", "--short", "HEAD"])
    dirty = first_line(["git", "-C", str(REPO), "status", "--porcelain", "--untracked-files=no", "core"])
    return [
        f"- code: commit {commit}" + (" with uncommitted changes in core/" if dirty not in ("?", "") else ""),
        f"- date: {datetime.now(UTC).strftime('%Y-%m-%d %H:%M UTC')}",
        f"- machine: {platform.system()} {platform.release()} {platform.machine()}; CPU {cpu}; "
        f"nproc {usable} (cpu_count {os.cpu_count()}); RAM {mem}; load average before the runs {load}",
        f"- python: {py_version} ({python}); orjson {orjson_version or '?'}",
        f"- node: {first_line([node, '--version'])}; reference @mariozechner/pi-coding-agent {ref}",
        f"- file: `{session.name}`, {size:,} B ({size / 1e6:.1f} MB), {meta.get('entryCount', '?')} entries, "
        f"{meta.get('messageEntries', '?')} message entries, written by {meta.get('reference', '?')} gen.mjs",
    ]


# ---------------------------------------------------------------------------------------------- report
def _verdict(ok: bool, *involved: Command) -> str:
    if any(c.failed for c in involved):
        return "INVALID (a command failed)"
    return "PASS" if ok else "FAIL"


def render(commands: list[Command], info: list[str], runs: int, warmup: int) -> str:
    """The Markdown report: machine info, the table, the ratios against the targets."""
    by_key = {c.key: c for c in commands}
    lines = ["# prime-sessions core benchmark", "", *info, ""]
    lines.append(
        f"Whole-process wall time and peak RSS; {runs} timed runs per command (round robin), "
        f"after {warmup} untimed warm-up run(s) each. CPU is user + system time of the process (median), "
        "less sensitive than wall time to other load on the machine. Peak RSS is the highest over the runs."
    )
    lines += [
        "",
        "| command | role | median s | min s | CPU s | peak RSS MiB |",
        "|---|---|---:|---:|---:|---:|",
    ]
    for c in commands:
        bad = sorted(s for s in c.statuses if s != 0)
        note = f" (exit {', '.join(map(str, bad))})" if bad else ""
        lines.append(
            f"| `{c.label}`{note} | {c.role} | {c.median_s:.3f} | {c.min_s:.3f} | {c.median_cpu_s:.3f} "
            f"| {c.peak_rss_mib:.1f} |"
        )
    ours, ref, bare = by_key["check"], by_key["reference"], by_key["bare"]
    speedup = ref.median_s / ours.median_s
    bare_ratio = ours.median_s / bare.median_s
    lines += [
        "",
        "| ratio | median wall | min wall | CPU | target (median wall) | verdict |",
        "|---|---:|---:|---:|---|---|",
        f"| reference / ours (`open-once.mjs` / `check`) | {speedup:.2f}x | {ref.min_s / ours.min_s:.2f}x "
        f"| {ref.median_cpu_s / ours.median_cpu_s:.2f}x | >= {TARGET_SPEEDUP}x "
        f"| {_verdict(speedup >= TARGET_SPEEDUP, ours, ref)} |",
        f"| ours / bare parse (`check` / `bare_parse.py`) | {bare_ratio:.2f}x "
        f"| {ours.min_s / bare.min_s:.2f}x "
        f"| {ours.median_cpu_s / bare.median_cpu_s:.2f}x | <= {TARGET_BARE_RATIO}x "
        f"| {_verdict(bare_ratio <= TARGET_BARE_RATIO, ours, bare)} |",
        f"| our peak RSS (`check`) | {ours.peak_rss_mib:.1f} MiB | | | < {TARGET_RSS_MIB:.0f} MiB "
        f"| {_verdict(ours.peak_rss_mib < TARGET_RSS_MIB, ours)} |",
        "",
        "The reference's CPU time includes V8's helper threads (GC, compilation), so it can exceed its"
        " wall time.",
    ]
    return "\n".join(lines) + "\n"


def instruction_report(commands: list[Command]) -> str:
    """A Markdown table of instruction counts (callgrind), or a note when valgrind is missing."""
    valgrind = shutil.which("valgrind")
    if valgrind is None:
        return "\nInstruction counts skipped: valgrind is not installed.\n"
    counts: dict[str, int | None] = {}
    for c in commands:
        print(f"callgrind {c.key} ...", flush=True)
        counts[c.key] = count_instructions(c, valgrind)
    lines = [
        "",
        "Instructions executed (valgrind callgrind, one run each; the reference is left out: V8's JIT",
        "under valgrind says little). Unlike wall time this does not depend on other load.",
        "",
        "| command | M instructions |",
        "|---|---:|",
    ]
    for c in commands:
        n = counts[c.key]
        lines.append(f"| `{c.label}` | {n / 1e6:,.0f} |" if n else f"| `{c.label}` | ? |")
    ours, bare = counts.get("check"), counts.get("bare")
    if ours and bare:
        lines += ["", f"ours / bare parse in instructions: {ours / bare:.2f}x (target for wall time <= 1.5x)"]
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------------------------------------- main
def build_commands(
    python: str, node: str, oracle: Path, session: Path, pycache: Path | None
) -> list[Command]:
    """The commands to time, in table order.

    With ``pycache`` set, bytecode is cached there (``PYTHONPYCACHEPREFIX``, so nothing is written
    into the source tree) even when the caller's environment sets ``PYTHONDONTWRITEBYTECODE``: an
    installed package always has its ``.pyc`` files. With None, every run compiles from source.
    """
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(REPO), *filter(None, [env.get("PYTHONPATH")])])
    if pycache is not None:
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        env["PYTHONPYCACHEPREFIX"] = str(pycache)
    else:
        env["PYTHONDONTWRITEBYTECODE"] = "1"
    f = str(session)
    cli = [python, "-m", "core.cli"]
    bare = [python, str(BENCH / "bare_parse.py"), f]
    return [
        Command("check", "python -m core.cli check FILE", [*cli, "check", f], REPO, env, "ours"),
        Command("reference", "node open-once.mjs FILE", [node, "open-once.mjs", f], oracle, env, "reference"),
        Command("bare", "python benchmarks/bare_parse.py FILE", bare, REPO, env, "bare"),
        Command(
            "context", "python -m core.cli context FILE > /dev/null", [*cli, "context", f], REPO, env, "info"
        ),
        Command(
            "tree",
            "python -m core.cli tree --json FILE > /dev/null",
            [*cli, "tree", "--json", f],
            REPO,
            env,
            "info",
        ),
        Command(
            "startup", 'python -c "import core.cli"', [python, "-c", "import core.cli"], REPO, env, "info"
        ),
    ]


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    """Command-line options."""
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--messages", type=int, default=20000, help="message entries to generate (default 20000)")
    p.add_argument("--runs", type=int, default=5, help="timed runs per command (default 5)")
    p.add_argument("--warmup", type=int, default=1, help="untimed runs per command first (default 1)")
    p.add_argument("--out", type=Path, default=DEFAULT_OUT, help="work folder (default benchmarks/out)")
    p.add_argument("--compact-every", type=int, default=0, help="add a compaction about every K messages")
    p.add_argument("--file", type=Path, help="time this v3 session file instead of a generated one")
    p.add_argument("--python", default=sys.executable, help="interpreter for our commands (needs orjson)")
    p.add_argument("--node", default=shutil.which("node") or "node", help="Node 20.6+ for the reference")
    p.add_argument("--no-pyc", action="store_true", help="no bytecode cache: compile on every run")
    p.add_argument(
        "--instructions",
        action="store_true",
        help="also count instructions of our Python commands under valgrind (noise-free, slow)",
    )
    p.add_argument("--only", help="comma-separated command keys (check,reference,bare,context,tree,startup)")
    args = p.parse_args(argv)
    if args.runs < 1 or args.warmup < 0:
        p.error("--runs must be >= 1 and --warmup >= 0")
    return args


def main(argv: list[str] | None = None) -> int:
    """Prepare, run, print and save the benchmark."""
    args = parse_args(argv)
    out: Path = args.out.resolve()
    out.mkdir(parents=True, exist_ok=True)
    try:
        oracle = prepare_oracle(out)
        if args.file:
            session = args.file.resolve()
            meta: dict[str, object] = {}
        else:
            session, meta = ensure_session(oracle, out, args.node, args.messages, args.compact_every)
    except BenchError as err:
        print(f"run_core: {err}", file=sys.stderr)
        return 1
    pycache = None if args.no_pyc else out / "pycache"
    commands = build_commands(args.python, args.node, oracle, session, pycache)
    if args.only:
        wanted = set(args.only.split(","))
        missing = {"check", "reference", "bare"} - wanted
        if missing:
            print(f"run_core: --only must include {', '.join(sorted(missing))} (the ratios need them)")
            return 2
        commands = [c for c in commands if c.key in wanted]
    before = session.stat()
    print(f"session: {session} ({before.st_size:,} B)", flush=True)
    for c in commands:  # warm-up: page cache, .pyc files, and a look at what each prints
        for i in range(args.warmup):
            sample, stdout, stderr = run_once(c, capture=c.show_output and i == 0)
            shown = stdout.strip().splitlines()[-1][:150] if stdout.strip() else "(output discarded)"
            if i == 0:
                print(f"warm-up {c.key:<9} {sample.wall_s:6.3f} s  exit {sample.status}  {shown}", flush=True)
            if sample.status != 0:
                print(f"  stderr: {stderr.strip()[-1000:]}", flush=True)
                if c.role != "info":
                    print(f"run_core: {c.key} fails, so its timing would mean nothing; fix it first")
                    return 1
    for run in range(1, args.runs + 1):
        for c in commands:
            sample, _stdout, stderr = run_once(c)
            c.samples.append(sample)
            if sample.status != 0:
                print(f"  {c.key} exited {sample.status}: {stderr.strip()[-500:]}", flush=True)
        times = "  ".join(f"{c.key} {c.samples[-1].wall_s:.3f}" for c in commands)
        print(f"run {run}/{args.runs}: {times}", flush=True)
    after = session.stat()
    info = machine_info(args.python, args.node, oracle, session, meta)
    info.append(
        "- bytecode: none, every Python run compiles from source (--no-pyc)"
        if pycache is None
        else f"- bytecode: cached in {pycache} (PYTHONPYCACHEPREFIX), as for an installed package"
    )
    if (after.st_size, after.st_mtime_ns) != (before.st_size, before.st_mtime_ns):
        info.append("- WARNING: the session file changed during the runs (the reference rewrote it?)")
    report = render(commands, info, args.runs, args.warmup)
    if args.instructions:
        report += instruction_report([c for c in commands if c.key != "reference"])
    print()
    print(report)
    (out / "results.md").write_text(report)
    raw = {
        "session": str(session),
        "meta": meta,
        "commands": {
            c.key: {
                "label": c.label,
                "argv": c.argv,
                "role": c.role,
                "wall_s": [s.wall_s for s in c.samples],
                "cpu_s": [s.cpu_s for s in c.samples],
                "maxrss_kib": [s.maxrss_kib for s in c.samples],
                "status": [s.status for s in c.samples],
            }
            for c in commands
        },
    }
    (out / "results.json").write_text(json.dumps(raw, indent=2) + "\n")
    print(f"written: {out / 'results.md'}, {out / 'results.json'}")
    return 1 if any(c.failed for c in commands if c.role != "info") else 0


if __name__ == "__main__":
    sys.exit(main())
