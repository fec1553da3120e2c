"""A one-line question (Label Entry, Rename Session): the current value shown and selected, to replace."""

from __future__ import annotations

from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QDialog, QInputDialog, QLineEdit, QWidget

__all__ = ["ask_text", "text_prompt"]

_MIN_WIDTH = 460  # px: room for the title in the title bar and for a long name


def text_prompt(parent: QWidget | None, title: str, label: str, current: str) -> QInputDialog:
    """The dialog :func:`ask_text` shows (made apart so it can be looked at without running it)."""
    dialog = QInputDialog(parent)
    dialog.setInputMode(QInputDialog.InputMode.TextInput)
    dialog.setWindowTitle(title)
    dialog.setLabelText(label)
    dialog.setTextValue(current)
    width = dialog.fontMetrics().horizontalAdvance(title) * 2  # a title bar also holds its buttons
    dialog.setMinimumWidth(max(_MIN_WIDTH, width, dialog.fontMetrics().horizontalAdvance(current) + 80))
    edit = dialog.findChild(QLineEdit)
    if edit is not None:
        # Selected once shown (showing it moves the focus, which would drop a selection made before).
        QTimer.singleShot(0, dialog, edit.selectAll)
    return dialog


def ask_text(parent: QWidget | None, title: str, label: str, current: str) -> tuple[str, bool]:
    """Ask; returns the text typed and whether the user said OK."""
    dialog = text_prompt(parent, title, label, current)
    ok = dialog.exec() == QDialog.DialogCode.Accepted
    text = dialog.textValue()
    dialog.deleteLater()
    return text, ok
