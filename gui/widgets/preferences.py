"""Edit ▸ Preferences: how sessions are resumed (agent and terminal commands), and where sessions are."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtGui import QFont, QPalette
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from gui.settings import Preferences

__all__ = ["PreferencesDialog"]


def _heading(text: str) -> QLabel:
    label = QLabel(text)
    font = QFont(label.font())
    font.setBold(True)
    font.setPointSizeF(font.pointSizeF() * 1.1)
    label.setFont(font)
    return label


def _help(text: str) -> QLabel:
    """A line of help under a field, in the palette's quieter text colour."""
    label = QLabel(text)
    label.setWordWrap(True)
    label.setForegroundRole(QPalette.ColorRole.PlaceholderText)
    font = QFont(label.font())
    font.setPointSizeF(font.pointSizeF() * 0.92)
    label.setFont(font)
    return label


class PreferencesDialog(QDialog):
    """The three preferences under two headings, each with a line of help.

    An empty field means the default, shown in grey inside it and said in its help.
    """

    def __init__(
        self,
        preferences: Preferences,
        *,
        default_agent: str,
        default_terminal: str | None,
        default_folders: list[Path],
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.setWindowTitle("Preferences")
        self._default_folders = default_folders
        self.agent_edit = QLineEdit(preferences.agent_command, placeholderText=default_agent)
        self.agent_edit.setToolTip(
            "{path}: the session file, {cwd}: its project folder, {id}: its session id"
        )
        self.terminal_edit = QLineEdit(
            preferences.terminal_command,
            placeholderText=default_terminal or "no terminal found: type one, e.g. xterm -e {command}",
        )
        self.terminal_edit.setToolTip("{command} stands for the command to run in it")
        found = f"the first one found here: {default_terminal}" if default_terminal else "none was found here"
        self.help = {
            "agent": _help(
                "The command Session ▸ Resume in Terminal runs on the session: {path} is the session "
                "file, {cwd} its project folder, {id} its session id. Empty: " + default_agent + "."
            ),
            "terminal": _help(
                "The terminal it runs in; {command} stands for the agent's command (at the end when "
                f"left out). Empty: {found}."
            ),
            "folders": _help(
                "Where the session list looks for sessions, sub-folders included. Use the Defaults: the "
                "agents' own folders (Prime Agent's and pi's session folders in your home)."
            ),
        }
        self.folders = QListWidget()
        self.set_folders(preferences.session_folders or default_folders)
        add = QPushButton("&Add Folder…")
        remove = QPushButton("&Remove")
        reset = QPushButton("Use the &Defaults")
        add.clicked.connect(self._add_folder)
        remove.clicked.connect(self._remove_folder)
        reset.clicked.connect(lambda: self.set_folders(self._default_folders))
        buttons_row = QHBoxLayout()
        for button in (add, remove, reset):
            buttons_row.addWidget(button)
        buttons_row.addStretch(1)
        self.headings = [_heading("Resuming a session"), _heading("Session folders")]
        resume = QFormLayout()
        resume.addRow("Resume with:", self.agent_edit)
        resume.addRow("", self.help["agent"])
        resume.addRow("In the terminal:", self.terminal_edit)
        resume.addRow("", self.help["terminal"])
        buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel
        )
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(self.headings[0])
        layout.addLayout(resume)
        layout.addSpacing(8)
        layout.addWidget(self.headings[1])
        layout.addWidget(self.help["folders"])
        layout.addWidget(self.folders, 1)
        layout.addLayout(buttons_row)
        layout.addWidget(buttons)
        self.resize(660, 520)

    def set_folders(self, folders: list[Path]) -> None:
        """List ``folders`` as the session folders."""
        self.folders.clear()
        self.folders.addItems([str(f) for f in folders])

    def preferences(self) -> Preferences:
        """What the dialog holds now; folders equal to the defaults are stored as "the defaults"."""
        folders = [Path(self.folders.item(i).text()) for i in range(self.folders.count())]
        return Preferences(
            agent_command=self.agent_edit.text().strip(),
            terminal_command=self.terminal_edit.text().strip(),
            session_folders=[] if folders == self._default_folders else folders,
        )

    def _add_folder(self) -> None:
        path = QFileDialog.getExistingDirectory(self, "Add a session folder")
        if path:
            self.folders.addItem(path)

    def _remove_folder(self) -> None:
        for item in self.folders.selectedItems():
            self.folders.takeItem(self.folders.row(item))
