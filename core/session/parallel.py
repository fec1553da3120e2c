"""One big session file read by several processes: the parse split at line boundaries (issue 27).

Parsing is pure Python and holds the interpreter lock, so only processes can share it. The file is cut
just after newlines into parts; this process reads the first part and every so many after it itself
(:func:`own_stride`), as every file is read, while worker processes index the others with the same code
(:mod:`core.session.part_index`) and hand each part back as columns of plain values (ids, parent ids,
types, line numbers, offsets and lengths as arrays: no dict and no :class:`Entry` an entry). The parts
are taken in file order and merged into the reader so that its index, its diagnostics and
everything else it keeps are those one process makes (the tests compare both on every sample, corpus
and hostile file, and on generated files cut everywhere). What a worker cannot know is settled here:

* line numbers: a worker numbers its part's lines from 0; the lines before it are added when it is
  merged (so no process counts another's lines first).
* a parent named by an entry but not found earlier in its part may be in an earlier part: looked up in
  the index as it stands (a parent found there shares its id string, as in one process).
* an id used in an earlier part: the ``duplicate-id`` note goes after the entry's other notes, as one
  process writes it; a note's "used on line N" is written when the part's first line is known.
* labels are replayed in order (a label set, a label cleared), the name, the child usage, the models and
  the context edits taken in order, the counts added.
* an entry without an id gets an id synthesised from its line number and every id before it: a worker
  meeting one stops, and this process reads that part itself. So does a version 1 file (every entry is
  such), a part whose worker failed or died, or a part of a file that changed meanwhile.

A file smaller than :data:`MIN_BYTES` is read in one process: a worker's start and the merge cost more
than they save (benchmarks/README.md, "Issue 27: the parse split across processes"). Workers are started
with ``spawn`` (the app reads from worker threads, and forking a process with threads can copy a held
lock); a frozen app calls ``multiprocessing.freeze_support()`` first (``gui.launcher`` does).
"""

from __future__ import annotations

import heapq
import math
import os
import pickle
import time
from bisect import bisect_left
from collections.abc import Iterator
from itertools import repeat
from operator import add, attrgetter
from typing import TYPE_CHECKING, NamedTuple

from core.session.diagnostics import Diagnostic
from core.session.entry import Entry
from core.session.framing import Framed, crc32_combine, frame_lines
from core.session.indexing import EntryIndexer, duplicate_note
from core.session.part_index import DetachedIndexer, PartIndex, serve_parts

if TYPE_CHECKING:
    from multiprocessing.connection import Connection
    from multiprocessing.process import BaseProcess

MIN_BYTES = 64 << 20
"""Files (or what is left to read of one) smaller than this are read in one process."""

PART_BYTES = 32 << 20
"""About how much of the file one part holds (a part ends at the first newline after this much)."""

MERGE_COST = 0.13
"""Merging a worker's part costs this process about this share of reading the part itself (measured on
the 978 MB benchmark session: 0.59 against 4.55 processor seconds a GB)."""

_HEAD_BYTES = 1 << 20  # how far the header is looked for before workers start (else one process)
_TAIL_BYTES = 1 << 20  # how far back from the end the last newline is looked for, at most 64 times


