"""Snapshots of big sessions (issue 27): the snapshot route and the file route give the same session.

Every test compares the whole state: each entry's fields, the lookups, labels, name, diagnostics, the
checksum and guards, core's tree, and the branch tree's visible structure with its previews. A snapshot
that cannot prove the file is what it read (replaced, shortened, edited, from other code or another
machine, damaged) is never used.
"""

from __future__ import annotations

import os
import pickle
import shutil
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from core.catalogue import Catalogue
from core.catalogue import snapshots as snapshots_module
from core.catalogue.snapshots import prune_snapshots, read_snapshot, snapshot_file, write_snapshot
from core.kinds.notes import session_notes
from core.session import Session, load_session
from core.session.entry import Entry
from core.session.tree import SessionTree
from core.visible import transcript as transcript_module
from core.visible.structure import TreeStructure, prepare
from core.visible.transcript import Transcript, transcript_of
from tests.conftest import CORPUS, DEMO, SAMPLES, SHARED
from tests.core.hostile_sessions import FIELDS, nested, session_bytes
from tests.core.test_reading_properties import session_bytes as generated_session

FILES = sorted(
    [
        *SAMPLES.rglob("*.jsonl"),
        *(SHARED / "reference" / "samples-latest").rglob("*.jsonl"),
        *CORPUS.glob("*.jsonl"),
        *(SHARED / "corpus" / "wild").glob("*.jsonl"),
        *DEMO.glob("*.jsonl"),
        *(Path(__file__).parent / "kind_samples").glob("*.jsonl"),
    ]
)
RAWS = (nested(1000), b"9223372036854775808", b"1.5e308", b'"\\ud800"', b"null", b'"' + b"x" * 100_000 + b'"')
HOSTILE = [(field, raw) for field in FIELDS for raw in RAWS]  # every place a hostile value can go, each value


def _plain(value: object) -> object:
    """``value`` with every core object replaced by its fields, for a comparison that says what differs."""
    if isinstance(value, Entry):
        return ("Entry", *(getattr(value, name) for name in Entry.__slots__))
    if isinstance(value, dict):
        return {key: _plain(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_plain(item) for item in value]
    if isinstance(value, TreeStructure):
        return {name: _plain(getattr(value, name)) for name in TreeStructure.__slots__ if name != "session"}
    if isinstance(value, SessionTree):  # its walk order is made when asked: compare the order itself
        fields = {name: item for name, item in vars(value).items() if name != "_order"}
        return {**{name: _plain(item) for name, item in fields.items()}, "order": value.order}
    return value


def _reading(transcript: Transcript) -> tuple[object, ...]:
    ids = [entry.id for entry in transcript.entries]
    slots = [transcript.slot_of(entry_id) for entry_id in ids] + [
        transcript.nearest_slot(i) for i in transcript.hidden_before
    ]
    return (
        ids,
        transcript.leaf_id,
        transcript.switches,
        transcript.hidden_before,
        transcript.hidden_last,
        slots,
    )


def _state(session: Session) -> dict[str, object]:
    session.tree  # noqa: B018 (made when asked: both routes made it)
    session.diagnostics  # noqa: B018
    session.resolved_overrides()  # a cache either route may not have filled yet
    caches = {"_observer", "_derived", "_derived_lock"}  # values made again when asked, and their lock
    state = {key: value for key, value in vars(session).items() if key not in caches}
    state["entries_in_order_of_by_id"] = list(session.by_id)
    return _plain(state)  # type: ignore[return-value]


def _fresh(path: Path) -> tuple[dict[str, object], object]:
    session = load_session(path)
    structure = _plain(prepare(session))  # first, as the snapshot's writer did: it fills caches
    return _state(session), structure


def _snapshot(folder: Path, path: Path) -> None:
    session = load_session(path)
    session_notes(session)  # a value derived and kept on the session (and its lock): not saved
    write_snapshot(folder, session, prepare(session))


def _agree(folder: Path, path: Path, *, appended: bool = False) -> None:
    restored = read_snapshot(folder, str(path))
    assert restored is not None, "the snapshot was not used"
    state, structure = _fresh(path)
    assert _state(restored.session) == state
    # The transcript to the leaf came with it (or was extended by the lines appended): as if walked.
    kept = transcript_module._LEAF_TRANSCRIPTS.get(restored.session)
    walked = transcript_module._made(restored.session, restored.session.leaf_id, "default")
    if walked.leaf_id is not None and walked.leaf_id == restored.session.leaf_id:
        assert kept is not None
        assert _reading(transcript_of(restored.session, None, "default")) == _reading(walked)
    if appended:
        assert restored.structure is None  # made again by the caller: the file grew
    else:
        assert restored.structure is not None
        assert _plain(restored.structure) == structure
        assert restored.structure.matches(restored.session, "default")


@pytest.mark.parametrize("path", FILES, ids=[f"{p.parent.name}/{p.name}" for p in FILES])
def test_both_routes_agree_on_every_sample_and_corpus_file(tmp_path: Path, path: Path) -> None:
    copy = tmp_path / path.name
    shutil.copyfile(path, copy)
    _snapshot(tmp_path / "catalogue", copy)
    _agree(tmp_path / "catalogue", copy)


@pytest.mark.parametrize(("field", "raw"), HOSTILE, ids=[f"{f}={r[:12]!r}" for f, r in HOSTILE])
def test_both_routes_agree_on_hostile_values(tmp_path: Path, field: str, raw: bytes) -> None:
    path = tmp_path / "hostile.jsonl"
    path.write_bytes(session_bytes(field, raw))
    try:
        _snapshot(tmp_path / "catalogue", path)
    except ValueError:
        # A value nested 1,000 deep that the index keeps as written (a timestamp, a label's target) is
        # deeper than pickle goes: no snapshot, the file is read (and nothing half-written is left behind).
        assert raw == RAWS[0]
        assert read_snapshot(tmp_path / "catalogue", str(path)) is None
        assert not any((tmp_path / "catalogue" / "snapshots").iterdir())
        return
    _agree(tmp_path / "catalogue", path)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=generated_session(), more=generated_session())
