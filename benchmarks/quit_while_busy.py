"""How long the app's process lives on after it is told to stop while it loads a large session.

A window process (``python -m gui FILE``, offscreen, private HOME and XDG folders) opens a generated
session of ``--mb`` megabytes in a folder it also catalogues; ``--after`` seconds after its window exists
(its single-instance socket appears), it gets SIGTERM, which closes the window as the close button does
(gui.leaving). Measured: from the signal to the process gone, whether it exited 0, and any traceback.

``--repo`` runs the same from another checkout as well, in turns, for a paired comparison (an old commit:
``git worktree add /tmp/old <commit>``). A checkout whose window does not handle SIGTERM is killed by
it, so for those the window is closed through ``--close-by window`` instead: the child is this script
in ``--child`` mode, which builds the window itself and closes it from a timer.

Usage::

    python benchmarks/quit_while_busy.py [--mb 930] [--runs 3] [--after 1.0] [--repo OLD_CHECKOUT] [--window]
"""

from __future__ import annotations

import argparse
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import orjson

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
from tests.helpers import private_environment  # noqa: E402  (HOME and XDG folders of its own, offscreen)

OUT = REPO / "benchmarks" / "out"
TEXT = "Reading the module again to see where the cache is filled and when it is dropped. " * 5


def make_session(path: Path, megabytes: int) -> None:
    """A linear session of user and assistant messages, about ``megabytes`` MB (cached between runs)."""
    if path.exists() and abs(path.stat().st_size - megabytes * 1_000_000) < 5_000_000:
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    header = {"type": "session", "version": 3, "id": "big", "cwd": "/w", "timestamp": "2026-03-01T10:00:00Z"}
    written = 0
    parent = None
    number = 0
    with open(path.with_suffix(".tmp"), "wb") as out:
        out.write(orjson.dumps(header) + b"\n")
        while written < megabytes * 1_000_000:
            entry_id = f"{number:08x}"
            role = "user" if number % 2 == 0 else "assistant"
            line = orjson.dumps(
                {
                    "type": "message",
                    "id": entry_id,
                    "parentId": parent,
                    "timestamp": "2026-03-01T10:00:01.000Z",
                    "message": {"role": role, "content": [{"type": "text", "text": f"{number} {TEXT}"}]},
                }
            )
            out.write(line + b"\n")
            written += len(line) + 1
            parent = entry_id
            number += 1
    os.replace(path.with_suffix(".tmp"), path)


def _child(session: Path, after: float) -> int:
    """``--child``: the window of a checkout, closed by a timer ``after`` s after it shows."""
    from PySide6.QtCore import QTimer
    from PySide6.QtWidgets import QApplication

    from gui.main_window import MainWindow

    app = QApplication([sys.argv[0]])
    window = MainWindow(roots=[session.parent], open_path=session)
    window.show()

    def close() -> None:
        print(f"CLOSED {time.perf_counter()}", flush=True)
        window.close()

    QTimer.singleShot(int(after * 1000), close)
    code = app.exec()
    try:  # a checkout that ends its process when the window closes, as its entry points do
        import gui.leaving  # type: ignore[import-not-found, unused-ignore]
    except ImportError:
        return code
    gui.leaving.leave(code)


def run_once(repo: Path, session: Path, after: float, close_by: str) -> tuple[float, int, str]:
    """Seconds from the stop to the process gone, its exit code and its stderr."""
    with tempfile.TemporaryDirectory(prefix="prime-quit-") as name:
        place = Path(name)
        runtime = place / "run"
        runtime.mkdir(mode=0o700)
        environment = private_environment(place, XDG_RUNTIME_DIR=str(runtime))
        environment["PYTHONPATH"] = str(repo)  # the checkout measured, which may be another one
        if close_by == "signal":
            command = [sys.executable, "-m", "gui", str(session)]
        else:
            script = str(Path(__file__).resolve())
            command = [sys.executable, script, "--child", str(session), "--after", str(after)]
        process = subprocess.Popen(
            command, cwd=place, env=environment, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
        )
        if close_by == "signal":
            socket = runtime / "prime-sessions.socket"
            while not socket.exists():
                if process.poll() is not None:
                    raise RuntimeError(process.communicate()[1])
                time.sleep(0.01)
            time.sleep(after)
            stopped = time.perf_counter()
            process.send_signal(signal.SIGTERM)
            _out, err = process.communicate()
        else:
            assert process.stdout is not None
            line = process.stdout.readline()
            if not line.startswith("CLOSED "):
                raise RuntimeError(f"the child said {line!r}: {process.communicate()[1]}")
            stopped = float(line.split()[1])
            _out, err = process.communicate()
        gone = time.perf_counter()
        return gone - stopped, process.returncode, err


def main() -> int:
    """Run the measurement; prints one line per checkout."""
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--mb", type=int, default=930)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--after", type=float, default=1.0, help="seconds after the window exists")
    parser.add_argument("--repo", type=Path, action="append", default=[], help="another checkout to compare")
    parser.add_argument("--window", action="store_true", help="also close this checkout's window by a timer")
    parser.add_argument("--child", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child is not None:
        return _child(args.child, args.after)
    session = OUT / f"quit-{args.mb}mb" / "big.jsonl"
    make_session(session, args.mb)
    size = f"{session.stat().st_size / 1e6:,.0f} MB"
    print(f"session: {session} ({size}); stop {args.after} s after the window exists")
    checkouts = [(REPO, "signal"), *((Path(r).resolve(), "window") for r in args.repo)]
    if args.repo or args.window:
        checkouts.append((REPO, "window"))  # the same way of closing as the old checkout's, for a fair pair
    results: dict[tuple[Path, str], list[float]] = {c: [] for c in checkouts}
    problems: dict[tuple[Path, str], set[str]] = {c: set() for c in checkouts}
    for _run in range(args.runs):
        for checkout in checkouts:  # in turns, so the machine's load falls on every checkout alike
            seconds, code, err = run_once(checkout[0], session, args.after, checkout[1])
            results[checkout].append(seconds)
            if code != 0:
                problems[checkout].add(f"exit {code}")
            if "Traceback" in err or "Error" in err:
                problems[checkout].add("traceback: " + err.strip().splitlines()[-1][:100])
    for (repo, close_by), times in results.items():
        said = "; ".join(sorted(problems[(repo, close_by)])) or "exit 0, no traceback"
        print(
            f"{repo} (closed by {close_by}): median {statistics.median(times):.2f} s "
            f"(runs {', '.join(f'{t:.2f}' for t in times)}), {said}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
