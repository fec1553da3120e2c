"""Damaged input: never a crash, never a hang, and one diagnostic per problem at the right line.

The bad files are built in tmp_path from real lines of the reference samples. Every load goes
through :func:`load`, which also checks that reading never writes and that the tree, the path to
every entry and the context all terminate and stay consistent.
"""

from __future__ import annotations

import json
import os
import random
import re
import shutil
import threading
from collections.abc import Callable
from pathlib import Path

import orjson
import pytest

from core import DEFAULT_LEAF, build_context, load_session, summarize
from core.kinds import entry_preview
from core.session import Session
from core.session.diagnostics import KINDS, Severity
from tests.conftest import EXPECTED, SAMPLES

PI = SAMPLES / "pi-layout" / "sessions"
LINEAR = (
    PI / "--home-dev-acme-webapp--" / "2026-03-02T09-14-07-122Z_019cadd3-8790-713f-9a8d-f2ee097914b9.jsonl"
)
BRANCHES = (
    PI / "--home-dev-acme-webapp--" / "2026-03-03T14-02-51-403Z_019cb402-3c88-7599-9816-357889a14de5.jsonl"
)
EDGE = (
    PI / "--C--Users-dev-win proj--" / "2026-03-06T16-45-00-001Z_019cc409-c2e0-75b3-a20f-83af0558f9e7.jsonl"
)
LINEAR_ID = "019cadd3-8790-713f-9a8d-f2ee097914b9"
LINEAR_LEAF = "8721c1f9"


def _lines(path: Path) -> list[bytes]:
    data = path.read_bytes()
    assert data.endswith(b"\n")
    return data[:-1].split(b"\n")


# linear: line 1 header, lines 2..32 a single chain of 31 entries (ids below by line number)
LINES = _lines(LINEAR)
ORIGINAL_ORDER = [orjson.loads(line)["id"] for line in LINES[1:]]
EMPTY_CONTEXT = {"messages": [], "thinkingLevel": "off", "model": None}


def _expected_context(name: str) -> dict:
    context = json.loads((EXPECTED / f"{name}.context.json").read_text())["context"]
    return {k: context[k] for k in ("messages", "thinkingLevel", "model")}


LINEAR_CONTEXT = _expected_context("linear")


# ---------------------------------------------------------------------------- helpers
def bounded(fn: Callable[[], object], seconds: float = 60) -> object:
    """Run ``fn`` in a daemon thread and fail (instead of hanging the suite) if it never returns."""
    box: dict[str, object] = {}

    def run() -> None:
        try:
            box["value"] = fn()
        except BaseException as err:  # re-raised in the test's thread
            box["error"] = err

    worker = threading.Thread(target=run, daemon=True)
    worker.start()
    worker.join(seconds)
    if worker.is_alive():
        pytest.fail(f"did not finish within {seconds} s: probably an endless loop")
    if "error" in box:
        raise box["error"]  # type: ignore[misc]
    return box.get("value")


def relink(line: bytes, **changes: object) -> bytes:
    """A real line with some keys changed (``drop=[...]`` removes keys); key order is kept."""
    obj = orjson.loads(line)
    for key in changes.pop("drop", ()):  # type: ignore[attr-defined]
        obj.pop(key, None)
    obj.update(changes)
    return orjson.dumps(obj)


def write(tmp_path: Path, lines: list[bytes], *, end: bytes = b"\n", name: str = "s.jsonl") -> Path:
    path = tmp_path / name
    path.write_bytes(b"\n".join(lines) + end if lines else b"")
    return path


def check_invariants(session: Session, line_count: int) -> None:
    """What must hold for any file, however damaged."""
    tree = session.tree
    order = tree.order
    assert len(order) == len(set(order)), "an entry appears twice in the tree"
    assert set(order) == set(session.by_id), "the tree lost or invented entries"
    assert [e.id for e in tree.roots] == [i for i in order if i in tree.root_ids]
    for diagnostic in session.diagnostics:
        assert diagnostic.kind in KINDS, diagnostic
        assert 0 <= diagnostic.line <= line_count, diagnostic
    assert sum(1 for _ in tree.walk()) == len(order)
    ids = list(session.by_id) if len(session.by_id) <= 400 else [session.leaf_id]
    for entry_id in ids:
        path = session.path_to(entry_id)
        assert path[-1].id == entry_id
        assert path[0].id in tree.root_ids
        assert len({e.id for e in path}) == len(path)
    leaf = session.leaf_id
    if leaf is not None:
        assert session.path_to(leaf)[-1] is session.by_id[leaf]
    context = build_context(session)
    assert set(context) >= {"messages", "model"}
    assert build_context(session, None) == EMPTY_CONTEXT
    summarize(session)
    for entry, body in zip(session.entries, session.bodies(session.entries), strict=True):
        assert isinstance(entry_preview(entry, body), str)


def load(path: Path) -> Session:
    """Load with a hang guard, check every invariant, and check that nothing was written."""
    before = path.read_bytes()
    mtime = path.stat().st_mtime_ns
    listing = sorted(os.listdir(path.parent))

    def work() -> Session:
        session = load_session(path)
        check_invariants(session, before.count(b"\n") + 1)
        return session

    session = bounded(work)
    assert path.read_bytes() == before, "loading changed the file"
    assert path.stat().st_mtime_ns == mtime, "loading touched the file"
    assert sorted(os.listdir(path.parent)) == listing, "loading created files"
    return session  # type: ignore[return-value]


def diags(session: Session) -> list[tuple[int, str]]:
    return [(d.line, d.kind) for d in session.diagnostics]


def context_json(session: Session, leaf: object = DEFAULT_LEAF) -> dict:
    """The context after a JSON round trip, as the reference's output is compared."""
    return json.loads(orjson.dumps(build_context(session, leaf)))


