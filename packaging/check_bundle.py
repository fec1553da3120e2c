"""Drive a built bundle as a user would and compare it with the sources: ``python packaging/check_bundle.py``.

``python packaging/check_bundle.py [BUNDLE_DIR]`` (default ``build/dist/prime-sessions``), with the Python of
a virtual environment that has the project installed with its test extras (``pypdf``, and PyInstaller for
reading the bundle's archive). ``.ci/run`` runs it after building the bundle.

Every command runs twice on the same input in the same place, once as the frozen binary and once from the
sources (``python -m gui.launcher``), each time from an empty folder with a private ``HOME`` and private
XDG folders (the trash included), on a fresh copy of the demo sessions plus one session holding made-up
credentials (so that ``--redact`` has something to do):

* list, index, search, show, context, tree and check; export md, html and pdf with and without
  ``--redact``; diff text, html and json: Markdown, HTML, JSON and the other text outputs must be byte for
  byte the same (timings masked), every PDF must read back (pypdf) with the same pages and text;
* label, rename, fork, clone and trash: each must do what it says, read back by the sources' reader (the
  ids and timestamps they write are new each time, so these are not compared byte for byte).

Then the frozen binary alone: ``--version`` (pyproject's), a catalogue pass with a reader process (the
binary must start itself as the worker), ``--smoke-test`` and ``--scripted-check`` offscreen (a diff and
the HTML and PDF exports through the export dialog), ``check`` of a 120 MB session with its parse shared
by two worker processes (the binary started as each; the output one process of the sources gives); and
the bundle's contents: every module and Qt plugin
the spec says must be in it. Prints one line per check; the exit status is 1 when any failed.
"""

from __future__ import annotations

import ast
import os
import re
import shutil
import subprocess
import sys
import tempfile
import tomllib
from collections.abc import Callable
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
DEMO = REPO / "resources" / "demo"
SPEC = REPO / "packaging" / "prime-sessions.spec"
LINEAR = "019cadd3-8790-76fa-8ab0-c952ebef2dfd.jsonl"
BRANCHED = "019cb402-3c88-737c-a54e-8f5201941e04.jsonl"
SECRETS = "with-credentials.jsonl"
CREDENTIALS = (  # one of each kind the redaction looks for (made-up values)
    "AKIAIOSFODNN7EXAMPLQ ghp_A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8 "
    "xoxb-123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx sk_live_4eC39HqLyjWDarjtT1zdp7dc "
    'postgres://admin:S3cr3tP4ssw0rd@db.example.com:5432/app API_SECRET="Zx9vQ2LmN8pR4tYw7KbC" '
    "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c"
)
TIMINGS = re.compile(rb"\d+(\.\d+)? s\b")  # "read in 0.04 s": the only output that differs run to run
TIMEOUT = 300
_FOLDERS = ("home", "config", "cache", "data", "cwd", "out")  # made empty in every place a run starts from

Run = Callable[..., subprocess.CompletedProcess[bytes]]


class Report:
    """Collects one line per check; ``failed`` counts the failures."""

    def __init__(self) -> None:
        self.failed = 0
        self.passed = 0

    def check(self, ok: bool, what: str, why: str = "") -> bool:
        """Print ``ok``/``FAIL`` and ``what`` (with ``why`` after a failure); returns ``ok``."""
        if ok:
            self.passed += 1
            print(f"ok    {what}")
        else:
            self.failed += 1
            print(f"FAIL  {what}{': ' + why if why else ''}")
        return ok


def _environment(place: Path) -> dict[str, str]:
    """A private HOME and XDG folders under ``place``; nothing of the machine's user is read or written."""
    env = {key: value for key, value in os.environ.items() if not key.startswith(("PRIME_", "XDG_"))}
    env.update(
        HOME=str(place / "home"),
        XDG_CONFIG_HOME=str(place / "config"),
        XDG_CACHE_HOME=str(place / "cache"),
        XDG_DATA_HOME=str(place / "data"),  # send2trash's home trash is $XDG_DATA_HOME/Trash
        QT_QPA_PLATFORM="offscreen",
        PYTHONIOENCODING="utf-8",
        COLUMNS="100",
        LC_ALL="C.UTF-8",
    )
    return env


