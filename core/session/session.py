r"""Loading a session file into a light index, and keeping it current as the file grows.

Reading never writes. The file is read in chunks and split on ``\n`` only (U+2028 and friends are
legal inside entries, so ``str.splitlines`` must never be used). Every line is parsed once with
orjson to validate it and pick out the few fields the index needs; the parsed object is then
dropped, so memory stays proportional to the number of entries, not to the file size. Full entries
are read back on demand by byte offset (:meth:`Session.body`).

Migration from version 1 and 2 happens in memory exactly as the reference does it (ids and parent
ids for v1 chains, ``firstKeptEntryIndex`` -> ``firstKeptEntryId``, ``hookMessage`` -> ``custom``),
with one deliberate difference: synthesised ids are derived from the session id and the line number,
so the same file gives the same ids on every load (the reference draws random ones).
"""

from __future__ import annotations

import os
import stat
import zlib
from collections.abc import Callable, Iterable, Iterator

import orjson

from core.body import message_text
from core.errors import SessionReadError
from core.session.diagnostics import Diagnostic
from core.session.entry import (
    KNOWN_TYPES,
    TYPE_ALIASES,
    AssistantInfo,
    CompactionInfo,
    Entry,
    LabelInfo,
    js_truthy,
)
from core.session.jsonl import decode_line
from core.session.tree import SessionTree
from core.timefmt import is_valid_timestamp, js_date_ms

_loads = orjson.loads
_JSONDecodeError = orjson.JSONDecodeError
CURRENT_VERSION = 3
_CHUNK = 4 << 20  # 4 MiB: large enough that per-chunk overhead vanishes, small enough for memory
_GUARD = 4096  # bytes remembered at the head and before the read end, to notice replaced files
_FULL_CHECK = 8 << 20  # refresh re-checksums everything read when it is this small (a few ms at most)
_HEADER_TYPES = ("session", "header")  # "header" is a variant spelling (second format document)


class RefreshResult:
    """What :meth:`Session.refresh` found.

    Attributes:
        appended: entries read from bytes appended since the last read, in file order.
        reloaded: True when the file was replaced, truncated or rewritten and was read again whole.
        reason: why it was reloaded, as a sentence; None when it was not.
    """

    __slots__ = ("appended", "reason", "reloaded")

    def __init__(
        self, appended: list[Entry] | None = None, reloaded: bool = False, reason: str | None = None
    ) -> None:
        self.appended = appended if appended is not None else []
        self.reloaded = reloaded
        self.reason = reason

    def __repr__(self) -> str:
        return f"RefreshResult({len(self.appended)} appended, {self.reloaded=}, {self.reason=})"

    @property
    def changed(self) -> bool:
        """True when anything new is visible (appended entries or a reload)."""
        return self.reloaded or bool(self.appended)


def load_session(
    path: str | os.PathLike[str], *, checksum: bool = True, keep_bodies: bool = False
) -> Session:
    """Open and index a session file. Raises :class:`SessionReadError` when it cannot be read at all.

    ``checksum=False`` opens it read-only: slightly faster, but the writer will refuse to append.
    ``keep_bodies=True`` keeps every parsed line for one :meth:`Session.bodies` pass (see there).
    """
    return Session(path, checksum=checksum, keep_bodies=keep_bodies)


