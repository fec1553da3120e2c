"""Snapshots of big sessions' indexes beside the catalogue: reopening a gigabyte session skips its parse.

A whole read of a session file of :func:`min_bytes` or more (in a catalogue reader process) also writes what
the window's load would compute from it: the session's index (every entry, the lookups, labels, name,
diagnostics, the checksum of the bytes read), the branch tree's visible structure and the transcript to the
leaf, both in the default filter mode. Reopening it then loads that in well under the parse's time (figures in
benchmarks/README.md, "Reopening a gigabyte session") and reads only what was appended since, exactly as a
live session's :meth:`~core.session.session.Session.refresh` does.

A snapshot is a cache and is never trusted beyond what it can prove: it is used only when its format
version, the app's version, Python's, the file's path, device and inode match, the file is not shorter than
what was read, its first and last 4 KiB read are unchanged, and (when nothing was appended) its modification
time is the one recorded. Anything else, a damaged snapshot included, means None: the caller reads the file.
The payload is a pickle read by an unpickler that only makes the few classes an index holds, and the
entries are stored as columns (rebuilding 520,000 entries from columns takes a seventh of unpickling them
one by one).
"""

from __future__ import annotations

import functools
import hashlib
import importlib
import io
import json
import os
import pickle
import struct
import sys
import time
import zlib
from itertools import islice
from pathlib import Path
from typing import IO, NamedTuple

from core.catalogue.code_digest import code_fingerprint
from core.catalogue.reading import guard_digests, guards
from core.collector import collection_paused
from core.errors import SessionReadError
from core.session import entry as entry_records
from core.session.diagnostics import Diagnostic
from core.session.entry import Entry
from core.session.session import Session
from core.session.tree import SessionTree
from core.visible.structure import TreeStructure
from core.visible.transcript import (
    Switch,
    keep_leaf_transcript,
    transcript_from_parts,
    transcript_of,
    transcript_parts,
)

__all__ = ["Restored", "min_bytes", "prune_snapshots", "read_snapshot", "snapshot_file", "write_snapshot"]

SNAPSHOT_VERSION = 1  # bump when what a snapshot holds changes meaning (the app's version is checked too)
MIN_BYTES = 64 * 1024 * 1024  # smaller files parse in under half a second: not worth the disk
FOLDER = "snapshots"  # inside the catalogue's folder
_MAGIC = b"prime-sessions snapshot\n"
_CODE_PACKAGES = ("core.session", "core.kinds", "core.visible")  # what makes the index and the structure
_LENGTH = struct.Struct("<Q")
_CRC = struct.Struct("<I")
_HEADER_LIMIT = 1 << 20  # bytes: a header says a few hundred
_PIECE = 20_000  # items per pickled piece: about 10 ms to unpickle, the interpreter lock free between pieces
_ABANDONED_AFTER = 3600  # seconds after which a temporary snapshot nobody renamed is deleted
_ENTRY_FIELDS = (  # the columns in the order of Entry's arguments; the last column holds the infos
    "id",
    "parent_id",
    "type",
    "kind",
    "timestamp",
    "line",
    "offset",
    "length",
    "role",
    "synthetic",
)
# What is not part of the index: the catalogue's observer (a closure), the child sessions (other files,
# which whoever lists them links: core.session.subagents.launches), parsed bodies kept for one export, the
# values derived from the whole session (Session.derived: made again when asked) and their lock, and how
# the read was shared between processes (Session.split: a restored session was not read so; and the
# reader's own choice of processes, a restored session's being load_session's: None).
_NOT_SAVED = frozenset(
    {"_observer", "child_sessions", "_kept", "_derived", "_derived_lock", "split", "_processes"}
)
# The only classes a snapshot may make: what an index holds, nothing that runs code. The index's records
# are the named tuples of core.session.entry (an entry's info), taken from there so a new one is allowed.
_CLASSES: dict[tuple[str, str], type] = {
    (cls.__module__, cls.__qualname__): cls
    for cls in (
        *(v for v in vars(entry_records).values() if isinstance(v, type) and issubclass(v, tuple)),
        Diagnostic,
        Switch,
    )
    if cls.__module__ in (entry_records.__name__, Diagnostic.__module__, Switch.__module__)
}


class Restored(NamedTuple):
    """A session brought back from its snapshot.

    Attributes:
        session: the session, as :func:`core.session.load_session` would read it now (appended lines read).
        structure: the branch tree's visible structure in the default mode, for this session as it is now;
            None when lines were appended since the snapshot (the caller prepares it again).
        appended: how many entries were read from lines appended since the snapshot.
    """

    session: Session
    structure: TreeStructure | None
    appended: int