# ---------------------------------------------------------------------------- the undamaged base
def test_the_base_sample_is_clean(tmp_path: Path) -> None:
    session = load(write(tmp_path, LINES))
    assert diags(session) == []
    assert len(session.entries) == 31
    assert session.tree.order == ORIGINAL_ORDER
    assert context_json(session) == LINEAR_CONTEXT


# ---------------------------------------------------------------------------- invalid JSON
def test_invalid_json_lines_anywhere_are_skipped_with_their_line_numbers(tmp_path: Path) -> None:
    bad = [b'{"type":"message","id":', b"not json at all", b"}{"]
    lines = [LINES[0], bad[0], *LINES[1:15], bad[1], *LINES[15:], bad[2]]
    session = load(write(tmp_path, lines))
    assert diags(session) == [(2, "invalid-json"), (17, "invalid-json"), (35, "invalid-json")]
    assert all(d.severity is Severity.ERROR for d in session.diagnostics)
    assert len(session.entries) == 31
    assert session.tree.order == ORIGINAL_ORDER
    assert session.by_id[LINEAR_LEAF].line == 34
    assert session.by_id["5cc0dd08"].line == 3
    assert session.leaf_id == LINEAR_LEAF
    assert context_json(session) == LINEAR_CONTEXT


def test_an_entry_replaced_by_garbage_orphans_its_child(tmp_path: Path) -> None:
    lines = list(LINES)
    lines[9] = b'{"type":"message","id":"366a9444","parentId":"ce62598e","timest'  # line 10, cut
    session = load(write(tmp_path, lines))
    assert diags(session) == [(10, "invalid-json"), (11, "orphan")]
    orphan = session.diagnostics[1]
    assert orphan.entry_id == "42c4e4ec"
    assert [e.id for e in session.tree.roots] == ["5cc0dd08", "42c4e4ec"]
    path = session.path_to(LINEAR_LEAF)
    assert path[0].id == "42c4e4ec"
    assert len(path) == 22  # lines 11..32
    context = context_json(session)
    # 14 messages (lines 11-24), the custom_message (28), 4 messages (29-32); the thinking change
    # on line 3 is no longer on the path
    assert len(context["messages"]) == 19
    assert context["thinkingLevel"] == "off"
    assert context["model"] == {"provider": "anthropic", "modelId": "claude-sonnet-4-5"}
    assert context["messages"] == LINEAR_CONTEXT["messages"][-19:]


def test_a_corrupt_header_line_is_invalid_json_and_the_header_is_missing(tmp_path: Path) -> None:
    lines = [LINES[0][:40], *LINES[1:]]
    session = load(write(tmp_path, lines))
    assert diags(session) == [(1, "invalid-json"), (2, "missing-header")]
    assert session.header is None
    assert session.session_id is None
    assert session.cwd == ""
    assert len(session.entries) == 31
    assert context_json(session) == LINEAR_CONTEXT


def test_a_file_of_garbage_only(tmp_path: Path) -> None:
    # Not a session at all: one sentence for the file (issue 17), not a row per line.
    session = load(write(tmp_path, [b"garbage", b"{", b"]"]))
    assert session.not_a_session
    assert diags(session) == [(0, "not-a-session")]
    assert session.entries == []
    assert build_context(session) == EMPTY_CONTEXT


def test_deeply_nested_json_is_invalid_not_a_crash(tmp_path: Path) -> None:
    lines = [*LINES, b"[" * 200_000 + b"]" * 200_000, b'{"a":' * 50_000]
    session = load(write(tmp_path, lines))
    assert diags(session) == [(33, "invalid-json"), (34, "invalid-json")]


# ---------------------------------------------------------------------------- invalid UTF-8
def test_invalid_utf8_is_read_as_replacement_characters(tmp_path: Path) -> None:
    lines = list(LINES)
    assert b"submits twice" in lines[3]
    lines[3] = lines[3].replace(b"submits twice", b"sub\xffmits tw\xe2\x82ice")  # line 4
    lines[13] = lines[13].replace(b'"text":"', b'"text":"caf\xe9 \xed\xa0\x80 \xf0\x9f\x98!', 1)
    session = load(write(tmp_path, lines))
    assert diags(session) == [(4, "invalid-utf8"), (14, "invalid-utf8")]
    assert session.diagnostics[0].severity is Severity.WARNING
    first = session.body("3e61bbfd")["message"]["content"]
    assert first.startswith("The login form sub\ufffdmits tw\ufffdice when I press Enter")
    # maximal subparts, as TextDecoder/WHATWG: a lone byte, an encoded surrogate (3), a cut 4-byte form
    assert session.body("7ee2c1e3")["message"]["content"][0]["text"].startswith(
        "caf\ufffd \ufffd\ufffd\ufffd \ufffd!"
    )
    assert session.tree.order == ORIGINAL_ORDER
    messages = context_json(session)["messages"]
    assert messages[0]["content"] == first
    assert session.first_message == first


def test_invalid_utf8_outside_a_string_is_invalid_json(tmp_path: Path) -> None:
    lines = [*LINES, b'{"type":"custom"\xff,"id":"x1","parentId":"8721c1f9"}']
    session = load(write(tmp_path, lines))
    assert diags(session) == [(33, "invalid-json")]
    assert len(session.entries) == 31


def test_lone_surrogate_escapes_load_like_json_parse(tmp_path: Path) -> None:
    line = relink(LINES[31], id="surr0001", parentId=LINEAR_LEAF).replace(
        b'"text":"', b'"text":"\\ud800 and \\udc00 ', 1
    )
    session = load(write(tmp_path, [*LINES, line]))
    assert diags(session) == []
    text = build_context(session)["messages"][-1]["content"][0]["text"]
    assert text.startswith("\ud800 and \udc00 ")


