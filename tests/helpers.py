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
