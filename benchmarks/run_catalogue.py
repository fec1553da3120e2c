"""Catalogue benchmark: index, refresh, append, search and list over a 2,000-session, 500 MB history.

Whole processes are timed from the outside with ``os.wait4`` (wall time, CPU, peak RSS), as in
``run_core.py``; the library calls themselves are timed inside one process by
``catalogue_probe.py``. The history comes from ``make_history.py`` (cached in
``benchmarks/out/history``). Side by side in one run:

a. cold index build (``index`` into an empty catalogue folder) against a bare orjson parse of
   every file (``bare_parse_all.py``); target: at most 2x the bare parse. For information, the
   same build without reader processes, and a cold build of only the templates the history was
   copied from (no text shared between sessions) against a bare parse of those files.
b. warm refresh with nothing changed (``index`` again); target: under 0.2 s.
c. refresh after appending one entry to the 36 MB session; target: under 50 ms, with only the
   appended bytes read. The file is restored (truncated, mtime reset) afterwards.
d. search: about 20 FTS5 queries, in-process ``Catalogue.search`` and whole-process
   ``search --json``, against ``rg -l -i -F`` over the same folder; target: median under 50 ms and
   at least 10x faster than rg.
e. list: ``list ROOT --json`` from the warm catalogue against the reference's
   ``SessionManager.listAll()`` (``oracle/context.mjs --list-all ROOT --brief``); target: at
   least 20x faster.

When the catalogue is not there yet (``core/catalogue/catalogue.py`` missing, or the CLI has no ``index``
command) the parts that need it are reported as "not available" and the rest still runs.

Usage::

    python benchmarks/run_catalogue.py [--runs 5] [--catalogue DIR] [--only cold,warm,append,search,list]

See ``benchmarks/README.md`` for details.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import resource
import shutil
import sqlite3
import statistics
import subprocess
import sys
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from run_core import BenchError, Command, Sample, first_line, prepare_oracle, run_checked, run_once

REPO = Path(__file__).resolve().parent.parent
BENCH = REPO / "benchmarks"
DEFAULT_OUT = BENCH / "out"
SECTIONS = ("cold", "warm", "append", "search", "list")

TARGET_COLD_RATIO = 2.0  # cold index / bare parse, at most
TARGET_WARM_S = 0.2  # warm refresh, below
TARGET_APPEND_S = 0.050  # refresh after a one-entry append, below
TARGET_SEARCH_S = 0.050  # median search time, below
TARGET_SEARCH_VS_RG = 10.0  # rg / search, at least
TARGET_LIST_VS_REF = 20.0  # reference listAll / our list, at least
APPEND_MARKER = "zqxappendmarker"
NA = "not available"


# ---------------------------------------------------------------------------------------------- results
@dataclass
class Timing:
    """Samples of one measured thing: whole-process samples or in-process seconds."""

    label: str
    samples: list[Sample] = field(default_factory=list)
    seconds: list[float] = field(default_factory=list)  # in-process times

    def values(self) -> list[float]:
        """Wall seconds of the samples, or the in-process seconds."""
        return [s.wall_s for s in self.samples] if self.samples else self.seconds

    @property
    def median(self) -> float:
        """Median seconds."""
        return statistics.median(self.values())

    @property
    def min(self) -> float:
        """Fastest seconds."""
        return min(self.values())

    @property
    def rss_mib(self) -> float | None:
        """Highest peak RSS of the samples in MiB (None for in-process timings)."""
        return max(s.maxrss_kib for s in self.samples) / 1024 if self.samples else None

    @property
    def failed(self) -> bool:
        """True when a whole-process run exited with an unexpected status."""
        return any(s.status != 0 for s in self.samples)


@dataclass
class Row:
    """One line of the results table."""

    test: str
    ours: Timing | None
    base: Timing | None = None
    ratio: str = ""
    target: str = ""
    verdict: str = ""
    note: str = ""


def fmt_s(seconds: float | None) -> str:
    """Seconds with a precision that suits their size."""
    if seconds is None:
        return ""
    if seconds < 0.1:
        return f"{seconds * 1000:.1f} ms"
    return f"{seconds:.3f} s" if seconds < 10 else f"{seconds:.2f} s"


def _ratio(numerator: float | None, denominator: float | None) -> str:
    """``a / b`` as ``12.3x``, or empty when either is missing."""
    return f"{numerator / denominator:.1f}x" if numerator and denominator else ""


def verdict(ok: bool, *timings: Timing | None) -> str:
    """PASS or FAIL, or INVALID when a process failed."""
    if any(t is not None and t.failed for t in timings):
        return "INVALID (a command failed)"
    return "PASS" if ok else "FAIL"


def na_row(test: str, reason: str, target: str = "") -> Row:
    """A row for a measurement that could not be made."""
    return Row(test, None, target=target, verdict=NA, note=reason)


# ---------------------------------------------------------------------------------------------- running
class Runner:
    """Builds and runs the commands of the benchmark."""

    def __init__(self, args: argparse.Namespace, root: Path, catalogue: Path, oracle: Path | None) -> None:
        self.python: str = args.python
        self.node: str = args.node
        self.root = root
        self.catalogue = catalogue
        self.oracle = oracle
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join([str(REPO), *filter(None, [env.get("PYTHONPATH")])])
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        env["PYTHONPYCACHEPREFIX"] = str(args.out / "pycache")
        # The history is "the user's" session folder: a refresh of the default roots covers it.
        env["PRIME_AGENT_DIR"] = str(root.parent)
        env["PRIME_SESSIONS_CATALOGUE"] = str(catalogue)
        self.env = env

    def command(self, key: str, argv: list[str], cwd: Path | None = None) -> Command:
        """A :class:`Command` with the benchmark's environment."""
        return Command(key, " ".join(argv), argv, cwd or REPO, self.env, "ours")

    def cli(self, *args: str) -> list[str]:
        """``python -m core.cli ARGS``."""
        return [self.python, "-m", "core.cli", *args]

    def time(self, key: str, argv: list[str], cwd: Path | None = None, ok: tuple[int, ...] = (0,)) -> Sample:
        """Run once and return the sample; an exit status in ``ok`` counts as success."""
        sample, _out, err = run_once(self.command(key, argv, cwd))
        if sample.status in ok:
            sample.status = 0
        else:
            print(f"  {key} exited {sample.status}: {err.strip()[-600:]}", flush=True)
        return sample

    def capture(self, key: str, argv: list[str], cwd: Path | None = None) -> tuple[Sample, str, str]:
        """Run once, keeping stdout and stderr."""
        return run_once(self.command(key, argv, cwd), capture=True)

    def probe(self, *args: str) -> tuple[Sample, dict[str, Any]]:
        """Run ``catalogue_probe.py ARGS``; return the whole-process sample and its JSON."""
        argv = [self.python, str(BENCH / "catalogue_probe.py"), *args]
        sample, out, err = self.capture("probe", argv)
        if sample.status != 0:
            raise BenchError(f"catalogue_probe.py {args[0]} failed ({sample.status}): {err.strip()[-1500:]}")
        return sample, json.loads(out)


