"""Files touched in the catalogue: stored by whole reads and appends alike, found by ``search --touched``."""

from __future__ import annotations

import json
import shutil
import sqlite3
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from core.catalogue import Catalogue, QueryError
from core.errors import InvalidRequestError
from core.kinds.touches import session_touches, touched_files
from core.session import load_session
from tests.conftest import DEMO
from tests.core.test_catalogue import T0, append, assistant, header, line, tool_result, user, write_session
from tests.helpers import run_cli

CACHE = "019cb402-3c88-737c-a54e-8f5201941e04.jsonl"  # acme-webapp: writes src/server/cache/lru.ts, redis.ts
LRU = "019cbdc3-02c0-73a8-8574-a995f558347e.jsonl"  # acme-webapp: edits src/server/cache/lru.ts
LOGIN = "019cadd3-8790-76fa-8ab0-c952ebef2dfd.jsonl"  # acme-webapp: src/components/LoginForm.tsx
WINDOWS = "019cc409-c2e0-7241-b21f-076963ebceec.jsonl"  # C:\Users\dev\win proj: reads package.json


@pytest.fixture
def demo(tmp_path: Path) -> Path:
    folder = tmp_path / "sessions"
    shutil.copytree(DEMO, folder, ignore=shutil.ignore_patterns("*.md"))
    return folder


@pytest.fixture
def cat(tmp_path: Path):
    catalogue = Catalogue(tmp_path / "catalogue")
    yield catalogue
    catalogue.close()


def _names(found: list) -> set[str]:
    return {Path(s.path).name for s in found}


def _rows(cat: Catalogue, path: Path) -> list[tuple]:
    conn = sqlite3.connect(cat.path)
    try:
        return conn.execute(
            "SELECT t.line, t.seq, t.entry_id, p.path, nullif(p.rel, ''), t.how FROM touches t"
            " JOIN files f ON f.id = t.file_id JOIN touched_paths p ON p.id = t.path_id"
            " WHERE f.path = ? ORDER BY t.line, t.seq",
            (str(path),),
        ).fetchall()
    finally:
        conn.close()


def test_a_file_or_a_folder_relative_to_each_project_or_absolute(cat: Catalogue, demo: Path) -> None:
    cat.refresh([demo])
    assert _names(cat.touched("src/server/cache/lru.ts")) == {CACHE, LRU}
    assert _names(cat.touched("src/server/cache")) == {CACHE, LRU}
    assert _names(cat.touched("src/server/cache/")) == {CACHE, LRU}
    assert _names(cat.touched("./src/server/../server/cache")) == {CACHE, LRU}
    assert cat.touched("src/server/cach") == []  # a folder is a whole name, not a prefix
    assert _names(cat.touched("/home/dev/acme-webapp/src/server")) == {CACHE, LRU}
    assert LOGIN in _names(cat.touched("src/components/"))
    assert _names(cat.touched("C:\\Users\\dev\\win proj\\package.json")) == {WINDOWS}
    assert WINDOWS in _names(cat.touched("package.json"))  # relative: a Windows project's too
    # which of its files each session touched, newest session first
    found = cat.touched("src/server/cache")
    assert [s.modified_ms for s in found] == sorted((s.modified_ms for s in found), reverse=True)
    by_name = {Path(s.path).name: s for s in found}
    assert [f.shown for f in by_name[CACHE].files] == ["src/server/cache/lru.ts", "src/server/cache/redis.ts"]
    assert by_name[LRU].files[0].kinds == ("edit", "write")
    assert by_name[CACHE].cwd == "/home/dev/acme-webapp"


def test_the_roots_narrow_and_bad_paths_are_one_sentence(cat: Catalogue, demo: Path, tmp_path: Path) -> None:
    other = tmp_path / "other"
    other.mkdir()
    shutil.copyfile(demo / CACHE, other / CACHE)
    cat.refresh([demo, other])
    assert len(cat.touched("src/server/cache/redis.ts")) == 2
    assert [Path(s.path).parent for s in cat.touched("src/server/cache/redis.ts", [other])] == [other]
    with pytest.raises(InvalidRequestError, match="leaves the project folder"):
        cat.touched("../elsewhere/a.py")
    with pytest.raises(InvalidRequestError, match="needs a path"):
        cat.touched("  ")


def test_the_stored_rows_are_the_sessions_own_files(cat: Catalogue, demo: Path) -> None:
    cat.refresh([demo])
    for path in sorted(demo.glob("*.jsonl")):
        session = load_session(path)
        cwd = str((session.header or {}).get("cwd") or "")
        want = {(f.path, how) for f in touched_files(session_touches(session), cwd) for how in f.kinds}
        assert {(row[3], row[5]) for row in _rows(cat, path)} == want, path.name


def test_what_the_catalogue_says_of_a_session_is_what_files_says(cat: Catalogue, demo: Path) -> None:
    cat.refresh([demo])
    found = {Path(s.path).name: s for s in cat.touched(".")}  # every file inside each session's project
    assert len(found) == 7
    for path in sorted(demo.glob("*.jsonl")):
        session = load_session(path)
        cwd = str((session.header or {}).get("cwd") or "")
        inside = [f for f in touched_files(session_touches(session), cwd) if f.shown != f.path]
        assert list(found[path.name].files) == inside, path.name


