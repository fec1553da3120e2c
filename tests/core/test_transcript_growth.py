"""The transcript to the leaf, kept and extended as the session grows, equals the one walked whole (issue 27).

A window asks for the leaf's transcript on its GUI thread after every append; walking a 520,000-entry
path took 1.2 s, so it is kept per session and extended by what was appended when that is a chain down
from the old leaf. Whatever was appended (a chain, a branch, repeated ids, an entry an orphan awaited,
a torn line), the transcript must be the one made from scratch on the same session.
"""

from __future__ import annotations

from pathlib import Path

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from core.session import load_session
from core.session.jsonl import encode_json
from core.visible import transcript as transcript_module
from core.visible.filters import FILTER_MODES
from core.visible.transcript import Transcript, transcript_of
from tests.core.test_reading_properties import session_bytes

_KINDS = st.sampled_from(
    [
        ("message", "user"),
        ("message", "assistant"),
        ("message", "toolResult"),
        ("custom", None),
        ("model_change", None),
        ("label", None),
        ("custom_message", None),
    ]
)


def _facts(transcript: Transcript, ids: list[str]) -> tuple[object, ...]:
    return (
        [entry.id for entry in transcript.entries],
        transcript.leaf_id,
        transcript.mode,
        transcript.switches,
        transcript.hidden_before,
        transcript.hidden_last,
        [transcript.slot_of(entry_id) for entry_id in ids],
        [transcript.nearest_slot(entry_id) for entry_id in ids],
    )


@st.composite
def _growth(draw: st.DrawFn, leaf: str | None) -> bytes:
    """Lines an agent appends: mostly a chain down from the leaf, sometimes a branch or an odd line."""
    lines = []
    parent = leaf
    for number in range(draw(st.integers(1, 6))):
        kind, role = draw(_KINDS)
        shape = draw(st.integers(0, 9))
        entry_id = f"g{number}" if shape != 0 else draw(st.sampled_from(["g0", "a", "b", "c"]))  # repeats
        entry: dict[str, object] = {"type": kind, "id": entry_id, "timestamp": "2026-02-01T00:00:00.000Z"}
        entry["parentId"] = parent if shape != 1 else draw(st.sampled_from([None, "a", "b", "missing"]))
        if role is not None:
            entry["message"] = {"role": role, "content": "x"}
        if kind == "label":
            entry.update(targetId=draw(st.sampled_from(["a", "b", parent])), label="L")
        lines.append(encode_json(entry))
        if shape != 2:  # 2: the next one branches from the same parent
            parent = entry_id
    torn = b'{"type":"mess' if draw(st.integers(0, 9)) == 0 else b""
    return b"\n".join(lines) + b"\n" + torn


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(base=session_bytes(), data=st.data())
@example(
    base=b'{"type":"session","version":3,"id":"s"}\n{"type":"message","id":"a","parentId":null}\n', data=None
)
def test_the_kept_transcript_equals_the_one_walked_whole(
    tmp_path: Path, base: bytes, data: st.DataObject
) -> None:
    path = tmp_path / "grows.jsonl"
    path.write_bytes(base if base.endswith(b"\n") or not base else base + b"\n")
    session = load_session(path)
    for mode in FILTER_MODES:
        transcript_of(session, None, mode)  # kept (the last mode asked is the one kept)
    mode = data.draw(st.sampled_from(FILTER_MODES)) if data is not None else "default"
    transcript_of(session, None, mode)
    growth = (
        data.draw(_growth(session.leaf_id))
        if data is not None
        else b'{"type":"message","id":"b","parentId":"a"}\n'
    )
    with open(path, "ab") as handle:
        handle.write(growth)
    session.refresh()
    ids = [entry.id for entry in session.entries]
    got = transcript_of(session, None, mode)
    walked = transcript_module._made(session, session.leaf_id, mode)
    assert _facts(got, ids) == _facts(walked, ids)
    # Asked again, for an entry on the path, it is the same object: nothing is walked twice.
    if got.entries and got.leaf_id == session.leaf_id:  # (a leaf with children continues below: not kept)
        assert transcript_of(session, got.entries[0].id, mode) is got


