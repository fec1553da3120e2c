"""Previews of huge lines from their first bytes (issue 29): bounded, and the same as from the whole line."""

from __future__ import annotations

from pathlib import Path

import orjson
from hypothesis import given, settings
from hypothesis import strategies as st

from core.kinds import entry_preview
from core.session import load_session
from core.session.heads import PREVIEW_BYTES, head_object
from tests.helpers import run_cli

_SCALARS = st.none() | st.booleans() | st.integers(-(2**53), 2**53) | st.text(max_size=30)
_VALUES = st.recursive(
    _SCALARS,
    lambda inner: st.lists(inner, max_size=5) | st.dictionaries(st.text(max_size=8), inner, max_size=5),
    max_leaves=40,
)
_OBJECTS = st.dictionaries(st.text(max_size=8), _VALUES, max_size=6)


@settings(max_examples=200, deadline=None)
@given(_OBJECTS)
def test_a_whole_line_gives_its_own_object(value: dict[str, object]) -> None:
    assert head_object(orjson.dumps(value)) == value


@settings(max_examples=200, deadline=None)
@given(_OBJECTS, st.floats(0, 1))
def test_any_cut_gives_an_object_or_none_and_never_fails(value: dict[str, object], where: float) -> None:
    line = orjson.dumps(value)
    head = head_object(line[: int(len(line) * where)])
    assert head is None or isinstance(head, dict)


def test_cut_strings_keys_escapes_and_characters_are_closed() -> None:
    assert head_object(b'{"a":"hello wor') == {"a": "hello wor"}
    assert head_object(b'{"a":[1,2,{"b":"x"},3') == {"a": [1, 2, {"b": "x"}]}
    assert head_object(b'{"t":"ab\\"cd\\u00') == {"t": 'ab"cd'}  # an escape cut in half is left out
    assert head_object(b'{"t":"x\\') == {"t": "x"}
    assert head_object('{"t":"é'.encode()[:-1]) == {"t": ""}  # half a character is left out
    assert head_object(b'{"k') == {"k": None} and head_object(b'{"k":') == {"k": None}
    assert head_object(b'{"a":"[{"') == {"a": "[{"}  # brackets in strings are text
    assert head_object(b"[1,2") is None and head_object(b"}") is None


def _huge_session(path: Path, blocks: int) -> None:
    ts = "2026-01-01T00:00:00.000Z"
    header = {"type": "session", "version": 3, "id": "huge", "timestamp": ts, "cwd": "/p"}
    user = {"role": "user", "content": "hi", "timestamp": 1767225600000}
    content = [{"type": "text", "text": f"block {i} " + "x" * 20} for i in range(blocks)]
    assistant = {"role": "assistant", "content": content}
    lines = [
        header,
        {"type": "message", "id": "u1", "parentId": None, "timestamp": ts, "message": user},
        {"type": "message", "id": "a1", "parentId": "u1", "timestamp": ts, "message": assistant},
        {
            "type": "custom",
            "customType": "note",
            "id": "c1",
            "parentId": "a1",
            "timestamp": ts,
            "data": content,
        },
    ]
    path.write_bytes(b"".join(orjson.dumps(line) + b"\n" for line in lines))


def test_a_huge_line_is_previewed_from_its_first_bytes_as_from_the_whole(tmp_path: Path) -> None:
    file = tmp_path / "huge.jsonl"
    _huge_session(file, 20_000)  # two lines of about 750 KB each
    session = load_session(file)
    huge = [e for e in session.entries if e.length > PREVIEW_BYTES]
    assert len(huge) == 2
    heads = list(session.preview_bodies(session.entries))
    wholes = list(session.bodies(session.entries))
    for entry, head, whole in zip(session.entries, heads, wholes, strict=True):
        assert entry_preview(entry, head, width=300) == entry_preview(entry, whole, width=300)
        assert len(orjson.dumps(head)) <= PREVIEW_BYTES + 100  # bounded by the bytes read, not the line
    out = run_cli("tree", str(file))
    assert out.returncode == 0
    assert "assistant: block 0 xxxx" in out.stdout and "[custom: note]" in out.stdout