@example(
    data=b'{"type":"session","version":3,"id":"s"}\n{"type":"message","id":"a","parentId":"a"}\n', more=b""
)
def test_both_routes_agree_on_generated_files_and_appends(tmp_path: Path, data: bytes, more: bytes) -> None:
    folder = tmp_path / "catalogue"
    shutil.rmtree(folder, ignore_errors=True)
    path = tmp_path / "generated.jsonl"
    path.write_bytes(data)
    _snapshot(folder, path)
    _agree(folder, path)
    # Lines appended since (a torn first line of them included) are read as a refresh reads them.
    with open(path, "ab") as handle:
        handle.write(more)
    if read_snapshot(folder, str(path)) is not None:  # None: the append rewrote an unterminated line
        restored = read_snapshot(folder, str(path))
        assert restored is not None
        fresh, _structure = _fresh(path)
        assert _state(restored.session) == fresh


def _linear(tmp_path: Path) -> tuple[Path, Path]:
    path = tmp_path / "session.jsonl"
    shutil.copyfile(next(p for p in FILES if p.stat().st_size > 20_000), path)
    folder = tmp_path / "catalogue"
    _snapshot(folder, path)
    return folder, path


def test_appended_lines_are_read_and_a_partial_one_waits(tmp_path: Path) -> None:
    folder, path = _linear(tmp_path)
    lines = path.read_bytes().splitlines(keepends=True)
    with open(path, "ab") as handle:
        handle.write(lines[-1].replace(b'"id":"', b'"id":"x', 1) + lines[-1][:20])
    restored = read_snapshot(folder, str(path))
    assert restored is not None and restored.appended == 1
    assert _state(restored.session) == _fresh(path)[0]
    assert restored.session._tail_diagnostic is not None or restored.session._read_end < path.stat().st_size


@pytest.mark.parametrize(
    "change", ["truncated", "replaced", "edited in place", "head changed", "cut and grown again", "deleted"]
)
def test_a_file_changed_in_what_was_read_is_never_trusted(tmp_path: Path, change: str) -> None:
    folder, path = _linear(tmp_path)
    data = path.read_bytes()
    stat = path.stat()
    if change == "truncated":
        path.write_bytes(data[: len(data) // 2])
    elif change == "replaced":  # the same bytes in another file (an editor's save): another inode
        (tmp_path / "new").write_bytes(data)
        os.replace(tmp_path / "new", path)
    elif change == "edited in place":  # the same size and guards, a byte changed in the middle
        middle = len(data) // 2
        changed = b"Y" if data[middle : middle + 1] != b"Y" else b"Z"
        path.write_bytes(data[:middle] + changed + data[middle + 1 :])
        os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000_000))
    elif change == "head changed":
        with open(path, "r+b") as handle:
            handle.write(b"[")
    elif change == "cut and grown again":
        path.write_bytes(data[:-200] + b"x" * 400 + b"\n")
    else:
        path.unlink()
    assert read_snapshot(folder, str(path)) is None


