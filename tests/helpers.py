"""Helpers the tests share: the CLI as a whole process, and an agent appending to a session file.

Kept in one place (they were copied into five test modules): how the command line is started (UTF-8
output, no debug tracebacks, no stdin) and how "the agent" appends complete lines, from this process or
from another one racing with ours.
"""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from collections.abc import Iterable, Mapping
from pathlib import Path
from types import ModuleType
from typing import Literal, overload

import orjson

REPO = Path(__file__).resolve().parent.parent


@overload
def run_cli(
    *args: str | Path,
    env: Mapping[str, str] | None = ...,
    cwd: Path = ...,
    timeout: float = ...,
    text: Literal[True] = ...,
) -> subprocess.CompletedProcess[str]: ...


@overload
def run_cli(
    *args: str | Path,
    env: Mapping[str, str] | None = ...,
    cwd: Path = ...,
    timeout: float = ...,
    text: Literal[False],
) -> subprocess.CompletedProcess[bytes]: ...


def run_cli(
    *args: str | Path,
    env: Mapping[str, str] | None = None,
    cwd: Path = REPO,
    timeout: float = 120,
    text: bool = True,
) -> subprocess.CompletedProcess[str] | subprocess.CompletedProcess[bytes]:
    """``python -m core.cli ARGS`` as a whole process: its status, stdout and stderr (str, or bytes)."""
    environment = {**os.environ, **(env or {}), "PYTHONIOENCODING": "utf-8"}
    if "PRIME_SESSIONS_DEBUG" not in (env or {}):
        environment.pop("PRIME_SESSIONS_DEBUG", None)  # a failure must be the one line a user sees
    return subprocess.run(
        [sys.executable, "-m", "core.cli", *map(str, args)],
        cwd=cwd,
        capture_output=True,
        text=text,
        encoding="utf-8" if text else None,
        timeout=timeout,
        check=False,
        stdin=subprocess.DEVNULL,
        env=environment,
    )


def append_bytes(path: Path, data: bytes) -> None:
    """Append ``data`` to ``path`` as it is (a torn write when it does not end with a newline)."""
    with open(path, "ab") as handle:
        handle.write(data)


def append_entries(path: Path, entries: Iterable[Mapping[str, object]]) -> None:
    """Append entries as complete lines, the way the agent writes them."""
    append_bytes(path, b"".join(orjson.dumps(dict(entry)) + b"\n" for entry in entries))


def agent_ids(count: int) -> set[str]:
    """The ids of the entries :func:`start_agent` appends."""
    return {f"a{i:07d}" for i in range(count)}


def start_agent(
    path: Path, count: int, timestamp: str = "2026-03-05T16:00:00.000Z"
) -> subprocess.Popen[bytes]:
    """Another process appending ``count`` custom entries to ``path``, one ``write()`` per line.

    What an agent does while the app edits the same file; the caller waits for it.
    """
    script = (
        "import os, sys, orjson\n"
        "fd = os.open(sys.argv[1], os.O_WRONLY | os.O_APPEND)\n"
        "for i in range(int(sys.argv[2])):\n"
        "    e = {'type': 'custom', 'customType': 'agent', 'data': {'i': i}, 'id': f'a{i:07d}',\n"
        "         'parentId': None, 'timestamp': sys.argv[3]}\n"
        "    os.write(fd, orjson.dumps(e) + b'\\n')\n"
    )
    return subprocess.Popen([sys.executable, "-c", script, str(path), str(count), timestamp])


def start_slow_agent(
    path: Path,
    stop: Path,
    *,
    pieces: int = 4,
    pause: float = 0.003,
    gap: float = 0.02,
    lock_line_starts: bool = True,
    timestamp: str = "2026-03-05T16:00:00.000Z",
) -> subprocess.Popen[str]:
    """Another process appending custom entries to ``path`` until ``stop`` exists, each line in pieces.

    Each line (about 400 bytes) goes out in ``pieces`` ``write()`` calls with ``pause`` seconds between
    them, then the agent rests ``gap`` seconds: a slow writer, or a large line flushed in parts, as the
    reference's own writes are not. It prints ``started`` before its first line; once ``stop`` appears it
    finishes the line it is writing, prints how many lines it wrote and exits (the ids are
    :func:`agent_ids` of that count).

    With ``lock_line_starts`` the first ``write()`` of each line is made holding the file's ``flock``
    (the later pieces never are): no check can see a line that starts in the instant between an
    editor's last look and its write, so a test of what the checks do keeps that instant out.
    """
    script = (
        "import fcntl, os, sys, time, orjson\n"
        "path, stop, pieces, pause, gap, lock, ts = sys.argv[1:]\n"
        "pieces, pause, gap, lock = int(pieces), float(pause), float(gap), lock == '1'\n"
        "fd = os.open(path, os.O_WRONLY | os.O_APPEND)\n"
        "print('started', flush=True)\n"
        "i = 0\n"
        "while not os.path.exists(stop):\n"
        "    e = {'type': 'custom', 'customType': 'agent', 'data': {'i': i, 'pad': 'x' * 300},\n"
        "         'id': f'a{i:07d}', 'parentId': None, 'timestamp': ts}\n"
        "    line = orjson.dumps(e) + b'\\n'\n"
        "    step = -(-len(line) // pieces)\n"
        "    for start in range(0, len(line), step):\n"
        "        if start:\n"
        "            time.sleep(pause)\n"
        "        elif lock:\n"
        "            fcntl.flock(fd, fcntl.LOCK_EX)\n"
        "        os.write(fd, line[start:start + step])\n"
        "        if not start and lock:\n"
        "            fcntl.flock(fd, fcntl.LOCK_UN)\n"
        "    i += 1\n"
        "    time.sleep(gap)\n"
        "print(i)\n"
    )
    arguments = [str(path), str(stop), str(pieces), str(pause), str(gap), "1" if lock_line_starts else "0"]
    return subprocess.Popen(
        [sys.executable, "-c", script, *arguments, timestamp], stdout=subprocess.PIPE, text=True
    )


def private_environment(folder: Path, **extra: str) -> dict[str, str]:
    """This process's environment for a whole app process that reads and writes nothing of the user's.

    ``HOME`` and the XDG folders lie under ``folder`` (none of the caller's ``PRIME_*`` or ``XDG_*``
    settings are passed on), Qt draws offscreen, and ``PYTHONPATH`` finds the sources; ``extra`` adds to it.
    """
    environment = {key: value for key, value in os.environ.items() if not key.startswith(("PRIME_", "XDG_"))}
    environment.update(
        HOME=str(folder / "home"),
        XDG_CONFIG_HOME=str(folder / "config"),
        XDG_CACHE_HOME=str(folder / "cache"),
        XDG_DATA_HOME=str(folder / "data"),
        QT_QPA_PLATFORM="offscreen",
        PYTHONPATH=str(REPO),
        PYTHONIOENCODING="utf-8",
        **extra,
    )
    return environment


def load_script(path: Path) -> ModuleType:
    """A script that is not in a package (``packaging/*.py``), imported as a module by its file name."""
    spec = importlib.util.spec_from_file_location(path.stem, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