def test_two_touches_of_one_file_by_one_entry_count_twice(cat: Catalogue, tmp_path: Path) -> None:
    folder = tmp_path / "s"
    calls = [("edit", {"path": "a.py"}), ("edit", {"path": "./a.py"}), ("read", {"path": "a.py"})]
    write_session(folder / "t.jsonl", header("s-t", "/p"), [assistant("a1", None, "x", T0, calls=calls)])
    cat.refresh([folder])
    (session,) = cat.touched("a.py")
    assert session.files[0].counts == (("edit", 2), ("read", 1))
    assert session.files[0].entries == ("a1",)


def test_appended_entries_touches_are_recorded_as_a_whole_read_would(cat: Catalogue, tmp_path: Path) -> None:
    folder = tmp_path / "s"
    path = write_session(
        folder / "a.jsonl",
        header("s-1", "/work/proj"),
        [
            user("u1", None, "look", T0),
            assistant("a1", "u1", "reading", T0 + 1, calls=[("read", {"path": "src/auth/login.py"})]),
            tool_result("r1", "a1", "read", "code", T0 + 2),
        ],
    )
    cat.refresh([folder])
    assert _names(cat.touched("src/auth/")) == {"a.jsonl"}
    assert cat.touched("docs") == []
    append(
        path,
        line(user("u2", "r1", "now write", T0 + 3))
        + line(
            assistant(
                "a2",
                "u2",
                "writing",
                T0 + 4,
                calls=[
                    ("write", {"path": "docs/auth.md", "content": "x"}),
                    ("bash", {"command": "cat /etc/hosts"}),
                ],
            )
        ),
    )
    stats = cat.refresh([folder])
    assert (stats.files_appended, stats.files_indexed) == (1, 0)  # the incremental path
    assert [f.shown for f in cat.touched("docs")[0].files] == ["docs/auth.md"]
    assert _names(cat.touched("/etc/hosts")) == {"a.jsonl"}
    appended = _rows(cat, path)
    # the same rows as a whole read of the grown file
    again = Catalogue(tmp_path / "again")
    try:
        again.refresh([folder])
        assert _rows(again, path) == appended
    finally:
        again.close()
    assert [row[3:] for row in appended] == [
        ("/work/proj/src/auth/login.py", "src/auth/login.py", "read"),
        ("/work/proj/docs/auth.md", "docs/auth.md", "write"),
        ("/etc/hosts", None, "read"),
    ]


def test_a_file_leaving_the_catalogue_takes_its_touches_along(cat: Catalogue, demo: Path) -> None:
    cat.refresh([demo])
    assert _rows(cat, demo / CACHE)
    (demo / CACHE).unlink()
    cat.refresh([demo])
    assert _names(cat.touched("src/server/cache/redis.ts")) == set()
    conn = sqlite3.connect(cat.path)
    try:
        orphans = conn.execute("SELECT count(*) FROM touches WHERE file_id NOT IN (SELECT id FROM files)")
        assert orphans.fetchone()[0] == 0
        unheld = conn.execute("SELECT path FROM touched_paths WHERE id NOT IN (SELECT path_id FROM touches)")
        assert unheld.fetchall() == []  # redis.ts only that session touched: its path left too
        paths = {p for (p,) in conn.execute("SELECT path FROM touched_paths")}
        assert "/home/dev/acme-webapp/src/server/cache/lru.ts" in paths  # another session touched it
    finally:
        conn.close()


def test_search_hits_only_from_sessions_that_touched(cat: Catalogue, demo: Path) -> None:
    cat.refresh([demo])
    everywhere = {Path(h.path).name for h in cat.search("cache")}
    assert len(everywhere) > 1 or CACHE in everywhere
    narrowed = {Path(h.path).name for h in cat.search("cache", touched="src/server/cache/redis.ts")}
    assert narrowed == {CACHE}
    with pytest.raises(QueryError, match="leaves the project folder"):
        cat.search("cache", touched="../x")


# ---------------------------------------------------------------------------- the command line
def test_files_command_text_json_and_references(demo: Path, tmp_path: Path) -> None:
    done = run_cli("files", demo / CACHE)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [
        "write 1         src/server/cache/lru.ts",
        "write 1         src/server/cache/redis.ts",
        "edit 2, read 1  src/server/routes/products.ts",
        "3 files",
    ]
    data = json.loads(run_cli("files", demo / CACHE, "--json").stdout)
    assert data["cwd"] == "/home/dev/acme-webapp" and data["count"] == 3
    products = data["files"][2]
    assert products["path"] == "src/server/routes/products.ts"
    assert products["absolutePath"] == "/home/dev/acme-webapp/src/server/routes/products.ts"
    assert (
        products["touches"] == {"edit": 2, "read": 1} and products["firstEntryId"] == products["entries"][0]
    )
    # a session by its id prefix, as every FILE argument takes it
    env = {"PRIME_AGENT_DIR": str(demo.parent), "XDG_CACHE_HOME": str(tmp_path / "cache")}
    by_id = run_cli("files", "019cb402", env=env)  # PRIME_AGENT_DIR/sessions is the demo copy
    assert by_id.returncode == 0, by_id.stderr
    assert by_id.stdout == done.stdout
    empty = tmp_path / "empty.jsonl"
    empty.write_text(json.dumps(header("s-2", "/p")) + "\n")
    assert run_cli("files", empty).stdout == "No files touched.\n"
    bad = run_cli("files", tmp_path / "missing.jsonl")
    assert bad.returncode != 0 and "Traceback" not in bad.stderr


