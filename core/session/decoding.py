r"""Reading a session file, stage 2 of 3 (decoding): a complete line -> a JSON object, or a diagnostic.

Every line is parsed once with orjson; a line orjson refuses is read as leniently as the reference
reads it (:func:`core.session.jsonl.decode_line`: a byte order mark skipped, invalid UTF-8 replaced,
each noted) or reported as invalid JSON and skipped. A value that is not an object is reported and
skipped. The first object is the header when its type says so (``session``, or the variant spelling
``header``), or the second when the first is oh-my-pi's title slot (``{"type": "title", ...}``, the
session's title in a fixed-width line the agent rewrites in place; kept as :attr:`title_slot`, not an
entry); a later ``session`` line is a duplicate header, ignored. Every other object is an entry,
handed to the indexing stage (:meth:`LineDecoder._index_entry`, :mod:`core.session.indexing`), with
the ``type`` value already read, since deciding "header or entry" had to read it.

:class:`LineDecoder` is the first layer of the reader's state (the header, the format version, the
diagnostics); :class:`core.session.indexing.EntryIndexer` builds on it, and
:class:`core.session.reader.SessionReader` on that.
"""

from __future__ import annotations

import orjson

from core.session import skeleton as _skeleton
from core.session.diagnostics import Diagnostic
from core.session.entry import Entry
from core.session.jsonl import MAX_DEPTH, JsonObject, decode_line, fold_deep
from core.session.vocabulary import HEADER, HEADER_VARIANT, TITLE_SLOT

_loads = orjson.loads
_JSONDecodeError = orjson.JSONDecodeError
CURRENT_VERSION = 3
_HEADER_TYPES = (HEADER, HEADER_VARIANT)  # a tuple: a list or an object as the type must not be hashed
_INVALID = object()  # what _decode_damaged gives for a line that is not JSON (None is JSON's null)