def _runner(command: list[str], place: Path, extra: dict[str, str] | None = None) -> Run:
    env = {**_environment(place), **(extra or {})}

    def run(
        *args: str | Path, readers: int | None = None, more: dict[str, str] | None = None
    ) -> subprocess.CompletedProcess[bytes]:
        more = dict(more or {})
        if readers is not None:
            more["PRIME_SESSIONS_READERS"] = str(readers)
        return subprocess.run(
            [*command, *map(str, args)],
            cwd=place / "cwd",  # an empty folder: nothing may be found relative to where it starts
            env={**env, **more},
            stdin=subprocess.DEVNULL,
            capture_output=True,
            timeout=TIMEOUT,
            check=False,
        )

    return run


def with_credentials(source: Path, target: Path) -> None:
    """Write ``target``: ``source`` with one more user message, holding made-up credentials, on its leaf."""
    import orjson

    lines = source.read_bytes().splitlines()
    last = orjson.loads(lines[-1])
    entry = {
        "type": "message",
        "id": "c0ffee00",
        "parentId": last["id"],
        "timestamp": last["timestamp"],
        "message": {"role": "user", "content": [{"type": "text", "text": CREDENTIALS}], "timestamp": 0},
    }
    target.write_bytes(b"\n".join([*lines, orjson.dumps(entry)]) + b"\n")


def _prepare(place: Path) -> Path:
    """A fresh copy of the demo sessions in ``place`` (and the session with credentials); its folder."""
    if place.exists():
        shutil.rmtree(place)
    for name in _FOLDERS:
        (place / name).mkdir(parents=True)
    sessions = place / "sessions"
    shutil.copytree(DEMO, sessions)
    with_credentials(sessions / BRANCHED, sessions / SECRETS)
    return sessions


def _leaves(path: Path) -> list[str]:
    from core.session import load_session

    session = load_session(path)
    parents = {entry.parent_id for entry in session.entries}
    return [e.id for e in session.entries if e.id not in parents and e.kind == "message"]


def _reading_commands(place: Path, sessions: Path) -> list[tuple[str, list[str | Path], str | None]]:
    """(name, arguments, output file or None for stdout) of every command whose output is compared."""
    catalogue = place / "catalogue"
    out = place / "out"
    branched = sessions / BRANCHED
    left, right = _leaves(branched)[:2]
    commands: list[tuple[str, list[str | Path], str | None]] = [
        ("index", ["index", sessions, "--catalogue", catalogue], None),
        ("list --json", ["list", sessions, "--catalogue", catalogue, "--json"], None),
        ("list", ["list", sessions, "--catalogue", catalogue, "--no-refresh"], None),
        ("search --json", ["search", "cache", "--catalogue", catalogue, "--json", "--no-refresh"], None),
        ("search", ["search", "login", "--catalogue", catalogue, "--no-refresh"], None),
        ("show", ["show", branched], None),
        ("context", ["context", branched], None),
        ("tree", ["tree", branched], None),
        ("tree --json", ["tree", branched, "--json"], None),
        ("check", ["check", *sorted(sessions.glob("*.jsonl"))], None),
        ("diff text", ["diff", branched, left, right], None),
        ("diff json", ["diff", branched, left, right, "--format", "json"], None),
        (
            "diff html",
            ["diff", branched, left, right, "--format", "html", "-o", out / "diff.html"],
            "diff.html",
        ),
    ]
    for fmt in ("md", "html", "pdf"):
        name = f"export-{fmt}.{fmt}"
        commands.append((f"export {fmt}", ["export", branched, "--tree", "-o", out / name], name))
        name = f"export-redacted-{fmt}.{fmt}"
        secret = sessions / SECRETS
        commands.append((f"export {fmt} --redact", ["export", secret, "--redact", "-o", out / name], name))
    return commands


