"""Worker threads and garbage collection: Qt objects in garbage cycles die on the GUI thread."""

from __future__ import annotations

import gc
import threading
import weakref

from PySide6.QtCore import QObject

from gui.workers import TaskRunner, _MainThreadCollector
from tests.gui.windows import TIMEOUT


def test_garbage_is_collected_on_the_gui_thread_while_a_runner_lives(qtbot) -> None:
    runner = TaskRunner()
    assert not gc.isenabled()  # no collection can start in a worker that allocates
    died_on: list[str] = []

    class Holder(QObject):
        def __del__(self) -> None:
            died_on.append(threading.current_thread().name)

    holder = Holder()
    holder.cycle = holder  # only the cyclic collector can free it
    alive = weakref.ref(holder)
    del holder

    def allocate(_task: object) -> list[list[int]]:
        return [[i] for i in range(300_000)]  # kept: far past every threshold of the collector

    results: list[list[list[int]]] = []
    runner.start("work", allocate, results.append)
    qtbot.waitUntil(lambda: bool(results), timeout=TIMEOUT)
    qtbot.waitUntil(lambda: alive() is None, timeout=TIMEOUT)  # the timer collects it
    assert died_on == [threading.main_thread().name]
    runner.shutdown()
    # Automatic collection is back once no runner is open (other tests' windows may still hold one).
    assert gc.isenabled() == (_MainThreadCollector.users == 0)


def test_a_failure_reaches_the_gui_thread_without_the_workers_frames(qtbot) -> None:
    """The exception arrives, but not its traceback: the worker's locals (Qt objects) die in the worker."""
    runner = TaskRunner()
    died_on: list[str] = []

    class Local(QObject):
        def __del__(self) -> None:
            died_on.append(threading.current_thread().name)

    def fail(_task: object) -> None:
        local = Local()  # noqa: F841 (held by the frame, which a traceback would keep alive)
        try:
            raise KeyError("inner")
        except KeyError as err:
            raise ValueError("outer") from err

    failures: list[Exception] = []
    runner.start("work", fail, print, failures.append)
    qtbot.waitUntil(lambda: bool(failures), timeout=TIMEOUT)
    runner.shutdown()
    error = failures[0]
    assert isinstance(error, ValueError) and isinstance(error.__cause__, KeyError)
    assert error.__traceback__ is None and error.__cause__.__traceback__ is None
    assert died_on and died_on[0] != threading.main_thread().name
