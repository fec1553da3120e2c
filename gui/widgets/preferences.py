"""Edit ▸ Preferences: how sessions are resumed (agent and terminal commands), and where sessions are."""

from __future__ import annotations

from pathlib import Path

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


class PreferencesDialog(QDialog):
    """The three preferences; an empty field means the default shown in grey inside it."""

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
        form = QFormLayout()
        form.addRow("Resume with:", self.agent_edit)
        form.addRow("In the terminal:", self.terminal_edit)
        folders = QVBoxLayout()
        folders.addWidget(self.folders)
        folders.addLayout(buttons_row)
        form.addRow(QLabel("Session folders:"), folders)
        buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel
        )
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addLayout(form)
        layout.addWidget(buttons)
        self.resize(640, 420)

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