def _outputs(run: Run, place: Path, report: Report, who: str) -> dict[str, tuple[int, bytes, bytes]]:
    """Run the reading commands in ``place``: name -> (exit status, output, stderr)."""
    sessions = _prepare(place)
    results: dict[str, tuple[int, bytes, bytes]] = {}
    for name, args, output in _reading_commands(place, sessions):
        done = run(*args)
        data = (place / "out" / output).read_bytes() if output and done.returncode == 0 else done.stdout
        results[name] = (done.returncode, TIMINGS.sub(b"N s", data), done.stderr)
        broken = (
            done.returncode not in (0, 1) or b"Traceback" in done.stderr or b"internal error" in done.stderr
        )
        if broken and who == "sources":  # the comparison below reports the frozen binary's failures
            report.check(False, f"{who}: {name}", done.stderr.decode(errors="replace").strip()[-800:])
    return results


def _said(done: subprocess.CompletedProcess[bytes]) -> str:
    """What a process said, without the offscreen platform's notes on what it cannot do."""
    lines = (done.stdout + done.stderr).decode(errors="replace").splitlines()
    return " ".join(line for line in lines if "This plugin does not support" not in line).strip()


def _pdf_text(data: bytes) -> tuple[int, list[str]]:
    import io

    from pypdf import PdfReader

    reader = PdfReader(io.BytesIO(data))
    return len(reader.pages), [page.extract_text() for page in reader.pages]


def compare_commands(frozen: Run, source: Run, place: Path, report: Report) -> None:
    """The reading commands, frozen and from the sources, on the same input in the same place."""
    expected = _outputs(source, place, report, "sources")
    actual = _outputs(frozen, place, report, "frozen")
    for name, (status, data, _err) in expected.items():
        got_status, got, err = actual[name]
        what = f"{name}: same as from the sources"
        if got_status != status:
            report.check(
                False, what, f"exit status {got_status}, not {status}: {err.decode(errors='replace')}"
            )
        elif name.startswith("export pdf"):
            pages, text = _pdf_text(data)
            got_pages, got_text = _pdf_text(got)
            same = (got_pages, got_text) == (pages, text)
            report.check(same, f"{name}: {got_pages} pages read back, as from the sources", "pages differ")
        else:
            report.check(got == data and bool(data), f"{what} ({len(got):,} bytes)", "the output differs")
    redacted = actual["export md --redact"][1]
    secrets = [
        "AKIAIOSFODNN7EXAMPLQ",
        "ghp_A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8",
        "S3cr3tP4ssw0rd",
        "Zx9vQ2LmN8pR4tYw7KbC",
    ]
    leaked = [secret for secret in secrets if secret.encode() in redacted]
    report.check(
        not leaked and b"[REDACTED:" in redacted, "export --redact replaces the credentials", str(leaked)
    )


