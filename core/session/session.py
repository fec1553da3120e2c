r"""The :class:`Session` object: one session file indexed, its lookups and bodies, kept current as it grows.

Reading never writes. :mod:`core.session.reader` fills the index line by line (and migrates legacy
versions in memory); this module adds what callers use: the header fields, labels and the name, parent
paths, full entries read back on demand by byte offset (:meth:`Session.body`), and :meth:`Session.refresh`,
which reads what was appended or reloads a file that was replaced.
"""

from __future__ import annotations

import os
import threading
import zlib
from collections.abc import Callable, Iterable, Iterator
from typing import TYPE_CHECKING, TypeVar

from core.errors import SessionReadError
from core.session.diagnostics import Diagnostic
from core.session.entry import Entry
from core.session.files import READ_FLAGS, open_regular
from core.session.framing import CHUNK
from core.session.heads import PREVIEW_BYTES, head_object
from core.session.indexing import Observer
from core.session.jsonl import JsonObject, decode_line
from core.session.reader import SessionReader
from core.session.tree import SessionTree
from core.session.usage import usage_totals
from core.timefmt import js_date_ms

if TYPE_CHECKING:
    from core.session.subagents import ChildSession

# core.diff and core.export import the usage helpers from here, where they were first defined.
__all__ = ["RefreshResult", "Session", "load_session", "usage_totals"]

_FULL_CHECK = 8 << 20  # refresh re-checksums everything read when it is this small (a few ms at most)


class RefreshResult:
    """What :meth:`Session.refresh` found.

    Attributes:
        appended: entries read from bytes appended since the last read, in file order.
        reloaded: True when the file was replaced, truncated or rewritten and was read again whole.
        reason: why it was reloaded (or must be), as a sentence; None when it was not.
        replaced: True when the file must be read again whole and was not (``refresh(reload=False)``):
            the index is still that of the file as it was.
    """

    __slots__ = ("appended", "reason", "reloaded", "replaced")

    def __init__(
        self,
        appended: list[Entry] | None = None,
        reloaded: bool = False,
        reason: str | None = None,
        replaced: bool = False,
    ) -> None:
        self.appended = appended if appended is not None else []
        self.reloaded = reloaded
        self.reason = reason
        self.replaced = replaced

    def __repr__(self) -> str:
        state = f"{self.reloaded=}, {self.replaced=}, {self.reason=}"
        return f"RefreshResult({len(self.appended)} appended, {state})"

    @property
    def changed(self) -> bool:
        """True when anything new is visible (appended entries or a reload; not a reload still to come)."""
        return self.reloaded or bool(self.appended)


def load_session(
    path: str | os.PathLike[str],
    *,
    checksum: bool = True,
    keep_bodies: bool = False,
    fold_all: bool = False,
    processes: int | None = None,
) -> Session:
    """Open and index a session file. Raises :class:`SessionReadError` when it cannot be read at all.

    ``checksum=False`` opens it read-only: slightly faster, but the writer will refuse to append.
    ``keep_bodies=True`` keeps every parsed line for one :meth:`Session.bodies` pass (see there).
    ``fold_all=True`` looks for values nested too deep in every line as it is read, each such line noted
    in :attr:`Session.diagnostics` (``check`` does; otherwise a value is folded where it is used).
    ``processes``: worker processes that share the parse of a big file (:mod:`core.session.parallel`);
    None lets the file's size decide, 0 reads it in this process alone. The result is the same.
    """
    return Session(path, checksum=checksum, keep_bodies=keep_bodies, fold_all=fold_all, processes=processes)


_T = TypeVar("_T")


