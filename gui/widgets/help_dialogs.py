"""The Help menu's windows: the keyboard shortcuts, and the documentation (the README, rendered)."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QUrl
from PySide6.QtGui import QDesktopServices
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QHeaderView,
    QTableWidget,
    QTableWidgetItem,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
)

__all__ = ["DOCUMENTATION", "DocumentationDialog", "ShortcutsDialog"]

# The README is the user's guide; the bundle carries it at the same place relative to gui/.
DOCUMENTATION = Path(__file__).resolve().parent.parent.parent / "README.md"


class ShortcutsDialog(QDialog):
    """Every shortcut of the window, by menu, as the action registry knows them."""

    def __init__(self, rows: list[tuple[str, str, str]], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Keyboard Shortcuts")
        self.table = QTableWidget(len(rows), 3)
        self.table.setHorizontalHeaderLabels(["Menu", "Action", "Shortcut"])
        self.table.verticalHeader().hide()
        self.table.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        for row, values in enumerate(rows):
            for column, value in enumerate(values):
                self.table.setItem(row, column, QTableWidgetItem(value))
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        header.setStretchLastSection(True)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(self.table)
        layout.addWidget(buttons)
        self.resize(560, 620)


class DocumentationDialog(QDialog):
    """The README in a browser pane: what the app does, the window, the command line. Links open outside."""

    def __init__(self, path: Path = DOCUMENTATION, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Prime Sessions Documentation")
        self.browser = QTextBrowser()
        self.browser.setOpenLinks(False)
        self.browser.anchorClicked.connect(self._open)
        if path.is_file():
            self.browser.setSearchPaths([str(path.parent)])  # the screenshots beside it
            self.browser.setMarkdown(path.read_text(encoding="utf-8"))
        else:
            self.browser.setPlainText(f"The documentation was not found at {path}.")
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(self.browser)
        layout.addWidget(buttons)
        self.resize(900, 760)

    def _open(self, url: QUrl) -> None:
        if url.scheme() in ("http", "https", "mailto"):
            QDesktopServices.openUrl(url)
        elif url.hasFragment() and not url.path():
            self.browser.scrollToAnchor(url.fragment())
