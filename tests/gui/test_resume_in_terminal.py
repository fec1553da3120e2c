"""Resume in Terminal and the Preferences that configure it (issue 17), with a real detached process."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from PySide6.QtWidgets import QMessageBox

from gui.main_window import MainWindow
from gui.settings import Preferences, app_settings, read_preferences, write_preferences
from tests.gui.windows import TIMEOUT, open_session

LINEAR = "019cadd3-8790-76fa-8ab0-c952ebef2dfd.jsonl"

FAKE_AGENT = """
import json, os, sys
with open(sys.argv[1], "w") as out:
    json.dump({"cwd": os.getcwd(), "argv": sys.argv[2:]}, out)
"""


def test_resume_runs_the_agent_on_the_session_in_its_folder(
    qtbot, window: MainWindow, sessions: Path, tmp_path: Path, monkeypatch
) -> None:
    agent = tmp_path / "fake agent.py"
    agent.write_text(FAKE_AGENT)
    record = tmp_path / "record.json"
    monkeypatch.setenv("SHELL", "/bin/true")  # the shell the terminal keeps open ends at once here
    write_preferences(
        app_settings(),
        Preferences(
            agent_command=f"{sys.executable} '{agent}' '{record}' --session {{path}} --id {{id}}",
            terminal_command="{command}",  # no terminal on a test machine: the command itself
        ),
    )
    open_session(qtbot, window, sessions / LINEAR)
    assert window.registry["session.resume"].isEnabled()
    window.registry["session.resume"].trigger()
    qtbot.waitUntil(record.exists, timeout=TIMEOUT)
    qtbot.waitUntil(lambda: record.read_text().endswith("}"), timeout=TIMEOUT)
    seen = json.loads(record.read_text())
    session = window.opened.session
    assert seen["argv"] == ["--session", session.path, "--id", session.session_id]
    # The demo's project folder is not on this machine: the session file's folder instead, and it says so.
    assert seen["cwd"] == str(sessions)
    assert "is not on this machine" in window.statusBar().currentMessage()


def test_a_terminal_that_cannot_start_is_one_sentence(
    qtbot, window: MainWindow, sessions: Path, monkeypatch
) -> None:
    said: list[str] = []
    monkeypatch.setattr(QMessageBox, "warning", lambda _parent, _title, text: said.append(text))
    write_preferences(app_settings(), Preferences(terminal_command="/no/such/terminal -e {command}"))
    open_session(qtbot, window, sessions / LINEAR)
    assert window.resume.resume() is False
    assert said == [
        "The terminal /no/such/terminal was not found; set the terminal command in Edit ▸ Preferences."
    ]


def test_an_agent_that_is_not_there_is_said_before_anything_starts(
    qtbot, window: MainWindow, sessions: Path, monkeypatch
) -> None:
    said: list[str] = []
    started: list[str] = []
    monkeypatch.setattr(QMessageBox, "warning", lambda _parent, _title, text: said.append(text))
    monkeypatch.setattr(window.resume, "_start", lambda program, *_args: started.append(program) or True)
    write_preferences(
        app_settings(),
        Preferences(agent_command="no-such-agent-x7 --session {path}", terminal_command="{command}"),
    )
    open_session(qtbot, window, sessions / LINEAR)
    assert window.resume.resume() is False and started == []
    assert said == [
        "The agent no-such-agent-x7 is not on the PATH; set “Resume with” in Edit ▸ Preferences to the "
        "command that starts it (its full path, if need be)."
    ]
    write_preferences(
        app_settings(),
        Preferences(agent_command="/opt/nowhere/pi --session {path}", terminal_command="{command}"),
    )
    assert window.resume.resume() is False and started == []
    assert said[-1].startswith("The agent /opt/nowhere/pi was not found; set “Resume with”")


def _agent_on_path(tmp_path: Path) -> str:
    """An agent command that exists (the test's own Python, doing nothing)."""
    return f"{sys.executable} -c pass {{path}}"


def test_a_terminal_that_ends_at_once_is_reported_with_what_it_said(
    qtbot, window: MainWindow, sessions: Path, tmp_path: Path, monkeypatch
) -> None:
    said: list[str] = []
    monkeypatch.setattr(QMessageBox, "warning", lambda _parent, _title, text: said.append(text))
    failing = (
        "sh -c 'echo \"cannot open display: :99\" >&2; exit 1'"  # what a terminal without a display does
    )
    write_preferences(
        app_settings(), Preferences(agent_command=_agent_on_path(tmp_path), terminal_command=failing)
    )
    open_session(qtbot, window, sessions / LINEAR)
    with qtbot.waitSignal(window.resume.checked, timeout=TIMEOUT) as checked:
        assert window.resume.resume() is True  # started: it is the second after that tells
    assert checked.args[0] is False
    assert said == ["The terminal sh ended at once (exit status 1): cannot open display: :99"]
    quiet = "sh -c 'exit 3'"
    write_preferences(
        app_settings(), Preferences(agent_command=_agent_on_path(tmp_path), terminal_command=quiet)
    )
    with qtbot.waitSignal(window.resume.checked, timeout=TIMEOUT) as checked:
        window.resume.resume()
    assert checked.args == [
        False,
        "The terminal sh ended at once (exit status 3) without saying why; set the terminal command in "
        "Edit ▸ Preferences.",
    ]


def test_a_terminal_still_running_after_a_second_has_started(
    qtbot, window: MainWindow, sessions: Path, tmp_path: Path, monkeypatch
) -> None:
    monkeypatch.setattr(QMessageBox, "warning", lambda *_args: pytest.fail("nothing to warn of"))
    write_preferences(
        app_settings(),
        Preferences(agent_command=_agent_on_path(tmp_path), terminal_command="sh -c 'sleep 3'"),
    )
    open_session(qtbot, window, sessions / LINEAR)
    with qtbot.waitSignal(window.resume.checked, timeout=TIMEOUT) as checked:
        window.resume.resume()
    assert checked.args[0] is True and checked.args[1].startswith("Resumed in a terminal in ")
    assert window.statusBar().currentMessage() == checked.args[1]


def test_preferences_change_the_session_folders_and_are_kept(
    qtbot, window: MainWindow, tmp_path: Path
) -> None:
    other = tmp_path / "elsewhere"
    other.mkdir()
    dialog = window.resume.edit_preferences()
    qtbot.addWidget(dialog)
    dialog.agent_edit.setText("prime --session {path}")
    dialog.set_folders([other])
    with qtbot.waitSignal(window.catalogue.refresh_finished, timeout=TIMEOUT):
        dialog.accept()
    assert window.catalogue.roots == [other]
    stored = read_preferences(app_settings())
    assert stored.agent_command == "prime --session {path}" and stored.session_folders == [other]
