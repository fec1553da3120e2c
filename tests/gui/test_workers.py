"""Worker threads and garbage collection: Qt objects in garbage cycles die on the GUI thread."""

from __future__ import annotations

import gc
import sys
import threading
import weakref

from PySide6.QtCore import QObject

from gui.workers import (
    TaskContext,
    TaskRunner,
    _Foreground,
    _MainThreadCollector,
    hold_foreground,
    release_foreground,
)
from tests.gui.windows import TIMEOUT


def test_garbage_is_collected_on_the_gui_thread_while_a_runner_lives(qtbot) -> None:
    runner = TaskRunner()
    assert not gc.isenabled()  # no collection can start in a worker that allocates
    assert sys.getswitchinterval() <= 0.001  # a worker hands the interpreter lock back soon
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


def _full_collections() -> int:
    return gc.get_stats()[2]["collections"]


def test_no_full_collection_while_a_task_runs(qtbot) -> None:
    """A load makes objects that all live on: walking all of them again and again cost it 5x (issue 18)."""
    runner = TaskRunner()
    release = threading.Event()
    started = threading.Event()

    def hold(_task: object) -> None:
        started.set()
        release.wait(TIMEOUT / 1000)

    done: list[object] = []
    threshold = gc.get_threshold()
    gc.set_threshold(5, 1, 0)  # every call below is due for a full collection by the counts
    try:
        runner.start("work", hold, done.append)
        assert started.wait(TIMEOUT / 1000)
        before = _full_collections()
        kept: list[list[list[int]]] = []
        for _ in range(3):
            gc.collect(1)  # a middle collection: the oldest generation's count goes up
            kept.append([[i] for i in range(100)])  # young objects past the first threshold
            assert gc.get_count()[0] > 5 and gc.get_count()[2] > 0
            _MainThreadCollector.collect()
        assert _full_collections() == before
        release.set()
        qtbot.waitUntil(lambda: bool(done), timeout=TIMEOUT)
        qtbot.waitUntil(lambda: _MainThreadCollector.tasks_running == 0, timeout=TIMEOUT)
        gc.collect(1)
        kept.append([[i] for i in range(100)])
        _MainThreadCollector.collect()
        assert _full_collections() == before + 1
    finally:
        gc.set_threshold(*threshold)
        release.set()
        runner.shutdown()


def test_background_passes_wait_for_the_foreground_load(qtbot) -> None:
    """A task yielding to the foreground goes on once the foreground is released, or when cancelled."""
    runner = TaskRunner()
    events: list[str] = []

    def background(task: TaskContext) -> None:
        task.yield_to_foreground()
        events.append("background went on")

    finished: list[object] = []
    hold_foreground()  # a session being loaded and shown
    assert _Foreground.running == 1
    runner.start("refresh", background, finished.append)
    qtbot.wait(300)
    assert events == []  # still waiting
    events.append("foreground done")
    release_foreground()
    qtbot.waitUntil(lambda: len(finished) == 1, timeout=TIMEOUT)
    assert events == ["foreground done", "background went on"]

    # A cancel ends the wait: the superseded pass does not sit there.
    hold_foreground()
    runner.start("refresh", background, finished.append)
    qtbot.wait(100)
    runner.cancel("refresh")
    qtbot.waitUntil(lambda: events[-1:] == ["background went on"] and len(events) == 3, timeout=TIMEOUT)
    release_foreground()
    assert _Foreground.running == 0
    runner.shutdown()
