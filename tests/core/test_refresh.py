"""Session.refresh(): appends are read incrementally; anything else is a full reload with a reason."""

from __future__ import annotations

import json
import os
import random
from pathlib import Path

import orjson
import pytest

from core import build_context, load_session
from core.errors import SessionReadError
from core.session import Session
from tests.conftest import SAMPLES
from tests.helpers import append_bytes

PI = SAMPLES / "pi-layout" / "sessions"
LINEAR = (
    PI / "--home-dev-acme-webapp--" / "2026-03-02T09-14-07-122Z_019cadd3-8790-713f-9a8d-f2ee097914b9.jsonl"
)
BRANCHES = (
    PI / "--home-dev-acme-webapp--" / "2026-03-03T14-02-51-403Z_019cb402-3c88-7599-9816-357889a14de5.jsonl"
)
LINES = LINEAR.read_bytes()[:-1].split(b"\n")  # header + 31 entries, one chain
LEAF = "8721c1f9"


def relink(line: bytes, **changes: object) -> bytes:
    obj = orjson.loads(line)
    obj.update(changes)
    return orjson.dumps(obj)


def snapshot(session: Session) -> dict:
    """Everything a reader can see, to compare an incrementally refreshed session with a fresh load."""
    return {
        "entries": [(e.id, e.parent_id, e.kind, e.line, e.offset, e.length, e.role) for e in session.entries],
        "by_id": {k: v.line for k, v in session.by_id.items()},
        "order": session.tree.order,
        "roots": [e.id for e in session.tree.roots],
        "leaf": session.leaf_id,
        "labels": session.labels,
        "name": session.name,
        "diagnostics": [(d.line, d.kind, d.entry_id) for d in session.diagnostics],
        "header": session.header,
        "size": session.size,
        "message_count": session.message_count,
        "first_message": session.first_message,
        "context": json.loads(orjson.dumps(build_context(session))),
    }


@pytest.fixture
def base(tmp_path: Path) -> Path:
    path = tmp_path / "s.jsonl"
    path.write_bytes(b"\n".join(LINES[:21]) + b"\n")  # header + 20 entries (lines 1-21)
    return path


# ---------------------------------------------------------------------------- appends
def test_appending_complete_lines_yields_exactly_the_new_entries(base: Path) -> None:
    session = load_session(base)
    assert len(session.entries) == 20
    assert session.leaf_id == "a1285bb6"
    tree_before = session.tree
    append_bytes(base, b"\n".join(LINES[21:24]) + b"\n")
    result = session.refresh()
    assert not result.reloaded
    assert result.reason is None
    assert result.changed
    assert [e.id for e in result.appended] == ["11ced525", "3d96dbeb", "8c3afea3"]
    assert [e.line for e in result.appended] == [22, 23, 24]
    assert result.appended == session.entries[20:]
    assert len(session.entries) == 23
    assert session.leaf_id == "8c3afea3"
    assert session.tree is tree_before  # taken into the tree it had (test_tree_growth), not built again
    assert session.tree.order[-3:] == ["11ced525", "3d96dbeb", "8c3afea3"]
    assert session.size == base.stat().st_size
    # the bodies of appended entries are readable by offset
    assert session.body("8c3afea3") == orjson.loads(LINES[23])


def test_an_unchanged_file_returns_nothing(base: Path) -> None:
    session = load_session(base)
    before = snapshot(session)
    for _ in range(3):
        result = session.refresh()
        assert result.appended == []
        assert not result.reloaded
        assert result.reason is None
        assert not result.changed
    assert snapshot(session) == before


def test_refresh_after_refresh_continues_line_numbers(base: Path) -> None:
    session = load_session(base)
    for index in range(21, 32):
        append_bytes(base, LINES[index] + b"\n")
        result = session.refresh()
        assert [e.line for e in result.appended] == [index + 1]
    assert session.leaf_id == LEAF
    assert snapshot(session) == snapshot(load_session(base))


