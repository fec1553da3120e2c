"""The main window as the GUI tests build it and drive it: shown, its first catalogue refresh finished."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from PySide6.QtCore import QObject, QTimer, Signal

from gui.main_window import MainWindow

TIMEOUT = 30_000  # ms; generous, the machines are shared


def make_window(qtbot: Any, roots: list[Path] | None, catalogue: Path | None, **kwargs: Any) -> MainWindow:
    """A shown ``MainWindow`` over ``roots`` whose start-up refresh has finished."""
    window = MainWindow(roots=roots, catalogue_dir=catalogue, **kwargs)
    qtbot.addWidget(window)
    window.show()
    qtbot.waitUntil(lambda: not window.catalogue.refreshing, timeout=TIMEOUT)
    return window


def open_session(qtbot: Any, window: MainWindow, path: Path) -> None:
    """Show the session at ``path`` and wait until it is loaded."""
    with qtbot.waitSignal(window.context.session_loaded, timeout=TIMEOUT):
        window.opened.open(path)


def current_entry_id(window: MainWindow) -> str | None:
    """The id of the entry selected in the branch tree."""
    entry = window.tree_model.entry_for_index(window.tree.currentIndex())
    return entry.id if entry is not None else None


def marked_entry_id(window: MainWindow) -> str | None:
    """The id of the entry whose card the transcript marks (the tree's selected entry, in path mode)."""
    transcript = window.transcript
    source, slot = transcript.card_source, transcript.current_slot
    return source.entry_id(slot) if source is not None and slot is not None else None


class _Marker(QObject):
    reached = Signal()


def run_posted(qtbot: Any, receiver: QObject) -> None:
    """Wait until every call already posted to the GUI thread (queued calls, zero-time single shots) has run.

    A zero-time single shot is a posted call, and posted calls run in the order they were posted: one posted
    now runs after all of them.
    """
    marker = _Marker()
    with qtbot.waitSignal(marker.reached, timeout=TIMEOUT):
        QTimer.singleShot(0, receiver, marker.reached.emit)
