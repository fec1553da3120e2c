"""Notes about sessions (archive, pin, tags): in the data folder, keyed by session id, never in a session.

Commands run in process (``core.cli.main``) over copies of demo sessions in a private agent folder; the
notes folder of every test is private (``tests/conftest.py``).
"""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from core.cli import main
from core.errors import InvalidRequestError
from core.notes import (
    Note,
    Notes,
    NotesError,
    SessionRef,
    clean_tag,
    default_notes_dir,
    note_key,
    parse_notes,
)
from core.notes.store import NOTES_FILE
from core.session.identity import read_session_id
from tests.core.test_session_refs import write_session
from tests.core.test_trash import in_trash, trash_home  # noqa: F401 (a fixture)

FIRST = "01a139df-0000-7000-8000-000000000001"
SECOND = "02b2c3d4-0000-7000-8000-000000000002"
THIRD = "03c3d4e5-0000-7000-8000-000000000003"


@pytest.fixture
def agent(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The usual session folder (``PRIME_AGENT_DIR``) holding three sessions, one named "login fix"."""
    folder = tmp_path / "agent"
    sessions = folder / "sessions"
    sessions.mkdir(parents=True)
    monkeypatch.setenv("PRIME_AGENT_DIR", str(folder))
    monkeypatch.setenv("PI_CODING_AGENT_DIR", str(tmp_path / "no-pi"))
    write_session(sessions, FIRST, name="login fix")
    write_session(sessions, SECOND)
    write_session(sessions, THIRD)
    return sessions


def cli(capsys: pytest.CaptureFixture[str], *argv: str | Path) -> tuple[int, str, str]:
    status = main([str(a) for a in argv])
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def listed(capsys: pytest.CaptureFixture[str], *options: str) -> list[dict[str, object]]:
    status, out, err = cli(capsys, "list", "--json", *options)
    assert status == 0, err
    rows: list[dict[str, object]] = json.loads(out)
    return rows


def ids(rows: list[dict[str, object]]) -> list[object]:
    return [row["id"] for row in rows]


def snapshot(folder: Path) -> dict[str, tuple[bytes, int]]:
    return {p.name: (p.read_bytes(), p.stat().st_mtime_ns) for p in sorted(folder.rglob("*.jsonl"))}


# ---------------------------------------------------------------------------- session files untouched
def test_no_archive_pin_or_tag_operation_changes_a_byte_of_a_session(
    agent: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    before = snapshot(agent)
    export = tmp_path / "notes.json"
    for argv in (
        ("archive", FIRST, "02b2"),
        ("pin", "login fix"),
        ("tag", FIRST, "auth", "needs review"),
        ("tag", FIRST, "--remove", "AUTH"),
        ("tag", FIRST),
        ("unpin", FIRST),
        ("unarchive", "02b2"),
        ("notes", "export", "-o", export),
        ("notes", "import", export),
        ("list", "--all"),
        ("search", "login", "--tag", "needs review"),
    ):
        status, _out, err = cli(capsys, *argv)
        assert status == 0, (argv, err)
        assert snapshot(agent) == before, argv
    assert not list(agent.glob("*.lock")) and sorted(p.name for p in agent.iterdir()) == sorted(before)


# ---------------------------------------------------------------------------- archive, pin, tags in list
def test_archive_hides_from_list_and_archived_or_all_bring_it_back(
    agent: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert cli(capsys, "archive", FIRST)[1] == f"Archived: {agent / (FIRST + '.jsonl')}\n"
    assert FIRST not in ids(listed(capsys))
    assert ids(listed(capsys, "--archived")) == [FIRST]
    rows = listed(capsys, "--all")
    assert FIRST in ids(rows) and {r["id"]: r["archived"] for r in rows}[FIRST] is True
    status, out, _err = cli(capsys, "list")
    assert status == 0 and out.splitlines()[-1] == "2 sessions (1 archived not shown: --archived lists them)"
    cli(capsys, "unarchive", FIRST)
    assert FIRST in ids(listed(capsys)) and cli(capsys, "list")[1].splitlines()[-1] == "3 sessions"


def test_pinned_sessions_come_first_and_unpin_puts_them_back(
    agent: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    order = ids(listed(capsys))
    last = order[-1]
    cli(capsys, "pin", str(last))
    rows = listed(capsys)
    assert ids(rows)[0] == last and rows[0]["pinned"] is True
    assert "[pinned]" in cli(capsys, "list")[1].splitlines()[0]
    cli(capsys, "unpin", str(last))
    assert ids(listed(capsys)) == order


def test_tags_are_free_text_several_per_session_one_per_spelling_and_filter_list(
    agent: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status, out, _err = cli(capsys, "tag", FIRST, "auth", "needs  review", "Auth")
    assert status == 0 and out.endswith(": auth, needs review\n")  # "Auth" is "auth"; spaces folded
    cli(capsys, "tag", SECOND, "AUTH")
    assert cli(capsys, "tag", FIRST)[1] == "auth\nneeds review\n"
    assert sorted(map(str, ids(listed(capsys, "--tag", "auth")))) == [FIRST, SECOND]
    assert ids(listed(capsys, "--tag", "auth", "--tag", "Needs Review")) == [FIRST]  # every tag given
    cli(capsys, "tag", FIRST, "--remove", "NEEDS REVIEW", "never had it")
    assert ids(listed(capsys, "--tag", "needs review")) == []
    assert {r["id"]: r["tags"] for r in listed(capsys)}[FIRST] == ["auth"]
    assert "#auth" in cli(capsys, "list", "--tag", "auth")[1]


def test_search_tag_keeps_the_hits_of_tagged_sessions_only(
    agent: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status, out, _err = cli(capsys, "search", "login", "--json")
    everywhere = {hit["sessionId"] for hit in json.loads(out)["hits"]}
    assert everywhere == {FIRST, SECOND, THIRD}
    cli(capsys, "tag", SECOND, "Keep")
    status, out, _err = cli(capsys, "search", "login", "--tag", "keep", "--json")
    assert status == 0 and {hit["sessionId"] for hit in json.loads(out)["hits"]} == {SECOND}
    status, out, _err = cli(capsys, "search", "login", "--tag", "nobody has it")
    assert status == 0 and out == "No matches.\n"


def test_tag_arguments_that_are_no_tags_are_one_sentence(
    agent: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for argv, status, sentence in (
        (("tag", FIRST, " "), 1, "prime-sessions: A tag cannot be empty.\n"),
        (
            ("tag", FIRST, "a,b"),
            1,
            "prime-sessions: A tag cannot hold a comma ('a,b'); commas separate tags.\n",
        ),
        (("tag", FIRST, "x\u202ey"), 1, None),  # a right-to-left override
        (("tag", FIRST, "x" * 101), 1, None),
        (("tag", FIRST, "a", "--remove", "b"), 2, None),
    ):
        got, out, err = cli(capsys, *argv)
        assert got == status and out == "" and err.count("\n") == 1 and err.startswith("prime-sessions: ")
        if sentence is not None:
            assert err == sentence
    assert Notes().all() == {}  # nothing half written


# ---------------------------------------------------------------------------- SESSION arguments
def test_session_arguments_take_a_path_an_id_a_prefix_or_a_name(
    agent: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = agent / f"{FIRST}.jsonl"
    for ref in (str(path), FIRST, "01a1", "login fix"):
        assert cli(capsys, "pin", ref)[0] == 0
        assert Notes().get(FIRST).pinned
        assert cli(capsys, "unpin", ref)[0] == 0
        assert not Notes().get(FIRST).pinned
    status, _out, err = cli(capsys, "archive", "0")  # all three
    assert status == 1 and "could be any of 3 sessions" in err
    status, _out, err = cli(capsys, "tag", "zz9", "x")
    assert status == 1 and "zz9 is not a session file, nor the id" in err
    assert Notes().all() == {}


# ---------------------------------------------------------------------------- where the notes live
def test_notes_survive_deleting_the_catalogue(
    agent: Path, capsys: pytest.CaptureFixture[str], _private_catalogue: Path
) -> None:
    cli(capsys, "archive", SECOND)
    cli(capsys, "tag", THIRD, "keep")
    assert (_private_catalogue / "catalogue.sqlite3").exists()
    shutil.rmtree(_private_catalogue)
    assert ids(listed(capsys, "--archived")) == [SECOND]
    assert ids(listed(capsys, "--tag", "keep")) == [THIRD]
    assert (_private_catalogue / "catalogue.sqlite3").exists()  # rebuilt, the notes untouched


def test_a_moved_file_keeps_its_notes(agent: Path, capsys: pytest.CaptureFixture[str]) -> None:
    cli(capsys, "archive", FIRST)
    cli(capsys, "tag", FIRST, "auth")
    moved = agent / "--home-dev-other--" / "renamed.jsonl"  # another folder and another name
    moved.parent.mkdir()
    os.rename(agent / f"{FIRST}.jsonl", moved)
    rows = listed(capsys, "--archived")
    assert [(r["id"], r["path"], r["tags"]) for r in rows] == [(FIRST, str(moved), ["auth"])]
    assert cli(capsys, "tag", str(moved))[1] == "auth\n"


def test_a_trashed_then_restored_file_keeps_its_notes(
    agent: Path,
    capsys: pytest.CaptureFixture[str],
    trash_home: Path,  # noqa: F811 (the fixture)
) -> None:
    path = agent / f"{SECOND}.jsonl"
    cli(capsys, "pin", SECOND)
    cli(capsys, "tag", SECOND, "keep")
    assert cli(capsys, "trash", SECOND, "--yes")[0] == 0 and not path.exists()
    assert ids(listed(capsys, "--tag", "keep")) == []
    os.rename(in_trash(trash_home, path), path)  # what "Restore" in a file manager does
    rows = listed(capsys)
    assert ids(rows)[0] == SECOND and rows[0]["pinned"] is True and rows[0]["tags"] == ["keep"]


def test_the_notes_file_is_in_the_data_folder_never_the_cache(
    agent: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.delenv("PRIME_SESSIONS_NOTES")
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    folder = default_notes_dir()
    assert folder == tmp_path / "data" / "prime-sessions"
    assert cli(capsys, "pin", FIRST)[0] == 0
    assert (folder / NOTES_FILE).is_file()
    assert not list((tmp_path / "cache").rglob(NOTES_FILE))  # (rglob of a folder not there: nothing)


def test_reading_notes_never_creates_the_file(agent: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert listed(capsys) and cli(capsys, "tag", FIRST)[0] == 0
    assert cli(capsys, "notes", "export")[1].startswith("{")
    assert not Notes().path.exists()


def test_a_damaged_notes_file_is_one_sentence_left_as_it_is_and_the_list_still_works(
    agent: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    notes = Notes()
    notes.folder.mkdir(parents=True, exist_ok=True)
    garbage = b"this is not a database\n" * 100
    notes.path.write_bytes(garbage)
    status, out, err = cli(capsys, "list", "--json")
    assert status == 0 and len(json.loads(out)) == 3
    assert err == f"prime-sessions: The notes file {notes.path} cannot be used: file is not a database.\n"
    status, out, err = cli(capsys, "pin", FIRST)
    assert status == 1 and out == "" and err.count("\n") == 1 and str(notes.path) in err
    assert notes.path.read_bytes() == garbage


def test_a_notes_file_of_a_newer_version_is_left_alone(agent: Path) -> None:
    notes = Notes()
    notes.set_flags([SessionRef(FIRST)], pinned=True)
    with sqlite3.connect(notes.path) as conn:
        conn.execute("PRAGMA user_version = 9")
    conn.close()
    with pytest.raises(NotesError, match="newer version of Prime Sessions; it was left as it is"):
        notes.all()
    with pytest.raises(NotesError, match="newer version"):
        notes.set_flags([SessionRef(SECOND)], archived=True)


def test_a_change_is_one_transaction_whole_or_not_at_all(
    agent: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    notes = Notes()
    notes.add_tags([SessionRef(FIRST)], ["kept"])
    import core.notes.store as store

    calls = 0
    real = store._drop_if_empty

    def failing(conn: sqlite3.Connection, key: str) -> None:
        nonlocal calls
        calls += 1
        if calls == 2:
            raise sqlite3.OperationalError("disk I/O error")
        real(conn, key)

    monkeypatch.setattr(store, "_drop_if_empty", failing)
    with pytest.raises(NotesError, match="disk I/O error"):
        notes.set_flags([SessionRef(FIRST), SessionRef(SECOND)], archived=True)  # fails on the second
    assert notes.all() == {FIRST: Note(FIRST, None, tags=("kept",))}  # the first one's change undone too
    with pytest.raises(InvalidRequestError):
        notes.add_tags([SessionRef(SECOND)], ["fine", ""])
    assert SECOND not in notes.all()


# ---------------------------------------------------------------------------- export and import
def test_export_then_import_elsewhere_gives_the_same_notes(
    agent: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    cli(capsys, "archive", FIRST)
    cli(capsys, "pin", SECOND)
    cli(capsys, "tag", SECOND, "b", "a")
    target = tmp_path / "notes.json"
    assert cli(capsys, "notes", "export", "-o", target)[0] == 0
    held = Notes().all()
    status, _out, err = cli(capsys, "notes", "export", "-o", target)
    assert status == 1 and "already exists; use --force" in err
    monkeypatch.setenv("PRIME_SESSIONS_NOTES", str(tmp_path / "elsewhere"))
    Notes().add_tags([SessionRef(SECOND)], ["c"])  # an import adds tags to those held
    status, out, _err = cli(capsys, "notes", "import", target)
    assert status == 0 and out == f"Imported the notes of 2 sessions from {target}.\n"
    after = Notes().all()
    assert after[FIRST] == held[FIRST] and after[SECOND].tags == ("c", "b", "a") and after[SECOND].pinned


HOSTILE: list[tuple[str, bytes, str]] = [
    ("not json", b"{nope", "is not JSON ("),
    ("binary", bytes(range(256)) * 4, "is not JSON ("),
    ("deep", b"[" * 100_000 + b"]" * 100_000, "is not JSON ("),
    ("empty", b"", "is not JSON ("),
    ("a list", b"[]", 'is not a Prime Sessions notes export (no "format": "prime-sessions-notes")'),
    ("another format", b'{"format": "x", "version": 1, "sessions": []}', "is not a Prime Sessions notes"),
    ("newer", b'{"format": "prime-sessions-notes", "version": 7, "sessions": []}', "a newer version"),
    ("no version", b'{"format": "prime-sessions-notes", "sessions": []}', "has no valid format version"),
    (
        "true version",
        b'{"format": "prime-sessions-notes", "version": true, "sessions": []}',
        "no valid format",
    ),
    ("no sessions", b'{"format": "prime-sessions-notes", "version": 1}', 'has no list of "sessions"'),
    (
        "bad id",
        b'{"format": "prime-sessions-notes", "version": 1, "sessions": [{"id": 5}]}',
        "session 1 of 1",
    ),
    (
        "surrogate",
        b'{"format": "prime-sessions-notes", "version": 1, "sessions": [{"id": "\\ud800"}]}',
        "JSON",
    ),
]
_OK = b'{"id": "ok", "tags": ["fine"]}'
for name, item, said in (
    ("flag", b'{"id": "a", "archived": "yes"}', 'its "archived" is not true or false'),
    ("tags", b'{"id": "a", "tags": "x"}', 'its "tags" are not a list of texts'),
    ("tag", b'{"id": "a", "tags": ["\\u0000"]}', "A tag cannot hold control or invisible characters"),
    ("path", b'{"id": "a", "path": 3}', 'its "path" is not a path'),
    ("item", b"null", "it is not an object"),
):
    document = b'{"format": "prime-sessions-notes", "version": 1, "sessions": [' + _OK + b", " + item + b"]}"
    HOSTILE.append((name, document, f"session 2 of 2 is not valid ({said}"))


@pytest.mark.parametrize(("data", "said"), [(d, s) for _n, d, s in HOSTILE], ids=[n for n, _d, _s in HOSTILE])
def test_importing_a_damaged_or_hostile_file_is_one_sentence_and_imports_nothing(
    agent: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], data: bytes, said: str
) -> None:
    cli(capsys, "tag", FIRST, "mine")
    before = Notes().all()
    source = tmp_path / "hostile.json"
    source.write_bytes(data)
    status, out, err = cli(capsys, "notes", "import", source)
    assert status == 1 and out == ""
    assert err.startswith(f"prime-sessions: {source}") and err.count("\n") == 1 and "Traceback" not in err
    assert said in err and err.endswith("nothing was imported.\n")
    assert Notes().all() == before


def test_a_file_too_large_a_folder_or_a_missing_file_is_one_sentence(
    agent: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    import core.notes.transfer as transfer

    monkeypatch.setattr(transfer, "MAX_IMPORT_BYTES", 1000)
    big = tmp_path / "big.json"
    big.write_bytes(b" " * 5000)
    for source, said in (
        (big, "larger than any notes export"),
        (tmp_path, "is a folder"),
        (tmp_path / "no", ""),
    ):
        status, out, err = cli(capsys, "notes", "import", source)
        assert status == 1 and out == "" and err.count("\n") == 1 and said in err, err
    assert not Notes().path.exists()


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=20,
)
session_items = st.fixed_dictionaries(
    {},
    optional={
        "id": json_values | st.text(max_size=30),
        "path": json_values,
        "archived": json_values,
        "pinned": json_values,
        "tags": st.lists(st.text(max_size=12), max_size=4) | json_values,
    },
)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(sessions=st.lists(session_items, max_size=4))
def test_any_shape_of_export_imports_whole_or_is_one_sentence(sessions: list[dict[str, object]]) -> None:
    data = json.dumps({"format": "prime-sessions-notes", "version": 1, "sessions": sessions}).encode()
    try:
        notes = parse_notes(data, "x.json")
    except InvalidRequestError as err:
        assert str(err).startswith("x.json") and "\n" not in str(err)
        return
    assert len(notes) == len(sessions)
    for note in notes:
        assert note.tags == tuple(clean_tag(t) for t in note.tags)


# ---------------------------------------------------------------------------- keys
def test_the_key_is_the_header_id_else_the_file_name_id(tmp_path: Path) -> None:
    assert note_key("abc", "/x/2026-01-01T00-00_other.jsonl") == "abc"
    assert note_key(None, "/x/2026-01-01T00-00-00-000Z_0193aa.jsonl") == "0193aa"
    assert note_key(None, "/x/0193bb.jsonl") == "0193bb"
    titled = tmp_path / "titled.jsonl"  # oh-my-pi's title slot before the header
    titled.write_bytes(b'{"type": "title", "title": "x"}\n{"type": "session", "id": "s1", "version": 3}\n')
    assert read_session_id(titled) == "s1"
    headless = tmp_path / "headless.jsonl"
    headless.write_bytes(b'{"type": "message", "id": "m1"}\n')
    assert read_session_id(headless) is None
    long_line = tmp_path / "long.jsonl"
    long_line.write_bytes(b'{"type": "session", "id": "' + b"x" * (2 << 20) + b'"}\n')
    assert read_session_id(long_line) is None
    assert read_session_id(tmp_path / "missing.jsonl") is None
