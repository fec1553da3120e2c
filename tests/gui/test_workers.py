"""The scheduler and the task runner: priorities, the foreground, garbage collected on the GUI thread."""

from __future__ import annotations

import gc
import sys
import threading
import weakref
from collections.abc import Callable, Iterator

import pytest
from PySide6.QtCore import QObject, QThreadPool

from gui.scheduling import Priority, Scheduler, _Interpreter
from gui.workers import TaskContext, TaskRunner
from tests.gui.windows import TIMEOUT


@pytest.fixture
def scheduler() -> Iterator[Scheduler]:
    scheduler = Scheduler()
    yield scheduler
    scheduler.close()


@pytest.fixture
def runner(scheduler: Scheduler) -> TaskRunner:
    return TaskRunner(scheduler, scheduler)


def test_garbage_is_collected_on_the_gui_thread_while_a_scheduler_is_open(qtbot) -> None:
    scheduler = Scheduler()
    runner = TaskRunner(scheduler, scheduler)
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
    runner.start("work", allocate, results.append, priority=Priority.FOREGROUND)
    qtbot.waitUntil(lambda: bool(results), timeout=TIMEOUT)
    qtbot.waitUntil(lambda: alive() is None, timeout=TIMEOUT)  # the timer collects it
    assert died_on == [threading.main_thread().name]
    scheduler.close()
    # Automatic collection is back once no scheduler is open (other tests' windows may still hold one).
    assert gc.isenabled() == (_Interpreter.users == 0)


def test_a_failure_reaches_the_gui_thread_without_the_workers_frames(qtbot, runner: TaskRunner) -> None:
    """The exception arrives, but not its traceback: the worker's locals (Qt objects) die in the worker."""
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
    runner.start("work", fail, print, failures.append, priority=Priority.FOREGROUND)
    qtbot.waitUntil(lambda: bool(failures), timeout=TIMEOUT)
    runner.scheduler.close()
    error = failures[0]
    assert isinstance(error, ValueError) and isinstance(error.__cause__, KeyError)
    assert error.__traceback__ is None and error.__cause__.__traceback__ is None
    assert died_on and died_on[0] != threading.main_thread().name


def _full_collections() -> int:
    return gc.get_stats()[2]["collections"]


def test_no_full_collection_while_a_task_runs(qtbot, runner: TaskRunner) -> None:
    """A load makes objects that all live on: walking all of them again and again cost it 5x (issue 18)."""
    scheduler = runner.scheduler
    release = threading.Event()
    started = threading.Event()

    def hold(_task: object) -> None:
        started.set()
        release.wait(TIMEOUT / 1000)

    done: list[object] = []
    threshold = gc.get_threshold()
    gc.set_threshold(5, 1, 0)  # every call below is due for a full collection by the counts
    try:
        runner.start("work", hold, done.append, priority=Priority.FOREGROUND)
        assert started.wait(TIMEOUT / 1000)
        before = _full_collections()
        kept: list[list[list[int]]] = []
        for _ in range(3):
            gc.collect(1)  # a middle collection: the oldest generation's count goes up
            kept.append([[i] for i in range(100)])  # young objects past the first threshold
            assert gc.get_count()[0] > 5 and gc.get_count()[2] > 0
            scheduler.collect()
        assert _full_collections() == before
        release.set()
        qtbot.waitUntil(lambda: bool(done), timeout=TIMEOUT)
        qtbot.waitUntil(lambda: scheduler.running == 0, timeout=TIMEOUT)
        gc.collect(1)
        kept.append([[i] for i in range(100)])
        scheduler.collect()
        assert _full_collections() == before + 1
    finally:
        gc.set_threshold(*threshold)
        release.set()


def test_background_work_waits_for_the_foreground(qtbot, runner: TaskRunner) -> None:
    """A background task yielding to the foreground goes on once the foreground is released, or cancelled."""
    scheduler = runner.scheduler
    events: list[str] = []

    def background(task: TaskContext) -> None:
        task.yield_to_foreground()
        events.append("background went on")

    finished: list[object] = []
    scheduler.hold_foreground()  # a session being loaded and shown
    assert scheduler.foreground_held == 1
    with qtbot.waitSignal(scheduler.waiting, timeout=TIMEOUT) as waiting:
        runner.start("refresh", background, finished.append, priority=Priority.BACKGROUND)
    assert waiting.args == ["refresh"]
    assert events == []  # in the wait, and the foreground still held
    events.append("foreground done")
    scheduler.release_foreground()
    qtbot.waitUntil(lambda: len(finished) == 1, timeout=TIMEOUT)
    assert events == ["foreground done", "background went on"]

    # A cancel ends the wait: the superseded pass does not sit there.
    scheduler.hold_foreground()
    with qtbot.waitSignal(scheduler.waiting, timeout=TIMEOUT):
        runner.start("refresh", background, finished.append, priority=Priority.BACKGROUND)
    runner.cancel("refresh")
    qtbot.waitUntil(lambda: events[-1:] == ["background went on"] and len(events) == 3, timeout=TIMEOUT)
    scheduler.release_foreground()
    assert scheduler.foreground_held == 0