def catalogue_status(runner: Runner) -> dict[str, str | None]:
    """For each of ``api``, ``index``, ``search``, ``list``: None when usable, else why not."""
    if not (REPO / "core" / "catalogue" / "catalogue.py").is_file():
        return dict.fromkeys(("api", "index", "search", "list"), "core/catalogue/catalogue.py is missing")
    status: dict[str, str | None] = {}
    _s, _o, err = runner.capture(
        "api", [runner.python, "-c", "from core.catalogue.catalogue import Catalogue"]
    )
    status["api"] = None if _s.status == 0 else f"import core.catalogue.catalogue fails: {err.strip()[-200:]}"
    for command in ("index", "search", "list"):
        sample, out, err = runner.capture(command, runner.cli(command, "--help"))
        if sample.status != 0:
            status[command] = f"`{command}` is not a command of core.cli yet"
        elif "--catalogue" not in out:
            status[command] = f"`{command}` has no --catalogue option yet"
        else:
            status[command] = None
    return status


# ---------------------------------------------------------------------------------------------- a. cold
def run_cold(runner: Runner, runs: int, status: dict[str, str | None]) -> tuple[list[Row], dict[str, Any]]:
    """Cold index build against the bare parse of every file."""
    root = str(runner.root)
    bare_argv = [runner.python, str(BENCH / "bare_parse_all.py"), root]
    warm, out, _err = runner.capture("bare", bare_argv)  # page cache and .pyc files
    print(f"warm-up bare_parse_all {warm.wall_s:.2f} s: {out.strip()}", flush=True)
    bare = Timing("python benchmarks/bare_parse_all.py ROOT")
    index = Timing("python -m core.cli index ROOT --catalogue DIR (empty DIR)")
    raw: dict[str, Any] = {}
    can_index = status["index"] is None
    if can_index:
        runner.capture("index-help", runner.cli("index", "--help"))  # .pyc files of the CLI
    for run in range(1, runs + 1):
        bare.samples.append(runner.time("bare", bare_argv))
        line = f"cold run {run}/{runs}: bare {bare.samples[-1].wall_s:.2f} s"
        if can_index:
            shutil.rmtree(runner.catalogue, ignore_errors=True)
            sample, out, err = runner.capture(
                "index", runner.cli("index", root, "--catalogue", str(runner.catalogue))
            )
            index.samples.append(sample)
            raw["indexOutput"] = out.strip()
            line += f"  index {sample.wall_s:.2f} s ({out.strip()[:160]})"
            if sample.status != 0:
                line += f"\n  index exited {sample.status}: {err.strip()[-600:]}; no more cold builds"
                raw["indexError"] = err.strip()[-2000:]
                can_index = False
        print(line, flush=True)
    rows = []
    if index.samples:
        ratio = index.median / bare.median
        rows.append(
            Row(
                "a. cold index build",
                index,
                bare,
                f"{ratio:.1f}x bare",
                f"<= {TARGET_COLD_RATIO:.0f}x bare",
                verdict(ratio <= TARGET_COLD_RATIO, index, bare),
            )
        )
        size = sum(f.stat().st_size for f in runner.catalogue.rglob("*") if f.is_file())
        raw["catalogueBytes"] = size
        raw["sharing"] = text_sharing(runner.catalogue)
        shared = raw["sharing"]
        rows[-1].note = (
            f"{shared['entries']:,} searchable entries hold {shared['texts']:,} distinct texts"
            " (forks, clones and these copies share text; each distinct text is tokenized once)"
        )
        rows += cold_variants(runner, runs, raw)
    else:
        rows.append(na_row("a. cold index build", status["index"] or "", f"<= {TARGET_COLD_RATIO:.0f}x bare"))
        rows.append(Row("a. bare parse of every file (floor)", bare, verdict="info"))
    raw["bare"] = [s.__dict__ for s in bare.samples]
    raw["index"] = [s.__dict__ for s in index.samples]
    return rows, raw


def text_sharing(catalogue: Path) -> dict[str, int]:
    """How many searchable entries the catalogue holds, and how many distinct texts they share."""
    conn = sqlite3.connect(catalogue / "catalogue.sqlite3")
    try:
        texts = conn.execute("SELECT count(*) FROM texts").fetchone()[0]
        entries = conn.execute("SELECT count(*) FROM entries WHERE text_id IS NOT NULL").fetchone()[0]
    finally:
        conn.close()
    return {"texts": texts, "entries": entries}


