"""One window per user: a second start hands its file to the running window (gui.single_instance).

Two real processes for the whole story (the first a window, the second a start with a file, as a
double-click in a file manager makes), and the protocol in process against a plain Unix socket client.
"""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import QTimer

from gui.main_window import MainWindow
from gui.single_instance import Forwarded, InstanceServer, forward_to_running, server_name
from tests.gui.windows import TIMEOUT
from tests.helpers import private_environment

LINEAR = "019cadd3-8790-76fa-8ab0-c952ebef2dfd.jsonl"
BRANCHED = "019cb402-3c88-737c-a54e-8f5201941e04.jsonl"

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="the tests talk to a Unix socket")


@pytest.fixture
def runtime_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A private ``XDG_RUNTIME_DIR``, so no window of the machine's user is ever reached."""
    folder = tmp_path / "run"
    folder.mkdir(mode=0o700)
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(folder))
    return folder


def test_the_socket_is_the_users_own(runtime_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert server_name() == str(runtime_dir / "prime-sessions.socket")
    monkeypatch.delenv("XDG_RUNTIME_DIR")
    name = server_name()
    assert name.startswith("prime-sessions-") and "/" not in name  # Qt puts it in the temporary folder
    assert name == server_name()


# ---------------------------------------------------------------------------- two real processes
def _environment(tmp_path: Path, runtime_dir: Path) -> dict[str, str]:
    return private_environment(tmp_path, XDG_RUNTIME_DIR=str(runtime_dir))


@pytest.fixture
def start_window(tmp_path: Path, runtime_dir: Path) -> Iterator[Callable[..., subprocess.Popen[str]]]:
    """Start the app's window as its own process; every one started is ended after the test."""
    started: list[subprocess.Popen[str]] = []

    def start(*args: str) -> subprocess.Popen[str]:
        process = subprocess.Popen(
            [sys.executable, "-m", "gui.launcher", *args],
            cwd=tmp_path,
            env=_environment(tmp_path, runtime_dir),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        started.append(process)
        return process

    yield start
    for process in started:
        if process.poll() is None:
            process.terminate()
        process.communicate(timeout=60)


def _second_start(tmp_path: Path, runtime_dir: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "gui.launcher", *args],
        cwd=tmp_path,
        env=_environment(tmp_path, runtime_dir),
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=TIMEOUT / 1000 * 4,  # a second window would never exit: this ends the test instead
    )


def _wait_for(condition: Callable[[], bool], process: subprocess.Popen[str]) -> None:
    """Poll until ``condition()`` holds; fails if the window process ended first (or after 2 minutes)."""
    import time

    deadline = time.monotonic() + 120
    while not condition():
        if process.poll() is not None:
            _out, err = process.communicate()
            pytest.fail(f"the window process ended ({process.returncode}): {err}")
        if time.monotonic() > deadline:
            pytest.fail("the window process never got there")
        time.sleep(0.05)


def _recent_paths(tmp_path: Path) -> str:
    settings = tmp_path / "config" / "Prime Sessions" / "prime-sessions.conf"
    return settings.read_text(encoding="utf-8") if settings.is_file() else ""


def test_a_second_start_opens_its_file_in_the_running_window(
    tmp_path: Path, runtime_dir: Path, sessions: Path, start_window
) -> None:
    socket_path = runtime_dir / "prime-sessions.socket"
    first = start_window(str(sessions))
    _wait_for(socket_path.exists, first)

    done = _second_start(tmp_path, runtime_dir, str(sessions / LINEAR))
    assert (done.returncode, done.stdout, done.stderr) == (0, "", "")
    # The running window opened it: File > Open Recent (its settings, synced at once) names the file.
    _wait_for(lambda: str(sessions / LINEAR) in _recent_paths(tmp_path), first)
    done = _second_start(tmp_path, runtime_dir, str(sessions / BRANCHED))
    assert done.returncode == 0, done.stderr
    _wait_for(lambda: str(sessions / BRANCHED) in _recent_paths(tmp_path), first)
    done = _second_start(tmp_path, runtime_dir)  # from the menu: the running window comes to the front
    assert (done.returncode, done.stderr) == (0, "")
    assert first.poll() is None  # still the one window

    # A window that crashed leaves its socket behind: the next start opens a window and takes it over.
    first.kill()
    first.communicate(timeout=60)
    assert socket_path.exists()
    second = start_window(str(sessions))
    _wait_for(lambda: forward_to_running(None, str(socket_path)).delivered, second)
    done = _second_start(tmp_path, runtime_dir, str(sessions / LINEAR))
    assert (done.returncode, done.stderr) == (0, "")
    assert second.poll() is None


def test_a_start_hands_over_unless_new_window_is_given(
    qapp, sessions: Path, runtime_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import gui.app

    asked: list[str | None] = []

    def running(path: str | None) -> Forwarded:
        asked.append(path)
        return Forwarded(True, ok=True)

    def no_window(**_kwargs: object) -> None:
        raise AssertionError("a second window was built")

    monkeypatch.setattr(gui.app, "forward_to_running", running)
    monkeypatch.setattr(gui.app, "MainWindow", no_window)
    assert gui.app.main([str(sessions / LINEAR)]) == 0
    assert gui.app.main([]) == 0
    assert asked == [str(sessions / LINEAR), None]

    class ClosingWindow(MainWindow):
        def show(self) -> None:
            super().show()
            QTimer.singleShot(0, self.close)

    monkeypatch.setattr(gui.app, "MainWindow", ClosingWindow)
    assert gui.app.main([str(sessions), "--new-window"]) == 0  # its own window, shown and closed
    assert asked == [str(sessions / LINEAR), None]  # never handed over
    assert not (runtime_dir / "prime-sessions.socket").exists()  # nor listening for others


# ---------------------------------------------------------------------------- the protocol, in process
def _ask(path: Path, payload: bytes, answers: list[bytes]) -> threading.Thread:
    """Send ``payload`` to the socket at ``path`` from a thread, keeping the answer line."""

    def talk() -> None:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as client:
            client.settimeout(TIMEOUT / 1000)
            client.connect(str(path))
            client.sendall(payload)
            answer = b""
            while b"\n" not in answer:
                chunk = client.recv(4096)
                if not chunk:
                    break
                answer += chunk
            answers.append(answer)

    thread = threading.Thread(target=talk)
    thread.start()
    return thread


def test_the_window_answers_each_request(qtbot, runtime_dir: Path) -> None:
    opened: list[str | None] = []

    def opener(path: str | None) -> str | None:
        opened.append(path)
        return "That is not a session." if path == "/not/a/session" else None

    server = InstanceServer(opener)
    assert server.listen() and server.listening
    try:
        answers: list[bytes] = []
        for payload in (
            json.dumps({"open": "/some/session.jsonl"}).encode() + b"\n",
            b'{"open": null}\n',
            b'{"open": "/not/a/session"}\n',
            b"not json\n",
            b'{"open": 42}\n',
        ):
            thread = _ask(runtime_dir / "prime-sessions.socket", payload, answers)
            qtbot.waitUntil(lambda t=thread: not t.is_alive(), timeout=TIMEOUT)
        assert [json.loads(a) for a in answers] == [
            {"ok": True},
            {"ok": True},
            {"ok": False, "sentence": "That is not a session."},
            {"ok": False, "sentence": "The request was not understood."},
            {"ok": False, "sentence": "The request was not understood."},
        ]
        assert opened == ["/some/session.jsonl", None, "/not/a/session"]
    finally:
        server.close()


def test_only_one_window_listens_and_a_dead_socket_is_taken_over(qtbot, runtime_dir: Path) -> None:
    path = runtime_dir / "prime-sessions.socket"
    dead = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    dead.bind(str(path))  # what a crashed window leaves behind: a socket file nobody listens on
    dead.close()
    first = InstanceServer(lambda _path: None)
    assert first.listen()
    second = InstanceServer(lambda _path: None)
    try:
        assert not second.listen() and not second.listening
        assert first.listening
    finally:
        first.close()
        second.close()
    assert not forward_to_running("/some/session.jsonl").delivered  # nobody listens any more
