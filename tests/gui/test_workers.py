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