def cold_variants(runner: Runner, runs: int, raw: dict[str, Any]) -> list[Row]:
    """Two more cold builds, for information: without reader processes, and of text that is never shared.

    The second indexes only the templates the history was copied from (each one once, so no two
    sessions share text) against a bare parse of the same files: the cost per byte of a history
    without forks or clones.
    """
    root = str(runner.root)
    alone = Timing("PRIME_SESSIONS_READERS=0 python -m core.cli index ROOT --catalogue DIR (empty DIR)")
    scratch = runner.catalogue.parent / "catalogue-variant"
    in_process = {**runner.env, "PRIME_SESSIONS_READERS": "0"}
    for run in range(1, runs + 1):
        shutil.rmtree(scratch, ignore_errors=True)
        argv = runner.cli("index", root, "--catalogue", str(scratch))
        sample, _out, _err = run_once(Command("index-alone", " ".join(argv), argv, REPO, in_process, "ours"))
        alone.samples.append(sample)
        print(f"cold run {run}/{runs} without reader processes: {sample.wall_s:.2f} s", flush=True)
    rows = [Row("a. cold index build, in one process (info)", alone, verdict="info")]
    templates = sorted(str(p) for p in (runner.root.parent.parent / "history-templates").glob("*/sessions"))
    if templates:
        bare_argv = [runner.python, str(BENCH / "bare_parse_all.py"), *templates]
        bare = Timing("python benchmarks/bare_parse_all.py TEMPLATES...")
        index = Timing("python -m core.cli index TEMPLATES... --catalogue DIR (empty DIR)")
        runner.time("bare-templates", bare_argv)  # page cache
        for run in range(1, runs + 1):
            bare.samples.append(runner.time("bare-templates", bare_argv))
            shutil.rmtree(scratch, ignore_errors=True)
            index.samples.append(
                runner.time("index-templates", runner.cli("index", *templates, "--catalogue", str(scratch)))
            )
            times = f"bare {bare.samples[-1].wall_s:.2f} s, index {index.samples[-1].wall_s:.2f} s"
            print(f"templates run {run}/{runs}: {times}", flush=True)
        sharing = text_sharing(scratch)
        raw["templates"] = {
            "bare": [s.__dict__ for s in bare.samples],
            "index": [s.__dict__ for s in index.samples],
            "sharing": sharing,
        }
        rows.append(
            Row(
                "a. cold index build of text never shared (info)",
                index,
                bare,
                f"{index.median / bare.median:.1f}x bare",
                verdict="info",
                note=(
                    f"the {len(templates)} template folders the history was copied from:"
                    f" {sharing['entries']:,} searchable entries, {sharing['texts']:,} distinct texts"
                ),
            )
        )
    shutil.rmtree(scratch, ignore_errors=True)
    raw["inProcess"] = [s.__dict__ for s in alone.samples]
    return rows


# ---------------------------------------------------------------------------------------------- b. warm
def ensure_indexed(runner: Runner) -> None:
    """Make sure the catalogue holds the history (needed when the cold section was skipped)."""
    sample, out, err = runner.capture(
        "index", runner.cli("index", str(runner.root), "--catalogue", str(runner.catalogue))
    )
    if sample.status != 0:
        raise BenchError(f"index failed ({sample.status}): {err.strip()[-1000:]}")
    print(f"catalogue ready ({sample.wall_s:.2f} s): {out.strip()[:200]}", flush=True)


def run_warm(runner: Runner, runs: int, status: dict[str, str | None]) -> tuple[list[Row], dict[str, Any]]:
    """Refresh with nothing changed: whole process (CLI and probe) and in-process."""
    target = f"< {TARGET_WARM_S} s"
    if status["index"] is not None or status["api"] is not None:
        return [
            na_row("b. warm refresh, nothing changed", status["index"] or status["api"] or "", target)
        ], {}
    root = str(runner.root)
    cli = Timing("python -m core.cli index ROOT --catalogue DIR (warm)")
    inproc = Timing("Catalogue.refresh([ROOT]) in-process (warm)")
    probe = Timing("catalogue_probe.py refresh (whole process)")
    stats: list[object] = []
    for run in range(1, runs + 1):
        cli.samples.append(
            runner.time("index", runner.cli("index", root, "--catalogue", str(runner.catalogue)))
        )
        sample, result = runner.probe("refresh", "--catalogue", str(runner.catalogue), root)
        probe.samples.append(sample)
        inproc.seconds.append(float(result["refresh_s"]))
        stats.append(result["stats"])
        print(
            f"warm run {run}/{runs}: index {cli.samples[-1].wall_s:.3f} s, refresh in-process "
            f"{inproc.seconds[-1] * 1000:.1f} ms (probe process {sample.wall_s:.3f} s)",
            flush=True,
        )
    rows = [
        Row(
            "b. warm refresh (whole process)",
            cli,
            target=target,
            verdict=verdict(cli.median < TARGET_WARM_S, cli),
        ),
        Row(
            "b. warm refresh (in-process)",
            inproc,
            target=target,
            verdict=verdict(inproc.median < TARGET_WARM_S),
        ),
    ]
    return rows, {"cli": [s.__dict__ for s in cli.samples], "inProcess": inproc.seconds, "stats": stats[-1:]}


# ---------------------------------------------------------------------------------------------- c. append
def last_entry_id(path: Path) -> str:
    """The id of the last entry line of a session file (the reference's leaf on load)."""
    with open(path, "rb") as handle:
        handle.seek(max(0, path.stat().st_size - (1 << 16)))
        tail = handle.read()
    line = [x for x in tail.split(b"\n") if x.strip()][-1]
    return str(json.loads(line)["id"])


