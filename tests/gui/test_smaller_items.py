"""The smaller things a new user tripped over (issue 26, item 10), one test each."""

from __future__ import annotations

import base64
import re
import shutil
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QImage, QKeySequence, QTextTable
from PySide6.QtWidgets import QLabel

import gui.controllers.editing as editing_module
from gui.actions import on_a_keyboard
from gui.main_window import MainWindow
from gui.widgets.diff_window import DiffWindow
from tests.conftest import DEMO
from tests.gui.windows import TIMEOUT, make_window, open_session

LINEAR = "019cadd3-8790-76fa-8ab0-c952ebef2dfd.jsonl"  # named "Fix double submit on login form"
FORK = "019cbd70-9d00-7654-b79e-0404ef27578f.jsonl"
BRANCHED = "019cb402-3c88-737c-a54e-8f5201941e04.jsonl"  # "I need to add caching to the /api/products…"
BRANCH_LEAVES = ("8b38ce88", "aeb61a52")
TARGET = "5f6ba966"  # an assistant reply of LINEAR without a label


def _diff(
    qtbot, window: MainWindow, left: tuple[Path, str | None], right: tuple[Path, str | None]
) -> DiffWindow:
    with qtbot.waitSignal(window.diff_controller.diff_opened, timeout=TIMEOUT) as opened:
        window.diff_controller.compare(str(left[0]), left[1], str(right[0]), right[1])
    view: DiffWindow = opened.args[0]
    qtbot.addWidget(view)
    return view


def test_the_diff_names_sessions_by_name_and_sums_up_in_a_table(
    qtbot, window: MainWindow, sessions: Path
) -> None:
    view = _diff(qtbot, window, (sessions / LINEAR, None), (sessions / FORK, None))
    assert view.windowTitle() == "Diff: Fix double submit on login form ↔ Fix double submit on login form"
    header = view.model.headerData(0, Qt.Orientation.Horizontal)
    assert header.startswith("Left: Fix double submit on login form @ ") and ".jsonl" not in header
    tip = view.model.headerData(1, Qt.Orientation.Horizontal, Qt.ItemDataRole.ToolTipRole)
    assert tip.startswith(str(sessions / FORK))  # the file, in the tooltip
    summary = view.summary.text()
    assert "<table" in summary and "<tr><td>messages</td><td>" in summary
    cells = re.findall(r"<tr><td>([^<]*)</td><td>([^<]*)</td><td>([^<]*)</td></tr>", summary)
    assert [label for label, _left, _right in cells][:3] == ["messages", "tool calls", "tokens"]
    assert all(len(row) == 3 for row in cells)  # a label, then one column per side
    same = _diff(
        qtbot, window, (sessions / BRANCHED, BRANCH_LEAVES[0]), (sessions / BRANCHED, BRANCH_LEAVES[1])
    )
    assert same.windowTitle() == (
        f"Diff: I need to add caching to the /api/products endpoint. What a… — "
        f"{BRANCH_LEAVES[0]} ↔ {BRANCH_LEAVES[1]}"
    )


def test_fork_from_entry_says_forked_to_and_selects_the_new_row_past_a_filter(
    qtbot, window: MainWindow, sessions: Path
) -> None:
    open_session(qtbot, window, sessions / LINEAR)
    parent_id = window.opened.session.session_id
    window.filter_edit.setText(parent_id[:13])  # only the parent: its fork has another id
    qtbot.waitUntil(lambda: window.proxy.rowCount() == 1, timeout=TIMEOUT)
    assert window.opened.reveal_entry(TARGET)
    with qtbot.waitSignal(window.context.session_changed, timeout=TIMEOUT) as created:
        window.editing.fork_action.trigger()
    new_path = created.args[0].path

    def selected() -> str | None:
        index = window.table.currentIndex()
        summary = window.proxy.summary_at(index.row()) if index.isValid() else None
        return summary.path if summary is not None else None

    qtbot.waitUntil(lambda: selected() == new_path, timeout=TIMEOUT)
    assert window.filter_edit.text() == "" and window.proxy.filter_text() == ""
    qtbot.waitUntil(lambda: window.opened.session.path == new_path, timeout=TIMEOUT)
    message = f"Forked to {Path(new_path).name} in {sessions}, shown at {TARGET}"
    qtbot.waitUntil(lambda: window.statusBar().currentMessage() == message, timeout=TIMEOUT)


def test_the_shortcuts_dialog_names_keys_a_keyboard_has(qtbot, window: MainWindow) -> None:
    dialog = window.help.show_shortcuts()
    qtbot.addWidget(dialog)
    shown = {
        dialog.table.item(r, 1).text(): dialog.table.item(r, 2).text() for r in range(dialog.table.rowCount())
    }
    assert (
        shown["Refresh"] == "F5"
        and shown["Open File or Folder…"] == "Ctrl+O"
        and shown["Find Sessions"] == "Ctrl+F"
    )
    for keys in shown.values():
        for part in keys.split(", "):
            assert on_a_keyboard(QKeySequence(part)), keys
    assert not on_a_keyboard(QKeySequence(Qt.Key.Key_Refresh)) and on_a_keyboard(QKeySequence("Del"))


