"""What a worker process of :mod:`core.session.parallel` does: index one part of a session file.

A part (lines between two newlines of the file) is indexed by the reader's own indexing stage
(:class:`~core.session.indexing.EntryIndexer`) from a state that has seen the header, and handed back
as a :class:`PartIndex`: columns of plain values, no :class:`~core.session.entry.Entry` and no dict an
entry, which pickle and unpickle fast. What the part alone cannot settle is noted for the merge
(:func:`core.session.parallel.merge_part`): parents not found in the part, ids it repeats, the order of
label changes; an entry without an id stops the part (:class:`ReadItYourself`).
"""

from __future__ import annotations

import os
import pickle
import time
from array import array
from typing import TYPE_CHECKING, NamedTuple

from core.collector import collection_paused
from core.session.entry import Entry, EntryInfo
from core.session.files import open_regular
from core.session.framing import frame_lines
from core.session.indexing import EntryIndexer
from core.session.jsonl import JsonObject

if TYPE_CHECKING:
    from multiprocessing.connection import Connection


class PartIndex(NamedTuple):
    """One part of the file indexed by a worker: columns of plain values, in file order.

    Line numbers (``lines``, the diagnostics', ``folded``, ``shallow``) count from the part's first
    line (1); offsets are the file's.
    """

    line_count: int
    crc: int | None
    ids: list[str]
    parent_ids: list[str | None]
    types: list[str]
    kinds: list[str]
    roles: list[str | None]
    timestamps: list[object]
    infos: list[EntryInfo]
    lines: array[int]
    offsets: array[int]
    lengths: array[int]
    unseen: list[int]  # entries whose parent no earlier entry of the part has
    repeated: int  # entries whose id an earlier entry of the part has
    diagnostics: list[tuple[int, str, str, str | None]]
    duplicate_lines: list[tuple[int, int]]  # (index in diagnostics, the earlier entry's line)
    labels: list[tuple[str, tuple[str, object] | None]]  # in order: set (target, value) or cleared (None)
    name: tuple[bool, str | None]
    usage_overrides: dict[str, JsonObject]
    context_edits: dict[str, list[int]]  # target -> the lines of the edits naming it
    message_count: int
    first_message: str
    last_activity_ms: int | float | None
    models: dict[str, None]
    last_model: tuple[object, object] | None
    marks: tuple[bool, bool]  # Prime Agent's, pi 1.x's
    folded: list[int]
    shallow: list[int]


class ReadItYourself(Exception):
    """In a worker: the part needs what only a reader of everything before it knows."""


class _LabelOps(dict[str, tuple[str, object]]):
    """A worker's labels: what the indexing stage does to them, in order, for the merge to replay."""

    def __init__(self) -> None:
        super().__init__()
        self.ops: list[tuple[str, tuple[str, object] | None]] = []

    def __setitem__(self, target: str, value: tuple[str, object]) -> None:
        self.ops.append((target, value))
        super().__setitem__(target, value)

    def pop(self, target: str, default: object = None) -> object:  # type: ignore[override]
        self.ops.append((target, None))
        return super().pop(target, default)


class DetachedIndexer(EntryIndexer):
    """An indexer that is not a session: a worker's part, or the look at the header before they start."""

    def __init__(self, path: str, fold_all: bool) -> None:
        self.path = path
        self._keep_bodies = False
        self._observer = None
        self._fold_all = fold_all
        self._reset()


