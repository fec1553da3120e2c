"""Shared fixtures: where the reference samples and the real corpus live."""

from __future__ import annotations

import hashlib
import os
import shutil
import stat
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

REPO = Path(__file__).resolve().parent.parent
SHARED = Path(os.environ.get("PRIME_SHARED_DIR", REPO.parent / "shared"))
SAMPLES = SHARED / "reference" / "samples"
EXPECTED = SAMPLES / "expected"
CORPUS = SHARED / "corpus" / "real"
DEMO = REPO / "resources" / "demo"


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Mark each test by what it uses: the oracle (node), Chromium, or the packaging tools."""
    for item in items:
        fixtures = getattr(item, "fixturenames", ())
        if "oracle_dir" in fixtures:
            item.add_marker(pytest.mark.oracle)
        parts = item.path.parts
        if "browser" in parts:
            item.add_marker(pytest.mark.browser)
        if item.path.name == "test_packaging.py":
            item.add_marker(pytest.mark.packaging)


@pytest.fixture(scope="session")
def samples_dir() -> Path:
    if not SAMPLES.is_dir():
        pytest.fail(f"reference samples not found at {SAMPLES}; set PRIME_SHARED_DIR")
    return SAMPLES


ORACLE_SRC = SHARED / "reference" / "oracle"
ORACLE_MIN_NODE = (20, 6)  # package.json "engines": the scripts use import.meta.resolve


def _node_version() -> tuple[int, ...] | None:
    try:
        out = subprocess.run(["node", "--version"], capture_output=True, text=True, timeout=30, check=True)
    except (OSError, subprocess.SubprocessError):
        return None
    try:
        return tuple(int(part) for part in out.stdout.strip().lstrip("v").split(".")[:2])
    except ValueError:
        return None


def _install_oracle() -> Path:
    """Copy the oracle to a per-lockfile cache folder and ``npm ci`` it there, once."""
    lock = ORACLE_SRC / "package-lock.json"
    if not lock.is_file():
        pytest.fail(f"the oracle was not found at {ORACLE_SRC}; set PRIME_SHARED_DIR or PRIME_ORACLE_DIR")
    digest = hashlib.sha256(lock.read_bytes()).hexdigest()[:16]
    cache = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "prime-sessions"
    target = cache / f"oracle-{digest}"
    if (target / "node_modules").is_dir():
        return target
    cache.mkdir(parents=True, exist_ok=True)
    # Install into a private folder, then rename: an interrupted or concurrent run never leaves a
    # half-installed oracle behind under the final name.
    staging = Path(tempfile.mkdtemp(prefix=f"oracle-{digest}-", dir=cache))
    try:
        skip = shutil.ignore_patterns("node_modules")
        shutil.copytree(ORACLE_SRC, staging, dirs_exist_ok=True, ignore=skip)
        for path in [staging, *staging.rglob("*")]:  # the shared folder is read-only; npm must write
            path.chmod(path.stat().st_mode | stat.S_IWUSR)
        result = subprocess.run(
            ["npm", "ci", "--ignore-scripts", "--no-audit", "--no-fund"],
            cwd=staging,
            capture_output=True,
            text=True,
            timeout=900,
            stdin=subprocess.DEVNULL,
        )
        if result.returncode != 0:
            pytest.fail(f"'npm ci' for the oracle failed in {staging}:\n{result.stderr[-4000:]}")
        try:
            staging.rename(target)
        except OSError:
            if not (target / "node_modules").is_dir():  # someone else won the race: use theirs
                raise
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return target


@pytest.fixture(scope="session")
def oracle_dir() -> Path:
    """A folder holding the reference oracle (gen.mjs, context.mjs, ...) with its node_modules installed.

    ``PRIME_ORACLE_DIR`` wins when it points at an installed copy; otherwise the shared folder's copy is
    installed once into ``$XDG_CACHE_HOME`` (default ``~/.cache``)
    ``/prime-sessions/oracle-<hash of package-lock.json>`` and reused. Skips without Node 20.6+ or npm.
    """
    if shutil.which("node") is None:
        pytest.skip("the reference oracle needs node on PATH (Node 20.6+)")
    version = _node_version()
    if version is None or version < ORACLE_MIN_NODE:
        found = ".".join(map(str, version)) if version else "unknown"
        pytest.skip(f"the reference oracle needs Node {'.'.join(map(str, ORACLE_MIN_NODE))}+ (found {found})")
    given = os.environ.get("PRIME_ORACLE_DIR")
    if given and (Path(given) / "node_modules").is_dir():
        return Path(given)
    if shutil.which("npm") is None:
        pytest.skip("installing the reference oracle needs npm on PATH (or set PRIME_ORACLE_DIR)")
    return _install_oracle()


@pytest.fixture(autouse=True)
def _private_catalogue(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Every test gets its own catalogue folder: tests never touch the user's cache."""
    folder = tmp_path_factory.mktemp("catalogue")
    monkeypatch.setenv("PRIME_SESSIONS_CATALOGUE", str(folder))
    return folder


@pytest.fixture(autouse=True)
def _private_notes(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Every test gets its own notes folder (archive, pin, tags): tests never touch the user's notes."""
    folder = tmp_path_factory.mktemp("notes")
    monkeypatch.setenv("PRIME_SESSIONS_NOTES", str(folder))
    return folder


@contextmanager
def shallow_stack(headroom: int = 150) -> Iterator[None]:
    """Allow only ``headroom`` Python frames beyond the caller's depth: any recursion over entries fails."""
    depth = 0
    frame = sys._getframe()
    while frame is not None:
        depth += 1
        frame = frame.f_back
    old = sys.getrecursionlimit()
    sys.setrecursionlimit(depth + headroom)
    try:
        yield
    finally:
        sys.setrecursionlimit(old)
