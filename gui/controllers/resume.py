"""Session ▸ Resume in Terminal, and Edit ▸ Preferences (how to resume, and where sessions are).

The command is built by ``core.resume`` from the preferences; the terminal is started detached, in the
session's project folder (or the session file's folder when that project is not on this machine).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QProcess
from PySide6.QtGui import QKeySequence
from PySide6.QtWidgets import QMessageBox

from gui.actions import ActionRegistry
from gui.controllers.context import WindowContext
from gui.settings import app_settings, read_preferences, write_preferences
from gui.widgets.preferences import PreferencesDialog

__all__ = ["ResumeController"]


class ResumeController:
    """Owns the preferences and starts the agent on the open session in a terminal."""

    def __init__(
        self,
        context: WindowContext,
        actions: ActionRegistry,
        *,
        set_roots: Callable[[list[Path]], None],
        start: Callable[[str, list[str], str], bool] | None = None,
    ) -> None:
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
        """Start the agent on the open session in a terminal; False (after saying why) when it cannot."""
        from core.errors import PrimeSessionsError
        from core.resume import DEFAULT_AGENT_COMMAND, agent_command, default_terminal, in_project_folder
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
        if not self._start(argv[0], argv[1:], cwd):
            self._say(f"The terminal {argv[0]} could not be started; check Edit ▸ Preferences.")
            return False
        self._context.status.showMessage(f"Resumed in a terminal in {cwd}{note}", 8000)
        return True

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


def _start_detached(program: str, arguments: list[str], cwd: str) -> bool:
    started, _pid = QProcess.startDetached(program, arguments, cwd)
    return bool(started)
