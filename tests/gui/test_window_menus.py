"""The Go, View and Help menus and the command palette (issue 17's conventions)."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtWidgets import QMessageBox

from gui.main_window import MainWindow
from gui.widgets.command_palette import fuzzy_score
from tests.gui.windows import current_entry_id, make_window, open_session

BRANCHED = "019cb402-3c88-737c-a54e-8f5201941e04.jsonl"  # three branches from the first answer
BRANCHES = ("a19b80ea", "2dce2d8f", "1899b33f")
FIRST_USER = "25662d80"


def test_every_menu_is_in_the_menu_bar_in_order(window: MainWindow) -> None:
    titles = [action.text() for action in window.menuBar().actions()]
    assert titles == ["&File", "&Edit", "&Session", "&View", "&Go", "&Help"]


def test_the_go_menu_moves_by_user_message_and_by_branch(qtbot, window: MainWindow, sessions: Path) -> None:
    open_session(qtbot, window, sessions / BRANCHED)
    go = window.registry
    assert window.opened.reveal_entry(BRANCHES[0])
    go["go.next_branch"].trigger()
    assert current_entry_id(window) == BRANCHES[1]
    go["go.previous_branch"].trigger()
    assert current_entry_id(window) == BRANCHES[0]
    go["go.previous_user"].trigger()
    assert current_entry_id(window) == FIRST_USER
    go["go.previous_user"].trigger()  # nothing before the first: it stays, and says so
    assert current_entry_id(window) == FIRST_USER
    assert window.statusBar().currentMessage() == "Nothing further that way."
    go["go.leaf"].trigger()
    assert current_entry_id(window) == window.opened.session.leaf_id


def test_zoom_makes_the_text_larger_and_is_remembered(qtbot, window: MainWindow, sessions, tmp_path) -> None:
    size = window.tree.font().pointSizeF()
    window.registry["view.zoom_in"].trigger()
    window.registry["view.zoom_in"].trigger()
    assert window.tree.font().pointSizeF() == size + 2 and window.transcript.font().pointSizeF() > size
    window.close()
    again = make_window(qtbot, [sessions], tmp_path / "catalogue")
    assert again.tree.font().pointSizeF() == size + 2
    again.registry["view.zoom_reset"].trigger()
    assert again.tree.font().pointSizeF() == size


def test_the_view_menu_shows_and_hides_the_panels(window: MainWindow) -> None:
    search = window.registry["view.search_panel"]
    assert search.isChecked() and window.search_panel.isVisible()
    search.trigger()
    assert not window.search_panel.isVisible()
    search.trigger()
    assert window.search_panel.isVisible()
    problems = window.registry["view.problems"]
    problems.trigger()
    assert window.diagnostics_panel.isVisible()
    problems.trigger()
    assert window.diagnostics_panel.isHidden()


def test_keyboard_shortcuts_come_from_the_registry(qtbot, window: MainWindow) -> None:
    dialog = window.help.show_shortcuts()
    qtbot.addWidget(dialog)
    rows = window.registry.shortcuts()
    table = dialog.table
    shown = [tuple(table.item(r, c).text() for c in range(3)) for r in range(table.rowCount())]
    assert shown == rows
    assert ("Help", "Command Palette…", "Ctrl+Shift+P") in shown and ("Go", "Jump to Leaf", "Ctrl+L") in shown


def test_about_names_the_version_and_where_sessions_are(window: MainWindow, sessions, monkeypatch) -> None:
    shown: list[str] = []
    monkeypatch.setattr(QMessageBox, "about", lambda _parent, _title, text: shown.append(text))
    window.registry["help.about"].trigger()
    from core.cli.program import version

    assert version() in shown[0] and str(sessions) in shown[0] and "MIT" in shown[0]


def test_the_documentation_is_the_readme(qtbot, window: MainWindow) -> None:
    dialog = window.help.show_documentation()
    qtbot.addWidget(dialog)
    text = dialog.browser.toPlainText()
    assert "Prime Sessions" in text and "The command line" in text


def test_fuzzy_matching_prefers_word_starts_and_runs() -> None:
    assert fuzzy_score("", "Anything") == 0
    assert fuzzy_score("xyz", "Fork from Entry") is None
    assert fuzzy_score("ffe", "Fork from Entry") is not None
    start = fuzzy_score("fork", "Fork from Entry")
    middle = fuzzy_score("fork", "Platform for kids")
    assert start is not None and middle is not None and start > middle


def test_the_palette_runs_an_action_and_opens_recent_sessions(qtbot, window: MainWindow, sessions) -> None:
    assert window.files.open_path(sessions / BRANCHED)
    qtbot.waitUntil(lambda: window.opened.session is not None, timeout=30_000)
    palette = window.help.show_palette()
    qtbot.addWidget(palette)
    texts = [c.text for c in palette.shown()]
    assert "Jump to Leaf" in texts and f"Open {BRANCHED}" in texts
    assert "Command Palette…" not in texts
    palette.edit.setText("next branch")
    assert palette.shown()[0].text == "Next Branch"
    window.opened.reveal_entry(BRANCHES[0])
    palette.run_current()
    assert current_entry_id(window) == BRANCHES[1] and not palette.isVisible()


def test_a_link_to_another_entry_in_the_message_view_selects_it(qtbot, window: MainWindow, sessions) -> None:
    from PySide6.QtCore import QUrl

    open_session(qtbot, window, sessions / BRANCHED)
    window.transcript.anchorClicked.emit(QUrl(f"action:entry/{BRANCHES[1]}"))
    assert current_entry_id(window) == BRANCHES[1]