def test_a_partial_last_line_cut_away_takes_its_diagnostic_with_it(base: Path) -> None:
    # Issue 15: the "truncated line" diagnostic stayed after the partial tail was truncated away.
    session = load_session(base)
    size = base.stat().st_size
    append_bytes(base, LINES[21][:40])
    session.refresh()
    assert [d.kind for d in session.diagnostics] == ["truncated-line"]
    os.truncate(base, size)
    result = session.refresh()
    assert not result.reloaded and result.appended == []
    assert session.diagnostics == []
    assert snapshot(session) == snapshot(load_session(base))


def test_a_partial_last_line_is_held_back_until_its_newline_arrives(base: Path) -> None:
    session = load_session(base)
    line = LINES[21]
    half = len(line) // 2
    append_bytes(base, line[:half])
    result = session.refresh()
    assert result.appended == [] and not result.reloaded
    assert len(session.entries) == 20
    assert [(d.line, d.kind) for d in session.diagnostics] == [(22, "truncated-line")]
    # still held back when nothing more arrived
    assert session.refresh().appended == []
    append_bytes(base, line[half:] + b"\n")
    result = session.refresh()
    assert not result.reloaded
    assert [e.id for e in result.appended] == ["11ced525"]
    assert result.appended[0].line == 22
    assert session.diagnostics == []
    assert session.body("11ced525") == orjson.loads(line)
    assert snapshot(session) == snapshot(load_session(base))


def test_a_line_whose_newline_comes_later_is_read_once(base: Path) -> None:
    session = load_session(base)
    append_bytes(base, LINES[21])  # complete JSON, no newline yet: indexed at once
    result = session.refresh()
    assert [e.id for e in result.appended] == ["11ced525"]
    assert not session.ends_with_newline
    append_bytes(base, b"\n" + LINES[22] + b"\n")
    result = session.refresh()
    assert not result.reloaded
    assert [e.id for e in result.appended] == ["3d96dbeb"]
    assert [e.id for e in session.entries].count("11ced525") == 1
    assert session.ends_with_newline
    assert snapshot(session) == snapshot(load_session(base))


def test_bytes_added_to_an_unterminated_last_line_reload(base: Path) -> None:
    session = load_session(base)
    append_bytes(base, LINES[21])
    session.refresh()
    append_bytes(base, b"garbage\n")  # the line is now invalid: everything is read again
    result = session.refresh()
    assert result.reloaded
    assert result.reason == "Bytes were added to its unterminated last line."
    assert [(d.line, d.kind) for d in session.diagnostics] == [(22, "invalid-json")]
    assert "11ced525" not in session.by_id
    assert len(result.appended) == 20


def test_appended_damage_is_diagnosed_at_the_right_lines(base: Path) -> None:
    session = load_session(base)
    orphan = relink(LINES[21], id="orph0001", parentId="gone0000")
    append_bytes(base, b"{broken\n" + orphan + b"\nnull\n")
    result = session.refresh()
    assert [e.id for e in result.appended] == ["orph0001"]
    assert [(d.line, d.kind) for d in session.diagnostics] == [
        (22, "invalid-json"),
        (23, "orphan"),
        (24, "not-an-object"),
    ]
    assert "orph0001" in session.tree.root_ids


def test_refresh_of_an_empty_file_that_gets_its_header(tmp_path: Path) -> None:
    path = tmp_path / "new.jsonl"
    path.write_bytes(b"")
    session = load_session(path)
    assert [d.kind for d in session.diagnostics] == ["missing-header"]
    append_bytes(path, LINES[0][:20])
    assert session.refresh().appended == []
    assert session.header is None
    append_bytes(path, LINES[0][20:] + b"\n" + LINES[1] + b"\n")
    result = session.refresh()
    assert not result.reloaded
    assert [e.id for e in result.appended] == ["5cc0dd08"]
    assert session.session_id == "019cadd3-8790-713f-9a8d-f2ee097914b9"
    assert session.diagnostics == []


