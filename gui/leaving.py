"""How the app's process ends: at once when the window closes, and cleanly on SIGTERM or Ctrl+C.

A close while a catalogue pass or the load of a gigabyte session runs used to keep the process alive for
seconds: the window waited for the pool, the interpreter then joined the worker threads and freed every
object of a 900 MB session one by one, and a worker emitting into deleted signals printed a traceback.
None of that work is worth finishing: every write the app makes is whole or absent (appends are one
``O_APPEND`` write, new files are linked into place from a temporary, the catalogue writes in SQLite
transactions, which a killed process leaves rolled back), and the next start picks up the catalogue pass
where it stopped. So once the window has closed (its settings saved, its tasks cancelled and a fork that
was being written waited for), :func:`leave` ends the process with ``os._exit``.

:func:`close_on_termination` makes SIGTERM (a logout, ``kill``) and SIGINT (Ctrl+C in the terminal that
started the app) close the window the normal way, so its settings are saved, instead of killing it.
"""

from __future__ import annotations

import os
import signal
import socket
import sys
from typing import NoReturn

from PySide6.QtCore import QObject, QSocketNotifier
from PySide6.QtWidgets import QWidget

__all__ = ["Termination", "close_on_termination", "leave"]


def leave(code: int) -> NoReturn:
    """End the process now with ``code``: reader processes stopped, output flushed.

    The window saved and synced its settings when it closed.
    """
    multiprocessing = sys.modules.get("multiprocessing")
    if multiprocessing is not None:  # the catalogue's reader processes (core.catalogue.pool)
        for child in multiprocessing.active_children():
            child.terminate()
    for stream in (sys.stdout, sys.stderr):
        try:
            if stream is not None:
                stream.flush()
        except (OSError, ValueError):  # a closed pipe or stream: nothing more can be said there
            pass
    os._exit(code)


class Termination(QObject):
    """Wakes Qt's event loop when a signal arrives, and closes the window from there."""

    def __init__(self, window: QWidget) -> None:
        super().__init__(window)
        # Python runs a signal handler only between bytecodes; while Qt waits for events none run. The C
        # handler writes the signal number to this socket, which Qt watches like any other.
        self._reader, self._writer = socket.socketpair()
        self._reader.setblocking(False)
        self._writer.setblocking(False)
        self._previous_fd = signal.set_wakeup_fd(self._writer.fileno())
        self._notifier = QSocketNotifier(self._reader.fileno(), QSocketNotifier.Type.Read, self)
        self._notifier.activated.connect(self._woken)
        self._window = window
        self._previous = {
            number: signal.signal(number, lambda _number, _frame: None)
            for number in (signal.SIGTERM, signal.SIGINT)
        }

    def _woken(self) -> None:
        try:
            received = self._reader.recv(64)
        except BlockingIOError:
            return
        if any(number in (signal.SIGTERM, signal.SIGINT) for number in received):
            self._window.close()

    def restore(self) -> None:
        """Give the signals back their earlier handlers (a test may build several windows)."""
        if self._previous:
            for number, handler in self._previous.items():
                signal.signal(number, handler)
            self._previous = {}
            signal.set_wakeup_fd(self._previous_fd)
            self._notifier.setEnabled(False)
            self._reader.close()
            self._writer.close()


def close_on_termination(window: QWidget) -> Termination:
    """Close ``window`` (saving its state, as a click on its close button does) on SIGTERM or SIGINT.

    Returns the object that watches; call its ``restore()`` when the event loop has returned.
    """
    return Termination(window)
