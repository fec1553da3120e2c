"""Background work: plain callables run in the global thread pool, results delivered on the GUI thread.

A :class:`Task` runs one callable; its :class:`TaskSignals` object is created on the main thread, so the
signals emitted from the worker thread reach their slots as queued calls on the main thread. Workers only
call core functions: they never touch models or widgets.

Every callable gets one argument, its :class:`TaskContext`: whether it was cancelled and a progress
callback. A failure reaches ``on_failed`` as the exception object itself; :func:`gui.errors.user_sentence`
turns it into the sentence the user sees.

:class:`TaskRunner` stamps every request with a generation number per channel (``"load"``, ``"refresh"``...)
and drops results that arrive after a newer request on the same channel (latest wins). Starting a request
sets the cancel event of the previous one on that channel.
"""

from __future__ import annotations

import gc
import os
import sys
import threading
import time
import traceback
from collections.abc import Callable, Collection
from typing import Any, TypeVar

from PySide6.QtCore import QObject, QRunnable, QThreadPool, QTimer, Signal

__all__ = ["Task", "TaskContext", "TaskRunner", "TaskSignals", "hold_foreground", "release_foreground"]

T = TypeVar("T")
_RELEASE_AFTER = 1.0  # seconds after run() ended before a task's reference is dropped
_COLLECT_INTERVAL_MS = 250  # how often the GUI thread collects garbage while workers may run
_SWITCH_INTERVAL = 0.0005  # seconds a thread may hold the interpreter lock while another waits (see acquire)
_PROGRESS_INTERVAL = 0.1  # seconds between two progress signals of one task (the last one always goes out)


class TaskSignals(QObject):
    """The signals of one :class:`Task`; made on the main thread so that its slots run there."""

    finished = Signal(object)  # the callable's return value
    failed = Signal(object)  # the exception the callable raised
    progress = Signal(object)  # the arguments the callable passed to TaskContext.progress, as a tuple


class _Foreground:
    """How many holds on the foreground (:func:`hold_foreground`) there are now.

    While any stands, the session the user asked to see is being loaded and shown.
    Background passes (the catalogue's) wait for them between files: every thread of this process
    takes turns on one interpreter lock, and the catalogue's writer made the load of a 978 MB session
    take twice as long or more.
    """

    running = 0
    changed = threading.Condition()

    @classmethod
    def enter(cls) -> None:
        with cls.changed:
            cls.running += 1

    @classmethod
    def leave(cls) -> None:
        with cls.changed:
            cls.running -= 1
            cls.changed.notify_all()

    @classmethod
    def wait(cls, cancel: threading.Event, limit: float) -> None:
        deadline = time.monotonic() + limit
        with cls.changed:
            while cls.running and not cancel.is_set():
                left = deadline - time.monotonic()
                if left <= 0:
                    return
                cls.changed.wait(min(left, 0.1))  # wakes for a cancel too


def hold_foreground() -> None:
    """Make background passes wait until :func:`release_foreground` (a load and the turns that show it)."""
    _Foreground.enter()


def release_foreground() -> None:
    """End one :func:`hold_foreground`."""
    _Foreground.leave()


class TaskContext:
    """What a running task may ask: has it been cancelled, and a way to report progress.

    Progress is throttled to one signal per 0.1 s: a catalogue pass reports every file.
    """

    def __init__(self, signals: TaskSignals, cancel: threading.Event) -> None:
        self._signals = signals
        self.cancel_event = cancel  # for core functions that take a threading.Event
        self._last_progress = 0.0

    @property
    def cancelled(self) -> bool:
        """True once a newer request on the same channel, or the runner's shutdown, cancelled this one."""
        return self.cancel_event.is_set()

    def yield_to_foreground(self, limit: float = 60.0) -> None:
        """Wait while the foreground is held (at most ``limit`` seconds; a cancel ends the wait)."""
        if _Foreground.running:
            _Foreground.wait(self.cancel_event, limit)

    def progress(self, *args: Any) -> None:
        """Send ``args`` to the request's ``on_progress`` on the GUI thread (at most every 0.1 s)."""
        now = time.monotonic()
        if now - self._last_progress >= _PROGRESS_INTERVAL:
            self._last_progress = now
            self._signals.progress.emit(args)


