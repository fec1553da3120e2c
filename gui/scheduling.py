"""The app's scheduler: what runs in the thread pool, in which order, and how the interpreter is set.

One :class:`Scheduler` belongs to the window (``gui.main_window`` makes it; controllers reach it through
the ``WindowContext``). Every piece of background work is a :class:`Job` started with a :class:`Priority`:

* ``FOREGROUND``: what the user is waiting for on screen (the session load, what the model saw, a search,
  a diff, an export). Queued before background work; it never waits.
* ``BACKGROUND``: catalogue passes and what hangs off them (the list read from the catalogue, partial lists,
  usage figures). Queued last. While the foreground is *held* (:meth:`Scheduler.hold_foreground`: the
  open-session controller holds it from the open of a session until its leaf is shown), a background job
  waits wherever it calls :meth:`Job.yield_to_foreground` (the catalogue pass: before it starts and between
  files and parts), at most 60 s, and a cancel ends the wait. Every thread of the process takes turns on
  one interpreter lock: the catalogue's writer made the load of a 978 MB session take twice as long or
  more, and stalled the turns that expand and paint its tree by 60-90 ms.
* ``WRITE``: a new file or an append the user asked for (fork, clone, a rename of a session that is not
  open). Run in a pool of their own, so never queued behind a catalogue pass that takes every thread of
  the shared pool, one at a time in the order asked (a second rename of a session reads the first);
  never cancelled, and waited for when the window closes (a write is whole or absent, so a minute is
  allowed).

While a scheduler is open it also sets how the interpreter behaves (see :class:`Scheduler`): garbage is
collected on the GUI thread only, never the oldest generation while a job runs, and the switch interval is
short.
"""

from __future__ import annotations

import gc
import sys
import threading
import time
from enum import IntEnum

import shiboken6
from PySide6.QtCore import QObject, QRunnable, QThreadPool, QTimer, Signal

__all__ = ["AFTER_APPEND_MSECS", "Job", "Priority", "Scheduler"]

_RELEASE_AFTER = 1.0  # seconds after run() ended before a job's reference is dropped
_COLLECT_INTERVAL_MS = 250  # how often the GUI thread collects garbage while a scheduler is open
_SWITCH_INTERVAL = 0.0005  # seconds a thread holds the interpreter lock while another waits (_Interpreter)
_FOREGROUND_LIMIT = 60.0  # seconds a background job waits for the foreground at most, each time
# Background work that lines appended to the open session call for (its usage, its files) starts this long
# after the last of them: the window shows them first. Started at once, two such workers went over a 1 GB
# session's 520,000 entries while the tree laid out its rows again, each of the tree's calls into Python
# waiting for the interpreter lock: a 0.8-2 s stall after every line; and a burst of lines is one pass.
AFTER_APPEND_MSECS = 300


class Priority(IntEnum):
    """A job's class; the value is its place in the thread pool's queue (higher first)."""

    BACKGROUND = 0  # catalogue passes and what hangs off them: yield to the foreground
    FOREGROUND = 1  # what the user waits for on screen: the load, context, search, diff, export
    WRITE = 2  # fork, clone, a rename of a session not open: at once, never cancelled, waited for on close


class Job(QRunnable):
    """One piece of work a :class:`Scheduler` runs in the pool; subclasses say what in :meth:`work`.

    Auto-delete is off: the Python object owns the C++ runnable, and the scheduler keeps a reference until
    a while after ``run()`` returned (the pool still touches the runnable after the last line of work).
    """

    def __init__(self, priority: Priority, cancel: threading.Event, name: str = "") -> None:
        super().__init__()
        self.setAutoDelete(False)
        self.priority = priority
        self.cancel = cancel  # set when the job should stop early (never for a write)
        self.name = name  # what it is, for messages (the task runner's channel)
        self.scheduler: Scheduler | None = None  # set by Scheduler.start
        self.done_at: float | None = None  # monotonic time of the last step of run()

    def work(self) -> None:
        """The job itself, in a pool thread (subclasses)."""
        raise NotImplementedError

    def run(self) -> None:
        scheduler = self.scheduler
        assert scheduler is not None, "a job runs through Scheduler.start"
        scheduler._began()
        try:
            self.work()
        finally:
            scheduler._ended()
            self.done_at = time.monotonic()

    def yield_to_foreground(self, limit: float = _FOREGROUND_LIMIT) -> None:
        """A background job waits here while the foreground is held (``limit`` s at most; a cancel ends it).

        Foreground jobs and writes never wait: the load that holds the foreground would wait for itself.
        """
        if self.priority is Priority.BACKGROUND and self.scheduler is not None:
            self.scheduler._wait_for_foreground(self, limit)


