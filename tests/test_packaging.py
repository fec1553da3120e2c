"""The packaging files: the PyInstaller spec's inputs, the desktop entry and the icon files.

The bundle itself is built and started by ``.ci/run`` (a PyInstaller build takes minutes, too long for the
test suite); these tests check what the build reads.
"""

from __future__ import annotations

import ast
import configparser
import importlib.metadata
import importlib.util
import json
import os
import re
import shutil
import struct
import subprocess
import sys
import tomllib
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from tests.conftest import REPO
from tests.helpers import load_script, private_environment

SPEC = REPO / "packaging" / "prime-sessions.spec"
DESKTOP = REPO / "packaging" / "prime-sessions.desktop"
ICONS = REPO / "resources" / "icons"
PROJECT = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


class _Recorder:
    """Stands in for one of PyInstaller's build steps: keeps the arguments the spec passes."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        self.args, self.kwargs = args, kwargs
        self.binaries: list[tuple[str, str, str]] = []
        self.datas: list[tuple[str, str, str]] = []
        self.pure: list = []
        self.scripts: list = []


@pytest.fixture(scope="module")
def spec(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    """The spec's namespace after running it once (it imports packages in subprocesses: seconds)."""
    pytest.importorskip("PyInstaller", reason="the spec needs PyInstaller (pip install -e '.[build]')")
    with pytest.MonkeyPatch.context() as monkeypatch:
        monkeypatch.delenv("PRIME_BUNDLE_KEEP_ALL", raising=False)
        yield _run_spec(tmp_path_factory.mktemp("pyinstaller-work"))


def _run_spec(workpath: Path) -> dict[str, Any]:
    """Execute the spec as PyInstaller does, with the build steps recording instead of building."""
    steps: dict[str, list[_Recorder]] = {}

    def step(name: str) -> type:
        return type(name, (_Recorder,), {"__init__": _record(name, steps)})

    namespace: dict[str, Any] = {
        "SPECPATH": str(SPEC.parent),
        "SPEC": str(SPEC),
        "__file__": str(SPEC),
        "workpath": str(workpath),
        **{name: step(name) for name in ("Analysis", "PYZ", "EXE", "COLLECT")},
    }
    exec(compile(SPEC.read_text(encoding="utf-8"), str(SPEC), "exec"), namespace)
    namespace["steps"] = steps
    return namespace


def _record(name: str, steps: dict[str, list[_Recorder]]) -> Any:
    def init(self: _Recorder, *args: Any, **kwargs: Any) -> None:
        _Recorder.__init__(self, *args, **kwargs)
        steps.setdefault(name, []).append(self)

    return init


def test_the_spec_takes_the_name_and_version_from_pyproject(spec: dict[str, Any]) -> None:
    assert (spec["NAME"], spec["VERSION"]) == (PROJECT["name"], PROJECT["version"])
    (exe,) = spec["steps"]["EXE"]
    (collect,) = spec["steps"]["COLLECT"]
    assert exe.kwargs["name"] == collect.kwargs["name"] == PROJECT["name"]
    assert exe.kwargs["exclude_binaries"] is True  # one folder: the libraries go to COLLECT
    (analysis,) = spec["steps"]["Analysis"]
    assert analysis.args[0] == [str(REPO / "gui" / "launcher.py")]  # the `prime-sessions` entry point
    assert PROJECT["scripts"]["prime-sessions"] == "gui.launcher:main"
    # importlib.metadata.version() in the bundle reads this dist-info, written from pyproject.toml.
    metadata = [(src, dest) for src, dest in analysis.kwargs["datas"] if dest.endswith(".dist-info")]
    assert [dest for _src, dest in metadata] == [f"prime_sessions-{PROJECT['version']}.dist-info"]
    dist = importlib.metadata.PathDistribution(Path(metadata[0][0]))
    assert (dist.metadata["Name"], dist.version) == (PROJECT["name"], PROJECT["version"])


def test_the_spec_bundles_every_module_and_file_of_core_and_gui(spec: dict[str, Any]) -> None:
    (analysis,) = spec["steps"]["Analysis"]
    hidden = set(analysis.kwargs["hiddenimports"])
    datas = {(Path(src), dest) for src, dest in analysis.kwargs["datas"]}
    for package in ("core", "gui"):
        for path in (REPO / package).rglob("*"):
            if "__pycache__" in path.parts or not path.is_file():
                continue
            relative = path.relative_to(REPO)
            if path.suffix == ".py":
                parts = relative.with_suffix("").parts
                assert ".".join(parts[:-1] if parts[-1] == "__init__" else parts) in hidden, relative
            elif path.suffix not in (".pyc", ".pyo") and not path.name.startswith("."):
                assert (path, str(relative.parent)) in datas, relative
    assert (REPO / "resources" / "demo", "resources/demo") in datas
    assert (ICONS / "prime-sessions-256.png", "resources/icons") in datas