@pytest.mark.parametrize("odd", [b"[]", b'["message"]', b"{}", b'{"x":1}'])
def test_a_type_that_is_a_list_or_an_object_costs_only_its_line(tmp_path: Path, odd: bytes) -> None:
    # Issue 15: a list or an object cannot be looked up in a set of type names; it crashed every reader.
    line = relink(LINES[31], id="odd00001", parentId=LINEAR_LEAF).replace(
        b'"type":"message"', b'"type":' + odd, 1
    )
    session = load(write(tmp_path, [*LINES, line]))
    assert diags(session) == [(33, "invalid-field")]
    assert "not text" in session.diagnostics[0].message
    odd_entry = session.by_id["odd00001"]
    assert (odd_entry.type, odd_entry.kind, odd_entry.is_known) == ("", "(no type)", False)
    assert context_json(session, LINEAR_LEAF) == LINEAR_CONTEXT
    assert len(session.entries) == 32


def test_a_lone_surrogate_in_an_entry_id_and_the_header_id(tmp_path: Path) -> None:
    # Issue 15: with half a surrogate pair in the header id, synthesising an id for an id-less entry
    # failed to encode it, and the whole file was unreadable.
    header = LINES[0].replace(LINEAR_ID.encode(), b"head\\ud800er", 1)
    idless = relink(LINES[1], drop=["id", "parentId"])
    odd = relink(LINES[2], parentId=None).replace(b'"id":"', b'"id":"x\\udc00', 1)
    session = load(write(tmp_path, [header, idless, odd, *LINES[3:]]))
    assert session.session_id == "head\ud800er"
    assert diags(session) == [(2, "missing-id"), (4, "orphan")]
    surrogate = "x\udc00" + orjson.loads(LINES[2])["id"]
    assert surrogate in session.by_id
    assert session.body(surrogate)["id"] == surrogate
    # Ids are handed out as written; whoever writes one out must allow the surrogate.
    assert surrogate.encode("utf-8", "surrogatepass")
    again = load_session(write(tmp_path, [header, idless, odd, *LINES[3:]], name="again.jsonl"))
    assert session.entries[0].id == again.entries[0].id  # synthesised ids do not depend on the run