def append_line(path: Path, kind: str, parent: str, rng: random.Random, run: int) -> tuple[str, int]:
    """Append one valid entry of ``kind`` (label, message or custom) below ``parent``; return (id, bytes)."""
    entry_id = f"{rng.getrandbits(32):08x}"
    now = datetime.now(UTC)
    ts = now.strftime("%Y-%m-%dT%H:%M:%S.") + f"{now.microsecond // 1000:03d}Z"
    if kind == "label":
        entry = {"type": "label", "id": entry_id, "parentId": parent, "timestamp": ts}
        entry |= {"targetId": parent, "label": f"bench-{run}"}
    elif kind == "message":
        text = f"Benchmark {APPEND_MARKER} run {run}: is the appended entry searchable right away?"
        message = {"role": "user", "content": text, "timestamp": int(now.timestamp() * 1000)}
        entry = {"type": "message", "id": entry_id, "parentId": parent, "timestamp": ts, "message": message}
    else:
        entry = {"type": "custom", "customType": "benchmark", "data": {"run": run}}
        entry |= {"id": entry_id, "parentId": parent, "timestamp": ts}
    data = (json.dumps(entry, ensure_ascii=False, separators=(",", ":")) + "\n").encode()
    with open(path, "ab") as handle:
        handle.write(data)
    return entry_id, len(data)


def run_append(
    runner: Runner, runs: int, status: dict[str, str | None], target_file: Path
) -> tuple[list[Row], dict[str, Any]]:
    """Append to the 36 MB session and refresh; restore the file afterwards."""
    target = f"< {TARGET_APPEND_S * 1000:.0f} ms"
    if status["api"] is not None or status["index"] is not None:
        return [
            na_row("c. refresh after a one-entry append", status["api"] or status["index"] or "", target)
        ], {}
    root, cat = str(runner.root), str(runner.catalogue)
    original = target_file.stat()
    parent = last_entry_id(target_file)
    rng = random.Random(20260301)
    label = Timing("Catalogue.refresh in-process after appending a label entry")
    message = Timing("Catalogue.refresh in-process after appending a user message")
    probe = Timing("catalogue_probe.py refresh after a label append (whole process)")
    one_file = Timing("Catalogue.refresh([FILE]) in-process after appending a label entry")
    cli = Timing("python -m core.cli index ROOT after appending a custom entry (whole process)")
    checks: list[dict[str, Any]] = []
    raw: dict[str, Any] = {"file": str(target_file), "originalBytes": original.st_size}
    try:
        for run in range(1, runs + 1):
            for kind, timing in (("label", label), ("message", message)):
                parent, size = append_line(target_file, kind, parent, rng, run)
                sample, result = runner.probe("refresh", "--catalogue", cat, root)
                timing.seconds.append(float(result["refresh_s"]))
                if kind == "label":
                    probe.samples.append(sample)
                st = result["stats"]
                checks.append({"kind": kind, "appended": size, **{k: st.get(k) for k in st if k != "errors"}})
            # the same append, refreshing only that file: the per-file cost without the stat sweep
            parent, size = append_line(target_file, "label", parent, rng, run)
            _sample, result = runner.probe("refresh", "--catalogue", cat, str(target_file))
            one_file.seconds.append(float(result["refresh_s"]))
            st = result["stats"]
            checks.append(
                {"kind": "label, file root", "appended": size, **{k: st.get(k) for k in st if k != "errors"}}
            )
            parent, size = append_line(target_file, "custom", parent, rng, run)
            cli.samples.append(runner.time("index", runner.cli("index", root, "--catalogue", cat)))
            print(
                f"append run {run}/{runs}: label {label.seconds[-1] * 1000:.1f} ms, message "
                f"{message.seconds[-1] * 1000:.1f} ms (in-process); "
                f"index process {cli.samples[-1].wall_s:.3f} s; "
                f"read {checks[-1].get('bytes_read')} B for {checks[-1]['appended']} B appended",
                flush=True,
            )
        _s, found = runner.probe("search", "--catalogue", cat, "--repeat", "1", APPEND_MARKER)
        marker_hits = found["queries"][0].get("hits")
    finally:
        with open(target_file, "r+b") as handle:
            handle.truncate(original.st_size)
        os.utime(target_file, ns=(original.st_atime_ns, original.st_mtime_ns))
        print(f"restored {target_file.name} to {original.st_size:,} B", flush=True)
    _s, resync = runner.probe("refresh", "--catalogue", cat, root)
    proportional = all(
        c.get("files_appended") == 1
        and c.get("files_indexed") == 0
        and int(c.get("bytes_read") or 0) <= 2 * int(c["appended"])
        for c in checks
    )
    read = sorted({int(c.get("bytes_read") or 0) for c in checks})
    appended = sorted({int(c["appended"]) for c in checks})
    note_read = f"bytes read per refresh {read} for {appended} appended"
    rows = [
        Row(
            "c. append a label, refresh (in-process)",
            label,
            target=target,
            verdict=verdict(label.median < TARGET_APPEND_S),
        ),
        Row(
            "c. append a user message, refresh (in-process)",
            message,
            target=target,
            verdict=verdict(message.median < TARGET_APPEND_S),
            note=f"the appended text is found by search: {marker_hits} hit(s)",
        ),
        Row(
            "c. append a label, refresh only that file (in-process)",
            one_file,
            verdict="info",
            note="the root is the 36 MB file itself, so no other file is looked at",
        ),
        Row(
            "c. only the appended bytes are read",
            None,
            ratio="",
            target="proportional to the append",
            verdict=verdict(proportional),
            note=note_read,
        ),
        Row("c. append, refresh (whole process, probe)", probe, verdict="info"),
        Row("c. append, `index` (whole process, CLI)", cli, verdict="info"),
        Row(
            "c. (contrast) re-read the whole 36 MB file after the restore",
            Timing("refresh after truncation", seconds=[float(resync["refresh_s"])]),
            verdict="info",
            note=f"stats {json.dumps({k: v for k, v in resync['stats'].items() if k != 'errors'})}",
        ),
    ]
    raw |= {"checks": checks, "markerHits": marker_hits, "resync": resync}
    raw |= {"label": label.seconds, "message": message.seconds, "cli": [s.__dict__ for s in cli.samples]}
    return rows, raw


