"""Session ▸ Tags…: the tags of one session or several, ticked in a list of every known tag, new ones typed.

For several sessions a tag some of them have is partly ticked, and left as it is unless clicked. The
dialog only says what to add and what to take off (:attr:`TagsDialog.added`, :attr:`TagsDialog.removed`);
the notes controller writes it.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QVBoxLayout,
    QWidget,
)

from core.errors import InvalidRequestError
from core.notes.note import clean_tag

__all__ = ["TagsDialog", "split_tags"]


def split_tags(text: str) -> list[str]:
    """The tags typed in ``text``, separated by commas, each cleaned (:func:`core.notes.clean_tag`).

    Raises:
        InvalidRequestError: one of them is not a tag (the sentence says why).
    """
    return [clean_tag(part) for part in text.split(",") if part.strip()]


class TagsDialog(QDialog):
    """Tick the tags a session has; type new ones, separated by commas."""

    def __init__(
        self,
        title: str,
        known: Iterable[str],
        held: Sequence[Sequence[str]],
        parent: QWidget | None = None,
    ) -> None:
        """``known``: every tag in use; ``held``: the tags of each session edited (one list per session)."""
        super().__init__(parent)
        self.setWindowTitle(title)
        self.added: list[str] = []
        self.removed: list[str] = []
        folded_sets = [{t.casefold() for t in tags} for tags in held]
        names: dict[str, str] = {}
        for tag in [*known, *(t for tags in held for t in tags)]:
            names.setdefault(tag.casefold(), tag)
        self._before: dict[str, Qt.CheckState] = {}
        self.tags = QListWidget()
        for folded, tag in sorted(names.items()):
            count = sum(folded in s for s in folded_sets)
            state = (
                Qt.CheckState.Checked
                if count and count == len(folded_sets)
                else Qt.CheckState.PartiallyChecked
                if count
                else Qt.CheckState.Unchecked
            )
            item = QListWidgetItem(tag)
            flags = item.flags() | Qt.ItemFlag.ItemIsUserCheckable
            if state is Qt.CheckState.PartiallyChecked:
                flags |= Qt.ItemFlag.ItemIsUserTristate
            item.setFlags(flags)
            item.setCheckState(state)
            self.tags.addItem(item)
            self._before[tag] = state
        self.new_tags = QLineEdit(placeholderText="New tags, separated by commas")
        self.problem = QLabel()
        self.problem.setWordWrap(True)
        self.problem.hide()
        buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel
        )
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(QLabel("Tags (ticked: the session has it):" if len(held) == 1 else "Tags:"))
        layout.addWidget(self.tags)
        layout.addWidget(self.new_tags)
        layout.addWidget(self.problem)
        layout.addWidget(buttons)
        self.resize(420, 360)
        self.new_tags.setFocus()

    def accept(self) -> None:
        """Work out what to add and take off; a typed tag that is not one is said here, the dialog stays."""
        try:
            typed = split_tags(self.new_tags.text())
        except InvalidRequestError as err:
            self.problem.setText(str(err))
            self.problem.show()
            return
        added, removed = [], []
        for row in range(self.tags.count()):
            item = self.tags.item(row)
            state, before = item.checkState(), self._before[item.text()]
            if state == before:
                continue
            if state is Qt.CheckState.Checked:
                added.append(item.text())
            elif state is Qt.CheckState.Unchecked:
                removed.append(item.text())
        ticked = {a.casefold() for a in added}
        added += [t for t in dict.fromkeys(typed) if t.casefold() not in ticked]
        self.added = added
        typed_folded = {t.casefold() for t in typed}  # untick a tag and type it again: it stays
        self.removed = [t for t in removed if t.casefold() not in typed_folded]
        super().accept()