def usable_processors() -> int:
    """The processors this process may run on (its affinity where the system says, else all)."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # macOS, Windows
        return os.cpu_count() or 1


def worker_count(size: int) -> int:
    """How many worker processes should index ``size`` bytes of one file (0: read it in this process).

    One fewer than the processors other work leaves free (what the 1-minute load average says, less
    this process, as ``core.export.parallel`` reckons): this process indexes its share too, and the
    split costs about a fifth more processor time in all (pickled parts, the merge), which pays only
    where a processor is at least partly idle (benchmarks/README.md, "Issue 27"). Files under
    :data:`MIN_BYTES`: none. ``PRIME_SESSIONS_PARSERS`` overrides it (0 turns workers off).
    """
    override = os.environ.get("PRIME_SESSIONS_PARSERS")
    if override is not None:
        try:
            return max(0, int(override))
        except ValueError:
            pass
    if size < MIN_BYTES:
        return 0
    try:
        others = max(0.0, os.getloadavg()[0] - 1)
    except (AttributeError, OSError):  # no load average (Windows)
        others = 0.0
    return max(0, math.ceil(usable_processors() - others) - 1)


class SplitRead(NamedTuple):
    """How a read was shared (:attr:`core.session.Session.split`).

    ``workers`` processes started, ``parts`` in all, ``by_workers`` of them merged from a worker (the
    rest read in this process); the processor seconds this process spent on the read and the most one
    worker spent (their larger is about the wall time with a processor free for each; benchmarks).
    """

    workers: int
    parts: int
    by_workers: int
    cpu_here: float = 0.0
    cpu_worker: float = 0.0


def own_stride(workers: int, parts: int) -> int:
    """This process reads every this many parts itself (the first included): as busy as each worker.

    Its share ``f`` of the file costs it ``f`` to read and ``MERGE_COST * (1 - f)`` to merge the rest,
    which ``workers`` share: ``f + MERGE_COST * (1 - f) = (1 - f) / workers``. One worker: every
    second part; two: every fourth; three: every sixth; from eight workers only the first (merging
    is all this process can keep up with).
    """
    share = (1 / workers - MERGE_COST) / (1 - MERGE_COST + 1 / workers)
    return max(2, round(1 / share)) if share > 0 else max(parts, 1)


# ---------------------------------------------------------------------------- the parent
class _Workers:
    """Worker processes indexing parts, each a fixed share of them in file order, through its own pipe."""

    def __init__(
        self,
        path: str,
        identity: tuple[int, int],
        shares: list[list[tuple[int, int, int]]],
        settings: tuple[int, bool, bool],
    ) -> None:
        import multiprocessing

        context = multiprocessing.get_context("spawn")
        self.cpu = 0.0  # the most processor seconds a worker said it had spent
        self._owner = {number: worker for worker, share in enumerate(shares) for number, _s, _e in share}
        self._pipes: list[Connection | None] = []
        self._processes: list[BaseProcess] = []
        for share in shares:
            receiver, sender = context.Pipe(duplex=False)
            process = context.Process(
                target=serve_parts, args=(path, identity, share, settings, sender), daemon=True
            )
            process.start()
            sender.close()  # the worker holds the only sending end: its death ends the pipe (EOFError)
            self._pipes.append(receiver)
            self._processes.append(process)

    def take(self, number: int) -> PartIndex | None:
        """Part ``number`` indexed, or None when this process must read it (a worker could not, or died).

        Parts must be taken in file order: each worker sends its share in that order.
        """
        worker = self._owner[number]
        pipe = self._pipes[worker]
        if pipe is None:
            return None
        try:
            got, cpu, part = pickle.loads(pipe.recv_bytes())  # sent by serve_parts, in a worker started here
        except (EOFError, OSError):  # the worker died (killed, out of memory): read its parts here
            pipe.close()
            self._pipes[worker] = None
            return None
        assert got == number and (part is None or isinstance(part, PartIndex))
        self.cpu = max(self.cpu, cpu)
        return part

    def close(self) -> None:
        """Stop the workers (those still indexing are ended)."""
        for process in self._processes:
            if process.exitcode is None:
                process.terminate()
        for process in self._processes:
            process.join()
        for pipe in self._pipes:
            if pipe is not None:
                pipe.close()


def read_split(
    reader: EntryIndexer, fd: int, start: int, line_no: int, crc: int | None, workers: int
) -> tuple[Framed, SplitRead] | None:
    """Read the file from byte ``start`` with ``workers`` worker processes, as :func:`frame_lines` would.

    ``reader`` is the session's reader (no observer, no kept bodies), ``line_no`` the lines before
    ``start``, ``crc`` the checksum so far (None: none kept). Returns where framing stopped and how the
    read was shared, or None when the file is not worth splitting or cannot be (then nothing was read).
    """
    import multiprocessing

    if workers < 1 or multiprocessing.current_process().daemon:
        return None  # a daemonic process may not start processes
    began = time.process_time()
    st = os.fstat(fd)
    # Workers start from a state that has seen the header (or the first entry, of a file without
    # one): this process reads up to there. Its part is twice as long: a worker takes 0.15 s to start.
    first = 2 * PART_BYTES
    version: int | None = reader.version
    if not reader._header_seen:
        version, header_end = _version_ahead(reader.path, fd, start)
        first = max(first, header_end - start)
    if version is None or version < 2:
        return None  # the header is far off, or every entry of a version 1 file has a synthesised id
    cuts = _cuts(fd, start, st.st_size, PART_BYTES, first)
    if len(cuts) < 3:
        return None  # no part for a worker
    parts = [(number, cuts[number], cuts[number + 1]) for number in range(len(cuts) - 1)]
    # This process reads the first part (while the workers start) and every so many after it, as every
    # file is read, and merges the workers' parts between its own.
    mine = set(range(0, len(parts), own_stride(workers, len(parts))))
    tasks = [part for part in parts if part[0] not in mine]
    workers = min(workers, len(tasks))  # a worker with nothing to do is not started
    settings = (version, reader._fold_all, crc is not None)
    team = _Workers(
        reader.path, (st.st_dev, st.st_ino), [tasks[w::workers] for w in range(workers)], settings
    )
    merged = 0
    try:
        for number, part_start, part_end in parts:
            part = None if number in mine else team.take(number)
            if part is None:
                framed = frame_lines(
                    fd, part_start, line_no, crc, reader._decode_lines, reader._decode_pieces, part_end
                )
                line_no, crc = framed.line_no, framed.crc
            else:
                merge_part(reader, part, line_no)
                merged += 1
                line_no += part.line_count
                if crc is not None:
                    assert part.crc is not None  # asked of every worker when this process keeps one
                    crc = crc32_combine(crc, part.crc, part_end - part_start)
    finally:
        team.close()
    framed = frame_lines(fd, cuts[-1], line_no, crc, reader._decode_lines, reader._decode_pieces)
    return framed, SplitRead(workers, len(parts), merged, time.process_time() - began, team.cpu)


def merge_part(reader: EntryIndexer, part: PartIndex, base: int) -> None:
    """Add a worker's part to ``reader``, whose index holds every line before it (``base`` of them)."""
    by_id = reader.by_id
    parent_ids = part.parent_ids
    for index in part.unseen:
        parent = by_id.get(parent_ids[index])  # type: ignore[arg-type]  # unseen parents are strings
        if parent is None:
            reader._links_suspect = True
        else:
            parent_ids[index] = parent.id  # one string for both ids, as one process keeps them
    entries = list(
        map(
            Entry,
            part.ids,
            parent_ids,
            part.types,
            part.kinds,
            part.timestamps,
            map(add, part.lines, repeat(base)),
            part.offsets,
            part.lengths,
            part.roles,
            repeat(False),
            part.infos,
        )
    )
    notes = [
        Diagnostic(line + base, kind, message, entry_id) for line, kind, message, entry_id in part.diagnostics
    ]
    for index, earlier in part.duplicate_lines:
        note = notes[index]
        assert note.entry_id is not None
        notes[index] = Diagnostic(
            note.line, note.kind, duplicate_note(note.entry_id, earlier + base), note.entry_id
        )
    if part.repeated:
        reader._links_suspect = True
    if by_id and not by_id.keys().isdisjoint(part.ids):
        notes = list(heapq.merge(notes, _repeated_from_before(by_id, entries), key=attrgetter("line")))
        reader._links_suspect = True
    by_id.update(zip(part.ids, entries, strict=True))
    reader.entries += entries
    reader._diagnostics += notes
    _merge_state(reader, part, entries, base)