@pytest.mark.parametrize("seed", range(6))
def test_random_append_chunks_equal_a_fresh_load(tmp_path: Path, seed: int) -> None:
    rng = random.Random(seed)
    data = BRANCHES.read_bytes()
    path = tmp_path / "grow.jsonl"
    cut = rng.randrange(1, 3000)
    path.write_bytes(data[:cut])
    session = load_session(path)
    seen = [e.id for e in session.entries]
    position = cut
    newline_cuts = {i for i, byte in enumerate(data) if byte == 0x0A}
    while position < len(data):
        if rng.random() < 0.3:  # stop right before a newline: the unterminated-line path
            later = [i for i in sorted(newline_cuts) if i > position]
            step = (later[0] - position) if later and later[0] > position else 1
        else:
            step = rng.randrange(1, 2500)
        append_bytes(path, data[position : position + step])
        position = min(len(data), position + step)
        result = session.refresh()
        assert not result.reloaded, result.reason
        seen.extend(e.id for e in result.appended)
    assert seen == [e.id for e in session.entries]
    assert len(seen) == len(set(seen)) == 35
    assert snapshot(session) == snapshot(load_session(path))


# ---------------------------------------------------------------------------- reloads
def test_truncation_reloads(base: Path) -> None:
    session = load_session(base)
    base.write_bytes(b"\n".join(LINES[:11]) + b"\n")
    result = session.refresh()
    assert result.reloaded
    assert result.reason == "The file was truncated."
    assert [e.line for e in result.appended] == list(range(2, 12))
    assert len(session.entries) == 10
    assert session.leaf_id == "42c4e4ec"
    assert snapshot(session) == snapshot(load_session(base))


def test_truncation_to_nothing_reloads(base: Path) -> None:
    session = load_session(base)
    base.write_bytes(b"")
    result = session.refresh()
    assert result.reloaded and result.appended == []
    assert session.entries == [] and session.header is None
    assert [d.kind for d in session.diagnostics] == ["missing-header"]


def test_replacement_with_a_new_inode_reloads(base: Path, tmp_path: Path) -> None:
    session = load_session(base)
    other = tmp_path / "other.jsonl"
    other.write_bytes(BRANCHES.read_bytes())
    os.replace(other, base)
    result = session.refresh()
    assert result.reloaded
    assert result.reason == "The file was replaced."
    assert len(result.appended) == 35
    assert session.session_id == "019cb402-3c88-7599-9816-357889a14de5"
    assert session.leaf_id == "c5a192f8"
    assert session.name is None
    assert snapshot(session) == snapshot(load_session(base))
    # and the next append after the reload is incremental again
    extra = relink(LINES[5], id="after001", parentId="c5a192f8")
    append_bytes(base, extra + b"\n")
    result = session.refresh()
    assert not result.reloaded and [e.id for e in result.appended] == ["after001"]


def test_a_replacement_with_the_same_bytes_still_reloads(base: Path, tmp_path: Path) -> None:
    session = load_session(base)
    copy = tmp_path / "copy.jsonl"
    copy.write_bytes(base.read_bytes())
    os.replace(copy, base)
    result = session.refresh()
    assert result.reloaded and result.reason == "The file was replaced."
    assert len(result.appended) == 20


def test_a_changed_header_reloads(base: Path) -> None:
    session = load_session(base)
    changed = base.read_bytes().replace(
        b'"cwd":"/home/dev/acme-webapp"', b'"cwd":"/home/dev/acme-webappX"', 1
    )
    with open(base, "r+b") as handle:  # rewritten in place: same inode
        handle.write(changed)
    result = session.refresh()
    assert result.reloaded
    assert result.reason == "The beginning of the file changed."
    assert session.cwd == "/home/dev/acme-webappX"
    assert len(session.entries) == 20
    assert session.size == base.stat().st_size


