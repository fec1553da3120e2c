"""What the catalogue takes from one session file read whole: plain rows, no SQLite.

Reading (parsing, summarizing, cutting out the searchable text and keying it) is most of the CPU
time of a cold catalogue build, and it needs nothing but the file. Kept apart from the writing in
:mod:`core.catalogue.update`, it can run in worker processes (:mod:`core.catalogue.pool`) while the one
connection writes. Everything here pickles: tuples, lists, dicts of plain values.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence, Set
from dataclasses import dataclass, replace
from typing import TypeAlias

import orjson

from core.catalogue.schema import path_bytes
from core.catalogue.search_text import Doc, clean_text, entry_doc, stored_text
from core.catalogue.summary import summarize
from core.catalogue.touch_rows import TouchCollector, TouchRow
from core.catalogue.usage_rows import UsageDbRow, usage_db_rows
from core.session.entry import AssistantInfo, Entry
from core.session.jsonl import JsonObject
from core.session.session import Session
from core.session.usage import unusable_note, usage_totals
from core.timefmt import js_date_ms
from core.usage.records import UsageCollector

GUARD = 4096  # bytes compared at the head and before the read end to decide that a file only grew

EntryRow: TypeAlias = tuple[
    int,  # line
    str,  # entry_id
    str | None,  # parent_id
    int | float | None,  # tokens (assistant messages only)
    float | None,  # cost
    str | None,  # stop reason
    str | None,  # role (this and the rest: searchable entries only)
    str | None,  # tools
    str | None,  # model
    int | float | None,  # ts_ms
    int | None,  # offset
    int | None,  # length
    int | None,  # text key (text_key)
    bool | None,  # on the path to the leaf
]
"""One ``entries`` row of :func:`entry_rows` (the catalogue swaps the text key for the FTS rowid)."""

OverrideRow: TypeAlias = tuple[str, int | float, float]
"""``(target, tokens, cost)`` of one ``child_usage_attributed`` result."""

StoredNote: TypeAlias = tuple[int, str, str]
"""A diagnostic as ``files.diagnostics`` holds it (a JSON array): ``(line, kind, message)``."""


def text_key(text: str) -> int:
    """The key of a searchable text: its SHA-1's first 64 bits as a signed integer.

    SHA-1 because OpenSSL computes it at about 1 GB/s, faster than blake2b or md5 here; nothing
    depends on it resisting attack, only on distinct texts rarely sharing 64 bits.
    """
    digest = hashlib.sha1(text.encode("utf-8", "surrogatepass")).digest()
    return int.from_bytes(digest[:8], "little", signed=True)


def json_text(value: object) -> str:
    """JSON text SQLite can store (lone surrogates, which JSON.parse accepts, become U+FFFD)."""
    try:
        return orjson.dumps(value).decode()
    except (TypeError, orjson.JSONEncodeError):  # lone surrogates, or integers beyond 64 bits
        return clean_text(json.dumps(value, ensure_ascii=False))


def storable(value: object) -> object:
    """``value`` as SQLite can store it: an integer beyond its 64 bits as the nearest float.

    A header can hold anything (a ``version`` of 2**64); the figures that are added up are kept within
    bounds where they are read (:data:`core.session.usage.MAX_FIGURE`), this is the last guard.
    """
    if type(value) is int and not -(1 << 63) <= value < 1 << 63:
        return float(value)
    return value


def stored_path(path: str | None) -> bytes | str | None:
    """A path from a header as the catalogue stores it (see :data:`PATH_COLUMNS`).

    Its bytes, so a file name that is not UTF-8 (written as escapes of the bytes Python could not
    decode) still names that file (:func:`core.catalogue.schema.path_bytes`); any other lone surrogate
    as U+FFFD.
    """
    if path is None:
        return None
    try:
        return path_bytes(path)
    except UnicodeEncodeError:
        return clean_text(path).encode("utf-8")


def guards(path: str, read_end: int) -> tuple[bytes, bytes]:
    """Digests of the first bytes and of the last bytes before ``read_end``: what a later pass compares.

    Digests, not the bytes: the catalogue keeps no copy of what a session says (a secret, an image's
    bytes) beyond the words it indexes. Sixteen bytes of BLAKE2b tell a changed guard from the same.
    """
    with open(path, "rb") as handle:
        head = handle.read(min(GUARD, read_end))
        start = max(0, read_end - GUARD)
        handle.seek(start)
        tail = handle.read(read_end - start)
    return guard_digests(head, tail)


def guard_digests(head: bytes, tail: bytes) -> tuple[bytes, bytes]:
    """The digests :func:`guards` gives for these guard bytes (a session's ``_head`` and ``_tail``)."""
    return hashlib.blake2b(head, digest_size=16).digest(), hashlib.blake2b(tail, digest_size=16).digest()


def walk_up(parents: Mapping[str, str | None], leaf: str | None) -> Iterator[str]:
    """Ids from ``leaf`` up to its root, given ``id -> parent id``.

    Stops at an id not in ``parents`` or at a repeat, so loops end.
    """
    seen: set[str] = set()
    current = leaf
    while current is not None and current in parents and current not in seen:
        seen.add(current)
        yield current
        current = parents[current]


# The search columns of an entry with nothing to search.
_NO_DOC: tuple[None, None, None, None, None, None, None, None] = (None,) * 8


def entry_rows(
    entries: Sequence[Entry], docs: Mapping[int, Doc], on_path: Set[str]
) -> tuple[list[EntryRow], dict[int, str]]:
    """The catalogue rows of some entries, and the searchable texts by key.

    A row is ``(line, entry_id, parent_id, tokens, cost, stop, role, tools, model, ts_ms, offset,
    length, key, on_path)``: usage only for assistant messages; the search columns (from role on)
    only for entries with a doc in ``docs`` (by line), else None. ``on_path``: ids on the path to
    the leaf.
    """
    rows: list[EntryRow] = []
    texts: dict[int, str] = {}
    for entry in entries:
        tokens: int | float | None = None
        cost: float | None = None
        stop: str | None = None
        info = entry.info
        if isinstance(info, AssistantInfo):
            tokens, cost = info.tokens, info.cost
            stop = info.stop_reason if isinstance(info.stop_reason, str) else None
        doc = docs.get(entry.line)
        if doc is None:
            rows.append((entry.line, entry.id, entry.parent_id, tokens, cost, stop, *_NO_DOC))
            continue
        key = text_key(doc.text)
        texts[key] = doc.text
        rows.append(
            (
                entry.line,
                entry.id,
                entry.parent_id,
                tokens,
                cost,
                stop,
                doc.role,
                doc.tools,
                doc.model,
                doc.ts_ms,
                entry.offset,
                entry.length,
                key,
                entry.id in on_path,
            )
        )
    return rows, texts


@dataclass(slots=True)
class Part:
    """The rows and texts of some entries of a file read whole, handed over before the read ends.

    A file with more than :data:`PART_TEXT` characters of searchable text is handed over in parts, so
    neither the reader nor the writer ever holds all its texts (a 1 GB session holds about 600 MB).
    The rows' ``on_path`` is False: the path is known only at the end (:attr:`WholeRead.path_lines`).

    Attributes:
        path: the file.
        entries: :func:`entry_rows` of the entries of this part.
        texts: key -> text, as :attr:`WholeRead.texts`.
        read_to: bytes of the file read so far (for progress within a big file).
    """

    path: str
    entries: list[EntryRow]
    texts: dict[int, str]
    read_to: int


@dataclass(slots=True)
class WholeRead:
    """Everything a whole read of one file puts in the catalogue (after the parts handed over, if any).

    Attributes:
        path: the file.
        size: bytes read (the end of the last complete line).
        files: the values of :data:`FILE_COLUMNS`, in order.
        entries: :func:`entry_rows` of every line not handed over in a :class:`Part`.
        overrides: ``(target, tokens, cost)`` of each ``child_usage_attributed`` result.
        texts: key -> text for the entries' texts; a reader in a worker leaves out those it handed
            over before (the catalogue has them), so the same text crosses the pipe once.
        usage: the ``usage`` rows (:mod:`core.catalogue.usage_rows`).
        path_lines: ``(first, last)`` runs of lines handed over in parts whose entries lie on the path
            to the leaf (their ``on_path`` is to be set); empty when nothing was handed over in parts.
        touches: the ``touches`` rows of every entry (:mod:`core.catalogue.touch_rows`), parts included.
    """

    path: str
    size: int
    files: tuple[object, ...]
    entries: list[EntryRow]
    overrides: list[OverrideRow]
    texts: dict[int, str]
    usage: list[UsageDbRow]
    path_lines: list[tuple[int, int]]
    touches: list[TouchRow]


# Characters of searchable text gathered before a read hands them over as a Part: enough that an
# ordinary session is one piece (and parts cost nothing), small enough to bound memory.
# PRIME_SESSIONS_PART_TEXT sets it (the tests make parts of a few entries, also in worker processes).
PART_TEXT = 16 * 1024 * 1024


def part_text() -> int:
    """Characters of text per :class:`Part`: ``$PRIME_SESSIONS_PART_TEXT``, else :data:`PART_TEXT`."""
    try:
        return max(1, int(os.environ["PRIME_SESSIONS_PART_TEXT"]))
    except (KeyError, ValueError):
        return PART_TEXT


PATH_COLUMNS = frozenset({"parent_session"})
"""The columns of :data:`FILE_COLUMNS` whose values are :func:`stored_path` bytes, taken as text."""

FILE_COLUMNS = (
    "dev, ino, size, mtime_ns, mtime_ms, read_end, line_no, unterminated, head, tail, header, version,"
    " session_id, cwd, name, parent_session, created_ms, modified_ms, last_activity_ms, message_count,"
    " first_message, entry_count, models, total_tokens, cost, leaf_id, last_stop, problems, diagnostics"
)


def read_whole(
    path: str,
    st: os.stat_result,
    handed: set[int] | None = None,
    on_part: Callable[[Part], None] | None = None,
    snapshots: str | None = None,
) -> WholeRead:
    """Read one session file whole into catalogue rows.

    Args:
        path: the file.
        st: its stat, taken by the pass (the identity the catalogue records).
        handed: keys whose texts this reader handed over before; their texts are left out of the
            result, and the new ones are added. None: every text is included.
        on_part: given, the rows and texts are handed to it in :class:`Part` s whenever ``part_text``
            characters of text have gathered, and the result holds only the rest. Memory then follows
            the number of entries, not the bytes of text (:func:`part_text` characters per part).
        snapshots: the catalogue's folder, given when this read runs in a reader process: a file of
            :func:`~core.catalogue.snapshots.min_bytes` or more then also gets its snapshot there, which
            reopening it in the window loads instead of parsing it again.

    Raises:
        SessionReadError: the file cannot be read at all.
        OSError: the guards cannot be read.
    """
    docs: dict[int, Doc] = {}  # by line, of the entries not handed over yet
    pending: list[Entry] = []  # the entries not handed over yet
    gathered = 0  # characters of text in docs
    handed_up_to = 0  # the last line handed over in a part
    collector = UsageCollector()
    touched = TouchCollector()
    limit = part_text()

    def observe(entry: Entry, obj: JsonObject) -> None:
        nonlocal gathered, handed_up_to
        doc = entry_doc(entry, obj)
        pending.append(entry)
        if doc is not None:
            docs[entry.line] = doc
            gathered += len(doc.text)
        collector.add(entry, obj)
        touched.add(entry, obj)
        if on_part is not None and gathered >= limit:
            rows, texts = entry_rows(pending, docs, frozenset())
            on_part(Part(path, rows, _unhanded(texts, handed), entry.offset + entry.length))
            handed_up_to = entry.line
            pending.clear()
            docs.clear()
            gathered = 0

    if snapshots is not None and st.st_size >= _snapshot_min():
        _save_snapshot(snapshots, path)
    session = Session(path, checksum=False, observer=observe)
    usage = collector.finish(keep_empty=True)
    summary = summarize(session, st.st_mtime_ns / 1e6)
    diagnostics: list[StoredNote] = [(d.line, d.kind, d.message) for d in session.diagnostics]
    # Usage figures too large to add up, in the places the index does not read (tool results, ...).
    noted = set(diagnostics)
    extra = [(line, "invalid-field", unusable_note(figure)) for line, figure in collector.unusable.items()]
    extra = [note for note in extra if note not in noted]
    if extra:
        diagnostics = sorted(diagnostics + extra, key=lambda note: note[0])
        summary = replace(summary, problems=summary.problems + len(extra))
    head, tail = guards(path, session.size)
    # id -> parent, the later line winning for a repeated id, as in Session.by_id
    parents = {entry.id: entry.parent_id for entry in session.entries}
    on_path = set(walk_up(parents, session.leaf_id))
    entries, texts = entry_rows(pending, docs, on_path)
    texts = _unhanded(texts, handed)
    path_lines = _runs(e.line for e in session.entries if e.line <= handed_up_to and e.id in on_path)
    files: tuple[object, ...] = (
        st.st_dev,
        st.st_ino,
        st.st_size,
        st.st_mtime_ns,
        st.st_mtime_ns / 1e6,
        session.size,
        session.line_count,
        0 if session.ends_with_newline else 1,
        head,
        tail,
        json_text(session.header) if session.header is not None else None,
        session.version,
        clean_text(summary.id),
        clean_text(summary.cwd),
        clean_text(summary.name),
        stored_path(summary.parentSessionPath),
        session.created_ms,
        js_date_ms(summary.modified),
        session.last_activity_ms,
        summary.messageCount,
        stored_text(session.first_message),
        summary.entryCount,
        json_text(summary.models),
        summary.totalTokens,
        summary.cost,
        clean_text(summary.leafId),
        clean_text(summary.lastStopReason),
        summary.problems,
        json_text(diagnostics),
    )
    files = tuple(map(storable, files))
    overrides = [(target, *usage_totals(usage)) for target, usage in session.usage_overrides.items()]
    return WholeRead(
        path,
        session.size,
        files,
        entries,
        overrides,
        texts,
        usage_db_rows(usage + collector.attributions, on_path),
        path_lines,
        touched.rows(summary.cwd),
    )


def _snapshot_min() -> int:
    from core.catalogue.snapshots import min_bytes  # imported when asked: the CLI imports this module

    return min_bytes()


def _save_snapshot(folder: str, path: str) -> None:
    """Write the snapshot of ``path``: its session and default tree structure, as the window's load has them.

    A read of its own, not the catalogue's: an observed read folds deep values as it goes and parses huge
    lines whole, so its index differs from the window's in what it notes. It costs a second parse of a big
    file, in a reader process (benchmarks/README.md, "Reopening a gigabyte session").
    """
    from core.catalogue.snapshots import write_snapshot
    from core.errors import SessionReadError
    from core.session import load_session
    from core.visible.structure import prepare

    try:
        session = load_session(path)
        write_snapshot(folder, session, prepare(session))
    except (SessionReadError, OSError, ValueError):
        pass  # a cache: without it, reopening parses the file as before


def _unhanded(texts: dict[int, str], handed: set[int] | None) -> dict[int, str]:
    """``texts`` without those handed over before (recorded in ``handed`` from now on)."""
    if handed is None:
        return texts
    texts = {key: text for key, text in texts.items() if key not in handed}
    handed.update(texts)
    return texts


def _runs(lines: Iterable[int]) -> list[tuple[int, int]]:
    """Ascending line numbers as ``(first, last)`` runs of consecutive lines."""
    runs: list[tuple[int, int]] = []
    for line in lines:
        if runs and runs[-1][1] == line - 1:
            runs[-1] = (runs[-1][0], line)
        else:
            runs.append((line, line))
    return runs
