"""Background work an agent's lines call for waits until the window has shown them (issue 27)."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest

from gui.main_window import MainWindow
from tests.gui.windows import TIMEOUT, open_session
from tests.helpers import append_entries


def test_a_burst_of_appended_lines_is_one_pass_after_the_window_showed_them(
    qtbot, window: MainWindow, sessions: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = sorted(sessions.glob("*.jsonl"))[0]
    open_session(qtbot, window, path)
    qtbot.waitUntil(lambda: not window.runner.busy, timeout=TIMEOUT)
    started: list[str] = []
    start = window.runner.start

    def recorded(name: str, *args: object, **kwargs: object) -> object:
        started.append(name)
        return start(name, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(window.runner, "start", recorded)
    # Each append also asks for a catalogue pass, after which the usage line is made again with the list's
    # figures: that is not the burst's work (and predates it).
    monkeypatch.setattr(window.context, "refresh_catalogue", lambda: None)
    parent = orjson.loads(path.read_bytes().splitlines()[-1])["id"]
    for number in range(3):  # an agent writing a turn: three lines, each seen by the watcher
        entry = {
            "type": "message",
            "id": f"burst{number}",
            "parentId": parent,
            "timestamp": "2026-03-09T10:00:00Z",
        }
        append_entries(path, [{**entry, "message": {"role": "user", "content": f"line {number}"}}])
        window.opened.on_file_changed(str(path))
        parent = entry["id"]
    # Shown at once; its usage and its files not yet, while the tree lays out its rows again.
    assert window.opened.session is not None and window.opened.session.leaf_id == "burst2"
    assert "session-usage" not in started and "touched-append" not in started
    with qtbot.waitSignal(window.usage.session_usage_shown, timeout=TIMEOUT):
        pass
    qtbot.waitUntil(lambda: "touched-append" in started and not window.runner.busy, timeout=TIMEOUT)
    assert started.count("session-usage") == 1 and started.count("touched-append") == 1  # one pass for three