# ---------------------------------------------------------------------------- the last line
def test_a_truncated_last_line_is_held_back(tmp_path: Path) -> None:
    last = LINES[-1]
    fragment = last[: len(last) // 2]
    path = write(tmp_path, [*LINES[:-1], fragment], end=b"")
    session = load(path)
    assert diags(session) == [(32, "truncated-line")]
    assert session.diagnostics[0].severity is Severity.ERROR
    assert len(session.entries) == 30
    assert LINEAR_LEAF not in session.by_id
    assert session.leaf_id == "019a4971"
    assert session.size == path.stat().st_size - len(fragment)
    assert session.ends_with_newline


def test_a_truncated_header_alone(tmp_path: Path) -> None:
    session = load(write(tmp_path, [LINES[0][:30]], end=b""))
    assert diags(session) == [(0, "missing-header"), (1, "truncated-line")]
    assert session.entries == []
    assert session.size == 0


def test_a_complete_last_entry_without_newline_is_indexed(tmp_path: Path) -> None:
    path = write(tmp_path, LINES, end=b"")
    session = load(path)
    assert diags(session) == []
    assert len(session.entries) == 31
    assert session.leaf_id == LINEAR_LEAF
    assert not session.ends_with_newline
    assert session.size == path.stat().st_size
    assert context_json(session) == LINEAR_CONTEXT


def test_trailing_whitespace_without_newline_is_ignored(tmp_path: Path) -> None:
    session = load(write(tmp_path, LINES, end=b"\n  \t"))
    assert diags(session) == []
    assert session.leaf_id == LINEAR_LEAF


# ---------------------------------------------------------------------------- header problems
def test_missing_header(tmp_path: Path) -> None:
    session = load(write(tmp_path, LINES[1:]))
    assert diags(session) == [(1, "missing-header")]
    assert session.diagnostics[0].severity is Severity.ERROR
    assert session.header is None
    assert session.version == 3
    assert len(session.entries) == 31
    assert session.by_id["5cc0dd08"].line == 1
    assert session.tree.order == ORIGINAL_ORDER
    assert context_json(session) == LINEAR_CONTEXT
    assert session.name == "Fix double submit on login form"


def test_empty_file(tmp_path: Path) -> None:
    session = load(write(tmp_path, []))
    assert diags(session) == [(0, "missing-header")]
    assert session.entries == []
    assert session.leaf_id is None
    assert session.leaf is None
    assert session.tree.order == []
    assert session.path_to(None) == []
    assert build_context(session) == EMPTY_CONTEXT
    assert build_context(session, "anything") == EMPTY_CONTEXT
    assert summarize(session).firstMessage == "(no messages)"


def test_only_blank_lines(tmp_path: Path) -> None:
    session = load(write(tmp_path, [b"", b"   ", b"\t", b"\r", b""]))
    assert diags(session) == [(0, "missing-header")]
    assert session.entries == []
    assert build_context(session) == EMPTY_CONTEXT


def test_blank_lines_between_entries_count_as_lines(tmp_path: Path) -> None:
    lines = [LINES[0], b"", *LINES[1:10], b"   ", b"\r", *LINES[10:]]
    session = load(write(tmp_path, lines, end=b"\n\n\n"))
    assert diags(session) == []
    assert session.by_id["5cc0dd08"].line == 3
    assert session.by_id[LINEAR_LEAF].line == 35
    assert context_json(session) == LINEAR_CONTEXT


def test_a_duplicate_header_is_ignored(tmp_path: Path) -> None:
    other = relink(LINES[0], id="019cffff-0000-7000-8000-000000000000", cwd="/elsewhere")
    lines = [*LINES[:10], LINES[0], *LINES[10:20], other, *LINES[20:]]
    session = load(write(tmp_path, lines))
    assert diags(session) == [(11, "duplicate-header"), (22, "duplicate-header")]
    assert session.session_id == LINEAR_ID
    assert session.cwd == "/home/dev/acme-webapp"
    assert session.header_line == 1
    assert len(session.entries) == 31
    assert context_json(session) == LINEAR_CONTEXT


def test_the_reference_rewrite_quirk_duplicate_header_and_ids(tmp_path: Path) -> None:
    # FORMAT.md 4: opening a file without an assistant and appending writes everything again,
    # header included, once the assistant arrives.
    lines = [*LINES[:4], *LINES[:4], LINES[4]]
    session = load(write(tmp_path, lines))
    assert diags(session) == [
        (5, "duplicate-header"),
        (6, "duplicate-id"),
        (7, "duplicate-id"),
        (8, "duplicate-id"),
    ]
    assert [d.entry_id for d in session.diagnostics[1:]] == ["5cc0dd08", "27cf69a1", "3e61bbfd"]
    assert len(session.entries) == 7
    assert len(session.by_id) == 4
    assert [session.by_id[i].line for i in ("5cc0dd08", "27cf69a1", "3e61bbfd", "40efd13e")] == [6, 7, 8, 9]
    assert session.tree.order == ["5cc0dd08", "27cf69a1", "3e61bbfd", "40efd13e"]
    assert [e.line for e in session.path_to("40efd13e")] == [6, 7, 8, 9]
    context = context_json(session)
    assert [m["role"] for m in context["messages"]] == ["user", "assistant"]
    assert context["thinkingLevel"] == "medium"


# ---------------------------------------------------------------------------- duplicate ids
def test_duplicate_ids_later_wins_and_both_are_kept(tmp_path: Path) -> None:
    obj = orjson.loads(LINES[31])
    obj["message"]["content"] = [{"type": "text", "text": "DUPLICATE"}]
    later = orjson.dumps(obj)
    child = relink(LINES[30], id="child001", parentId=LINEAR_LEAF)
    session = load(write(tmp_path, [*LINES, later, child]))
    assert diags(session) == [(33, "duplicate-id")]
    assert session.diagnostics[0].entry_id == LINEAR_LEAF
    assert "line 32" in session.diagnostics[0].message
    assert [e.line for e in session.entries if e.id == LINEAR_LEAF] == [32, 33]
    assert len(session.entries) == 33
    assert session.by_id[LINEAR_LEAF].line == 33
    assert session.tree.order == [*ORIGINAL_ORDER, "child001"]
    assert [e.id for e in session.tree.children_of("019a4971")] == [LINEAR_LEAF]
    assert session.tree.children_of("019a4971")[0].line == 33
    assert [e.line for e in session.path_to("child001")[-3:]] == [31, 33, 34]
    messages = context_json(session, LINEAR_LEAF)["messages"]
    assert messages[-1]["content"] == [{"type": "text", "text": "DUPLICATE"}]
    assert len(messages) == len(LINEAR_CONTEXT["messages"])


# ---------------------------------------------------------------------------- broken links
def test_orphans_become_roots(tmp_path: Path) -> None:
    orphan = relink(LINES[3], id="orph0001", parentId="doesnotexist")
    child = relink(LINES[4], id="orph0002", parentId="orph0001")
    session = load(write(tmp_path, [*LINES, orphan, child]))
    assert diags(session) == [(33, "orphan")]
    assert session.diagnostics[0].entry_id == "orph0001"
    assert session.diagnostics[0].severity is Severity.WARNING
    assert [e.id for e in session.tree.roots] == ["5cc0dd08", "orph0001"]
    assert session.leaf_id == "orph0002"
    assert [e.id for e in session.path_to("orph0002")] == ["orph0001", "orph0002"]
    context = context_json(session)
    assert [m["role"] for m in context["messages"]] == ["user", "assistant"]
    assert context["thinkingLevel"] == "off"
    assert context["model"] == {"provider": "anthropic", "modelId": "claude-sonnet-4-5"}


def test_a_non_string_parent_id_is_a_root(tmp_path: Path) -> None:
    session = load(write(tmp_path, [*LINES, relink(LINES[3], id="numparen", parentId=42)]))
    assert diags(session) == [(33, "invalid-field")]
    assert session.by_id["numparen"].parent_id is None
    assert "numparen" in session.tree.root_ids


def test_self_parent_is_a_root_and_terminates(tmp_path: Path) -> None:
    me = relink(LINES[3], id="selfself", parentId="selfself")
    kid = relink(LINES[4], id="kid00001", parentId="selfself")
    session = load(write(tmp_path, [*LINES, me, kid]))
    assert diags(session) == [(33, "self-parent")]
    assert session.diagnostics[0].entry_id == "selfself"
    assert "selfself" in session.tree.root_ids
    assert [e.id for e in session.path_to("kid00001")] == ["selfself", "kid00001"]
    assert [e.id for e in session.path_to("selfself")] == ["selfself"]
    assert len(context_json(session)["messages"]) == 2
    assert len(session.tree.order) == 33


def test_a_two_entry_cycle(tmp_path: Path) -> None:
    a = relink(LINES[3], id="cyca0001", parentId="cycb0002")
    b = relink(LINES[4], id="cycb0002", parentId="cyca0001")
    session = load(write(tmp_path, [*LINES, a, b]))
    assert diags(session) == [(33, "cycle")]
    cycle = session.diagnostics[0]
    assert cycle.entry_id == "cyca0001"
    assert "lines 33, 34" in cycle.message
    assert cycle.severity is Severity.ERROR
    assert session.tree.order == [*ORIGINAL_ORDER, "cyca0001", "cycb0002"]
    assert [e.id for e in session.tree.roots] == ["5cc0dd08", "cyca0001"]
    assert [e.id for e in session.tree.children_of("cyca0001")] == ["cycb0002"]
    assert session.tree.children_of("cycb0002") == []
    assert [e.id for e in session.path_to("cycb0002")] == ["cyca0001", "cycb0002"]
    assert [e.id for e in session.path_to("cyca0001")] == ["cyca0001"]
    assert [m["role"] for m in context_json(session)["messages"]] == ["user", "assistant"]
    assert [m["role"] for m in context_json(session, "cyca0001")["messages"]] == ["user"]


def test_a_long_cycle_with_tails_and_no_real_root(tmp_path: Path) -> None:
    # file order: t1 (hangs off c3), c4, c5, c6, c1, c2, c3, t2 (hangs off t1); c1's parent is c6
    template = LINES[3]
    spec = [("t1", "c3"), ("c4", "c3"), ("c5", "c4"), ("c6", "c5"), ("c1", "c6"), ("c2", "c1"), ("c3", "c2")]
    spec.append(("t2", "t1"))
    lines = [LINES[0], *(relink(template, id=i, parentId=p) for i, p in spec)]
    session = load(write(tmp_path, lines))
    assert diags(session) == [(3, "cycle")]
    assert session.diagnostics[0].entry_id == "c4"
    assert "lines 3, 4, 5, 6, 7, 8" in session.diagnostics[0].message
    assert [e.id for e in session.tree.roots] == ["c4"]
    assert session.tree.order == ["c4", "c5", "c6", "c1", "c2", "c3", "t1", "t2"]
    assert [e.id for e in session.path_to("t2")] == ["c4", "c5", "c6", "c1", "c2", "c3", "t1", "t2"]
    assert len(context_json(session)["messages"]) == 8
    walk = [(e.id, depth) for e, depth in session.tree.walk()]
    assert [i for i, _ in walk] == session.tree.order


def test_two_separate_cycles_are_both_broken(tmp_path: Path) -> None:
    pairs = [("p1", "p2"), ("q1", "q3"), ("p2", "p1"), ("q2", "q1"), ("q3", "q2")]
    lines = [*LINES, *(relink(LINES[3], id=i, parentId=p) for i, p in pairs)]
    session = load(write(tmp_path, lines))
    assert diags(session) == [(33, "cycle"), (34, "cycle")]
    assert [d.entry_id for d in session.diagnostics] == ["p1", "q1"]
    assert session.tree.order[31:] == ["p1", "p2", "q1", "q2", "q3"]


def test_a_cycle_made_by_duplicate_ids(tmp_path: Path) -> None:
    lines = list(LINES)
    # line 31 takes the id of line 29; line 30 (3528173a) names 7e2e3096 as parent, which now is
    # line 31, whose parent is 3528173a: a loop that hangs the reference's getTree.
    lines[30] = relink(LINES[30], id="7e2e3096")
    lines[31] = relink(LINES[31], parentId="7e2e3096")
    session = load(write(tmp_path, lines))
    assert diags(session) == [(30, "cycle"), (31, "duplicate-id")]
    assert session.diagnostics[0].entry_id == "3528173a"
    assert len(session.entries) == 31
    assert len(session.by_id) == 30
    assert len(session.tree.order) == 30
    assert session.tree.order[-3:] == ["3528173a", "7e2e3096", LINEAR_LEAF]
    assert [e.line for e in session.path_to(LINEAR_LEAF)] == [30, 31, 32]
    assert session.tree.children_of("8ebaa6b0") == []
    context = context_json(session)
    assert [m["role"] for m in context["messages"]] == ["assistant", "user", "assistant"]
    assert context["messages"][1] == orjson.loads(LINES[30])["message"]


@pytest.mark.parametrize("seed", range(12))
def test_random_parent_links_never_hang(tmp_path: Path, seed: int) -> None:
    rng = random.Random(seed)
    ids = [f"{rng.getrandbits(32):08x}" for _ in range(150)]
    ids += rng.sample(ids, 20)  # duplicates
    rng.shuffle(ids)
    lines = [LINES[0]]
    for entry_id in ids:
        parent = rng.choice([None, entry_id, "missing0", *rng.sample(ids, 3)])
        lines.append(relink(rng.choice(LINES[1:]), id=entry_id, parentId=parent))
    session = load(write(tmp_path, lines))
    assert len(session.entries) == 170
    assert len(session.tree.order) == len(set(ids))
    kinds = {kind for _, kind in diags(session)}
    assert kinds <= {"duplicate-id", "orphan", "self-parent", "cycle"}


# ---------------------------------------------------------------------------- odd lines
@pytest.mark.parametrize("value", [b"null", b"42", b'"text"', b"[1, 2]", b"true", b"-0.5e3", b"[]"])
def test_non_object_json_lines_are_skipped(tmp_path: Path, value: bytes) -> None:
    session = load(write(tmp_path, [LINES[0], value, *LINES[1:20], value, *LINES[20:]]))
    assert diags(session) == [(2, "not-an-object"), (22, "not-an-object")]
    assert len(session.entries) == 31
    assert context_json(session) == LINEAR_CONTEXT


def test_an_empty_object_is_kept_as_an_unknown_entry(tmp_path: Path) -> None:
    session = load(write(tmp_path, [*LINES, b"{}"]))
    assert sorted(diags(session)) == [(33, "invalid-timestamp"), (33, "missing-id"), (33, "unknown-type")]
    entry = session.entries[-1]
    assert entry.kind == "(no type)"
    assert not entry.is_known
    assert entry.parent_id == LINEAR_LEAF
    assert context_json(session)["messages"] == LINEAR_CONTEXT["messages"]


@pytest.mark.parametrize("bad_id", [None, "", 123, ["x"]], ids=["absent", "empty", "number", "list"])
def test_entries_without_an_id_in_a_v3_file(tmp_path: Path, bad_id: object) -> None:
    lines = list(LINES)
    lines[19] = relink(LINES[19], drop=["id"]) if bad_id is None else relink(LINES[19], id=bad_id)  # line 20
    path = write(tmp_path, lines)
    session = load(path)
    assert diags(session) == [(20, "missing-id"), (21, "orphan")]
    assert session.diagnostics[1].entry_id == "a1285bb6"  # its child named the lost id
    entry = session.entries[18]
    assert entry.line == 20
    assert entry.synthetic
    assert len(entry.id) == 8 and int(entry.id, 16) >= 0
    assert entry.id not in ORIGINAL_ORDER
    assert entry.parent_id == "01250a0e"  # chained to the previous entry
    assert session.diagnostics[0].entry_id == entry.id
    assert session.body(entry)["id"] == entry.id
    assert load_session(path).entries[18].id == entry.id  # the same id on every load


def test_an_id_less_entry_without_parent_is_chained_to_the_previous_entry(tmp_path: Path) -> None:
    line = relink(LINES[3], drop=["id", "parentId"])
    session = load(write(tmp_path, [*LINES, line, line]))
    assert diags(session) == [(33, "missing-id"), (34, "missing-id")]
    first, second = session.entries[-2:]
    assert first.id != second.id
    assert first.parent_id == LINEAR_LEAF
    assert second.parent_id == first.id
    assert session.leaf_id == second.id
    assert len(session.path_to(second.id)) == 33


# ---------------------------------------------------------------------------- line framing
def test_crlf_line_endings(tmp_path: Path) -> None:
    path = tmp_path / "crlf.jsonl"
    path.write_bytes(b"\r\n".join(LINES) + b"\r\n")
    session = load(path)
    assert diags(session) == []
    assert session.tree.order == ORIGINAL_ORDER
    assert session.by_id[LINEAR_LEAF].line == 32
    assert session.labels == {"3e61bbfd": "bug-report"}
    assert session.name == "Fix double submit on login form"
    assert context_json(session) == LINEAR_CONTEXT


def test_a_bom_at_file_start(tmp_path: Path) -> None:
    path = tmp_path / "bom.jsonl"
    path.write_bytes(b"\xef\xbb\xbf" + b"\r\n".join(LINES) + b"\r\n")
    session = load(path)
    assert diags(session) == [(1, "variant")]
    assert not session.diagnostics[0].is_problem
    assert session.session_id == LINEAR_ID
    assert session.header_line == 1
    assert len(session.entries) == 31
    assert context_json(session) == LINEAR_CONTEXT


def test_unicode_line_separators_inside_strings_do_not_split_lines(tmp_path: Path) -> None:
    weird = "a\u2028b\u2029c\u0085d\x1ce\x0bf\x0cg\u000bh"
    lines = list(LINES)
    lines[3] = relink(LINES[3], message={**orjson.loads(LINES[3])["message"], "content": weird})
    lines[24] = relink(LINES[24], name="Name\u2028with\u2029breaks\u0085")  # the session_info
    data = b"\n".join(lines) + b"\n"
    assert b"\xe2\x80\xa8" in data and b"\xc2\x85" in data  # written raw, as JSON.stringify does
    assert len(data.decode().splitlines()) > len(lines)  # str.splitlines would have split them
    path = tmp_path / "seps.jsonl"
    path.write_bytes(data)
    session = load(path)
    assert diags(session) == []
    assert len(session.entries) == 31
    assert [e.line for e in session.entries] == list(range(2, 33))
    assert session.body("3e61bbfd")["message"]["content"] == weird
    assert session.first_message == weird
    assert session.name == "Name\u2028with\u2029breaks"  # trimmed as JavaScript's trim() does
    assert context_json(session)["messages"][0]["content"] == weird


# ---------------------------------------------------------------------------- odd values
def test_content_null_message(tmp_path: Path) -> None:
    lines = list(LINES)
    lines[3] = relink(LINES[3], message={**orjson.loads(LINES[3])["message"], "content": None})
    session = load(write(tmp_path, lines))
    assert diags(session) == []
    assert session.message_count == 25
    summary = summarize(session)
    assert summary.messageCount == 25
    assert summary.firstMessage == "Here's a screenshot of the console, is this warning related?"
    messages = context_json(session)["messages"]
    assert messages[0] == {"role": "user", "content": None, "timestamp": 1772442982126}
    assert len(messages) == len(LINEAR_CONTEXT["messages"])


def test_message_entries_with_odd_message_values(tmp_path: Path) -> None:
    odd = [
        relink(LINES[3], id="odd00001", parentId=LINEAR_LEAF, message="just a string"),
        relink(LINES[3], id="odd00002", parentId="odd00001", drop=["message"]),
        relink(LINES[3], id="odd00003", parentId="odd00002", message={"role": 7, "content": {"a": 1}}),
        relink(LINES[4], id="odd00004", parentId="odd00003", message={"role": "assistant", "content": "x"}),
    ]
    session = load(write(tmp_path, [*LINES, *odd]))
    assert diags(session) == [(33, "invalid-field"), (34, "invalid-field")]
    messages = context_json(session)["messages"]
    # message entries are passed through verbatim, whatever they hold; a missing key gives nothing
    assert messages[-3:] == [
        "just a string",
        {"role": 7, "content": {"a": 1}},
        {"role": "assistant", "content": "x"},
    ]
    assert context_json(session)["model"] == {}


def test_invalid_timestamps(tmp_path: Path) -> None:
    lines = list(LINES)
    lines[0] = relink(LINES[0], timestamp="yesterday")
    lines[4] = relink(LINES[4], timestamp="not a date")  # line 5
    lines[5] = relink(LINES[5], drop=["timestamp"])  # line 6
    lines[6] = relink(LINES[6], timestamp=12)  # line 7: a number is a valid Date
    lines[7] = relink(LINES[7], timestamp=None)  # line 8
    lines[8] = relink(LINES[8], timestamp={"when": "now"})  # line 9
    session = load(write(tmp_path, lines))
    assert diags(session) == [(line, "invalid-timestamp") for line in (5, 6, 8, 9)]
    assert session.created_ms is None
    assert session.by_id["f72bf84a"].ts_ms == 12
    assert session.tree.order == ORIGINAL_ORDER
    assert context_json(session)["messages"] == LINEAR_CONTEXT["messages"]
    summary = summarize(session)
    assert summary.created is None
    assert summary.modified == "2026-03-02T09:28:25.405Z"


def test_siblings_with_invalid_timestamps_sort_last_and_stay_stable(tmp_path: Path) -> None:
    lines = _lines(BRANCHES)
    # 9995895d (line 7) has three children: 9fe792d3 (line 8), 2d71619e (19), c9332a10 (27)
    lines[7] = relink(lines[7], timestamp="garbage")
    session = load(write(tmp_path, lines))
    assert diags(session) == [(8, "invalid-timestamp")]
    children = [e.id for e in session.tree.children_of("9995895d")]
    assert children == ["2d71619e", "c9332a10", "9fe792d3"]


def test_unknown_entry_types_are_kept_shown_and_left_out_of_context(tmp_path: Path) -> None:
    unknown = orjson.dumps(
        {
            "type": "frobnicate",
            "id": "unk00001",
            "parentId": "8c3afea3",
            "timestamp": "2026-03-02T09:27:03.394Z",
        }
    )
    lines = [*LINES[:24], unknown, relink(LINES[24], parentId="unk00001"), *LINES[25:]]
    session = load(write(tmp_path, lines))
    assert diags(session) == [(25, "unknown-type")]
    assert not session.diagnostics[0].is_problem
    entry = session.by_id["unk00001"]
    assert entry.type == entry.kind == "frobnicate"
    assert not entry.is_known
    assert [e.id for e in session.tree.children_of("unk00001")] == ["f9b0d0a4"]
    assert session.tree.order.index("unk00001") == 23
    assert "unk00001" in [e.id for e in session.path_to(LINEAR_LEAF)]
    assert entry_preview(entry, session.body(entry)) == "[frobnicate]"
    assert context_json(session) == LINEAR_CONTEXT


# ---------------------------------------------------------------------------- variant spellings
def test_variant_spellings_are_read_leniently(tmp_path: Path) -> None:
    # shared/spec/002: a "header" line with "workingDir", camelCase types, entries without ids
    user = orjson.loads(LINES[3])
    lines = [
        b'{ "type":"header", "version":3, "workingDir":"/home/user/project", "timestamp":1728123456789 }',
        b'{"type":"modelChange","id":"v0000001","parentId":null,"timestamp":"2026-01-02T10:00:00.000Z",'
        b'"provider":"openai","modelId":"gpt-4"}',
        b'{"type":"thinkingLevel","id":"v0000002","parentId":"v0000001","timestamp":"2026-01-02T10:00:01.000Z",'
        b'"thinkingLevel":"high"}',
        relink(LINES[3], id="v0000003", parentId="v0000002", timestamp="2026-01-02T10:00:02.000Z"),
        b'{"type":"branchSummary","id":"v0000004","parentId":"v0000003","timestamp":"2026-01-02T10:00:03.000Z",'
        b'"fromId":"v0000003","summary":"Tried the other way first."}',
        b'{ "type":"message", "message": { "role":"assistant", "content":[{ "type":"text","text":"Hello!" }],'
        b' "api":"openai","provider":"openai","model":"gpt-4","usage":{},"timestamp":1728123456790 } }',
        b'{ "type":"toolCall", "toolCallId":"toolu_01abc","name":"read","arguments":{ "path":"README.md" },'
        b'"timestamp":1728123456800 }',
    ]
    session = load(write(tmp_path, lines))
    assert sorted(diags(session)) == [
        (1, "invalid-field"),  # the variant header carries no session id
        (1, "variant"),
        (2, "variant"),
        (3, "variant"),
        (5, "variant"),
        (6, "invalid-timestamp"),  # its only timestamp is the message's
        (6, "missing-id"),
        (7, "missing-id"),
        (7, "unknown-type"),
    ]
    assert session.header_line == 1
    assert session.cwd == "/home/user/project"
    assert session.created_ms == 1728123456789
    assert session.version == 3
    assert [e.kind for e in session.entries] == [
        "model_change",
        "thinking_level_change",
        "message",
        "branch_summary",
        "message",
        "toolCall",
    ]
    assert [e.type for e in session.entries][:2] == ["modelChange", "thinkingLevel"]
    assistant = session.entries[4]
    assert assistant.parent_id == "v0000004"
    assert session.entries[5].parent_id == assistant.id
    context = context_json(session, assistant.id)
    assert context["thinkingLevel"] == "high"
    assert context["model"] == {"provider": "openai", "modelId": "gpt-4"}
    assert [m["role"] for m in context["messages"]] == ["user", "branchSummary", "assistant"]
    assert context["messages"][0] == user["message"]
    assert context["messages"][1] == {
        "role": "branchSummary",
        "summary": "Tried the other way first.",
        "fromId": "v0000003",
        "timestamp": 1767348003000,
    }
    # the unknown toolCall entry (the default leaf) adds nothing
    assert context_json(session) == context
    assert summarize(session).models == ["openai/gpt-4"]


def test_a_variant_header_without_version_is_current(tmp_path: Path) -> None:
    header = b'{"type":"header","workingDir":"/w","timestamp":"2026-01-02T10:00:00.000Z","id":"abc"}'
    session = load(write(tmp_path, [header, *LINES[1:]]))
    assert diags(session) == [(1, "variant")]
    assert session.version == 3
    assert session.session_id == "abc"
    assert session.tree.order == ORIGINAL_ORDER


# ---------------------------------------------------------------------------- reading never writes
@pytest.mark.parametrize(
    "sample", sorted(SAMPLES.rglob("*.jsonl")), ids=lambda p: p.parent.name + "/" + p.name[:24]
)
def test_loading_any_sample_never_writes(tmp_path: Path, sample: Path) -> None:
    # includes the legacy v1 and v2 files, which the reference rewrites when it opens them
    copy = tmp_path / sample.name
    shutil.copyfile(sample, copy)
    os.utime(copy, ns=(1_000_000_000_000_000_000, 1_000_000_000_000_000_000))
    session = load(copy)
    summarize(session)
    assert session.refresh().changed is False
    assert copy.read_bytes() == sample.read_bytes()
    assert copy.stat().st_mtime_ns == 1_000_000_000_000_000_000
    assert os.listdir(tmp_path) == [sample.name]


def test_unreadable_paths_raise_session_read_error(tmp_path: Path) -> None:
    from core.errors import SessionReadError

    with pytest.raises(SessionReadError, match="does not exist"):
        load_session(tmp_path / "nope.jsonl")
    with pytest.raises(SessionReadError, match="is a folder"):
        load_session(tmp_path)


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_a_fifo_is_refused_without_blocking(tmp_path: Path) -> None:
    from core.errors import SessionReadError

    fifo = tmp_path / "pipe.jsonl"
    os.mkfifo(fifo)

    def attempt() -> str:
        with pytest.raises(SessionReadError) as caught:
            load_session(fifo)
        return str(caught.value)

    assert "not a regular file" in bounded(attempt, 30)  # type: ignore[operator]


# ---------------------------------------------------------------------------- random damage
def _damage(rng: random.Random, data: bytes) -> bytes:
    lines = data.split(b"\n")
    for _ in range(rng.randint(1, 4)):
        op = rng.randrange(8)
        i = rng.randrange(len(lines))
        if op == 0:
            return data[: rng.randrange(len(data))]
        if op == 1:
            del lines[i]
        elif op == 2:
            lines.insert(rng.randrange(len(lines)), lines[i])
        elif op == 3:
            j = rng.randrange(len(lines))
            lines[i], lines[j] = lines[j], lines[i]
        elif op == 4 and lines[i]:
            k = rng.randrange(len(lines[i]))
            lines[i] = lines[i][:k] + bytes([rng.randrange(256)]) + lines[i][k + 1 :]
        elif op == 5:
            lines[i] = lines[i][: rng.randrange(len(lines[i]) + 1)]
        elif op == 6:
            lines.insert(i, bytes(rng.randrange(256) for _ in range(rng.randrange(1, 30))))
        else:
            ids = [m.group(0) for m in re.finditer(rb'"id":"[0-9a-f]{8}"', data)]
            if ids and b'"parentId":' in lines[i]:
                new = rng.choice(ids)[5:]
                head, _, tail = lines[i].partition(b'"parentId":')
                rest = tail.split(b",", 1)
                lines[i] = head + b'"parentId":' + new + (b"," + rest[1] if len(rest) > 1 else b"")
    return b"\n".join(lines)


@pytest.mark.parametrize("sample", [LINEAR, BRANCHES, EDGE], ids=["linear", "branches", "edge"])
def test_random_damage_never_crashes(tmp_path: Path, sample: Path) -> None:
    rng = random.Random(sample.name)
    data = sample.read_bytes()
    for round_ in range(40):
        path = tmp_path / f"damaged-{round_}.jsonl"
        path.write_bytes(_damage(rng, data))
        load(path)


# ---------------------------------------------------------------------------- legacy files
LEGACY_V1 = PI / "--home-dev-legacy--" / "2025-11-20T10-00-00-000Z_3f1c2a9e-5b7d-4e21-9c0a-1d2e3f4a5b6c.jsonl"


def test_damaged_lines_in_a_v1_file_do_not_shift_first_kept_entry_index(tmp_path: Path) -> None:
    # firstKeptEntryIndex counts parsed lines (header = 0); the reference drops blank and invalid
    # lines before counting, so they must not move the compaction's kept range.
    lines = _lines(LEGACY_V1)
    damaged = [lines[0], b"{oops", b"", *lines[1:3], b"   ", b"not json", *lines[3:]]
    session = load(write(tmp_path, damaged))
    assert diags(session) == [(2, "invalid-json"), (7, "invalid-json")]
    assert session.version == 1
    assert all(e.synthetic for e in session.entries)
    want = _expected_context("legacy-v1")
    got = context_json(session)
    assert got["messages"] == want["messages"]
    assert [m["role"] for m in got["messages"]] == [
        "compactionSummary",
        "user",
        "assistant",
        "user",
        "assistant",
    ]
    assert got["messages"][1]["content"] == "second question"


def test_a_model_change_written_as_one_provider_slash_id_string_is_in_the_models(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    lines = [
        {"type": "session", "version": 3, "id": "s", "timestamp": "2026-03-01T10:00:00.000Z", "cwd": "/w"},
        {"type": "model_change", "id": "m1", "parentId": None, "timestamp": "2026-03-01T10:00:01.000Z",
         "model": "openai/gpt-5.1-codex"},
        {"type": "model_change", "id": "m2", "parentId": "m1", "timestamp": "2026-03-01T10:00:02.000Z",
         "provider": "anthropic", "modelId": "claude-sonnet-4-5"},
    ]  # fmt: skip
    path.write_bytes(b"".join(orjson.dumps(line) + b"\n" for line in lines))
    session = load_session(path)
    assert summarize(session).models == ["openai/gpt-5.1-codex", "anthropic/claude-sonnet-4-5"]
    entry = session.get("m1")
    assert entry is not None and entry_preview(entry, session.body(entry)) == "[model: openai/gpt-5.1-codex]"
