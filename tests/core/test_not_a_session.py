"""A file that is not a session at all (binary, no line a JSON object) gets one sentence, not one per line.

``Session.not_a_session`` says so; ``diagnostics`` is then the one ``not-a-session`` diagnostic; ``show``
and ``tree`` refuse the file with that sentence on stderr (exit 1); ``check`` reports it as its one problem
(exit 1); ``context`` prints the reference's empty context. A file that may still become a session (empty,
blank, or an unfinished first object being written) is not flagged, and one that grows into a session
stops being flagged.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from core import build_context, load_session
from core.cli import main
from core.session.diagnostics import KINDS, Severity
from tests.helpers import run_cli

HEADER = b'{"type":"session","version":3,"id":"s-1","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/w"}\n'
NOT_SESSIONS = {
    "binary.bin": bytes(range(256)) * 20,  # newlines, bad UTF-8 and NULs, as an executable has
    "notes.txt": b"hello\nworld\n\n",
    "values.jsonl": b'[1, 2]\n"text"\n5\nnull\n',
    "mixed.jsonl": b'[{"type": "session"}]\nnot json\n',
    "unfinished.bin": b"\x7fELF\x02\x01",  # no newline at all, not the start of an object
}


def _sentence(name: str) -> str:
    return f"{name} is not a session file: no line is a JSON object."


@pytest.mark.parametrize("name", sorted(NOT_SESSIONS))
def test_one_diagnostic_names_the_file(tmp_path: Path, name: str) -> None:
    path = tmp_path / name
    path.write_bytes(NOT_SESSIONS[name])
    session = load_session(path)
    assert session.not_a_session
    assert [(d.line, d.kind, d.message) for d in session.diagnostics] == [
        (0, "not-a-session", _sentence(name))
    ]
    assert KINDS["not-a-session"] is Severity.ERROR
    assert session.entries == [] and build_context(session)["messages"] == []


@pytest.mark.parametrize(
    "data",
    [
        b"",
        b"\n  \n\t\n",
        b'{"type":"session","id":"s',  # the header being written now
        b'\xef\xbb\xbf  {"type":"session"',
        b'garbage\n{"type":"session","id":"s',  # a bad line, then an object being written
        HEADER + b"garbage\n",
        b'garbage\n{"type":"message","id":"a"}\n',  # one object among bad lines: a damaged session
    ],
)
def test_a_file_that_is_or_may_become_a_session_is_not_flagged(tmp_path: Path, data: bytes) -> None:
    path = tmp_path / "s.jsonl"
    path.write_bytes(data)
    session = load_session(path)
    assert not session.not_a_session
    assert all(d.kind != "not-a-session" for d in session.diagnostics)


def test_a_file_that_grows_into_a_session_stops_being_flagged(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    path.write_bytes(b"garbage\n")
    session = load_session(path)
    assert session.not_a_session
    with open(path, "ab") as handle:
        handle.write(HEADER)
    session.refresh()
    assert not session.not_a_session
    kinds = [d.kind for d in session.diagnostics]
    assert kinds == [d.kind for d in load_session(path).diagnostics]
    assert kinds == ["invalid-json"]  # the bad line is a row of its own again


def test_show_and_tree_refuse_it_check_reports_it_context_is_empty(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "binary.bin"
    path.write_bytes(NOT_SESSIONS["binary.bin"])
    refused = f"prime-sessions: {_sentence('binary.bin')}\n"
    for command in (["show"], ["tree"], ["tree", "--json"]):
        assert main([*command, str(path)]) == 1, command
        assert capsys.readouterr() == ("", refused), command
    assert main(["check", str(path)]) == 1
    out, err = capsys.readouterr()
    assert err == ""
    assert out.splitlines() == [
        f"{path}:0: error not-a-session: {_sentence('binary.bin')}",
        f"{path}: 1 problem (0 entries, 0 in the tree)",
    ]
    assert main(["context", str(path)]) == 0
    assert capsys.readouterr().out == (
        '{"messages": [], "thinkingLevel": "off", "serviceTier": "default", "model": null}\n'
    )


def test_the_whole_process_exits_non_zero_with_the_sentence(tmp_path: Path) -> None:
    path = tmp_path / "notes.txt"
    path.write_bytes(NOT_SESSIONS["notes.txt"])
    result = run_cli("show", str(path))
    assert result.returncode == 1
    assert result.stdout == ""
    assert result.stderr == f"prime-sessions: {_sentence('notes.txt')}\n"