class Session:
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
        observer: Callable[[Entry, dict], None] | None = None,
        keep_bodies: bool = False,
    ) -> None:
        self.path = os.path.abspath(os.fspath(path))
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
        self._reset()
        self._load()

    @classmethod
    def resume(
        cls,
        path: str | os.PathLike[str],
        header: dict,
        start: int,
        line_no: int,
        observer: Callable[[Entry, dict], None] | None = None,
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
        self._observer = observer
        self._keep_bodies = False
        self._reset()
        self._take_header(dict(header), 1)
        self._line_no = line_no
        self._chain_start = previous_id
        fd, st = _open_regular(self.path, "does not exist")
        try:
            self._identity = (st.st_dev, st.st_ino)
            self._read_end = start
            self._read_from(fd, start)
        except OSError as err:
            raise SessionReadError(f"Cannot read {self.path}: {err.strerror or err}.") from err
        finally:
            os.close(fd)
        return self

    # ------------------------------------------------------------------ state
    def _reset(self) -> None:
        self._kept: dict[int, dict] | None = {} if self._keep_bodies else None  # line -> parsed object
        self.header: dict | None = None
        self.header_line = 0
        self.version = CURRENT_VERSION
        self.entries: list[Entry] = []
        self.by_id: dict[str, Entry] = {}
        self._diagnostics: list[Diagnostic] = []
        self._tail_diagnostic: Diagnostic | None = None
        self._header_seen = False
        # Parsed JSON values in file order, header = 0: what a v1 firstKeptEntryIndex counts. Filled
        # for v1 files only (the header resets it to [None]).
        self._by_ordinal: list[Entry | None] = []
        self._labels: dict[str, tuple[str, object]] = {}  # target -> (label, label entry timestamp)
        self._name: str | None = None
        self.name_seen = False  # a session_info entry was read (it may have cleared the name)
        self._chain_start: str | None = None  # what an id-less first entry hangs off (Session.resume)
        self._usage_overrides: dict[str, dict] = {}  # child_usage_attributed: target -> aggregateUsage
        # summary accumulators (the reference's session-list fields, over the whole file)
        self.message_count = 0
        self.first_message = ""
        self.last_activity_ms: int | float | None = None
        self.models: dict[str, None] = {}  # "provider/model" in order of first use
        # file bookkeeping for incremental reads and for the append-only writer
        self._identity: tuple[int, int] | None = None
        self._read_end = 0  # bytes consumed: always just after a newline, or EOF for a final line
        self._crc: int | None = 0 if self._checksum_enabled else None  # crc32 of [0, _read_end)
        self._links_suspect = False  # a parent named before it appears, or a repeated id
        self._last_model: tuple[object, object] | None = None
        self._head = b""
        self._tail = b""
        self._line_no = 0  # lines consumed so far
        self._unterminated = False  # the consumed part ends with a complete entry but no newline
        self._tree: SessionTree | None = None

    # ------------------------------------------------------------------ public properties
    @property
    def session_id(self) -> str | None:
        """The header id, which identifies the session (never the file name)."""
        value = (self.header or {}).get("id")
        return value if isinstance(value, str) else None

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
        return self.by_id.get(self.leaf_id) if self.entries else None

    @property
    def name(self) -> str | None:
        """The session name: the latest ``session_info`` in file order, trimmed; blank clears it."""
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

    @property
    def usage_overrides(self) -> dict[str, dict]:
        """``child_usage_attributed`` results: assistant entry id -> the aggregate usage applied to it."""
        return dict(self._usage_overrides)

    @property
    def tree(self) -> SessionTree:
        """The entry tree (built on first use, rebuilt after a refresh that changed anything)."""
        if self._tree is None:
            self._tree = SessionTree(self.entries, self.by_id)
        return self._tree

    @property
    def diagnostics(self) -> list[Diagnostic]:
        """Everything wrong with the file: reading problems, then tree problems, by line."""
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
    def body(self, entry: Entry | str) -> dict:
        """The full entry object, after in-memory migration, read from disk by offset."""
        return next(self.bodies([entry]))

    def bodies(self, entries: Iterable[Entry | str]) -> Iterator[dict]:
        """Full entry objects for several entries, in the order given, with one open file.

        A session loaded with ``keep_bodies`` hands over the object parsed while loading, once; a
        later request for the same entry reads it from disk again.
        """
        items = [self.by_id[e] if isinstance(e, str) else e for e in entries]
        kept = self._kept
        if kept:
            done = 0
            for entry in items:
                obj = kept.pop(entry.line, None)
                if obj is None:
                    break
                yield self._migrate_body(entry, obj)
                done += 1
            items = items[done:]  # the rest from disk (what was handed over is gone)
            if not items:
                return
        try:
            fd = os.open(self.path, _READ_FLAGS)
        except OSError as err:
            raise SessionReadError(f"Cannot read {self.path}: {err.strerror or err}.") from err
        try:
            for entry in items:
                raw = os.pread(fd, entry.length, entry.offset)
                obj, _note = decode_line(raw)
                if not isinstance(obj, dict):
                    # The file changed underneath since it was indexed; say so rather than guess.
                    raise SessionReadError(
                        f"{self.path} changed since it was read (line {entry.line} moved); reload it."
                    )
                yield self._migrate_body(entry, obj)
        finally:
            os.close(fd)

    def raw_lines(self, entries: Iterable[Entry]) -> Iterator[bytes]:
        """The entries' bytes exactly as on disk (without the newline or a trailing CR), one open file."""
        with open(self.path, "rb") as handle:
            for entry in entries:
                handle.seek(entry.offset)
                yield handle.read(entry.length).rstrip(b"\r")

    def _migrate_body(self, entry: Entry, obj: dict) -> dict:
        if entry.synthetic:
            obj["id"] = entry.id
            obj["parentId"] = entry.parent_id
        if self.version < 2 and entry.kind == "compaction":
            index = obj.get("firstKeptEntryIndex")
            if isinstance(index, int | float) and not isinstance(index, bool):
                target = self._ordinal_entry(index)
                if target is not None and target.line < entry.line:
                    obj["firstKeptEntryId"] = target.id
                del obj["firstKeptEntryIndex"]
        message = obj.get("message")
        if isinstance(message, dict):
            if self.version < 3 and entry.type == "message" and message.get("role") == "hookMessage":
                message["role"] = "custom"
            override = self._usage_overrides.get(entry.id)
            if override is not None and message.get("role") == "assistant":
                message["usage"] = override
        return obj

    def _ordinal_entry(self, index: float) -> Entry | None:
        if index != int(index) or index < 0 or index >= len(self._by_ordinal):
            return None
        return self._by_ordinal[int(index)]

    # ------------------------------------------------------------------ reading
    def _load(self) -> None:
        fd, st = _open_regular(self.path, "does not exist")
        try:
            self._identity = (st.st_dev, st.st_ino)
            self._read_from(fd, 0)
        except OSError as err:
            raise SessionReadError(f"Cannot read {self.path}: {err.strerror or err}.") from err
        finally:
            os.close(fd)

    def _read_from(self, fd: int, start: int) -> list[Entry]:
        """Index complete lines from ``start`` to EOF; hold back a final line that is not complete."""
        first_new = len(self.entries)
        offset = start
        line_no = self._line_no
        crc = self._crc
        pending: list[bytes] = []  # the start of a line longer than what was read so far
        position = start
        ingest = self._ingest
        while True:
            chunk = os.pread(fd, _CHUNK, position)
            if not chunk:
                break
            position += len(chunk)
            if b"\n" not in chunk:
                # Inside one long line (a big image or tool output): collect the pieces and join them
                # once, rather than re-joining and re-splitting a growing buffer for every chunk.
                pending.append(chunk)
                continue
            if pending:
                pending.append(chunk)
                buffer = b"".join(pending)
            else:
                buffer = chunk
            parts = buffer.split(b"\n")
            tail = parts.pop()
            pending = [tail] if tail else []
            if crc is not None:
                crc = zlib.crc32(memoryview(buffer)[: len(buffer) - len(tail)], crc)
            for raw in parts:
                line_no += 1
                ingest(raw, line_no, offset)
                offset += len(raw) + 1
        carry = b"".join(pending)
        self._tail_diagnostic = None
        self._unterminated = False
        if carry and not carry.isspace():
            obj, _note = decode_line(carry)
            if isinstance(obj, dict):
                # A complete entry whose newline is missing (a hand edit, or a lost write). Index it;
                # the writer puts a newline before anything it appends.
                line_no += 1
                ingest(carry, line_no, offset)
                if crc is not None:
                    crc = zlib.crc32(carry, crc)
                offset += len(carry)
                self._unterminated = True
            else:
                # A write in progress, or a crash mid-write: wait for the newline before reading it.
                self._tail_diagnostic = Diagnostic(
                    line_no + 1,
                    "truncated-line",
                    f"The last line ({len(carry)} bytes) is incomplete (a write in progress or cut short);"
                    " it is not shown until it is complete.",
                )
        self._line_no = line_no
        self._read_end = offset
        self._crc = crc
        self._remember_guards(fd)
        self._tree = None
        return self.entries[first_new:]

    def _remember_guards(self, fd: int) -> None:
        self._head = os.pread(fd, min(_GUARD, self._read_end), 0)
        self._tail = self._tail_guard(fd)

    def _tail_guard(self, fd: int) -> bytes:
        start = max(0, self._read_end - _GUARD)
        return os.pread(fd, self._read_end - start, start)

    def _diag(self, line: int, kind: str, message: str, entry_id: str | None = None) -> None:
        self._diagnostics.append(Diagnostic(line, kind, message, entry_id))

    def _ingest(self, raw: bytes, line_no: int, offset: int) -> None:
        """Index one line. This is the hot path (once per line of every file): keep it to lookups."""
        if not raw or raw.isspace():
            return
        try:
            obj = _loads(raw)
        except _JSONDecodeError:
            obj, note = decode_line(raw)
            if note == "invalid-json":
                self._diag(line_no, "invalid-json", "The line is not valid JSON; it was skipped.")
                return
            if note == "bom":
                self._diag(line_no, "variant", "The line starts with a byte order mark; it was ignored.")
            elif note is not None:
                self._diag(line_no, note, "The line has invalid UTF-8; the bad bytes were read as U+FFFD.")
        if type(obj) is not dict:
            if self.version < 2:
                self._by_ordinal.append(None)
            self._diag(line_no, "not-an-object", "The line is JSON but not an object; it was skipped.")
            return
        typ = obj.get("type")
        if typ in _HEADER_TYPES and (not self._header_seen or typ == "session"):
            if self._header_seen:
                if self.version < 2:
                    self._by_ordinal.append(None)
                self._diag(line_no, "duplicate-header", "A second session header; it was ignored.")
                return
            self._take_header(obj, line_no)
            return
        if not self._header_seen:
            self._header_seen = True
            self._diag(
                line_no,
                "missing-header",
                "The file does not start with a session header; its entries are shown without one.",
            )
        if typ in KNOWN_TYPES:
            kind = typ
        else:
            if type(typ) is not str:
                typ = ""
            kind = TYPE_ALIASES.get(typ, typ or "(no type)")
        legacy = self.version < 2
        entry_id = None if legacy else obj.get("id")
        synthetic = False
        if type(entry_id) is str and entry_id:
            parent_id = obj.get("parentId")
            if parent_id is not None:
                if type(parent_id) is not str:
                    message = "parentId is not a string; read as a root."
                    self._diag(line_no, "invalid-field", message, entry_id)
                    parent_id = None
                elif parent_id not in self.by_id:
                    self._links_suspect = True  # an orphan, a self-parent, or a loop: the tree will tell
        else:
            entries = self.entries
            parent_id = entries[-1].id if entries else self._chain_start
            entry_id = self._synthesise_id(line_no)
            synthetic = True
            if not legacy:
                message = "The entry has no id; it was given one and chained."
                self._diag(line_no, "missing-id", message, entry_id)
        timestamp = obj.get("timestamp")
        if not is_valid_timestamp(timestamp):
            self._diag(line_no, "invalid-timestamp", "The entry timestamp is missing or invalid.", entry_id)
        entry = Entry(entry_id, parent_id, typ, kind, timestamp, line_no, offset, len(raw), None, synthetic)
        if kind == "message":
            self._index_message(entry, obj)
        elif kind in KNOWN_TYPES:
            if kind == "label":
                self._index_label(entry, obj)
            elif kind == "session_info":
                self._index_name(entry, obj)
            elif kind == "model_change":
                provider, model = obj.get("provider"), obj.get("modelId")
                if type(model) is str:
                    self.models[f"{provider}/{model}" if type(provider) is str else model] = None
            elif kind == "compaction":
                entry.info = CompactionInfo(obj.get("tokensBefore"))
            elif kind == "child_usage_attributed":
                target, usage = obj.get("targetId"), obj.get("aggregateUsage")
                if type(target) is str and type(usage) is dict:
                    self._usage_overrides[target] = usage
            if typ != kind:
                self._diag(line_no, "variant", f"Entry type {typ!r} was read as {kind!r}.", entry_id)
        else:
            shown = repr(typ) if typ else "(none)"
            self._diag(line_no, "unknown-type", f"Unknown entry type {shown}; kept as it is.", entry_id)
        self.entries.append(entry)
        by_id = self.by_id
        if entry_id in by_id:
            self._links_suspect = True
            self._diag(
                line_no,
                "duplicate-id",
                f"Id {entry_id} was already used on line {by_id[entry_id].line}; this later entry wins.",
                entry_id,
            )
        by_id[entry_id] = entry
        if legacy:
            self._by_ordinal.append(entry)
        if self._observer is not None:
            self._observer(entry, obj)
        if self._kept is not None:
            self._kept[line_no] = obj

    def _take_header(self, obj: dict, line_no: int) -> None:
        self._header_seen = True
        self.header = obj
        self.header_line = line_no
        version = obj.get("version", 1)
        if isinstance(version, str) and version.isdigit():
            version = int(version)
        if isinstance(version, bool) or not isinstance(version, int | float):
            version = 1
        self.version = int(version)
        if obj.get("type") == "header":
            self._diag(line_no, "variant", "A 'header' line was read as the session header.")
            if "version" not in obj:
                self.version = CURRENT_VERSION  # the variant always carries ids
        if self.version < 2:
            self._by_ordinal = [None]
        if not isinstance(obj.get("id"), str):
            self._diag(line_no, "invalid-field", "The session header has no id.")

    def _index_message(self, entry: Entry, obj: dict) -> None:
        self.message_count += 1
        message = obj.get("message")
        if type(message) is not dict:
            self._diag(entry.line, "invalid-field", "The message entry has no message object.", entry.id)
            return
        role = message.get("role")
        if type(role) is not str:
            return
        if role == "hookMessage" and self.version < 3:
            role = "custom"
        entry.role = role
        if role == "assistant":
            if "content" in message:
                self._note_activity(entry, message)
            usage = message.get("usage")
            cost = usage.get("cost") if type(usage) is dict else None
            tokens = usage.get("totalTokens") if cost is not None else None
            total = cost.get("total") if type(cost) is dict else None
            if type(tokens) is not int or type(total) is not float:
                tokens, total = usage_totals(usage)
            pair = (message.get("provider"), message.get("model"))
            if pair != self._last_model:  # most replies repeat the previous model: skip the format
                self._last_model = pair
                provider, model = pair
                if type(model) is str:
                    self.models[f"{provider}/{model}" if type(provider) is str else model] = None
            entry.info = AssistantInfo(tokens, total, message.get("stopReason"))
        elif role == "user" and "content" in message:
            self._note_activity(entry, message)
            if not self.first_message:
                self.first_message = message_text(message.get("content"))

    def _note_activity(self, entry: Entry, message: dict) -> None:
        # The reference's "modified": the newest user/assistant message time, else the entry time.
        moment = message.get("timestamp")
        if type(moment) is not int and type(moment) is not float:
            moment = entry.ts_ms
            if moment is None:
                return
        last = self.last_activity_ms
        if last is None or moment > last:
            self.last_activity_ms = moment

    def _index_name(self, entry: Entry, obj: dict) -> None:
        name = obj.get("name")
        if name is None or type(name) is str:
            self._name = (name.strip() or None) if name else None
            self.name_seen = True
            entry.info = self._name
        else:
            self._diag(entry.line, "invalid-field", "The session name is not text; it was ignored.", entry.id)

    def _index_label(self, entry: Entry, obj: dict) -> None:
        target, label = obj.get("targetId"), obj.get("label")
        entry.info = LabelInfo(target, label)
        if not isinstance(target, str):
            self._diag(entry.line, "invalid-field", "The label entry has no target id.", entry.id)
            return
        if js_truthy(label):
            text = label if isinstance(label, str) else str(label)
            # dict assignment keeps an existing key's position, like JavaScript's Map.set
            self._labels[target] = (text, entry.timestamp)
        else:
            self._labels.pop(target, None)

    def _synthesise_id(self, line_no: int) -> str:
        import hashlib  # only legacy files need it; keep it off the start-up path

        seed = f"{self.session_id or self.path}\0{line_no}".encode()
        salt = 0
        while True:
            digest = hashlib.blake2b(seed + salt.to_bytes(2, "little"), digest_size=4).hexdigest()
            if digest not in self.by_id:
                return digest
            salt += 1

    # ------------------------------------------------------------------ incremental reading
    def refresh(self) -> RefreshResult:
        """Read what was appended since the last read, or reload when the file was replaced.

        A partial last line is held back until its newline arrives. A file that shrank, was replaced
        (different inode), or whose bytes already read changed (the first and last 4 KiB are always
        compared; everything when at most 8 MiB has been read) is read again whole.

        Raises:
            SessionReadError: the file was deleted, is no longer a regular file, or cannot be read;
                when it cannot even be opened, the index is left as it was.
        """
        fd, st = _open_regular(self.path, "was deleted or moved")
        try:
            reason = self._replaced_reason(fd, st)
            if reason is None and self._unterminated and st.st_size > self._read_end:
                if os.pread(fd, 1, self._read_end) != b"\n":
                    reason = "Bytes were added to its unterminated last line."
            if reason is not None:
                self._reset()
                self._identity = (st.st_dev, st.st_ino)
                self._read_from(fd, 0)
                return RefreshResult(list(self.entries), True, reason)
            if st.st_size == self._read_end:
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

    def _replaced_reason(self, fd: int, st: os.stat_result, full: bool = False) -> str | None:
        """Why the bytes read so far are no longer what is on disk, or None when they still are.

        The inode, the size and the first and last 4 KiB read are always compared. The checksum of
        everything read is compared too when ``full`` is set or the part read is small enough
        (:data:`_FULL_CHECK`) for that to be cheap, so an edit in the middle is noticed as well.
        """
        if self._identity != (st.st_dev, st.st_ino):
            return "The file was replaced."
        if st.st_size < self._read_end:
            return "The file was truncated."
        if os.pread(fd, len(self._head), 0) != self._head:
            return "The beginning of the file changed."
        if self._tail_guard(fd) != self._tail:
            return "Lines already read were changed."
        cheap = full or self._read_end <= _FULL_CHECK
        if self._crc is not None and cheap and self._checksum(fd) != self._crc:
            return "Lines already read were changed."
        return None

    def _checksum(self, fd: int) -> int | None:
        """crc32 of the bytes ``[0, read end)`` as they are on disk now; None when fewer are there."""
        crc = 0
        position = 0
        while position < self._read_end:
            chunk = os.pread(fd, min(_CHUNK, self._read_end - position), position)
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
            fd = os.open(self.path, _READ_FLAGS)
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


def usage_totals(usage: object) -> tuple[int | float, float]:
    """``(tokens, cost)`` of one usage object: totalTokens (or the sum of its parts) and cost.total."""
    if not isinstance(usage, dict):
        return 0, 0.0
    tokens = usage.get("totalTokens")
    if isinstance(tokens, bool) or not isinstance(tokens, int | float):
        tokens = 0
        for key in ("input", "output", "cacheRead", "cacheWrite"):
            part = usage.get(key)
            if isinstance(part, int | float) and not isinstance(part, bool):
                tokens += part
    cost = usage.get("cost")
    total = cost.get("total") if isinstance(cost, dict) else None
    if isinstance(total, bool) or not isinstance(total, int | float):
        total = 0.0
    return tokens, float(total)


def entries_usage(session: Session, entries: Iterable[Entry]) -> tuple[int | float, float]:
    """``(tokens, cost)`` summed over the assistant messages among ``entries`` of ``session``.

    A ``child_usage_attributed`` aggregate recorded for a message replaces that message's own usage, as
    the reference does.
    """
    tokens: int | float = 0
    cost = 0.0
    overrides = session.usage_overrides
    for entry in entries:
        info = entry.info
        if isinstance(info, AssistantInfo):
            usage = overrides.get(entry.id)
            if usage is not None:
                entry_tokens, entry_cost = usage_totals(usage)
                tokens += entry_tokens
                cost += entry_cost
            else:
                tokens += info.tokens
                cost += info.cost
    return tokens, cost


# A plain open() of a FIFO named *.jsonl would block until a writer appears; O_NONBLOCK makes it
# return at once so the file-type check below can refuse it. It changes nothing for regular files.
_READ_FLAGS = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0)