def test_a_snapshot_of_other_code_or_of_another_machine_is_not_used(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder, path = _linear(tmp_path)
    # Another path's snapshot under this path's name (a catalogue folder copied from elsewhere).
    other = tmp_path / "other.jsonl"
    shutil.copyfile(path, other)
    shutil.copyfile(snapshot_file(folder, str(path)), snapshot_file(folder, str(other)))
    assert read_snapshot(folder, str(other)) is None
    # Other code: another app's, Python's or this tree's before an edit.
    real = snapshots_module._identity()
    monkeypatch.setattr(snapshots_module, "_identity", lambda: (real[0], real[1], "0" * 32))
    assert read_snapshot(folder, str(path)) is None
    monkeypatch.setattr(snapshots_module, "_identity", lambda: (real[0] + 1, real[1], real[2]))
    assert read_snapshot(folder, str(path)) is None
    monkeypatch.setattr(snapshots_module, "_identity", lambda: real)
    assert read_snapshot(folder, str(path)) is not None


def test_the_code_fingerprint_covers_every_module_of_the_index() -> None:
    # Every module of the packages that make an index and its structure is in the fingerprint, so an edit
    # to any of them makes older snapshots stale; this names them to show nothing is left out.
    import pkgutil

    import core.kinds
    import core.session
    import core.visible

    for package in (core.session, core.kinds, core.visible):
        on_disk = {p.stem for p in Path(package.__path__[0]).glob("*.py")} - {"__init__"}
        assert {info.name for info in pkgutil.iter_modules(package.__path__)} >= on_disk
    assert snapshots_module._CODE_PACKAGES == ("core.session", "core.kinds", "core.visible")


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(cut=st.floats(0, 1), flip=st.one_of(st.none(), st.floats(0, 1)))
def test_a_damaged_snapshot_is_never_used(tmp_path: Path, cut: float, flip: float | None) -> None:
    folder = tmp_path / "catalogue"
    path = tmp_path / "session.jsonl"
    if not path.exists():
        shutil.copyfile(FILES[0], path)
        _snapshot(folder, path)
        (tmp_path / "good").write_bytes(snapshot_file(folder, str(path)).read_bytes())
    good = (tmp_path / "good").read_bytes()
    if flip is None:
        damaged = good[: int(cut * (len(good) - 1))]  # cut short
    else:
        at = int(flip * (len(good) - 1))
        damaged = good[:at] + bytes([good[at] ^ 0x5A]) + good[at + 1 :]
    snapshot_file(folder, str(path)).write_bytes(damaged)
    restored = read_snapshot(folder, str(path))
    if restored is not None:  # a flip in the header's guards, or in bytes nothing reads: the same session
        assert _state(restored.session) == _fresh(path)[0]


def test_a_snapshot_makes_no_object_but_an_index(tmp_path: Path) -> None:
    folder, path = _linear(tmp_path)
    snapshot = snapshot_file(folder, str(path))
    data = snapshot.read_bytes()
    magic = len(snapshots_module._MAGIC)
    header_end = magic + 8 + int.from_bytes(data[magic : magic + 8], "little")

    class Boom:
        def __reduce__(self) -> tuple[object, tuple[str]]:
            return (os.system, ("touch " + str(tmp_path / "ran"),))

    snapshot.write_bytes(data[:header_end] + pickle.dumps([Boom()], protocol=5))
    assert read_snapshot(folder, str(path)) is None
    assert not (tmp_path / "ran").exists()


def test_the_catalogue_writes_snapshots_in_its_readers_and_prunes_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = tmp_path / "sessions"
    root.mkdir()
    small, big = (root / "small.jsonl"), (root / "big.jsonl")
    shutil.copyfile(FILES[0], small)
    shutil.copyfile(max(FILES, key=lambda p: p.stat().st_size), big)
    monkeypatch.setenv("PRIME_SESSIONS_SNAPSHOT_MIN", str(big.stat().st_size))
    monkeypatch.setenv("PRIME_SESSIONS_READERS", "0")  # in process: never a snapshot (it would hold the GIL)
    Catalogue(tmp_path / "in-process").refresh([root])
    assert not (tmp_path / "in-process" / "snapshots").exists()
    monkeypatch.setenv("PRIME_SESSIONS_READERS", "1")
    folder = tmp_path / "catalogue"
    Catalogue(folder).refresh([root])
    assert not snapshot_file(folder, str(small)).exists()  # under the size
    assert snapshot_file(folder, str(big)).exists()
    _agree(folder, big)
    big.unlink()
    Catalogue(folder).refresh([root])
    assert not snapshot_file(folder, str(big)).exists()
    assert prune_snapshots(folder) == 0


def test_a_session_read_split_across_processes_gives_the_same_snapshot(tmp_path: Path) -> None:
    # From 64 MiB a file is read by this process and workers together (core.session.parallel): what that
    # read leaves on the session (how it was shared) is not saved, and the rest is the one-process read's.
    from tests.core.test_parallel_parse import split_in_process

    path = tmp_path / "split.jsonl"
    version_2_up = [p for p in FILES if load_session(p).version >= 2]  # a v1 file is read in one process
    shutil.copyfile(max(version_2_up, key=lambda p: p.stat().st_size), path)
    with split_in_process(4096):
        session = load_session(path, processes=2)
    assert session.split is not None
    folder = tmp_path / "catalogue"
    write_snapshot(folder, session, prepare(session))
    _agree(folder, path)
    restored = read_snapshot(folder, str(path))
    assert restored is not None and restored.session.split is None