def check_writing_commands(frozen: Run, place: Path, report: Report) -> None:
    """Label, rename, fork, clone and trash by the frozen binary, read back by the sources' reader."""
    from core.session import load_session

    sessions = _prepare(place)
    linear, branched = sessions / LINEAR, sessions / BRANCHED
    before = linear.read_bytes()
    session = load_session(linear)
    target = next(e.id for e in session.entries if e.kind == "message" and e.id not in session.labels)
    done = frozen("label", linear, target, "checked frozen")
    report.check(
        done.returncode == 0 and load_session(linear).labels.get(target) == "checked frozen",
        "label: the label is set",
        done.stderr.decode(errors="replace"),
    )
    done = frozen("rename", linear, "Renamed by the bundle")
    report.check(
        done.returncode == 0 and load_session(linear).name == "Renamed by the bundle",
        "rename: the session has the name",
        done.stderr.decode(errors="replace"),
    )
    report.check(linear.read_bytes().startswith(before), "label and rename only appended to the file")
    names = set(os.listdir(sessions))
    done = frozen("fork", branched, "--at", target_of(branched))
    forked = sorted(set(os.listdir(sessions)) - names)
    report.check(
        done.returncode == 0 and len(forked) == 1 and _parent_of(sessions / forked[0]) == str(branched),
        "fork: a new session whose parent is the source",
        done.stderr.decode(errors="replace"),
    )
    names = set(os.listdir(sessions))
    done = frozen("clone", branched)
    cloned = sorted(set(os.listdir(sessions)) - names)
    report.check(
        done.returncode == 0
        and len(cloned) == 1
        and len(load_session(sessions / cloned[0]).entries) == len(load_session(branched).entries),
        "clone: a new session with every entry",
        done.stderr.decode(errors="replace"),
    )
    data = branched.read_bytes()
    done = frozen("trash", "-y", branched)
    trashed = place / "data" / "Trash" / "files" / BRANCHED
    report.check(
        done.returncode == 0 and not branched.exists() and trashed.is_file() and trashed.read_bytes() == data,
        "trash: the file is in the private trash ($XDG_DATA_HOME/Trash), unchanged",
        done.stderr.decode(errors="replace"),
    )


def target_of(path: Path) -> str:
    """An entry in the middle of ``path``'s current branch (where to fork)."""
    from core.session import load_session

    session = load_session(path)
    branch = session.path_to(session.leaf_id)
    return branch[len(branch) // 2].id


def _parent_of(path: Path) -> str | None:
    from core.session import load_session

    return load_session(path).parent_session


def check_frozen_only(frozen: Run, place: Path, report: Report) -> None:
    """The version, a reader process, and the window offscreen: --smoke-test and --scripted-check."""
    sessions = _prepare(place)
    version = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]["version"]
    done = frozen("--version")
    said = done.stdout.decode().strip()
    report.check(said == f"prime-sessions {version}", f"--version says {said!r}", f"pyproject says {version}")
    catalogue = place / "catalogue-readers"
    done = frozen(
        "index", sessions, "--catalogue", catalogue, readers=1, more={"PRIME_SESSIONS_SNAPSHOT_MIN": "0"}
    )
    report.check(
        b"read whole (8 of them by 1 reader process(es))" in done.stdout,
        "index with a reader process: the binary starts itself as the worker",
        (done.stdout + done.stderr).decode(errors="replace"),
    )
    # The reader process wrote each session's snapshot (what the window reopens a big session from), and
    # it is whole: the sources read it back as the session they read from the file.
    from core.catalogue.snapshots import read_snapshot
    from core.session import load_session

    branched = sessions / BRANCHED
    restored = read_snapshot(catalogue, os.path.abspath(branched))
    expected = [(e.id, e.parent_id, e.line) for e in load_session(branched).entries]
    report.check(
        restored is not None and [(e.id, e.parent_id, e.line) for e in restored.session.entries] == expected,
        f"index wrote snapshots in its reader process, read back whole ({len(expected)} entries)",
        "no snapshot" if restored is None else "the snapshot differs from the file",
    )
    # A PDF painted by two child processes (the binary starts itself as each) and joined: the same
    # pages and text as the one-child export the comparison with the sources checked.
    parts = {}
    for count in (1, 2):
        target = place / f"parts-{count}.pdf"
        done = frozen(
            "export", branched, "--tree", "-o", target, more={"PRIME_SESSIONS_PDF_PARTS": str(count)}
        )
        pages, text = _pdf_text(target.read_bytes()) if done.returncode == 0 and target.exists() else (0, [])
        # pypdf places spaces by the glyph widths of each part's own font subset ("sta tus" in one,
        # "status" in the other): the characters and their order are what must agree.
        parts[count] = (pages, ["".join(page.split()) for page in text])
    report.check(
        parts[2][0] > 1 and parts[1] == parts[2],
        f"export pdf in two child processes: {parts[2][0]} pages, the same as one child's",
        f"one child: {parts[1][0]} pages, two: {parts[2][0]} pages",
    )
    done = frozen("--smoke-test")
    report.check(
        done.returncode == 0 and done.stdout.startswith(b"Smoke test passed:"),
        "--smoke-test: " + done.stdout.decode(errors="replace").strip()[:90],
        _said(done),
    )
    out = place / "out"
    done = frozen("--scripted-check", out)
    written = sorted(p.suffix for p in out.iterdir())
    pages = _pdf_text(next(out.glob("*.pdf")).read_bytes())[0] if ".pdf" in written else 0
    usage = b"the Usage window shown" in done.stdout  # Qt Charts (PySide6-Addons) in the bundle
    report.check(
        done.returncode == 0 and written == [".html", ".pdf"] and pages > 0 and usage,
        f"--scripted-check: diff window, HTML and PDF ({pages} pages) through the export dialog, Usage",
        _said(done),
    )
    home = [p for p in (place / "home").rglob("*")]
    report.check(not home, "nothing written to HOME", ", ".join(map(str, home[:5])))


