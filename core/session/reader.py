r"""Reading session file lines into the index: parsing, the header, entry records, in-memory migration.

The file is cut into complete lines by :mod:`core.session.framing`. Every line is parsed once with
orjson to validate it and pick out the few fields the index needs; the parsed object is then dropped,
so memory stays proportional to the number of entries, not to the file size.

Migration from version 1 and 2 happens in memory exactly as the reference does it (ids and parent
ids for v1 chains, ``firstKeptEntryIndex`` -> ``firstKeptEntryId``, ``hookMessage`` -> ``custom``,
variant type spellings; :mod:`core.session.migration` applies it to each body read), with one
deliberate difference: synthesised ids are derived from the session id and the line number, so the
same file gives the same ids on every load (the reference draws random ones). While reading, the
index also notes what tells which agent wrote the file (:mod:`core.session.flavour`) and which
``context_edit`` entries name which target.

:class:`SessionReader` holds the index and fills it; :class:`core.session.session.Session` builds the
public object on it (lookups, bodies, refresh).
"""

from __future__ import annotations

import os
import zlib
from collections.abc import Callable
from typing import TypeAlias

import orjson

from core.collector import collection_paused
from core.errors import SessionReadError
from core.session.content import message_text
from core.session.diagnostics import Diagnostic
from core.session.entry import (
    AssistantInfo,
    CompactionInfo,
    ContextEditInfo,
    Entry,
    LabelInfo,
    js_truthy,
)
from core.session.files import open_regular
from core.session.flavour import Flavour, flavour_of
from core.session.framing import frame_lines
from core.session.jsonl import JsonObject, decode_line
from core.session.migration import migrate_body, resolve_overrides
from core.session.tree import SessionTree
from core.session.usage import usage_totals
from core.session.vocabulary import KNOWN_TYPES, PRIME_AGENT_TYPES, TYPE_ALIASES
from core.timefmt import is_valid_timestamp

_loads = orjson.loads
_JSONDecodeError = orjson.JSONDecodeError
CURRENT_VERSION = 3
GUARD = 4096  # bytes remembered at the head and before the read end, to notice replaced files
_HEADER_TYPES = ("session", "header")  # "header" is a variant spelling (second format document)

# The strings that repeat on nearly every line (types, roles, stop reasons), held once: each line's own
# copy would cost 50-60 bytes an entry, ~90 MB on a 520,000-entry session.
_COMMON_WORDS = "user assistant toolResult custom system bashExecution branchSummary".split()
_COMMON_WORDS += ["compactionSummary"]
_COMMON_WORDS += "stop toolUse length error aborted".split()  # stop reasons
_SHARED: dict[str, str] = {name: name for name in (*KNOWN_TYPES, *TYPE_ALIASES, *_COMMON_WORDS)}


def _shared(value: object) -> object:
    """``value``, or the one shared copy of it when it is a common string."""
    return _SHARED.get(value, value) if type(value) is str else value


Observer: TypeAlias = Callable[[Entry, JsonObject], None]
"""Called with every new entry and the object parsed from its line (see :class:`core.session.Session`)."""