def test_foreground_work_and_writes_never_wait_for_the_foreground(qtbot, runner: TaskRunner) -> None:
    """The load that holds the foreground yields to nobody, nor does a write."""
    scheduler = runner.scheduler
    waited: list[str] = []
    scheduler.waiting.connect(waited.append)
    scheduler.hold_foreground()
    try:
        finished: list[str] = []
        for priority in (Priority.FOREGROUND, Priority.WRITE):

            def work(task: TaskContext, name: str = priority.name) -> str:
                task.yield_to_foreground()
                return name

            runner.start(priority.name, work, finished.append, priority=priority)
        qtbot.waitUntil(lambda: len(finished) == 2, timeout=TIMEOUT)
        assert sorted(finished) == ["FOREGROUND", "WRITE"] and waited == []
    finally:
        scheduler.release_foreground()


def test_a_write_starts_while_background_work_takes_every_thread(qtbot) -> None:
    """Writes never queue behind background work; foreground work is queued before background work."""
    pool = QThreadPool()
    pool.setMaxThreadCount(1)
    scheduler = Scheduler(pool=pool)
    runner = TaskRunner(scheduler, scheduler)
    gate = threading.Event()
    started = threading.Event()
    order: list[str] = []

    def background(_task: TaskContext) -> None:
        started.set()
        gate.wait(2 * TIMEOUT / 1000)  # longer than the test waits for the write

    def step(name: str) -> Callable[[TaskContext], str]:
        return lambda _task: order.append(name) or name

    try:
        runner.start("background", background, print, priority=Priority.BACKGROUND)  # the pool's one thread
        assert started.wait(TIMEOUT / 1000)
        runner.start("queued-background", step("background"), print, priority=Priority.BACKGROUND)
        runner.start("queued-foreground", step("foreground"), print, priority=Priority.FOREGROUND)
        written: list[str] = []
        runner.start("write", step("write"), written.append, priority=Priority.WRITE)
        qtbot.waitUntil(lambda: written == ["write"], timeout=TIMEOUT)  # while the gate is shut
        assert order[0] == "write"
    finally:
        gate.set()
    qtbot.waitUntil(lambda: not runner.busy, timeout=TIMEOUT)
    assert order == ["write", "foreground", "background"]
    assert scheduler.close()


def test_writes_run_in_order_and_are_never_superseded_nor_cancelled(qtbot, runner: TaskRunner) -> None:
    """Two writes on one channel both report, in order; closing the scheduler cancels reads, never a write."""
    scheduler = runner.scheduler
    results: list[str] = []
    for name in ("first", "second"):
        runner.start("edit", lambda _task, name=name: name, results.append, priority=Priority.WRITE)
    qtbot.waitUntil(lambda: len(results) == 2, timeout=TIMEOUT)
    assert results == ["first", "second"]  # a read channel would have dropped the first

    # Closing cancels the read, which lets the write go on: the close waits for it, never cancels it.
    gate = threading.Event()
    cancels: dict[str, threading.Event] = {}

    def write(task: TaskContext, name: str) -> str:
        cancels[name] = task.cancel_event
        gate.wait(TIMEOUT / 1000)
        return name

    def read(task: TaskContext) -> str:
        cancels["read"] = task.cancel_event
        task.cancel_event.wait(TIMEOUT / 1000)
        gate.set()
        return "read"

    runner.start("edit", lambda task: write(task, "third"), results.append, priority=Priority.WRITE)
    runner.start("read", read, results.append, priority=Priority.FOREGROUND)
    qtbot.waitUntil(lambda: len(cancels) == 2, timeout=TIMEOUT)
    assert scheduler.close(msecs=TIMEOUT, write_msecs=TIMEOUT)
    assert cancels["read"].is_set() and not cancels["third"].is_set()
    assert not scheduler.unfinished()


def test_a_task_is_let_go_once_the_pool_is_done_with_it(
    qtbot, runner: TaskRunner, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Qt keeps the Python object of a runnable that does not delete itself as long as the C++ one, and
    # deletes neither: every task ever run stayed. And a task referring to itself waited for the cyclic
    # collector, which does not run while tasks do. Now each is freed by its last reference.
    import gui.scheduling as scheduling

    monkeypatch.setattr(scheduling, "_RELEASE_AFTER", 0.0)
    gc.disable()  # nothing may depend on the cyclic collector
    try:
        tasks: list[weakref.ref[object]] = []
        results: list[int] = []
        for number in range(20):
            with qtbot.waitSignal(
                runner.busy_changed, timeout=TIMEOUT, check_params_cb=lambda busy: not busy
            ):
                runner.start(
                    f"c{number}", lambda _context, n=number: n, results.append, priority=Priority.FOREGROUND
                )
            tasks.extend(weakref.ref(job) for job in runner.scheduler._jobs)
        # The result (and busy False) reaches the GUI thread before run() sets done_at in the pool thread:
        # on a loaded machine the last few jobs were not done yet when "last" pruned.
        qtbot.waitUntil(lambda: not runner.scheduler.unfinished(), timeout=TIMEOUT)
        runner.start("last", lambda _context: 0, results.append, priority=Priority.FOREGROUND)  # prunes
        assert sorted(results[:20]) == list(range(20))
        assert sum(ref() is not None for ref in tasks) == 0
    finally:
        gc.enable()
