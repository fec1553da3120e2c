"""Each edit is one typed change broadcast once; the list, the tree and the title all follow from it.

And a session that is not open is renamed in a worker: the GUI thread never reads a session file for it.
"""

from __future__ import annotations

import threading
from collections import Counter
from pathlib import Path

import pytest
from PySide6.QtCore import Signal
from PySide6.QtWidgets import QMessageBox

import core.session
from core import load_session
from gui.controllers.context import Change, SessionChanged
from gui.main_window import MainWindow
from tests.gui.test_editing import LINEAR, TARGET, open_session, trash_home
from tests.gui.windows import TIMEOUT
from tests.helpers import append_entries

__all__ = ["trash_home"]  # the trash fixture, shared with the core trash tests


def _signals_of(owner: object) -> list[str]:
    return [name for name, value in vars(type(owner)).items() if isinstance(value, Signal)]


class Broadcasts:
    """Every signal of the window's context and of its editing controller, counted as emitted."""

    def __init__(self, window: MainWindow) -> None:
        self.counts: Counter[str] = Counter()
        self.changes: list[SessionChanged] = []
        for owner in (window.context, window.editing):
            for name in _signals_of(owner):
                if name in ("selection_changed", "destroyed", "objectNameChanged"):
                    continue  # the views' own selection, not a notification of a change
                getattr(owner, name).connect(lambda *_args, name=name: self.counts.update([name]))
        window.context.session_changed.connect(self.changes.append)

    def take(self, failed: bool = False) -> tuple[dict[str, int], SessionChanged]:
        """What was emitted since the last call (each signal's count), and the one change.

        ``failed``: the edit was refused, which the editing controller also says (``edit_failed``).
        """
        counts, self.counts = dict(self.counts), Counter()
        assert counts == {"session_changed": 1, **({"edit_failed": 1} if failed else {})}, counts
        change = self.changes.pop()
        assert not self.changes
        return counts, change


@pytest.fixture
def no_boxes(monkeypatch: pytest.MonkeyPatch) -> None:
    def warning(_parent, _title: str, text: str, *_args) -> QMessageBox.StandardButton:
        raise AssertionError(f"unexpected message box: {text}")

    monkeypatch.setattr(QMessageBox, "warning", warning)
    monkeypatch.setattr(QMessageBox, "question", lambda *_args: QMessageBox.StandardButton.Yes)


def _listed_name(window: MainWindow, path: Path) -> str | None:
    return window.list_model.summary_at(window.list_model.row_of(str(path))).name


def test_each_edit_is_broadcast_once_and_every_listener_follows(
    qtbot, window: MainWindow, sessions: Path, trash_home: Path, no_boxes: None
) -> None:
    file = sessions / LINEAR
    open_session(qtbot, window, file)
    window.opened.watcher.blockSignals(True)  # what the views show comes from the broadcast alone
    heard = Broadcasts(window)
    refreshes = window.catalogue.live_refresh_timer

    # A label on the open session: the tree reads back its entry, the list is refreshed soon.
    assert window.editing.set_label(TARGET, "once")
    _, change = heard.take()
    session = window.opened.session
    assert change.what is Change.LABEL and change.paths == (str(file),) and change.entry_id == TARGET
    assert change.text == "once" and change.session is session and change.appended
    assert window.tree_model.leaf_id == session.leaf_id == change.appended[-1].id
    assert window.tree_model.data(window.tree_model.index_for_entry(TARGET)).startswith("[once] ")
    assert refreshes.isActive()

    # Its undo and redo: one broadcast each.
    for step, label in ((window.editing.undo_stack.undo, None), (window.editing.undo_stack.redo, "once")):
        refreshes.stop()
        step()
        _, change = heard.take()
        assert change.what is Change.LABEL and change.text == label and refreshes.isActive()
        assert session.label_for(TARGET) == label and window.tree_model.leaf_id == session.leaf_id

    # A rename of the open session: the title and the list row at once.
    refreshes.stop()
    assert window.editing.rename(str(file), "Named once")
    _, change = heard.take()
    assert change.what is Change.NAME and change.text == "Named once" and change.session is session
    assert window.windowTitle().startswith("Named once")
    assert _listed_name(window, file) == "Named once" and refreshes.isActive()

    # A rename of another session (written in a worker): its row, not the title.
    other = next(p for p in sorted(sessions.glob("*.jsonl")) if p != file)
    with qtbot.waitSignal(window.context.session_changed, timeout=TIMEOUT):
        assert window.editing.rename(str(other), "Named elsewhere")
    _, change = heard.take()
    assert change.what is Change.NAME and change.paths == (str(other),) and change.session is None
    assert _listed_name(window, other) == "Named elsewhere"
    assert window.windowTitle().startswith("Named once")
    # Its undo, from that session's stack, is written in a worker too.
    with qtbot.waitSignal(window.context.session_changed, timeout=TIMEOUT):
        window.editing.stack_for(str(other)).undo()
    _, change = heard.take()
    assert change.what is Change.NAME and change.text == "" and load_session(other).name is None
    assert _listed_name(window, other) is None

    # A fork: the new session is opened at the entry, and listed once the catalogue is refreshed.
    assert window.opened.select_entry(TARGET)
    with qtbot.waitSignal(window.context.session_loaded, timeout=TIMEOUT) as loaded:
        window.editing.fork_action.trigger()
    _, change = _take_with_load(heard)
    assert change.what is Change.CREATED and change.entry_id == TARGET
    assert loaded.args[0].path == change.path != str(file)
    assert window.tree_model.entry_for_index(window.tree.currentIndex()).id == TARGET
    qtbot.waitUntil(lambda: window.list_model.row_of(change.path) >= 0, timeout=TIMEOUT)

    # The trash: the rows go at once.
    qtbot.waitUntil(lambda: not window.catalogue.refreshing, timeout=TIMEOUT)
    window.table.selectRow(window.proxy.mapFromSource(window.list_model.index_of(str(other))).row())
    assert window.editing.selected_paths() == [str(other)]
    heard.counts.clear()
    window.editing.trash_action.trigger()
    _, change = heard.take()
    assert change.what is Change.TRASHED and change.paths == (str(other),)
    assert window.list_model.row_of(str(other)) < 0 and not other.exists()
    qtbot.waitUntil(lambda: not window.catalogue.refreshing and not window.runner.busy, timeout=TIMEOUT)