class _PartIndexer(DetachedIndexer):
    """In a worker: the indexing stage over one part, from a state that has seen the header."""

    def __init__(self, path: str, version: int, fold_all: bool) -> None:
        super().__init__(path, fold_all)
        self._header_seen = True
        self.version = version
        self._labels = self._ops = _LabelOps()
        self.unseen: list[int] = []
        self.repeated = 0
        self.duplicate_lines: list[tuple[int, int]] = []

    def _unseen_parent(self) -> None:
        self.unseen.append(len(self.entries))  # called before the entry is appended: its index

    def _duplicate_id(self, entry: Entry, earlier: Entry) -> None:
        self.repeated += 1
        self.duplicate_lines.append((len(self._diagnostics), earlier.line))
        self._diag(entry.line, "duplicate-id", "", entry.id)  # the sentence is written at the merge

    def _synthesise(self, line_no: int, legacy: bool) -> str:
        raise ReadItYourself  # the id depends on every id before it, in every part


def index_part(
    path: str, fd: int, start: int, end: int, version: int, fold_all: bool, crc: bool
) -> PartIndex:
    """Index the lines in bytes ``start``-``end`` (each just after a newline) of an open session file.

    Raises:
        ReadItYourself: the part holds an entry without an id, or the file no longer has those lines.
    """
    part = _PartIndexer(path, version, fold_all)
    with collection_paused():
        framed = frame_lines(fd, start, 0, 0 if crc else None, part._decode_lines, part._decode_pieces, end)
    if framed.carry or framed.offset != end:
        raise ReadItYourself  # the file was cut short meanwhile
    entries = part.entries
    return PartIndex(
        framed.line_no,
        framed.crc,
        [entry.id for entry in entries],
        [entry.parent_id for entry in entries],  # pickled with the ids: a parent's is the same string
        [entry.type for entry in entries],
        [entry.kind for entry in entries],
        [entry.role for entry in entries],
        [entry.timestamp for entry in entries],
        [entry.info for entry in entries],
        array("q", [entry.line for entry in entries]),
        array("q", [entry.offset for entry in entries]),
        array("q", [entry.length for entry in entries]),
        part.unseen,
        part.repeated,
        [(note.line, note.kind, note.message, note.entry_id) for note in part._diagnostics],
        part.duplicate_lines,
        part._ops.ops,
        (part.name_seen, part._name),
        part._usage_overrides,
        # the edits by their lines (one entry a line), found again among the merged entries
        {target: [edit.line for edit in edits] for target, edits in part._context_edits.items()},
        part.message_count,
        part.first_message,
        part.last_activity_ms,
        part.models,
        part._last_model,
        (part._prime_marked, part._pi1_marked),
        sorted(part._folded_lines),
        sorted(part._shallow_lines),
    )


def serve_parts(
    path: str,
    identity: tuple[int, int],
    tasks: list[tuple[int, int, int]],
    settings: tuple[int, bool, bool],
    sender: Connection,
) -> None:
    """A worker process: index each part of ``tasks`` (number, start, end) and send it to the parent.

    Each part goes as one message, ``(number, processor seconds so far, PartIndex or None)``; None
    (the parent reads the part itself) for a part it cannot index, and for every part when the file
    at ``path`` is no longer the one the parent opened. A thread sends, so the next part is indexed
    while the parent is not reading yet.
    """
    import queue
    import threading

    outbox: queue.SimpleQueue[bytes | None] = queue.SimpleQueue()

    def send() -> None:
        while (message := outbox.get()) is not None:
            sender.send_bytes(message)

    thread = threading.Thread(target=send, name="send parts")
    thread.start()
    try:
        fd, st = open_regular(path, "does not exist")
    except Exception:
        fd = -1
    try:
        if fd >= 0 and (st.st_dev, st.st_ino) != identity:
            os.close(fd)
            fd = -1
        for number, start, end in tasks:
            part = None
            if fd >= 0:
                try:
                    part = index_part(path, fd, start, end, *settings)
                except Exception:  # ReadItYourself, MemoryError, OSError: the parent reads it
                    part = None
            message = (number, time.process_time(), part)
            outbox.put(pickle.dumps(message, protocol=pickle.HIGHEST_PROTOCOL))
    finally:
        outbox.put(None)
        thread.join()
        sender.close()
        if fd >= 0:
            os.close(fd)
