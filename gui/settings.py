"""The app's QSettings (UI state only: geometry, splitters, toggles, theme, recent paths).

Settings are opened with explicit organisation and application names, so a window made without
``gui.app.main`` (tests, the benchmarks, embedding) reads and writes the same place as the app.
"""

from __future__ import annotations

import os

from PySide6.QtCore import QSettings

__all__ = ["APPLICATION", "ORGANIZATION", "RECENT_LIMIT", "add_recent", "app_settings", "read_recent"]

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