class LineDecoder:
    """The decoding stage, and the state every stage shares: header, version, diagnostics, flavour marks.

    Attributes:
        header: the header object (a copy of the first line, or of the second after oh-my-pi's title
            slot), or None when the file has none.
        title_slot: oh-my-pi's title slot (the line before the header), or None.
        header_line: the header's line number (0 without one).
        version: the format version on disk (1 when the header has none).
    """

    def _reset(self) -> None:
        self._diagnostics: list[Diagnostic] = []
        self.header: JsonObject | None = None
        self.title_slot: JsonObject | None = None  # oh-my-pi's title line before the header
        self.header_line = 0
        self.version = CURRENT_VERSION
        self._header_seen = False  # any line parsed as an object (the header or an entry)
        self._tail_diagnostic: Diagnostic | None = None
        self._tail_may_be_object = False  # the held-back partial line starts like a JSON object
        # Parsed JSON values in file order, header = 0: what a v1 firstKeptEntryIndex counts. Filled
        # for v1 files only (the header resets it to [None]).
        self._by_ordinal: list[Entry | None] = []
        self._prime_marked = False  # something only Prime Agent writes (see core.session.flavour)
        self._folded_lines: set[int] = set()  # lines with a value folded (noted once each)
        self._shallow_lines: set[int] = set()  # huge lines streamed: none nests deeper than MAX_DEPTH
        self._fold_lines = False  # fold every line's object as it is decoded (set by the indexing stage)
        self._pi1_marked = False  # something only pi 1.x writes

    @property
    def session_id(self) -> str | None:
        """The header id, which identifies the session (never the file name)."""
        value = (self.header or {}).get("id")
        return value if isinstance(value, str) else None

    def _diag(self, line: int, kind: str, message: str, entry_id: str | None = None) -> None:
        self._diagnostics.append(Diagnostic(line, kind, message, entry_id))

    # ------------------------------------------------------------------ lines
    def _decode_lines(self, lines: list[bytes], line_no: int, offset: int, *, huge: bool = True) -> None:
        """Decode a batch of complete lines from framing (a :data:`core.session.framing.LineSink`).

        ``line_no`` lines come before the batch; the first starts at byte ``offset``. This loop runs
        once per line of every file read: the common line costs a parse, a few lookups and one call
        to the indexing stage; anything unusual is a call of its own. A line longer than
        :data:`core.session.skeleton.HUGE_LINE` is indexed from its skeleton where it can be
        (``huge=False``: it was tried already).
        """
        index = self._index_entry
        huge_line = _skeleton.HUGE_LINE if huge else -1
        # Every value is folded to MAX_DEPTH levels before it is used whole: here when the whole object
        # is handed on (an observer, kept bodies), else where the index reads a value that may nest
        # (fold_deep, core.session.indexing) and where a body is read again (decode_line). Counting
        # brackets on every line would cost 30 ms of a 120 ms load of 37.5 MB.
        fold = self._fold_lines
        for raw in lines:
            line_no += 1
            length = len(raw)
            if length and not raw.isspace():
                if length > huge_line >= 0 and self._decode_huge([raw], line_no, offset, length):
                    offset += length + 1
                    continue
                try:
                    obj = _loads(raw)
                except _JSONDecodeError:
                    obj = self._decode_damaged(raw, line_no)
                if fold and raw.count(b"[") + raw.count(b"{") > MAX_DEPTH:  # jsonl.may_be_deep
                    self.fold_deep(obj, line_no)
                if type(obj) is dict:
                    typ = obj.get("type")
                    if typ in _HEADER_TYPES and (typ == HEADER or not self._header_seen):
                        self._header_line(obj, line_no)
                    elif self._header_seen or not self._before_header(obj, typ, line_no):
                        index(obj, typ, line_no, offset, length)
                elif obj is not _INVALID:
                    self._not_an_object(line_no)
            offset += length + 1

    def _decode_pieces(self, pieces: list[bytes], line_no: int, offset: int) -> None:
        """Decode one line longer than a chunk, given in the pieces it was read in (a ``PiecesSink``).

        A huge line is indexed from its skeleton, the pieces never joined; any other is joined (the
        pieces let go first) and decoded as every line is.
        """
        length = sum(map(len, pieces))
        if length > _skeleton.HUGE_LINE and self._decode_huge(pieces, line_no + 1, offset, length):
            return
        raw = b"".join(pieces)
        pieces.clear()
        self._decode_lines([raw], line_no, offset, huge=False)

    def _decode_huge(self, pieces: list[bytes], line_no: int, offset: int, length: int) -> bool:
        """Index huge line ``line_no`` from its skeleton; False when it must be parsed whole instead.

        The skeleton (:mod:`core.session.skeleton`) holds what the index reads of an entry, so the
        entry and its diagnostics are those of the whole parse. Where a line's whole object is wanted
        (the header, or every object for an observer) or the skeleton cannot be made, False.
        """
        if not self._header_seen or not self._skeleton_allowed():
            return False  # the line may be the header, kept whole; or every object is wanted whole
        if not _skeleton.worth_streaming(pieces, length):
            return False  # a few long values: the whole parse costs about the line, and is faster
        obj = _skeleton.skeleton(pieces, self._first_text_wanted())
        if obj is None:
            return False
        typ = obj.get("type")
        if typ == HEADER:
            self._header_line(obj, line_no)  # a second header: only noted
        else:
            self._index_entry(obj, typ, line_no, offset, length)
            self._forget_body(line_no)  # a skeleton is not the body: read again by offset when asked
            self._shallow_lines.add(line_no)  # its body needs no walk for deep values (seconds a 100 MB)
        return True

    def _skeleton_allowed(self) -> bool:
        """Whether lines may be indexed from their skeletons (not when every whole object is wanted)."""
        return False  # core.session.indexing.EntryIndexer

    def _first_text_wanted(self) -> bool:
        """Whether the session's first message is still to be read (its text is then kept)."""
        return False  # core.session.indexing.EntryIndexer

    def _forget_body(self, line_no: int) -> None:
        """Drop what was kept of line ``line_no`` for :meth:`core.session.Session.bodies`."""

    def _index_entry(self, obj: JsonObject, typ: object, line_no: int, offset: int, length: int) -> None:
        """Index one entry object whose ``type`` value is ``typ``: the indexing stage's entry point."""
        raise NotImplementedError  # core.session.indexing.EntryIndexer

    def _decode_damaged(self, raw: bytes, line_no: int) -> object:
        """The value of a line orjson refused, read leniently (noted), or ``_INVALID`` (reported)."""
        obj, note = decode_line(raw, fold=False)  # folded by the caller, with a diagnostic
        if note == "invalid-json":
            self._diag(line_no, "invalid-json", "The line is not valid JSON; it was skipped.")
            return _INVALID
        if note == "bom":
            self._diag(line_no, "variant", "The line starts with a byte order mark; it was ignored.")
        elif note is not None:
            self._diag(line_no, note, "The line has invalid UTF-8; the bad bytes were read as U+FFFD.")
        return obj

    def fold_deep(self, value: object, line_no: int, entry_id: str | None = None) -> None:
        """Fold what ``value`` (of line ``line_no``) nests deeper than :data:`MAX_DEPTH`, with a diagnostic.

        Folding is in place and idempotent: a value folded once is left as it is and noted once.
        """
        depth = fold_deep(value)
        if depth > MAX_DEPTH and line_no not in self._folded_lines:
            self._folded_lines.add(line_no)
            self._diag(
                line_no,
                "deep-value",
                f"A value on this line is nested {depth:,} levels deep; what lies deeper than {MAX_DEPTH}"
                " levels is folded.",
                entry_id,
            )

    def _not_an_object(self, line_no: int) -> None:
        if self.version < 2:
            self._by_ordinal.append(None)
        self._diag(line_no, "not-an-object", "The line is JSON but not an object; it was skipped.")

    def _before_header(self, obj: JsonObject, typ: object, line_no: int) -> bool:
        """An object before any header or entry: True when it is oh-my-pi's title slot (then not an entry).

        oh-my-pi writes a fixed-width line holding the session's title before the header (vocabulary's
        ``TITLE_SLOT``); the header follows it. Anything else there means the file has no header.
        """
        if typ == TITLE_SLOT and self.title_slot is None and isinstance(obj.get("title"), str):
            self.title_slot = obj
            if self.version < 2:
                self._by_ordinal.append(None)
            return True
        self._missing_header(line_no)
        return False

    def _missing_header(self, line_no: int) -> None:
        self._header_seen = True
        self._diag(
            line_no,
            "missing-header",
            "The file does not start with a session header; its entries are shown without one.",
        )

    def _decode_last_line(self, carry: bytes, line_no: int, offset: int) -> bool:
        """Index a last line that has no newline when it is a whole object; else hold it back.

        A whole object is a complete entry whose newline is missing (a hand edit, or a lost write):
        it is indexed as line ``line_no + 1`` and True returned. Anything else is a write in progress,
        or a crash mid-write: it waits for its newline, with a ``truncated-line`` note until then.
        """
        huge = len(carry) > _skeleton.HUGE_LINE
        # A huge line still being written is read again at every refresh: tell that it is cut short
        # without parsing it whole (19 times its size when it holds many small values), first.
        cut_short = huge and _skeleton.cut_short([carry])
        if huge and not cut_short and self._decode_huge([carry], line_no + 1, offset, len(carry)):
            return True
        obj = None if cut_short else decode_line(carry)[0]
        if isinstance(obj, dict):
            self._decode_lines([carry], line_no, offset, huge=not huge)
            return True
        self._tail_may_be_object = carry.removeprefix(b"\xef\xbb\xbf").lstrip()[:1] == b"{"
        self._tail_diagnostic = Diagnostic(
            line_no + 1,
            "truncated-line",
            f"The last line ({len(carry)} bytes) is incomplete (a write in progress or cut short);"
            " it is not shown until it is complete.",
        )
        return False

    # ------------------------------------------------------------------ the header
    def _header_line(self, obj: JsonObject, line_no: int) -> None:
        if self._header_seen:
            if self.version < 2:
                self._by_ordinal.append(None)
            self._diag(line_no, "duplicate-header", "A second session header; it was ignored.")
        else:
            self._take_header(obj, line_no)

    def _take_header(self, obj: JsonObject, line_no: int) -> None:
        self.fold_deep(obj, line_no)  # the header is kept whole (the catalogue stores it as JSON)
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
        if obj.get("type") == HEADER_VARIANT:
            self._diag(line_no, "variant", "A 'header' line was read as the session header.")
            if "version" not in obj:
                self.version = CURRENT_VERSION  # the variant always carries ids
        if self.version < 2:
            self._by_ordinal = [None]
        if not isinstance(obj.get("id"), str):
            self._diag(line_no, "invalid-field", "The session header has no id.")