class _Interpreter:
    """The interpreter's settings while any scheduler is open: automatic collection and the switch interval.

    Both are process-wide, so the first scheduler to open sets them and the last to close restores them
    (the app has one; the tests make several windows, one after another and sometimes side by side).
    """

    users = 0
    was_enabled = True  # automatic collection before the first scheduler
    was_switching = 0.005  # the switch interval before the first scheduler

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

    @classmethod
    def release(cls) -> None:
        cls.users = max(0, cls.users - 1)
        if cls.users == 0:
            sys.setswitchinterval(cls.was_switching)
            if cls.was_enabled:
                gc.enable()


class Scheduler(QObject):
    """Runs jobs by :class:`Priority`, holds the foreground, and collects garbage on the GUI thread.

    Python collects garbage in whichever thread happens to allocate. In a worker (a session load allocates
    hundreds of thousands of objects) it would destroy the Qt objects of any garbage cycle there, and a
    widget destroyed off its own thread crashes the app (the likely cause of a segmentation fault seen
    once in a CI run, in a worker's parse loop). So while a scheduler is open, automatic collection is off
    and a timer on the GUI thread collects the generations whose thresholds were passed (:meth:`collect`).
    """

    waiting = Signal(str)  # a background job (its name) began to wait for the foreground

    def __init__(self, parent: QObject | None = None, pool: QThreadPool | None = None) -> None:
        super().__init__(parent)
        self._pool = pool or QThreadPool.globalInstance()
        # QThreadPool.startOnReservedThread does not help here: with every thread taken, it queues the job.
        self._write_pool = QThreadPool(self)
        self._write_pool.setMaxThreadCount(1)
        self._jobs: list[Job] = []  # references kept until the pool is done with them
        self._lock = threading.Lock()
        self._running = 0  # jobs inside run() now
        self._holds = 0  # holds on the foreground now
        self._foreground = threading.Condition()
        self._closed = False
        _Interpreter.acquire()
        self._timer = QTimer(self)
        self._timer.setInterval(_COLLECT_INTERVAL_MS)
        self._timer.timeout.connect(self.collect)
        self._timer.start()

    # ------------------------------------------------------------------ state
    @property
    def closed(self) -> bool:
        """True after :meth:`close`: no job starts any more."""
        return self._closed

    @property
    def running(self) -> int:
        """How many jobs are inside ``run()`` now."""
        return self._running

    def unfinished(self) -> list[Job]:
        """The jobs started and not yet done (queued, or running in a pool thread)."""
        return [job for job in self._jobs if job.done_at is None]

    # ------------------------------------------------------------------ running jobs
    def start(self, job: Job) -> bool:
        """Run ``job`` by its priority; False (and nothing runs) once the scheduler is closed."""
        if self._closed:
            return False
        self._prune()
        job.scheduler = self
        self._jobs.append(job)
        if job.priority is Priority.WRITE:
            self._write_pool.start(job)
        else:
            self._pool.start(job, int(job.priority))
        return True

    def close(self, msecs: int = 5000, write_msecs: int = 5000) -> bool:
        """Cancel every job but the writes; wait up to ``msecs`` for the others, ``write_msecs`` for writes.

        True when every job ended in time. The interpreter's settings are restored once the last open
        scheduler is closed.
        """
        if not self._closed:
            self._closed = True
            self._timer.stop()
            _Interpreter.release()
        for job in self._jobs:
            if job.priority is not Priority.WRITE:
                job.cancel.set()
        with self._foreground:
            self._foreground.notify_all()  # a background job waiting for the foreground sees its cancel now
        idle = self._pool.waitForDone(msecs)
        idle = self._write_pool.waitForDone(write_msecs) and idle
        if idle:
            for job in self._jobs:
                _release(job)
            self._jobs.clear()
        else:
            self._prune()
        return idle

    def _began(self) -> None:
        with self._lock:
            self._running += 1

    def _ended(self) -> None:
        with self._lock:
            self._running -= 1

    def _prune(self) -> None:
        """Drop references to jobs whose ``run()`` ended a while ago.

        ``done_at`` is set just before ``run()`` returns to the pool; the grace period makes sure the
        pool thread has left the runnable before Python frees it.
        """
        now = time.monotonic()
        kept: list[Job] = []
        for job in self._jobs:
            if job.done_at is None or now - job.done_at < _RELEASE_AFTER:
                kept.append(job)
            else:
                _release(job)
        self._jobs = kept

    # ------------------------------------------------------------------ the foreground
    @property
    def foreground_held(self) -> int:
        """How many holds on the foreground stand now (0: background jobs go on)."""
        return self._holds

    def hold_foreground(self) -> None:
        """Make background jobs wait until :meth:`release_foreground` (a load and the turns that show it)."""
        with self._foreground:
            self._holds += 1

    def release_foreground(self) -> None:
        """End one :meth:`hold_foreground`."""
        with self._foreground:
            self._holds = max(0, self._holds - 1)
            self._foreground.notify_all()

    def _wait_for_foreground(self, job: Job, limit: float) -> None:
        if not self._holds or job.cancel.is_set():
            return
        try:
            self.waiting.emit(job.name)
        except RuntimeError:  # the window and its scheduler went away while this ran
            pass
        deadline = time.monotonic() + limit
        with self._foreground:
            while self._holds and not job.cancel.is_set():
                left = deadline - time.monotonic()
                if left <= 0:
                    return
                self._foreground.wait(min(left, 0.1))  # wakes for a cancel too

    # ------------------------------------------------------------------ garbage collection
    def collect(self) -> None:
        """Collect what automatic collection would have (the oldest generation due, at most).

        But never the oldest generation while a job runs. Python's own rule waits until a quarter of
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
        if self._running:
            # Nor the middle one: it holds what the young collections of the last seconds kept, which
            # is the load's index being built (200,000 objects and more), 60-90 ms of a stall each time.
            gc.collect(0)
        else:
            gc.collect(2 if old > third else 1 if middle > second else 0)

    def collect_garbage(self, frozen_too: bool) -> None:
        """Collect every generation now, on this (the GUI) thread: a session load is about to start.

        The load freezes what is alive when it ends (``gui.controllers.opened.load``), so the garbage cycles
        of before must go first, or they are frozen with it for good: a closure left in a cycle by the
        session shown, holding that session, kept it alive for as long as the window lived. This walks
        what was made since the last freeze; with ``frozen_too``, the frozen objects as well, which hands
        back the cycles that died after they were frozen: the caller says so only while they are few (a
        small session shown), since walking a 1 GB session's 1.8 million objects takes 370 ms. (Nor is
        ``gc.get_freeze_count()`` asked: it counts them one by one, 60-70 ms at that size.)
        """
        if frozen_too:
            gc.unfreeze()
        gc.collect()


def _release(job: Job) -> None:
    """Let a job the pool is done with go.

    A runnable that does not delete itself is handed to Qt with its Python object, which then lives as
    long as the C++ one: forever, since Qt deletes no runnable that is not auto-deleted. Every task the
    window ever ran stayed (5 KB each; 35,000 of them on the way up a 50,000-message transcript).
    """
    if shiboken6.isValid(job):
        shiboken6.delete(job)
