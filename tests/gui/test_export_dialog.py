"""The export dialog and its menu entries (pytest-qt, offscreen, the real window and worker threads)."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest
from PySide6.QtWidgets import QMenu

from core.session import load_session
from gui.export_dialog import ExportDialog, counts_text
from gui.main_window import MainWindow
from gui.workers import TaskRunner
from tests.core.test_redact import FAKES, _session
from tests.gui.test_editing import make_window, open_session

TIMEOUT = 60_000


@pytest.fixture
def secrets_session(tmp_path: Path) -> Path:
    folder = tmp_path / "sessions"
    folder.mkdir()
    path, _places = _session(folder)
    return path


@pytest.fixture
def runner(qtbot) -> TaskRunner:
    runner = TaskRunner()
    yield runner
    runner.shutdown()


def _dialog(qtbot, path: Path, runner: TaskRunner, selected: str | None = None) -> ExportDialog:
    dialog = ExportDialog(load_session(path), runner, selected)
    qtbot.addWidget(dialog)
    dialog.errors = []
    dialog.show_error = dialog.errors.append
    dialog.answers = []
    dialog.confirm_overwrite = lambda target: dialog.answers.pop(0)
    return dialog


def test_preview_counts_come_before_writing_and_match_the_export(
    qtbot, secrets_session: Path, runner: TaskRunner, tmp_path: Path
) -> None:
    dialog = _dialog(qtbot, secrets_session, runner)
    target = tmp_path / "out.md"
    dialog.target_edit.setText(str(target))
    dialog.tree_radio.setChecked(True)
    with qtbot.waitSignal(dialog.preview_ready, timeout=TIMEOUT) as preview:
        dialog.redact_check.setChecked(True)
        dialog.literals_edit.setPlainText("Bluebird\n\n")
    counts: Counter[str] = preview.args[0]
    assert counts["aws-key"] >= 11 and counts["private-key"] == 11 and counts["literal"] == 11
    assert dialog.preview_label.text() == counts_text(counts)
    assert not target.exists()  # counting wrote nothing
    with qtbot.waitSignal(dialog.exported, timeout=TIMEOUT):
        dialog.export_button.click()
    text = target.read_text()
    assert FAKES["github-token"] not in text and "Bluebird" not in text
    assert text.count("[REDACTED:") == sum(counts.values())
    assert dialog.errors == []


def test_existing_file_needs_a_yes_and_otherwise_stays(
    qtbot, secrets_session: Path, runner: TaskRunner, tmp_path: Path
) -> None:
    target = tmp_path / "mine.html"
    target.write_bytes(b"keep me")
    dialog = _dialog(qtbot, secrets_session, runner)
    dialog.format_combo.setCurrentIndex(1)  # HTML
    dialog.target_edit.setText(str(target))
    dialog.answers = [False]
    dialog.export_button.click()
    qtbot.wait(200)
    assert target.read_bytes() == b"keep me" and not runner.busy
    dialog.answers = [True]
    with qtbot.waitSignal(dialog.exported, timeout=TIMEOUT):
        dialog.export_button.click()
    assert target.read_text().startswith("<!DOCTYPE html>")


def test_failures_are_one_sentence(qtbot, secrets_session: Path, runner: TaskRunner, tmp_path: Path) -> None:
    dialog = _dialog(qtbot, secrets_session, runner)
    dialog.target_edit.setText(str(tmp_path / "missing-folder" / "x.md"))
    with qtbot.waitSignal(dialog.failed, timeout=TIMEOUT) as failed:
        dialog.export_button.click()
    sentence = failed.args[0]
    assert "does not exist" in sentence and "Error" not in sentence.split(" ", 1)[0]
    assert dialog.errors == [sentence]
    dialog.target_edit.setText(str(tmp_path))
    dialog.export_button.click()
    assert "is a folder" in dialog.errors[-1]


def test_pdf_from_the_dialog_with_the_selected_entry(
    qtbot, secrets_session: Path, runner: TaskRunner, tmp_path: Path
) -> None:
    dialog = _dialog(qtbot, secrets_session, runner, selected="00000002")
    assert dialog.selected_radio.isEnabled()
    dialog.selected_radio.setChecked(True)
    dialog.format_combo.setCurrentIndex(2)  # PDF
    assert dialog.target_edit.text().endswith(".pdf") and not dialog.images_combo.isEnabled()
    target = tmp_path / "two.pdf"
    dialog.target_edit.setText(str(target))
    assert dialog.request().leaf_id == "00000002"
    with qtbot.waitSignal(dialog.exported, timeout=TIMEOUT):
        dialog.export_button.click()
    assert target.read_bytes().startswith(b"%PDF-")


def test_menu_shortcut_and_tree_context_entry(qtbot, sessions: Path, tmp_path: Path) -> None:
    window: MainWindow = make_window(qtbot, [sessions], tmp_path / "catalogue")
    controller = window.export_controller
    assert controller.export_action in window.session_menu.actions()
    assert controller.export_action.shortcut().toString() == "Ctrl+E"
    path = sorted(sessions.glob("*.jsonl"))[0]
    open_session(qtbot, window, path)
    assert controller.export_action.isEnabled()
    controller.export_action.trigger()
    dialog = controller.dialog
    assert dialog is not None and dialog.isVisible() and dialog.leaf_radio.isChecked()
    dialog.reject()
    index = window.tree.model().index(0, 0)
    menu = QMenu()
    for contribute in window.tree_context_contributors:
        contribute(menu, index)
    entries = [a for a in menu.actions() if a.text() == "E&xport from Here…"]
    assert len(entries) == 1
    entries[0].trigger()
    dialog = controller.dialog
    assert (
        dialog.selected_radio.isChecked()
        and dialog.selected_id == window.tree_model.entry_for_index(index).id
    )
    dialog.reject()
