"""The session catalogue (core.catalogue): summaries, incremental refresh, full-text search, bad input.

Summaries are compared field by field with ``summarize(load_session(path))``, the definition of a
correct summary, after a cold build and after every kind of change a session file goes through.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import sqlite3
import subprocess
import tempfile
import threading
from pathlib import Path

import orjson
import pytest

import core.catalogue.append as append_module
import core.catalogue.catalogue as catalogue_module
import core.catalogue.purge as purge_module
import core.catalogue.reading as reading_module
import core.catalogue.update as update_module
from core import load_session, summarize
from core.catalogue import Catalogue, CatalogueError, QueryError
from core.catalogue.schema import SCHEMA_VERSION
from core.catalogue.snippets import make_snippet, mark_spans, query_terms
from core.timefmt import iso_from_ms, js_date_ms
from tests.conftest import DEMO, EXPECTED, REPO, SAMPLES
from tests.helpers import run_cli

PI = SAMPLES / "pi-layout" / "sessions"
SPEC = SAMPLES / "spec-layout"
SAMPLE_ROOTS = [PI, SPEC, DEMO]
ALL_FILES = sorted(SAMPLES.rglob("*.jsonl")) + sorted(DEMO.glob("*.jsonl"))
MANIFEST = json.loads((SAMPLES / "pi-layout" / "manifest.json").read_text())
SCENARIOS = {s["name"]: s for s in MANIFEST["sessions"]}
INDEX = json.loads((EXPECTED / "index.json").read_text())


def scenario(name: str) -> Path:
    return SAMPLES / "pi-layout" / SCENARIOS[name]["relPath"]


LINEAR = scenario("linear")
BRANCHES = scenario("branches")
T0 = 1_780_000_000_000  # 2026-05-28: later than every sample, so appended messages move `modified`


# ---------------------------------------------------------------------------- builders
def line(obj: dict) -> bytes:
    return orjson.dumps(obj) + b"\n"


def header(sid: str, cwd: str, ts: int = T0) -> dict:
    return {"type": "session", "version": 3, "id": sid, "timestamp": iso_from_ms(ts), "cwd": cwd}


def user(eid: str, parent: str | None, text: str, ts: int) -> dict:
    return {
        "type": "message",
        "id": eid,
        "parentId": parent,
        "timestamp": iso_from_ms(ts),
        "message": {"role": "user", "content": text, "timestamp": ts},
    }


def assistant(
    eid: str,
    parent: str | None,
    text: str,
    ts: int,
    *,
    provider: str = "acme",
    model: str = "brain-1",
    tokens: int = 100,
    cost: float = 0.25,
    stop: str | None = "stop",
    calls: list[tuple[str, dict]] | None = None,
) -> dict:
    content: list[dict] = [{"type": "text", "text": text}]
    for i, (name, arguments) in enumerate(calls or []):
        content.append({"type": "toolCall", "id": f"call{i}", "name": name, "arguments": arguments})
    message = {
        "role": "assistant",
        "content": content,
        "provider": provider,
        "model": model,
        "usage": {"input": tokens, "output": 0, "totalTokens": tokens, "cost": {"total": cost}},
        "timestamp": ts,
    }
    if stop is not None:
        message["stopReason"] = stop
    return {
        "type": "message",
        "id": eid,
        "parentId": parent,
        "timestamp": iso_from_ms(ts),
        "message": message,
    }


def tool_result(eid: str, parent: str, tool: str, text: str, ts: int) -> dict:
    return {
        "type": "message",
        "id": eid,
        "parentId": parent,
        "timestamp": iso_from_ms(ts),
        "message": {
            "role": "toolResult",
            "toolCallId": "call0",
            "toolName": tool,
            "content": [{"type": "text", "text": text}],
            "isError": False,
            "timestamp": ts,
        },
    }


def session_info(eid: str, parent: str, name: str, ts: int) -> dict:
    return {"type": "session_info", "id": eid, "parentId": parent, "timestamp": iso_from_ms(ts), "name": name}


def write_session(path: Path, head: dict, entries: list[dict]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(line(head) + b"".join(line(e) for e in entries))
    return path


def append(path: Path, data: bytes) -> int:
    with open(path, "ab") as handle:
        handle.write(data)
    return len(data)


def copy_file(src: Path, dest: Path) -> Path:
    dest.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(src, dest)  # contents only: the shared samples are read-only
    return dest


def copy_roots(dest: Path) -> list[Path]:
    """Every sample and demo file under ``dest`` (one sub-tree per root); returns the new roots."""
    roots = []
    for i, root in enumerate(SAMPLE_ROOTS):
        new_root = dest / f"root{i}"
        for path in sorted(root.rglob("*.jsonl")):
            copy_file(path, new_root / path.relative_to(root))
        roots.append(new_root)
    return roots


def fresh(path: Path | str, mtime: bool = False) -> dict:
    session = load_session(path)
    row = summarize(session, os.stat(path).st_mtime_ns / 1e6 if mtime else None).to_json()
    for name in FAMILY_FIELDS:
        row.pop(name)
    return row


# What the list knows of a session's family (issue 28): worked out over all the files, not by summarize().
FAMILY_FIELDS = ("subagentOf", "subagentDepth", "subagents", "ownCost", "childCost")


def by_path(cat: Catalogue, roots: list[Path] | None = None) -> dict[str, dict]:
    rows = {s.path: s.to_json() for s in cat.summaries(roots)}
    for row in rows.values():
        for name in FAMILY_FIELDS:
            row.pop(name)
    return rows


def assert_summaries_fresh(cat: Catalogue, paths: list[Path], mtime: bool = False) -> None:
    ours = by_path(cat)
    for path in paths:
        want = fresh(path, mtime)
        got = ours[os.path.abspath(path)]
        diff = {k: (got[k], want[k]) for k in want if got[k] != want[k]}
        assert not diff, f"{path}: {diff}"
        assert got == want


def snapshot(roots: list[Path]) -> dict[Path, tuple[bytes, int]]:
    return {p: (p.read_bytes(), p.stat().st_mtime_ns) for r in roots for p in sorted(r.rglob("*.jsonl"))}


def plain(snippet: str) -> str:
    return snippet.replace("«", "").replace("»", "")


@pytest.fixture
def cat(tmp_path: Path):
    catalogue = Catalogue(tmp_path / "catalogue")
    yield catalogue
    catalogue.close()


# ---------------------------------------------------------------------------- summaries
def test_cold_build_gives_summarize_for_every_sample_and_demo_file(cat: Catalogue) -> None:
    stats = cat.refresh(SAMPLE_ROOTS)
    assert stats.files_seen == len(ALL_FILES) == 21
    assert stats.files_indexed == len(ALL_FILES)
    assert (stats.files_appended, stats.files_removed, stats.errors, stats.cancelled) == (0, 0, [], False)
    assert stats.bytes_read == sum(p.stat().st_size for p in ALL_FILES)
    assert sorted(by_path(cat)) == sorted(str(p) for p in ALL_FILES)
    assert_summaries_fresh(cat, ALL_FILES)
    # Newest first, and the roots filter picks the files of one root.
    modified = [s.modified for s in cat.summaries()]
    assert modified == sorted(modified, reverse=True)
    assert sorted(by_path(cat, [DEMO])) == sorted(str(p) for p in DEMO.glob("*.jsonl"))


def test_appending_to_every_file_reads_only_the_new_bytes(cat: Catalogue, tmp_path: Path) -> None:
    roots = copy_roots(tmp_path / "s")
    files = [p for r in roots for p in sorted(r.rglob("*.jsonl"))]
    assert cat.refresh(roots).files_indexed == len(files) == 21
    added = {}
    for i, path in enumerate(files):
        leaf = load_session(path).leaf_id
        data = line(user(f"u{i}", leaf, f"wombat{i} question", T0 + i)) + line(
            assistant(f"a{i}", f"u{i}", f"wombat{i} answer", T0 + i + 1, tokens=7 + i, cost=0.5)
        )
        added[path] = append(path, data)
    legacy = [p for p in files if load_session(p).version < 2]
    assert len(legacy) == 1  # version 1 files are re-read whole (their ids are chained by position)
    stats = cat.refresh(roots)
    assert (stats.files_appended, stats.files_indexed) == (len(files) - 1, 1)
    assert stats.bytes_read == sum(n for p, n in added.items() if p not in legacy) + legacy[0].stat().st_size
    assert_summaries_fresh(cat, files)
    for i, path in enumerate(files):
        hits = cat.search(f"wombat{i}")
        assert {(h.path, h.role) for h in hits} == {(str(path), "user"), (str(path), "assistant")}


def test_append_messages_rename_label_and_child_usage(cat: Catalogue, tmp_path: Path) -> None:
    path = copy_file(LINEAR, tmp_path / "s" / "linear.jsonl")
    cat.refresh([tmp_path / "s"])
    before = by_path(cat)[str(path)]
    old_assistant = "40efd13e"  # the first assistant reply (8019 tokens)
    data = b"".join(
        line(e)
        for e in [
            user("n1", "8721c1f9", "Please refactor the quokka module", T0),
            assistant("n2", "n1", "Refactored quokka", T0 + 1000, provider="zeta", model="z9", stop="length"),
            session_info("n3", "n2", "  Quokka refactor  ", T0 + 2000),
            {"type": "label", "id": "n4", "parentId": "n3", "timestamp": iso_from_ms(T0 + 3000),
             "targetId": "n1", "label": "important"},
            {"type": "child_usage_attributed", "id": "n5", "parentId": "n4",
             "timestamp": iso_from_ms(T0 + 4000), "targetId": old_assistant,
             "aggregateUsage": {"input": 1, "output": 2, "totalTokens": 50_000, "cost": {"total": 3.5}}},
        ]
    )  # fmt: skip
    size_before = path.stat().st_size
    appended = append(path, data)
    stats = cat.refresh([tmp_path / "s"])
    assert (stats.files_appended, stats.files_indexed, stats.files_removed) == (1, 0, 0)
    assert stats.bytes_read == appended == path.stat().st_size - size_before
    got, want = by_path(cat)[str(path)], fresh(path)
    for key in ("messageCount", "name", "modified", "totalTokens", "cost", "leafId", "entryCount", "models",
                "lastStopReason", "fileSize", "problems"):  # fmt: skip
        assert got[key] == want[key], key
    assert got == want
    assert got["name"] == "Quokka refactor"
    assert got["messageCount"] == before["messageCount"] + 2
    assert got["entryCount"] == before["entryCount"] + 5
    assert got["leafId"] == "n5"
    assert got["lastStopReason"] == "length"
    assert got["models"] == [*before["models"], "zeta/z9"]
    assert got["totalTokens"] == before["totalTokens"] - 8019 + 50_000 + 100
    assert got["modified"] == iso_from_ms(T0 + 1000)
    [hit] = cat.search("quokka module")
    assert (hit.entryId, hit.role, hit.onCurrentBranch, hit.path) == ("n1", "user", True, str(path))
    assert {h.entryId for h in cat.search("quokka")} == {"n1", "n2"}


def test_last_stop_reason_is_the_last_assistant_even_without_a_stop_reason(
    cat: Catalogue, tmp_path: Path
) -> None:
    path = write_session(
        tmp_path / "s" / "a.jsonl",
        header("sid-stop", "/p"),
        [user("u1", None, "hi", T0), assistant("a1", "u1", "first", T0 + 1, stop="toolUse")],
    )
    cat.refresh([tmp_path / "s"])
    assert by_path(cat)[str(path)]["lastStopReason"] == "toolUse"
    append(path, line(user("u2", "a1", "more", T0 + 2)) + line(assistant("a2", "u2", "x", T0 + 3, stop=None)))
    assert cat.refresh([tmp_path / "s"]).files_appended == 1
    assert fresh(path)["lastStopReason"] is None
    assert by_path(cat)[str(path)] == fresh(path)


def test_a_child_usage_entry_before_its_target_still_applies_after_an_append(
    cat: Catalogue, tmp_path: Path
) -> None:
    usage = {"totalTokens": 999, "cost": {"total": 9.0}}
    path = write_session(
        tmp_path / "s" / "a.jsonl",
        header("sid-usage", "/p"),
        [
            user("u1", None, "hi", T0),
            {"type": "child_usage_attributed", "id": "c1", "parentId": "u1", "timestamp": iso_from_ms(T0),
             "targetId": "a1", "aggregateUsage": usage},
        ],
    )  # fmt: skip
    cat.refresh([tmp_path / "s"])
    append(path, line(assistant("a1", "c1", "late target", T0 + 1, tokens=5, cost=0.1)))
    assert cat.refresh([tmp_path / "s"]).files_appended == 1
    assert fresh(path)["totalTokens"] == 999
    assert by_path(cat)[str(path)] == fresh(path)


def test_appended_duplicate_ids_count_like_summarize(cat: Catalogue, tmp_path: Path) -> None:
    path = write_session(
        tmp_path / "s" / "a.jsonl",
        header("sid-dup", "/p"),
        [user("u1", None, "hi", T0), assistant("a1", "u1", "one", T0 + 1, tokens=10, cost=0.5)],
    )
    cat.refresh([tmp_path / "s"])
    assert by_path(cat)[str(path)] == fresh(path)
    append(path, line(assistant("a1", "u1", "again", T0 + 2, tokens=20, cost=0.25, stop="error")))
    assert cat.refresh([tmp_path / "s"]).files_appended == 1
    want = fresh(path)
    assert (want["totalTokens"], want["problems"]) == (30, 1)  # both lines count; the duplicate is noted
    assert by_path(cat)[str(path)] == want
    assert [(d[0], d[1]) for d in cat.diagnostics(path)] == [(4, "duplicate-id")]


def _e(eid: str | None, parent: str | None, typ: str = "custom", ts: object = None) -> dict:
    entry: dict = {"type": typ, "parentId": parent, "timestamp": iso_from_ms(T0) if ts is None else ts}
    if eid is not None:
        entry["id"] = eid
    return entry


TRICKY_APPENDS = {
    # name: (header, entries before the first pass, entries appended after it)
    "orphan-resolved-by-append": (header("t1", "/t"), [_e("a", None), _e("b", "later")], [_e("later", "a")]),
    "orphan-appended": (header("t2", "/t"), [_e("a", None)], [_e("b", "nowhere")]),
    "self-parent-appended": (header("t3", "/t"), [_e("a", None)], [_e("b", "b")]),
    "loop-closed-by-append": (header("t4", "/t"), [_e("a", None), _e("b", "c")], [_e("c", "b")]),
    "duplicate-id-appended": (
        header("t5", "/t"),
        [user("a", None, "x", T0), assistant("b", "a", "y", T0 + 1)],
        [assistant("b", "a", "z", T0 + 2, tokens=5, stop="length"), assistant("b", "a", "w", T0 + 3)],
    ),
    "header-without-id": (
        {"type": "session", "version": 3, "timestamp": iso_from_ms(T0), "cwd": "/t"},
        [user("a", None, "x", T0)],
        [user("b", "a", "y", T0 + 1)],
    ),
    "entry-without-id-appended": (
        header("t7", "/t"),
        [user("a", None, "x", T0), assistant("b", "a", "y", T0 + 1, stop="toolUse")],
        [{k: v for k, v in user("zz", None, "no id", T0 + 2).items() if k != "id"}],
    ),
    "variant-and-unknown-types": (
        header("t8", "/t"),
        [user("a", None, "x", T0)],
        [{**_e("m", "a", "modelChange"), "provider": "p", "modelId": "q"}, _e("u", "m", "mystery")],
    ),
    "invalid-timestamp-appended": (header("t9", "/t"), [user("a", None, "x", T0)], [_e("b", "a", ts="soon")]),
    # The path to the leaf: extended, moved to another branch, changed by a repeated id.
    "path-extended": (
        header("t11", "/t"),
        [user("a", None, "x", T0), assistant("b", "a", "y", T0 + 1)],
        [user("c", "b", "z", T0 + 2), assistant("d", "c", "w", T0 + 3)],
    ),
    "branch-switch-appended": (
        header("t12", "/t"),
        [user("a", None, "x", T0), assistant("b", "a", "y", T0 + 1), user("c", "b", "w", T0 + 2)],
        [user("d", "a", "z", T0 + 3)],
    ),
    "repeated-id-moves-the-path": (
        header("t13", "/t"),
        [user("a", None, "x", T0), user("b", "a", "y", T0 + 1), user("c", "b", "w", T0 + 2)],
        [user("b", None, "z", T0 + 3)],
    ),
    "legacy-v2": (
        {"type": "session", "version": 2, "id": "t10", "timestamp": iso_from_ms(T0), "cwd": "/t"},
        [user("a", None, "x", T0)],
        [{**user("b", "a", "hook", T0 + 1), "message": {"role": "hookMessage", "content": "hook text"}}],
    ),
}


@pytest.mark.parametrize("case", list(TRICKY_APPENDS))
def test_tricky_appends_give_what_a_whole_read_gives(cat: Catalogue, tmp_path: Path, case: str) -> None:
    head, before, after = TRICKY_APPENDS[case]
    path = write_session(tmp_path / "s" / f"{case}.jsonl", head, before)
    cat.refresh([tmp_path / "s"])
    assert by_path(cat)[str(path)] == fresh(path, mtime=True)
    append(path, b"".join(line(e) for e in after))
    stats = cat.refresh([tmp_path / "s"])
    assert (stats.files_appended, stats.files_indexed) == (1, 0)
    assert by_path(cat)[str(path)] == fresh(path, mtime=True)
    assert cat.diagnostics(path) == [(d.line, d.kind, d.message) for d in load_session(path).diagnostics]
    session = load_session(path)
    on_path = {e.id for e in session.path_to(session.leaf_id)}
    hits = cat.search("x OR y OR z OR w OR hook OR no", limit=100)
    for hit in hits:
        assert hit.onCurrentBranch == (hit.entryId in on_path), hit
    if case in ("path-extended", "branch-switch-appended", "repeated-id-moves-the-path"):
        assert {h.onCurrentBranch for h in hits} == ({True} if case == "path-extended" else {True, False})


def test_a_partial_last_line_is_held_back_until_complete(cat: Catalogue, tmp_path: Path) -> None:
    path = copy_file(LINEAR, tmp_path / "s" / "linear.jsonl")
    cat.refresh([tmp_path / "s"])
    whole = line(user("p1", "8721c1f9", "the platypus returns", T0))
    append(path, whole[:40])
    stats = cat.refresh([tmp_path / "s"])
    assert stats.files_appended == 1
    assert cat.search("platypus") == []
    assert by_path(cat)[str(path)] == fresh(path)
    kinds = [(d[0], d[1]) for d in cat.diagnostics(path)]
    assert kinds == [(33, "truncated-line")]  # linear has 32 lines; the 33rd is not complete yet
    assert by_path(cat)[str(path)]["problems"] == 1
    append(path, whole[40:])
    stats = cat.refresh([tmp_path / "s"])
    assert (stats.files_appended, stats.files_indexed) == (1, 0)
    [hit] = cat.search("platypus")
    assert hit.entryId == "p1"
    got = by_path(cat)[str(path)]
    assert got == fresh(path)
    assert (got["problems"], got["leafId"]) == (0, "p1")
    assert cat.diagnostics(path) == []


def test_an_unterminated_complete_last_line_is_indexed_and_reread_once_continued(
    cat: Catalogue, tmp_path: Path
) -> None:
    path = copy_file(LINEAR, tmp_path / "s" / "linear.jsonl")
    append(path, line(user("p1", "8721c1f9", "echidna", T0)).rstrip(b"\n"))
    cat.refresh([tmp_path / "s"])
    assert [h.entryId for h in cat.search("echidna")] == ["p1"]
    append(path, b"\n" + line(user("p2", "p1", "numbat", T0 + 1)))
    cat.refresh([tmp_path / "s"])
    assert [h.entryId for h in cat.search("echidna")] == ["p1"]
    assert [h.entryId for h in cat.search("numbat")] == ["p2"]
    assert by_path(cat)[str(path)] == fresh(path)


def test_an_unchanged_history_only_costs_stats(
    cat: Catalogue, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    roots = copy_roots(tmp_path / "s")
    first = cat.refresh(roots)
    assert first.files_indexed == 21

    class NoReading:
        def __init__(self, *_args: object, **_kwargs: object) -> None:
            raise AssertionError("a session file was read")

        resume = __init__

    monkeypatch.setattr(append_module, "Session", NoReading)
    monkeypatch.setattr(reading_module, "Session", NoReading)
    stats = cat.refresh(roots)
    assert (stats.files_seen, stats.files_indexed, stats.files_appended, stats.files_removed) == (21, 0, 0, 0)
    assert stats.bytes_read == 0
    assert stats.errors == []


def test_a_file_that_shrank_is_read_again_whole(cat: Catalogue, tmp_path: Path) -> None:
    path = copy_file(LINEAR, tmp_path / "s" / "linear.jsonl")
    cat.refresh([tmp_path / "s"])
    assert [h.entryId for h in cat.search('"do it myself"')] == ["019a4971"]
    lines = LINEAR.read_bytes().splitlines(keepends=True)
    path.write_bytes(b"".join(lines[:20]))
    stats = cat.refresh([tmp_path / "s"])
    assert (stats.files_indexed, stats.files_appended) == (1, 0)
    assert stats.bytes_read == path.stat().st_size
    assert cat.search('"do it myself"') == []
    assert by_path(cat)[str(path)] == fresh(path)


def test_a_changed_header_of_the_same_size_means_a_whole_read(cat: Catalogue, tmp_path: Path) -> None:
    path = copy_file(LINEAR, tmp_path / "s" / "linear.jsonl")
    cat.refresh([tmp_path / "s"])
    old_id = SCENARIOS["linear"]["sessionId"]
    new_id = old_id[:-4] + "beef"
    data = LINEAR.read_bytes().replace(old_id.encode(), new_id.encode(), 1)
    data = data.replace(b"never mind, I'll do it myself", b"never mind, I'll do it MYSELF", 1)
    path.write_bytes(data)
    assert path.stat().st_size == LINEAR.stat().st_size
    os.utime(path, ns=(path.stat().st_atime_ns, path.stat().st_mtime_ns + 10**9))  # a coarse clock
    stats = cat.refresh([tmp_path / "s"])
    assert (stats.files_indexed, stats.files_appended) == (1, 0)
    assert stats.bytes_read == path.stat().st_size
    assert by_path(cat)[str(path)]["id"] == new_id
    assert by_path(cat)[str(path)] == fresh(path)
    [hit] = cat.search('"do it myself"')
    assert hit.sessionId == new_id


def test_a_changed_header_of_a_bigger_file_means_a_whole_read(cat: Catalogue, tmp_path: Path) -> None:
    path = copy_file(LINEAR, tmp_path / "s" / "linear.jsonl")
    cat.refresh([tmp_path / "s"])
    lines = LINEAR.read_bytes().splitlines(keepends=True)
    head = orjson.loads(lines[0])
    head["cwd"] = "/home/dev/acme-webapp-renamed"
    rest = [ln for ln in lines[1:] if b"do it myself" not in ln]
    rewritten = line(head) + b"".join(rest) + line(user("z1", "8721c1f9", "a fresh aardvark " * 20, T0))
    path.write_bytes(rewritten)
    assert path.stat().st_size > LINEAR.stat().st_size
    stats = cat.refresh([tmp_path / "s"])
    assert (stats.files_indexed, stats.files_appended) == (1, 0)
    assert stats.bytes_read == len(rewritten)
    assert cat.search('"do it myself"') == []
    assert [h.entryId for h in cat.search("aardvark")] == ["z1"]
    assert by_path(cat)[str(path)]["cwd"] == "/home/dev/acme-webapp-renamed"
    assert by_path(cat)[str(path)] == fresh(path)


def test_lines_already_read_that_changed_mean_a_whole_read(cat: Catalogue, tmp_path: Path) -> None:
    path = copy_file(LINEAR, tmp_path / "s" / "linear.jsonl")
    cat.refresh([tmp_path / "s"])
    data = LINEAR.read_bytes()
    assert len(data) > 3 * 4096
    data = data.replace(b"never mind, I'll do it myself", b"never mind, I'll do it yourself", 1)
    path.write_bytes(data + line(user("z1", "8721c1f9", "more", T0)))
    stats = cat.refresh([tmp_path / "s"])
    assert (stats.files_indexed, stats.files_appended) == (1, 0)
    assert cat.search('"do it myself"') == []
    assert [h.entryId for h in cat.search('"do it yourself"')] == ["019a4971"]


def test_a_deleted_file_leaves_the_catalogue(cat: Catalogue, tmp_path: Path) -> None:
    root = tmp_path / "s"
    linear = copy_file(LINEAR, root / "a" / "linear.jsonl")
    copy_file(BRANCHES, root / "a" / "branches.jsonl")
    cat.refresh([root])
    assert cat.search('"do it myself"')
    linear.unlink()
    stats = cat.refresh([root])
    assert (stats.files_seen, stats.files_removed, stats.files_indexed, stats.bytes_read) == (1, 1, 0, 0)
    assert cat.search('"do it myself"') == []
    assert list(by_path(cat)) == [str(root / "a" / "branches.jsonl")]
    assert cat.diagnostics(linear) == []


def test_a_file_outside_the_roots_refreshed_is_kept(cat: Catalogue, tmp_path: Path) -> None:
    copy_file(LINEAR, tmp_path / "one" / "linear.jsonl")
    copy_file(BRANCHES, tmp_path / "two" / "branches.jsonl")
    cat.refresh([tmp_path / "one", tmp_path / "two"])
    stats = cat.refresh([tmp_path / "two"])
    assert stats.files_removed == 0
    assert len(by_path(cat)) == 2
    assert list(by_path(cat, [tmp_path / "one"])) == [str(tmp_path / "one" / "linear.jsonl")]


def test_files_deeper_than_a_root_reaches_are_neither_removed_nor_listed(
    cat: Catalogue, tmp_path: Path
) -> None:
    deep = copy_file(LINEAR, tmp_path / "home" / ".pi" / "agent" / "sessions" / "--p--" / "linear.jsonl")
    near = copy_file(BRANCHES, tmp_path / "home" / "proj" / "branches.jsonl")
    cat.refresh([deep.parent.parent])
    stats = cat.refresh([tmp_path / "home"])  # finds home/*.jsonl and home/*/*.jsonl only
    assert (stats.files_seen, stats.files_indexed, stats.files_removed) == (1, 1, 0)
    assert list(by_path(cat, [tmp_path / "home"])) == [str(near)]
    assert sorted(by_path(cat)) == sorted([str(deep), str(near)])
    assert cat.refresh([deep.parent.parent]).files_indexed == 0  # still catalogued, nothing to read
    assert list(by_path(cat, [deep])) == [str(deep)]  # a root may be one file


def test_a_file_replaced_with_a_new_inode_is_read_again_whole(cat: Catalogue, tmp_path: Path) -> None:
    path = copy_file(LINEAR, tmp_path / "s" / "linear.jsonl")
    cat.refresh([tmp_path / "s"])
    replacement = tmp_path / "s" / "linear.jsonl.tmp"
    replacement.write_bytes(LINEAR.read_bytes() + line(user("r1", "8721c1f9", "replaced koala", T0)))
    os.replace(replacement, path)
    stats = cat.refresh([tmp_path / "s"])
    assert (stats.files_indexed, stats.files_appended) == (1, 0)
    assert stats.bytes_read == path.stat().st_size
    assert [h.entryId for h in cat.search("koala")] == ["r1"]
    assert [h.entryId for h in cat.search('"do it myself"')] == ["019a4971"]  # once, not twice
    assert by_path(cat)[str(path)] == fresh(path)


# ---------------------------------------------------------------------------- progress and cancel
def _demo_copies_with_mtimes(dest: Path) -> list[Path]:
    """The demo files, copied, with mtimes that put them in an order unlike their names; newest first."""
    files = [copy_file(p, dest / p.name) for p in sorted(DEMO.glob("*.jsonl"))]
    order = [3, 0, 6, 1, 5, 2, 4]  # files[3] is the newest
    for rank, index in enumerate(order):
        seconds = 1_700_000_000 - rank * 3600
        os.utime(files[index], (seconds, seconds))
    return [files[i] for i in order]


def test_progress_reports_files_and_bytes_newest_first(cat: Catalogue, tmp_path: Path) -> None:
    newest_first = _demo_copies_with_mtimes(tmp_path / "s")
    calls = []
    stats = cat.refresh([tmp_path / "s"], progress=lambda *args: calls.append(args))
    total = sum(p.stat().st_size for p in newest_first)
    assert [c[0] for c in calls] == list(range(1, 8))
    assert {c[1] for c in calls} == {7}
    assert {c[3] for c in calls} == {total}
    done = [c[2] for c in calls]
    assert done == sorted(done) and len(set(done)) == 7
    assert done[-1] == total == stats.bytes_read
    # The bytes reported after each file are those of the files in newest-first order.
    sizes = [p.stat().st_size for p in newest_first]
    assert done == [sum(sizes[: i + 1]) for i in range(7)]


def test_cancel_stops_the_pass_and_the_next_one_finishes(cat: Catalogue, tmp_path: Path) -> None:
    newest_first = _demo_copies_with_mtimes(tmp_path / "s")
    cancel = threading.Event()

    def progress(files_done: int, *_rest: int) -> None:
        if files_done == 2:
            cancel.set()

    stats = cat.refresh([tmp_path / "s"], progress=progress, cancel=cancel)
    assert stats.cancelled is True
    assert (stats.files_seen, stats.files_indexed) == (7, 2)
    assert sorted(by_path(cat)) == sorted(str(p) for p in newest_first[:2])
    stats = cat.refresh([tmp_path / "s"])
    assert stats.cancelled is False
    assert (stats.files_indexed, stats.files_appended) == (5, 0)
    assert stats.bytes_read == sum(p.stat().st_size for p in newest_first[2:])
    assert_summaries_fresh(cat, newest_first)


# ---------------------------------------------------------------------------- search
@pytest.fixture
def corpus(cat: Catalogue, tmp_path: Path) -> dict[str, Path]:
    day = 86_400_000
    jan, feb, mar = js_date_ms("2026-01-10T12:00:00Z"), js_date_ms("2026-02-15T12:00:00Z"), None
    mar = js_date_ms("2026-03-01T12:00:00Z")
    root = tmp_path / "corpus"
    files = {
        "alpha": write_session(
            root / "alpha.jsonl",
            header("sid-alpha", "/home/u/proj", jan),
            [
                user("a-u1", None, "How does the LRU cache eviction work?", jan),
                assistant("a-a1", "a-u1", "Caching uses an ordered dict here.", jan + 1000,
                          provider="anthropic", model="claude-x", calls=[("read", {"path": "src/store.py"})]),
                tool_result("a-t1", "a-a1", "read", "def evict(): drop the oldest item", jan + 2000),
                user("a-u2", "a-t1", "Explain the blue green deployment.", jan + day),
                session_info("a-n", "a-u2", "Alpha", jan + day),
            ],
        ),
        "beta": write_session(
            root / "sub" / "beta.jsonl",
            header("sid-beta", "/home/u/proj/sub", feb),
            [
                user("b-u1", None, "Set up a redis cache please", feb),
                assistant("b-a1", "b-u1", "I will use redis.", feb + 1000, provider="openai", model="gpt-5",
                          calls=[("bash", {"command": "redis-cli ping"})]),
            ],
        ),
        "gamma": write_session(
            root / "gamma.jsonl",
            header("sid-gamma", "/home/u/project-two", mar),
            [user("g-u1", None, "The green blue deployment is reversed; also café résumé and lru_cache",
                  mar)],
        ),
    }  # fmt: skip
    cat.refresh([root])
    return files


def ids(hits: list) -> set[str]:
    return {h.entryId for h in hits}


def test_search_words_phrases_prefixes_and_operators(cat: Catalogue, corpus: dict[str, Path]) -> None:
    assert ids(cat.search("deployment")) == {"a-u2", "g-u1"}
    assert ids(cat.search("blue green")) == {"a-u2", "g-u1"}
    assert ids(cat.search('"blue green"')) == {"a-u2"}
    assert ids(cat.search('"green blue"')) == {"g-u1"}
    assert ids(cat.search("cache")) == {"a-u1", "b-u1", "g-u1"}
    assert ids(cat.search("cach*")) == {"a-u1", "a-a1", "b-u1", "g-u1"}
    assert ids(cat.search("redis AND cache")) == {"b-u1"}
    assert ids(cat.search("redis OR eviction")) == {"a-u1", "b-u1", "b-a1"}
    assert ids(cat.search("cache NOT redis")) == {"a-u1", "g-u1"}
    assert ids(cat.search("(redis OR eviction) AND cache")) == {"a-u1", "b-u1"}
    assert ids(cat.search("cafe resume")) == {"g-u1"}  # diacritics are folded
    assert ids(cat.search("evict")) == {"a-t1"}
    assert ids(cat.search("store")) == {"a-a1"}  # tool call arguments are searchable
    assert ids(cat.search("ping")) == {"b-a1"}
    assert ids(cat.search("nothinglikethis")) == set()
    assert len(cat.search("cach*", limit=2)) == 2


def test_search_filters(cat: Catalogue, corpus: dict[str, Path]) -> None:
    assert ids(cat.search("cache", cwd="/home/u/proj")) == {"a-u1", "b-u1"}  # sub-folders included
    assert ids(cat.search("cache", cwd="/home/u/proj/")) == {"a-u1", "b-u1"}
    assert ids(cat.search("cache", cwd="/home/u/proj/sub")) == {"b-u1"}
    assert ids(cat.search("cache", cwd="/home/u/pro")) == set()  # a prefix is not a parent folder
    assert ids(cat.search("cache", cwd="/home/u")) == {"a-u1", "b-u1", "g-u1"}
    assert ids(cat.search("cache", cwd="/")) == {"a-u1", "b-u1", "g-u1"}
    assert ids(cat.search("cach*", since="2026-02-01")) == {"b-u1", "g-u1"}
    assert ids(cat.search("cach*", until="2026-02-15")) == {"a-u1", "a-a1", "b-u1"}  # the whole day
    assert ids(cat.search("cach*", until="2026-02-14")) == {"a-u1", "a-a1"}
    assert ids(cat.search("cach*", since="2026-02-15", until="2026-02-15")) == {"b-u1"}
    assert ids(cat.search("cach*", until="2026-02-15T12:00:00Z")) == {"a-u1", "a-a1", "b-u1"}  # inclusive
    assert ids(cat.search("cach*", since="2026-02-15T12:00:00.001Z")) == {"g-u1"}
    assert ids(cat.search("cach* OR redis", role="assistant")) == {"a-a1", "b-a1"}
    assert ids(cat.search("cach* OR redis", role="user")) == {"a-u1", "b-u1", "g-u1"}
    assert ids(cat.search("evict OR cach* OR redis", tool="read")) == {"a-a1", "a-t1"}
    assert ids(cat.search("redis", tool="bash")) == {"b-a1"}
    assert ids(cat.search("redis", tool="bas")) == set()  # a tool name, not a substring
    assert ids(cat.search("redis OR cach*", model="gpt")) == {"b-a1"}
    assert ids(cat.search("redis OR cach*", model="anthropic/claude-x")) == {"a-a1"}
    assert ids(cat.search("cache", named_only=True)) == {"a-u1"}
    with pytest.raises(QueryError, match="not a date"):
        cat.search("cache", since="yesterday-ish")


def test_search_cwd_filter_with_windows_folders(cat: Catalogue, tmp_path: Path) -> None:
    # A folder written with backslashes only takes its sub-folders by backslash; one with both by "/".
    folders = {"w1": "C:\\u\\proj", "w2": "C:\\u\\proj\\sub", "w3": "C:\\u\\project", "w4": "C:/u\\proj/x"}
    for eid, cwd in folders.items():
        write_session(tmp_path / "w" / f"{eid}.jsonl", header(f"s-{eid}", cwd), [user(eid, None, "ibex", T0)])
    cat.refresh([tmp_path / "w"])
    assert ids(cat.search("ibex", cwd="C:\\u\\proj")) == {"w1", "w2"}
    assert ids(cat.search("ibex", cwd="C:\\u\\proj\\")) == {"w1", "w2"}
    assert ids(cat.search("ibex", cwd="C:/u\\proj")) == {"w4"}
    assert ids(cat.search("ibex", cwd="C:\\u\\proj", since="2026-05-01", role="user")) == {"w1", "w2"}


def test_search_filters_escape_like_wildcards(cat: Catalogue, tmp_path: Path) -> None:
    write_session(
        tmp_path / "w" / "a.jsonl",
        header("sid-w", "/w"),
        [
            user("u1", None, "go", T0),
            assistant("x1", "u1", "walrus", T0 + 1, model="m_1", calls=[("read_file", {})]),
            assistant("x2", "x1", "walrus", T0 + 2, model="mx1", calls=[("readxfile", {})]),
        ],
    )
    cat.refresh([tmp_path / "w"])
    assert ids(cat.search("walrus", tool="read_file")) == {"x1"}
    assert ids(cat.search("walrus", model="m_1")) == {"x1"}
    assert ids(cat.search("walrus", model="%")) == set()


def test_hits_carry_where_they_are_and_a_marked_snippet(cat: Catalogue, corpus: dict[str, Path]) -> None:
    hits = cat.search("cach*")
    assert {(h.entryId, h.sessionId, h.path) for h in hits} == {
        ("a-u1", "sid-alpha", str(corpus["alpha"])),
        ("a-a1", "sid-alpha", str(corpus["alpha"])),
        ("b-u1", "sid-beta", str(corpus["beta"])),
        ("g-u1", "sid-gamma", str(corpus["gamma"])),
    }
    for hit in hits:
        assert hit.onCurrentBranch is True
        assert hit.spans, hit
        text = plain(hit.snippet)
        for start, end in hit.spans:
            assert text[start:end].lower().startswith("cach")
            assert hit.snippet.count("«") == hit.snippet.count("»") == len(hit.spans)
    by_id = {h.entryId: h for h in hits}
    assert by_id["a-a1"].snippet == "«Caching» uses an ordered dict here. read path src/store.py"
    assert by_id["a-a1"].spans == [(0, 7)]
    assert (by_id["a-a1"].role, by_id["a-a1"].tools, by_id["a-a1"].model) == (
        "assistant",
        "read",
        "anthropic/claude-x",
    )
    assert by_id["a-a1"].timestamp == "2026-01-10T12:00:01.000Z"
    assert (by_id["a-a1"].cwd, by_id["a-a1"].name) == ("/home/u/proj", "Alpha")
    # "lru_cache" is two words to the index; the snippet marks what the index matched.
    assert "lru_«cache»" in by_id["g-u1"].snippet
    [hit] = cat.search("cafe")
    assert "«café»" in hit.snippet
    assert hit.to_json()["entryId"] == "g-u1"
    assert orjson.loads(orjson.dumps(hit.to_json()))["spans"] == [list(s) for s in hit.spans]


def test_on_current_branch_is_false_on_an_abandoned_branch(cat: Catalogue) -> None:
    cat.refresh([BRANCHES])
    session = load_session(BRANCHES)
    on_path = {e.id for e in session.path_to(session.leaf_id)}
    branch_b = {e.id for e in session.path_to(SCENARIOS["branches"]["leaves"]["B"])} - on_path
    assert branch_b
    hits = cat.search("redis", limit=100)
    assert hits
    for hit in hits:
        assert hit.onCurrentBranch == (hit.entryId in on_path), hit.entryId
    assert {h.entryId for h in hits if not h.onCurrentBranch} & branch_b
    assert any(h.onCurrentBranch for h in cat.search("cache", limit=100))


def test_ranking_more_matches_first_then_newest_first(cat: Catalogue, tmp_path: Path) -> None:
    root = tmp_path / "r"
    write_session(
        root / "a.jsonl",
        header("sid-r", "/r"),
        [
            user("once", None, "kiwi apple pear plum", T0),
            user("thrice", "once", "kiwi kiwi kiwi plum", T0 - 5000),
            user("old", "thrice", "mango papaya", T0 - 9000),
            user("new", "old", "mango papaya", T0 + 9000),
            user("mid", "new", "mango papaya", T0 + 1000),
        ],
    )
    cat.refresh([root])
    assert [h.entryId for h in cat.search("kiwi")] == ["thrice", "once"]
    hits = cat.search("mango")
    assert [h.entryId for h in hits] == ["new", "mid", "old"]
    assert hits[0].rank == hits[1].rank == hits[2].rank


def _count(cat: Catalogue, table: str) -> int:
    conn = sqlite3.connect(cat.path)
    try:
        return conn.execute(f"SELECT count(*) FROM {table}").fetchone()[0]
    finally:
        conn.close()


def test_a_text_held_by_many_entries_is_indexed_once_and_found_in_each(
    cat: Catalogue, tmp_path: Path
) -> None:
    root = tmp_path / "r"
    shared = "quokka output printed by every copy"
    for name, sid in (("a", "sid-a"), ("b", "sid-b")):
        write_session(
            root / f"{name}.jsonl",
            header(sid, "/r"),
            [
                user(f"{name}1", None, shared, T0),
                tool_result(f"{name}2", f"{name}1", "bash", shared, T0 + 1000),
                user(f"{name}3", f"{name}2", f"only in {name} wombat{name}", T0 + 2000),
            ],
        )
    cat.refresh([root])
    assert _count(cat, "texts") == 3  # the shared text once, and one text of each file's own
    assert _count(cat, "entries WHERE text_id IS NOT NULL") == 6
    assert ids(cat.search("quokka")) == {"a1", "a2", "b1", "b2"}
    assert ids(cat.search("quokka", role="toolResult")) == {"a2", "b2"}
    assert ids(cat.search("wombatb")) == {"b3"}
    hits = cat.search('"every copy"')
    assert {(Path(h.path).name, h.entryId) for h in hits} == {
        ("a.jsonl", "a1"),
        ("a.jsonl", "a2"),
        ("b.jsonl", "b1"),
        ("b.jsonl", "b2"),
    }
    assert all(plain(h.snippet) == shared and h.snippet != shared for h in hits)  # marked

    (root / "a.jsonl").unlink()  # the text stays findable through the file still holding it
    assert cat.refresh([root]).texts_purged == 1  # a's own text goes: no entry holds it any more
    assert _count(cat, "texts") == 2
    assert ids(cat.search("quokka")) == {"b1", "b2"}
    assert ids(cat.search("wombata")) == set()
    write_session(root / "c.jsonl", header("sid-c", "/r"), [user("c1", None, shared, T0)])
    cat.refresh([root])  # a new file holding a text indexed before reuses its row
    assert _count(cat, "texts") == 2
    assert ids(cat.search("quokka")) == {"b1", "b2", "c1"}
    # A second catalogue pass with a fresh memory finds the existing rows in the database.
    again = Catalogue(cat.folder)
    write_session(root / "d.jsonl", header("sid-d", "/r"), [user("d1", None, shared, T0)])
    again.refresh([root])
    assert _count(cat, "texts") == 2
    assert ids(again.search("quokka")) == {"b1", "b2", "c1", "d1"}
    again.close()


def test_a_write_that_fails_midway_leaves_no_text_half_indexed(
    cat: Catalogue, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = tmp_path / "r"
    write_session(root / "n.jsonl", header("sid-n", "/r"), [user("n1", None, "wombat newest", T0)])
    write_session(root / "a.jsonl", header("sid-a", "/r"), [user("a1", None, "numbat first", T0)])
    write_session(root / "b.jsonl", header("sid-b", "/r"), [user("b1", None, "numbat second", T0)])
    os.utime(root / "a.jsonl", (1_700_000_100, 1_700_000_100))  # older: read second
    os.utime(root / "b.jsonl", (1_700_000_000, 1_700_000_000))  # oldest: read third
    real = update_module.insert_overrides
    calls = []

    def failing(conn: sqlite3.Connection, file_id: int, overrides: dict) -> None:
        calls.append(file_id)
        if len(calls) == 3:  # the third file, after its texts went in, inside the same batch as a
            raise sqlite3.OperationalError("disk I/O error")
        real(conn, file_id, overrides)

    monkeypatch.setattr(update_module, "insert_overrides", failing)
    monkeypatch.setattr(update_module.Batch, "SECONDS", 60.0)  # after the first file, one batch
    with pytest.raises(CatalogueError):
        cat.refresh([root])
    # The first file of a pass is committed alone; the open batch was rolled back with the failure.
    assert list(by_path(cat)) == [str(root / "n.jsonl")]
    assert _count(cat, "texts") == 1
    monkeypatch.setattr(update_module, "insert_overrides", real)
    cat.refresh([root])
    assert ids(cat.search("numbat")) == {"a1", "b1"}
    assert_summaries_fresh(cat, [root / "a.jsonl", root / "b.jsonl", root / "n.jsonl"])


def _everything(cat: Catalogue, roots: list[Path]) -> tuple:
    """What a catalogue gives: summaries, diagnostics and the hits of a few searches."""
    hits = {
        query: sorted(tuple(sorted(h.to_json().items())) for h in cat.search(query, limit=1000))
        for query in ("cach*", "redis", "pipeline OR parquet", "the", '"do it myself"')
    }
    paths = sorted(by_path(cat, roots))
    return by_path(cat, roots), {p: cat.diagnostics(p) for p in paths}, hits


def test_reader_processes_give_the_same_catalogue(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    roots = copy_roots(tmp_path / "s")
    alone = Catalogue(tmp_path / "alone")
    monkeypatch.setenv("PRIME_SESSIONS_READERS", "0")
    alone.refresh(roots)
    pooled = Catalogue(tmp_path / "pooled")
    monkeypatch.setenv("PRIME_SESSIONS_READERS", "2")  # real spawned workers, whatever the sizes
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(scratch))  # where the workers leave their results
    stats = pooled.refresh(roots)
    assert stats.files_indexed == len(ALL_FILES) and not stats.errors
    assert (stats.readers, stats.files_from_readers) == (2, len(ALL_FILES))
    assert list(scratch.iterdir()) == []  # every result file, and their folder, removed
    assert _everything(pooled, roots) == _everything(alone, roots)
    for catalogue in (alone, pooled):
        catalogue.close()


class _FakeReaders:
    """Stands in for core.catalogue.pool.Readers, in process, to reach its rare outcomes."""

    def __init__(self, jobs: list, workers: int, *, handed_all: bool = False, broken: bool = False) -> None:
        self.jobs = dict(jobs)
        self.handed_all = handed_all
        self.broken = broken

    def take(self, path: str):  # a generator, as Readers.take: its parts, then the rest
        if self.broken:
            raise catalogue_module.ReaderDied("a worker died")
        read = catalogue_module.read_whole(path, self.jobs[path])
        if self.handed_all:
            read.texts = {}  # as if this worker had handed every text over in a rolled-back batch
        yield read

    def close(self) -> None:
        pass


@pytest.mark.parametrize("outcome", ["handed_all", "broken"])
def test_a_missing_text_or_a_dead_worker_means_reading_in_process(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, outcome: str
) -> None:
    roots = copy_roots(tmp_path / "s")
    alone = Catalogue(tmp_path / "alone")
    monkeypatch.setenv("PRIME_SESSIONS_READERS", "0")
    alone.refresh(roots)
    monkeypatch.setenv("PRIME_SESSIONS_READERS", "1")
    monkeypatch.setattr(
        catalogue_module,
        "Readers",
        lambda jobs, workers, _snapshots: _FakeReaders(jobs, workers, **{outcome: True}),
    )
    other = Catalogue(tmp_path / "other")
    stats = other.refresh(roots)
    assert stats.files_indexed == len(ALL_FILES) and not stats.errors
    if outcome == "broken":
        assert stats.files_from_readers == 0  # every file was read in this process
    else:  # files whose texts were all indexed already keep the worker's read; the others are read again
        assert 0 < stats.files_from_readers < len(ALL_FILES)
    assert _everything(other, roots) == _everything(alone, roots)
    for catalogue in (alone, other):
        catalogue.close()


@pytest.mark.parametrize(
    "query", ['"unbalanced', "AND", "(", "NOT", "OR", "cache AND", "*", ")", "NOT cache", "(cache"]
)
def test_invalid_queries_raise_one_clear_sentence(
    cat: Catalogue, corpus: dict[str, Path], query: str
) -> None:
    with pytest.raises(QueryError) as info:
        cat.search(query)
    message = str(info.value)
    assert "\n" not in message
    assert message.startswith(f"The search {query!r} is not a valid query")
    assert message.endswith(".")
    rest = message[len(f"The search {query!r}") :]
    assert ". " not in rest  # one sentence
    for jargon in ("fts5", "sqlite", "syntax error", "no such column", "unknown special query"):
        assert jargon not in message.lower()
    assert '"exact phrases"' in message


@pytest.mark.parametrize("query", ["", "   ", "\n\t"])
def test_an_empty_query_is_refused(cat: Catalogue, query: str) -> None:
    with pytest.raises(QueryError, match="empty"):
        cat.search(query)


def test_query_error_explains_the_problem(cat: Catalogue, corpus: dict[str, Path]) -> None:
    def why(query: str) -> str:
        with pytest.raises(QueryError) as info:
            cat.search(query)
        return str(info.value)

    assert "quote" in why('"unbalanced')
    assert "AND" in why("AND")
    assert "no letters or digits" in why("*") and "no letters or digits" in why("--")


@pytest.mark.parametrize(
    ("query", "means"),
    [
        ("LoginForm.tsx", '"LoginForm.tsx"'),
        ("foo(bar)", '"foo(bar)"'),
        ("user@host", '"user@host"'),
        ("--force", '"--force"'),
        ("a.b x-y foo:bar NEAR(", '"a.b" "x-y" "foo:bar" "NEAR("'),
        ('say "it\'s done"', '"say" "it\'s done"'),
        ("cach* OR redis", '"cach"* OR "redis"'),
        ("(redis OR eviction) AND cache", '( "redis" OR "eviction" ) AND "cache"'),
        ("((a OR b)) c)", '( ( "a" OR "b" ) ) "c)"'),
    ],
)
def test_plain_text_is_searched_for_as_written(query: str, means: str) -> None:
    from core.catalogue.query import to_fts

    assert to_fts(query) == means


def test_punctuated_words_find_what_they_say(tmp_path: Path) -> None:
    root = tmp_path / "sessions"
    root.mkdir()
    texts = {
        "u1": "The bug is in LoginForm.tsx, line 12",
        "u2": "call foo(bar) twice",
        "u3": "ssh user@host and run git push --force",
        "u4": "login form in a tsx file",  # the same tokens, not side by side: no hit for LoginForm.tsx
    }
    lines = [{"type": "session", "version": 3, "id": "s1", "timestamp": "2026-02-01T00:00:00Z", "cwd": "/p"}]
    parent = None
    for entry_id, text in texts.items():
        lines.append(
            {
                "type": "message",
                "id": entry_id,
                "parentId": parent,
                "timestamp": "2026-02-01T00:00:01Z",
                "message": {"role": "user", "content": text, "timestamp": 1},
            }
        )
        parent = entry_id
    (root / "s1.jsonl").write_bytes(b"".join(orjson.dumps(line) + b"\n" for line in lines))
    catalogue = Catalogue(tmp_path / "catalogue")
    catalogue.refresh([root])
    found = {q: ids(catalogue.search(q)) for q in ("LoginForm.tsx", "foo(bar)", "user@host", "--force")}
    catalogue.close()
    assert found == {"LoginForm.tsx": {"u1"}, "foo(bar)": {"u2"}, "user@host": {"u3"}, "--force": {"u3"}}


# ---------------------------------------------------------------------------- snippets
def test_snippet_around_a_match_deep_in_a_long_text() -> None:
    text = "x" * 400 + " needle " + "y" * 400
    snippet, spans = make_snippet(text, query_terms("needle"))
    assert len(spans) == 1
    start, end = spans[0]
    assert snippet[start:end] == "needle"
    assert snippet.startswith("…") and snippet.endswith("…")
    text = "lead " + "z" * 300 + "/needle" + " tail"  # no space near the match
    snippet, spans = make_snippet(text, query_terms("need*"))
    assert [snippet[s:e] for s, e in spans] == ["needle"]


def test_query_terms_and_marks() -> None:
    assert query_terms('"Blue green" AND cach* NOT x_y OR NEAR(a b)') == [
        ("blue", False),
        ("green", False),
        ("cach", True),
        ("x", False),
        ("y", False),
        ("a", False),
        ("b", False),
    ]
    snippet, spans = make_snippet("A cache, my_cache and caches", query_terms("cache"))
    assert mark_spans(snippet, spans) == "A «cache», my_«cache» and caches"
    snippet, spans = make_snippet("Résumé writing", query_terms("resume"))
    assert mark_spans(snippet, spans, "<", ">") == "<Résumé> writing"


# ---------------------------------------------------------------------------- bad input
def test_a_damaged_file_is_catalogued_as_far_as_readable(cat: Catalogue, tmp_path: Path) -> None:
    path = tmp_path / "d" / "damaged.jsonl"
    path.parent.mkdir()
    good = [
        user("u1", None, "first readable capybara", T0),
        assistant("a1", "u1", "reply one", T0 + 1),
        user("u2", "a1", "second readable capybara", T0 + 2),
    ]
    path.write_bytes(
        line(header("sid-d", "/d"))
        + line(good[0])
        + b"{this is not json\n"  # line 3
        + line(good[1])
        + b"[1, 2]\n"  # line 5
        + line(good[2])
        + line(user("u3", "u2", "cut off", T0 + 3))[:25]  # line 7, truncated
    )
    stats = cat.refresh([tmp_path / "d"])
    assert (stats.files_indexed, stats.errors) == (1, [])
    assert [(d[0], d[1]) for d in cat.diagnostics(path)] == [
        (3, "invalid-json"),
        (5, "not-an-object"),
        (7, "truncated-line"),
    ]
    session = load_session(path)
    assert cat.diagnostics(path) == [(d.line, d.kind, d.message) for d in session.diagnostics]
    got = by_path(cat)[str(path)]
    assert got == fresh(path)
    assert (got["messageCount"], got["problems"], got["leafId"]) == (3, 3, "u2")
    assert ids(cat.search("capybara")) == {"u1", "u2"}
    assert cat.diagnostics(tmp_path / "d" / "not-catalogued.jsonl") == []


def test_a_file_without_a_header_is_searchable_but_not_listed(cat: Catalogue, tmp_path: Path) -> None:
    path = tmp_path / "h" / "noheader.jsonl"
    path.parent.mkdir()
    path.write_bytes(line(user("u1", None, "orphaned ocelot", T0)))
    cat.refresh([tmp_path / "h"])
    assert cat.summaries() == []
    assert ids(cat.search("ocelot")) == {"u1"}
    assert [(d[0], d[1]) for d in cat.diagnostics(path)] == [(1, "missing-header")]


def _built(folder: Path) -> None:
    catalogue = Catalogue(folder)
    catalogue.refresh([DEMO])
    catalogue.close()


def _works(folder: Path) -> Catalogue:
    catalogue = Catalogue(folder)
    assert catalogue.rebuilt_reason
    stats = catalogue.refresh([DEMO])
    assert stats.files_indexed == 7
    assert len(catalogue.summaries()) == 7
    assert catalogue.search("Redis")
    return catalogue


def test_a_corrupt_catalogue_file_is_rebuilt(tmp_path: Path) -> None:
    folder = tmp_path / "c"
    _built(folder)
    (folder / "catalogue.sqlite3").write_bytes(b"this is not a database at all " * 200)
    _works(folder).close()


@pytest.mark.parametrize("version", [0, SCHEMA_VERSION - 1, SCHEMA_VERSION + 1, -1])
def test_a_catalogue_from_another_schema_is_rebuilt(tmp_path: Path, version: int) -> None:
    folder = tmp_path / "c"
    folder.mkdir()
    conn = sqlite3.connect(folder / "catalogue.sqlite3")
    conn.execute("CREATE TABLE files(path TEXT)")
    conn.execute("INSERT INTO files VALUES ('x')")
    conn.execute(f"PRAGMA user_version={version}")
    conn.commit()
    conn.close()
    catalogue = _works(folder)
    assert "schema" in catalogue.rebuilt_reason
    catalogue.close()
    again = Catalogue(folder)  # now current: kept, not rebuilt
    assert again.rebuilt_reason is None
    assert again.refresh([DEMO]).files_indexed == 0
    again.close()


def test_a_catalogue_missing_a_table_is_rebuilt(tmp_path: Path) -> None:
    folder = tmp_path / "c"
    _built(folder)
    conn = sqlite3.connect(folder / "catalogue.sqlite3")
    conn.execute("DROP TABLE fts")
    conn.commit()
    conn.close()
    _works(folder).close()


def test_a_catalogue_folder_that_cannot_be_created(tmp_path: Path) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("x")
    with pytest.raises(CatalogueError) as info:
        Catalogue(blocker / "catalogue")
    message = str(info.value)
    assert str(blocker / "catalogue") in message
    assert "\n" not in message and "Errno" not in message
    assert message.startswith("Cannot create the catalogue folder")
    with pytest.raises(CatalogueError, match="is a file, not a folder"):
        Catalogue(blocker)


def test_the_default_folder_comes_from_the_environment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PRIME_SESSIONS_CATALOGUE", str(tmp_path / "env-cat"))
    catalogue = Catalogue()
    assert catalogue.path == tmp_path / "env-cat" / "catalogue.sqlite3"
    assert catalogue.path.exists()
    catalogue.close()


def test_a_catalogue_file_that_is_a_folder_is_reported_not_deleted(tmp_path: Path) -> None:
    (tmp_path / "c" / "catalogue.sqlite3").mkdir(parents=True)
    (tmp_path / "c" / "catalogue.sqlite3" / "keep").write_text("x")
    with pytest.raises(CatalogueError, match=r"^Cannot open the catalogue at .*catalogue\.sqlite3: "):
        Catalogue(tmp_path / "c")
    assert (tmp_path / "c" / "catalogue.sqlite3" / "keep").exists()


def test_text_with_lone_surrogates_is_catalogued(cat: Catalogue, tmp_path: Path) -> None:
    # JSON.parse accepts "\\ud83d" (half an emoji, from a reply cut mid-character); SQLite cannot store it.
    half = "\\ud83d"
    path = tmp_path / "u" / "a.jsonl"
    path.parent.mkdir()
    path.write_text(
        "\n".join(
            [
                json.dumps(header("sid-u", "/u")),
                '{"type":"session_info","id":"n","parentId":null,"timestamp":"2026-01-01T00:00:00Z",'
                f'"name":"name {half}"}}',
                '{"type":"message","id":"u1","parentId":"n","timestamp":"2026-01-01T00:00:00Z",'
                f'"message":{{"role":"user","content":"marmot {half} cut","timestamp":1}}}}',
                '{"type":"message","id":"a1","parentId":"u1","timestamp":"2026-01-01T00:00:01Z",'
                '"message":{"role":"assistant","content":[{"type":"toolCall","id":"c","name":"edit",'
                f'"arguments":{{"lines":["stoat {half}"]}}}}],"usage":{{"totalTokens":3}},"timestamp":2}}}}',
                "",
            ]
        )
    )
    stats = cat.refresh([tmp_path / "u"])
    assert (stats.files_indexed, stats.errors) == (1, [])
    [summary] = cat.summaries()
    assert (summary.name, summary.firstMessage) == ("name \ufffd", "marmot \ufffd cut")
    assert summary.messageCount == 2 and summary.totalTokens == 3
    [hit] = cat.search("marmot")
    assert hit.snippet == "«marmot» \ufffd cut"
    assert ids(cat.search("stoat")) == {"a1"}
    append(path, line(user("u2", "a1", "more marmot", T0)))
    assert cat.refresh([tmp_path / "u"]).files_appended == 1
    assert ids(cat.search("marmot")) == {"u1", "u2"}
    # Even an id may hold one; it is stored with U+FFFD, in a cold build and in an append.
    odd = '{"type":"message","id":"\\udc00w","parentId":"u2","timestamp":"2026-01-01T00:00:03Z",'
    odd += '"message":{"role":"user","content":"weasel","timestamp":3}}\n'
    append(path, odd.encode())
    assert cat.refresh([tmp_path / "u"]).errors == []
    [hit] = cat.search("weasel")
    assert (hit.entryId, hit.onCurrentBranch) == ("\ufffdw", True)
    assert cat.summaries()[0].leafId == "\ufffdw"
    cold = Catalogue(tmp_path / "cold")
    assert cold.refresh([tmp_path / "u"]).files_indexed == 1
    assert [(h.entryId, h.onCurrentBranch) for h in cold.search("weasel")] == [("\ufffdw", True)]
    cold.close()


def test_two_catalogues_on_one_folder_do_not_double_count(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A commit after every file, so the other catalogue can write in between (a real other
    # process would wait for the batch to commit).
    monkeypatch.setattr(update_module.Batch, "SECONDS", 0.0)
    root = tmp_path / "s"
    grown = copy_file(LINEAR, root / "grown.jsonl")
    copy_file(BRANCHES, root / "first.jsonl")
    first = Catalogue(tmp_path / "c")
    other = Catalogue(tmp_path / "c")
    first.refresh([root])
    append(grown, line(user("g1", "8721c1f9", "gnu antelope", T0)))
    new = copy_file(scenario("compaction"), root / "new.jsonl")
    now = grown.stat().st_mtime_ns
    os.utime(root / "first.jsonl", ns=(now, now + 3 * 10**9))  # touched, and the newest: read first
    os.utime(new, ns=(now, now - 3 * 10**9))
    os.utime(grown, ns=(now, now - 6 * 10**9))

    def meanwhile(files_done: int, *_rest: int) -> None:
        if files_done == 1:  # another process brings the other two files up to date in between
            other.refresh([root])

    first.refresh([root], progress=meanwhile)  # then finds them done: not added twice, no clash
    assert_summaries_fresh(first, [grown, new, root / "first.jsonl"])
    assert ids(first.search("antelope")) == {"g1"}
    assert len(first.search('"do it myself"')) == 1
    solo = Catalogue(tmp_path / "solo")  # what one catalogue alone makes of the same files
    solo.refresh([root])
    for query in ("cach*", "redis", "pipeline OR parquet", "the"):
        want = sorted((h.path, h.entryId) for h in solo.search(query, limit=1000))
        assert sorted((h.path, h.entryId) for h in first.search(query, limit=1000)) == want
    for catalogue in (first, other, solo):
        catalogue.close()


# ---------------------------------------------------------------------------- forgetting texts
def catalogue_bytes(cat: Catalogue) -> bytes:
    return b"".join(p.read_bytes() for p in sorted(cat.folder.glob("catalogue.sqlite3*")))


def fts_docs(cat: Catalogue) -> set[int]:
    """The FTS rows that still hold terms, read from the index itself (a fresh connection)."""
    conn = sqlite3.connect(cat.path)
    try:
        conn.execute("CREATE VIRTUAL TABLE temp.v USING fts5vocab(main, fts, instance)")
        conn.execute("INSERT INTO fts(fts, rank) VALUES ('integrity-check', 0)")
        return {doc for (doc,) in conn.execute("SELECT DISTINCT doc FROM temp.v")}
    finally:
        conn.close()


def text_count(cat: Catalogue) -> int:
    count: int = cat._connect().execute("SELECT count(*) FROM texts").fetchone()[0]
    return count


def test_a_file_read_again_whole_loses_the_texts_it_no_longer_holds(cat: Catalogue, tmp_path: Path) -> None:
    root = tmp_path / "s"
    path = root / "edited.jsonl"
    path.parent.mkdir(parents=True)
    first = user("q1", None, "quetzalfeathers in the logs", T0)
    path.write_bytes(
        line(header("edited", "/p")) + line(first) + line(user("q2", "q1", "kept words", T0 + 1))
    )
    cat.refresh([root])
    assert ids(cat.search("quetzalfeathers")) == {"q1"}
    # A term is stored after the prefix it shares with the one before it: look for its tail.
    assert b"tzalfeathers" in catalogue_bytes(cat)
    # Edited in place (not an append): the first message now says something else.
    path.write_bytes(
        line(header("edited", "/p"))
        + line({**first, "message": {**first["message"], "content": "tidied up"}})
        + line(user("q2", "q1", "kept words", T0 + 1))
    )
    stats = cat.refresh([root])
    assert stats.files_indexed == 1 and stats.texts_purged == 1
    assert cat.search("quetzalfeathers") == [] and ids(cat.search("kept")) == {"q2"}
    assert b"tzalfeathers" not in catalogue_bytes(cat)


def test_each_purged_text_is_rebuilt_exactly_from_the_index(cat: Catalogue, tmp_path: Path) -> None:
    """Folded case and diacritics, other scripts, punctuation and repeats: the delete must match."""
    root = tmp_path / "s"
    texts = [
        "Café ÜNÏCODE naïve façade — Straße ÆØÅ",
        "東京 タワー 😀 emoji, snake_case and kebab-case a-b-c",
        "repeat repeat REPEAT Repeat; 3.14 1,000 0x1F",
        "   ",
        "",
    ]
    gone = copy_file(LINEAR, root / "gone.jsonl")
    rows = [user(f"u{i}", f"u{i - 1}" if i else None, text, T0 + i) for i, text in enumerate(texts)]
    append(gone, b"".join(line(row) for row in rows))
    kept = copy_file(BRANCHES, root / "kept.jsonl")
    cat.refresh([root])
    before = fts_docs(cat)
    kept_only = Catalogue(tmp_path / "kept-only")
    kept_only.refresh([kept])
    gone.unlink()
    stats = cat.refresh([root])
    assert stats.files_removed == 1 and stats.texts_purged > len(texts) - 2
    after = fts_docs(cat)
    assert after < before and len(before) - len(after) == stats.texts_purged
    for query in ("cafe", "東京", "repeat", "emoji"):
        assert cat.search(query) == []
    # What the kept session finds is what a catalogue of it alone finds.
    for query in ("cach*", "redis", "the", "pipeline OR parquet"):
        want = sorted((h.path, h.entryId) for h in kept_only.search(query, limit=1000))
        assert sorted((h.path, h.entryId) for h in cat.search(query, limit=1000)) == want
    kept_only.close()


def test_a_text_that_cannot_be_rebuilt_exactly_stays_and_the_index_stays_sound(
    cat: Catalogue, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Checked with a stemming tokenizer, every rebuilt text with a word it stems looks wrong: those
    # rows must be left alone, since a delete that does not match what was indexed damages the index.
    monkeypatch.setattr(purge_module, "TOKENIZE", "porter unicode61 remove_diacritics 2")
    root = tmp_path / "s"
    gone = copy_file(LINEAR, root / "gone.jsonl")
    append(gone, line(user("u1", None, "feathers running", T0)) + line(user("u2", "u1", "zq 42", T0 + 1)))
    copy_file(BRANCHES, root / "kept.jsonl")
    cat.refresh([root])
    before, texts_before = fts_docs(cat), text_count(cat)
    gone.unlink()
    stats = cat.refresh([root])
    after = fts_docs(cat)  # the integrity check passes
    unheld = texts_before - text_count(cat)
    assert 0 < stats.texts_purged < unheld  # "zq 42" rebuilt exactly; "feathers running" not
    assert len(before) - len(after) == stats.texts_purged
    assert cat.search("feathers") == [] and cat.search("redis")


def test_a_batch_forgets_text_ids_once_another_connection_wrote(tmp_path: Path) -> None:
    first, other = Catalogue(tmp_path / "c"), Catalogue(tmp_path / "c")
    try:
        batch = update_module.Batch(first._connect())
        with batch.file():
            pass
        batch.indexed[1] = 2
        batch.commit()
        with batch.file():
            pass
        assert batch.indexed == {1: 2}  # nobody else wrote: still good
        batch.commit()
        other.refresh([tmp_path / "none"])  # another process's pass (it may have purged texts)
        conn = other._connect()
        conn.execute("BEGIN IMMEDIATE")
        conn.execute("INSERT INTO texts(id, key) VALUES (99, 99)")
        conn.execute("COMMIT")
        with batch.file():
            pass
        assert batch.indexed == {}
        batch.commit()
    finally:
        first.close()
        other.close()


# ---------------------------------------------------------------------------- threads and safety
def test_each_thread_has_its_own_connection(cat: Catalogue) -> None:
    cat.refresh([DEMO])
    main_conn = cat._connect()
    assert cat._connect() is main_conn
    want = [(h.path, h.entryId) for h in cat.search("cache")]
    assert want
    found: dict[str, object] = {}

    def worker() -> None:
        try:
            found["conn"] = cat._connect()
            found["hits"] = [(h.path, h.entryId) for h in cat.search("cache")]
            found["summaries"] = len(cat.summaries())
        except BaseException as err:
            found["error"] = err

    thread = threading.Thread(target=worker)
    thread.start()
    thread.join(30)
    assert "error" not in found, found.get("error")
    assert found["hits"] == want
    assert found["summaries"] == 7
    assert found["conn"] is not main_conn
    assert [(h.path, h.entryId) for h in cat.search("cache")] == want  # the main connection still works


def test_refreshing_and_searching_never_write_session_files(cat: Catalogue, tmp_path: Path) -> None:
    roots = copy_roots(tmp_path / "s")
    for path in (p for r in roots for p in r.rglob("*.jsonl")):
        os.utime(path, ns=(1_600_000_000_000_000_000, 1_600_000_000_000_000_000))
    before = snapshot(roots)
    cat.refresh(roots)
    assert len(cat.search("cach*", limit=500)) > 20  # snippets are read back from the files
    cat.summaries()
    assert snapshot(roots) == before
    for path in before:  # then every file grows (legacy ones are read again whole)
        append(path, line(user("w1", None, "write check", T0)))
    before = snapshot(roots)
    assert cat.refresh(roots).files_appended == 20
    assert len(cat.search('"write check"', limit=500)) == 21
    assert snapshot(roots) == before


# ---------------------------------------------------------------------------- command line
def cli(*args: str | Path, catalogue: Path, cwd: Path = REPO) -> subprocess.CompletedProcess[str]:
    return run_cli(*args, env={"PRIME_SESSIONS_CATALOGUE": str(catalogue)}, cwd=cwd)


COUNTS = re.compile(
    r"^(\d+) session files: (\d+) read whole, (\d+) read from where they grew, (\d+) removed; "
    r"[\d,]+\.\d MB read in \d+\.\d\d s\. Catalogue: (.+)$"
)


def test_cli_index_prints_the_counts(tmp_path: Path) -> None:
    root = tmp_path / "s"
    linear = copy_file(LINEAR, root / "a" / "linear.jsonl")
    copy_file(BRANCHES, root / "a" / "branches.jsonl")
    result = cli("index", root, catalogue=tmp_path / "cat")
    assert (result.returncode, result.stderr) == (0, "")
    [out] = result.stdout.splitlines()
    match = COUNTS.match(out)
    assert match, out
    assert match.groups() == ("2", "2", "0", "0", str(tmp_path / "cat" / "catalogue.sqlite3"))
    append(linear, line(user("c1", "8721c1f9", "more", T0)))
    result = cli("index", root, catalogue=tmp_path / "cat")
    assert COUNTS.match(result.stdout.strip()).groups()[:4] == ("2", "0", "1", "0")


def test_cli_search_json_and_errors(tmp_path: Path) -> None:
    result = cli(
        "search", "redis", "--json", "--root", SAMPLES / "pi-layout" / "sessions", catalogue=tmp_path
    )
    assert (result.returncode, result.stderr) == (0, "")
    out = json.loads(result.stdout)
    assert list(out) == ["query", "count", "hits"]
    assert out["query"] == "redis"
    assert out["count"] == len(out["hits"]) > 0
    for hit in out["hits"]:
        assert {"sessionId", "entryId", "path", "snippet", "onCurrentBranch"} <= set(hit)
        assert "«" in hit["snippet"].lower() and "redis" in hit["snippet"].lower()
    assert {h["onCurrentBranch"] for h in out["hits"]} == {True, False}
    catalogue = Catalogue(tmp_path)
    want = [(h.path, h.entryId, h.onCurrentBranch) for h in catalogue.search("redis")]
    catalogue.close()
    assert [(h["path"], h["entryId"], h["onCurrentBranch"]) for h in out["hits"]] == want
    for query in ('"unbalanced', "NOT redis"):
        bad = cli("search", query, "--no-refresh", catalogue=tmp_path)
        assert bad.returncode == 1
        assert "Traceback" not in bad.stderr
        [message] = bad.stderr.splitlines()
        assert message.startswith("prime-sessions: The search ")
        assert bad.stdout == ""


@pytest.mark.parametrize("case", INDEX["lists"], ids=[c["expected"] for c in INDEX["lists"]])
def test_cli_list_from_the_catalogue_matches_the_reference(tmp_path: Path, case: dict) -> None:
    root = (EXPECTED / case["root"]).resolve()
    fields = ("id", "cwd", "name", "parentSessionPath", "created", "modified", "messageCount", "firstMessage")
    result = cli("list", root, "--json", catalogue=tmp_path)
    assert (result.returncode, result.stderr) == (0, "")
    ours = json.loads(result.stdout)
    want = json.loads((EXPECTED / case["expected"]).read_text())["sessions"]
    assert len(ours) == len(want) == case["sessions"]
    by_shown = {case["pathPrefix"] + row["path"][len(str(root)) :]: row for row in ours}
    assert sorted(by_shown) == sorted(w["path"] for w in want)
    for reference in want:
        row = by_shown[reference["path"]]
        assert {k: row[k] for k in fields} == {k: reference[k] for k in fields}
    assert [row["modified"] for row in ours] == [w["modified"] for w in want]
    again = cli("list", root, "--json", "--no-refresh", catalogue=tmp_path)
    assert again.stdout == result.stdout


def test_cli_list_without_the_catalogue_gives_the_same(tmp_path: Path) -> None:
    roots = copy_roots(tmp_path / "s")
    with_catalogue = cli("list", *roots, "--json", catalogue=tmp_path / "cat")
    without = cli("list", *roots, "--json", "--no-catalogue", catalogue=tmp_path / "cat")
    assert (with_catalogue.returncode, with_catalogue.stderr) == (0, "")
    assert (without.returncode, without.stderr) == (0, "")
    assert with_catalogue.stdout == without.stdout
    assert len(json.loads(without.stdout)) == 21
    text = cli("list", *roots, catalogue=tmp_path / "cat")
    assert text.stdout == cli("list", *roots, "--no-catalogue", catalogue=tmp_path / "cat").stdout


def test_cli_list_falls_back_when_the_catalogue_is_unusable(tmp_path: Path) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("x")
    result = cli("list", PI, "--json", catalogue=blocker / "catalogue")
    assert result.returncode == 0
    [warning] = result.stderr.splitlines()
    assert warning.startswith("prime-sessions: Cannot create the catalogue folder")
    assert "Reading the session files directly instead." in warning
    assert result.stdout == cli("list", PI, "--json", "--no-catalogue", catalogue=tmp_path / "unused").stdout
    assert len(json.loads(result.stdout)) == 9


def test_cli_search_is_scoped_to_its_roots_and_counts_a_file_once(tmp_path: Path) -> None:
    source = SAMPLES / "pi-layout" / "sessions"
    first, second = tmp_path / "first", tmp_path / "second"
    shutil.copytree(source, first)
    shutil.copytree(source, second)
    (tmp_path / "again").symlink_to(first)  # the same files through another path
    catalogue_dir = tmp_path / "catalogue"
    assert cli("index", first, second, tmp_path / "again", catalogue=catalogue_dir).returncode == 0

    def hit_paths(*roots: Path) -> list[str]:
        result = cli("search", "redis", *roots, "--json", "--no-refresh", catalogue=catalogue_dir)
        assert result.returncode == 0, result.stderr
        return [h["path"] for h in orjson.loads(result.stdout)["hits"]]

    only_first = hit_paths(first)
    assert only_first and all(p.startswith(str(first)) for p in only_first)
    both = hit_paths(first, second)
    assert len(both) == 2 * len(only_first)
    through_link = hit_paths(first, tmp_path / "again")
    assert sorted(os.path.realpath(p) for p in through_link) == sorted(
        os.path.realpath(p) for p in only_first
    )
