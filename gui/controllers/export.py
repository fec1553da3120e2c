"""Session ▸ Export… (Ctrl+E) and the tree's "Export from Here…": the export dialog on the open session."""

from __future__ import annotations

from PySide6.QtCore import QModelIndex, QObject
from PySide6.QtWidgets import QMenu

from gui.actions import ActionRegistry
from gui.controllers.context import WindowContext
from gui.models.roles import Role
from gui.widgets.export_dialog import ExportDialog

__all__ = ["ExportController"]


class ExportController(QObject):
    """Adds Session > Export… (Ctrl+E) and the tree's "Export from Here…" to the window."""

    def __init__(self, context: WindowContext, actions: ActionRegistry) -> None:
        super().__init__(context)
        self._context = context
        self.dialog: ExportDialog | None = None
        self.export_action = actions.add(
            "session.export",
            "&Export…",
            self.open_dialog,
            shortcut="Ctrl+E",
            tip="Export the session as Markdown, an HTML page or PDF",
            menu="Session",
            section="export",
            enabled=lambda: context.session is not None,
        )
        actions.add_context("tree", self._fill_tree_menu)

    def _selected_id(self) -> str | None:
        entry = self._context.current_entry()
        return entry.id if entry is not None else None

    def _fill_tree_menu(self, menu: QMenu, index: QModelIndex) -> None:
        entry = index.data(Role.ITEM) if index.isValid() else None
        if entry is None or self._context.session is None:
            return
        action = menu.addAction("E&xport from Here…")
        action.triggered.connect(
            lambda _checked=False, eid=entry.id: self.open_dialog(eid, from_selected=True)
        )

    def open_dialog(self, entry_id: str | None = None, from_selected: bool = False) -> ExportDialog | None:
        """Show the export dialog for the open session (``entry_id``: the entry to export the path to)."""
        context = self._context
        session = context.session
        if session is None:
            return None
        selected = entry_id or self._selected_id()
        dialog = ExportDialog(
            session, context.runner, selected, context.dialog_parent, start_from_selected=from_selected
        )
        dialog.exported.connect(lambda path: context.status.showMessage(f"Exported {path}", 10000))
        self.dialog = dialog
        dialog.open()
        return dialog
