"""One window per user: a second start (a double-click on a session file) hands its path to the running app.

The first window listens on a local socket (``QLocalServer``) private to the user: in
``$XDG_RUNTIME_DIR`` where there is one (a folder only the user can enter), else under a name holding
the user's id with access for the user only. A later start connects, sends one JSON line
``{"open": PATH}`` (``null``: just show the window) and waits for the answer ``{"ok": true}`` (or
``false`` and a sentence), then exits; the window opens the path with the same code as File ▸ Open.
When nothing answers (no window, or a socket left behind by a crash), the start opens a window of its
own and listens in its place.
"""

from __future__ import annotations

import getpass
import hashlib
import json
import os
import sys
from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QObject
from PySide6.QtNetwork import QLocalServer, QLocalSocket

__all__ = ["Forwarded", "InstanceServer", "forward_to_running", "server_name"]

_CONNECT_MSECS = 1_000  # a running window accepts at once; this only bounds a hung one
_ANSWER_MSECS = 10_000  # opening is quick (the load runs in a worker); this bounds a busy GUI thread
_MAX_REQUEST = 64 * 1024  # a path, not a file: anything longer is not ours

# What the window does with a request: open the path (None: only show itself); a sentence on failure.
Opener = Callable[[str | None], str | None]


def server_name() -> str:
    """The socket of this user's running window (a path in ``$XDG_RUNTIME_DIR``, else a per-user name)."""
    runtime = os.environ.get("XDG_RUNTIME_DIR")
    if runtime and os.path.isdir(runtime) and sys.platform not in ("win32", "darwin"):
        return str(Path(runtime) / "prime-sessions.socket")
    who = getpass.getuser() if sys.platform == "win32" else str(os.getuid())
    return f"prime-sessions-{hashlib.sha256(who.encode()).hexdigest()[:16]}"


class Forwarded:
    """What became of a hand-over: ``delivered`` (the running window took the path) and its answer."""

    def __init__(self, delivered: bool, ok: bool = False, sentence: str = "") -> None:
        self.delivered = delivered
        self.ok = ok
        self.sentence = sentence


def forward_to_running(path: str | None, name: str | None = None) -> Forwarded:
    """Give ``path`` (absolute; None: only raise the window) to the running window, if there is one.

    Returns ``Forwarded(False)`` when no window answers, so the caller opens its own.
    """
    socket = QLocalSocket()
    socket.connectToServer(name or server_name())
    if not socket.waitForConnected(_CONNECT_MSECS):
        return Forwarded(False)
    try:
        socket.write(json.dumps({"open": path}).encode("utf-8") + b"\n")
        if not socket.waitForBytesWritten(_ANSWER_MSECS):
            return Forwarded(False)
        answer = b""
        while b"\n" not in answer and len(answer) < _MAX_REQUEST:
            if not socket.waitForReadyRead(_ANSWER_MSECS):
                return Forwarded(False)  # a window that never answers: open one of our own
            answer += bytes(socket.readAll().data())
        try:
            reply = json.loads(answer.split(b"\n", 1)[0])
        except ValueError:
            return Forwarded(False)
        if not isinstance(reply, dict):
            return Forwarded(False)
        return Forwarded(True, reply.get("ok") is True, str(reply.get("sentence") or ""))
    finally:
        socket.abort()


class InstanceServer(QObject):
    """Listens for later starts of the app and hands their paths to ``opener`` (on the GUI thread)."""

    def __init__(self, opener: Opener, name: str | None = None, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._opener = opener
        self.name = name or server_name()
        self._server = QLocalServer(self)
        self._server.setSocketOptions(QLocalServer.SocketOption.UserAccessOption)
        self._server.newConnection.connect(self._accept)
        self._buffers: dict[QLocalSocket, bytes] = {}

    def listen(self) -> bool:
        """Start listening, unless another window does; a socket left behind by a crash is taken over."""
        probe = QLocalSocket()
        probe.connectToServer(self.name)
        if probe.waitForConnected(_CONNECT_MSECS):
            probe.abort()
            return False  # a live window: it gets the next starts
        # With access options Qt makes the socket under a temporary name and renames it into place, so
        # a dead socket is replaced; without them (other systems) it must be removed first.
        if self._server.listen(self.name):
            return True
        QLocalServer.removeServer(self.name)
        return self._server.listen(self.name)

    @property
    def listening(self) -> bool:
        """Whether later starts reach this window."""
        return self._server.isListening()

    def close(self) -> None:
        """Stop listening (the socket name is freed for the next window)."""
        self._server.close()

    def _accept(self) -> None:
        while self._server.hasPendingConnections():
            socket = self._server.nextPendingConnection()
            self._buffers[socket] = b""
            socket.readyRead.connect(lambda s=socket: self._read(s))
            socket.disconnected.connect(lambda s=socket: self._forget(s))

    def _forget(self, socket: QLocalSocket) -> None:
        self._buffers.pop(socket, None)
        socket.deleteLater()

    def _read(self, socket: QLocalSocket) -> None:
        if socket not in self._buffers:
            return
        data = self._buffers[socket] + bytes(socket.readAll().data())
        if b"\n" not in data:
            if len(data) > _MAX_REQUEST:
                self._answer(socket, "The request was too long.")
            else:
                self._buffers[socket] = data
            return
        self._buffers[socket] = b""
        line = data.split(b"\n", 1)[0]
        try:
            request = json.loads(line)
        except ValueError:
            request = None
        path = request.get("open") if isinstance(request, dict) else None
        if not isinstance(request, dict) or not (path is None or isinstance(path, str)):
            self._answer(socket, "The request was not understood.")
            return
        self._answer(socket, self._opener(path))

    def _answer(self, socket: QLocalSocket, sentence: str | None) -> None:
        reply = {"ok": True} if sentence is None else {"ok": False, "sentence": sentence}
        socket.write(json.dumps(reply).encode("utf-8") + b"\n")
        socket.flush()
        socket.disconnectFromServer()