def test_search_touched_command(demo: Path, tmp_path: Path) -> None:
    catalogue = tmp_path / "c"
    done = run_cli("search", "--touched", "src/server/cache", demo, "--catalogue", catalogue, "--json")
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert data["count"] == 2 and {Path(s["path"]).name for s in data["sessions"]} == {CACHE, LRU}
    text = run_cli("search", "--touched", "src/server/cache/redis.ts", demo, "--catalogue", catalogue)
    assert "write 1  src/server/cache/redis.ts" in text.stdout and str(demo / CACHE) in text.stdout
    hits = run_cli("search", "redis", "--touched", "src/server", demo, "--catalogue", catalogue, "--json")
    assert {Path(h["path"]).name for h in json.loads(hits.stdout)["hits"]} <= {CACHE, LRU}
    none = run_cli("search", "--touched", "nowhere/at/all.py", demo, "--catalogue", catalogue)
    assert none.stdout == "No session touched nowhere/at/all.py.\n"
    empty = run_cli("search", "--catalogue", catalogue)
    assert empty.returncode != 0 and "--touched" in empty.stderr and "Traceback" not in empty.stderr


@pytest.mark.parametrize("readers", ["0", "2"])
def test_reads_in_parts_and_in_reader_processes_store_the_same_touches(
    tmp_path: Path, demo: Path, monkeypatch: pytest.MonkeyPatch, readers: str
) -> None:
    monkeypatch.setenv("PRIME_SESSIONS_READERS", "0")
    whole = Catalogue(tmp_path / "whole")
    monkeypatch.setenv("PRIME_SESSIONS_PART_TEXT", "40")  # a part every entry or two
    monkeypatch.setenv("PRIME_SESSIONS_READERS", readers)
    parted = Catalogue(tmp_path / "parted")
    try:
        monkeypatch.setenv("PRIME_SESSIONS_PART_TEXT", str(16 * 1024 * 1024))
        monkeypatch.setenv("PRIME_SESSIONS_READERS", "0")
        whole.refresh([demo])
        monkeypatch.setenv("PRIME_SESSIONS_PART_TEXT", "40")
        monkeypatch.setenv("PRIME_SESSIONS_READERS", readers)
        stats = parted.refresh([demo])
        assert stats.files_from_readers == (0 if readers == "0" else 7)
        for path in sorted(demo.glob("*.jsonl")):
            assert _rows(parted, path) == _rows(whole, path) != [], path.name
    finally:
        whole.close()
        parted.close()


_CALLS = st.sampled_from(
    [
        ("read", {"path": "src/a.py"}),
        ("edit", {"path": "src/b.py", "oldText": "x", "newText": "y"}),
        ("write", {"path": "/tmp/out.txt", "content": ""}),
        ("bash", {"command": "cd lib && cat c.py > ../d.md"}),
        ("bash", {"command": "echo 'unterminated"}),
        ("grep", {"pattern": "x", "path": "."}),
        ("ipython", {"code": "%%bash\nrm -f old.log"}),
        ("read", {"path": 7}),
        ("web_search", {"query": "a.py"}),
    ]
)


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.lists(_CALLS, max_size=3), min_size=2, max_size=8), st.integers(min_value=1, max_value=7))
def test_appends_store_what_a_whole_read_stores(tmp_path: Path, turns: list, cut: int) -> None:
    """Generated sessions, catalogued, then grown: the rows are a whole read's, and the session's files."""
    folder = Path(tempfile.mkdtemp(dir=tmp_path))
    entries = []
    parent = None
    for i, calls in enumerate(turns):
        entries.append(assistant(f"a{i}", parent, "x", T0 + i, calls=calls))
        parent = f"a{i}"
    cut = min(cut, len(entries) - 1)
    path = write_session(folder / "s" / "g.jsonl", header("s-g", "/w/p"), entries[:cut])
    grown = Catalogue(folder / "grown")
    whole = Catalogue(folder / "whole")
    try:
        grown.refresh([path.parent])
        append(path, b"".join(line(e) for e in entries[cut:]))
        assert grown.refresh([path.parent]).files_appended == 1
        whole.refresh([path.parent])
        assert _rows(grown, path) == _rows(whole, path)
        session = load_session(path)
        want = {(f.path, how) for f in touched_files(session_touches(session), "/w/p") for how in f.kinds}
        assert {(row[3], row[5]) for row in _rows(grown, path)} == want
    finally:
        grown.close()
        whole.close()