class Task(QRunnable):
    """Runs ``fn(context)`` once in a pool thread and reports through ``signals``.

    Auto-delete is off: the Python object owns the C++ runnable, so whoever started it must keep a
    reference until ``run()`` has returned (the pool still runs it after the last signal).
    """

    def __init__(
        self, fn: Callable[[TaskContext], Any], signals: TaskSignals, cancel: threading.Event
    ) -> None:
        super().__init__()
        self.setAutoDelete(False)
        self._fn = fn
        self.signals = signals
        self.cancel = cancel
        self.context = TaskContext(signals, cancel)
        self.done_at: float | None = None  # monotonic time of the last step of run()
        self.channel = ""  # the request channel it was started on (TaskRunner.start)

    def run(self) -> None:
        _MainThreadCollector.working(1)
        try:
            try:
                result = self._fn(self.context)
            except Exception as err:  # reported to the GUI, never raised into Qt's thread
                self._report(self.signals.failed, _detached(err))
            else:
                self._report(self.signals.finished, result)
        finally:
            _MainThreadCollector.working(-1)
            self.done_at = time.monotonic()

    def _report(self, signal: Any, value: object) -> None:
        try:
            signal.emit(value)
        except RuntimeError:  # the window and its signals went away while this ran: nobody is left to tell
            pass


def _detached(error: BaseException) -> BaseException:
    """``error`` (and the errors it was raised from) without tracebacks, before it leaves the worker.

    A traceback holds the worker's frames and their locals, Qt objects among them (the PDF export's
    document and writer). Sent to the GUI thread with it, they would be destroyed there, off their own
    thread (Qt warns "QBasicTimer::stop: Failed"); cleared here, they die in the worker as the frames
    unwind. ``PRIME_SESSIONS_DEBUG`` prints the traceback first.
    """
    if os.environ.get("PRIME_SESSIONS_DEBUG"):
        traceback.print_exception(error)
    seen: set[int] = set()
    stack: list[BaseException] = [error]
    while stack:
        current = stack.pop()
        if id(current) in seen:
            continue
        seen.add(id(current))
        current.__traceback__ = None
        stack.extend(e for e in (current.__cause__, current.__context__) if e is not None)
    return error


class _MainThreadCollector:
    """Python's cyclic garbage collection, on the GUI thread only, while any :class:`TaskRunner` lives.

    Python collects in whichever thread happens to allocate. In a worker (a session load allocates
    hundreds of thousands of objects) it would destroy the Qt objects of any garbage cycle there,
    and a widget destroyed off its own thread crashes the app (the likely cause of a segmentation
    fault seen once in a CI run, in a worker's parse loop). So while workers may run, automatic
    collection is off and a timer on the GUI thread collects the generations whose thresholds
    were passed.
    """

    users = 0
    tasks_running = 0  # tasks inside Task.run now, in any runner
    lock = threading.Lock()
    timer: QTimer | None = None
    was_enabled = True  # what to restore when the last runner closes
    was_switching = 0.005  # the switch interval before the first runner (restored with the above)

    @classmethod
    def acquire(cls) -> None:
        cls.users += 1
        if cls.users == 1:
            # Every call from Qt into Python (a model's data(), a slot) takes the interpreter lock, and
            # a thread waiting for it waits the switch interval (5 ms) while a worker holds it: a paint
            # of the tree makes dozens of such calls. At 0.5 ms, the longest GUI-thread stall while a
            # 38 MB session loads went from 62-84 to 23-50 ms, and its load took no longer.
            cls.was_switching = sys.getswitchinterval()
            sys.setswitchinterval(_SWITCH_INTERVAL)
            cls.was_enabled = gc.isenabled()
            gc.disable()
            timer = QTimer()
            timer.setInterval(_COLLECT_INTERVAL_MS)
            timer.timeout.connect(cls.collect)
            timer.start()
            cls.timer = timer

    @classmethod
    def release(cls) -> None:
        cls.users = max(0, cls.users - 1)
        if cls.users == 0 and cls.timer is not None:
            cls.timer.stop()
            cls.timer = None
            sys.setswitchinterval(cls.was_switching)
            if cls.was_enabled:
                gc.enable()

    @classmethod
    def working(cls, change: int) -> None:
        """Count a task starting (+1) or ending (-1) in a worker thread."""
        with cls.lock:
            cls.tasks_running += change

    @classmethod
    def collect(cls) -> None:
        """Collect what automatic collection would have (the oldest generation due, at most).

        But never the oldest generation while a task runs. Python's own rule waits until a quarter of
        the long-lived objects are new since the last full collection; this timer cannot see that
        count, and a session load makes hundreds of thousands of objects that all live on: a full
        collection every ten middle ones walked them all, ever more of them, on this thread (a 978 MB
        session: 26 s to load instead of 5, with 557 ms stalls). The load freezes what it made when it
        ends (``gui.controllers.opened.load``), so the full collection after it is short.
        """
        first, second, third = gc.get_threshold()
        young, middle, old = gc.get_count()
        if young <= first:
            return
        if cls.tasks_running:
            # Nor the middle one: it holds what the young collections of the last seconds kept, which
            # is the load's index being built (200,000 objects and more), 60-90 ms of a stall each time.
            gc.collect(0)
        else:
            gc.collect(2 if old > third else 1 if middle > second else 0)


