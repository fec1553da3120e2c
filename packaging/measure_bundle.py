"""Size and start-up figures of a built bundle: ``python packaging/measure_bundle.py [BUNDLE_DIR ...]``.

For each one-folder bundle (default ``build/dist/prime-sessions``) prints its size on disk, its file count and
its largest parts, then times whole processes, each the median of :data:`RUNS` runs, side by side with the
same commands run from the sources by this Python (the reference figure of the same run):

* ``--version`` (the CLI path: no Qt is imported);
* ``check`` on the demo sessions (the CLI reading sessions);
* ``--smoke-test`` offscreen (the window: demo listed, one session loaded, a message rendered);
* the window on the demo folder until it is built and shown: the time until it listens for later starts
  (``gui.single_instance``: the socket appears just before ``show()``), then the process is ended.

Every process gets a private ``HOME``, runtime folder and catalogue, so nothing of the user's is read or
written (and no window of the user's is reached).
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
DEMO = REPO / "resources" / "demo"
RUNS = 5


def _size(path: Path) -> int:
    """Bytes of the regular files under ``path`` (symlinks not followed)."""
    return sum(p.lstat().st_size for p in path.rglob("*") if p.is_file() and not p.is_symlink())


def _parts(bundle: Path) -> list[tuple[int, str]]:
    """The pieces of a bundle: Qt libraries, plugins, translations, the PySide6 bindings, the rest."""
    internal = bundle / "_internal"
    qt = internal / "PySide6" / "Qt"
    rows = [(_size(p), str(p.relative_to(bundle))) for p in (qt / "lib", qt / "plugins", qt / "translations")]
    rows.append((_size(internal / "PySide6") - _size(qt), "_internal/PySide6 (the bindings, without Qt/)"))
    rest = _size(bundle) - sum(size for size, _name in rows)
    return [*rows, (rest, "everything else (executable, Python, system libraries, data)")]


def _median_secs(command: list[str], env: dict[str, str], cwd: Path) -> float:
    times = []
    for _ in range(RUNS):
        started = time.perf_counter()
        done = subprocess.run(command, env=env, cwd=cwd, capture_output=True, timeout=300)
        times.append(time.perf_counter() - started)
        if done.returncode != 0:
            raise SystemExit(f"measure_bundle: {' '.join(command)} failed: {done.stderr.decode()[-2000:]}")
    return statistics.median(times)


def _window_secs(command: list[str], env: dict[str, str], cwd: Path) -> float:
    """Median seconds from starting the window until it listens on its socket (built, about to show)."""
    socket = Path(env["XDG_RUNTIME_DIR"]) / "prime-sessions.socket"
    times = []
    for _ in range(RUNS):
        started = time.perf_counter()
        process = subprocess.Popen(
            [*command, str(DEMO)], env=env, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
        )
        try:
            while not socket.exists():
                if process.poll() is not None:
                    raise SystemExit(
                        f"measure_bundle: the window ended: {process.stderr.read().decode()[-2000:]}"
                    )
                if time.perf_counter() - started > 120:
                    raise SystemExit("measure_bundle: the window did not start within 120 s")
                time.sleep(0.002)
            times.append(time.perf_counter() - started)
        finally:
            process.terminate()
            process.communicate(timeout=60)
        socket.unlink(missing_ok=True)  # a terminated window leaves it behind
    return statistics.median(times)


def main(argv: list[str]) -> int:
    """Print the figures; the exit status."""
    bundles = [Path(a).resolve() for a in argv] or [REPO / "build" / "dist" / "prime-sessions"]
    demo = sorted(str(p) for p in DEMO.glob("*.jsonl"))
    with tempfile.TemporaryDirectory(prefix="prime-sessions-measure-") as scratch:
        env = {k: v for k, v in os.environ.items() if not k.startswith(("PRIME_", "XDG_"))}
        runtime = Path(scratch) / "run"
        runtime.mkdir(mode=0o700)
        env.update(
            HOME=scratch,
            QT_QPA_PLATFORM="offscreen",
            PRIME_SESSIONS_CATALOGUE=f"{scratch}/catalogue",
            XDG_RUNTIME_DIR=str(runtime),
        )
        source_env = dict(env, PYTHONPATH=str(REPO))
        source = [sys.executable, "-m", "gui.launcher"]
        commands = {
            "--version": ["--version"],
            "check demo": ["check", *demo],
            "--smoke-test": ["--smoke-test"],
        }
        reference = {
            name: _median_secs([*source, *args], source_env, Path(scratch)) for name, args in commands.items()
        }
        reference["window shown"] = _window_secs(source, source_env, Path(scratch))
        for bundle in bundles:
            exe = bundle / "prime-sessions"
            if not exe.is_file():
                print(f"measure_bundle: {exe} does not exist; build the bundle first", file=sys.stderr)
                return 2
            files = sum(1 for p in bundle.rglob("*") if p.is_file())
            print(f"{bundle}: {_size(bundle) / 1e6:.1f} MB in {files} files")
            for size, name in _parts(bundle):
                print(f"  {size / 1e6:7.1f} MB  {name}")
            print(f"  {'command':<14} {'frozen':>8} {'sources':>8}   (median of {RUNS} whole processes)")
            for name, args in commands.items():
                frozen = _median_secs([str(exe), *args], env, Path(scratch))
                print(f"  {name:<14} {frozen:7.2f}s {reference[name]:7.2f}s")
            frozen = _window_secs([str(exe)], env, Path(scratch))
            print(f"  {'window shown':<14} {frozen:7.2f}s {reference['window shown']:7.2f}s")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
