"""A live session's notes (context edits, child runs) never make the GUI thread pass over every entry.

The load worker gathers them (:func:`gui.controllers.opened.load`); an append brings them up to date from
the appended entries alone (:meth:`core.kinds.notes.SessionNotes.grow`); a replaced or rewritten file is
read again whole in the load worker, which gathers them again there.
"""

from __future__ import annotations

import threading
from pathlib import Path

import orjson
import pytest

from core.kinds.notes import SessionNotes
from core.session import Session
from gui.main_window import MainWindow
from tests.gui.windows import TIMEOUT, current_entry_id, open_session

LINEAR = "019cadd3-8790-76fa-8ab0-c952ebef2dfd.jsonl"  # the demo's linear session


@pytest.fixture
def full_passes(monkeypatch: pytest.MonkeyPatch) -> list[bool]:
    """One item per pass over a whole session's entries for its notes: True when on the GUI thread."""
    passes: list[bool] = []
    make = SessionNotes.__init__

    def counted(self: SessionNotes, session: Session) -> None:
        passes.append(threading.current_thread() is threading.main_thread())
        make(self, session)

    monkeypatch.setattr(SessionNotes, "__init__", counted)
    return passes


def _line(entry_id: str, parent: str | None, **fields: object) -> bytes:
    entry = {"id": entry_id, "parentId": parent, "timestamp": "2026-03-02T10:00:00.000Z", **fields}
    return orjson.dumps(entry) + b"\n"


def test_an_append_gathers_no_notes_on_the_gui_thread(
    qtbot, window: MainWindow, sessions: Path, full_passes: list[bool]
) -> None:
    open_session(qtbot, window, sessions / LINEAR)
    session = window.opened.session
    assert session is not None and full_passes == [False]  # in the load worker
    first, leaf = session.entries[1].id, session.leaf_id
    with open(session.path, "ab") as handle:
        handle.write(_line("edit0001", leaf, type="context_edit", targetId=first, replacement=None))
        message = {"role": "user", "content": "A live line about zebras", "timestamp": 1772445600000}
        handle.write(_line("live0001", "edit0001", type="message", message=message))
    with qtbot.waitSignal(window.context.session_updated, timeout=TIMEOUT):
        window.opened.on_file_changed(session.path)
    assert "zebras" in window.transcript.toPlainText()  # the new card was rendered, with its notes
    from core.kinds.notes import session_notes

    assert [note.edit_id for note in session_notes(session).edits[first]] == ["edit0001"]
    assert full_passes == [False]


def test_a_rewritten_file_is_read_again_in_the_load_worker(
    qtbot, window: MainWindow, sessions: Path, full_passes: list[bool]
) -> None:
    path = sessions / LINEAR
    open_session(qtbot, window, path)
    old = window.opened.session
    assert old is not None
    chosen = old.entries[2].id
    assert window.opened.select_entry(chosen)
    data = path.read_bytes()
    at = data.index(b"twice")
    path.write_bytes(data[:at] + b"TWICE" + data[at + 5 :])  # same size, same inode: a rewrite
    with qtbot.waitSignal(window.context.session_loaded, timeout=TIMEOUT):
        window.opened.on_file_changed(str(path))
    new = window.opened.session
    assert new is not None and new is not old and new.path == old.path
    assert current_entry_id(window) == chosen  # the entry selected stays selected
    assert "submits TWICE" in window.transcript.toPlainText()
    assert full_passes == [False, False]  # both loads gathered them in the worker