# ---------------------------------------------------------------------------------------------- d. search
def build_queries(manifest: dict[str, Any]) -> tuple[list[str], dict[str, str]]:
    """About 20 FTS5 queries from the manifest's words, and the rg pattern for the simple ones."""
    words = [str(w["word"]) for w in manifest["searchWords"]]
    rare = manifest.get("rareWord")
    if rare:
        words.append(str(rare["word"]))
    phrases = [str(p["phrase"]) for p in manifest.get("phrases", [])]
    rg: dict[str, str] = {w: w for w in words}
    queries = list(words)
    for w in [*words[:3], *words[4:5]]:
        stem = w.lower()[:6]
        queries.append(f"{stem}*")
        rg[f"{stem}*"] = stem
    for p in phrases:
        queries.append(f'"{p}"')
        rg[f'"{p}"'] = p
    w = [*words, *["tokenizer"] * 8][:8]  # fallbacks keep the indexes valid on an odd manifest
    queries += [
        f"{w[0]} AND {w[1]}",
        f"{w[2]} AND {w[3]}",
        "redis AND instances",
        f"{w[0]} NOT {w[1]}",
        f"{w[5]} NOT {w[4]}",
        f"{w[6]} NOT redis",
        f"{w[-1]} OR {w[5]}",
    ]
    return queries, rg