class Session(SessionReader):
    """One session file, indexed.

    Attributes:
        path: the file path as given (absolute).
        header: the header object (a copy of the first line), or None when the file has none.
        version: the format version on disk (1 when the header has none).
        entries: every entry in file order, duplicates included.
        by_id: entry id -> entry; for duplicate ids the later entry wins, as in the reference.
    """

    def __init__(
        self,
        path: str | os.PathLike[str],
        *,
        checksum: bool = True,
        observer: Observer | None = None,
        keep_bodies: bool = False,
        fold_all: bool = False,
        processes: int | None = None,
    ) -> None:
        self.path = os.path.abspath(os.fspath(path))
        self._processes = processes
        # Every line's values folded to core.session.jsonl.MAX_DEPTH as it is read, with a diagnostic
        # each: about 0.7 ms a MB (two byte counts), so only where every diagnostic is wanted (check).
        self._fold_all = fold_all
        # Normally a body is read again from disk when asked for, so memory stays near the size of
        # the index. An export reads every body once right after loading: keeping the parsed lines
        # spares parsing the file twice (about 0.2 s of a 20,000-message export, +31 MB).
        self._keep_bodies = keep_bodies
        # The checksum of everything read lets the writer prove that no byte it saw has changed. A
        # read-only user (the CLI's check, tree, context) can skip it: about 15 ms per 36 MB.
        self._checksum_enabled = checksum
        # Called with every new entry and its parsed object, so a catalogue can take the text it
        # indexes from the one parse (parsing twice would double the cost of indexing).
        self._observer = observer
        # The child (subagent) sessions this session started, by the entry that launched them: the
        # files are other sessions, so whoever lists them says (:func:`core.session.subagents.launches`).
        self.child_sessions: dict[str, tuple[ChildSession, ...]] = {}
        self._reset()
        self._load()

    @classmethod
    def resume(
        cls,
        path: str | os.PathLike[str],
        header: JsonObject,
        start: int,
        line_no: int,
        observer: Observer | None = None,
        previous_id: str | None = None,
    ) -> Session:
        """Index only what follows byte ``start`` (just after line ``line_no``) of a v2/v3 file.

        The result holds the new entries and summary counts for that part alone; the catalogue uses
        it to index what was appended since its last pass. Entries before ``start`` are unknown, so
        tree checks on this object are meaningless; ``previous_id`` names the last entry before
        ``start``, so an appended entry without an id is chained to it as a whole read would. Opened
        read-only.
        """
        self = cls.__new__(cls)
        self.path = os.path.abspath(os.fspath(path))
        self._checksum_enabled = False
        self._processes = 0
        self._observer = observer
        self._keep_bodies = False
        self._fold_all = False
        self._reset()
        self._take_header(dict(header), 1)
        self._line_no = line_no
        self._chain_start = previous_id
        fd, st = open_regular(self.path, "does not exist")
        try:
            self._identity = (st.st_dev, st.st_ino)
            self._read_end = start
            self._read_from(fd, start)
        except OSError as err:
            raise SessionReadError(f"Cannot read {self.path}: {err.strerror or err}.") from err
        finally:
            os.close(fd)
        return self

    # ------------------------------------------------------------------ public properties
    @property
    def cwd(self) -> str:
        """The project folder from the header (``workingDir`` in the variant spelling), or ``""``."""
        header = self.header or {}
        value = header.get("cwd", header.get("workingDir"))
        return value if isinstance(value, str) else ""

    @property
    def parent_session(self) -> str | None:
        """The header's ``parentSession`` path (v1 ``branchedFrom`` is ignored, as the reference does)."""
        value = (self.header or {}).get("parentSession")
        return value if isinstance(value, str) else None

    @property
    def created_ms(self) -> int | float | None:
        """The header timestamp in ms, None when missing or invalid."""
        return js_date_ms((self.header or {}).get("timestamp"))

    @property
    def leaf_id(self) -> str | None:
        """The current leaf: the last entry in file order (the reference does not persist a leaf)."""
        return self.entries[-1].id if self.entries else None

    @property
    def leaf(self) -> Entry | None:
        """The entry the leaf id names."""
        leaf_id = self.leaf_id
        return self.by_id.get(leaf_id) if leaf_id is not None else None

    @property
    def name(self) -> str | None:
        """The session name: the latest ``session_info`` in file order, trimmed; blank clears it.

        A file without ``session_info`` entries that oh-my-pi wrote is named by its title (its title
        slot's, else its header's ``title``), as oh-my-pi lists it.
        """
        if self.name_seen:
            return self._name
        for holder in (self.title_slot, self.header):
            title = holder.get("title") if holder is not None else None
            if isinstance(title, str) and title.strip():
                return " ".join(title.split())
        return self._name

    @property
    def labels(self) -> dict[str, str]:
        """Resolved labels ``{entry id: label}``: the latest label entry per target in file order."""
        return {target: label for target, (label, _ts) in self._labels.items()}

    def label_for(self, entry_id: str) -> str | None:
        """The label of one entry, or None."""
        found = self._labels.get(entry_id)
        return found[0] if found else None

    def label_timestamp(self, entry_id: str) -> object:
        """The timestamp of the label entry that set the current label of ``entry_id``, or None."""
        found = self._labels.get(entry_id)
        return found[1] if found else None

    def derived(
        self, make: Callable[[Session], _T], grow: Callable[[_T, Session, list[Entry]], _T] | None = None
    ) -> _T:
        """What ``make`` works out from the whole session, made on first use and again once it changed.

        Values that several readers of one session need (what other entries say about each entry, for
        one) are kept here, on the session they describe, rather than in a module-wide cache. A reload
        replaces :attr:`entries`, which makes ``make`` run again; an append grows it, which makes
        ``make`` run again too unless ``grow`` is given: then ``grow(value, session, appended)`` brings
        the value kept up to date from the appended entries alone (a live session grows by a few entries
        at a time, and a pass over every entry of a 1 GB session takes tens of milliseconds).

        Args:
            make: a function of the session; it is also the key its value is kept under.
            grow: the value, the session and the entries appended since it was made -> the value now.
        """
        # A worker (find, an export) and the GUI thread may ask at once: grow changes the value kept, so
        # one at a time (setdefault is atomic: both get the same lock).
        lock: threading.RLock = self.__dict__.setdefault("_derived_lock", threading.RLock())
        with lock:
            entries = self.entries
            memo: dict[object, tuple[list[Entry], int, object]] = self.__dict__.setdefault("_derived", {})
            found = memo.get(make)
            if found is not None and found[0] is entries:
                kept: _T = found[2]  # type: ignore[assignment]  # stored by this very make
                if found[1] == len(entries):
                    return kept
                if grow is not None and found[1] < len(entries):
                    value = grow(kept, self, entries[found[1] :])
                    memo[make] = (entries, len(entries), value)
                    return value
            value = make(self)
            memo[make] = (entries, len(entries), value)
            return value

    def set_child_sessions(self, found: dict[str, tuple[ChildSession, ...]]) -> list[str]:
        """Give the session the child sessions it started (a list found more); returns the entries changed.

        What is derived from the whole session (the cards' notes) is made again on next use.
        """
        old = self.child_sessions
        changed = [eid for eid in set(old) | set(found) if old.get(eid) != found.get(eid)]
        self.child_sessions = found
        if changed:
            self.__dict__.pop("_derived", None)
        return sorted(changed)

    @property
    def usage_overrides(self) -> dict[str, JsonObject]:
        """``child_usage_attributed`` results: assistant entry id -> the aggregate usage applied to it.

        Applied as Prime Agent does on load, whatever the header's version: in file order (the last
        wins), by the target ids as written (in a version 1 file, mapped to the ids given to them).
        """
        return dict(self.resolved_overrides())

    def context_edits_for(self, entry_id: str) -> list[Entry]:
        """The pi 1.x ``context_edit`` entries that name ``entry_id`` as their target, in file order.

        Whether one of them applies depends on the leaf (only an edit on the path to it counts, the
        latest there, and none from before the newest compaction's kept range): ask
        :func:`core.session.context.iter_context_items` for that. Each edit's ``info`` is a
        :class:`core.session.entry.ContextEditInfo` (``drops``: the target leaves the context).
        """
        return list(self._context_edits.get(entry_id, ()))

    @property
    def tree(self) -> SessionTree:
        """The entry tree (built on first use, rebuilt after a refresh that changed anything)."""
        if self._tree is None:
            self._tree = SessionTree(self.entries, self.by_id)
        return self._tree

    @property
    def not_a_session(self) -> bool:
        """True when the file is not a session file at all: it holds text, but no line is a JSON object.

        A binary file, or a text file of something else. Then :attr:`diagnostics` is one
        ``not-a-session`` diagnostic (its message names the file: "<name> is not a session file: no line
        is a JSON object."), not one per line, and the CLI's ``show`` and ``tree`` refuse the file. An
        empty or blank file is not flagged (an agent may just have created it), nor one whose only
        complete lines are bad while its last, unfinished line starts like an object (an agent may be
        writing the header now). It can turn False when the file grows.
        """
        if self._header_seen or self._tail_may_be_object:
            return False
        # Every non-blank line that is not an object left an invalid-json or not-an-object diagnostic.
        return bool(self._diagnostics) or self._tail_diagnostic is not None

    @property
    def diagnostics(self) -> list[Diagnostic]:
        """Everything wrong with the file: reading problems, then tree problems, by line."""
        if self.not_a_session:
            name = os.path.basename(self.path)
            message = f"{name} is not a session file: no line is a JSON object."
            return [Diagnostic(0, "not-a-session", message)]
        found = list(self._diagnostics)
        if not self._header_seen:
            # Nothing parsed as a header or an entry: an empty file, blank lines, or only bad lines.
            # (A file whose first parsed line is an entry is reported at that line instead.)
            what = "is empty" if self._line_no == 0 and self._tail_diagnostic is None else "has no entries"
            found.append(Diagnostic(0, "missing-header", f"The file {what}; it has no session header."))
        if self._tail_diagnostic is not None:
            found.append(self._tail_diagnostic)
        if self._links_suspect or self._tree is not None:
            # When every parent appeared before its child and no id repeats, there can be no orphan,
            # self-parent or loop, so the tree need not be built just to find none.
            found.extend(self.tree.diagnostics)
        found.sort(key=lambda d: d.line)
        return found

    @property
    def line_count(self) -> int:
        """Lines read and indexed so far (a held-back partial line not included)."""
        return self._line_no

    @property
    def size(self) -> int:
        """Bytes of the file that have been read and indexed."""
        return self._read_end

    def get(self, entry_id: str | None) -> Entry | None:
        """The entry with this id (the later one for duplicate ids), or None."""
        return self.by_id.get(entry_id) if entry_id is not None else None

    def path_to(self, entry_id: str | None) -> list[Entry]:
        """The entries from the root down to ``entry_id`` (empty for an unknown id). Never loops."""
        entry = self.get(entry_id)
        if entry is None:
            return []
        by_id = self.by_id
        if not self._links_suspect:
            # Every parent appeared before its child and no id repeats: parent links cannot loop and
            # every named parent exists, so follow them without building the tree.
            path = [entry]
            while entry.parent_id is not None:
                entry = by_id[entry.parent_id]
                path.append(entry)
            path.reverse()
            return path
        roots = self.tree.root_ids
        path = [entry]
        seen = {entry.id}
        while entry.id not in roots:
            parent = self.by_id.get(entry.parent_id) if entry.parent_id is not None else None
            if parent is None or parent.id in seen:
                break
            seen.add(parent.id)
            path.append(parent)
            entry = parent
        path.reverse()
        return path

    # ------------------------------------------------------------------ bodies
    def body(self, entry: Entry | str, *, fold: bool = True) -> JsonObject:
        """The full entry object, after in-memory migration, read from disk by offset.

        What nests deeper than :data:`core.session.jsonl.MAX_DEPTH` is folded; ``fold=False`` keeps it
        (for a writer copying the entry, which encodes without recursion).
        """
        return next(self.bodies([entry], fold=fold))

    def bodies(self, entries: Iterable[Entry | str], *, fold: bool = True) -> Iterator[JsonObject]:
        """Full entry objects for several entries, in the order given, with one open file.

        A session loaded with ``keep_bodies`` hands over the object parsed while loading, once; a
        later request for the same entry reads it from disk again. ``fold``: see :meth:`body`.
        """
        items = [self.by_id[e] if isinstance(e, str) else e for e in entries]
        kept = self._kept if fold else None
        fd = -1
        try:
            for entry in items:
                obj = kept.pop(entry.line, None) if kept else None
                if obj is not None:
                    yield self._migrate_body(entry, obj)
                    continue
                # Not kept (a huge line indexed from its skeleton, or asked for again): from disk.
                if fd < 0:
                    try:
                        fd = os.open(self.path, READ_FLAGS)
                    except OSError as err:
                        raise SessionReadError(f"Cannot read {self.path}: {err.strerror or err}.") from err
                raw = os.pread(fd, entry.length, entry.offset)
                value, _note = decode_line(raw, fold=fold and entry.line not in self._shallow_lines)
                del raw
                if not isinstance(value, dict):
                    # The file changed underneath since it was indexed; say so rather than guess.
                    raise SessionReadError(
                        f"{self.path} changed since it was read (line {entry.line} moved); reload it."
                    )
                yield self._migrate_body(entry, value)
        finally:
            if fd >= 0:
                os.close(fd)

    def preview_bodies(self, entries: Iterable[Entry]) -> Iterator[JsonObject]:
        """Bodies enough for one-line previews, in the order given, with one open file.

        As :meth:`bodies`, except that a line longer than :data:`core.session.heads.PREVIEW_BYTES` gives
        only what its first that many bytes hold (:func:`core.session.heads.head_object`), so a huge line
        costs about that, never its size.
        """
        try:
            fd = os.open(self.path, READ_FLAGS)
        except OSError as err:
            raise SessionReadError(f"Cannot read {self.path}: {err.strerror or err}.") from err
        try:
            for entry in entries:
                if entry.length > PREVIEW_BYTES:
                    head = head_object(os.pread(fd, PREVIEW_BYTES, entry.offset))
                    yield self._migrate_body(entry, head if head is not None else {})
                    continue
                value, _note = decode_line(os.pread(fd, entry.length, entry.offset))
                if not isinstance(value, dict):
                    raise SessionReadError(
                        f"{self.path} changed since it was read (line {entry.line} moved); reload it."
                    )
                yield self._migrate_body(entry, value)
        finally:
            os.close(fd)

    def raw_lines(self, entries: Iterable[Entry]) -> Iterator[bytes]:
        """The entries' bytes exactly as on disk (without the newline or a trailing CR), one open file."""
        with open(self.path, "rb") as handle:
            for entry in entries:
                handle.seek(entry.offset)
                yield handle.read(entry.length).rstrip(b"\r")

    # ------------------------------------------------------------------ incremental reading
    def refresh(self, *, checksum: bool = True, reload: bool = True) -> RefreshResult:
        """Read what was appended since the last read, or reload when the file was replaced.

        A partial last line is held back until its newline arrives. A file that shrank, was replaced
        (different inode), or whose bytes already read changed (the first and last 4 KiB are always
        compared; everything when at most 8 MiB has been read, unless ``checksum`` is False: for a
        caller that has just compared everything itself, such as the writer waiting under its lock) is
        read again whole; with ``reload`` False it is not, and the result says so (``replaced``): the
        window reads it again in a worker, as a new session, rather than on its own thread.

        Raises:
            SessionReadError: the file was deleted, is no longer a regular file, or cannot be read;
                when it cannot even be opened, the index is left as it was.
        """
        fd, st = open_regular(self.path, "was deleted or moved")
        try:
            reason = self._replaced_reason(fd, st, full=None if checksum else False)
            if reason is None and self._unterminated and st.st_size > self._read_end:
                if os.pread(fd, 1, self._read_end) != b"\n":
                    reason = "Bytes were added to its unterminated last line."
            if reason is not None and not reload:
                return RefreshResult(reason=reason, replaced=True)
            if reason is not None:
                self._reset()
                self._identity = (st.st_dev, st.st_ino)
                self._read_from(fd, 0)
                return RefreshResult(list(self.entries), True, reason)
            if st.st_size == self._read_end:
                # Nothing beyond what was read: a partial last line seen before was cut away since.
                self._tail_diagnostic = None
                return RefreshResult()
            start = self._read_end
            if self._unterminated:
                # The missing newline arrived: skip it, it belongs to the line already indexed.
                if self._crc is not None:
                    self._crc = zlib.crc32(b"\n", self._crc)
                self._read_end = start = start + 1
            return RefreshResult(self._read_from(fd, start))
        except OSError as err:
            raise SessionReadError(f"Cannot read {self.path}: {err.strerror or err}.") from err
        finally:
            os.close(fd)

    def _replaced_reason(self, fd: int, st: os.stat_result, full: bool | None = None) -> str | None:
        """Why the bytes read so far are no longer what is on disk, or None when they still are.

        The inode, the size and the first and last 4 KiB read are always compared. The checksum of
        everything read is compared too when ``full`` is True, or when it is None and the part read is
        small enough (:data:`_FULL_CHECK`) for that to be cheap, so an edit in the middle is noticed as
        well; never when ``full`` is False.
        """
        if self._identity != (st.st_dev, st.st_ino):
            return "The file was replaced."
        if st.st_size < self._read_end:
            return "The file was truncated."
        if os.pread(fd, len(self._head), 0) != self._head:
            return "The beginning of the file changed."
        if self._tail_guard(fd) != self._tail:
            return "Lines already read were changed."
        cheap = full if full is not None else self._read_end <= _FULL_CHECK
        if self._crc is not None and cheap and self._checksum(fd) != self._crc:
            return "Lines already read were changed."
        return None

    def _checksum(self, fd: int) -> int | None:
        """crc32 of the bytes ``[0, read end)`` as they are on disk now; None when fewer are there."""
        crc = 0
        position = 0
        while position < self._read_end:
            chunk = os.pread(fd, min(CHUNK, self._read_end - position), position)
            if not chunk:
                return None
            crc = zlib.crc32(chunk, crc)
            position += len(chunk)
        return crc

    @property
    def can_verify(self) -> bool:
        """True when the session keeps the checksum the writer needs (it was not opened read-only)."""
        return self._crc is not None

    def unchanged_on_disk(self) -> bool:
        """True when the bytes indexed so far are still exactly on disk (a full re-read and checksum)."""
        try:
            fd = os.open(self.path, READ_FLAGS)
        except OSError:
            return False
        try:
            return self._replaced_reason(fd, os.fstat(fd), full=True) is None
        except OSError:
            return False
        finally:
            os.close(fd)

    @property
    def ends_with_newline(self) -> bool:
        """False when the indexed part ends with an entry whose newline is missing."""
        return not self._unterminated
