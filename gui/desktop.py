"""The desktop around the app: showing a file in the system's file manager."""

from __future__ import annotations

import os
import sys

from PySide6.QtCore import QProcess, QUrl
from PySide6.QtGui import QDesktopServices

__all__ = ["reveal_in_file_manager"]


def reveal_in_file_manager(path: str) -> None:
    """Show ``path`` selected in the system file manager (its folder where selecting is not possible)."""
    if sys.platform == "darwin" and QProcess.startDetached("open", ["-R", path]):
        return
    if sys.platform == "win32" and QProcess.startDetached("explorer", [f"/select,{os.path.normpath(path)}"]):
        return
    if sys.platform.startswith("linux") and _show_items_over_dbus(path):
        return
    QDesktopServices.openUrl(QUrl.fromLocalFile(os.path.dirname(path)))


def _show_items_over_dbus(path: str) -> bool:
    """Ask the freedesktop file manager (Nautilus, Dolphin, Nemo, ...) to select ``path``."""
    try:
        from PySide6.QtDBus import QDBusConnection, QDBusInterface
    except ImportError:
        return False
    bus = QDBusConnection.sessionBus()
    if not bus.isConnected():
        return False
    manager = QDBusInterface(
        "org.freedesktop.FileManager1", "/org/freedesktop/FileManager1", "org.freedesktop.FileManager1", bus
    )
    if not manager.isValid():
        return False
    reply = manager.call("ShowItems", [QUrl.fromLocalFile(path).toString()], "")
    return not reply.errorName()
