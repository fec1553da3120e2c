"""Whole reads of session files in worker processes, for big catalogue passes.

Parsing is pure Python and holds the GIL, so threads cannot overlap it with the catalogue's
writing; processes can. A pass with a lot to read whole (a cold build) hands the reads to a few
workers, which run ahead of the writer by a small window, and takes the results in the order it
asked for them (newest first). Small passes read in process: starting a worker costs about
0.1 s.

Workers are started with ``spawn``, never ``fork``: the desktop app calls the catalogue from a
worker thread, and forking a process with threads can copy a held lock. A frozen app must call
``multiprocessing.freeze_support()`` first thing: ``gui.launcher``, the bundle's entry point, does
(``.ci/run`` checks that the frozen binary's reader really reads).
"""

from __future__ import annotations

import contextlib
import os
import pickle
import shutil
import tempfile
from collections import deque
from collections.abc import Generator, Iterable, Iterator
from typing import TYPE_CHECKING

from core.catalogue.reading import Part, WholeRead, read_whole

if TYPE_CHECKING:
    from concurrent.futures import Future

# multiprocessing and concurrent.futures are imported when workers start: every CLI command
# imports the catalogue, and those two cost about 25 ms of a 0.1 s search.

# A pass reads in worker processes when it has at least this much to read whole.
POOL_MIN_BYTES = 64 * 1024 * 1024
# Reads queued ahead of the writer, per worker and in bytes of session files: enough that a big
# file at the head of the queue does not leave the workers idle, few enough to bound memory.
_AHEAD = 24
_AHEAD_BYTES = 96 * 1024 * 1024
_HANDED_LIMIT = 500_000  # keys a worker remembers having handed over (about 40 MB)

# In a worker: keys of the texts this process handed over already (see WholeRead.texts).
_handed: set[int] = set()


def reader_count(bytes_to_read: int) -> int:
    """How many worker processes a pass with ``bytes_to_read`` to read whole should use (0: none).

    ``PRIME_SESSIONS_READERS`` overrides it (0 turns workers off; tests use it to force them).
    """
    override = os.environ.get("PRIME_SESSIONS_READERS")
    if override is not None:
        try:
            return max(0, int(override))
        except ValueError:
            pass
    if bytes_to_read < POOL_MIN_BYTES:
        return 0
    # As many workers as processors, though the writer needs one too: on two processors, two
    # workers built the benchmark history in 6.2-7.0 s against 7.3-8.2 s with one (the writer
    # waits for reads at times, and the system shares the processors well). More than four only
    # add memory: the writer's SQLite inserts are then the limit.
    return min(4, os.cpu_count() or 1)


def _read(path: str, st: os.stat_result, folder: str, seq: int, snapshots: str | None) -> str:
    """In a worker: read one file whole; return the name of the file holding the pickled result.

    Results go through a file, not the executor's pipe: the pipe moves 64 KB per read, and each
    read in the parent waits for the GIL held by the writer thread, which made a worker as slow
    as the writer. One read of a file in the page cache costs one system call. A file with a lot of
    text hands its parts over the same way while it is read (``SEQ-N.part``), so neither process
    holds all its texts; the parent takes them as they appear (:meth:`Readers.take`). A big file's
    snapshot is written into the catalogue's folder ``snapshots`` (see :func:`read_whole`): here, since
    pickling it holds the interpreter for seconds, which a window's process cannot spare.
    """
    if len(_handed) > _HANDED_LIMIT:
        _handed.clear()  # texts are handed over again: more to pickle, never wrong
    parts = 0

    def hand_over(part: Part) -> None:
        nonlocal parts
        if os.path.exists(os.path.join(folder, f"{seq}.abandoned")):
            raise _Abandoned  # the parent read the file itself: no more parts for nobody
        _publish(part, os.path.join(folder, f"{seq}-{parts}.part"))
        parts += 1

    name = os.path.join(folder, f"{seq}.pickle")
    _publish(read_whole(path, st, _handed, hand_over, snapshots), name)
    return name


def _publish(value: object, name: str) -> None:
    """Pickle ``value`` into ``name``, whole or not at all (written under another name, then renamed)."""
    data = pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)
    with open(name + ".tmp", "wb") as handle:
        handle.write(data)
    os.replace(name + ".tmp", name)