def test_preferences_have_headings_and_a_line_of_help_per_field(qtbot, window: MainWindow) -> None:
    dialog = window.resume.edit_preferences()
    qtbot.addWidget(dialog)
    assert [h.text() for h in dialog.headings] == ["Resuming a session", "Session folders"]
    assert all(h.font().bold() for h in dialog.headings)
    assert set(dialog.help) == {"agent", "terminal", "folders"}
    for label in dialog.help.values():
        assert isinstance(label, QLabel) and label.isVisible() and label.wordWrap() and len(label.text()) > 40
    assert "{path}" in dialog.help["agent"].text() and "{command}" in dialog.help["terminal"].text()
    dialog.reject()


def test_toolbar_buttons_keep_their_width_and_undo_says_what_in_its_tooltip(
    qtbot, window: MainWindow, sessions: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    window.resize(1600, 1000)
    undo = window.editing.undo_action
    button = window.toolbar.widgetForAction(undo)
    before = {
        action.text(): window.toolbar.widgetForAction(action).width() for action in window.toolbar.actions()
    }
    monkeypatch.setattr(editing_module, "ask_text", lambda *_args: ("a rather long label for an entry", True))
    open_session(qtbot, window, sessions / LINEAR)
    assert window.opened.reveal_entry(TARGET)
    window.editing.label_action.trigger()
    assert undo.isEnabled() and undo.text().startswith("&Undo ") and len(undo.text()) > 20
    qtbot.waitUntil(lambda: button.width() > 0, timeout=TIMEOUT)
    assert button.text() == "Undo" and button.width() == before["&Undo"]
    assert (
        undo.toolTip().startswith("Undo ")
        and undo.toolTip().endswith("(Ctrl+Z)")
        and "long label" in undo.toolTip()
    )
    after = [window.toolbar.widgetForAction(action).width() for action in window.toolbar.actions()]
    assert after == list(before.values())


def test_the_palette_says_what_an_entry_is_about(qtbot, window: MainWindow) -> None:
    palette = window.help.show_palette()
    qtbot.addWidget(palette)
    texts = {command.text: command.hint for command in palette.shown()}
    assert {
        "Theme: Dark",
        "Theme: Light",
        "Theme: Follow the System",
        "Show: Toolbar",
        "Show: Search Panel",
    } <= set(texts)
    assert "Dark" not in texts and "Toolbar" not in texts
    assert texts["Theme: Follow the System"].startswith("✓") and not texts["Theme: Dark"]
    palette.reject()


def test_the_pdfs_metadata_table_starts_with_its_first_row(qtbot) -> None:
    from core.export import ExportOptions, markdown_to_html, render_export
    from core.session import load_session
    from gui.pdf_export.document import Pages

    markdown = render_export(load_session(DEMO / LINEAR), "md", ExportOptions(images="omit")).data.decode()
    assert "\n| | |\n|---|---|\n| Session |" in markdown  # GFM needs a head row: the Markdown keeps it
    pages = Pages(markdown_to_html(markdown), "Fix double submit")
    document = pages._document
    tables = [frame for frame in document.rootFrame().childFrames() if isinstance(frame, QTextTable)]
    first = tables[0]
    assert first.cellAt(0, 0).firstCursorPosition().block().text() == "Session"
    assert first.cellAt(0, 1).firstCursorPosition().block().text().startswith("019cadd3-")


def test_the_problems_panel_takes_only_the_rows_it_needs(qtbot, sessions: Path, tmp_path: Path) -> None:
    damaged = sessions / "damaged.jsonl"
    shutil.copy2(DEMO / LINEAR, damaged)
    lines = damaged.read_bytes().splitlines(keepends=True)
    lines.insert(5, b'{"type":"message","id":"broken",\n')
    damaged.write_bytes(b"".join(lines))
    window = make_window(qtbot, [sessions], tmp_path / "catalogue")
    window.resize(1100, 680)
    open_session(qtbot, window, damaged)
    panel = window.diagnostics_panel
    qtbot.waitUntil(panel.isVisible, timeout=TIMEOUT)
    table = panel.table
    assert table.rowCount() == 1
    needed = table.horizontalHeader().height() + table.rowHeight(0) + 2 * table.frameWidth()
    qtbot.waitUntil(lambda: table.height() <= needed + 2, timeout=TIMEOUT)
    assert panel.height() < 110  # the title bar and one row, not a third of the window
    assert window.tree.viewport().height() > 300


def test_the_demos_image_is_a_real_picture() -> None:
    for name in (LINEAR, FORK):
        line = next(line for line in (DEMO / name).read_text().splitlines() if '"type":"image"' in line)
        data = base64.b64decode(re.search(r'"data":"([^"]+)"', line).group(1))
        image = QImage.fromData(data, "PNG")
        assert (image.width(), image.height()) == (520, 150), name
        assert len(set(image.pixel(x, 60) for x in range(0, 520, 4))) > 3  # a picture, not one colour
