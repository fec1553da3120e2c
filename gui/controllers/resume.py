"""Session ▸ Resume in Terminal, and Edit ▸ Preferences (how to resume, and where sessions are).

The command is built by ``core.resume`` from the preferences; the terminal is started detached, in the
session's project folder (or the session file's folder when that project is not on this machine).

Nothing is started when the terminal or the agent cannot be found: one sentence says which, and what to
set in Preferences. A terminal that ends within a second of its start (no display, an option it does not
take) is reported with what it wrote on its error output; one still running then has started.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QObject, QProcess, QTimer, Signal
from PySide6.QtGui import QKeySequence
from PySide6.QtWidgets import QMessageBox

from gui.actions import ActionRegistry
from gui.controllers.context import WindowContext
from gui.settings import app_settings, read_preferences, write_preferences
from gui.widgets.preferences import PreferencesDialog

__all__ = ["STARTED_AFTER_MSECS", "ResumeController"]

STARTED_AFTER_MSECS = 1000  # a terminal still running this long after its start has started
_ERROR_CHARS = 300  # of a terminal's error output, in the sentence that reports it


class ResumeController(QObject):
    """Owns the preferences and starts the agent on the open session in a terminal."""

    checked = Signal(bool, str)  # a start was checked: did the terminal start, and the sentence shown

    def __init__(
        self,
        context: WindowContext,
        actions: ActionRegistry,
        *,
        set_roots: Callable[[list[Path]], None],
        start: Callable[[str, list[str], str], bool] | None = None,
    ) -> None:
        super().__init__(context)
        self._context = context
        self._set_roots = set_roots
        # How a program is started detached: QProcess by default; tests hand in their own.
        self._start = start or _start_detached
        actions.add(
            "session.resume",
            "Resume in &Terminal",
            self.resume,
            shortcut="Ctrl+Shift+R",
            tip="Open a terminal in the session's project folder running the agent on this session",
            menu="Session",
            section="resume",
            enabled=lambda: context.session is not None,
        )
        actions.add(
            "edit.preferences",
            "&Preferences…",
            self.edit_preferences,
            shortcut=QKeySequence.StandardKey.Preferences,
            menu="Edit",
            section="preferences",
        )
        self.dialog: PreferencesDialog | None = None

    def resume(self) -> bool:
        """Start the agent on the open session in a terminal; False (after saying why) when it cannot.

        True means the terminal was started; whether it stayed is known a second later (:attr:`checked`).
        """
        from core.errors import PrimeSessionsError
        from core.resume import (
            DEFAULT_AGENT_COMMAND,
            agent_command,
            default_terminal,
            find_program,
            in_project_folder,
            watched,
        )
        from core.resume import terminal_command as terminal_argv

        session = self._context.session
        if session is None:
            return False
        preferences = read_preferences(app_settings())
        terminal = preferences.terminal_command or default_terminal()
        if not terminal:
            self._say("No terminal was found; set the terminal command in Edit ▸ Preferences.")
            return False
        cwd, note = session.cwd, ""
        if not cwd or not os.path.isdir(cwd):
            cwd = os.path.dirname(session.path)
            note = f" (its project folder {session.cwd or '(none)'} is not on this machine)"
        try:
            agent = agent_command(
                preferences.agent_command or DEFAULT_AGENT_COMMAND,
                path=session.path,
                cwd=cwd,
                session_id=session.session_id or "",
            )
            argv = terminal_argv(terminal, in_project_folder(cwd, agent))
        except PrimeSessionsError as err:
            self._say(str(err))
            return False
        if find_program(argv[0]) is None:
            self._say(
                f"The terminal {argv[0]} was not found; set the terminal command in Edit ▸ Preferences."
            )
            return False
        if find_program(agent[0]) is None:
            where = "was not found" if os.sep in agent[0] else "is not on the PATH"
            self._say(
                f"The agent {agent[0]} {where}; set “Resume with” in Edit ▸ Preferences to the command that "
                "starts it (its full path, if need be)."
            )
            return False
        folder = tempfile.mkdtemp(prefix="prime-sessions-resume-")
        status = os.path.join(folder, "status")
        command = watched(argv, status)
        if not self._start(command[0], command[1:], cwd):
            shutil.rmtree(folder, ignore_errors=True)
            self._say(f"The terminal {argv[0]} could not be started; check Edit ▸ Preferences.")
            return False
        self._context.status.showMessage(f"Starting a terminal in {cwd}{note}…")
        QTimer.singleShot(
            STARTED_AFTER_MSECS, self, lambda: self._check_started(argv[0], folder, f"{cwd}{note}")
        )
        return True

    def _check_started(self, terminal: str, folder: str, where: str) -> None:
        """A second after the start: a terminal that has ended already is reported with its error output."""
        status = os.path.join(folder, "status")
        try:
            code = _read(status).strip()
            errors = _read(f"{status}.err").strip()
        finally:
            shutil.rmtree(folder, ignore_errors=True)
        if code and code != "0":
            if errors:
                said = " ".join(errors.split())
                if len(said) > _ERROR_CHARS:
                    said = "…" + said[-_ERROR_CHARS:]
                sentence = f"The terminal {terminal} ended at once (exit status {code}): {said}"
            else:
                sentence = (
                    f"The terminal {terminal} ended at once (exit status {code}) without saying why; "
                    "set the terminal command in Edit ▸ Preferences."
                )
            self._say(sentence)
            self.checked.emit(False, sentence)
            return
        sentence = f"Resumed in a terminal in {where}"
        self._context.status.showMessage(sentence, 8000)
        self.checked.emit(True, sentence)

    def edit_preferences(self) -> PreferencesDialog:
        """Show the Preferences dialog; its folders become the listed ones when they change."""
        from core.resume import DEFAULT_AGENT_COMMAND, default_terminal
        from core.session import default_roots

        settings = app_settings()
        before = read_preferences(settings)
        defaults = default_roots()
        dialog = PreferencesDialog(
            before,
            default_agent=DEFAULT_AGENT_COMMAND,
            default_terminal=default_terminal(),
            default_folders=defaults,
            parent=self._context.dialog_parent,
        )

        def accepted() -> None:
            after = dialog.preferences()
            write_preferences(settings, after)
            if (after.session_folders or defaults) != (before.session_folders or defaults):
                self._set_roots(after.session_folders or defaults)

        dialog.accepted.connect(accepted)
        self.dialog = dialog
        dialog.open()
        return dialog

    def _say(self, sentence: str) -> None:
        self._context.status.showMessage(sentence, 10000)
        QMessageBox.warning(self._context.dialog_parent, "Resume in Terminal", sentence)


def _read(path: str) -> str:
    """A small text file's text; ``""`` when it is not there (the terminal still runs, or said nothing)."""
    try:
        with open(path, encoding="utf-8", errors="replace") as file:
            return file.read(64 * 1024)
    except OSError:
        return ""


def _start_detached(program: str, arguments: list[str], cwd: str) -> bool:
    started, _pid = QProcess.startDetached(program, arguments, cwd)
    return bool(started)
