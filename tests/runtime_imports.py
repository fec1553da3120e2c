"""Which modules the app loads behind PyInstaller's back: ``python -m tests.runtime_imports OUT.json``.

Run from the sources in a fresh interpreter (``tests/test_packaging.py`` does, offscreen, with a private
HOME). An audit hook sees every module imported for the first time and the Python line that caused it;
an import is *hidden* when that line is no ``import`` statement naming the module: the module was
imported from compiled code (cmarkgfm's C extension importing ``_cffi_backend``) or by a name computed at
run time (Pygments finding a lexer's module), which PyInstaller's analysis of import statements cannot
see. The app is then driven through what loads such modules: the window's ``--scripted-check`` (a
diff and the HTML and PDF exports through the dialog), every CLI command that reads or writes, the
exports with redaction of a session holding credentials, and the message view's rendering of every demo
entry in both palettes.

OUT gets ``{"hidden": {module: "importer:line"}, "files": {module: file or null}}`` for every module
loaded, so the test can tell which of the hidden ones some other loaded module imports by name anyway.
"""

from __future__ import annotations

import ast
import linecache
import os
import sys
from functools import cache

_HIDDEN: dict[str, str] = {}
_IMPORTLIB = f"{os.sep}importlib{os.sep}__init__.py"  # import_module(); the rest is "<frozen importlib...>"


@cache
def _named_at(filename: str, line: int, package: str | None) -> frozenset[str]:
    """The modules an ``import`` statement covering ``line`` of ``filename`` names (with their parents)."""
    try:
        tree = ast.parse("".join(linecache.getlines(filename)))
    except (SyntaxError, ValueError):
        return frozenset()
    names: set[str] = set()
    for node in ast.walk(tree):
        if not isinstance(node, ast.Import | ast.ImportFrom):
            continue
        if not node.lineno <= line <= (node.end_lineno or node.lineno):
            continue
        if isinstance(node, ast.Import):
            modules = [alias.name for alias in node.names]
        else:
            base = node.module or ""
            if node.level:  # relative: level 1 is the package itself, 2 its parent, ...
                parts = (package or "").split(".")
                parts = parts[: len(parts) - node.level + 1]
                base = ".".join([*parts, base] if base else parts)
            modules = [base, *(f"{base}.{alias.name}" for alias in node.names)]
        for module in modules:
            parts = module.split(".")
            names.update(".".join(parts[:end]) for end in range(1, len(parts) + 1))
    return frozenset(names)


def _in_importlib(filename: str) -> bool:
    return filename.startswith("<frozen importlib") or filename.endswith(_IMPORTLIB)


def _audit(event: str, args: tuple[object, ...]) -> None:
    if event != "import":
        return
    name = str(args[0])
    frame = sys._getframe(1)
    while frame is not None and _in_importlib(frame.f_code.co_filename):
        frame = frame.f_back  # the import system's own frames: the importer is the first frame outside it
    if frame is None:
        return
    named = _named_at(frame.f_code.co_filename, frame.f_lineno, frame.f_globals.get("__package__"))
    if name not in named:
        _HIDDEN.setdefault(name, f"{frame.f_globals.get('__name__')}:{frame.f_lineno}")


sys.addaudithook(_audit)

# ----------------------------------------------------------------------------------------- the app's paths
import json  # noqa: E402 (after the hook: what these load is traced too)
import shutil  # noqa: E402
import tempfile  # noqa: E402
from pathlib import Path  # noqa: E402

from tests.helpers import load_script  # noqa: E402

REPO = Path(__file__).resolve().parent.parent
DEMO = REPO / "resources" / "demo"
BRANCHED = "019cb402-3c88-737c-a54e-8f5201941e04.jsonl"


def _drive(scratch: Path) -> None:
    import gui.app
    import gui.launcher

    sessions = scratch / "sessions"
    shutil.copytree(DEMO, sessions)
    out = scratch / "window"
    out.mkdir()
    if gui.app.main(["--scripted-check", str(out)]) != 0:
        raise SystemExit("runtime_imports: the scripted check failed")
    secret = sessions / "with-credentials.jsonl"
    load_script(REPO / "packaging" / "check_bundle.py").with_credentials(sessions / BRANCHED, secret)
    catalogue = str(scratch / "catalogue")
    commands = [
        ["index", str(sessions), "--catalogue", catalogue],
        ["list", str(sessions), "--catalogue", catalogue, "--json"],
        ["search", "login", "--catalogue", catalogue, "--json"],
        ["show", str(secret)],
        ["tree", str(secret), "--json"],
        ["context", str(secret)],
        ["check", *map(str, sorted(sessions.glob("*.jsonl")))],
        ["diff", str(sessions / BRANCHED), "leaf", "leaf", "--format", "json"],
        ["diff", str(sessions / BRANCHED), "leaf", "leaf", "--format", "html", "-o", str(scratch / "d.html")],
        ["pin", str(sessions / BRANCHED)],
        ["tag", str(sessions / BRANCHED), "kept"],
        ["notes", "export", "-o", str(scratch / "notes.json")],
        ["notes", "import", str(scratch / "notes.json")],
    ]
    for fmt in ("md", "html", "pdf"):
        commands.append(["export", str(secret), "--tree", "-o", str(scratch / f"plain.{fmt}")])
        commands.append(["export", str(secret), "--tree", "--redact", "-o", str(scratch / f"redacted.{fmt}")])
    for command in commands:
        if gui.launcher.main(command) not in (0, 1):  # check and diff exit 1 on findings
            raise SystemExit(f"runtime_imports: {' '.join(command)} failed")

    from core.render import RenderOptions, render_entries
    from core.session import load_session

    for path in sorted(sessions.glob("*.jsonl")):
        session = load_session(path)
        for dark in (False, True):
            render_entries(session, session.entries, RenderOptions(dark=dark))


def main(argv: list[str]) -> int:
    """Drive the app, then write what was loaded and how (see the module docstring)."""
    with tempfile.TemporaryDirectory(prefix="prime-sessions-imports-") as scratch:
        _drive(Path(scratch))
    files = {
        name: getattr(module, "__file__", None)
        for name, module in sorted(sys.modules.items())
        if module is not None
    }
    Path(argv[0]).write_text(json.dumps({"hidden": _HIDDEN, "files": files}, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
