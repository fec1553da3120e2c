"""A file with a lot of text is read into the catalogue in parts: the same catalogue, bounded memory.

``core.catalogue.reading.read_whole`` hands its rows and texts over in parts once a few characters of
text have gathered (``PRIME_SESSIONS_PART_TEXT`` makes parts of an entry or two here); the writer puts
them in as they come, in the file's savepoint, and marks the path to the leaf through them at the end.
"""

from __future__ import annotations

import os
import sqlite3
import tempfile
from pathlib import Path

import pytest

import core.catalogue.reading as reading_module
from core.catalogue import Catalogue
from tests.core.test_catalogue import (
    ALL_FILES,
    T0,
    _everything,
    assistant,
    copy_roots,
    header,
    user,
    write_session,
)


def _rows(cat: Catalogue) -> list[tuple]:
    """Every entries row, with its text as the text (ids of texts may be numbered otherwise)."""
    conn = sqlite3.connect(cat.path)
    try:
        return conn.execute(
            "SELECT f.path, e.line, e.entry_id, e.parent_id, e.tokens, e.cost, e.stop, e.role, e.tools,"
            " e.model, e.ts_ms, e.offset, e.length, t.key, e.on_path FROM entries AS e"
            " JOIN files AS f ON f.id = e.file_id LEFT JOIN texts AS t ON t.id = e.text_id"
            " ORDER BY f.path, e.line"
        ).fetchall()
    finally:
        conn.close()


def _branchy(root: Path) -> Path:
    """A session whose leaf is on a second branch: entries on and off the path, in every part."""
    entries = [user("u1", None, "walrus one", T0)]
    entries.append(assistant("a1", "u1", "walrus reply", T0 + 1000))
    entries.append(user("u2", "a1", "abandoned narwhal", T0 + 2000))
    entries.append(assistant("a2", "u2", "abandoned narwhal reply", T0 + 3000))
    entries.append(user("u3", "a1", "kept narwhal", T0 + 4000))
    entries.append(assistant("a3", "u3", "kept narwhal reply", T0 + 5000))
    entries.append(user("u4", "a3", "walrus last", T0 + 6000))
    return write_session(root / "branchy.jsonl", header("sid-branchy", "/p"), entries)


def test_a_read_hands_its_rows_over_in_parts_and_keeps_only_the_rest(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = str(_branchy(tmp_path / "r"))
    whole = reading_module.read_whole(path, os.stat(path))
    monkeypatch.setenv("PRIME_SESSIONS_PART_TEXT", "12")  # a part after every entry or two
    parts: list[reading_module.Part] = []
    rest = reading_module.read_whole(path, os.stat(path), on_part=parts.append)
    assert len(parts) >= 3
    assert sum(len(p.entries) for p in parts) + len(rest.entries) == len(whole.entries)
    assert len(rest.texts) < len(whole.texts)  # the result holds only what no part took
    handed = {row[0] for p in parts for row in p.entries}
    # The rows handed over before the leaf was known say "off the path"; path_lines puts that right.
    assert all(row[13] in (False, None) for p in parts for row in p.entries)
    on_path = {row[0] for row in whole.entries if row[13]}
    marked = {line for first, last in rest.path_lines for line in range(first, last + 1)}
    assert marked & handed >= on_path & handed
    assert not marked & {row[0] for row in whole.entries if row[13] is False}
    assert (rest.files, rest.usage) == (whole.files, whole.usage)


@pytest.mark.parametrize("readers", ["0", "2"])
def test_a_catalogue_written_in_parts_is_the_same(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, readers: str
) -> None:
    roots = copy_roots(tmp_path / "s")
    _branchy(roots[0])
    monkeypatch.setenv("PRIME_SESSIONS_READERS", "0")
    whole = Catalogue(tmp_path / "whole")
    whole.refresh(roots)
    monkeypatch.setenv("PRIME_SESSIONS_PART_TEXT", "40")
    monkeypatch.setenv("PRIME_SESSIONS_READERS", readers)  # "2": spawned workers hand parts over as files
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(scratch))
    parted = Catalogue(tmp_path / "parted")
    stats = parted.refresh(roots)
    assert stats.files_indexed == len(ALL_FILES) + 1 and not stats.errors
    assert stats.files_from_readers == (0 if readers == "0" else len(ALL_FILES) + 1)
    assert list(scratch.iterdir()) == []  # every part and result file removed
    assert _rows(parted) == _rows(whole)
    assert _everything(parted, roots) == _everything(whole, roots)
    hits = {h.entryId: h.onCurrentBranch for h in parted.search("narwhal")}
    assert hits == {"u2": False, "a2": False, "u3": True, "a3": True}
    for catalogue in (whole, parted):
        catalogue.close()