class TaskRunner(QObject):
    """Starts tasks in the global thread pool; per channel, only the latest request's result is delivered.

    While a runner is open, garbage is collected on the GUI thread only (see ``_MainThreadCollector``).
    """

    busy_changed = Signal(bool)

    def __init__(self, parent: QObject | None = None, pool: QThreadPool | None = None) -> None:
        super().__init__(parent)
        self._pool = pool or QThreadPool.globalInstance()
        self._generation: dict[str, int] = {}
        self._cancels: dict[str, threading.Event] = {}
        self._tasks: list[Task] = []  # references kept until the pool is done with them
        self._running = 0  # tasks whose result has not come back yet
        self._closed = False
        _MainThreadCollector.acquire()

    @property
    def busy(self) -> bool:
        """Whether a started task has not reported yet."""
        return self._running > 0

    @property
    def closed(self) -> bool:
        """True after :meth:`shutdown`: no new task starts."""
        return self._closed

    def generation(self, channel: str) -> int:
        """The generation number of the latest request on ``channel`` (0 before the first)."""
        return self._generation.get(channel, 0)

    def cancel(self, channel: str) -> None:
        """Ask the running request on ``channel`` to stop and drop its result when it comes."""
        event = self._cancels.pop(channel, None)
        if event is not None:
            event.set()
        self._generation[channel] = self.generation(channel) + 1

    def start(
        self,
        channel: str,
        fn: Callable[[TaskContext], T],
        on_finished: Callable[[T], None],
        on_failed: Callable[[Exception], None] | None = None,
        on_progress: Callable[..., None] | None = None,
    ) -> int:
        """Run ``fn(context)`` in the pool; its result goes to ``on_finished`` unless a newer request came.

        ``on_failed`` gets the exception ``fn`` raised; ``on_progress`` the arguments of each
        :meth:`TaskContext.progress` call.

        Returns:
            The request's generation number, or -1 after :meth:`shutdown`.
        """
        if self._closed:
            return -1
        self._prune()
        previous = self._cancels.get(channel)
        if previous is not None:
            previous.set()  # latest wins: the superseded task may stop early
        generation = self.generation(channel) + 1
        self._generation[channel] = generation
        cancel = threading.Event()
        self._cancels[channel] = cancel
        signals = TaskSignals(self)  # main thread, so its slots run here (queued from the worker)
        task = Task(fn, signals, cancel)
        task.channel = channel

        def current() -> bool:
            return not self._closed and self._generation.get(channel) == generation

        def finished(result: Any) -> None:
            self._task_done(signals)
            if current():
                on_finished(result)

        def failed(error: Exception) -> None:
            self._task_done(signals)
            if current() and on_failed is not None:
                on_failed(error)

        signals.finished.connect(finished)
        signals.failed.connect(failed)
        if on_progress is not None:
            signals.progress.connect(lambda args: on_progress(*args) if current() else None)
        self._tasks.append(task)
        self._running += 1
        if self._running == 1:
            self.busy_changed.emit(True)
        self._pool.start(task)
        return generation

    def shutdown(self, msecs: int = 5000, finish: Collection[str] = (), finish_msecs: int = 0) -> bool:
        """Cancel every task and wait up to ``msecs`` for the pool; True when it went idle in time.

        A task on one of the ``finish`` channels (one that writes what the user asked for, such as a
        fork) is waited for up to ``finish_msecs`` in all, as long as one still runs.
        """
        if not self._closed:
            _MainThreadCollector.release()
        self._closed = True
        for event in self._cancels.values():
            event.set()
        for task in self._tasks:
            task.cancel.set()
        self._cancels.clear()
        idle = self._pool.waitForDone(msecs)
        if not idle and any(t.channel in finish and t.done_at is None for t in self._tasks):
            idle = self._pool.waitForDone(max(0, finish_msecs - msecs))
        if idle:
            self._tasks.clear()
        else:
            self._prune()
        return idle

    def _task_done(self, signals: TaskSignals) -> None:
        self._running = max(0, self._running - 1)
        signals.deleteLater()  # no more signals come from a task that reported
        if self._running == 0:
            self.busy_changed.emit(False)

    def _prune(self) -> None:
        """Drop references to tasks whose ``run()`` ended a while ago.

        ``done_at`` is set just before ``run()`` returns to the pool; the grace period makes sure the
        pool thread has left the runnable before Python frees it.
        """
        now = time.monotonic()
        self._tasks = [t for t in self._tasks if t.done_at is None or now - t.done_at < _RELEASE_AFTER]
