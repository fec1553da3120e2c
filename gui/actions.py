"""The window's actions and its File menu (created once per window), and the recent-paths list.

Shortcuts use ``QKeySequence.StandardKey`` where Qt has one (Open, Refresh, Find, Quit).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass

from PySide6.QtCore import QSettings
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QMainWindow, QMenu

__all__ = [
    "RECENT_KEY",
    "RECENT_LIMIT",
    "Actions",
    "add_recent",
    "create_actions",
    "fill_recent_menu",
    "read_recent",
]

RECENT_KEY = "recent/paths"
RECENT_LIMIT = 10


def read_recent(settings: QSettings) -> list[str]:
    """The recent paths, newest first, without those that no longer exist."""
    value = settings.value(RECENT_KEY)
    if isinstance(value, str):
        value = [value]
    paths = [str(p) for p in (value or []) if isinstance(p, str) and p]
    return [p for p in paths if os.path.exists(p)][:RECENT_LIMIT]


def add_recent(settings: QSettings, path: str) -> list[str]:
    """Put ``path`` first in the recent list (at most :data:`RECENT_LIMIT`); returns the new list."""
    paths = [path, *(p for p in read_recent(settings) if p != path)][:RECENT_LIMIT]
    settings.setValue(RECENT_KEY, paths)
    settings.sync()
    return paths


@dataclass
class Actions:
    """The actions of one window."""

    open: QAction
    open_folder: QAction
    refresh: QAction
    find: QAction
    search: QAction
    jump_to_leaf: QAction
    quit: QAction
    file_menu: QMenu
    recent_menu: QMenu


def _action(
    window: QMainWindow, text: str, shortcut: QKeySequence | QKeySequence.StandardKey | str, slot: Callable
) -> QAction:
    action = QAction(text, window)
    if isinstance(shortcut, QKeySequence.StandardKey):
        action.setShortcuts(QKeySequence.keyBindings(shortcut))
    else:
        action.setShortcut(QKeySequence(shortcut))
    action.triggered.connect(lambda _checked=False: slot())
    window.addAction(action)  # shortcuts work even when the menu bar is hidden
    return action


def create_actions(
    window: QMainWindow,
    *,
    open_dialog: Callable[[], None],
    open_folder_dialog: Callable[[], None],
    refresh: Callable[[], None],
    find: Callable[[], None],
    search: Callable[[], None],
    jump_to_leaf: Callable[[], None],
    quit: Callable[[], None],
) -> Actions:
    """Make the actions and the File menu of ``window``; the Recent submenu starts empty."""
    key = QKeySequence.StandardKey
    menu = window.menuBar().addMenu("&File")
    actions = Actions(
        open=_action(window, "&Open File or Folder…", key.Open, open_dialog),
        open_folder=_action(window, "Open &Folder…", "Ctrl+Shift+O", open_folder_dialog),
        refresh=_action(window, "&Refresh", key.Refresh, refresh),
        find=_action(window, "&Find Sessions", key.Find, find),
        search=_action(window, "&Search All Sessions", "Ctrl+Shift+F", search),
        jump_to_leaf=_action(window, "&Jump to Leaf", "Ctrl+L", jump_to_leaf),
        quit=_action(window, "&Quit", "Ctrl+Q", quit),
        file_menu=menu,
        recent_menu=QMenu("Open &Recent", window),
    )
    menu.addAction(actions.open)
    menu.addAction(actions.open_folder)
    menu.addMenu(actions.recent_menu)
    menu.addSeparator()
    menu.addAction(actions.refresh)
    menu.addAction(actions.find)
    menu.addAction(actions.search)
    menu.addAction(actions.jump_to_leaf)
    menu.addSeparator()
    menu.addAction(actions.quit)
    return actions


def fill_recent_menu(menu: QMenu, paths: list[str], open_path: Callable[[str], None]) -> None:
    """Replace the entries of the Recent submenu with ``paths``."""
    menu.clear()
    for path in paths:
        action = menu.addAction(path)
        action.triggered.connect(lambda _checked=False, p=path: open_path(p))
    menu.setEnabled(bool(paths))
