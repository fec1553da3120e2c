"""The parse split across processes (core.session.parallel) gives exactly what one process gives.

Every comparison is of the whole reader: each entry's fields (and which parent ids share their parent's
string), the id index, every diagnostic with its line and sentence, labels, name, leaf, header, counts,
models, child usage, context edits, the flavour's marks, folded lines, the checksum and where reading
stopped, then the tree, its notes and the context. Parts are cut tiny (down to one line each) so that
cuts fall everywhere: inside runs of duplicates, between an entry and its label, before a torn tail.

Most comparisons run the workers' code in this process (:class:`_InProcess`: the same function, the
part pickled and unpickled as it comes from a worker), so hypothesis can try hundreds of files; the
tests at the end start real worker processes.
"""

from __future__ import annotations

import os
import pickle
import zlib
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import orjson
import pytest
from hypothesis import given
from hypothesis import strategies as st

from core import build_context
from core.session import Session, load_session, parallel, part_index
from core.session.framing import crc32_combine
from core.session.jsonl import encode_json
from tests.conftest import CORPUS, SAMPLES, SHARED
from tests.core.hostile_sessions import FIELDS, hostile_raw
from tests.core.hostile_sessions import session_bytes as hostile_bytes
from tests.core.test_reading_properties import PROPERTY, session_bytes

WILD = SHARED / "corpus" / "wild"
V1 = CORPUS / "large-session.jsonl"  # 974 KB, version 1
V3 = WILD / "real-kimchi-session.jsonl"  # 356 KB, version 3
FILES = sorted(
    [
        *SAMPLES.rglob("*.jsonl"),
        *(SHARED / "reference" / "samples-latest").rglob("*.jsonl"),
        *CORPUS.rglob("*.jsonl"),
        *WILD.rglob("*.jsonl"),
    ]
)


def full_state(session: Session) -> dict[str, object]:
    """Everything the reader holds after a load, and what the tree and the context make of it."""
    by_id = session.by_id
    return {
        "entries": [
            (
                e.id,
                e.parent_id,
                e.type,
                e.kind,
                e.timestamp,
                e.line,
                e.offset,
                e.length,
                e.role,
                e.synthetic,
                e.info,
            )
            for e in session.entries
        ],
        "shared parents": [
            e.parent_id is not None and e.parent_id is getattr(by_id.get(e.parent_id), "id", None)
            for e in session.entries
        ],
        "by_id": [(key, entry.line) for key, entry in by_id.items()],
        "diagnostics": [(d.line, d.kind, d.message, d.entry_id) for d in session._diagnostics],
        "all diagnostics": [(d.line, d.kind, d.message, d.entry_id) for d in session.diagnostics],
        "labels": list(session._labels.items()),
        "name": (session.name, session.name_seen),
        "leaf": session.leaf_id,
        "header": (session.header, session.header_line, session.title_slot, session.version),
        "counts": (
            session.message_count,
            session.first_message,
            session.last_activity_ms,
            list(session.models),
        ),
        "overrides": list(session._usage_overrides.items()),
        "context edits": [(k, [e.line for e in v]) for k, v in session._context_edits.items()],
        "marks": (session._prime_marked, session._pi1_marked, session.flavour),
        "lines": (sorted(session._folded_lines), sorted(session._shallow_lines)),
        "suspect": session._links_suspect,
        "read": (session._crc, session._line_no, session._read_end, session._unterminated),
        "tail": repr(session._tail_diagnostic),
        "order": session.tree.order,
        "context": encode_json(build_context(session)),
    }


class _InProcess:
    """The workers' code run in this process, each part through pickle as it comes from a worker."""

    cpu = 0.0

    def __init__(
        self,
        path: str,
        identity: tuple[int, int],
        shares: list[list[tuple[int, int, int]]],
        settings: tuple[int, bool, bool],
    ) -> None:
        self.path = path
        self.settings = settings
        self.tasks = {number: (start, end) for share in shares for number, start, end in share}

    def take(self, number: int) -> part_index.PartIndex | None:
        start, end = self.tasks.pop(number)
        fd = os.open(self.path, os.O_RDONLY)
        try:
            part = part_index.index_part(self.path, fd, start, end, *self.settings)
        except part_index.ReadItYourself:
            return None
        finally:
            os.close(fd)
        back = pickle.loads(pickle.dumps(part, protocol=pickle.HIGHEST_PROTOCOL))
        assert isinstance(back, part_index.PartIndex)
        return back

    def close(self) -> None:
        pass


