"""Fixtures for every GUI test: private QSettings, no worker left running, a copy of the demo sessions."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import QSettings, QThreadPool

from gui.main_window import MainWindow
from tests.conftest import DEMO
from tests.gui.windows import make_window


@pytest.fixture(autouse=True)
def _private_settings(tmp_path: Path) -> Iterator[Path]:
    """QSettings go to tmp_path, never to the user's configuration."""
    folder = tmp_path / "settings"
    QSettings.setDefaultFormat(QSettings.Format.IniFormat)
    QSettings.setPath(QSettings.Format.IniFormat, QSettings.Scope.UserScope, str(folder))
    yield folder


@pytest.fixture(autouse=True)
def _no_dangling_threads() -> Iterator[None]:
    """Fail a test that leaves a worker running in the global thread pool."""
    yield
    pool = QThreadPool.globalInstance()
    assert pool.waitForDone(30_000)
    assert pool.activeThreadCount() == 0


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