def big_session(path: Path, size: int) -> None:
    """A session of about ``size`` bytes: a chain of messages, with a repeated id and a damaged line."""
    header = '{"type":"session","version":3,"id":"019d0000-0000-7000-8000-0000000000b1","timestamp":'
    lines = [header + '"2026-03-02T09:14:07.122Z","cwd":"/home/dev/big"}']
    text = "a line of a long session, " * 40
    number, written, parent = 0, 0, "null"
    while written < size:
        role = "user" if number % 2 == 0 else "assistant"
        line = (
            f'{{"type":"message","id":"m{number:07d}","parentId":{parent},"timestamp":"2026-03-02T09:15:00.000Z",'
            f'"message":{{"role":"{role}","content":[{{"type":"text","text":"{number} {text}"}}]}}}}'
        )
        lines.append(line)
        written += len(line) + 1
        parent = f'"m{number:07d}"'
        number += 1
        if number % 50_000 == 0:
            lines += ["{not json", lines[-1]]  # a line that is not JSON, an entry whose id is used again
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def check_split_reading(frozen: Run, source: Run, place: Path, report: Report) -> None:
    """``check`` of a 120 MB session with its parse shared by worker processes: one process's output.

    The binary starts itself as each worker (spawned: ``multiprocessing.freeze_support()`` in
    ``gui.launcher`` makes them workers); the sources read the file in one process.
    """
    _prepare(place)
    big = place / "big.jsonl"
    big_session(big, 120_000_000)
    split = frozen("check", "-v", big, more={"PRIME_SESSIONS_PARSERS": "2", "PRIME_SESSIONS_DEBUG": "1"})
    one = source("check", "-v", big, more={"PRIME_SESSIONS_PARSERS": "0"})
    said = split.stderr.decode(errors="replace").strip()
    report.check(
        "read in 3 parts, 2 of them by 2 worker processes" in said,
        "check of a 120 MB session in three processes: " + said[-80:],
        _said(split),
    )
    report.check(
        split.returncode == one.returncode == 1
        and split.stdout == one.stdout
        and b"duplicate-id" in one.stdout,
        f"... says what one process says ({len(one.stdout.splitlines())} lines, the same line numbers)",
        f"frozen {split.returncode}, sources {one.returncode}: {_said(one)}",
    )


def _spec_value(name: str) -> object:
    """A top-level constant of the spec (evaluated with ``sys`` only, as the spec computes it)."""
    for node in ast.parse(SPEC.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == name for t in node.targets
        ):
            return eval(compile(ast.Expression(node.value), str(SPEC), "eval"), {"sys": sys})
    raise SystemExit(f"check_bundle: {SPEC} defines no {name}")


