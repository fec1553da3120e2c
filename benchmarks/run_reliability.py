"""The figures of the README's Reliability section: redaction recall, SIGKILL trials, concurrent writers.

Each part prints what it counted; nothing here is part of the test suite (the tests assert the same
rules on smaller runs). Run from the repository with the sources on ``sys.path`` (``PYTHONPATH=.``):

    python benchmarks/run_reliability.py recall               # survivors per kind and format, false positives
    python benchmarks/run_reliability.py kill [--trials N]    # SIGKILL during fork, clone and export writes
    python benchmarks/run_reliability.py writers [--edits N]  # labels while an agent writes lines in pieces
    python benchmarks/run_reliability.py contend [--edits N] [--processes 3]  # several editing processes
    python benchmarks/run_reliability.py purge                # a deleted session's words leave the catalogue
    python benchmarks/run_reliability.py tree                 # tree text output, 1,000 to 100,000 levels

``recall`` and ``writers`` load the test module and the test helpers of this checkout by path, so the
same measurement can be run against another checkout's ``core`` (``PYTHONPATH=OTHER``; for ``tree``, run it
from that checkout's folder) for comparison.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from types import ModuleType

import orjson

HERE = Path(__file__).resolve().parent.parent


def _load(relative: str, name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, HERE / relative)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def recall() -> None:
    """Every fake of every kind in two of 17 fields, exported as md, html and pdf: what survives."""
    from core.export import ExportOptions

    t = _load("tests/core/test_redaction_recall.py", "recall_fixtures")
    fakes = t._fakes()
    folder = Path(tempfile.mkdtemp())
    try:
        blocks = t._spread([[text for text, _secret in group] for group in fakes.values()])
        path = t._session(folder, [f"{block}\nthe {t.LITERAL} rollout" for block in blocks])
        exports = [(fmt, text, t._alnum_runs(text)) for fmt, text, _c in t._exports(path, _options(t))]
        total = survived = 0
        for kind, group in fakes.items():
            lost = {fmt: 0 for fmt, _text, _runs in exports}
            for _text, secret in group:
                for fmt, text, runs in exports:
                    if any(form in text for form in t._forms(secret)) or t._pieces(secret) & runs:
                        lost[fmt] += 1
            total += len(group)
            survived += max(lost.values())
            counts = "/".join(map(str, lost.values()))
            print(f"{kind:22} {len(group):3} fakes  surviving (md/html/pdf): {counts}")
        print(f"{len(fakes)} kinds, {total} fakes, each in 2 of {t.FIELDS} fields: {survived} survived")
        clean = t._clean_identifiers(random.Random(15))
        blocks = t._spread([clean])
        (folder / "clean").mkdir()
        path = t._session(folder / "clean", blocks)
        options = ExportOptions(redact=True)
        redacted = {fmt: sum(counts.values()) for fmt, _text, counts in t._exports(path, options)}
        print(f"{len(clean)} clean identifiers (git SHAs, UUIDs, integrity hashes, digests, base64 images):")
        print(f"  redactions per format: {redacted}")
    finally:
        shutil.rmtree(folder)


def _options(t: ModuleType) -> object:
    from core.export import ExportOptions

    return ExportOptions(redact=True, literals=(t.LITERAL,))


KILLED = (
    "import sys\n"
    "from core.session import load_session\n"
    "from core.writing import clone_session, fork_session, write_file\n"
    "what, source, folder = sys.argv[1:]\n"
    "session = load_session(source)\n"
    "print('go', flush=True)\n"
    "if what == 'clone':\n"
    "    clone_session(session, folder)\n"
    "elif what == 'fork':\n"
    "    fork_session(session, session.entries[-1].id, folder)\n"
    "else:\n"
    "    write_file(folder + '/export.html', open(source, 'rb').read() * 4, overwrite=True)\n"
)


def kill(trials: int) -> None:
    """SIGKILL a fork, clone or export at a random moment; count partial targets and temporaries."""
    from core.writing import remove_stale_temporaries
    from core.writing.atomic import TEMPORARY_PREFIX

    rng = random.Random(15)
    work = Path(tempfile.mkdtemp())
    source = work / "big.jsonl"
    _big_session(source)
    size = source.stat().st_size
    partial = left = removed = finished = 0
    left_bytes: list[int] = []
    kinds = ("clone", "fork", "export")
    try:
        # Each write timed once, unkilled, from "go" to exit: the kills fall anywhere in that span.
        span = {}
        for what in kinds:
            (work / what).mkdir()
            child, started = _start(what, source, work / what)
            child.wait()
            span[what] = time.perf_counter() - started
        for trial in range(trials):
            what = kinds[trial % 3]
            folder = work / f"t{trial}"
            folder.mkdir()
            child, _started = _start(what, source, folder)
            time.sleep(rng.uniform(0, span[what]))
            child.send_signal(signal.SIGKILL)
            child.wait()
            names = [p for p in folder.iterdir() if not p.name.startswith(TEMPORARY_PREFIX)]
            temporaries = [p for p in folder.iterdir() if p.name.startswith(TEMPORARY_PREFIX)]
            for target in names:
                finished += 1
                want = size * 4 if what == "export" else None
                data = target.read_bytes()
                if (want is not None and len(data) != want) or (want is None and not data.endswith(b"\n")):
                    partial += 1
            left += bool(temporaries)
            left_bytes += [p.stat().st_size for p in temporaries]
            removed += len(remove_stale_temporaries(folder, now=time.time() + 120))
            assert not [p for p in folder.iterdir() if p.name.startswith(TEMPORARY_PREFIX)]
        spans = ", ".join(f"{what} {seconds:.2f} s" for what, seconds in span.items())
        print(f"{trials} SIGKILL trials (clone, fork, export of a {size / 1e6:.1f} MB session; {spans}):")
        print(f"  finished before the kill: {finished}, partial targets: {partial}")
        mb = f"{min(left_bytes) / 1e6:.1f}-{max(left_bytes) / 1e6:.1f} MB" if left_bytes else "-"
        print(f"  trials leaving a temporary: {left} ({mb}); removed by the next write's clean-up: {removed}")
    finally:
        shutil.rmtree(work)


def _start(what: str, source: Path, folder: Path) -> tuple[subprocess.Popen[bytes], float]:
    """The write ``what`` in a child process, once it has read the session (and the time then)."""
    child = subprocess.Popen(
        [sys.executable, "-c", KILLED, what, str(source), str(folder)], stdout=subprocess.PIPE, cwd=HERE
    )
    assert child.stdout is not None and child.stdout.readline() == b"go\n"
    return child, time.perf_counter()


def _big_session(path: Path) -> None:
    """A linear session of about 8 MB (2,000 messages of 4 KB)."""
    ts = "2026-01-01T00:00:00.000Z"
    lines = [{"type": "session", "version": 3, "id": "big", "timestamp": ts, "cwd": "/p"}]
    for i in range(2000):
        lines.append(
            {
                "type": "message",
                "id": f"{i:08x}",
                "parentId": f"{i - 1:08x}" if i else None,
                "timestamp": ts,
                "message": {"role": "user", "content": "word " * 800, "timestamp": 1767225600000 + i},
            }
        )
    path.write_bytes(b"".join(orjson.dumps(line) + b"\n" for line in lines))


def writers(edits: int, locked: bool) -> None:
    """``edits`` labels while another process writes each of its lines in 4 pieces; count damaged lines."""
    from core.errors import PrimeSessionsError
    from core.session import load_session
    from core.writing import append_label

    helpers = _load("tests/helpers.py", "reliability_helpers")
    work = Path(tempfile.mkdtemp())
    try:
        file = _branched_sample(work)
        session = load_session(file)
        before = file.read_bytes()
        stop = work / "stop"
        agent = helpers.start_slow_agent(file, stop, pieces=4, pause=0.003, gap=0.03, lock_line_starts=locked)
        assert agent.stdout is not None and agent.stdout.readline() == "started\n"
        ours = refused = 0
        try:
            for i in range(edits):
                try:
                    append_label(session, session.entries[0].id, f"l{i}")
                    ours += 1
                except PrimeSessionsError:
                    refused += 1
                    session = load_session(file)
        finally:
            stop.touch()
            out, _err = agent.communicate(timeout=60)
        written = int(out)
        damaged, labels, intact = _lines_after(file, before)
        lost = written - len(intact)
        mode = "taking the lock for each line's first write" if locked else "never taking the lock"
        print(f"{edits} edits while an agent ({mode}) wrote {written} lines, each in 4 write() calls:")
        print(f"  labels written {ours} (found {labels}), refused {refused}; agent lines lost {lost}")
        print(f"  unreadable line fragments: {damaged}")
    finally:
        shutil.rmtree(work)


_EDITOR = """
import sys
sys.path.insert(0, sys.argv[4])  # the same sources as the benchmark's own process
from core.errors import PrimeSessionsError
from core.session import load_session
from core.writing import append_label
path, name, count = sys.argv[1], sys.argv[2], int(sys.argv[3])
session = load_session(path)
target = session.entries[0].id
ours = refused = 0
sys.stdout.write("ready\\n"); sys.stdout.flush()
sys.stdin.readline()  # all start together
for i in range(count):
    try:
        append_label(session, target, f"{name}-{i}")
        ours += 1
    except PrimeSessionsError:
        refused += 1
        session = load_session(path)
