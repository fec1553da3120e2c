"""FILE arguments by session id, id prefix or exact name; short ids in ``list`` and ``usage session``."""

from __future__ import annotations

import argparse
import json
import os
from pathlib import Path

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.catalogue.lookup import SessionKey, file_name_id, match_sessions, short_ids
from core.cli import main
from core.cli.program import build_parser
from core.cli.sessions import session_file
from tests.conftest import DEMO
from tests.helpers import run_cli

SOURCE = DEMO / "019cadd3-8790-76fa-8ab0-c952ebef2dfd.jsonl"  # "Fix double submit on login form"
LEAF_ID = "16b62db5"  # its last message


def write_session(
    folder: Path, session_id: str, file_name: str | None = None, name: str | None = None
) -> Path:
    """A copy of a demo session with header id ``session_id`` (file ``<id>.jsonl`` unless ``file_name``)."""
    lines = SOURCE.read_bytes().splitlines(keepends=True)
    header = orjson.loads(lines[0])
    header["id"] = session_id
    lines[0] = orjson.dumps(header) + b"\n"
    if name is not None:
        last = orjson.loads(lines[-1])
        info = {"type": "session_info", "id": "n" + session_id[:7], "parentId": last["id"], "name": name}
        lines.append(orjson.dumps({**info, "timestamp": "2026-03-02T10:00:00.000Z"}) + b"\n")
    path = folder / (file_name or f"{session_id}.jsonl")
    path.write_bytes(b"".join(lines))
    return path


