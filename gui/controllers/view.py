"""The View menu: which panels show, light or dark, and how large the text is (remembered in the settings)."""

from __future__ import annotations

from functools import partial

from PySide6.QtGui import QAction, QActionGroup
from PySide6.QtWidgets import QMenu, QWidget

from gui.actions import ActionRegistry
from gui.controllers.context import WindowContext
from gui.settings import app_settings
from gui.theme import THEMES, apply_theme

__all__ = ["ZOOM_RANGE", "ViewController"]

ZOOM_RANGE = (-4, 12)  # points below and above the desktop's font size


class ViewController:
    """Owns the theme, the text zoom of the panes and the View menu's panel toggles."""

    def __init__(
        self,
        context: WindowContext,
        actions: ActionRegistry,
        *,
        panes: list[QWidget],
        panels: dict[str, QAction],
    ) -> None:
        self._panes = panes
        self._base = {id(pane): pane.font().pointSizeF() for pane in panes}
        self.zoom = 0
        for name, toggle in panels.items():  # Qt's own toggle actions of a dock and a toolbar, and the like
            actions.adopt(f"view.{name}", toggle, menu="View", section="panels", context="Show")
        for name, text, shortcut, step in (
            ("zoom_in", "Zoom &In", "Ctrl+=", 1),
            ("zoom_out", "Zoom &Out", "Ctrl+-", -1),
            ("zoom_reset", "&Actual Size", "Ctrl+0", 0),
        ):
            actions.add(
                f"view.{name}",
                text,
                partial(self._zoom_by, step),
                shortcut=shortcut,
                menu="View",
                section="zoom",
            )
        parent = context.dialog_parent
        group = QActionGroup(parent)
        self.theme_actions: dict[str, QAction] = {}
        theme_menu = actions.add_submenu("view.theme", QMenu("&Theme", parent), menu="View", section="theme")
        for theme, text in (("system", "Follow the &System"), ("light", "&Light"), ("dark", "&Dark")):
            action = actions.add(f"view.theme.{theme}", text, partial(self.set_theme, theme), context="Theme")
            action.setCheckable(True)
            action.setActionGroup(group)
            theme_menu.addAction(action)
            self.theme_actions[theme] = action
        self.theme_actions["system"].setChecked(True)

    def set_theme(self, theme: str) -> None:
        """Light, dark, or following the system (remembered in the settings)."""
        if theme not in THEMES:
            theme = "system"
        apply_theme(theme)
        self.theme_actions[theme].setChecked(True)
        app_settings().setValue("main_window/theme", theme)

    def _zoom_by(self, step: int) -> None:
        self.set_zoom(self.zoom + step if step else 0)

    def set_zoom(self, zoom: int) -> None:
        """Make the panes' text ``zoom`` points larger than the desktop's (within :data:`ZOOM_RANGE`)."""
        zoom = max(ZOOM_RANGE[0], min(ZOOM_RANGE[1], zoom))
        self.zoom = zoom
        for pane in self._panes:
            font = pane.font()
            font.setPointSizeF(max(4.0, self._base[id(pane)] + zoom))
            pane.setFont(font)
        app_settings().setValue("main_window/zoom", zoom)

    def read_settings(self) -> None:
        """Apply the remembered theme and zoom."""
        settings = app_settings()
        theme = settings.value("main_window/theme", "system")
        if theme != "system":
            self.set_theme(str(theme))
        zoom = settings.value("main_window/zoom", 0)
        try:
            zoom = int(zoom)  # type: ignore[call-overload]
        except (TypeError, ValueError):
            zoom = 0
        if zoom:
            self.set_zoom(zoom)
