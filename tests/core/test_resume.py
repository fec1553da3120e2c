"""Resuming a session: the agent and terminal commands built from their templates (core.resume)."""

from __future__ import annotations

import pytest

from core.errors import InvalidRequestError
from core.resume import agent_command, default_terminal, in_project_folder, terminal_command

TRICKY = '/home/me/my sessions/it\'s "here"; rm -rf ~.jsonl'


def test_placeholders_are_filled_after_splitting_so_a_path_stays_one_argument() -> None:
    argv = agent_command("pi --session {path} --cwd={cwd}", path=TRICKY, cwd="/p q", session_id="abc")
    assert argv == ["pi", "--session", TRICKY, "--cwd=/p q"]
    assert agent_command("prime --resume {id}", path=TRICKY, cwd="/", session_id="s1") == [
        "prime",
        "--resume",
        "s1",
    ]


@pytest.mark.parametrize(
    ("template", "words"),
    [
        ("", "is empty"),
        ("pi {nope}", "placeholder"),
        ("pi 'open", "cannot be read"),
        ("pi {0}", "placeholder"),
    ],
)
def test_a_bad_agent_template_is_one_sentence(template: str, words: str) -> None:
    with pytest.raises(InvalidRequestError, match=words):
        agent_command(template, path="/x", cwd="/", session_id="s")


def test_the_terminal_gets_the_command_where_it_says_or_at_the_end() -> None:
    command = in_project_folder("/p q", ["pi", "--session", TRICKY])
    assert command[:2] == ["sh", "-c"] and command[3:] == ["sh", "/p q", "pi", "--session", TRICKY]
    assert terminal_command("gnome-terminal -- {command}", ["a", "b c"]) == [
        "gnome-terminal",
        "--",
        "a",
        "b c",
    ]
    assert terminal_command("kitty", ["a"]) == ["kitty", "a"]
    with pytest.raises(InvalidRequestError, match="terminal command is empty"):
        terminal_command("  ", ["a"])


def test_the_default_terminal_is_the_first_one_installed() -> None:
    installed = {"konsole", "xterm"}
    found = default_terminal(lambda name: f"/usr/bin/{name}" if name in installed else None, "linux")
    assert found == "konsole -e {command}"
    assert default_terminal(lambda _name: None, "linux") is None
    assert default_terminal(lambda _name: "/bin/x", "darwin") is None


def test_programs_are_found_on_the_path_or_by_their_path(tmp_path) -> None:
    import stat

    from core.resume import find_program

    assert find_program("sh") is not None
    assert find_program("no-such-program-x7") is None and find_program("") is None
    script = tmp_path / "agent"
    script.write_text("#!/bin/sh\n")
    assert find_program(str(script)) is None  # not executable
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    assert find_program(str(script)) == str(script)
    assert find_program(str(tmp_path)) is None  # a folder
    assert find_program("pi", which=lambda word: f"/usr/local/bin/{word}") == "/usr/local/bin/pi"


def test_a_watched_command_leaves_its_status_and_error_output(tmp_path) -> None:
    import subprocess

    from core.resume import watched

    status = tmp_path / "status"
    command = watched(["sh", "-c", "echo 'no display' >&2; exit 4"], str(status))
    subprocess.run(command, check=True, timeout=30)
    assert status.read_text() == "4\n"
    assert (tmp_path / "status.err").read_text() == "no display\n"