@pytest.fixture
def agent(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The usual session folder (``PRIME_AGENT_DIR``), empty; the trash in a private data folder."""
    folder = tmp_path / "agent"
    (folder / "sessions").mkdir(parents=True)
    monkeypatch.setenv("PRIME_AGENT_DIR", str(folder))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    return folder / "sessions"


def cli(capsys: pytest.CaptureFixture[str], *argv: str | Path) -> tuple[int, str, str]:
    status = main([str(a) for a in argv])
    captured = capsys.readouterr()
    return status, captured.out, captured.err


# ---------------------------------------------------------------------------- matching, in core
def test_an_exact_id_beats_a_name_which_beats_a_prefix() -> None:
    keys = [
        SessionKey("/s/aaaa1111.jsonl", "aaaa1111", None),
        SessionKey("/s/aaaa2222.jsonl", "aaaa2222", "aaaa1111x"),
        SessionKey("/s/bbbb.jsonl", "bbbb", "aaaa"),
    ]
    assert match_sessions("aaaa1111", keys) == [keys[0]]
    assert match_sessions("aaaa", keys) == [keys[2]]  # the name, not the two ids starting so
    assert match_sessions("aaaa2", keys) == [keys[1]]
    assert match_sessions("AAAA1", keys) == [keys[0]]  # a prefix in any case
    assert match_sessions("aaaa1111X", keys) == []  # a name is matched exactly
    assert match_sessions("", keys) == []


def test_the_id_in_the_file_name_finds_a_checkpoint_whose_header_kept_the_old_id() -> None:
    key = SessionKey("/s/2026-03-02T09-14-07-122Z_newid-1234.jsonl", "oldid-9999", None)
    assert file_name_id(key.path) == "newid-1234"
    assert match_sessions("newid", [key]) == [key] == match_sessions("oldid-9999", [key])


def test_short_ids_grow_past_eight_characters_only_where_eight_name_two_sessions() -> None:
    keys = [
        SessionKey("/s/a.jsonl", "019cadd3-8790-76fa-8ab0-c952ebef2dfd", None),
        SessionKey("/s/b.jsonl", "019cadd3-87aa-7000-8000-000000000000", None),
        SessionKey("/s/c.jsonl", "019cb402-3c88-737c-a54e-8f5201941e04", None),
        SessionKey("/s/d.jsonl", "0123456789-copied", None),
        SessionKey("/s/e.jsonl", "0123456789-copied", None),  # a copy: no prefix tells the two apart
    ]
    assert short_ids(keys) == {
        "/s/a.jsonl": "019cadd3-879",
        "/s/b.jsonl": "019cadd3-87a",
        "/s/c.jsonl": "019cb402",
        "/s/d.jsonl": "01234567",
        "/s/e.jsonl": "01234567",
    }


_IDS = st.lists(
    st.text(alphabet="01abAB-", min_size=1, max_size=14), min_size=1, max_size=12, unique_by=str.lower
)


@settings(max_examples=300, deadline=None)
@given(ids=_IDS, names=st.lists(st.sampled_from(["", "x_", "_y"]), min_size=12, max_size=12))
def test_every_short_id_names_its_own_session_alone(ids: list[str], names: list[str]) -> None:
    # Header ids, and file names that sometimes carry another id (a checkpoint): a short id must still
    # name one session through every id a file answers to.
    keys = [
        SessionKey(f"/s/{n}{names[n]}{'c' * n}.jsonl", session_id, None) for n, session_id in enumerate(ids)
    ]
    shorts = short_ids(keys)
    for key in keys:
        short = shorts[key.path]
        assert key.session_id is not None and key.session_id.startswith(short)
        assert len(short) >= min(8, len(key.session_id))
        found = match_sessions(short, keys)
        assert key in found
        if any(k is not key and key.session_id.lower() in {i.lower() for i in k.ids} for k in keys):
            continue  # another file answers to the very same id: no prefix names one of the two alone
        assert found == [key], (short, keys)


# ---------------------------------------------------------------------------- every FILE argument
def test_every_file_argument_of_every_command_takes_a_session_reference() -> None:
    checked = []
    parser = build_parser()
    for action in parser._actions:  # argparse keeps the sub-parsers here
        if not isinstance(action, argparse._SubParsersAction):
            continue
        for command, sub in action.choices.items():
            for argument in sub._actions:
                if argument.dest in ("file", "files", "other_file"):
                    assert argument.type is session_file, (command, argument.dest)
                    checked.append(command)
    assert {"show", "context", "tree", "check", "label", "rename", "fork", "clone", "trash", "export"} <= set(
        checked
    )
    assert checked.count("diff") == 2  # FILE and --other-file


def test_show_by_prefix_full_id_and_name_as_a_user_types_them(agent: Path, tmp_path: Path) -> None:
    path = write_session(agent, "01a139df-0000-7000-8000-000000000001", name="login fix")
    write_session(agent, "02b2c3d4-0000-7000-8000-000000000002")
    env = {"PRIME_AGENT_DIR": str(agent.parent)}
    for ref in ("01a139df", "01a139df-0000-7000-8000-000000000001", "login fix", "01A1"):
        done = run_cli("show", ref, env=env)
        assert done.returncode == 0, (ref, done.stderr)
        assert f"File      {path}" in done.stdout


def test_an_ambiguous_prefix_lists_every_candidate_in_one_sentence(agent: Path) -> None:
    first = write_session(agent, "01a139df-0000-7000-8000-000000000001", name="first one")
    second = write_session(agent, "01a139df-0000-7000-8000-000000000002")
    done = run_cli("show", "01a139df", env={"PRIME_AGENT_DIR": str(agent.parent)})
    assert done.returncode == 1 and done.stdout == ""
    line = done.stderr.strip()
    assert "\n" not in line and "Traceback" not in line
    assert line.startswith("prime-sessions: 01a139df could be any of 2 sessions: ")
    assert str(first) in line and str(second) in line and '"first one"' in line
    assert "01a139df-0000-7000-8000-000000000001" in line  # the short id that tells them apart
    assert "Give more of the id" in line


def test_nothing_found_is_one_sentence(agent: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write_session(agent, "01a139df-0000-7000-8000-000000000001")
    status, out, err = cli(capsys, "show", "zz9")
    assert status == 1 and out == ""
    assert err == (
        "prime-sessions: zz9 is not a session file, nor the id, id prefix or name of a catalogued session "
        "('prime-sessions list' shows them).\n"
    )


def test_a_mistyped_path_builds_no_catalogue(
    agent: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], _private_catalogue: Path
) -> None:
    status, _out, err = cli(capsys, "show", tmp_path / "nope" / "x.jsonl")
    assert status == 1 and err.endswith("does not exist.\n")
    assert not (_private_catalogue / "catalogue.sqlite3").exists()


def test_a_session_written_after_the_last_pass_is_found_and_a_gone_one_is_not(
    agent: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    old = write_session(agent, "01a139df-0000-7000-8000-000000000001")
    assert cli(capsys, "list")[0] == 0  # catalogued
    new = write_session(agent, "01a139df-0000-7000-8000-000000000002")
    status, _out, err = cli(capsys, "show", "01a139df")
    assert status == 1 and str(new) in err  # the refresh saw it: ambiguous now, never the old one alone
    os.unlink(old)
    status, out, _err = cli(capsys, "show", "01a139df")
    assert status == 0 and f"File      {new}" in out


def test_every_command_takes_a_reference(
    agent: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write_session(agent, "01a139df-0000-7000-8000-000000000001", name="login fix")
    other = write_session(agent, "02b2c3d4-0000-7000-8000-000000000002")
    ref = "01a139df"
    assert cli(capsys, "context", ref)[1].startswith('{"messages": [')
    assert LEAF_ID in cli(capsys, "tree", "login fix")[1]
    assert cli(capsys, "check", ref, "02b2")[1].count(": ok (") == 2
    assert cli(capsys, "export", ref, "--format", "md", "-o", "-")[1].startswith("# ")
    status, out, err = cli(
        capsys, "diff", ref, LEAF_ID, LEAF_ID, "--other-file", "02b2c3d4", "--format", "json"
    )
    assert status == 0, err
    assert json.loads(out)["right"]["file"] == str(other)
    assert cli(capsys, "label", ref, LEAF_ID, "done")[0] == 0
    assert cli(capsys, "rename", "login fix", "login fixed")[0] == 0
    assert cli(capsys, "show", "login fixed")[0] == 0
    status, out, _err = cli(capsys, "fork", ref, "--at", LEAF_ID, "--dest", str(tmp_path))
    assert status == 0 and Path(out.strip()).parent == tmp_path
    status, out, _err = cli(capsys, "clone", "02b2", "--dest", str(tmp_path))
    assert status == 0 and Path(out.strip()).is_file()
    status, out, _err = cli(capsys, "trash", "02b2c3d4", "--yes")
    assert status == 0 and not other.exists() and str(other) in out
    assert path.exists()


# ---------------------------------------------------------------------------- short ids shown
def test_list_starts_each_row_with_a_short_id_that_show_takes(agent: Path) -> None:
    a = write_session(agent, "019cadd3-8790-76fa-8ab0-c952ebef2dfd")
    b = write_session(agent, "019cadd3-87aa-7000-8000-000000000000")
    c = write_session(agent, "02b2c3d4-0000-7000-8000-000000000002")
    env = {"PRIME_AGENT_DIR": str(agent.parent)}
    done = run_cli("list", env=env)
    assert done.returncode == 0, done.stderr
    rows = done.stdout.splitlines()[:-1]
    shorts = sorted(row.split()[0] for row in rows)
    assert shorts == ["019cadd3-879", "019cadd3-87a", "02b2c3d4"]
    for short, path in zip(shorts, (a, b, c), strict=True):
        assert f"File      {path}" in run_cli("show", short, env=env).stdout


def test_usage_session_rows_carry_the_id_and_path_and_the_table_a_short_id(agent: Path) -> None:
    path = write_session(agent, "01a139df-0000-7000-8000-000000000001")
    env = {"PRIME_AGENT_DIR": str(agent.parent)}
    done = run_cli("usage", "session", "--json", env=env)
    assert done.returncode == 0, done.stderr
    (row,) = json.loads(done.stdout)["sessions"]
    assert row["sessionId"] == "01a139df-0000-7000-8000-000000000001"
    assert row["path"] == row["session"] == str(path)
    table = run_cli("usage", "session", env=env).stdout.splitlines()
    assert table[2].startswith("01a139df  Fix double submit")
