"""The export dialog and its menu entries (pytest-qt, offscreen, the real window and worker threads)."""

from __future__ import annotations

import os
import re
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import orjson
import pytest
from PySide6.QtWidgets import QMenu

from core.session import load_session
from gui.main_window import MainWindow
from gui.scheduling import Scheduler
from gui.widgets.export_dialog import ExportDialog, counts_text
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
def runner(qtbot) -> Iterator[TaskRunner]:
    scheduler = Scheduler()
    yield TaskRunner(scheduler, scheduler)
    scheduler.close()


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
    dialog.export_button.click()  # the "no" comes back at once: no export is started
    assert dialog.answers == [] and not runner.busy
    assert target.read_bytes() == b"keep me"
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


@pytest.mark.parametrize("how", ["itself", "symlink", "hard link"])
def test_the_session_itself_is_refused_as_the_target_before_any_question(
    qtbot, secrets_session: Path, runner: TaskRunner, tmp_path: Path, how: str
) -> None:
    before = secrets_session.read_bytes()
    target = {"itself": secrets_session, "symlink": tmp_path / "out.md", "hard link": tmp_path / "hard.md"}[
        how
    ]
    if how == "symlink":
        target.symlink_to(secrets_session)
    elif how == "hard link":
        os.link(secrets_session, target)
    dialog = _dialog(qtbot, secrets_session, runner)
    dialog.target_edit.setText(str(target))
    dialog.answers = [True]  # a "yes, replace it" would be given, but must never be asked for
    with qtbot.waitSignal(dialog.failed, timeout=TIMEOUT) as failed:
        dialog.export_button.click()
    assert "is the session being read" in failed.args[0] and dialog.errors == [failed.args[0]]
    assert dialog.answers == [True] and not runner.busy
    assert secrets_session.read_bytes() == before


def test_the_worker_refuses_the_session_too(secrets_session: Path) -> None:
    # The dialog's check happens on the GUI thread; the write in the worker checks again (a file can
    # become a link to the session in between), through the export's own sources.
    from core.errors import SessionWriteError
    from core.export import ExportOptions
    from gui.widgets.export_dialog import ExportRequest, run_export

    before = secrets_session.read_bytes()
    request = ExportRequest(
        str(secrets_session), "md", ExportOptions(), None, False, str(secrets_session), True
    )
    with pytest.raises(SessionWriteError, match="is the session being read"):
        run_export(request)
    assert secrets_session.read_bytes() == before


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


def write_session(path: Path, messages: list[tuple[str, str]]) -> Path:
    """A session of user messages ``(id, text)`` chained one after another."""
    path.parent.mkdir(parents=True, exist_ok=True)
    moment = "2026-03-01T10:00:00.000Z"
    lines = [{"type": "session", "version": 3, "id": "long", "timestamp": moment, "cwd": "/p"}]
    parent = None
    for entry_id, text in messages:
        message = {"role": "user", "content": text, "timestamp": 1772359200000}
        lines.append(
            {
                "type": "message",
                "id": entry_id,
                "parentId": parent,
                "timestamp": moment,
                "message": message,
            }
        )
        parent = entry_id
    path.write_bytes(b"".join(orjson.dumps(line) + b"\n" for line in lines))
    return path


def test_a_pdf_shows_its_pages_and_cancel_stops_it_writing_nothing(
    qtbot, tmp_path: Path, runner: TaskRunner, monkeypatch: pytest.MonkeyPatch
) -> None:
    from gui.pdf_export.child import PAGE_SECONDS

    # A long export, whatever the machine's speed (the child processes read the variable).
    monkeypatch.setenv(PAGE_SECONDS, "0.05")
    folder = tmp_path / "sessions"
    long = "Many words about caching and retries. " * 60
    path = write_session(folder / "long.jsonl", [(f"{i:08x}", long) for i in range(150)])
    dialog = _dialog(qtbot, path, runner)
    dialog.show()
    dialog.format_combo.setCurrentIndex(2)  # PDF
    target = tmp_path / "long.pdf"
    dialog.target_edit.setText(str(target))
    dialog.export_button.click()
    assert dialog.busy
    qtbot.waitUntil(lambda: dialog.status_label.text().startswith("Writing page"), timeout=TIMEOUT)
    assert re.fullmatch(r"Writing page [\d,]+ of [\d,]+…", dialog.status_label.text())
    dialog.reject()  # the Cancel button, Escape or the close box
    assert not dialog.busy and dialog.isVisible()
    assert dialog.status_label.text() == "Export cancelled; nothing was written."
    qtbot.waitUntil(lambda: not runner.busy, timeout=TIMEOUT)
    assert not target.exists() and list(tmp_path.glob("*.pdf*")) == []  # no file, no temporary
    dialog.reject()  # now it closes
    assert not dialog.isVisible()