def min_bytes() -> int:
    """The smallest session file that gets a snapshot: ``$PRIME_SESSIONS_SNAPSHOT_MIN`` bytes, else 64 MiB."""
    try:
        return max(0, int(os.environ["PRIME_SESSIONS_SNAPSHOT_MIN"]))
    except (KeyError, ValueError):
        return MIN_BYTES


def snapshot_file(catalogue_folder: str | os.PathLike[str], path: str) -> Path:
    """Where the snapshot of the session file ``path`` (absolute) lives in ``catalogue_folder``."""
    digest = hashlib.sha256(os.fsencode(path)).hexdigest()[:40]
    return Path(catalogue_folder) / FOLDER / f"{digest}.snapshot"


@functools.cache
def _identity() -> tuple[int, str, str]:
    """The snapshot format, Python's version and a fingerprint of the code that makes an index."""
    return SNAPSHOT_VERSION, sys.version.split()[0], code_fingerprint(_CODE_PACKAGES)


def write_snapshot(
    catalogue_folder: str | os.PathLike[str], session: Session, structure: TreeStructure
) -> Path:
    """Save ``session`` (read with its checksum, as a load reads it) and its default-mode ``structure``.

    Written under a temporary name in the snapshots folder and renamed over the old snapshot: it is the
    catalogue's own cache, and a reader sees a whole snapshot or the previous one.

    Raises:
        OSError: the snapshot cannot be written (the caller goes on without it).
        ValueError: ``session`` was read without its checksum, ``structure`` is not its own, the file was
            replaced or shortened since (the next pass reads it again), or the session holds a value nested
            too deep to pickle.
    """
    if session._crc is None or structure.session is not session or structure.mode != "default":
        raise ValueError("a snapshot needs a session read with its checksum and its default structure")
    st = os.stat(session.path)
    # Bytes beyond what was read (a line not finished, or appended since) are read when it is reopened.
    if session._identity != (st.st_dev, st.st_ino) or st.st_size < session._read_end:
        raise ValueError("the file was replaced or shortened while it was read")
    entries = session.entries
    head, tail = guard_digests(session._head, session._tail)  # of what was read, as a pass compares them
    header = {
        "identity": list(_identity()),
        "path": os.fsencode(session.path).hex(),
        "dev": st.st_dev,
        "ino": st.st_ino,
        "mtime_ns": st.st_mtime_ns,
        "read_end": session._read_end,
        "head": head.hex(),
        "tail": tail.hex(),
        "entries": len(entries),
    }
    state = {key: value for key, value in vars(session).items() if key not in _NOT_SAVED}
    del state["entries"], state["by_id"]  # by_id is rebuilt: quicker than unpickled
    shape = {name: getattr(structure, name) for name in TreeStructure.__slots__ if name != "session"}
    reading = transcript_parts(transcript_of(session, None, "default"))
    columns = [[getattr(entry, name) for entry in entries] for name in _ENTRY_FIELDS]
    columns.append([entry.info for entry in entries])
    target = snapshot_file(catalogue_folder, session.path)
    target.parent.mkdir(parents=True, exist_ok=True)
    temporary = target.with_name(f".{target.name}.{os.getpid()}.tmp")
    try:
        with open(temporary, "wb") as raw:
            handed = json.dumps(header).encode()
            raw.write(_MAGIC + _LENGTH.pack(len(handed)) + handed)
            handle = _Digesting(raw)
            # One pickler for everything, so the strings of the columns (ids above all) are the state's too.
            pickler = _Pickler(handle, {id(entry): n for n, entry in enumerate(entries)})
            for column in columns:
                for start in range(0, len(column), _PIECE):
                    pickler.dump(column[start : start + _PIECE])
            for part in (state, shape, reading):
                pickler.dump(list(part))
                for value in part.values():
                    _dump_value(pickler, value)
            raw.write(_CRC.pack(handle.crc))  # what was pickled, checked before a reader trusts it
        os.replace(temporary, target)
    except RecursionError:
        # A value the index keeps as written (a timestamp) nested deeper than pickle recurses: no snapshot.
        raise ValueError("the session holds a value nested too deep for a snapshot") from None
    except (TypeError, pickle.PicklingError) as err:
        # Something in the index that is not plain data (a new attribute someone added): no snapshot, and a
        # test says so (tests/core/test_snapshots.py) before a user's catalogue pass would.
        raise ValueError(f"the session holds what a snapshot cannot: {err}") from None
    finally:
        temporary.unlink(missing_ok=True)
    return target


