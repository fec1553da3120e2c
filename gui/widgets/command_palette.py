"""The command palette (Ctrl+Shift+P): every action and the recent sessions, found by typing a few letters.

Matching is fuzzy the usual way: the letters typed must appear in order in the item's text; items where
they start words, or stand together, come first.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtGui import QKeyEvent
from PySide6.QtWidgets import QDialog, QLineEdit, QListWidget, QListWidgetItem, QVBoxLayout, QWidget

__all__ = ["Command", "CommandPalette", "fuzzy_score"]


@dataclass(frozen=True)
class Command:
    """One thing the palette offers: what it shows, a hint beside it (a shortcut, a path), what it does."""

    text: str
    hint: str
    run: Callable[[], object]


def fuzzy_score(query: str, text: str) -> int | None:
    """How well ``query`` matches ``text`` (higher is better), or None when its letters are not all there.

    Case is ignored. A letter at the start of a word scores more, so does a letter right after the
    previous match; an earlier first match scores more too.
    """
    needle = "".join(query.lower().split())
    if not needle:
        return 0
    hay = text.lower()
    score, position, previous = 0, 0, -2
    for char in needle:
        found = hay.find(char, position)
        if found < 0:
            return None
        if found == 0 or not hay[found - 1].isalnum():
            score += 10  # the start of a word
        if found == previous + 1:
            score += 5  # right after the last letter
        previous, position = found, found + 1
    first = hay.find(needle[0])
    return score - min(first, 20)


class CommandPalette(QDialog):
    """A box to type in above the matching commands; Enter runs the chosen one, Escape closes."""

    def __init__(self, commands: list[Command], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Command Palette")
        self.commands = commands
        self.edit = QLineEdit(placeholderText="Type a command or a session…")
        self.results = QListWidget()
        self.results.setUniformItemSizes(True)
        layout = QVBoxLayout(self)
        layout.addWidget(self.edit)
        layout.addWidget(self.results)
        self.resize(620, 420)
        self.edit.textChanged.connect(self.filter)
        self.edit.returnPressed.connect(self.run_current)
        self.results.itemActivated.connect(lambda _item: self.run_current())
        self.edit.installEventFilter(self)
        self.filter("")

    def shown(self) -> list[Command]:
        """The commands listed now, best first."""
        return [self.results.item(i).data(Qt.ItemDataRole.UserRole) for i in range(self.results.count())]

    def filter(self, query: str) -> None:
        """List the commands matching ``query``, best first (all of them, in order, for an empty query)."""
        scored = [(fuzzy_score(query, c.text), i, c) for i, c in enumerate(self.commands)]
        matches = sorted(((s, i, c) for s, i, c in scored if s is not None), key=lambda t: (-t[0], t[1]))
        self.results.clear()
        for _score, _index, command in matches:
            item = QListWidgetItem(f"{command.text}    {command.hint}" if command.hint else command.text)
            item.setData(Qt.ItemDataRole.UserRole, command)
            self.results.addItem(item)
        if self.results.count():
            self.results.setCurrentRow(0)

    def run_current(self) -> None:
        """Close and run the chosen command."""
        if self.results.currentRow() < 0:
            return  # nothing matches
        command: Command = self.results.currentItem().data(Qt.ItemDataRole.UserRole)
        self.accept()
        command.run()

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        # Up and Down in the box move through the list, so the hands stay on the keyboard.
        if watched is self.edit and isinstance(event, QKeyEvent) and event.type() == QEvent.Type.KeyPress:
            if event.key() in (Qt.Key.Key_Down, Qt.Key.Key_Up):
                step = 1 if event.key() == Qt.Key.Key_Down else -1
                row = max(0, min(self.results.count() - 1, self.results.currentRow() + step))
                self.results.setCurrentRow(row)
                return True
        return super().eventFilter(watched, event)
