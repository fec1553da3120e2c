"""A huge line indexed from its skeleton gives the same Session as the line parsed whole (issue 29).

A line longer than ``core.session.skeleton.HUGE_LINE`` (16 MiB) is read by a streaming parser that
keeps only what the index reads, because parsing 100 MB of small values whole costs about 19 times the
line. Here the threshold is lowered to nothing, so every line takes that route, and each session is
compared with the whole parse: every entry's fields, the diagnostics with their line numbers, the header,
the summary, the usage, the labels and names, the flavour, and every body. Over every sample,
samples-latest, corpus, demo and kind-sample file, the hostile values of ``hostile_sessions``, and files
written by hypothesis (damaged lines of every kind, and hostile values in every field).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from core import summarize
from core.session import Session, framing, load_session, skeleton
from core.session import decoding as decoding_module
from core.session.jsonl import MAX_DEPTH
from core.usage import entries_usage, iter_usage
from tests.conftest import CORPUS, DEMO, SHARED
from tests.core.hostile_sessions import FIELDS, hostile_raw, nested, session_bytes
from tests.core.test_reading_properties import session_bytes as damaged_session_bytes

REPO = Path(__file__).resolve().parents[2]
_FILES = sorted(
    {
        *(SHARED / "reference").rglob("*.jsonl"),
        *CORPUS.rglob("*.jsonl"),
        *DEMO.rglob("*.jsonl"),
        *(REPO / "tests" / "core" / "kind_samples").rglob("*.jsonl"),
    }
)
_ENTRY_FIELDS = (
    "id",
    "parent_id",
    "type",
    "kind",
    "timestamp",
    "ts_ms",
    "line",
    "offset",
    "length",
    "role",
    "synthetic",
    "info",
)


def _facts(path: Path, *, keep_bodies: bool = False) -> tuple[object, ...]:
    """Everything a loaded session says, as comparable values (bodies read in one pass)."""
    session = load_session(path, checksum=False, keep_bodies=keep_bodies)
    entries = [tuple(repr(getattr(entry, name)) for name in _ENTRY_FIELDS) for entry in session.entries]
    bodies = [repr(body) for body in session.bodies(session.entries)]
    return (
        entries,
        [repr(diagnostic) for diagnostic in session.diagnostics],
        repr(session.header),
        repr(session.title_slot),
        session.version,
        repr(summarize(session)),
        repr(entries_usage(session, session.entries)),
        repr(list(iter_usage(session))),
        repr(session.labels),
        session.name,
        repr(session.usage_overrides),
        session.flavour,
        session.leaf_id,
        bodies,
    )


@pytest.fixture
def streamed(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[int]]:
    """Lines of any length go the skeleton's way; yields [skeletons made, whole parses instead]."""
    counts = [0, 0]
    made = skeleton.skeleton

    def counted(pieces: list[bytes], first_text: bool) -> object:
        value = made(pieces, first_text)
        counts[0 if value is not None else 1] += 1
        return value

    monkeypatch.setattr(skeleton, "skeleton", counted)
    monkeypatch.setattr(skeleton, "DENSE", 1 << 40)  # every line dense enough
    yield counts


def _both(path: Path, monkeypatch: pytest.MonkeyPatch, *, keep_bodies: bool = False) -> None:
    whole = _facts(path, keep_bodies=keep_bodies)
    with monkeypatch.context() as patch:
        patch.setattr(skeleton, "HUGE_LINE", 0)
        streamed = _facts(path, keep_bodies=keep_bodies)
    assert streamed == whole


def test_every_known_file_reads_the_same(monkeypatch: pytest.MonkeyPatch, streamed: list[int]) -> None:
    assert len(_FILES) > 20
    for path in _FILES:
        _both(path, monkeypatch)
        _both(path, monkeypatch, keep_bodies=True)
    assert streamed[0] > 1000  # the skeleton was made for most lines, not left to the whole parse