def _dump_value(pickler: _Pickler, value: object) -> None:
    """Pickle ``value``, in pieces of :data:`_PIECE` items when it is a big container (:func:`_load_value`).

    Each piece is one call into the unpickler, between which the interpreter lock passes to other
    threads: unpickled whole, a 1 GB session's index held it for a second, and the window with it.
    A :class:`SessionTree` is pickled attribute by attribute, the same way.
    """
    if isinstance(value, SessionTree):
        names = list(vars(value))
        pickler.dump(("tree", names))
        for name in names:
            _dump_value(pickler, getattr(value, name))
        return
    if type(value) in (dict, list, set) and len(value) > _PIECE:  # type: ignore[arg-type]
        container: dict[object, object] | list[object] | set[object] = value  # type: ignore[assignment]
        pickler.dump((type(value).__name__, len(container)))
        if isinstance(container, dict):  # keys and values apart: a dict made of each piece cost a third more
            keys, values = iter(container), iter(container.values())
            for _ in range(0, len(container), _PIECE):
                pickler.dump((list(islice(keys, _PIECE)), list(islice(values, _PIECE))))
            return
        items = iter(container)
        for _ in range(0, len(container), _PIECE):
            pickler.dump(list(islice(items, _PIECE)))
        return
    pickler.dump(("one", value))