class SessionReader:
    """A session file's index and the reading that fills it; :class:`core.session.Session` builds on it.

    Attributes:
        path: the file path (absolute).
        header: the header object (a copy of the first line), or None when the file has none.
        version: the format version on disk (1 when the header has none).
        entries: every entry in file order, duplicates included.
        by_id: entry id -> entry; for duplicate ids the later entry wins, as in the reference.
    """

    # Set by the constructors (Session.__init__, Session.resume) before _reset().
    path: str
    _keep_bodies: bool
    _checksum_enabled: bool
    _observer: Observer | None

    # ------------------------------------------------------------------ state
    def _reset(self) -> None:
        self._kept: dict[int, JsonObject] | None = {} if self._keep_bodies else None  # line -> parsed object
        self.header: JsonObject | None = None
        self.header_line = 0
        self.version = CURRENT_VERSION
        self.entries: list[Entry] = []
        self.by_id: dict[str, Entry] = {}
        self._diagnostics: list[Diagnostic] = []
        self._tail_diagnostic: Diagnostic | None = None
        self._tail_may_be_object = False  # the held-back partial line starts like a JSON object
        self._header_seen = False  # any line parsed as an object (the header or an entry)
        # Parsed JSON values in file order, header = 0: what a v1 firstKeptEntryIndex counts. Filled
        # for v1 files only (the header resets it to [None]).
        self._by_ordinal: list[Entry | None] = []
        self._labels: dict[str, tuple[str, object]] = {}  # target -> (label, label entry timestamp)
        self._name: str | None = None
        self.name_seen = False  # a session_info entry was read (it may have cleared the name)
        self._chain_start: str | None = None  # what an id-less first entry hangs off (Session.resume)
        # child_usage_attributed, in file order: targetId as written -> aggregateUsage (the last one wins)
        self._usage_overrides: dict[str, JsonObject] = {}
        self._resolved_overrides: dict[str, JsonObject] | None = None  # by our entry id, made when asked
        # v1 only: an assistant message's id as written -> the id synthesised for it. Prime Agent applies
        # child usage before migrating, by the ids as written, so those must be remembered.
        self._written_ids: dict[str, str] = {}
        self._context_edits: dict[str, list[Entry]] = {}  # targetId -> the context_edit entries naming it
        self._prime_marked = False  # something only Prime Agent writes (see core.session.flavour)
        self._pi1_marked = False  # something only pi 1.x writes
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

    @property
    def session_id(self) -> str | None:
        """The header id, which identifies the session (never the file name)."""
        value = (self.header or {}).get("id")
        return value if isinstance(value, str) else None

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
        first_new = len(self.entries)
        with collection_paused():
            carry, line_no, offset, crc = frame_lines(fd, start, self._line_no, self._crc, self._ingest_lines)
        self._tail_diagnostic = None
        self._tail_may_be_object = False
        self._unterminated = False
        if carry and not carry.isspace():
            obj, _note = decode_line(carry)
            if isinstance(obj, dict):
                # A complete entry whose newline is missing (a hand edit, or a lost write). Index it;
                # the writer puts a newline before anything it appends.
                line_no += 1
                self._ingest(carry, line_no, offset)
                if crc is not None:
                    crc = zlib.crc32(carry, crc)
                offset += len(carry)
                self._unterminated = True
            else:
                # A write in progress, or a crash mid-write: wait for the newline before reading it.
                self._tail_may_be_object = carry.removeprefix(b"\xef\xbb\xbf").lstrip()[:1] == b"{"
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
        self._resolved_overrides = None
        return self.entries[first_new:]

    def _ingest_lines(self, lines: list[bytes], line_no: int, offset: int) -> None:
        """Ingest a batch of complete lines from framing (a :data:`core.session.framing.LineSink`)."""
        ingest = self._ingest
        for raw in lines:
            line_no += 1
            ingest(raw, line_no, offset)
            offset += len(raw) + 1

    def _remember_guards(self, fd: int) -> None:
        self._head = os.pread(fd, min(GUARD, self._read_end), 0)
        self._tail = self._tail_guard(fd)

    def _tail_guard(self, fd: int) -> bytes:
        start = max(0, self._read_end - GUARD)
        return os.pread(fd, self._read_end - start, start)

    def _diag(self, line: int, kind: str, message: str, entry_id: str | None = None) -> None:
        self._diagnostics.append(Diagnostic(line, kind, message, entry_id))

    def _ingest(self, raw: bytes, line_no: int, offset: int) -> None:
        """Index one line. This is the hot path (once per line of every file): keep it to lookups."""
        if not raw or raw.isspace():
            return
        obj: object
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
        odd_type = False
        if type(typ) is str:
            typ = _SHARED.get(typ, typ)
        else:
            # A list or an object cannot even be looked up in a set: such a line must cost only itself.
            odd_type = type(typ) is list or type(typ) is dict
            typ = ""
        if typ in KNOWN_TYPES:
            kind = typ
        else:
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
                else:
                    parent = self.by_id.get(parent_id)
                    if parent is None:
                        self._links_suspect = True  # an orphan, a self-parent, or a loop: the tree will tell
                    else:
                        parent_id = parent.id  # one string for both ids: 57 bytes less an entry
        else:
            entries = self.entries
            parent_id = entries[-1].id if entries else self._chain_start
            entry_id = self._synthesise_id(line_no)
            synthetic = True
            if not legacy:
                message = (
                    "The entry has no id; it was given one and chained to the entry before it. pi gives"
                    " every entry without an id the same empty id, so it shows only the last of them."
                )
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
                elif type(obj.get("model")) is str and obj["model"]:  # some writers: {"model": "provider/id"}
                    self.models[obj["model"]] = None
            elif kind == "compaction":
                entry.info = CompactionInfo(obj.get("tokensBefore"))
                if "systemMessage" in obj:
                    self._pi1_marked = True
            elif kind == "context_edit":
                self._index_context_edit(entry, obj)
            elif kind == "usage":
                self._pi1_marked = True
            elif kind in PRIME_AGENT_TYPES:
                self._prime_marked = True
                if kind == "child_usage_attributed":
                    target, usage = obj.get("targetId"), obj.get("aggregateUsage")
                    if type(target) is str and type(usage) is dict:
                        self._usage_overrides[target] = usage  # in file order: the last one wins
            if typ != kind:
                self._diag(line_no, "variant", f"Entry type {typ!r} was read as {kind!r}.", entry_id)
        elif odd_type:
            what = "a list" if type(obj.get("type")) is list else "an object"
            message = f"The entry's type is {what}, not text; it is kept as an unknown entry."
            self._diag(line_no, "invalid-field", message, entry_id)
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

    def _take_header(self, obj: JsonObject, line_no: int) -> None:
        self._header_seen = True
        self.header = obj
        self.header_line = line_no
        version = obj.get("version", 1)
        if isinstance(version, str) and version.isdigit():
            version = int(version)
        if isinstance(version, bool) or not isinstance(version, int | float):
            version = 1
        self.version = int(version)
        if self.version > CURRENT_VERSION:
            self._diag(
                line_no,
                "newer-version",
                f"The header says format version {self.version}: a newer agent wrote this file. It is"
                f" read as version {CURRENT_VERSION}; entries of types this app does not know are shown"
                " as they are.",
            )
        if "git" in obj or "rlmDepth" in obj:
            self._prime_marked = True  # Prime Agent's header fields (FORMAT-latest §6)
        if obj.get("type") == "header":
            self._diag(line_no, "variant", "A 'header' line was read as the session header.")
            if "version" not in obj:
                self.version = CURRENT_VERSION  # the variant always carries ids
        if self.version < 2:
            self._by_ordinal = [None]
        if not isinstance(obj.get("id"), str):
            self._diag(line_no, "invalid-field", "The session header has no id.")

    def _index_message(self, entry: Entry, obj: JsonObject) -> None:
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
        role = _SHARED.get(role, role)
        entry.role = role
        if role == "assistant":
            if self.version < 2:
                written = obj.get("id")
                if type(written) is str:  # the last assistant with this id wins, as in Prime Agent
                    self._written_ids[written] = entry.id
            if "content" in message:
                self._note_activity(entry, message)
            usage = message.get("usage")
            tokens = total = None
            if type(usage) is dict:
                cost = usage.get("cost")
                if type(cost) is dict:
                    tokens, total = usage.get("totalTokens"), cost.get("total")
            pair = (message.get("provider"), message.get("model"))
            if pair != self._last_model:  # most replies repeat the previous model: skip the format
                self._last_model = pair
                provider, model = pair
                if type(model) is str:
                    self.models[f"{provider}/{model}" if type(provider) is str else model] = None
            if type(tokens) is int and type(total) is float:  # as the reference writes usage: no checks
                entry.info = AssistantInfo(tokens, total, _shared(message.get("stopReason")))
            else:
                entry.info = AssistantInfo(*usage_totals(usage), _shared(message.get("stopReason")))
        elif role == "user" and "content" in message:
            self._note_activity(entry, message)
            if not self.first_message:
                self.first_message = message_text(message.get("content"))
        elif role == "system":
            self._pi1_marked = True

    def _note_activity(self, entry: Entry, message: JsonObject) -> None:
        # The reference's "modified": the newest user/assistant message time, else the entry time.
        moment = message.get("timestamp")
        if type(moment) is not int and type(moment) is not float:
            moment = entry.ts_ms
            if moment is None:
                return
        last = self.last_activity_ms
        if last is None or moment > last:
            self.last_activity_ms = moment

    def _index_name(self, entry: Entry, obj: JsonObject) -> None:
        name = obj.get("name")
        if name is None or type(name) is str:
            self._name = (name.strip() or None) if name else None
            self.name_seen = True
            entry.info = self._name
        else:
            self._diag(entry.line, "invalid-field", "The session name is not text; it was ignored.", entry.id)

    def _index_label(self, entry: Entry, obj: JsonObject) -> None:
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

    def _index_context_edit(self, entry: Entry, obj: JsonObject) -> None:
        self._pi1_marked = True
        target = obj.get("targetId")
        entry.info = ContextEditInfo(target, "replacement" in obj and obj["replacement"] is None)
        if "replacement" not in obj:
            message = "The context edit has no replacement: pi 1.6 fails on it; here it changes nothing."
            self._diag(entry.line, "invalid-field", message, entry.id)
        if type(target) is str:
            edits = self._context_edits.get(target)
            if edits is None:
                self._context_edits[target] = [entry]
            else:
                edits.append(entry)
        else:
            self._diag(
                entry.line,
                "invalid-field",
                "The context edit has no target id; it changes nothing.",
                entry.id,
            )

    def _synthesise_id(self, line_no: int) -> str:
        import hashlib  # only legacy files need it; keep it off the start-up path

        # A header id may hold half a surrogate pair (a "\ud800" escape): encode it as it is.
        seed = f"{self.session_id or self.path}\0{line_no}".encode("utf-8", "surrogatepass")
        salt = 0
        while True:
            digest = hashlib.blake2b(seed + salt.to_bytes(2, "little"), digest_size=4).hexdigest()
            if digest not in self.by_id:
                return digest
            salt += 1

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