def _load(name: str) -> object:
    try:
        with open(name, "rb") as handle:
            data = handle.read()
    finally:
        os.unlink(name)
    return pickle.loads(data)  # written by _publish, in a worker of this pool


class _Abandoned(Exception):
    """In a worker: the parent stopped taking this file's parts."""


class ReaderDied(Exception):
    """A worker process died (killed, out of memory); the caller reads in process instead."""


class Readers:
    """Reads files whole in worker processes, a few ahead of the caller, in the order given.

    ``take(path)`` yields the read of the next file in that order: its parts, then the rest (or raises
    what reading it raised). Close it (or use it as a context manager) to stop the workers; unread
    results are dropped.
    """

    def __init__(
        self, jobs: list[tuple[str, os.stat_result]], workers: int, snapshots: str | None = None
    ) -> None:
        self._jobs = iter(jobs)
        self._pending: deque[tuple[str, int, int, Future[str]]] = deque()
        self._queued_bytes = 0
        self._submitted = 0
        self._window = workers * (1 + _AHEAD)
        self._snapshots = snapshots  # the catalogue's folder, where big files' snapshots go
        import multiprocessing
        from concurrent.futures import ProcessPoolExecutor

        self._folder = tempfile.mkdtemp(prefix="prime-sessions-reads-")
        self._pool = ProcessPoolExecutor(max_workers=workers, mp_context=multiprocessing.get_context("spawn"))
        self._fill()

    def _fill(self) -> None:
        while len(self._pending) < self._window and (not self._pending or self._queued_bytes < _AHEAD_BYTES):
            job = next(self._jobs, None)
            if job is None:
                return
            path, st = job
            seq = self._submitted
            self._submitted += 1
            future = self._pool.submit(_read, path, st, self._folder, seq, self._snapshots)
            self._pending.append((path, seq, st.st_size, future))
            self._queued_bytes += st.st_size

    def take(self, path: str) -> Generator[Part | WholeRead, None, None]:
        """The read of ``path``, which must be the next file of the jobs: its parts, then the rest.

        Stopping early (an exception in the caller) tells the worker to hand over no more parts.

        Raises:
            SessionReadError, OSError, UnicodeError: reading the file failed.
            ReaderDied: a worker died (killed, out of memory).
        """
        from concurrent.futures import FIRST_COMPLETED, wait
        from concurrent.futures.process import BrokenProcessPool

        expected, seq, size, future = self._pending.popleft()
        if expected != path:
            raise ValueError(f"asked for {path}, next is {expected}")
        self._queued_bytes -= size
        self._fill()
        number = 0
        finished = False
        try:
            while True:
                part = os.path.join(self._folder, f"{seq}-{number}.part")
                if os.path.exists(part):
                    number += 1
                    yield _load(part)  # type: ignore[misc]  # a Part, written by _read
                    continue
                if not future.done():
                    wait([future], timeout=0.02, return_when=FIRST_COMPLETED)
                    continue
                if os.path.exists(part):  # handed over just before the worker finished
                    continue
                try:
                    name = future.result()
                except BrokenProcessPool as err:
                    raise ReaderDied(str(err)) from err
                finished = True
                read = _load(name)
                assert isinstance(read, WholeRead)
                yield read
                return
        finally:
            if not finished:
                with contextlib.suppress(OSError):
                    open(os.path.join(self._folder, f"{seq}.abandoned"), "wb").close()

    def close(self) -> None:
        """Stop the workers without waiting for reads still queued, and remove their results."""
        self._pool.shutdown(wait=False, cancel_futures=True)
        # A worker still writing a result may recreate nothing: its open fails once the folder is
        # gone, and that failure only reaches a future nobody reads.
        shutil.rmtree(self._folder, ignore_errors=True)

    def __enter__(self) -> Readers:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()


def jobs_of(
    work: Iterable[tuple[str, os.stat_result, object, bool, int]],
) -> Iterator[tuple[str, os.stat_result]]:
    """The ``(path, stat)`` of the whole reads among a pass's work items ``(path, st, row, resume, size)``."""
    for path, st, _row, resume, _size in work:
        if not resume:
            yield path, st
