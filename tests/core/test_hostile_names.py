"""Names and terms that are not text, and a folder linked into itself (issue 29).

A file name's bytes need not be UTF-8, and a command line's arguments need not either: Python names
such bytes with lone surrogates, which SQLite and orjson refuse. Such a session file is listed,
searched, forked and cloned by its bytes; a search term that is not text gets one sentence. A
symbolic link from a session folder to itself (``loop -> .``) must not list every session twice nor
double the usage (the demo: $2.22, not $4.87).
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import orjson
import pytest

from tests.core.hostile_sessions import demo_folder, run

BAD = os.fsdecode(b"caf\xe9-\xff.jsonl")  # Latin-1 bytes: not UTF-8
DEMO_COST = 2.22296  # the seven demo sessions' cost, counted once


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    """The demo copy, one of its sessions renamed to a name that is not UTF-8."""
    folder = demo_folder(tmp_path / "sessions")
    os.rename(folder / "019cadd3-8790-76fa-8ab0-c952ebef2dfd.jsonl", folder / BAD)
    return folder


def test_a_file_whose_name_is_not_utf8_is_catalogued_by_its_bytes(folder: Path, tmp_path: Path) -> None:
    catalogue = ("--catalogue", tmp_path / "catalogue")
    listed = run("list", "--json", folder, *catalogue)
    assert listed.err == ""
    paths = {item["path"] for item in json.loads(listed.out)}
    assert len(paths) == 7 and str(folder / BAD) in paths
    hits = json.loads(run("search", "double submit", folder, "--json", *catalogue).out)["hits"]
    assert str(folder / BAD) in {hit["path"] for hit in hits}
    usage = json.loads(run("usage", "session", folder, "--json", *catalogue).out)
    assert str(folder / BAD) in {row["session"] for row in usage["sessions"]}
    assert run("list", "--json", folder, *catalogue, "--no-refresh").out == listed.out  # read back the same


def test_forks_and_clones_of_such_a_file_name_it_by_its_bytes(folder: Path, tmp_path: Path) -> None:
    source = folder / BAD
    before = source.read_bytes()
    forked = run("fork", source, "--at", "5f6ba966")
    cloned = run("clone", source)
    assert forked.status == cloned.status == 0, (forked.err, cloned.err)
    for made in (Path(forked.out.strip()), Path(cloned.out.strip())):
        header = json.loads(made.read_bytes().split(b"\n", 1)[0])  # orjson refuses lone surrogates
        assert header["parentSession"] == str(source)  # the escapes of the very bytes
    assert source.read_bytes() == before
    listed = json.loads(run("list", "--json", folder, "--catalogue", tmp_path / "catalogue").out)
    parents = {item["path"]: item["parentSessionPath"] for item in listed}
    assert parents[forked.out.strip()] == str(source)  # the list threads the fork under its parent


def test_a_clone_into_a_folder_whose_name_is_not_utf8_is_refused_in_one_sentence(folder: Path) -> None:
    cloned = run(
        "clone", folder / "019cb402-3c88-737c-a54e-8f5201941e04.jsonl", "--cwd", os.fsdecode(b"/tmp/d\xff")
    )
    assert cloned.status == 1
    assert cloned.err.startswith("prime-sessions: The folder /tmp/d\\udcff has a name that is not UTF-8 text")
    assert len(cloned.err.strip().splitlines()) == 1


@pytest.mark.parametrize(
    ("option", "what"),
    [((), "The search"), (("--cwd",), "The cwd filter"), (("--model",), "The model filter")],
)
def test_search_terms_that_are_not_text_get_one_sentence(
    folder: Path, tmp_path: Path, option: tuple, what: str
) -> None:  # type: ignore[type-arg]
    bad = os.fsdecode(b"x\xff\xfe")
    argv = ["search", bad, folder] if not option else ["search", "login", folder, *option, bad]
    result = run(*argv, "--catalogue", tmp_path / "catalogue")
    assert result.status == 1
    assert result.err == (
        f"prime-sessions: {what} holds bytes that are not UTF-8 text (\\xff\\xfe at character 2), which no"
        " session holds; type it as text.\n"
    )


def test_a_lone_surrogate_in_a_label_is_written_as_its_escape(folder: Path) -> None:
    path = folder / "019cb402-3c88-737c-a54e-8f5201941e04.jsonl"
    before = path.read_bytes()
    result = run("label", path, _first_entry(path), "half \ud83d")
    assert result.status == 0, result.err
    data = path.read_bytes()
    assert data.startswith(before) and data[len(before) :].count(b"\n") == 1
    assert b'"label":"half \\ud83d"' in data[len(before) :]


def _first_entry(path: Path) -> str:
    return str(orjson.loads(path.read_bytes().split(b"\n")[1])["id"])


# ---------------------------------------------------------------------------- a folder linked into itself
def test_a_folder_linked_into_itself_lists_and_counts_each_session_once(tmp_path: Path) -> None:
    folder = demo_folder(tmp_path / "sessions")
    (folder / "loop").symlink_to(".")
    os.link(folder / "019cb402-3c88-737c-a54e-8f5201941e04.jsonl", folder / "hard-link.jsonl")
    catalogue = ("--catalogue", tmp_path / "catalogue")
    for extra in ((), ("--no-catalogue",)):
        listed = json.loads(run("list", "--json", folder, *catalogue, *extra).out)
        assert len(listed) == 7, extra
        assert all("/loop/" not in item["path"] and "hard-link" not in item["path"] for item in listed)
    usage = json.loads(run("usage", "daily", folder, "--json", *catalogue).out)
    assert usage["totals"]["totalCost"] == pytest.approx(DEMO_COST, abs=1e-4)
    # The same folder given twice, by its name and through the link: still each file once.
    twice = json.loads(run("list", "--json", folder, folder / "loop", *catalogue).out)
    assert len(twice) == 7
    hits = json.loads(run("search", "Redis", folder, "--json", *catalogue).out)["hits"]
    assert len(hits) == 7 and all("/loop/" not in hit["path"] for hit in hits)  # as without the link


def test_discovery_finds_a_linked_file_once_by_its_nearest_name(tmp_path: Path) -> None:
    from core.session.discovery import find_session_files

    folder = demo_folder(tmp_path / "sessions")
    (folder / "a-loop").symlink_to(".")  # sorts before the files: still not preferred
    found = find_session_files(folder)
    assert len(found) == 7 and all(path.parent == folder for path in found)
