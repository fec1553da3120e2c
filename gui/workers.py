"""Background work: plain callables run through the window's scheduler, results delivered on the GUI thread.

A :class:`Task` runs one callable as a :class:`gui.scheduling.Job` of a given priority; its
:class:`TaskSignals` object is created on the main thread, so the signals emitted from the worker thread
reach their slots as queued calls on the main thread. Workers only call core functions: they never touch
models or widgets.

Every callable gets one argument, its :class:`TaskContext`: whether it was cancelled, a progress callback
and, for background work, the point where it lets the foreground go first. A failure reaches
``on_failed`` as the exception object itself; :func:`gui.errors.user_sentence` turns it into the sentence
the user sees.

:class:`TaskRunner` stamps every request with a generation number per channel (``"load"``, ``"refresh"``...)
and drops results that arrive after a newer request on the same channel (latest wins). Starting a request
sets the cancel event of the previous one on that channel. Writes are the exception: each one's result is
delivered, and none is cancelled.
"""

from __future__ import annotations

import os
import threading
import time
import traceback
from collections.abc import Callable
from typing import Any, TypeVar

from PySide6.QtCore import QObject, Signal

from gui.scheduling import Job, Priority, Scheduler

__all__ = ["Task", "TaskContext", "TaskRunner", "TaskSignals"]

T = TypeVar("T")
_PROGRESS_INTERVAL = 0.1  # seconds between two progress signals of one task (the last one always goes out)


class TaskSignals(QObject):
    """The signals of one :class:`Task`; made on the main thread so that its slots run there."""

    finished = Signal(object)  # the callable's return value
    failed = Signal(object)  # the exception the callable raised
    progress = Signal(object)  # the arguments the callable passed to TaskContext.progress, as a tuple


class TaskContext:
    """What a running task may ask: has it been cancelled, report progress, let the foreground go first.

    Progress is throttled to one signal per 0.1 s: a catalogue pass reports every file.
    """

    def __init__(self, job: Job, signals: TaskSignals) -> None:
        self._job = job
        self._signals = signals
        self.cancel_event = job.cancel  # for core functions that take a threading.Event
        self._last_progress = 0.0

    @property
    def cancelled(self) -> bool:
        """True once a newer request on the same channel, or the scheduler's close, cancelled this one."""
        return self.cancel_event.is_set()

    def yield_to_foreground(self, limit: float = 60.0) -> None:
        """Background work waits here while the foreground is held (at most ``limit`` s; a cancel ends it).

        Foreground work and writes go on at once (:meth:`gui.scheduling.Job.yield_to_foreground`).
        """
        self._job.yield_to_foreground(limit)

    def progress(self, *args: Any) -> None:
        """Send ``args`` to the request's ``on_progress`` on the GUI thread (at most every 0.1 s)."""
        now = time.monotonic()
        if now - self._last_progress >= _PROGRESS_INTERVAL:
            self._last_progress = now
            self._signals.progress.emit(args)


class Task(Job):
    """Runs ``fn(context)`` once in a pool thread and reports through ``signals``."""

    def __init__(
        self,
        fn: Callable[[TaskContext], Any],
        signals: TaskSignals,
        cancel: threading.Event,
        priority: Priority,
        channel: str = "",
    ) -> None:
        super().__init__(priority, cancel, channel)
        self._fn: Callable[[TaskContext], Any] | None = fn
        self.signals = signals

    def work(self) -> None:
        fn, self._fn = self._fn, None  # the function and what it holds go with this call
        if fn is None:
            return
        # The context is made here and dropped with the call: kept on the task it would refer back to
        # it, and a task in a reference cycle waits for the cyclic collector, which does not run while
        # tasks do (gui.scheduling); see also scheduling._release.
        try:
            result = fn(TaskContext(self, self.signals))
        except Exception as err:  # reported to the GUI, never raised into Qt's thread
            self._report(self.signals.failed, _detached(err))
        else:
            self._report(self.signals.finished, result)

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


class TaskRunner(QObject):
    """Starts tasks through a :class:`Scheduler`; per channel, only the latest request's result is delivered.

    Writes (:attr:`Priority.WRITE`) are not superseded: every one's result is delivered.
    """

    busy_changed = Signal(bool)

    def __init__(self, scheduler: Scheduler, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._scheduler = scheduler
        self._generation: dict[str, int] = {}
        self._cancels: dict[str, threading.Event] = {}
        self._running = 0  # tasks whose result has not come back yet

    @property
    def scheduler(self) -> Scheduler:
        """The scheduler the tasks run through."""
        return self._scheduler

    @property
    def busy(self) -> bool:
        """Whether a started task has not reported yet."""
        return self._running > 0

    @property
    def closed(self) -> bool:
        """True once the scheduler is closed: no new task starts, and no result is delivered."""
        return self._scheduler.closed

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
        *,
        priority: Priority,
    ) -> int:
        """Run ``fn(context)`` as a ``priority`` job; ``on_finished`` gets its result unless a newer one came.

        ``on_failed`` gets the exception ``fn`` raised; ``on_progress`` the arguments of each
        :meth:`TaskContext.progress` call.

        Returns:
            The request's generation number (0 for a write), or -1 once the scheduler is closed.
        """
        if self.closed:
            return -1
        cancel = threading.Event()
        if priority is Priority.WRITE:
            generation = 0  # never superseded, never cancelled

            def current() -> bool:
                return not self.closed

        else:
            previous = self._cancels.get(channel)
            if previous is not None:
                previous.set()  # latest wins: the superseded task may stop early
            generation = self.generation(channel) + 1
            self._generation[channel] = generation
            self._cancels[channel] = cancel

            def current() -> bool:
                return not self.closed and self._generation.get(channel) == generation

        signals = TaskSignals(self)  # main thread, so its slots run here (queued from the worker)
        task = Task(fn, signals, cancel, priority, channel)

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
        self._running += 1
        if self._running == 1:
            self.busy_changed.emit(True)
        self._scheduler.start(task)
        return generation

    def _task_done(self, signals: TaskSignals) -> None:
        self._running = max(0, self._running - 1)
        signals.deleteLater()  # no more signals come from a task that reported
        if self._running == 0:
            self.busy_changed.emit(False)