@contextmanager
def split_in_process(part_bytes: int) -> Iterator[None]:
    """Reads split into parts of about ``part_bytes`` (1: every line a part), the workers run here."""
    saved = (parallel._Workers, parallel.PART_BYTES)
    parallel._Workers = _InProcess  # type: ignore[assignment, misc]
    parallel.PART_BYTES = part_bytes
    try:
        yield
    finally:
        parallel._Workers, parallel.PART_BYTES = saved  # type: ignore[misc]


def assert_split_equals_one(
    path: Path, part_bytes: int, *, fold_all: bool = True, workers: int = 2
) -> Session:
    one = load_session(path, processes=0, fold_all=fold_all)
    assert one.split is None
    with split_in_process(part_bytes):
        split = load_session(path, processes=workers, fold_all=fold_all)
    assert full_state(split) == full_state(one)
    return split


# ---------------------------------------------------------------------------- every sample and corpus file
def test_the_shared_files_are_there() -> None:
    assert len(FILES) > 40, FILES


@pytest.mark.parametrize("path", FILES, ids=lambda p: str(p.relative_to(SHARED)))
@pytest.mark.parametrize("part_bytes", [1, 700, 5000])
def test_every_shared_file_reads_the_same_split(path: Path, part_bytes: int) -> None:
    split = assert_split_equals_one(path, part_bytes)
    if part_bytes == 1 and split.split is not None:
        assert split.split.parts >= 2


def test_split_parts_really_come_from_workers() -> None:
    """On a file with ids everywhere every part but this process's own is a worker's."""
    path = V3
    for workers in (1, 2, 3):
        split = assert_split_equals_one(path, 2000, workers=workers)
        assert split.split is not None
        parts, by_workers = split.split.parts, split.split.by_workers
        assert split.split.workers == workers
        assert by_workers == parts - len(range(0, parts, parallel.own_stride(workers, parts))), split.split
        assert by_workers > 3


# ---------------------------------------------------------------------------- generated and hostile files
@PROPERTY
@given(data=session_bytes(), part_bytes=st.integers(1, 400), workers=st.sampled_from([1, 2, 3]))
def test_any_file_reads_the_same_split_anywhere(
    tmp_path: Path, data: bytes, part_bytes: int, workers: int
) -> None:
    path = tmp_path / "s.jsonl"
    path.write_bytes(data)
    assert_split_equals_one(path, part_bytes, workers=workers)
    assert_split_equals_one(path, part_bytes, fold_all=False, workers=workers)


@st.composite
def _ided_sessions(draw: st.DrawFn) -> bytes:
    """Files whose entries all have ids (so workers index every part), repeated ids and parents included."""
    header = {
        "type": "session",
        "version": 3,
        "id": "s",
        "timestamp": "2026-01-01T00:00:00.000Z",
        "cwd": "/w",
    }
    lines = [orjson.dumps(header)]
    ids = [f"e{n}" for n in range(8)]
    for number in range(draw(st.integers(0, 40))):
        kind = draw(
            st.sampled_from(["message", "label", "session_info", "context_edit", "model_change", "x"])
        )
        entry: dict[str, object] = {
            "type": kind,
            "id": draw(st.sampled_from(ids)),
            "parentId": draw(st.one_of(st.none(), st.sampled_from(ids), st.just(5))),
            "timestamp": draw(st.sampled_from(["2026-01-01T00:00:01.000Z", "bad", 7])),
        }
        if kind == "message":
            role = draw(st.sampled_from(["user", "assistant", "toolResult"]))
            entry["message"] = {
                "role": role,
                "content": f"m{number}",
                "model": draw(st.sampled_from(["a", "b"])),
            }
        elif kind == "label":
            entry.update(targetId=draw(st.sampled_from(ids)), label=draw(st.sampled_from(["L", "", None, 3])))
        elif kind == "session_info":
            entry["name"] = draw(st.sampled_from(["n", "", None, 4]))
        elif kind == "context_edit":
            entry.update(targetId=draw(st.sampled_from(ids)), replacement=None)
        elif kind == "model_change":
            entry.update(provider="p", modelId=draw(st.sampled_from(["m1", "m2"])))
        lines.append(orjson.dumps(entry))
        if draw(st.integers(0, 9)) == 0:
            lines.append(draw(st.sampled_from([b"", b"{", b"[1]", b"\xef\xbb\xbf{}", b'{"type":"session"}'])))
    tail = draw(st.sampled_from([b"\n", b"", b'\n{"type":"mess', b"\r\n"]))
    return b"\n".join(lines) + tail


