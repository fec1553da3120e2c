"""The export dialog always looks for credentials and says what it found (issue 26, item 3).

It opened with redaction off and said "Nothing is redacted." on a session holding a GitHub token, an AWS
key and a URL password. Now: found, so redaction is on; turning it off asks first.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from core.session import load_session
from gui.scheduling import Scheduler
from gui.settings import app_settings
from gui.widgets.export_dialog import ExportDialog
from gui.workers import TaskRunner
from tests.core.test_export_unredacted import write_secrets_session
from tests.core.test_redact import FAKES
from tests.gui.windows import TIMEOUT

FOUND = "Found 3 credentials (1 aws-key, 1 github-token, 1 url-password)"


@pytest.fixture
def runner(qtbot) -> Iterator[TaskRunner]:
    scheduler = Scheduler()
    yield TaskRunner(scheduler, scheduler)
    scheduler.close()


@pytest.fixture
def secrets(tmp_path: Path) -> Path:
    return write_secrets_session(tmp_path)


@pytest.fixture
def unredacted_last_time() -> None:
    """The user's last export was made without redaction (the dialog remembers its options)."""
    settings = app_settings()
    settings.setValue("export/redact", False)
    settings.sync()


def _dialog(qtbot, path: Path, runner: TaskRunner, tmp_path: Path) -> ExportDialog:
    dialog = ExportDialog(load_session(path), runner)
    qtbot.addWidget(dialog)
    dialog.asked = []
    dialog.answer = False
    dialog.confirm_unredacted = lambda found: dialog.asked.append(dict(found)) or dialog.answer
    dialog.show_error = lambda sentence: pytest.fail(sentence)
    dialog.target_edit.setText(str(tmp_path / "out.md"))
    return dialog


@pytest.mark.usefixtures("unredacted_last_time")
def test_what_is_found_is_said_and_turns_redaction_on(
    qtbot, secrets: Path, runner: TaskRunner, tmp_path: Path
) -> None:
    dialog = _dialog(qtbot, secrets, runner, tmp_path)
    assert not dialog.redact_check.isChecked()  # as remembered, until the look says otherwise
    assert dialog.preview_label.text() == "Looking for credentials…"
    with qtbot.waitSignal(dialog.preview_ready, timeout=TIMEOUT):
        pass
    assert dialog.redact_check.isChecked()
    assert dialog.preview_label.text() == (
        f"{FOUND}: each is replaced by a [REDACTED:kind] marker. Redaction was turned on."
    )
    assert dialog.asked == []


def test_turning_redaction_off_asks_and_no_keeps_it_on(
    qtbot, secrets: Path, runner: TaskRunner, tmp_path: Path
) -> None:
    dialog = _dialog(qtbot, secrets, runner, tmp_path)
    assert dialog.redact_check.isChecked()  # the default
    with qtbot.waitSignal(dialog.preview_ready, timeout=TIMEOUT):
        pass
    dialog.redact_check.click()  # off? no
    assert dialog.asked == [{"aws-key": 1, "github-token": 1, "url-password": 1}]
    assert dialog.redact_check.isChecked()
    dialog.answer = True
    dialog.redact_check.click()  # off? yes
    assert not dialog.redact_check.isChecked() and len(dialog.asked) == 2
    assert dialog.preview_label.text() == f"{FOUND}: they are written as is."
    dialog.redact_check.click()
    dialog.redact_check.click()  # confirmed once for this dialog: not asked again
    assert len(dialog.asked) == 2 and not dialog.redact_check.isChecked()
    with qtbot.waitSignal(dialog.exported, timeout=TIMEOUT):
        dialog.export_button.click()
    assert FAKES["github-token"] in (tmp_path / "out.md").read_text()


@pytest.mark.usefixtures("unredacted_last_time")
def test_an_export_asked_for_before_the_look_waits_for_it(
    qtbot, secrets: Path, runner: TaskRunner, tmp_path: Path
) -> None:
    dialog = _dialog(qtbot, secrets, runner, tmp_path)
    dialog.export_button.click()  # redaction off, nothing known yet
    assert dialog.status_label.text() == "Looking for credentials first…" and not dialog.busy
    with qtbot.waitSignal(dialog.preview_ready, timeout=TIMEOUT):
        pass
    assert dialog.redact_check.isChecked() and not dialog.busy
    assert dialog.status_label.text() == "Credentials found: redaction is on. Export again to write."
    assert not (tmp_path / "out.md").exists()
    with qtbot.waitSignal(dialog.exported, timeout=TIMEOUT):
        dialog.export_button.click()
    text = (tmp_path / "out.md").read_text()
    assert FAKES["aws-key"] not in text and "[REDACTED:aws-key]" in text


@pytest.mark.usefixtures("unredacted_last_time")
def test_nothing_found_says_so_and_exports_as_asked(qtbot, runner: TaskRunner, tmp_path: Path) -> None:
    from tests.conftest import DEMO

    dialog = _dialog(qtbot, DEMO / "019cadd3-8790-76fa-8ab0-c952ebef2dfd.jsonl", runner, tmp_path)
    with qtbot.waitSignal(dialog.exported, timeout=TIMEOUT):
        dialog.export_button.click()  # waits for the look, which finds nothing: the export goes on
    assert dialog.preview_label.text() == "Found no credentials."
    assert not dialog.redact_check.isChecked() and dialog.asked == []