def _bundled_modules(bundle: Path) -> set[str]:
    """Every module the frozen app can import: its archive, ``base_library.zip`` and extension files."""
    import zipfile

    from PyInstaller.archive.readers import CArchiveReader

    archive = CArchiveReader(str(bundle / "prime-sessions"))
    pyz = next(name for name in archive.toc if name.endswith(".pyz"))
    modules = set(archive.open_embedded_archive(pyz).toc)
    internal = bundle / "_internal"
    with zipfile.ZipFile(internal / "base_library.zip") as base:
        for name in base.namelist():
            if name.endswith(".pyc"):
                parts = name.removesuffix(".pyc").split("/")
                modules.add(".".join(parts[:-1] if parts[-1] == "__init__" else parts))
    for path in internal.rglob("*.so"):  # extension modules (and libraries, whose names do no harm here)
        modules.add(".".join([*path.relative_to(internal).parent.parts, path.name.split(".")[0]]))
    return modules


def _expected_modules(entry: str) -> set[str]:
    """``entry`` and, for a package, every module under it as installed here (as collect_submodules finds)."""
    import importlib
    import pkgutil

    module = importlib.import_module(entry)
    names = {entry}
    if hasattr(module, "__path__"):
        names.update(info.name for info in pkgutil.walk_packages(module.__path__, f"{entry}.", onerror=len))
    return names


def check_contents(bundle: Path, report: Report) -> None:
    """The modules loaded behind PyInstaller's analysis and the Qt plugins the spec requires are in it."""
    modules = _bundled_modules(bundle)
    runtime = _spec_value("RUNTIME_IMPORTS")
    assert isinstance(runtime, dict)
    for entry in runtime:
        expected = _expected_modules(entry)
        missing = sorted(expected - modules)
        report.check(not missing, f"bundle holds {entry} ({len(expected)} modules)", ", ".join(missing[:8]))
    plugins = bundle / "_internal" / "PySide6" / "Qt" / "plugins"
    required = _spec_value("REQUIRED_QT_PLUGINS")
    assert isinstance(required, dict)
    for kind, stems in sorted(required.items()):
        for stem in sorted(stems):
            found = (plugins / kind / f"lib{stem}.so").is_file()
            report.check(found, f"bundle holds the Qt plugin {kind}/{stem}", "missing")
    # Help > Documentation (F1) renders the README from beside gui/; without it the page is empty.
    readme = bundle / "_internal" / "README.md"
    report.check(readme.is_file(), "bundle holds README.md for Help > Documentation", "missing")


def main(argv: list[str]) -> int:
    """Run every check on the bundle (``argv[0]``, default ``build/dist/prime-sessions``); the exit status."""
    sys.path.insert(0, str(REPO))  # the sources' reader reads back what the frozen binary wrote
    bundle = Path(argv[0] if argv else REPO / "build" / "dist" / "prime-sessions").resolve()
    exe = bundle / "prime-sessions"
    if not exe.is_file():
        print(f"check_bundle: {exe} does not exist; build the bundle first", file=sys.stderr)
        return 2
    report = Report()
    with tempfile.TemporaryDirectory(prefix="prime-sessions-check-") as scratch:
        place = Path(scratch) / "run"
        frozen = _runner([str(exe)], place)
        source = _runner([sys.executable, "-m", "gui.launcher"], place, {"PYTHONPATH": str(REPO)})
        compare_commands(frozen, source, place, report)
        check_writing_commands(frozen, place, report)
        alone = Path(scratch) / "frozen-only"
        check_frozen_only(_runner([str(exe)], alone), alone, report)
        big = Path(scratch) / "split"
        check_split_reading(
            _runner([str(exe)], big),
            _runner([sys.executable, "-m", "gui.launcher"], big, {"PYTHONPATH": str(REPO)}),
            big,
            report,
        )
        check_contents(bundle, report)
    print(f"\n{report.passed} checks passed, {report.failed} failed ({bundle})")
    return 1 if report.failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
