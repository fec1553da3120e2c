"""The app's QSettings (UI state only: geometry, splitters, toggles, theme, recent paths).

Settings are opened with explicit organisation and application names, so a window made without
``gui.app.main`` (tests, the benchmarks, embedding) reads and writes the same place as the app.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from PySide6.QtCore import QSettings

__all__ = [
    "APPLICATION",
    "ORGANIZATION",
    "RECENT_LIMIT",
    "Preferences",
    "add_recent",
    "app_settings",
    "last_export_folder",
    "read_preferences",
    "read_recent",
    "remember_export_folder",
    "write_preferences",
]

ORGANIZATION = "Prime Sessions"
APPLICATION = "prime-sessions"
RECENT_KEY = "recent/paths"
RECENT_LIMIT = 10


def app_settings() -> QSettings:
    """The user's settings of this app (in the default format and location)."""
    return QSettings(QSettings.defaultFormat(), QSettings.Scope.UserScope, ORGANIZATION, APPLICATION)


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
class Preferences:
    """What the user set in Edit > Preferences (empty values mean the defaults).

    Attributes:
        agent_command: how to resume a session (``core.resume.DEFAULT_AGENT_COMMAND`` when empty).
        terminal_command: the terminal to run it in (``core.resume.default_terminal`` when empty).
        session_folders: where sessions are looked for (``core.session.default_roots`` when empty).
    """

    agent_command: str = ""
    terminal_command: str = ""
    session_folders: list[Path] = field(default_factory=list)


def read_preferences(settings: QSettings) -> Preferences:
    """The stored preferences (defaults for what was never set)."""
    folders = settings.value("preferences/session_folders")
    if isinstance(folders, str):
        folders = [folders]
    return Preferences(
        agent_command=str(settings.value("preferences/agent_command", "") or ""),
        terminal_command=str(settings.value("preferences/terminal_command", "") or ""),
        session_folders=[Path(f) for f in (folders or []) if isinstance(f, str) and f],
    )


def write_preferences(settings: QSettings, preferences: Preferences) -> None:
    """Store ``preferences``."""
    settings.setValue("preferences/agent_command", preferences.agent_command)
    settings.setValue("preferences/terminal_command", preferences.terminal_command)
    settings.setValue("preferences/session_folders", [str(f) for f in preferences.session_folders])
    settings.sync()


def last_export_folder() -> str | None:
    """The folder of the last export (a session or a diff), if it still exists."""
    folder = app_settings().value("export/folder")
    return folder if isinstance(folder, str) and os.path.isdir(folder) else None


def remember_export_folder(folder: str) -> None:
    """Propose ``folder`` for the next export."""
    app_settings().setValue("export/folder", folder)