@pytest.mark.parametrize("field", sorted(FIELDS))
@pytest.mark.parametrize(
    "raw",
    [
        nested(MAX_DEPTH + 5),
        nested(MAX_DEPTH - 3),
        b"18446744073709551616",
        b"1e400",
        b'"\\ud800"',
        b'"\\ud83d\\ude00"',
        b'{"a": 1, "a": [2]}',
        b'[{"type": "text", "text": "t"}, 5, [], {"type": "text"}]',
    ],
    ids=["deep", "almost-deep", "2**64", "1e400", "lone-surrogate", "pair", "repeated-key", "blocks"],
)
def test_hostile_values_read_the_same(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, streamed: list[int], field: str, raw: bytes
) -> None:
    path = tmp_path / "s.jsonl"
    path.write_bytes(session_bytes(field, raw))
    _both(path, monkeypatch)
    assert streamed[0] > 0


_SETTINGS = settings(
    max_examples=150,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)


@_SETTINGS
@given(data=damaged_session_bytes())
def test_generated_files_read_the_same(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, data: bytes) -> None:
    path = tmp_path / "g.jsonl"
    path.write_bytes(data)
    _both(path, monkeypatch, keep_bodies=True)


@_SETTINGS
@given(placed=st.lists(st.tuples(st.sampled_from(sorted(FIELDS)), hostile_raw()), min_size=1, max_size=3))
def test_generated_hostile_values_read_the_same(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, placed: list[tuple[str, bytes]]
) -> None:
    path = tmp_path / "h.jsonl"
    path.write_bytes(session_bytes(*placed[0], *placed[1:]))
    _both(path, monkeypatch)


def _huge_session(path: Path, count: int, *, role: str = "assistant", first_user: bool = True) -> bytes:
    """A session whose third line is a message of ``count`` one-word text blocks."""
    header = {
        "type": "session",
        "version": 3,
        "id": "s",
        "timestamp": "2026-01-01T00:00:00.000Z",
        "cwd": "/w",
    }
    user = {"role": "user", "content": "hi", "timestamp": 1767225600000}
    lines = [header]
    if first_user:
        lines.append(
            {
                "type": "message",
                "id": "u1",
                "parentId": None,
                "timestamp": "2026-01-01T00:00:01.000Z",
                "message": user,
            }
        )
    usage = {
        "input": 1,
        "output": 2,
        "cacheRead": 0,
        "cacheWrite": 0,
        "totalTokens": 3,
        "cost": {"input": 0.1, "output": 0.2, "cacheRead": 0, "cacheWrite": 0, "total": 0.3},
    }
    words = [{"type": "text", "text": f"w{i}"} for i in range(count)]
    message = {
        "role": role,
        "content": words,
        "usage": usage,
        "model": "m",
        "provider": "p",
        "stopReason": "stop",
    }
    lines.append(
        {
            "type": "message",
            "id": "a1",
            "parentId": "u1" if first_user else None,
            "timestamp": "2026-01-01T00:00:02.000Z",
            "message": message,
        }
    )
    data = b"\n".join(orjson.dumps(line) for line in lines) + b"\n"
    path.write_bytes(data)
    return data


@pytest.mark.parametrize("role", ["assistant", "user"])
def test_a_line_longer_than_a_chunk_is_streamed_from_its_pieces(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, streamed: list[int], role: str
) -> None:
    """Framing hands a line longer than a chunk over in pieces; the skeleton is made without joining them."""
    path = tmp_path / "big.jsonl"
    data = _huge_session(path, 5000, role=role, first_user=role == "assistant")
    monkeypatch.setattr(framing, "CHUNK", 4096)  # the line spans about 20 chunks
    whole = _facts(path)
    parsed: list[int] = []
    loads = decoding_module._loads

    def watched(raw: bytes) -> object:
        parsed.append(len(raw))
        return loads(raw)

    with monkeypatch.context() as patch:
        patch.setattr(skeleton, "HUGE_LINE", 50_000)
        patch.setattr(decoding_module, "_loads", watched)
        assert _facts(path) == whole
    assert streamed == [1, 0]
    assert max(parsed) < 50_000  # the huge line was never parsed whole to index it
    session = load_session(path)
    assert session.entries[-1].offset + session.entries[-1].length + 1 == len(data)
    if role == "user":
        assert session.first_message.startswith("w0 w1 w2") and session.first_message.endswith("w4999")