def test_a_chain_appended_at_the_leaf_is_not_walked_again(tmp_path: Path, monkeypatch) -> None:
    path = tmp_path / "chain.jsonl"
    lines = [encode_json({"type": "session", "version": 3, "id": "s", "timestamp": "2026-01-01T00:00:00Z"})]
    parent = None
    for number in range(200):
        entry = {
            "type": "message",
            "id": f"e{number}",
            "parentId": parent,
            "timestamp": "2026-01-01T00:00:00Z",
        }
        entry["message"] = {"role": "user" if number % 2 == 0 else "assistant", "content": "x"}
        lines.append(encode_json(entry))
        parent = f"e{number}"
    path.write_bytes(b"\n".join(lines) + b"\n")
    session = load_session(path)
    before = transcript_of(session, None, "default")
    walks = []
    real = transcript_module.conversation
    monkeypatch.setattr(transcript_module, "conversation", lambda *a: walks.append(a) or real(*a))
    with open(path, "ab") as handle:
        for number in range(200, 203):
            entry = {
                "type": "message",
                "id": f"e{number}",
                "parentId": f"e{number - 1}",
                "timestamp": "2026-01-01",
            }
            entry["message"] = {"role": "user", "content": "more"}
            handle.write(encode_json(entry) + b"\n")
    session.refresh()
    after = transcript_of(session, None, "default")
    assert not walks
    assert [e.id for e in after.entries] == [e.id for e in before.entries] + ["e200", "e201", "e202"]
    assert len(before) == 200  # the transcript a view still holds is left as it was


@st.composite
def _clean_base(draw: st.DrawFn) -> tuple[bytes, str]:
    """A tidy session (a chain of entries of every kind, maybe one side branch) and its leaf."""
    lines = [encode_json({"type": "session", "version": 3, "id": "s", "timestamp": "2026-01-01T00:00:00Z"})]
    parent = None
    count = draw(st.integers(1, 8))
    for number in range(count):
        kind, role = draw(_KINDS)
        entry: dict[str, object] = {"type": kind, "id": f"b{number}", "timestamp": "2026-01-01T00:00:00Z"}
        entry["parentId"] = parent
        if role is not None:
            entry["message"] = {"role": role, "content": "x"}
        if kind == "label":
            entry.update(targetId=parent, label="L")
        lines.append(encode_json(entry))
        parent = f"b{number}"
    return b"\n".join(lines) + b"\n", f"b{count - 1}"


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(base=_clean_base(), mode=st.sampled_from(FILTER_MODES), data=st.data())
def test_chains_grown_on_a_tidy_session_equal_the_walk(
    tmp_path: Path, base: tuple[bytes, str], mode: str, data: st.DataObject
) -> None:
    path = tmp_path / "tidy.jsonl"
    path.write_bytes(base[0])
    session = load_session(path)
    transcript_of(session, None, mode)
    for _round in range(data.draw(st.integers(1, 3))):
        with open(path, "ab") as handle:
            handle.write(data.draw(_growth(session.leaf_id)))
        session.refresh()
        ids = [entry.id for entry in session.entries]
        got = transcript_of(session, None, mode)
        assert _facts(got, ids) == _facts(transcript_module._made(session, session.leaf_id, mode), ids)


def test_a_file_read_again_whole_never_gets_the_transcript_kept_before(tmp_path: Path) -> None:
    # The same number of entries and the same leaf after a rewrite: the kept transcript's entries are the
    # old records (other offsets), so it must be made again from the new ones.
    path = tmp_path / "rewritten.jsonl"
    header = encode_json({"type": "session", "version": 3, "id": "s", "timestamp": "2026-01-01T00:00:00Z"})

    def write(text: str) -> None:
        lines = [header]
        for number, parent in ((0, None), (1, "e0")):
            entry = {"type": "message", "id": f"e{number}", "parentId": parent, "timestamp": "2026-01-01"}
            lines.append(encode_json({**entry, "message": {"role": "user", "content": text}}))
        path.write_bytes(b"\n".join(lines) + b"\n")

    write("short")
    session = load_session(path)
    before = transcript_of(session, None, "default")
    write("a much longer text than before, so every offset moves")
    assert session.refresh().reloaded
    after = transcript_of(session, None, "default")
    assert after is not before
    assert all(a is b for a, b in zip(after.entries, session.entries, strict=True))