def run_search(
    runner: Runner, runs: int, status: dict[str, str | None], manifest: dict[str, Any], rg_exe: str | None
) -> tuple[list[Row], dict[str, Any], list[str]]:
    """In-process and whole-process search against rg."""
    queries, rg_patterns = build_queries(manifest)
    root, cat = str(runner.root), str(runner.catalogue)
    rg_times: dict[str, Timing] = {}
    if rg_exe:
        for q, pattern in rg_patterns.items():
            argv = [rg_exe, "-l", "-i", "-F", "--", pattern, root]
            runner.time("rg", argv, ok=(0, 1))  # warm-up
            rg_times[q] = Timing(" ".join(argv))
        for run in range(1, runs + 1):
            for q, pattern in rg_patterns.items():
                rg_times[q].samples.append(
                    runner.time("rg", [rg_exe, "-l", "-i", "-F", "--", pattern, root], ok=(0, 1))
                )
            print(f"rg run {run}/{runs} done", flush=True)
    rg_counts: dict[str, int] = {}
    if rg_exe:
        for q, pattern in rg_patterns.items():
            out = subprocess.run(
                [rg_exe, "-l", "-i", "-F", "--", pattern, root], capture_output=True, check=False
            ).stdout
            rg_counts[q] = len(out.splitlines())
    inproc: dict[str, dict[str, Any]] = {}
    whole: dict[str, Timing] = {}
    no_refresh: dict[str, Timing] = {}
    detail: list[str] = []
    rows: list[Row] = []
    target_s = f"< {TARGET_SEARCH_S * 1000:.0f} ms"
    target_rg = f">= {TARGET_SEARCH_VS_RG:.0f}x rg"
    if status["api"] is None:
        _s, result = runner.probe(
            "search", "--catalogue", cat, "--repeat", str(max(runs, 5)), "--limit", "50", *queries
        )
        inproc = {str(r["query"]): r for r in result["queries"]}
    if status["search"] is None:
        search_help = runner.capture("search-help", runner.cli("search", "--help"))[1]
        variants = [(whole, [])]
        if "--no-refresh" in search_help:
            variants.append((no_refresh, ["--no-refresh"]))
        sample, out, err = runner.capture(
            "search", runner.cli("search", queries[0], "--catalogue", cat, "--json")
        )
        try:
            shown = f"{len(json.loads(out)['hits'])} hits"
        except (ValueError, KeyError, TypeError):
            shown = f"unexpected output: {out[:200]!r} {err[-300:]!r}"
        print(f"warm-up search --json {queries[0]!r}: exit {sample.status}, {shown}", flush=True)
        for run in range(1, runs + 1):
            for q in queries:
                for store, extra in variants:
                    argv = runner.cli("search", q, "--catalogue", cat, "--json", "--limit", "50", *extra)
                    store.setdefault(q, Timing(" ".join(argv))).samples.append(runner.time("search", argv))
            print(f"search run {run}/{runs} done", flush=True)

    def med(values: list[float]) -> float | None:
        return statistics.median(values) if values else None

    per_query_in = {q: statistics.median(r["times_s"]) for q, r in inproc.items() if r.get("times_s")}
    detail += [
        "| query | hits (limit 50) | in-process median | whole process median"
        " | whole process, --no-refresh | rg -l -i -F median | rg files | rg / in-process |",
        "|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for q in queries:
        r = inproc.get(q, {})
        hits = r.get("hits", r.get("error", NA if status["api"] else "?"))
        detail.append(
            f"| `{q}` | {hits} | {fmt_s(per_query_in.get(q)) or NA} "
            f"| {fmt_s(whole[q].median) if q in whole else NA} "
            f"| {fmt_s(no_refresh[q].median) if q in no_refresh else ''} "
            f"| {fmt_s(rg_times[q].median) if q in rg_times else ''} | {rg_counts.get(q, '')} "
            f"| {_ratio(rg_times[q].median, per_query_in.get(q)) if q in rg_times else ''} |"
        )
    rg_med = med([rg_times[q].median for q in rg_times])
    rg_label = (
        f"rg -l -i -F, median over {len(rg_times)} word/phrase queries" if rg_times else "rg not installed"
    )
    rg_timing = Timing(rg_label, seconds=[rg_med]) if rg_med is not None else None
    if per_query_in:
        overall = Timing(
            f"Catalogue.search in-process, median over {len(per_query_in)} queries (min: fastest query)",
            seconds=list(per_query_in.values()),
        )
        rows.append(
            Row(
                "d. search (in-process)",
                overall,
                target=target_s,
                verdict=verdict(overall.median < TARGET_SEARCH_S),
                note=f"slowest query {fmt_s(max(per_query_in.values()))}; "
                f"{sum(v >= TARGET_SEARCH_S for v in per_query_in.values())} of {len(per_query_in)} "
                f"queries take {TARGET_SEARCH_S * 1000:.0f} ms or more",
            )
        )
        same = med([per_query_in[q] for q in rg_times if q in per_query_in])
        if rg_med is not None and same:
            ratio = rg_med / same
            rows.append(
                Row(
                    "d. search vs rg (in-process)",
                    Timing("same queries, in-process", seconds=[same]),
                    rg_timing,
                    f"{ratio:.1f}x",
                    target_rg,
                    verdict(ratio >= TARGET_SEARCH_VS_RG),
                )
            )
            # rg -l stops reading a file at its first match, so common words are cheap for rg and
            # selective ones cost a full scan; FTS5 is the other way round. Show both groups.
            half = int(manifest["count"]) / 2
            for group, pick in (("selective", lambda n: n < half), ("common", lambda n: n >= half)):
                qs = [q for q in rg_times if q in per_query_in and pick(rg_counts.get(q, 0))]
                ours_g, rg_g = med([per_query_in[q] for q in qs]), med([rg_times[q].median for q in qs])
                if ours_g and rg_g:
                    rows.append(
                        Row(
                            f"d. search vs rg, {len(qs)} {group} queries (in-process)",
                            Timing(
                                f"{group}: rg finds them in {'<' if group == 'selective' else '>='} "
                                "half of the sessions",
                                seconds=[ours_g],
                            ),
                            Timing(f"rg -l -i -F, {group} queries", seconds=[rg_g]),
                            f"{rg_g / ours_g:.1f}x",
                            verdict="info",
                        )
                    )
    else:
        rows.append(na_row("d. search (in-process)", status["api"] or "", target_s))
    if whole:
        per_query_whole = {q: t.median for q, t in whole.items()}
        overall = Timing(
            f"search QUERY --json (refreshes ROOT first), median over {len(whole)} queries",
            seconds=list(per_query_whole.values()),
        )
        failed = any(t.failed for t in whole.values())
        rows.append(
            Row(
                "d. search (whole process)",
                overall,
                target=target_s,
                verdict="INVALID (a command failed)" if failed else verdict(overall.median < TARGET_SEARCH_S),
                note="includes the warm refresh of ROOT that `search` does first",
            )
        )
        same = med([per_query_whole[q] for q in rg_times if q in per_query_whole])
        if rg_med is not None and same:
            ratio = rg_med / same
            rows.append(
                Row(
                    "d. search vs rg (whole process)",
                    Timing("same queries, whole process", seconds=[same]),
                    rg_timing,
                    f"{ratio:.1f}x",
                    target_rg,
                    verdict(ratio >= TARGET_SEARCH_VS_RG),
                )
            )
        if no_refresh:
            per_query_nr = {q: t.median for q, t in no_refresh.items()}
            overall_nr = Timing("search QUERY --json --no-refresh", seconds=list(per_query_nr.values()))
            same = med([per_query_nr[q] for q in rg_times if q in per_query_nr])
            ratio_text = f"{rg_med / same:.1f}x" if rg_med is not None and same else ""
            rows.append(
                Row(
                    "d. search --no-refresh (whole process)",
                    overall_nr,
                    rg_timing,
                    ratio_text,
                    verdict="info",
                )
            )
    else:
        rows.append(na_row("d. search (whole process)", status["search"] or "", target_s))
    if rg_timing is not None and not per_query_in and not whole:
        rows.append(Row("d. rg over the history (for comparison)", rg_timing, verdict="info"))
    raw = {
        "queries": queries,
        "inProcess": inproc,
        "wholeProcess": {q: [s.__dict__ for s in t.samples] for q, t in whole.items()},
        "noRefresh": {q: [s.__dict__ for s in t.samples] for q, t in no_refresh.items()},
        "rg": {q: [s.__dict__ for s in t.samples] for q, t in rg_times.items()},
        "rgFiles": rg_counts,
    }
    return rows, raw, detail


# ---------------------------------------------------------------------------------------------- e. list
def run_list(runner: Runner, runs: int, status: dict[str, str | None]) -> tuple[list[Row], dict[str, Any]]:
    """Our list from the warm catalogue against the reference's listAll."""
    root, cat = str(runner.root), str(runner.catalogue)
    target = f">= {TARGET_LIST_VS_REF:.0f}x the reference"
    ours = Timing("python -m core.cli list ROOT --catalogue DIR --json > /dev/null")
    ref = Timing("node context.mjs --list-all ROOT --brief > /dev/null")
    ours_argv = runner.cli("list", root, "--catalogue", cat, "--json")
    ref_argv = [runner.node, "context.mjs", "--list-all", root, "--brief"]
    counts: dict[str, Any] = {}
    can_list = status["list"] is None
    if runner.oracle is not None:
        sample, out, err = runner.capture("reference", ref_argv, runner.oracle)
        try:
            counts["reference"] = len(json.loads(out)["sessions"])
        except (ValueError, KeyError):
            counts["reference"] = f"unexpected output (exit {sample.status}): {err.strip()[-300:]}"
        print(f"warm-up reference listAll {sample.wall_s:.2f} s: {counts['reference']} sessions", flush=True)
    if can_list:
        sample, out, err = runner.capture("list", ours_argv)
        try:
            counts["ours"] = len(json.loads(out))
        except ValueError:
            counts["ours"] = f"unexpected output (exit {sample.status}): {err.strip()[-300:]}"
        print(f"warm-up list --json {sample.wall_s:.2f} s: {counts['ours']} sessions", flush=True)
    for run in range(1, runs + 1):
        line = f"list run {run}/{runs}:"
        if can_list:
            ours.samples.append(runner.time("list", ours_argv))
            line += f" ours {ours.samples[-1].wall_s:.3f} s"
        if runner.oracle is not None:
            ref.samples.append(runner.time("reference", ref_argv, runner.oracle))
            line += f" reference {ref.samples[-1].wall_s:.2f} s"
        print(line, flush=True)
    note = f"sessions listed: ours {counts.get('ours', '-')}, reference {counts.get('reference', '-')}"
    rows: list[Row] = []
    if can_list and ref.samples:
        ratio = ref.median / ours.median
        rows.append(
            Row(
                "e. list (warm catalogue) vs reference listAll",
                ours,
                ref,
                f"{ratio:.1f}x",
                target,
                verdict(ratio >= TARGET_LIST_VS_REF, ours, ref),
                note,
            )
        )
    elif ref.samples:
        rows.append(na_row("e. list (warm catalogue) vs reference listAll", status["list"] or "", target))
        rows.append(Row("e. reference listAll (for comparison)", ref, verdict="info", note=note))
    else:
        rows.append(na_row("e. list vs reference listAll", "the reference oracle is not available", target))
    raw = {
        "ours": [s.__dict__ for s in ours.samples],
        "reference": [s.__dict__ for s in ref.samples],
        "counts": counts,
    }
    return rows, raw


# ---------------------------------------------------------------------------------------------- report
def code_state() -> dict[str, int]:
    """Modification times of the library's source files, to notice edits during the runs."""
    return {str(p.relative_to(REPO)): p.stat().st_mtime_ns for p in sorted((REPO / "core").rglob("*.py"))}


def machine_info(runner: Runner, manifest: dict[str, Any], rg_exe: str | None) -> list[str]:
    """Lines describing the machine, the tools and the history."""
    cpu = "?"
    try:
        cpu = next(
            line.split(":", 1)[1].strip()
            for line in Path("/proc/cpuinfo").read_text().splitlines()
            if line.startswith("model name")
        )
    except (OSError, StopIteration):
        pass
    mem = "?"
    try:
        kib = next(
            int(x.split()[1])
            for x in Path("/proc/meminfo").read_text().splitlines()
            if x.startswith("MemTotal:")
        )
        mem = f"{kib / 1024 / 1024:.1f} GiB"
    except (OSError, StopIteration):
        pass
    nproc = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    py = first_line(
        [
            runner.python,
            "-c",
            "import sys, sqlite3, orjson;"
            " print(sys.version.split()[0], sqlite3.sqlite_version, orjson.__version__)",
        ]
    )
    git = ["git", "-C", str(REPO)]
    in_git = subprocess.run([*git, "rev-parse"], capture_output=True, check=False).returncode == 0
    commit = first_line([*git, "rev-parse", "--short", "HEAD"]) if in_git else "? (not a git checkout)"
    dirty = first_line([*git, "status", "--porcelain", "--untracked-files=all", "core"]) if in_git else ""
    load = ", ".join(f"{x:.2f}" for x in os.getloadavg())
    append = manifest["appendSession"]
    dates = " to ".join(str(x)[:10] for x in manifest["headerTimestamps"])
    return [
        f"- code: commit {commit}"
        + (" with uncommitted or untracked changes in core/" if dirty not in ("?", "") else ""),
        f"- date: {datetime.now(UTC).strftime('%Y-%m-%d %H:%M UTC')}",
        f"- machine: {platform.system()} {platform.release()} {platform.machine()}; CPU {cpu}; "
        f"nproc {nproc}; RAM {mem}; load average before the runs {load}",
        f"- python / sqlite / orjson: {py} ({runner.python})",
        f"- node: {first_line([runner.node, '--version'])}; reference {manifest.get('reference', '?')}; "
        f"rg: {first_line([rg_exe, '--version']) if rg_exe else 'not installed'}",
        f"- history: {manifest['count']} session files, {int(manifest['totalBytes']) / 1e6:.0f} MB, "
        f"{manifest['projects']} project folders, header dates {dates}; "
        f"the append target is `{Path(str(append['path'])).name}` ({int(append['bytes']) / 1e6:.1f} MB)",
        f"- catalogue folder: {runner.catalogue}",
        f"- this process's own peak RSS: {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MiB "
        "(a child's peak RSS from `os.wait4` is never reported below its parent's)",
        "- all files are in the page cache (the history is read once before timing), so the figures are "
        "for a warm disk cache; bytecode is cached (PYTHONPYCACHEPREFIX)",
    ]


def render(rows: list[Row], info: list[str], runs: int, detail: list[str], manifest: dict[str, Any]) -> str:
    """The Markdown report."""
    lines = ["# prime-sessions catalogue benchmark", "", *info, ""]
    lines.append(
        f"{runs} timed runs per measurement (round robin where two things are compared). Whole-process "
        "times are wall clock from `Popen` to `os.wait4`; in-process times come from "
        "`benchmarks/catalogue_probe.py` (`time.perf_counter` around the library call). Peak RSS is the "
        "highest `ru_maxrss` over the runs."
    )
    lines += [
        "",
        "| test | ours | median | min | peak RSS MiB | compared with | its median | ratio | target"
        " | verdict |",
        "|---|---|---:|---:|---:|---|---:|---:|---|---|",
    ]
    for r in rows:
        o, b = r.ours, r.base
        rss = f"{o.rss_mib:.0f}" if o is not None and o.rss_mib is not None else ""
        if b is not None and b.rss_mib is not None:
            rss += f" (vs {b.rss_mib:.0f})"
        cells = [
            r.test,
            f"`{o.label}`" if o else "",
            fmt_s(o.median) if o else "",
            fmt_s(o.min) if o and len(o.values()) > 1 else "",
            rss,
            f"`{b.label}`" if b else "",
            fmt_s(b.median) if b else "",
            r.ratio,
            r.target,
            f"**{r.verdict}**" if r.verdict in ("PASS", "FAIL") else r.verdict,
        ]
        lines.append("| " + " | ".join(cells) + " |")
    notes = [f"- {r.test}: {r.note}" for r in rows if r.note]
    if notes:
        lines += ["", "Notes:", "", *notes]
    if detail:
        lines += ["", "## Search queries", "", *detail]
    dist = manifest.get("distribution", [])
    lines += ["", "## History size distribution", "", "| size | files | MB |", "|---|---:|---:|"]
    for d in dist:
        lines.append(f"| {d['bucket']} | {d['files']} | {int(d['bytes']) / 1e6:.1f} |")
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------------------------------------- main
def ensure_history(args: argparse.Namespace) -> dict[str, Any]:
    """Build or confirm the history with ``make_history.py`` in a child process; return its manifest.

    A child process keeps this process small: a child's peak RSS as reported by ``os.wait4`` is
    never below its parent's at the time of the fork, so a large parent would hide the figures.
    """
    history = args.out / "history"
    argv = [args.python, str(BENCH / "make_history.py"), "--out", str(history), "--count", str(args.count)]
    argv += ["--target-mb", str(args.target_mb), "--seed", str(args.seed)]
    out = run_checked(argv, REPO, "history generation")
    print(out.split("\n{", 1)[0].strip(), flush=True)
    return json.loads((history / "manifest.json").read_text())


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    """Command-line options."""
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--runs", type=int, default=5, help="timed runs per measurement (default 5)")
    p.add_argument("--cold-runs", type=int, help="timed cold index builds (default: --runs)")
    p.add_argument(
        "--catalogue", type=Path, help="catalogue folder (default benchmarks/out/catalogue); it is deleted"
    )
    p.add_argument("--out", type=Path, default=DEFAULT_OUT, help="work folder (default benchmarks/out)")
    p.add_argument("--count", type=int, default=2000, help="sessions in the history (default 2000)")
    p.add_argument("--target-mb", type=float, default=500, help="size of the history (default 500)")
    p.add_argument("--seed", type=int, default=20260301, help="seed of the history")
    p.add_argument("--python", default=sys.executable, help="interpreter for our commands")
    p.add_argument("--node", default=shutil.which("node") or "node", help="Node 20.6+ for the reference")
    p.add_argument("--only", help=f"comma-separated sections ({','.join(SECTIONS)})")
    args = p.parse_args(argv)
    if args.runs < 1:
        p.error("--runs must be >= 1")
    args.out = args.out.resolve()
    args.sections = set(args.only.split(",")) if args.only else set(SECTIONS)
    if args.sections - set(SECTIONS):
        p.error(f"unknown section(s): {', '.join(sorted(args.sections - set(SECTIONS)))}")
    return args


def main(argv: list[str] | None = None) -> int:
    """Prepare, run, print and save the benchmark."""
    args = parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    catalogue = (args.catalogue or args.out / "catalogue").resolve()
    if catalogue in (REPO, Path.home(), Path("/")):
        print(f"run_catalogue: refusing to use {catalogue} as the catalogue folder (it is deleted)")
        return 2
    try:
        manifest = ensure_history(args)
        try:
            oracle: Path | None = prepare_oracle(args.out)
        except BenchError as err:
            print(f"run_catalogue: no reference oracle ({err}); the list comparison is skipped", flush=True)
            oracle = None
        history = args.out / "history"
        root = history / str(manifest["sessionsDir"])
        runner = Runner(args, root, catalogue, oracle)
        status = catalogue_status(runner)
        for what, reason in status.items():
            print(
                f"catalogue {what}: {'available' if reason is None else NA + ' (' + reason + ')'}", flush=True
            )
        rg_exe = shutil.which("rg")
        if rg_exe is None:
            print("run_catalogue: rg (ripgrep) not found; install it (apt-get install ripgrep) to compare")
        info = machine_info(runner, manifest, rg_exe)
        code_before = code_state()
        rows: list[Row] = []
        raw: dict[str, Any] = {
            "status": status,
            "manifest": {k: v for k, v in manifest.items() if k != "files"},
        }
        detail: list[str] = []
        if "cold" in args.sections:
            new, raw["cold"] = run_cold(runner, args.cold_runs or args.runs, status)
            rows += new
        if status["index"] is None and ("cold" not in args.sections or raw["cold"].get("indexError")):
            try:
                ensure_indexed(runner)
            except BenchError as err:  # the rest needs a catalogue: report it, still run rg and listAll
                print(f"run_catalogue: {err}", flush=True)
                for key in status:
                    status[key] = f"building the catalogue failed: {str(err)[-300:]}"
        if "warm" in args.sections:
            new, raw["warm"] = run_warm(runner, args.runs, status)
            rows += new
        if "append" in args.sections:
            new, raw["append"] = run_append(
                runner, args.runs, status, history / str(manifest["appendSession"]["path"])
            )
            rows += new
        if "search" in args.sections:
            new, raw["search"], detail = run_search(runner, args.runs, status, manifest, rg_exe)
            rows += new
        if "list" in args.sections:
            new, raw["list"] = run_list(runner, args.runs, status)
            rows += new
    except BenchError as err:
        print(f"run_catalogue: {err}", file=sys.stderr)
        return 1
    changed = sorted(k for k, v in code_state().items() if code_before.get(k) != v)
    if changed:
        info.append(f"- WARNING: source files changed during the runs: {', '.join(changed)}")
    report = render(rows, info, args.runs, detail, manifest)
    print()
    print(report)
    (args.out / "catalogue-results.md").write_text(report)
    raw["rows"] = [
        {
            "test": r.test,
            "median_s": r.ours.median if r.ours else None,
            "verdict": r.verdict,
            "ratio": r.ratio,
            "note": r.note,
        }
        for r in rows
    ]
    (args.out / "catalogue-results.json").write_text(json.dumps(raw, indent=1, default=str) + "\n")
    print(f"written: {args.out / 'catalogue-results.md'}, {args.out / 'catalogue-results.json'}")
    return 1 if any(r.verdict.startswith("INVALID") for r in rows) else 0


if __name__ == "__main__":
    sys.exit(main())