def test_a_changed_early_line_reloads(base: Path) -> None:
    session = load_session(base)
    data = base.read_bytes()
    target = b"Let me look at the form component first."
    assert 0 < data.find(target) < 4096
    with open(base, "r+b") as handle:  # same length, same inode
        handle.write(data.replace(target, target.upper()))
    result = session.refresh()
    assert result.reloaded
    assert result.reason == "The beginning of the file changed."
    assert session.body("40efd13e")["message"]["content"][0]["text"] == target.upper().decode()


def test_a_changed_line_before_the_read_end_reloads(base: Path) -> None:
    session = load_session(base)
    data = base.read_bytes()
    line = LINES[19]  # line 20, in the last 4 KiB read but not in the first
    start = data.find(line)
    assert start > 4096 and start > len(data) - 4096
    assert b'"stopReason":"toolUse"' in line
    with open(base, "r+b") as handle:
        handle.seek(start)
        handle.write(line.replace(b'"stopReason":"toolUse"', b'"stopReason":"TOOLUSE"'))
    append_bytes(base, LINES[21] + b"\n")  # and something was appended too
    result = session.refresh()
    assert result.reloaded
    assert result.reason == "Lines already read were changed."
    assert session.body("7c04e8a2")["message"]["stopReason"] == "TOOLUSE"
    assert len(session.entries) == 21


def test_a_same_length_edit_in_the_middle_reloads(tmp_path: Path) -> None:
    path = tmp_path / "mid.jsonl"
    data = BRANCHES.read_bytes()
    path.write_bytes(data)
    session = load_session(path)
    target = b'"id":"b7ecb40f"'  # line 13, far from the first and the last 4 KiB
    start = data.find(target)
    assert 4096 < start < len(data) - 4096
    with open(path, "r+b") as handle:
        handle.seek(data.find(b'"stopReason":"toolUse"', start))
        handle.write(b'"stopReason":"TOOLUSE"')
    assert not session.unchanged_on_disk()
    result = session.refresh()
    assert result.reloaded
    assert result.reason == "Lines already read were changed."
    assert session.body("b7ecb40f")["message"]["stopReason"] == "TOOLUSE"
    assert session.unchanged_on_disk()


def test_a_changed_last_line_reloads(tmp_path: Path) -> None:
    path = tmp_path / "big.jsonl"
    path.write_bytes(BRANCHES.read_bytes())  # 31 KB: the last line is outside the head guard
    session = load_session(path)
    data = path.read_bytes()
    last = data[:-1].rsplit(b"\n", 1)[1]
    assert b'"stopReason":"stop"' in last
    with open(path, "r+b") as handle:
        handle.seek(len(data) - len(last) - 1)
        handle.write(last.replace(b'"stopReason":"stop"', b'"stopReason":"STOP"'))
    result = session.refresh()
    assert result.reloaded
    assert result.reason == "Lines already read were changed."
    assert session.body("c5a192f8")["message"]["stopReason"] == "STOP"


def test_a_rewrite_that_also_grows_reloads(base: Path) -> None:
    session = load_session(base)
    data = base.read_bytes().replace(b'"version":3', b'"version":4', 1)
    base.write_bytes(data + LINES[21] + b"\n")  # truncate + write: the same inode
    result = session.refresh()
    assert result.reloaded
    assert session.version == 4
    assert len(session.entries) == 21


# ---------------------------------------------------------------------------- errors
def test_refresh_of_a_deleted_file_raises(base: Path) -> None:
    session = load_session(base)
    base.unlink()
    with pytest.raises(SessionReadError, match="was deleted or moved"):
        session.refresh()
    # the index is left as it was
    assert len(session.entries) == 20


def test_refresh_when_a_folder_took_the_files_place(base: Path) -> None:
    session = load_session(base)
    base.unlink()
    base.mkdir()
    with pytest.raises(SessionReadError, match="is a folder"):
        session.refresh()
    assert len(session.entries) == 20