@PROPERTY
@given(data=_ided_sessions(), part_bytes=st.integers(1, 300))
def test_files_with_ids_everywhere_read_the_same_split(tmp_path: Path, data: bytes, part_bytes: int) -> None:
    path = tmp_path / "s.jsonl"
    path.write_bytes(data)
    assert_split_equals_one(path, part_bytes)


@PROPERTY
@given(field=st.sampled_from(sorted(FIELDS)), raw=hostile_raw(), part_bytes=st.integers(1, 300))
def test_hostile_values_read_the_same_split(tmp_path: Path, field: str, raw: bytes, part_bytes: int) -> None:
    path = tmp_path / "hostile.jsonl"
    path.write_bytes(hostile_bytes(field, raw))
    assert_split_equals_one(path, part_bytes)


def test_a_huge_line_and_a_long_one_split(tmp_path: Path) -> None:
    """A line indexed from its skeleton and one longer than a read chunk, inside parts of their own."""
    header = {
        "type": "session",
        "version": 3,
        "id": "s",
        "timestamp": "2026-01-01T00:00:00.000Z",
        "cwd": "/w",
    }
    lines = [orjson.dumps(header)]
    parent = None
    for number in range(6):
        size = (17 << 20) if number == 2 else (5 << 20) if number == 4 else 10
        content = [{"type": "text", "text": "x" * 40}] * (size // 60) if number == 2 else "y" * size
        entry = {
            "type": "message",
            "id": f"e{number}",
            "parentId": parent,
            "timestamp": "2026-01-01T00:00:01Z",
        }
        entry["message"] = {"role": "user", "content": content}
        lines.append(orjson.dumps(entry))
        parent = f"e{number}"
    path = tmp_path / "big.jsonl"
    path.write_bytes(b"\n".join(lines) + b"\n")
    split = assert_split_equals_one(path, 1, fold_all=False)
    assert split.split is not None and split.split.by_workers >= 4


def test_a_version_1_file_is_read_in_one_process(tmp_path: Path) -> None:
    """Every entry of a version 1 file gets an id made from its line and the ids before it."""
    source = V1
    lines = source.read_bytes().split(b"\n")
    header = orjson.loads(lines[0])
    header.pop("version", None)
    path = tmp_path / "v1.jsonl"
    path.write_bytes(b"\n".join([orjson.dumps(header), *lines[1:]]))
    split = assert_split_equals_one(path, 1000)
    assert split.split is None


# ---------------------------------------------------------------------------- cuts and checksums
@given(data=st.binary(max_size=300), part_bytes=st.integers(1, 50), start=st.integers(0, 20))
def test_cuts_fall_just_after_newlines(
    tmp_path_factory: pytest.TempPathFactory, data: bytes, part_bytes: int, start: int
) -> None:
    data = data.replace(b"\r", b"\n")
    start = min(start, len(data))
    while start and data[start - 1 : start] != b"\n":
        start -= 1
    path = tmp_path_factory.mktemp("cuts") / "f"
    path.write_bytes(data)
    fd = os.open(path, os.O_RDONLY)
    try:
        cuts = parallel._cuts(fd, start, len(data), part_bytes)
    finally:
        os.close(fd)
    assert cuts[0] == start and cuts == sorted(set(cuts))
    assert all(data[cut - 1 : cut] == b"\n" for cut in cuts[1:])
    last = data.rfind(b"\n") + 1
    assert cuts[-1] == max(start, last)


@given(first=st.binary(max_size=3000), second=st.binary(max_size=3000), seed=st.integers(0, 2**32 - 1))
def test_crc32_combine_is_the_crc_of_the_joined_bytes(first: bytes, second: bytes, seed: int) -> None:
    before = zlib.crc32(first, seed)
    assert crc32_combine(before, zlib.crc32(second), len(second)) == zlib.crc32(second, before)


def test_small_files_one_processor_and_busy_processors_read_in_one_process(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("PRIME_SESSIONS_PARSERS", raising=False)
    monkeypatch.setattr(os, "getloadavg", lambda: (1.0, 1.0, 1.0))  # this process alone
    assert parallel.worker_count(parallel.MIN_BYTES - 1) == 0
    monkeypatch.setattr(parallel, "usable_processors", lambda: 1)
    assert parallel.worker_count(10 * parallel.MIN_BYTES) == 0
    monkeypatch.setattr(parallel, "usable_processors", lambda: 4)
    assert parallel.worker_count(parallel.MIN_BYTES) == 3  # this process reads its share too
    for load, workers in ((1.7, 3), (2.5, 2), (3.9, 1), (4.0, 0), (9.0, 0)):
        monkeypatch.setattr(os, "getloadavg", lambda load=load: (load, 1.0, 1.0))
        assert parallel.worker_count(parallel.MIN_BYTES) == workers, load
    monkeypatch.setattr(os, "getloadavg", lambda: (1.0, 1.0, 1.0))
    monkeypatch.setenv("PRIME_SESSIONS_PARSERS", "0")
    assert parallel.worker_count(10 * parallel.MIN_BYTES) == 0
    monkeypatch.setenv("PRIME_SESSIONS_PARSERS", "2")
    assert parallel.worker_count(1) == 2


def test_load_session_asks_workers_only_for_big_files(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("PRIME_SESSIONS_PARSERS", raising=False)
    asked: list[int] = []
    real = parallel.read_split

    def spy(*args: object) -> object:
        asked.append(args[-1])  # type: ignore[arg-type]
        return real(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(parallel, "read_split", spy)
    load_session(V3)
    assert asked == []  # below MIN_BYTES: not even tried
    monkeypatch.setattr(parallel, "MIN_BYTES", 1)
    monkeypatch.setattr(parallel, "usable_processors", lambda: 3)
    monkeypatch.setattr(os, "getloadavg", lambda: (1.0, 1.0, 1.0))
    monkeypatch.setattr(parallel, "PART_BYTES", 1 << 30)  # one part: nothing for a worker, read here
    session = load_session(V3)
    assert asked == [2] and session.split is None


# ---------------------------------------------------------------------------- real worker processes
def _many_lines(tmp_path: Path) -> Path:
    """A file of about 3 MB made of a real session's lines, with repeated ids, labels and damaged lines."""
    source = V3.read_bytes().rstrip(b"\n").split(b"\n")
    lines = [source[0]]
    for copy in range(8):
        lines += source[1:]
        lines += [
            b"not json",
            b'{"type":"label","id":"L%d","parentId":null,"targetId":"x","label":"l"}' % copy,
        ]
    path = tmp_path / "many.jsonl"
    path.write_bytes(b"\n".join(lines) + b'\n{"type":"message","id":"torn"')
    return path


def test_worker_processes_read_the_same(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = _many_lines(tmp_path)
    monkeypatch.setattr(parallel, "PART_BYTES", 100_000)
    one = load_session(path, processes=0, fold_all=True)
    for workers in (1, 2):
        split = load_session(path, processes=workers, fold_all=True)
        assert split.split is not None and split.split.by_workers >= 5, split.split
        assert full_state(split) == full_state(one)


def test_a_dead_worker_leaves_its_parts_to_this_process(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = _many_lines(tmp_path)
    monkeypatch.setattr(parallel, "PART_BYTES", 100_000)
    started = parallel._Workers.__init__

    def start_then_kill(self: parallel._Workers, *args: object) -> None:
        started(self, *args)  # type: ignore[arg-type]
        for process in self._processes:
            process.kill()

    monkeypatch.setattr(parallel._Workers, "__init__", start_then_kill)
    one = load_session(path, processes=0)
    split = load_session(path, processes=2)
    assert split.split is not None and split.split.by_workers == 0
    assert full_state(split) == full_state(one)


def test_a_replaced_file_is_not_read_by_workers(tmp_path: Path) -> None:
    """A worker finding another file at the path hands every part back (the parent reads its own fd)."""
    path = _many_lines(tmp_path)
    sent: list[tuple[int, float, object]] = []

    class Pipe:
        def send_bytes(self, data: bytes) -> None:
            sent.append(pickle.loads(data))

        def close(self) -> None:
            pass

    part_index.serve_parts(str(path), (0, 0), [(1, 0, 10), (2, 10, 20)], (3, False, False), Pipe())  # type: ignore[arg-type]
    assert [(number, part) for number, _cpu, part in sent] == [(1, None), (2, None)]


def test_labels_set_again_in_a_later_part_keep_their_place(tmp_path: Path) -> None:
    """A label set again keeps its target's place among the labels, cleared and set again it goes last."""
    header = {
        "type": "session",
        "version": 3,
        "id": "s",
        "timestamp": "2026-01-01T00:00:00.000Z",
        "cwd": "/w",
    }
    lines = [orjson.dumps(header)]
    for number, (target, label) in enumerate(
        [("a", "1"), ("b", "2"), ("a", "3"), ("c", "4"), ("c", ""), ("c", "5")]
    ):
        entry = {"type": "label", "id": f"l{number}", "parentId": None, "timestamp": "2026-01-01T00:00:01Z"}
        lines.append(orjson.dumps({**entry, "targetId": target, "label": label}))
    path = tmp_path / "labels.jsonl"
    path.write_bytes(b"\n".join(lines) + b"\n")
    split = assert_split_equals_one(path, 1)
    assert [target for target, _label in split._labels.items()] == ["a", "b", "c"]
    assert split.split is not None and split.split.parts == 7  # the header, then a label a part
    assert split.split.by_workers == 5  # this process reads parts 0 and 4 (two workers)


@pytest.mark.parametrize("first", [b"{not json", b"[1]", b"", b'{"type":"title","title":"T"}'])
def test_workers_start_after_the_line_that_settles_the_header(tmp_path: Path, first: bytes) -> None:
    """Found by hypothesis: a damaged first line, then entries, cut after every line. The first object
    decides whether the file has a header (``missing-header`` is noted on its line): this process reads
    up to it, so no worker starts from a state that has not seen it."""
    entries = [
        orjson.dumps(
            {"type": "message", "id": f"e{n}", "parentId": f"e{n - 1}" if n else None, "timestamp": "x"}
        )
        for n in range(5)
    ]
    path = tmp_path / "s.jsonl"
    path.write_bytes(b"\n".join([first, *entries]) + b"\n")
    split = assert_split_equals_one(path, 1)
    assert split.split is not None and split.split.parts == 5  # up to e0 here, then a part a line
    assert split.split.by_workers == 3  # parts 1 to 3 (this process reads 0 and 4: two workers)


def test_this_process_reads_a_share_that_keeps_it_as_busy_as_a_worker() -> None:
    assert [parallel.own_stride(workers, 100) for workers in (1, 2, 3, 4, 7, 8, 16)] == [
        2,
        4,
        6,
        9,
        79,
        100,
        100,
    ]


def test_a_part_with_an_entry_without_id_is_read_here(tmp_path: Path) -> None:
    """Its id is made from its line number and every id before it: the worker hands the part back."""
    header = {
        "type": "session",
        "version": 3,
        "id": "s",
        "timestamp": "2026-01-01T00:00:00.000Z",
        "cwd": "/w",
    }
    lines = [orjson.dumps(header)]
    for number in range(12):
        entry: dict[str, object] = {"type": "message", "timestamp": "2026-01-01T00:00:01Z"}
        entry["message"] = {"role": "user", "content": f"m{number}"}
        if number != 6:
            entry.update(id=f"e{number}", parentId=f"e{number - 1}" if number else None)
        lines.append(orjson.dumps(entry))
    path = tmp_path / "idless.jsonl"
    path.write_bytes(b"\n".join(lines) + b"\n")
    split = assert_split_equals_one(path, 1, workers=1)
    assert split.split is not None and split.split.parts == 13  # the header, then an entry a part
    assert split.split.by_workers == 5  # parts 1, 3, 5, 9 and 11; 7 (line 8, no id) was read here
    assert any(d.kind == "missing-id" and d.line == 8 for d in split.diagnostics)


def test_check_says_the_same_split(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """``check -v`` in process, with worker processes started and without: the same lines."""
    from core.cli.program import main

    path = _many_lines(tmp_path)
    monkeypatch.setattr(parallel, "PART_BYTES", 200_000)
    said = {}
    for workers in ("0", "2"):
        monkeypatch.setenv("PRIME_SESSIONS_PARSERS", workers)
        monkeypatch.setenv("PRIME_SESSIONS_DEBUG", "1")
        status = main(["check", "-v", str(path)])
        out, err = capsys.readouterr()
        said[workers] = (status, out, "worker processes" in err)
    assert said["0"][:2] == said["2"][:2] and said["0"][0] == 1
    assert said["2"][2] and not said["0"][2]
    assert "duplicate-id" in said["0"][1] and "truncated-line" in said["0"][1]


@pytest.mark.parametrize("cut", [0.3, 0.7])
def test_appended_bytes_read_split_equal_a_fresh_load(tmp_path: Path, cut: float) -> None:
    """A refresh reads what was appended split too (from where the last read stopped, its checksum
    carried on): the session then equals a fresh load in one process, and its writer still trusts it."""
    data = _many_lines(tmp_path).read_bytes()
    path = tmp_path / "growing.jsonl"
    start = data.index(b"\n", int(len(data) * cut)) + 1
    path.write_bytes(data[:start])
    with split_in_process(50_000):
        session = load_session(path, processes=2)
        first = session.split
        assert first is not None
        with open(path, "ab") as handle:
            handle.write(data[start:])
        appended = session.refresh().appended
        assert appended and session.split is not first and session.split.by_workers > 0
    fresh = load_session(path, processes=0)
    assert full_state(session) == full_state(fresh)
    assert session._crc == zlib.crc32(data[: session._read_end])