def test_menu_shortcut_and_tree_context_entry(qtbot, sessions: Path, tmp_path: Path) -> None:
    window: MainWindow = make_window(qtbot, [sessions], tmp_path / "catalogue")
    controller = window.export_controller
    assert controller.export_action in window.menus["Session"].actions()
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
    window.registry.fill_context_menu("tree", menu, index)
    entries = [a for a in menu.actions() if a.text() == "E&xport from Here…"]
    assert len(entries) == 1
    entries[0].trigger()
    dialog = controller.dialog
    assert (
        dialog.selected_radio.isChecked()
        and dialog.selected_id == window.tree_model.entry_for_index(index).id
    )
    dialog.reject()


def test_the_dialog_proposes_the_title_and_remembers_the_last_export(
    qtbot, runner: TaskRunner, tmp_path: Path
) -> None:
    from tests.conftest import DEMO

    linear = DEMO / "019cadd3-8790-76fa-8ab0-c952ebef2dfd.jsonl"  # named "Fix double submit on login form"
    dialog = _dialog(qtbot, linear, runner)
    assert Path(dialog.target_edit.text()).name == "fix-double-submit-on-login-form.md"
    folder = tmp_path / "exports"
    folder.mkdir()
    dialog.format_combo.setCurrentIndex(dialog.format_combo.findData("html"))
    dialog.tree_radio.setChecked(True)
    dialog.thinking_check.setChecked(False)
    dialog.redact_check.setChecked(True)
    dialog.literals_edit.setPlainText("Bluebird")
    dialog.target_edit.setText(str(folder / "mine.html"))
    with qtbot.waitSignal(dialog.exported, timeout=TIMEOUT):
        dialog.export_button.click()
    again = _dialog(qtbot, linear, runner)
    assert again.fmt == "html" and again.tree_radio.isChecked()
    assert not again.thinking_check.isChecked() and again.redact_check.isChecked()
    assert again.literals_edit.toPlainText() == ""  # what to hide is never stored
    assert again.target_edit.text() == str(folder / "fix-double-submit-on-login-form.html")
    chosen = _dialog(qtbot, linear, runner, selected="acf526b8")
    assert chosen.tree_radio.isChecked()  # the last scope, unless the export starts from an entry
    from_entry = ExportDialog(load_session(linear), runner, "acf526b8", start_from_selected=True)
    qtbot.addWidget(from_entry)
    assert from_entry.selected_radio.isChecked()


def test_file_stems_from_titles() -> None:
    from gui.widgets.export_dialog import file_stem

    assert file_stem("Fix double submit on login form", "x") == "fix-double-submit-on-login-form"
    assert file_stem("Résumé: /etc/passwd && rm -rf ~", "x") == "résumé-etc-passwd-rm-rf"
    assert file_stem("???", "019cadd3") == "019cadd3"
    assert len(file_stem("word " * 40, "x")) <= 60


def test_safe_markdown_is_on_by_default_and_can_be_turned_off(
    qtbot, runner: TaskRunner, tmp_path: Path
) -> None:
    from tests.browser.hostile import write_hostile_session

    folder = tmp_path / "sessions"
    folder.mkdir()
    path = write_hostile_session(folder)
    dialog = _dialog(qtbot, path, runner)
    assert dialog.safe_check.isChecked() and dialog.options().safe_markdown
    target = tmp_path / "safe.md"
    dialog.target_edit.setText(str(target))
    with qtbot.waitSignal(dialog.exported, timeout=TIMEOUT):
        dialog.export_button.click()
    assert "\n&lt;script>" in target.read_text("utf-8")
    unsafe = _dialog(qtbot, path, runner)
    unsafe.safe_check.setChecked(False)
    assert not unsafe.options().safe_markdown
    unsafe.target_edit.setText(str(tmp_path / "unsafe.md"))
    with qtbot.waitSignal(unsafe.exported, timeout=TIMEOUT):
        unsafe.export_button.click()
    assert "\n<script>" in (tmp_path / "unsafe.md").read_text("utf-8")
    assert not _dialog(qtbot, path, runner).safe_check.isChecked()  # remembered, like the other options
    unsafe.format_combo.setCurrentIndex(unsafe.format_combo.findData("html"))
    assert not unsafe.safe_check.isEnabled()  # the HTML page is safe either way


def test_remote_images_are_links_unless_the_box_is_ticked(qtbot, runner: TaskRunner, tmp_path: Path) -> None:
    from tests.browser.hostile import write_hostile_session

    folder = tmp_path / "sessions"
    folder.mkdir()
    dialog = _dialog(qtbot, write_hostile_session(folder), runner)
    dialog.format_combo.setCurrentIndex(dialog.format_combo.findData("md"))
    assert not dialog.remote_images_check.isChecked() and not dialog.options().remote_images
    dialog.remote_images_check.setChecked(True)
    assert dialog.options().remote_images
    dialog.format_combo.setCurrentIndex(dialog.format_combo.findData("html"))
    assert not dialog.remote_images_check.isEnabled() and not dialog.options().remote_images