def test_a_file_that_fails_after_some_parts_leaves_nothing_of_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = tmp_path / "r"
    path = _branchy(root)
    monkeypatch.setenv("PRIME_SESSIONS_READERS", "0")
    monkeypatch.setenv("PRIME_SESSIONS_PART_TEXT", "12")
    real = reading_module.summarize

    def failing(*args: object, **kwargs: object) -> object:  # after every part went in
        raise OSError(5, "Input/output error")

    cat = Catalogue(tmp_path / "cat")
    monkeypatch.setattr(reading_module, "summarize", failing)
    stats = cat.refresh([root])
    assert stats.errors and str(path) in stats.errors[0]
    assert _rows(cat) == [] and cat.search("walrus") == []
    monkeypatch.setattr(reading_module, "summarize", real)
    cat.refresh([root])
    assert {h.entryId for h in cat.search("walrus")} == {"u1", "a1", "u4"}
    cat.close()


def test_a_pass_deletes_a_files_rows_by_index_never_by_scanning_a_table(tmp_path: Path) -> None:
    # A delete that scans a table once per file makes a cold build quadratic in the number of files
    # (usage_groups, keyed by grain first, was scanned for each of 20,000 files).
    roots = copy_roots(tmp_path / "s")
    cat = Catalogue(tmp_path / "cat")
    cat.refresh(roots)
    first, second = sorted(roots[0].rglob("*.jsonl"))[:2]
    first.unlink()  # leaves the catalogue
    second.unlink()  # replaced: read again whole, its old rows deleted first
    write_session(second, header("sid-new", "/p"), [user("n1", None, "replaced", T0)])
    statements: list[str] = []
    conn = cat._connect()
    conn.set_trace_callback(statements.append)
    cat.refresh(roots)
    conn.set_trace_callback(None)
    deletes = {s for s in statements if s.startswith("DELETE FROM") and "file_id =" in s}
    assert deletes
    for statement in deletes:
        plan = " ".join(row[3] for row in conn.execute("EXPLAIN QUERY PLAN " + statement))
        assert "SCAN" not in plan, (statement, plan)
    cat.close()


@pytest.mark.parametrize("readers", ["0", "1"])
def test_progress_is_given_inside_a_file_read_in_parts(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, readers: str
) -> None:
    # One huge session takes seconds: the status bar moves while it is read, not only at its end.
    path = _branchy(tmp_path / "r")
    size = path.stat().st_size
    monkeypatch.setenv("PRIME_SESSIONS_PART_TEXT", "12")
    monkeypatch.setenv("PRIME_SESSIONS_READERS", readers)
    calls: list[tuple[int, int, int, int]] = []
    cat = Catalogue(tmp_path / "cat")
    cat.refresh([tmp_path / "r"], progress=lambda *args: calls.append(args))
    inside = [c for c in calls if c[0] == 0]
    assert len(inside) >= 3 and all(c[1] == 1 and c[3] == size for c in inside)
    done = [c[2] for c in inside]
    assert done == sorted(done) and 0 < done[0] and done[-1] < size
    assert calls[-1] == (1, 1, size, size)
    cat.close()