# ---------------------------------------------------------------------------- derived state
def test_tree_leaf_labels_and_name_follow_appends(base: Path) -> None:
    session = load_session(base)
    assert session.labels == {}
    assert session.name is None
    assert session.tree.children_of("9401ac52") == [session.by_id["01250a0e"]]
    stamp = "2026-03-02T09:30:00.000Z"
    branch = relink(LINES[19], id="brnch001", parentId="9401ac52", timestamp=stamp)  # a 2nd child
    label = orjson.dumps(
        {
            "type": "label",
            "id": "lbl00001",
            "parentId": "brnch001",
            "timestamp": stamp,
            "targetId": "a084593a",
            "label": "start here",
        }
    )
    name = orjson.dumps(
        {
            "type": "session_info",
            "id": "name0001",
            "parentId": "lbl00001",
            "timestamp": stamp,
            "name": " Renamed ",
        }
    )
    append_bytes(base, b"\n".join([branch, label, name]) + b"\n")
    result = session.refresh()
    assert [e.id for e in result.appended] == ["brnch001", "lbl00001", "name0001"]
    assert session.leaf_id == "name0001"
    assert session.labels == {"a084593a": "start here"}
    assert session.label_timestamp("a084593a") == stamp
    assert session.name == "Renamed"
    assert [e.id for e in session.tree.children_of("9401ac52")] == ["01250a0e", "brnch001"]
    assert [e.id for e in session.path_to(session.leaf_id)][-4:] == [
        "9401ac52",
        "brnch001",
        "lbl00001",
        "name0001",
    ]
    context = build_context(session)
    assert context["messages"][-1] == orjson.loads(LINES[19])["message"]
    # clearing the label and the name later
    clear = orjson.dumps(
        {
            "type": "label",
            "id": "lbl00002",
            "parentId": "name0001",
            "timestamp": stamp,
            "targetId": "a084593a",
        }
    )
    unname = orjson.dumps(
        {"type": "session_info", "id": "name0002", "parentId": "lbl00002", "timestamp": stamp, "name": "  "}
    )
    append_bytes(base, clear + b"\n" + unname + b"\n")
    session.refresh()
    assert session.labels == {}
    assert session.name is None
    assert snapshot(session) == snapshot(load_session(base))


# ---------------------------------------------------------------------------- chunked reading
@pytest.mark.parametrize("chunk", [1, 2, 7, 64, 4093])
def test_any_read_chunk_size_gives_the_same_index(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, chunk: int
) -> None:
    import core.session.framing

    data = BRANCHES.read_bytes()
    path = tmp_path / "b.jsonl"
    path.write_bytes(data[:-300])  # ends inside the last line: held back
    normal = snapshot(load_session(path))
    monkeypatch.setattr(core.session.framing, "CHUNK", chunk)
    session = load_session(path)
    assert snapshot(session) == normal
    assert [d.kind for d in session.diagnostics] == ["truncated-line"]
    append_bytes(path, data[-300:])
    result = session.refresh()
    assert not result.reloaded
    assert [e.id for e in result.appended] == ["c5a192f8"]
    monkeypatch.setattr(core.session.framing, "CHUNK", 4 << 20)
    assert snapshot(session) == snapshot(load_session(path))


def test_lines_longer_than_a_read_chunk(tmp_path: Path) -> None:
    big = orjson.loads(LINES[5])  # a toolResult
    text = "0123456789abcdef" * (600 * 1024)  # 9.4 MiB: spans three 4 MiB reads
    big["message"]["content"] = [{"type": "text", "text": text}]
    path = tmp_path / "big.jsonl"
    data = b"\n".join([*LINES[:5], orjson.dumps(big), *LINES[6:]]) + b"\n"
    path.write_bytes(data + orjson.dumps(big)[: 5 << 20])  # and a cut-off 5 MiB last line
    session = load_session(path)
    assert [(d.line, d.kind) for d in session.diagnostics] == [(33, "truncated-line")]
    assert len(session.entries) == 31
    assert session.body("d7d69c8d")["message"]["content"][0]["text"] == text
    assert session.by_id[LEAF].line == 32
    assert session.size == len(data)
    assert len(build_context(session)["messages"]) == 26