def test_a_lone_surrogate_across_pieces_goes_to_the_whole_parse(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, streamed: list[int]
) -> None:
    """yajl reads a lone surrogate escape as "?": wherever the pieces are cut, such a line is parsed whole."""
    path = tmp_path / "s.jsonl"
    header = b'{"type":"session","version":3,"id":"s","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/w"}'
    for cut in range(1, 12):
        line = b'{"type":"label","id":"l","parentId":null,"targetId":"x","label":"' + b"a" * (4096 - 51 - cut)
        line += b'\\udc00 lone","pad":"' + b"p" * 9000 + b'"}'
        path.write_bytes(header + b"\n" + line + b"\n")
        with monkeypatch.context() as patch:
            patch.setattr(framing, "CHUNK", 4096)
            patch.setattr(skeleton, "HUGE_LINE", 1000)
            session = load_session(path)
        assert session.labels == {"x": "a" * (4096 - 51 - cut) + "\udc00 lone"}
    assert streamed[0] == 0


def test_invalid_json_in_a_huge_line_costs_that_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, streamed: list[int]
) -> None:
    path = tmp_path / "bad.jsonl"
    data = _huge_session(path, 3000)
    lines = data.split(b"\n")
    lines[2] = lines[2][:-2]  # the huge line cut short, mid-file
    lines.insert(
        3,
        orjson.dumps(
            {
                "type": "session_info",
                "id": "n",
                "parentId": "u1",
                "name": "after",
                "timestamp": "2026-01-01T00:00:03.000Z",
            }
        ),
    )
    path.write_bytes(b"\n".join(lines))
    monkeypatch.setattr(framing, "CHUNK", 4096)
    monkeypatch.setattr(skeleton, "HUGE_LINE", 10_000)
    session = load_session(path)
    assert [(d.line, d.kind) for d in session.diagnostics] == [(3, "invalid-json")]
    assert [e.id for e in session.entries] == ["u1", "n"] and session.name == "after"
    assert streamed == [0, 1]


def test_a_huge_line_is_not_kept_for_the_export_but_read_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """keep_bodies keeps the small lines' objects; the huge one's body is read by offset when asked."""
    path = tmp_path / "big.jsonl"
    _huge_session(path, 3000)
    monkeypatch.setattr(skeleton, "HUGE_LINE", 10_000)
    session = load_session(path, keep_bodies=True)
    assert sorted(session._kept or {}) == [2]
    bodies = list(session.bodies(session.entries))
    assert len(bodies[1]["message"]["content"]) == 3000  # type: ignore[index,arg-type]
    assert bodies[0]["message"]["content"] == "hi"  # type: ignore[index]


def test_a_huge_header_is_kept_whole(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The header (and whatever comes before it) is kept whole: never a skeleton."""
    path = tmp_path / "h.jsonl"
    header = {
        "type": "session",
        "version": 3,
        "id": "s",
        "timestamp": "2026-01-01T00:00:00.000Z",
        "cwd": "/w",
        "extra": [{"i": i} for i in range(2000)],
    }
    path.write_bytes(orjson.dumps(header) + b"\n")
    monkeypatch.setattr(skeleton, "HUGE_LINE", 100)
    session = Session(path)
    assert session.header == header
    assert os.path.getsize(path) > 100


def test_a_huge_line_being_written_is_not_parsed_whole_at_each_refresh(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, streamed: list[int]
) -> None:
    """The unfinished last line is read at every refresh: told cut short by a pass that builds nothing."""
    path = tmp_path / "growing.jsonl"
    data = _huge_session(path, 3000)
    cut = len(data) - 5000
    path.write_bytes(data[:cut])
    monkeypatch.setattr(skeleton, "HUGE_LINE", 10_000)
    parsed: list[int] = []
    decode = decoding_module.decode_line

    def watched(raw: bytes, **options: bool) -> tuple[object, str | None]:
        parsed.append(len(raw))
        return decode(raw, **options)

    monkeypatch.setattr(decoding_module, "decode_line", watched)
    session = load_session(path)
    assert [(d.line, d.kind) for d in session.diagnostics] == [(3, "truncated-line")]
    assert [e.id for e in session.entries] == ["u1"]
    assert not parsed  # never parsed whole
    with path.open("ab") as out:
        out.write(data[cut:-1])  # the whole line, still without its newline
    assert [e.id for e in session.refresh().appended] == ["a1"]
    assert session.diagnostics == [] and streamed[0] == 1 and not parsed
