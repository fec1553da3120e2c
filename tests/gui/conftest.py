"""Fixtures for every GUI test: private QSettings, no work left running, a copy of the demo sessions."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QSettings, QThreadPool

from gui.main_window import MainWindow
from gui.scheduling import Scheduler
from tests.conftest import DEMO
from tests.gui.windows import TIMEOUT, make_window


@pytest.fixture(autouse=True)
def _private_settings(tmp_path: Path) -> Iterator[Path]:
    """QSettings go to tmp_path, never to the user's configuration."""
    folder = tmp_path / "settings"
    QSettings.setDefaultFormat(QSettings.Format.IniFormat)
    QSettings.setPath(QSettings.Format.IniFormat, QSettings.Scope.UserScope, str(folder))
    yield folder


@pytest.fixture(autouse=True)
def _no_work_left(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Fail a test that leaves work behind: a scheduler not closed, or a job still queued or running.

    pytest-qt closes the test's windows before this runs, and a window's close closes its scheduler, which
    cancels its jobs. Cancelled work gets a bounded time to end (``QThreadPool.waitForDone``), never a
    fixed sleep; a scheduler left open is closed here, so that the next test does not inherit it.
    """
    made: list[Scheduler] = []
    make = Scheduler.__init__

    def recorded(self: Scheduler, *args: Any, **kwargs: Any) -> None:
        make(self, *args, **kwargs)
        made.append(self)

    monkeypatch.setattr(Scheduler, "__init__", recorded)
    yield
    left_open = [scheduler for scheduler in made if not scheduler.closed]
    running = [job.name for scheduler in left_open for job in scheduler.unfinished()]
    for scheduler in left_open:
        scheduler.close(TIMEOUT, TIMEOUT)
    pool = QThreadPool.globalInstance()
    idle = pool.waitForDone(TIMEOUT)
    unfinished = [job.name for scheduler in made for job in scheduler.unfinished()]
    assert not left_open, f"{len(left_open)} scheduler(s) left open, running {running or 'nothing'}"
    assert idle and pool.activeThreadCount() == 0 and not unfinished, f"work left running: {unfinished}"


@pytest.fixture
def sessions(tmp_path: Path) -> Path:
    """A private copy of the demo sessions."""
    folder = tmp_path / "sessions"
    folder.mkdir()
    for path in DEMO.glob("*.jsonl"):
        shutil.copy2(path, folder / path.name)
    return folder


@pytest.fixture
def window(qtbot, sessions: Path, tmp_path: Path) -> MainWindow:
    """A shown window over the demo copy, its start-up refresh finished."""
    return make_window(qtbot, [sessions], tmp_path / "catalogue")
