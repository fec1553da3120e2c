"""The editing controller's undo commands, and the worker functions that write an edit to a session not open.

Only :mod:`gui.controllers.editing` uses them; they live here to keep that module to its actions.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Protocol

from PySide6.QtGui import QUndoCommand

if TYPE_CHECKING:
    from core.writing import SetLabel, SetName

__all__ = ["EditApplier", "EditCommand", "write_edit", "write_name"]


class EditApplier(Protocol):
    """What an :class:`EditCommand` needs of the editing controller."""

    def apply_edit(
        self,
        edit: SetLabel | SetName,
        *,
        deferred_errors: bool = False,
        refused: Callable[[], None] | None = None,
    ) -> bool:
        """Write ``edit``; False when it was refused here, ``refused()`` when a worker's write is."""


def write_name(path: str, name: str) -> SetName | None:
    """Worker: name the session at ``path`` (not the open one): read it, make the edit and append it.

    Returns:
        The edit written, or None when the session already had that name.
    """
    from core.session import load_session
    from core.writing import name_edit

    session = load_session(path)
    edit = name_edit(session, name)
    if edit is not None:
        edit.apply(session)
    return edit


def write_edit(edit: SetLabel | SetName) -> SetLabel | SetName:
    """Worker: append ``edit`` to its session (not the open one), read afresh for it."""
    from core.session import load_session

    edit.apply(load_session(edit.path))
    return edit


class EditCommand(QUndoCommand):
    """A label or name edit on the undo stack. The edit was already written when it is pushed.

    ``undo`` applies the core edit's inverse (appending the restoring entry), ``redo`` the edit again.
    """

    def __init__(self, controller: EditApplier, edit: SetLabel | SetName) -> None:
        super().__init__(edit.description)
        self._controller = controller
        self.edit = edit
        self._written = True  # QUndoStack.push calls redo(): the first one must not write again

    def redo(self) -> None:
        if self._written:
            self._written = False
            return
        if not self._controller.apply_edit(self.edit, deferred_errors=True, refused=self._refused):
            self.setObsolete(True)  # Qt drops an obsolete command from the stack after redo()

    def undo(self) -> None:
        if not self._controller.apply_edit(self.edit.inverse(), deferred_errors=True, refused=self._refused):
            self.setObsolete(True)

    def _refused(self) -> None:
        """A write in a worker was refused: the stack drops this command the next time it reaches it."""
        try:
            self.setObsolete(True)
        except RuntimeError:  # the stack, and this command with it, went away meanwhile
            pass