def _repeated_from_before(by_id: dict[str, Entry], entries: list[Entry]) -> Iterator[Diagnostic]:
    """``duplicate-id`` notes of the entries whose id an earlier part used (the first in the part each)."""
    seen: set[str] = set()
    for entry in entries:
        key = entry.id
        if key in seen:
            continue  # the worker noted it: the part's earlier entry is the later one
        seen.add(key)
        earlier = by_id.get(key)
        if earlier is not None:
            yield Diagnostic(entry.line, "duplicate-id", duplicate_note(key, earlier.line), key)


def _merge_state(reader: EntryIndexer, part: PartIndex, entries: list[Entry], base: int) -> None:
    """What the index keeps besides its entries, as one process would have it after the part."""
    labels = reader._labels
    for target, value in part.labels:
        if value is None:
            labels.pop(target, None)
        else:
            labels[target] = value  # an existing target keeps its place, as in one process
    seen, name = part.name
    if seen:
        reader._name = name
        reader.name_seen = True
    reader._usage_overrides.update(part.usage_overrides)
    for target, lines in part.context_edits.items():
        edits = [entries[bisect_left(part.lines, line)] for line in lines]  # one entry a line, in order
        reader._context_edits.setdefault(target, []).extend(edits)
    reader.message_count += part.message_count
    if not reader.first_message:
        reader.first_message = part.first_message
    last = part.last_activity_ms
    if last is not None and (reader.last_activity_ms is None or last > reader.last_activity_ms):
        reader.last_activity_ms = last
    reader.models.update(part.models)
    if part.last_model is not None:
        reader._last_model = part.last_model
    prime, pi1 = part.marks
    reader._prime_marked |= prime
    reader._pi1_marked |= pi1
    reader._folded_lines.update(line + base for line in part.folded)
    reader._shallow_lines.update(line + base for line in part.shallow)