print(ours, refused)
"""


def contend(edits: int, processes: int, pieces: int, pause: float, gap: float) -> None:
    """``edits`` labels from ``processes`` processes at once while an agent writes lines in ``pieces``.

    The audit's case (issue 29): three app processes editing while an agent, taking no lock, writes
    each line in two ``write()`` calls. The editors take turns through the lock; what is left is an
    agent line starting in the instant between an editor's last look and its write. Counts the agent's
    lines and the labels that survive, and the line fragments nobody can read.
    """
    import core

    sources = str(Path(core.__file__).resolve().parent.parent)  # PYTHONPATH=OTHER measures that checkout
    helpers = _load("tests/helpers.py", "reliability_helpers")
    work = Path(tempfile.mkdtemp())
    try:
        file = _branched_sample(work)
        before = file.read_bytes()
        stop = work / "stop"
        share = [edits // processes + (1 if k < edits % processes else 0) for k in range(processes)]
        editors = [
            subprocess.Popen(
                [sys.executable, "-c", _EDITOR, str(file), f"p{k}", str(count), sources],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                text=True,
            )
            for k, count in enumerate(share)
        ]
        for editor in editors:
            assert editor.stdout is not None and editor.stdout.readline() == "ready\n"
        agent = helpers.start_slow_agent(
            file, stop, pieces=pieces, pause=pause, gap=gap, lock_line_starts=False
        )
        assert agent.stdout is not None and agent.stdout.readline() == "started\n"
        started = time.perf_counter()
        for editor in editors:
            assert editor.stdin is not None
            editor.stdin.write("go\n")
            editor.stdin.flush()
        ours = refused = 0
        for editor in editors:
            out, _err = editor.communicate(timeout=3600)
            done, failed = map(int, out.split())
            ours, refused = ours + done, refused + failed
        took = time.perf_counter() - started
        stop.touch()
        out, _err = agent.communicate(timeout=60)
        written = int(out)
        damaged, labels, intact = _lines_after(file, before)
        lost = written - len(intact)
        print(
            f"{edits} edits from {processes} processes in {took:.0f} s while an agent (no lock) wrote"
            f" {written} lines, each in {pieces} write() calls {pause * 1000:g} ms apart,"
            f" {gap * 1000:g} ms between lines:"
        )
        print(f"  labels written {ours} (found {labels}, lost {ours - labels}), refused {refused}")
        print(f"  agent lines lost {lost}; unreadable line fragments {damaged}")
        torn = max(lost, ours - labels)  # each collision tears one agent line (and, before, the label)
        print(f"  edits that tore a line: {torn} ({torn / max(ours, 1):.3%} of the edits)")
    finally:
        shutil.rmtree(work)


def purge(sessions: int) -> None:
    """``sessions`` generated sessions catalogued; one deleted (as the trash does); the next pass."""
    from core.catalogue import Catalogue

    rng = random.Random(15)
    vocabulary = [
        "".join(rng.choices("abcdefghijklmnopqrstuvwxyz", k=rng.randint(3, 11))) for _ in range(50_000)
    ]
    work = Path(tempfile.mkdtemp())
    try:
        root = work / "sessions"
        root.mkdir()
        ts = "2026-01-01T00:00:00.000Z"
        for n in range(sessions):
            lines: list[dict[str, object]] = [
                {"type": "session", "version": 3, "id": f"s{n:05d}", "timestamp": ts, "cwd": "/p"}
            ]
            for i in range(200):
                text = " ".join(rng.choices(vocabulary, k=150)) + (f" Zq7Secret{n:05d}" if i == 0 else "")
                lines.append(
                    {
                        "type": "message",
                        "id": f"{n:04x}{i:04x}",
                        "parentId": f"{n:04x}{i - 1:04x}" if i else None,
                        "timestamp": ts,
                        "message": {"role": "user", "content": text, "timestamp": 1767225600000 + i},
                    }
                )
            (root / f"s{n:05d}.jsonl").write_bytes(b"".join(orjson.dumps(line) + b"\n" for line in lines))
        history = sum(p.stat().st_size for p in root.iterdir())
        folder = work / "catalogue"
        cat = Catalogue(folder)
        first = cat.refresh([root])
        size = sum(p.stat().st_size for p in folder.glob("catalogue.sqlite3*"))
        (root / "s00000.jsonl").unlink()
        stats = cat.refresh([root])
        unchanged = cat.refresh([root])
        cat.close()
        data = b"".join(p.read_bytes() for p in folder.glob("catalogue.sqlite3*"))
        print(f"{sessions} sessions, {history / 1e6:.1f} MB; catalogue {size / 1e6:.1f} MB", end="")
        print(f" in {first.seconds:.1f} s")
        print(f"  one session deleted: {stats.texts_purged} texts purged, pass {stats.seconds:.2f} s")
        print(f"  (a pass with nothing removed: {unchanged.seconds:.2f} s)")
        # FTS5 stores a term after its neighbour's shared prefix: look for the distinctive tails.
        gone, kept = b"secret00000" in data, b"secret00001" in data
        print(f"  its secret in the catalogue's bytes: {gone}; another session's: {kept}")
    finally:
        shutil.rmtree(work)


def tree(depths: list[int]) -> None:
    """``tree`` text output of chains of nested branch points: its size and time per depth."""
    t = _load("tests/core/test_tree_text.py", "tree_fixtures")
    work = Path(tempfile.mkdtemp())
    try:
        for depth in depths:
            path = work / f"deep-{depth}.jsonl"
            t._nested_branches(path, depth)
            started = time.perf_counter()
            done = subprocess.run(
                [sys.executable, "-m", "core.cli", "tree", str(path)],
                capture_output=True,  # in the caller's folder: ``-m`` runs the core found there first
                check=False,
            )
            seconds = time.perf_counter() - started
            lines = done.stdout.count(b"\n")
            print(
                f"{depth:7} branch points: exit {done.returncode}, {len(done.stdout) / 1e6:.1f} MB,"
                f" {lines} lines"
                f" ({len(done.stdout) / max(lines, 1):.0f} bytes a line), {seconds:.1f} s"
            )
    finally:
        shutil.rmtree(work)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="part", required=True)
    sub.add_parser("recall")
    sub.add_parser("kill").add_argument("--trials", type=int, default=150)
    w = sub.add_parser("writers")
    w.add_argument("--edits", type=int, default=200)
    w.add_argument("--agent-locks", action="store_true", help="the agent takes flock for each line's start")
    c = sub.add_parser("contend")
    c.add_argument("--edits", type=int, default=5000)
    c.add_argument("--processes", type=int, default=3)
    c.add_argument("--pieces", type=int, default=2, help="write() calls per agent line")
    c.add_argument("--pause", type=float, default=0.003, help="seconds between an agent line's writes")
    c.add_argument("--gap", type=float, default=0.005, help="seconds between two agent lines")
    sub.add_parser("purge").add_argument("--sessions", type=int, default=300)
    sub.add_parser("tree").add_argument("--depths", type=int, nargs="+", default=[1000, 10000, 100000])
    args = parser.parse_args()
    os.environ.setdefault("PYTHONPATH", str(HERE))
    if args.part == "recall":
        recall()
    elif args.part == "kill":
        kill(args.trials)
    elif args.part == "writers":
        writers(args.edits, args.agent_locks)
    elif args.part == "contend":
        contend(args.edits, args.processes, args.pieces, args.pause, args.gap)
    elif args.part == "tree":
        tree(args.depths)
    else:
        purge(args.sessions)


def _branched_sample(work: Path) -> Path:
    """A copy of the branched sample session test_writer uses, as ``work/s.jsonl``."""
    samples = HERE.parent / "shared" / "reference" / "samples"
    pi = samples / "pi-layout" / "sessions" / "--home-dev-acme-webapp--"
    file = work / "s.jsonl"
    shutil.copy(next(pi.glob("2026-03-03T*.jsonl")), file)
    return file


def _lines_after(file: Path, before: bytes) -> tuple[int, int, set[str]]:
    """What was appended after ``before``: lines that do not parse, labels, and the agent's intact lines."""
    damaged = labels = 0
    intact: set[str] = set()
    for raw in file.read_bytes()[len(before) :].split(b"\n"):
        try:
            entry = orjson.loads(raw) if raw else None
        except orjson.JSONDecodeError:
            damaged += 1
            continue
        if entry is None:
            continue
        if entry.get("type") == "label":
            labels += 1
        elif entry.get("type") == "custom" and entry["data"]["pad"] == "x" * 300:
            intact.add(entry["id"])
    return damaged, labels, intact


if __name__ == "__main__":
    main()