def _take_with_load(heard: Broadcasts) -> tuple[dict[str, int], SessionChanged]:
    """The fork's broadcast; the load of the new session it asked for reports on its own afterwards."""
    loads = heard.counts.pop("session_loaded", 0)
    assert loads == 1
    return heard.take()


def test_renaming_a_session_that_is_not_open_reads_it_in_a_worker(
    qtbot, window: MainWindow, sessions: Path, monkeypatch: pytest.MonkeyPatch, no_boxes: None
) -> None:
    file = sessions / LINEAR
    open_session(qtbot, window, file)
    other = next(p for p in sorted(sessions.glob("*.jsonl")) if p != file)
    read_on: list[str] = []
    real_load = core.session.load_session

    def load_session(path, *args, **kwargs):
        read_on.append(threading.current_thread().name)
        return real_load(path, *args, **kwargs)

    monkeypatch.setattr(core.session, "load_session", load_session)
    with qtbot.waitSignal(window.context.session_changed, timeout=TIMEOUT) as changed:
        assert window.editing.rename(str(other), "Renamed off the GUI thread")
    assert changed.args[0].what is Change.NAME
    assert real_load(other).name == "Renamed off the GUI thread"
    assert read_on and threading.main_thread().name not in read_on
    assert window.opened.session.path == str(file)  # the open session stays open
    assert window.editing.stack_for(str(other)).count() == 1


def test_a_refused_edit_still_shows_what_the_agent_appended_once(
    qtbot, window: MainWindow, sessions: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The agent labelled the entry meanwhile: the edit is refused, and its label is read and shown."""
    file = sessions / LINEAR
    open_session(qtbot, window, file)
    window.opened.watcher.blockSignals(True)  # the edit is the first to read the agent's line
    session = window.opened.session
    append_entries(
        file,
        [
            {
                "type": "label",
                "id": "agentlbl",
                "parentId": session.leaf_id,
                "timestamp": "2026-03-05T16:00:00.000Z",
                "targetId": TARGET,
                "label": "by the agent",
            }
        ],
    )
    shown: list[str] = []
    monkeypatch.setattr(QMessageBox, "warning", lambda _parent, _title, text, *_args: shown.append(text))
    heard = Broadcasts(window)
    assert not window.editing.set_label(TARGET, "mine")
    _, change = heard.take(failed=True)
    assert change.what is Change.READ and change.session is session
    assert [entry.id for entry in change.appended] == ["agentlbl"]
    assert window.tree_model.leaf_id == "agentlbl" == session.leaf_id
    assert window.tree_model.data(window.tree_model.index_for_entry(TARGET)).startswith("[by the agent] ")
    assert len(shown) == 1 and "by the agent" in shown[0]
    assert window.editing.undo_stack.count() == 0
