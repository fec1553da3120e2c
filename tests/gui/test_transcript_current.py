"""The transcript over pi 1.6 entries: system messages collapsed like thinking, edited context marked."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QUrl

from core.kinds import context_edit_marks
from core.render import block_key
from core.render.reading import ContextCards, PathCards
from core.session import build_context, load_session
from core.visible import transcript_of
from gui.widgets.transcript_view import TranscriptView
from tests.core.current_entries import SYSTEM_TEXT, write_current_session


def test_system_message_opens_and_closes_in_place(qtbot, tmp_path: Path) -> None:
    session = load_session(write_current_session(tmp_path / "s.jsonl"))
    view = TranscriptView()
    qtbot.addWidget(view)
    transcript = transcript_of(session, "sys1", "all")
    view.set_source(PathCards(session, transcript), transcript.slot_of("sys1"))
    assert "System prompt (47 characters)…" in view.toPlainText() and SYSTEM_TEXT not in view.toPlainText()
    view.anchorClicked.emit(QUrl(f"action:toggle/{block_key('sys1', 'system')}"))
    assert SYSTEM_TEXT in view.toPlainText()
    view.anchorClicked.emit(QUrl(f"action:toggle/{block_key('sys1', 'system')}"))
    assert SYSTEM_TEXT not in view.toPlainText()


def test_context_mode_marks_edited_content_and_links_ask_for_the_entry(qtbot, tmp_path: Path) -> None:
    # pi 1.6's file: the edits apply (Prime Agent's, with every type, applies none).
    session = load_session(write_current_session(tmp_path / "s.jsonl", pi=True))
    view = TranscriptView()
    qtbot.addWidget(view)
    messages = build_context(session, "asst2")["messages"]
    marks = context_edit_marks(session, "asst2", messages)
    view.set_source(ContextCards(session, messages, marks), bottom=True)
    assert "Edited content: entry edit1 replaced this message in what the model saw" in view.toPlainText()
    transcript = transcript_of(session, "user1", "all")
    view.set_source(PathCards(session, transcript), transcript.slot_of("user1"))
    assert "Edited in the context later: entry edit2 dropped it" in view.toPlainText()
    with qtbot.waitSignal(view.action_requested) as signal:
        view.anchorClicked.emit(QUrl("action:entry/edit2"))
    assert signal.args == ["entry", "edit2"]
