"""The window over a catalogue another process holds (issue 29): sessions listed, said, tried again."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

import gui.controllers.catalogue as catalogue_controller
from core.catalogue import Catalogue
from tests.core.test_catalogue_lock import BUSY, held
from tests.gui.windows import TIMEOUT, make_window


@pytest.mark.parametrize("mode", ["write", "all"])
def test_the_list_shows_the_sessions_says_why_and_updates_once_the_other_process_lets_go(
    qtbot, sessions: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, mode: str
) -> None:
    monkeypatch.setattr(catalogue_controller, "LOCK_WAIT_SECONDS", 0.1)
    monkeypatch.setattr(catalogue_controller, "BUSY_RETRY_MSECS", 200)
    folder = tmp_path / "catalogue"
    first = Catalogue(folder)
    first.refresh([sessions])
    first.close()
    listed = len(list(sessions.glob("*.jsonl")))
    newcomer = sessions / "newcomer.jsonl"
    with held(folder, mode) as holder:
        shutil.copy2(next(sessions.glob("019cadd3-*.jsonl")), newcomer)  # not in the catalogue yet
        window = make_window(qtbot, [sessions], folder)
        status = window.statusBar().currentMessage()
        assert BUSY in status
        assert "trying again in" in status
        # What the catalogue held ("write": readers go on), or every file read ("all": not even readable).
        rows = window.list_model.rowCount()
        assert rows == (listed + 1 if mode == "all" else listed)
        # A try that began before the other process let go may still end busy: wait for one that worked.
        with qtbot.waitSignal(
            window.catalogue.refresh_finished, timeout=TIMEOUT, check_params_cb=lambda ok: ok
        ):
            holder.communicate("\n", timeout=60)
    assert window.list_model.rowCount() == listed + 1  # brought up to date by itself
