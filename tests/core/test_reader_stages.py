"""The reader's three stages (issue 24): framing, decoding, indexing, each held to what it promises.

* framing hands over every complete line once, in order, with its true number and offset, whatever
  the chunk size, and keeps the checksum of exactly the bytes it framed;
* decoding and indexing report a line's problems in one fixed order (the CLI shows them so);
* the kind table knows every type and variant spelling, and nothing else;
* the strings repeated on every line are held once (memory on 500,000-entry files).
"""

from __future__ import annotations

import itertools
import os
import zlib
from pathlib import Path

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import core.session.framing
from core.session import load_session
from core.session.framing import frame_lines
from core.session.indexing import _BY_TYPE, _INDEXERS, EntryIndexer
from core.session.vocabulary import ASSISTANT, KNOWN_TYPES, MESSAGE, PRIME_AGENT_TYPES, TYPE_ALIASES, USER

HEADER = {"type": "session", "version": 3, "id": "s1", "timestamp": "2026-01-01T00:00:00.000Z", "cwd": "/p"}
TS = "2026-01-01T00:00:01.000Z"


# ---------------------------------------------------------------------------- framing
def _frame(
    path: Path, start: int, line_no: int, crc: int | None
) -> tuple[list[tuple[int, int, bytes]], object]:
    seen: list[tuple[int, int, bytes]] = []

    def take(lines: list[bytes], before: int, offset: int) -> None:
        for raw in lines:
            before += 1
            seen.append((before, offset, raw))
            offset += len(raw) + 1

    fd = os.open(path, os.O_RDONLY)
    try:
        return seen, frame_lines(fd, start, line_no, crc, take)
    finally:
        os.close(fd)


_PIECES = [b"\n", b"\n\n", b"a", b"{}", b"\r", b"\xe2\x80\xa8", b"x" * 9]  # U+2028 is no line end
_BYTES = st.lists(st.sampled_from(_PIECES), max_size=40)
_CHUNKS = st.sampled_from([1, 2, 3, 5, 8, 13, 64, 4096])


@settings(max_examples=150, deadline=None)
@given(pieces=_BYTES, chunk=_CHUNKS, skip=st.integers(0, 5), checksum=st.booleans())
def test_framing_gives_every_complete_line_once_with_its_number_and_offset(
    tmp_path_factory: pytest.TempPathFactory, pieces: list[bytes], chunk: int, skip: int, checksum: bool
) -> None:
    data = b"".join(pieces)
    path = tmp_path_factory.mktemp("framing") / "f.jsonl"
    path.write_bytes(data)
    lines = data.split(b"\n")
    skip = min(skip, len(lines) - 1)  # start after `skip` complete lines, as a refresh does
    start = sum(len(line) + 1 for line in lines[:skip])
    old = core.session.framing.CHUNK
    core.session.framing.CHUNK = chunk
    try:
        seen, framed = _frame(path, start, 7 + skip, zlib.crc32(data[:start]) if checksum else None)
    finally:
        core.session.framing.CHUNK = old
    expected = []
    offset = start
    for number, raw in enumerate(lines[skip:-1], start=8 + skip):
        expected.append((number, offset, raw))
        offset += len(raw) + 1
    assert seen == expected
    assert framed == (lines[-1], 7 + len(lines) - 1, offset, zlib.crc32(data[:offset]) if checksum else None)


# ---------------------------------------------------------------------------- decoding and indexing
def test_a_lines_problems_are_reported_in_one_order(tmp_path: Path) -> None:
    # No header: the first entry's line carries every kind of problem an entry can have.
    bad = {"type": "sessionInfo", "id": "a", "parentId": 5, "timestamp": "then", "name": 7}
    again = {"type": "sessionInfo", "id": "a", "parentId": None, "timestamp": TS, "name": "n"}
    path = tmp_path / "s.jsonl"
    path.write_bytes(orjson.dumps(bad) + b"\n" + orjson.dumps(again) + b"\n")
    session = load_session(path)
    assert [(d.line, d.kind) for d in session.diagnostics] == [
        (1, "missing-header"),
        (1, "invalid-field"),  # parentId
        (1, "invalid-timestamp"),
        (1, "invalid-field"),  # the name
        (1, "variant"),
        (2, "variant"),
        (2, "duplicate-id"),
    ]
    assert session.diagnostics[1].message == "parentId is not a string; read as a root."
    assert session.diagnostics[3].message == "The session name is not text; it was ignored."


def test_an_unterminated_last_entry_is_indexed_by_the_same_stages(tmp_path: Path) -> None:
    entry = {
        "type": "modelChange",
        "id": "m",
        "parentId": None,
        "timestamp": TS,
        "provider": "p",
        "modelId": "x",
    }
    path = tmp_path / "s.jsonl"
    path.write_bytes(orjson.dumps(HEADER) + b"\n" + orjson.dumps(entry))
    session = load_session(path)
    assert [(e.id, e.kind, e.line) for e in session.entries] == [("m", "model_change", 2)]
    assert list(session.models) == ["p/x"]
    assert [d.kind for d in session.diagnostics] == ["variant"]
    assert not session.ends_with_newline


def test_the_kind_table_knows_every_type_and_variant_and_nothing_else() -> None:
    assert set(_INDEXERS) == KNOWN_TYPES
    assert set(_BY_TYPE) == KNOWN_TYPES | set(TYPE_ALIASES)
    for written, (shared, kind, index) in _BY_TYPE.items():
        assert shared == written and kind == TYPE_ALIASES.get(written, written)
        assert index is _INDEXERS[kind]
    assert _INDEXERS[MESSAGE] is EntryIndexer._index_message
    assert all(_INDEXERS[name] is not EntryIndexer._index_nothing for name in PRIME_AGENT_TYPES)


# ---------------------------------------------------------------------------- memory
def test_repeated_strings_are_held_once(tmp_path: Path) -> None:
    usage = {"totalTokens": 3, "cost": {"total": 0.5}}
    lines = [HEADER]
    parent = None
    for number in range(6):
        role = USER if number % 2 == 0 else ASSISTANT
        message: dict[str, object] = {"role": role, "content": "hi"}
        if role == ASSISTANT:
            message.update(usage=usage, stopReason="toolUse", provider="p", model="m")
        lines.append(
            {"type": "message", "id": f"e{number}", "parentId": parent, "timestamp": TS, "message": message}
        )
        parent = f"e{number}"
    path = tmp_path / "s.jsonl"
    path.write_bytes(b"".join(orjson.dumps(line) + b"\n" for line in lines))
    entries = load_session(path).entries
    assert len({id(e.type) for e in entries}) == 1
    assert all(e.kind is e.type for e in entries)
    assert len({id(e.role) for e in entries}) == 2
    assert len({id(e.info[2]) for e in entries if e.info is not None}) == 1  # the stop reason
    assert all(child.parent_id is parent.id for parent, child in itertools.pairwise(entries))
