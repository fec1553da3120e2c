"""The main window as the GUI tests build it: shown, with its first catalogue refresh finished."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from gui.main_window import MainWindow

TIMEOUT = 30_000  # ms; generous, the machines are shared


def make_window(qtbot: Any, roots: list[Path] | None, catalogue: Path | None, **kwargs: Any) -> MainWindow:
    """A shown ``MainWindow`` over ``roots`` whose start-up refresh has finished."""
    window = MainWindow(roots=roots, catalogue_dir=catalogue, **kwargs)
    qtbot.addWidget(window)
    window.show()
    qtbot.waitUntil(lambda: not window.catalogue.refreshing, timeout=TIMEOUT)
    return window