def test_the_spec_collects_the_packages_imported_by_name(spec: dict[str, Any]) -> None:
    # importlib.import_module(f"pkg.{name}") is invisible to PyInstaller's analysis: every such package
    # must be in the spec's RUNTIME_IMPORTS, or the bundle silently lacks its modules.
    (analysis,) = spec["steps"]["Analysis"]
    hidden = set(analysis.kwargs["hiddenimports"])
    pattern = re.compile(r"import_module\(\s*f?[\"']([\w.]+)\.\{")
    for path in [*(REPO / "gui").rglob("*.py"), *(REPO / "core").rglob("*.py")]:
        for package in pattern.findall(path.read_text(encoding="utf-8")):
            if package.split(".")[0] in ("core", "gui"):
                continue  # every module of core/ and gui/ is bundled anyway
            assert package in spec["RUNTIME_IMPORTS"], f"{path.relative_to(REPO)} imports {package}.*"
            if importlib.util.find_spec(package.split(".")[0]) is not None:
                assert any(name.startswith(f"{package}.") for name in hidden), package


# ------------------------------------------------------------------ modules loaded behind the analysis
@pytest.fixture(scope="module")
def runtime_trace(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """What ``tests/runtime_imports.py`` saw the app load from the sources (offscreen, a private HOME)."""
    scratch = tmp_path_factory.mktemp("runtime-imports")
    env = private_environment(scratch)
    out = scratch / "trace.json"
    done = subprocess.run(
        [sys.executable, "-m", "tests.runtime_imports", str(out)],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    trace: dict[str, Any] = json.loads(out.read_text(encoding="utf-8"))
    return trace


def _named_in_sources(files: dict[str, str | None]) -> set[str]:
    """Every module some ``import`` statement of a loaded module names: what PyInstaller's analysis sees."""
    named: set[str] = set()
    for name, file in files.items():
        if not file or not file.endswith(".py") or not os.path.isfile(file):
            continue
        package = name if file.endswith("__init__.py") else name.rpartition(".")[0]
        for node in ast.walk(ast.parse(Path(file).read_bytes())):
            if isinstance(node, ast.Import):
                named.update(alias.name for alias in node.names)
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    parts = package.split(".")
                    parts = parts[: len(parts) - node.level + 1]
                    base = ".".join([*parts, base] if base else parts)
                named.add(base)
                named.update(f"{base}.{alias.name}" for alias in node.names)
    return named


def _behind_the_analysis(trace: dict[str, Any]) -> dict[str, str]:
    """Modules loaded from a file by compiled code or a computed name that no import statement names."""
    files: dict[str, str | None] = trace["files"]
    named = _named_in_sources(files)
    return {
        module: importer
        for module, importer in trace["hidden"].items()
        if module.split(".")[0] not in ("core", "gui")  # bundled whole anyway
        and os.path.isabs(files.get(module) or "")  # not a module built into a binary (shibokensupport)
        and module not in named
    }


def _covers(entry: str, module: str) -> bool:
    # A package entry collects every submodule; a module entry brings its parent packages along.
    return module == entry or module.startswith(f"{entry}.") or entry.startswith(f"{module}.")


def test_every_module_loaded_behind_the_import_analysis_is_collected(
    spec: dict[str, Any], runtime_trace: dict[str, Any]
) -> None:
    (analysis,) = spec["steps"]["Analysis"]
    hidden = set(analysis.kwargs["hiddenimports"])
    runtime = spec["RUNTIME_IMPORTS"]
    for module, importer in sorted(_behind_the_analysis(runtime_trace).items()):
        listed = [entry for entry in runtime if _covers(entry, module)]
        assert listed, f"{importer} loads {module} where PyInstaller cannot see it: add it to RUNTIME_IMPORTS"
        assert module in hidden or any(name.startswith(f"{module}.") for name in hidden), module


def test_every_runtime_import_of_the_spec_is_needed(
    spec: dict[str, Any], runtime_trace: dict[str, Any]
) -> None:
    behind = _behind_the_analysis(runtime_trace)
    for entry, reason in spec["RUNTIME_IMPORTS"].items():
        assert reason.strip()
        assert any(_covers(entry, module) for module in behind), f"nothing loads {entry} behind the analysis"


def test_the_trace_sees_imports_from_compiled_code_and_by_computed_name(
    runtime_trace: dict[str, Any],
) -> None:
    behind = _behind_the_analysis(runtime_trace)
    assert behind["_cffi_backend"].startswith("cmarkgfm.")  # from the C extension's initialisation
    lexers = [module for module in behind if module.startswith("pygments.lexers.")]
    assert "pygments.lexers.python" in lexers and "pygments.lexers.javascript" not in behind
    assert not any(
        module.startswith("detect_secrets") for module in behind
    )  # the plugins are imported by name


def test_the_spec_keeps_every_qt_plugin_the_app_needs(spec: dict[str, Any]) -> None:
    from PySide6.QtCore import QLibraryInfo

    from core.render.images import IMAGE_MIME_TYPES
    from gui.app import _IMAGE_FORMATS

    required = spec["REQUIRED_QT_PLUGINS"]
    formats = {mime.removeprefix("image/") for mime in IMAGE_MIME_TYPES} | set(_IMAGE_FORMATS)
    assert {f"q{fmt}" for fmt in formats - {"png"}} <= required["imageformats"]  # PNG is built into QtGui
    plugins = Path(QLibraryInfo.path(QLibraryInfo.LibraryPath.PluginsPath))
    for kind, stems in required.items():
        for stem in stems:
            name = f"lib{stem}.so" if sys.platform.startswith("linux") else f"{stem}.dll"
            assert (plugins / kind / name).is_file() or sys.platform == "darwin", (
                f"{kind}/{name} is not installed"
            )
            assert not spec["_is_excluded"](f"PySide6/Qt/plugins/{kind}/{name}"), f"{kind}/{stem} is left out"
    assert {"qxcb", "qwayland", "qoffscreen"} <= required["platforms"] or sys.platform in ("win32", "darwin")


@pytest.mark.parametrize(
    ("dest", "excluded"),
    [
        ("PySide6/Qt/plugins/platforms/libqoffscreen.so", False),
        ("PySide6/Qt/plugins/platforms/libqxcb.so", False),
        ("PySide6/Qt/plugins/platforms/libqwayland.so", False),
        ("PySide6/Qt/plugins/platforms/libqeglfs.so", True),
        ("PySide6/Qt/plugins/platforms/libqvnc.so", True),
        ("PySide6/Qt/plugins/imageformats/libqjpeg.so", False),
        ("PySide6/Qt/plugins/imageformats/libqwebp.so", False),
        ("PySide6/Qt/plugins/imageformats/libqgif.so", False),
        ("PySide6/Qt/plugins/imageformats/libqsvg.so", False),
        ("PySide6/Qt/plugins/imageformats/libqpdf.so", True),
        ("PySide6/Qt/plugins/imageformats/libqtiff.so", True),
        ("PySide6/Qt/plugins/iconengines/libqsvgicon.so", False),
        ("PySide6/Qt/plugins/platformthemes/libqxdgdesktopportal.so", False),
        ("PySide6/Qt/plugins/platformthemes/libqgtk3.so", True),
        ("PySide6/Qt/plugins/generic/libqtuiotouchplugin.so", True),
        ("PySide6/Qt/plugins/tls/libqopensslbackend.so", True),
        ("PySide6/Qt/plugins/xcbglintegrations/libqxcb-glx-integration.so", False),
        ("PySide6/Qt/plugins/wayland-shell-integration/libxdg-shell.so", False),
        ("PySide6/Qt/translations/qtbase_de.qm", True),
        ("PySide6/Qt/lib/libQt6Widgets.so.6", False),
        ("PySide6/QtWidgets.abi3.so", False),
        ("resources/demo/README.md", False),
    ],
)
def test_the_spec_leaves_out_unused_qt_plugins(spec: dict[str, Any], dest: str, excluded: bool) -> None:
    assert spec["_is_excluded"](dest) is excluded


def test_the_spec_excludes_unused_qt_modules_but_never_an_imported_one(spec: dict[str, Any]) -> None:
    (analysis,) = spec["steps"]["Analysis"]
    excludes = set(analysis.kwargs["excludes"])
    used = {"PySide6.QtCore", "PySide6.QtGui", "PySide6.QtWidgets", "PySide6.QtSvg", "PySide6.QtPrintSupport"}
    imported: set[str] = set()
    for path in [*(REPO / "gui").rglob("*.py"), *(REPO / "core").rglob("*.py")]:
        for line in path.read_text(encoding="utf-8").splitlines():
            words = line.replace(",", " ").split()
            if len(words) >= 2 and words[0] in ("from", "import") and words[1].startswith("PySide6."):
                imported.add(words[1])  # from PySide6.QtX import ... / import PySide6.QtX
            elif words[:3] == ["from", "PySide6", "import"]:
                imported.update(f"PySide6.{name}" for name in words[3:] if name.startswith("Qt"))
    assert not (used | imported) & excludes
    for module in ("QtNetwork", "QtQml", "QtQuick", "QtWebEngineCore", "Qt3DCore", "QtMultimedia"):
        assert f"PySide6.{module}" in excludes or f"PySide6.{module}" in imported


def test_the_desktop_entry_starts_the_command_with_the_icon() -> None:
    parser = configparser.ConfigParser(interpolation=None)
    parser.optionxform = str  # keys are case-sensitive
    parser.read(DESKTOP, encoding="utf-8")
    entry = parser["Desktop Entry"]
    assert entry["Type"] == "Application"
    assert entry["Exec"].split()[0] == entry["TryExec"] == PROJECT["name"]
    assert PROJECT["name"] in PROJECT["scripts"]
    assert entry["Icon"] == "prime-sessions"
    assert (ICONS / f"{entry['Icon']}.svg").is_file()
    assert entry["StartupWMClass"] == PROJECT["name"]
    validate = shutil.which("desktop-file-validate")
    if validate is None:
        pytest.skip("desktop-file-validate is not installed (apt-get install desktop-file-utils)")
    done = subprocess.run([validate, str(DESKTOP)], capture_output=True, text=True, timeout=60)
    assert (done.returncode, done.stdout + done.stderr) == (0, "")


def _render_icons() -> ModuleType:
    return load_script(REPO / "packaging" / "render_icons.py")


def test_the_committed_icons_are_the_svg_rendered(qapp) -> None:
    from PySide6.QtGui import QImage
    from PySide6.QtSvg import QSvgRenderer

    render_icons = _render_icons()
    renderer = QSvgRenderer(str(render_icons.SOURCE))
    assert renderer.isValid()
    for size in render_icons.SIZES:
        committed = QImage(str(ICONS / f"prime-sessions-{size}.png"))
        assert (committed.width(), committed.height()) == (size, size)
        fresh = QImage.fromData(render_icons.render_png(renderer, size))
        # Another Qt version may round antialiased edges a little differently; a changed drawing moves whole
        # shapes, so many channel values differ by much more.
        committed = bytes(committed.convertToFormat(QImage.Format.Format_ARGB32).constBits())
        fresh = bytes(fresh.convertToFormat(QImage.Format.Format_ARGB32).constBits())
        far_off = sum(1 for a, b in zip(committed, fresh, strict=True) if abs(a - b) > 24)
        assert far_off <= len(fresh) // 500, (
            f"prime-sessions-{size}.png is stale: run packaging/render_icons.py"
        )
    assert (ICONS / "prime-sessions.png").read_bytes() == (ICONS / "prime-sessions-256.png").read_bytes()


def test_the_ico_holds_every_png() -> None:
    data = (ICONS / "prime-sessions.ico").read_bytes()
    reserved, kind, count = struct.unpack_from("<HHH", data)
    assert (reserved, kind) == (0, 1)
    sizes = []
    for index in range(count):
        width, height, _colours, _zero, _planes, bits, length, offset = struct.unpack_from(
            "<BBBBHHII", data, 6 + 16 * index
        )
        size = width or 256
        assert (width, height, bits) == (size % 256, size % 256, 32)
        png = data[offset : offset + length]
        assert png.startswith(PNG_SIGNATURE)
        assert png == (ICONS / f"prime-sessions-{size}.png").read_bytes()
        sizes.append(size)
    assert sorted(sizes) == sorted(_render_icons().SIZES)


def test_build_output_is_git_ignored() -> None:
    if shutil.which("git") is None or not (REPO / ".git").exists():
        pytest.skip("not a git checkout")
    done = subprocess.run(
        ["git", "check-ignore", "build/dist/prime-sessions/prime-sessions", "build/work/x.toc"],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert len(done.stdout.splitlines()) == 2


def test_every_picture_the_readme_shows_is_in_the_repository() -> None:
    # The README names its screenshots by path; a view renamed or not shot again left a broken picture.
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    pictures = re.findall(r"!\[[^\]]*\]\(([^)\s]+)\)", readme)
    assert pictures
    assert [p for p in pictures if not (REPO / p).is_file()] == []


def test_the_entry_point_makes_a_started_copy_of_itself_a_worker_first() -> None:
    """Catalogue readers and the split parse (``core.session.parallel``) spawn the frozen binary itself:
    ``multiprocessing.freeze_support()`` must run before anything else the entry point does."""
    import ast

    tree = ast.parse((REPO / "gui" / "launcher.py").read_text(encoding="utf-8"))
    main = next(node for node in tree.body if isinstance(node, ast.FunctionDef) and node.name == "main")
    body = [
        node
        for node in main.body
        if not isinstance(node, ast.Expr) or not isinstance(node.value, ast.Constant)
    ]
    first = body[0]
    assert isinstance(first, ast.Expr) and isinstance(first.value, ast.Call)
    assert ast.unparse(first.value.func) == "multiprocessing.freeze_support"
    assert 'multiprocessing.get_context("spawn")' in (REPO / "core" / "session" / "parallel.py").read_text()