# ---------------------------------------------------------------------------- where to cut
def _cuts(fd: int, start: int, size: int, part_bytes: int, first_bytes: int | None = None) -> list[int]:
    """Where the parts start and end: ``start``, then offsets just after newlines.

    The last is just after the file's last newline: what follows it is read by this process, as every
    file's end is. The first part holds about ``first_bytes`` (default ``part_bytes``).
    """
    cuts = [start]
    last = _last_line_end(fd, start, size)
    position = start + (part_bytes if first_bytes is None else first_bytes)
    while position < last:
        cut = _line_end_after(fd, position - 1, last)  # ``position`` itself when a line starts there
        if cut >= last:
            break
        cuts.append(cut)
        position = cut + part_bytes
    if last > cuts[-1]:
        cuts.append(last)
    return cuts


def _line_end_after(fd: int, position: int, limit: int) -> int:
    """Just after the first newline at or after ``position``, or ``limit`` when none comes before it."""
    while position < limit:
        block = os.pread(fd, min(1 << 16, limit - position), position)
        if not block:
            break
        found = block.find(b"\n")
        if found >= 0:
            return position + found + 1
        position += len(block)
    return limit


def _last_line_end(fd: int, start: int, size: int) -> int:
    """Just after the file's last newline (looked for in its last 64 MiB), else ``start``."""
    end = size
    for _ in range(64):
        begin = max(start, end - _TAIL_BYTES)
        if begin >= end:
            break
        found = os.pread(fd, end - begin, begin).rfind(b"\n")
        if found >= 0:
            return begin + found + 1
        end = begin
    return start


def _version_ahead(path: str, fd: int, start: int) -> tuple[int | None, int]:
    """The format version the start of the file gives, and just after the line that settles it.

    That line is the header's, or the first entry's in a file without one; read as the reader will
    read it. The version is None when no line of the first MiB is an object (then the reader decides,
    in one process).
    """
    scratch = DetachedIndexer(path, False)
    head = os.pread(fd, _HEAD_BYTES, start)
    line_no, offset = 0, start
    for raw in head.split(b"\n")[:-1]:  # complete lines only
        scratch._decode_lines([raw], line_no, offset)
        line_no += 1
        offset += len(raw) + 1
        if scratch._header_seen:
            return scratch.version, offset
    return None, offset