def _load_value(unpickler: _Unpickler) -> object:
    """One value written by :func:`_dump_value`."""
    kind, detail = unpickler.load()
    if kind == "one":
        return detail
    if kind == "tree":
        tree = SessionTree.__new__(SessionTree)
        for name in detail:
            setattr(tree, name, _load_value(unpickler))
        return tree
    pieces = -(-detail // _PIECE)
    if kind == "dict":
        made: dict[object, object] = {}
        for _ in range(pieces):
            keys, values = unpickler.load()
            made.update(zip(keys, values, strict=True))
        return made
    items: list[object] = []
    for _ in range(pieces):
        items.extend(unpickler.load())
    if kind == "list":
        return items
    if kind == "set":
        return set(items)
    raise ValueError(f"a snapshot holds an unknown record {kind!r}")


def _load_column(unpickler: _Unpickler, count: int) -> list[object]:
    column: list[object] = []
    for _ in range(-(-count // _PIECE)):
        column.extend(unpickler.load())
    if len(column) != count:
        raise ValueError("a snapshot's column is not as long as it says")
    return column


class _Digesting:
    """A file the pickle goes through, adding up the CRC-32 of every byte written or read.

    The unpickler reads protocol 5's frames (64 KB) whole, so this costs a call per frame.
    """

    def __init__(self, handle: IO[bytes]) -> None:
        self._handle = handle
        self.crc = 0

    def write(self, data: bytes) -> int:
        self.crc = zlib.crc32(data, self.crc)
        return self._handle.write(data)

    def read(self, size: int = -1) -> bytes:
        data = self._handle.read(size)
        self.crc = zlib.crc32(data, self.crc)
        return data

    def readline(self) -> bytes:
        data = self._handle.readline()
        self.crc = zlib.crc32(data, self.crc)
        return data


class _Pickler(pickle.Pickler):
    """Pickles entries as their position in the columns, so each is stored once and made once."""

    def __init__(self, handle: _Digesting, positions: dict[int, int]) -> None:
        super().__init__(handle, protocol=5)
        self._positions = positions

    def persistent_id(self, obj: object) -> int | None:
        return self._positions.get(id(obj)) if type(obj) is Entry else None


class _Unpickler(pickle.Unpickler):
    """Makes only the classes an index holds (:data:`_CLASSES`); entries come from the columns.

    Its ``persistent_load`` is set to the rebuilt entries' ``__getitem__`` once the columns are read.
    """

    def find_class(self, module: str, name: str) -> type:
        cls = _CLASSES.get((module, name)) or _session_record(module, name)
        if cls is None:
            raise pickle.UnpicklingError(f"a snapshot may not hold {module}.{name}")
        return cls


def _session_record(module: str, name: str) -> type | None:
    """A named tuple of a ``core.session`` module (plain values, made by ``tuple.__new__``), else None."""
    if not module.startswith("core.session.") or "." in name:
        return None
    try:
        candidate = getattr(importlib.import_module(module), name, None)
    except ImportError:
        return None
    if isinstance(candidate, type) and issubclass(candidate, tuple) and hasattr(candidate, "_fields"):
        return candidate if candidate.__module__ == module else None
    return None


def _read_header(handle: IO[bytes]) -> dict[str, object] | None:
    if handle.read(len(_MAGIC)) != _MAGIC:
        return None
    size = handle.read(_LENGTH.size)
    if len(size) != _LENGTH.size:
        return None
    length = _LENGTH.unpack(size)[0]
    if length > _HEADER_LIMIT:
        return None
    header = json.loads(handle.read(length))  # not marshal: it is not meant for data it did not write
    if not isinstance(header, dict):
        return None
    try:  # what JSON cannot hold as it is
        for name in ("path", "head", "tail"):
            header[name] = bytes.fromhex(header[name])
        header["path"] = os.fsdecode(header["path"])
        header["identity"] = tuple(header["identity"])
    except (KeyError, TypeError, ValueError):
        return None
    return header


def _still_there(header: dict[str, object], path: str) -> bool:
    """Whether the file still starts with what the snapshot read: same inode, not shorter, same guards."""
    if header.get("identity") != _identity() or header.get("path") != path:
        return False
    head, tail, read_end = header.get("head"), header.get("tail"), header.get("read_end")
    if not isinstance(head, bytes) or not isinstance(tail, bytes) or not isinstance(read_end, int):
        return False
    try:
        st = os.stat(path)
        if (st.st_dev, st.st_ino) != (header.get("dev"), header.get("ino")) or st.st_size < read_end:
            return False
        if st.st_size == read_end and st.st_mtime_ns != header.get("mtime_ns"):
            return False  # the same size, written since: an edit in place, which the guards may not see
        return guards(path, read_end) == (head, tail)
    except OSError:
        return False


def read_snapshot(catalogue_folder: str | os.PathLike[str], path: str) -> Restored | None:
    """The session at ``path`` (absolute) from its snapshot, or None when there is none that can be trusted.

    Lines appended since the snapshot are read as :meth:`Session.refresh` reads them; a file replaced,
    shortened or changed in what was read gives None (so does any damage to the snapshot itself).
    """
    try:
        with open(snapshot_file(catalogue_folder, path), "rb") as raw:
            buffered = io.BufferedReader(raw, 1 << 20)
            header = _read_header(buffered)
            if header is None or not _still_there(header, path):
                return None
            handle = _Digesting(buffered)
            with collection_paused():  # a million new objects, none of them garbage
                count = header.get("entries")
                if not isinstance(count, int):
                    return None
                unpickler = _Unpickler(handle)
                columns = [_load_column(unpickler, count) for _ in range(len(_ENTRY_FIELDS) + 1)]
                entries = list(map(Entry, *columns))
                del columns
                unpickler.persistent_load = entries.__getitem__  # type: ignore[method-assign]
                state = {name: _load_value(unpickler) for name in unpickler.load()}
                shape = {name: _load_value(unpickler) for name in unpickler.load()}
                reading = {name: _load_value(unpickler) for name in unpickler.load()}
            if buffered.read(_CRC.size + 1) != _CRC.pack(handle.crc):
                return None  # damaged (or cut short) since it was written
    except (
        OSError,
        EOFError,
        ValueError,
        TypeError,
        IndexError,
        AttributeError,
        pickle.UnpicklingError,
        MemoryError,
    ):
        return None
    session = Session.__new__(Session)
    vars(session).update(state)
    session.entries = entries
    session.by_id = {entry.id: entry for entry in entries}  # the later of a repeated id wins, as when read
    session._observer = None
    session._kept = None
    session._processes = None  # appended bytes are read as a session load_session opened reads them
    session.child_sessions = {}
    structure = TreeStructure.__new__(TreeStructure)
    for name, value in shape.items():
        setattr(structure, name, value)
    structure.session = session
    keep_leaf_transcript(session, transcript_from_parts(reading, session))
    try:
        result = session.refresh()
    except SessionReadError:  # the file went away since the checks: the caller reads it, or says why
        return None
    if result.reloaded:
        return Restored(session, None, len(session.entries))
    return Restored(session, None if result.appended else structure, len(result.appended))


def prune_snapshots(catalogue_folder: str | os.PathLike[str]) -> int:
    """Delete the snapshots of files that no longer exist (and half-written ones); how many were deleted."""
    folder = Path(catalogue_folder) / FOLDER
    removed = 0
    try:
        names = list(folder.iterdir())
    except OSError:
        return 0
    for name in names:
        try:
            if name.name.startswith("."):
                # a temporary: being written now by another process, or left by a reader that was killed
                gone = time.time() - name.stat().st_mtime > _ABANDONED_AFTER
            else:
                with open(name, "rb") as handle:
                    header = _read_header(handle)
                target = header.get("path") if header is not None else None
                gone = not isinstance(target, str) or not os.path.exists(target)
            if gone:
                name.unlink()
                removed += 1
        except (OSError, ValueError, EOFError):
            continue
    return removed
