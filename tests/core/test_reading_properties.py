"""Property tests of reading: any file, however damaged, loads, builds its tree and context, and refreshes.

Hypothesis writes session files from valid and damaged lines (every entry type and its variants,
ids repeated, missing, not text or holding half a surrogate pair, parents before, after, self and
nowhere, so orphans and loops, invalid JSON, non-objects, a byte order mark, bad UTF-8, nesting
beyond any limit, two objects glued on one line, CRLF) and a torn tail. For each file:

* loading never fails, never writes, and the tree, the paths and the context at every leaf hold
  together (:func:`check_reading`);
* appending the same bytes in random chunks, with a refresh after each, gives exactly what a fresh
  load of the bytes so far gives (:func:`check_appends`).

The examples are bounded so the suite stays fast; ``benchmarks/fuzz_reading.py`` runs the same
properties for as long as asked. Every minimal failing input found is kept below as a regression
case (``REGRESSIONS``).
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from core import build_context, load_session, summarize
from core.session import DEFAULT_LEAF, Session, iter_context_items
from core.session.context import iter_context
from core.session.diagnostics import KINDS
from core.session.jsonl import encode_json
from core.session.vocabulary import KNOWN_TYPES, TYPE_ALIASES

# ---------------------------------------------------------------------------- what a file is made of
_IDS = ["e0", "e1", "e2", "e3", "e4", "e5"]  # few, so ids repeat and parents find each other
_TYPES = (
    sorted(KNOWN_TYPES) + sorted(TYPE_ALIASES) + ["mystery", "", "session", "header"]
)  # headers mid-file too
_ROLES = [
    "user",
    "assistant",
    "toolResult",
    "bashExecution",
    "custom",
    "system",
    "hookMessage",
    "branchSummary",
]
_ODD = st.sampled_from([None, 5, True, [], {}, ["x"], {"a": 1}, "", "x\ud800"])


def _deep(levels: int) -> object:
    value: object = "bottom"
    for _ in range(levels):
        value = [value]
    return value


_STAMPS = st.one_of(
    st.integers(0, 59).map(lambda s: f"2026-01-01T00:00:{s:02d}.000Z"),
    st.sampled_from(["2026-01-01", "garbage", "", 1767225600000, None]),
)
_CONTENT = st.one_of(
    st.text(max_size=8),
    st.none(),
    st.just(
        [{"type": "text", "text": "hi"}, {"type": "toolCall", "id": "t", "name": "bash", "arguments": {}}]
    ),
    st.just(
        [{"type": "thinking", "thinking": "hmm"}, {"type": "image", "data": "AAAA", "mimeType": "image/png"}]
    ),
    st.just(_deep(300)),  # deeper than orjson writes
    st.just("half \ud83d"),
)
_USAGE = st.one_of(
    st.just(
        {"input": 1, "output": 2, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 3, "cost": {"total": 0.5}}
    ),
    st.just({"totalTokens": "many"}),
    _ODD,
)


@st.composite
def _message(draw: st.DrawFn) -> object:
    if draw(st.integers(0, 9)) == 0:
        return draw(_ODD)
    message: dict[str, object] = {"role": draw(st.sampled_from(_ROLES))}
    if draw(st.booleans()):
        message["content"] = draw(_CONTENT)
    if message["role"] == "assistant":
        message.update(provider=draw(st.sampled_from(["p", None])), model="m", usage=draw(_USAGE))
        message["stopReason"] = draw(st.sampled_from(["stop", "pending", "deferred", None, 3]))
    return message


_REFERENCE = st.one_of(st.sampled_from(_IDS), _ODD)  # an id another field names


@st.composite
def _entry(draw: st.DrawFn) -> dict[str, object]:
    entry: dict[str, object] = {"type": draw(st.one_of(st.sampled_from(_TYPES), _ODD))}
    if draw(st.integers(0, 7)):
        entry["id"] = draw(st.one_of(st.sampled_from(_IDS), _ODD))
    if draw(st.integers(0, 7)):
        entry["parentId"] = draw(st.one_of(st.sampled_from(_IDS), st.none(), _ODD))
    entry["timestamp"] = draw(_STAMPS)
    kind = entry["type"] if isinstance(entry["type"], str) else ""
    kind = TYPE_ALIASES.get(kind, kind)
    if kind == "message" or draw(st.integers(0, 9)) == 0:
        entry["message"] = draw(_message())
    if kind == "compaction":
        entry.update(
            summary=draw(st.sampled_from(["S", "", None])), tokensBefore=draw(st.sampled_from([5, None]))
        )
        entry["firstKeptEntryId"] = draw(_REFERENCE)
        if draw(st.booleans()):
            entry["systemMessage"] = draw(st.one_of(_message(), st.none()))
        if draw(st.booleans()):
            entry["firstKeptEntryIndex"] = draw(st.one_of(st.integers(-1, 12), _ODD))
        if draw(st.booleans()):
            entry["customInstructions"] = "focus"
    elif kind == "context_edit":
        entry["targetId"] = draw(_REFERENCE)
        choice = draw(st.integers(0, 4))
        if choice == 0:
            entry["replacement"] = None
        elif choice == 1:
            entry["replacement"] = {"content": draw(_CONTENT)}
        elif choice == 2:
            entry["replacement"] = draw(_ODD)
        elif choice == 3:
            entry["replacement"] = {}
    elif kind in ("label", "child_usage_attributed"):
        entry["targetId"] = draw(_REFERENCE)
        entry["label"] = draw(st.one_of(st.text(max_size=4), _ODD))
        entry["aggregateUsage"] = draw(_USAGE)
    elif kind in ("custom_message", "branch_summary"):
        if draw(st.booleans()):
            entry["content"] = draw(_CONTENT)
        entry.update(
            customType="c", display=draw(st.booleans()), summary=draw(st.sampled_from(["sum", "", None]))
        )
        entry["fromId"] = draw(_REFERENCE)
    elif kind in ("session_info", "thinking_level_change", "service_tier_change", "model_change"):
        entry.update(
            name=draw(st.one_of(st.text(max_size=4), _ODD)), thinkingLevel="high", serviceTier="flex"
        )
        entry.update(provider="p", modelId=draw(st.sampled_from(["m", None])))
    return entry


def _dumps(value: object) -> bytes:
    return encode_json(value)


@st.composite
def _line(draw: st.DrawFn) -> bytes:
    shape = draw(st.integers(0, 19))
    if shape <= 10:
        return _dumps(draw(_entry()))
    if shape == 11:
        return _dumps(draw(_entry()))[:-3]  # invalid JSON: a cut line in the middle of the file
    if shape == 12:
        return draw(st.sampled_from([b"[1,2]", b"null", b'"text"', b"5", b"true"]))
    if shape == 13:
        return draw(st.sampled_from([b"", b"   ", b"\t"]))
    if shape == 14:
        return b"\xef\xbb\xbf" + _dumps(draw(_entry()))
    if shape == 15:
        return _dumps(draw(_entry())).replace(b'"e', b'"\xff', 1)  # invalid UTF-8 inside a string
    if shape == 16:
        return b"[" * 1100 + b"]" * 1100  # deeper than the loader reads
    if shape == 17:
        return _dumps(draw(_entry())) + _dumps(draw(_entry()))  # a crash, then an append on the same line
    if shape == 18:
        return _dumps(draw(_entry())) + b"\r"
    return _dumps(draw(_entry())).replace(b"\xe2\x80\xa8", b"") + "\u2028".encode()  # a line separator


_HEADERS = [
    {"type": "session", "version": 3, "id": "s-1", "timestamp": "2026-01-01T00:00:00.000Z", "cwd": "/w"},
    {"type": "session", "id": "s-1", "timestamp": "2026-01-01T00:00:00.000Z", "cwd": "/w"},  # v1
    {"type": "session", "version": 2, "id": "s-1", "timestamp": "2026-01-01T00:00:00.000Z", "cwd": "/w"},
    {"type": "session", "version": 4, "id": "s\ud800", "timestamp": "x", "cwd": "/w", "git": {}},
    {"type": "header", "workingDir": "/w", "timestamp": 1728123456789},
    {"type": "session", "version": "3", "id": 5},
]


@st.composite
def session_bytes(draw: st.DrawFn) -> bytes:
    """A whole session file: maybe a header, lines of every kind, maybe a final newline, maybe torn."""
    lines = [_dumps(draw(st.sampled_from(_HEADERS)))] if draw(st.integers(0, 5)) else []
    lines += draw(st.lists(_line(), max_size=14))
    data = b"\n".join(lines) + (b"\n" if draw(st.integers(0, 3)) else b"")
    if data and draw(st.integers(0, 3)) == 0:
        data = data[: draw(st.integers(0, len(data)))]  # a torn tail (a write cut short)
    return data


# ---------------------------------------------------------------------------- the properties
def _leaves(session: Session) -> list[str]:
    parents = {e.parent_id for e in session.by_id.values()}
    return [entry_id for entry_id in session.by_id if entry_id not in parents]


def check_reading(path: Path) -> None:
    """Everything that must hold for a file read once, whatever its bytes."""
    before = path.read_bytes()
    session = load_session(path)
    tree = session.tree
    order = tree.order
    assert len(order) == len(set(order)) and set(order) == set(session.by_id)
    assert sum(1 for _ in tree.walk()) == len(order)
    lines = before.count(b"\n") + 1
    for diagnostic in session.diagnostics:
        assert diagnostic.kind in KINDS and 0 <= diagnostic.line <= lines, diagnostic
    for entry_id in session.by_id:
        walk = session.path_to(entry_id)
        assert walk[-1].id == entry_id and walk[0].id in tree.root_ids
        assert len({e.id for e in walk}) == len(walk)
    for leaf in [DEFAULT_LEAF, None, *_leaves(session)]:
        context = build_context(session, leaf)
        settings, messages = iter_context(session, leaf, service_tier=True)
        listed = list(messages)
        assert listed == context["messages"]
        assert (
            settings["serviceTier"] == context.get("serviceTier", "default") or "serviceTier" not in context
        )
        _items_settings, items = iter_context_items(session, leaf)
        found = list(items)
        assert [item.message for item in found] == listed
        assert all(item.entry.id in session.by_id for item in found)
        encode_json(context)
    summarize(session)
    assert len(list(session.bodies(session.entries))) == len(session.entries)
    assert path.read_bytes() == before


def snapshot(session: Session) -> dict[str, object]:
    """Everything a reader can see, to compare a refreshed session with a fresh load of the same bytes."""
    return {
        "entries": [
            (e.id, e.parent_id, e.type, e.kind, e.line, e.offset, e.length, e.role, e.synthetic, e.info)
            for e in session.entries
        ],
        "by_id": {k: v.line for k, v in session.by_id.items()},
        "order": session.tree.order,
        "leaf": session.leaf_id,
        "labels": session.labels,
        "name": session.name,
        "diagnostics": [(d.line, d.kind, d.message, d.entry_id) for d in session.diagnostics],
        "header": session.header,
        "version": session.version,
        "size": session.size,
        "counts": (
            session.message_count,
            session.first_message,
            list(session.models),
            session.last_activity_ms,
        ),
        "flavour": session.flavour,
        "overrides": session.usage_overrides,
        "context": encode_json(build_context(session)),
    }


def check_appends(path: Path, data: bytes, cuts: list[int]) -> None:
    """``data`` written up to the first cut, then appended piece by piece with a refresh after each.

    After every refresh the session equals a fresh load of the bytes written so far.
    """
    bounds = sorted({c for c in cuts if 0 < c < len(data)})
    path.write_bytes(data[: bounds[0]] if bounds else data)
    session = load_session(path)
    ends = [*bounds[1:], len(data)] if bounds else []
    for start, end in zip(bounds, ends, strict=True):
        with open(path, "ab") as handle:
            handle.write(data[start:end])
        session.refresh()
        assert snapshot(session) == snapshot(load_session(path)), (start, end)
    assert snapshot(session) == snapshot(load_session(path))


PROPERTY = settings(
    max_examples=int(os.environ.get("PRIME_FUZZ_EXAMPLES", "60")),
    deadline=None,
    database=None,
    suppress_health_check=[
        HealthCheck.too_slow,
        HealthCheck.function_scoped_fixture,
        HealthCheck.data_too_large,
    ],
)


@PROPERTY
@given(data=session_bytes())
def test_any_file_loads_and_holds_together(tmp_path: Path, data: bytes) -> None:
    path = tmp_path / "fuzz.jsonl"
    path.write_bytes(data)
    check_reading(path)


@PROPERTY
@given(data=session_bytes(), cuts=st.lists(st.integers(1, 4000), max_size=5))
def test_appends_in_random_chunks_equal_a_fresh_load(tmp_path: Path, data: bytes, cuts: list[int]) -> None:
    check_appends(tmp_path / "grow.jsonl", data, [c % (len(data) + 1) for c in cuts])


# ---------------------------------------------------------------------------- minimal failing inputs found
_V3 = b'{"type":"session","version":3,"id":"s-1","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/w"}\n'
REGRESSIONS: list[tuple[str, bytes, list[int]]] = [
    # Runs of 3,000 and 10,000 examples per property found nothing more; these are the audit's (issue 15)
    # inputs that the properties catch, each of which failed before its fix.
    ("type-is-a-list", _V3 + b'{"type":[],"id":"a","parentId":null}\n', [40, 96]),
    ("type-is-an-object", _V3 + b'{"type":{"a":[1]},"id":"a","parentId":null}\n', [97]),
    (
        "surrogate-header-id-and-an-entry-without-id",
        b'{"type":"session","version":3,"id":"s\\ud800","timestamp":"x","cwd":"/w"}\n'
        b'{"type":"message","parentId":null,"message":{"role":"user","content":"hi"}}\n',
        [70],
    ),
]
"""``(what broke, the file's bytes, append cuts)``: each minimal input a run of these properties found."""


@pytest.mark.parametrize(("what", "data", "cuts"), REGRESSIONS, ids=[r[0] for r in REGRESSIONS])
def test_regressions_found_by_the_properties(tmp_path: Path, what: str, data: bytes, cuts: list[int]) -> None:
    path = tmp_path / "regression.jsonl"
    path.write_bytes(data)
    check_reading(path)
    check_appends(tmp_path / "grow.jsonl", data, cuts)