def _open_regular(path: str, missing: str) -> tuple[int, os.stat_result]:
    """Open ``path`` for reading and check it is a regular file; every failure is a SessionReadError.

    Args:
        path: the session file.
        missing: how to finish the sentence "<path> ..." when the file does not exist.

    Returns:
        The open descriptor (the caller closes it) and its ``fstat``.
    """
    try:
        fd = os.open(path, _READ_FLAGS)
    except FileNotFoundError as err:
        raise SessionReadError(f"{path} {missing}.") from err
    except IsADirectoryError as err:
        raise SessionReadError(f"{path} is a folder, not a session file.") from err
    except PermissionError as err:
        if os.path.isdir(path):  # Windows refuses to open folders with a permission error
            raise SessionReadError(f"{path} is a folder, not a session file.") from err
        raise SessionReadError(f"You do not have permission to read {path}.") from err
    except OSError as err:
        raise SessionReadError(f"Cannot read {path}: {err.strerror or err}.") from err
    try:
        st = os.fstat(fd)
        if stat.S_ISDIR(st.st_mode):
            raise SessionReadError(f"{path} is a folder, not a session file.")
        if not stat.S_ISREG(st.st_mode):
            raise SessionReadError(f"{path} is not a regular file.")
    except OSError as err:
        os.close(fd)
        raise SessionReadError(f"Cannot read {path}: {err.strerror or err}.") from err
    except BaseException:
        os.close(fd)
        raise
    return fd, st
