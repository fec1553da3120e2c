"""Resume in Terminal and the Preferences that configure it (issue 17), with a real detached process."""

from __future__ import annotations

import json
import sys
from pathlib import Path

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
    assert said == ["The terminal /no/such/terminal could not be started; check Edit ▸ Preferences."]


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
