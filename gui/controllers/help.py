"""The Help menu (About, Keyboard Shortcuts, Documentation, Reset Demo Sessions) and the command palette."""

from __future__ import annotations

import html
import os
from collections.abc import Callable
from pathlib import Path

from PySide6.QtWidgets import QMessageBox

from gui.actions import ActionRegistry
from gui.controllers.context import WindowContext
from gui.widgets.command_palette import Command, CommandPalette
from gui.widgets.help_dialogs import DocumentationDialog, ShortcutsDialog

__all__ = ["HelpController", "about_text"]


def about_text(version: str, roots: list[Path], catalogue: str) -> str:
    """The About box: version, licence, where sessions are looked for and where the catalogue is."""
    folders = "".join(f"<li><code>{html.escape(str(root))}</code></li>" for root in roots)
    return (
        f"<h3>Prime Sessions {html.escape(version)}</h3>"
        "<p>Find, read, compare, edit and share the sessions of Prime Agent and pi.</p>"
        "<p>Licence: MIT.</p>"
        f"<p>Sessions are looked for in:</p><ul>{folders}</ul>"
        f"<p>The catalogue (a cache of what was read) is <code>{html.escape(catalogue)}</code>.</p>"
    )


class HelpController:
    """Owns the Help menu's dialogs and the palette; needs the registry (the palette lists its actions)."""

    def __init__(
        self,
        context: WindowContext,
        actions: ActionRegistry,
        *,
        roots: Callable[[], list[Path]],
        catalogue_dir: Path | None,
        recent: Callable[[], list[str]],
        open_path: Callable[[str], object],
        more_commands: Callable[[], list[Command]] = list,
    ) -> None:
        self._context = context
        self._actions = actions
        self._roots = roots
        self._catalogue_dir = catalogue_dir
        self._recent = recent
        self._open_path = open_path
        self._more_commands = more_commands  # other controllers' (the notes' tags)
        self.palette: CommandPalette | None = None
        actions.add(
            "help.palette", "&Command Palette…", self.show_palette, shortcut="Ctrl+Shift+P", menu="Help"
        )
        actions.add("help.shortcuts", "&Keyboard Shortcuts", self.show_shortcuts, menu="Help", section="docs")
        actions.add(
            "help.documentation",
            "&Documentation",
            self.show_documentation,
            shortcut="F1",
            menu="Help",
            section="docs",
        )
        actions.add(
            "help.reset_demo",
            "&Reset Demo Sessions…",
            self.reset_demo,
            tip="Make your copy of the demo sessions as shipped again (what you changed goes to the trash)",
            menu="Help",
            section="demo",
        )
        actions.add("help.about", "&About Prime Sessions", self.show_about, menu="Help", section="about")

    def commands(self) -> list[Command]:
        """What the palette offers: every enabled action, the tags, then the recent sessions and folders."""
        found: list[Command] = []
        for name in self._actions.names():
            action = self._actions[name]
            text = action.text().replace("&", "")
            if not text or not action.isEnabled() or name == "help.palette":
                continue
            context = self._actions.context_of(name)
            if context:  # out of its menu, "Dark" says little: "Theme: Dark"
                text = f"{context}: {text}"
            hint = action.shortcut().toString()
            if action.isCheckable() and action.isChecked():
                hint = f"✓ {hint}".strip()  # the theme in use, the panels shown
            found.append(Command(text, hint, action.trigger))
        found.extend(self._more_commands())
        for path in self._recent():
            found.append(
                Command(
                    f"Open {os.path.basename(path.rstrip(os.sep)) or path}",
                    path,
                    _opener(self._open_path, path),
                )
            )
        return found

    def show_palette(self) -> CommandPalette:
        """Open the command palette."""
        self.palette = CommandPalette(self.commands(), self._context.dialog_parent)
        self.palette.open()
        return self.palette

    def show_shortcuts(self) -> ShortcutsDialog:
        """List every shortcut, by menu (from the action registry, so it is never out of date)."""
        dialog = ShortcutsDialog(self._actions.shortcuts(), self._context.dialog_parent)
        dialog.open()
        return dialog

    def show_documentation(self) -> DocumentationDialog:
        """Show the user's guide."""
        dialog = DocumentationDialog(parent=self._context.dialog_parent)
        dialog.open()
        return dialog

    def reset_demo(self) -> bool:
        """After a yes, make the user's copy of the demo sessions new and list it; False when it was not."""
        from core.errors import PrimeSessionsError
        from core.writing import reset_demo_copy

        parent = self._context.dialog_parent
        answer = QMessageBox.question(
            parent,
            "Reset Demo Sessions",
            "Make your copy of the demo sessions as shipped again?\n\nSessions you labelled, renamed, "
            "forked or cloned there go to the system trash; the others are made again.",
            QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.Cancel,
            QMessageBox.StandardButton.Cancel,
        )
        if answer != QMessageBox.StandardButton.Yes:
            return False
        try:
            folder = reset_demo_copy()
        except PrimeSessionsError as err:
            self._context.status.showMessage(str(err), 10000)
            QMessageBox.warning(parent, "Reset Demo Sessions", str(err))
            return False
        self._open_path(str(folder))
        self._context.status.showMessage(f"The demo sessions in {folder} are as shipped again", 8000)
        return True

    def show_about(self) -> None:
        """The About box."""
        from core.catalogue import default_catalogue_dir
        from core.cli.program import version

        folder = self._catalogue_dir or default_catalogue_dir()
        text = about_text(version(), self._roots(), str(folder))
        QMessageBox.about(self._context.dialog_parent, "About Prime Sessions", text)


def _opener(open_path: Callable[[str], object], path: str) -> Callable[[], object]:
    return lambda: open_path(path)
