r"""Reading session file lines into the index, in three stages, and the in-memory migration.

1. framing (:mod:`core.session.framing`): the file's bytes -> complete lines, numbered, with offsets,
   a chunk's lines at a time; the unfinished last line carried; the crc32 of what was framed.
2. decoding (:mod:`core.session.decoding`): a line -> a JSON object (orjson, or leniently) or a
   diagnostic; the header found, the format version read.
3. indexing (:mod:`core.session.indexing`): an entry object -> an :class:`Entry` with its id and
   parent, and what its kind adds to the index (a table, type -> function).

Every line is parsed once, to validate it and pick out the few fields the index needs; the parsed
object is then dropped, so memory stays proportional to the number of entries, not to the file size.
Decoding is the loop over a chunk's lines and calls indexing once per entry, so the split costs no
call per line (this is the hot path of every file read).

Migration from version 1 and 2 happens in memory exactly as the reference does it (ids and parent
ids for v1 chains, ``firstKeptEntryIndex`` -> ``firstKeptEntryId``, ``hookMessage`` -> ``custom``,
variant type spellings; :mod:`core.session.migration` applies it to each body read), with one
deliberate difference: synthesised ids are derived from the session id and the line number, so the
same file gives the same ids on every load (the reference draws random ones). While reading, the
index also notes what tells which agent wrote the file (:mod:`core.session.flavour`) and which
``context_edit`` entries name which target.

:class:`SessionReader` holds the index and runs the stages over a file (the stages' state is layered:
:class:`~core.session.decoding.LineDecoder`, then :class:`~core.session.indexing.EntryIndexer`, then
the file bookkeeping here); :class:`core.session.session.Session` builds the public object on it
(lookups, bodies, refresh).
"""

from __future__ import annotations

import os
import zlib
from typing import TYPE_CHECKING

from core.collector import collection_paused
from core.errors import SessionReadError
from core.session.entry import Entry
from core.session.files import open_regular
from core.session.flavour import Flavour, flavour_of
from core.session.framing import Framed, frame_lines
from core.session.indexing import EntryIndexer
from core.session.jsonl import JsonObject
from core.session.migration import migrate_body, resolve_overrides
from core.session.tree import SessionTree

if TYPE_CHECKING:
    from core.session.parallel import SplitRead

GUARD = 4096  # bytes remembered at the head and before the read end, to notice replaced files


class SessionReader(EntryIndexer):
    """A session file's index and the reading that fills it; :class:`core.session.Session` builds on it.

    Attributes:
        path: the file path (absolute).
        header: the header object (a copy of the first line), or None when the file has none.
        version: the format version on disk (1 when the header has none).
        entries: every entry in file order, duplicates included.
        by_id: entry id -> entry; for duplicate ids the later entry wins, as in the reference.
    """

    # Set by the constructors (Session.__init__, Session.resume) before _reset(), as are path,
    # _keep_bodies and _observer (core.session.indexing).
    _checksum_enabled: bool
    _processes: int | None  # worker processes for a big read (None: as its size says; 0: none)
    split: SplitRead | None = None
    """How the last read that used worker processes shared the file (None: it was read here alone)."""

    # ------------------------------------------------------------------ state
    def _reset(self) -> None:
        super()._reset()  # the decoding and indexing stages' state
        self._resolved_overrides: dict[str, JsonObject] | None = None  # by our entry id, made when asked
        # file bookkeeping for incremental reads and for the append-only writer
        self._identity: tuple[int, int] | None = None
        self._read_end = 0  # bytes consumed: always just after a newline, or EOF for a final line
        self._crc: int | None = 0 if self._checksum_enabled else None  # crc32 of [0, _read_end)
        self._head = b""
        self._tail = b""
        self._line_no = 0  # lines consumed so far
        self._unterminated = False  # the consumed part ends with a complete entry but no newline
        self._tree: SessionTree | None = None

    @property
    def flavour(self) -> Flavour:
        """Which agent's rules read this file (see :mod:`core.session.flavour`); may change as it grows."""
        return flavour_of(self.path, self._prime_marked, self._pi1_marked)

    # ------------------------------------------------------------------ reading
    def _load(self) -> None:
        fd, st = open_regular(self.path, "does not exist")
        try:
            self._identity = (st.st_dev, st.st_ino)
            self._read_from(fd, 0)
        except OSError as err:
            raise SessionReadError(f"Cannot read {self.path}: {err.strerror or err}.") from err
        finally:
            os.close(fd)

    def _read_from(self, fd: int, start: int) -> list[Entry]:
        """Index complete lines from ``start`` to EOF; hold back a final line that is not complete."""
        first_new, known = len(self.entries), len(self.by_id)
        with collection_paused():
            framed = self._read_split(fd, start) if self._processes != 0 else None
            if framed is None:
                framed = frame_lines(
                    fd, start, self._line_no, self._crc, self._decode_lines, self._decode_pieces
                )
        carry, line_no, offset, crc = framed
        self._tail_diagnostic = None
        self._tail_may_be_object = False
        self._unterminated = False
        if carry and not carry.isspace() and self._decode_last_line(carry, line_no, offset):
            # A complete entry whose newline is missing (a hand edit, or a lost write), now indexed;
            # the writer puts a newline before anything it appends.
            line_no += 1
            if crc is not None:
                crc = zlib.crc32(carry, crc)
            offset += len(carry)
            self._unterminated = True
        self._line_no = line_no
        self._read_end = offset
        self._crc = crc
        self._remember_guards(fd)
        tree = self._tree  # taken on when it can (a live session grows a line at a time), else built again
        if tree is not None and not tree.grew(self.entries[first_new:], self.by_id, known):
            self._tree = None
        self._resolved_overrides = None
        return self.entries[first_new:]

    def _read_split(self, fd: int, start: int) -> Framed | None:
        """Read from ``start`` with worker processes when the file is big enough.

        None when it was not read so (then nothing was); see :mod:`core.session.parallel`.
        """
        if self._observer is not None or self._keep_bodies:
            return None  # every line's whole object is wanted here
        from core.session import parallel

        workers = self._processes
        if workers is None:
            workers = parallel.worker_count(os.fstat(fd).st_size - start)
        done = parallel.read_split(self, fd, start, self._line_no, self._crc, workers) if workers else None
        if done is None:
            return None
        framed, self.split = done
        return framed

    def _remember_guards(self, fd: int) -> None:
        self._head = os.pread(fd, min(GUARD, self._read_end), 0)
        self._tail = self._tail_guard(fd)

    def _tail_guard(self, fd: int) -> bytes:
        start = max(0, self._read_end - GUARD)
        return os.pread(fd, self._read_end - start, start)

    # ------------------------------------------------------------------ migration
    def _migrate_body(self, entry: Entry, obj: JsonObject) -> JsonObject:
        return migrate_body(entry, obj, self.version, self._by_ordinal, self.resolved_overrides())

    def resolved_overrides(self) -> dict[str, JsonObject]:
        """``child_usage_attributed`` results by our entry id (see :func:`resolve_overrides`)."""
        resolved = self._resolved_overrides
        if resolved is None:
            resolved = resolve_overrides(self.version, self._usage_overrides, self._written_ids)
            self._resolved_overrides = resolved
        return resolved
