"""The app's process ends cleanly while it is busy: SIGTERM or a closed window during a load and a
catalogue pass (gui.leaving).

A real window process on a folder holding a large session: it is asked to stop while the session still
loads and the catalogue is being built. It must close the normal way (its settings saved), exit 0 with
no traceback, and leave a catalogue SQLite calls sound, which the next pass completes.
"""

from __future__ import annotations

import shutil
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import orjson
import pytest

from core.catalogue import Catalogue
from tests.helpers import private_environment

DEMO = Path(__file__).resolve().parents[2] / "resources" / "demo"

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")


def _large_session(path: Path, messages: int = 60_000) -> None:
    """A linear session of ``messages`` user and assistant messages (about 30 MB)."""
    lines = [
        {"type": "session", "version": 3, "id": "big", "timestamp": "2026-03-01T10:00:00.000Z", "cwd": "/w"}
    ]
    parent = None
    text = "Reading the module again to see where the cache is filled and when it is dropped. " * 5
    for number in range(messages):
        entry_id = f"{number:08x}"
        role = "user" if number % 2 == 0 else "assistant"
        content = [{"type": "text", "text": f"{number} {text}"}]
        lines.append(
            {
                "type": "message",
                "id": entry_id,
                "parentId": parent,
                "timestamp": "2026-03-01T10:00:01.000Z",
                "message": {"role": role, "content": content, "timestamp": 1772359201000},
            }
        )
        parent = entry_id
    path.write_bytes(b"".join(orjson.dumps(line) + b"\n" for line in lines))


def test_sigterm_while_loading_and_indexing_closes_the_window_and_leaves_cleanly(tmp_path: Path) -> None:
    sessions = tmp_path / "sessions"
    shutil.copytree(DEMO, sessions, ignore=shutil.ignore_patterns("*.md"))
    big = sessions / "big.jsonl"
    _large_session(big)
    runtime = tmp_path / "run"
    runtime.mkdir(mode=0o700)
    environment = private_environment(tmp_path, XDG_RUNTIME_DIR=str(runtime), PRIME_AGENT_DIR=str(sessions))
    process = subprocess.Popen(
        [sys.executable, "-m", "gui", str(big)],
        cwd=tmp_path,
        env=environment,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    socket = runtime / "prime-sessions.socket"
    deadline = time.monotonic() + 120
    while not socket.exists():  # the window is built: the load and the first catalogue pass are running
        assert process.poll() is None, process.communicate()
        assert time.monotonic() < deadline, "the window never started"
        time.sleep(0.02)
    process.send_signal(signal.SIGTERM)
    out, err = process.communicate(timeout=60)

    assert process.returncode == 0, err  # closed, not killed by the signal (that would be -15)
    assert "Traceback" not in err and "Error" not in err, err
    assert not socket.exists()  # the next start is a window of its own, not a forward to a dead one
    settings = [p for p in (tmp_path / "config").rglob("*") if p.is_file() and b"geometry" in p.read_bytes()]
    assert settings, "the window did not save its settings: it was not closed the normal way"

    folder = tmp_path / "cache" / "prime-sessions"
    databases = list(folder.rglob("*.sqlite*")) + list(folder.rglob("*.db"))
    for database in (d for d in databases if d.suffix in (".sqlite", ".db", ".sqlite3")):
        with sqlite3.connect(database) as conn:
            assert conn.execute("PRAGMA integrity_check").fetchone() == ("ok",)
    catalogue = Catalogue(folder if folder.exists() else tmp_path / "catalogue")
    try:
        catalogue.refresh([sessions])  # the next pass completes what the stopped one began
        listed = {Path(s.path).name for s in catalogue.summaries([sessions])}
    finally:
        catalogue.close()
    assert listed == {p.name for p in sessions.glob("*.jsonl")}
    del out
