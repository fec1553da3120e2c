"""The demo link opens the user's copy of the demo: label, rename, fork and trash there leave the shipped
files byte for byte as they were."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest
from PySide6.QtCore import QUrl
from PySide6.QtWidgets import QMessageBox

from core import load_session
from gui.main_window import MainWindow
from tests.conftest import DEMO
from tests.core import test_trash
from tests.gui.windows import TIMEOUT, make_window, open_session

LINEAR = "019cadd3-8790-76fa-8ab0-c952ebef2dfd.jsonl"
BRANCHED = "019cb402-3c88-737c-a54e-8f5201941e04.jsonl"
TARGET = "5f6ba966"  # an assistant reply of LINEAR without a label

trash_home = test_trash.trash_home  # XDG_DATA_HOME in tmp_path: the trash and the demo copy go there


def digests(folder: Path) -> dict[str, str]:
    return {
        p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(folder.iterdir()) if p.is_file()
    }


@pytest.fixture
def shown_demo(qtbot, tmp_path: Path, trash_home: Path) -> tuple[MainWindow, Path]:
    """A window on an empty folder whose "Open the demo sessions" link was followed; the copy's folder."""
    window = make_window(qtbot, [tmp_path / "no-sessions"], tmp_path / "catalogue")
    window.transcript.anchorClicked.emit(QUrl("action:open/demo"))
    qtbot.waitUntil(
        lambda: not window.catalogue.refreshing and window.list_model.rowCount() == 7, timeout=TIMEOUT
    )
    return window, trash_home.parent / "prime-sessions" / "demo"


def test_the_demo_link_lists_a_copy_in_the_users_data_folder(shown_demo: tuple[MainWindow, Path]) -> None:
    window, copy = shown_demo
    assert window.catalogue.roots == [copy]
    assert digests(copy) == digests(DEMO)
    assert {Path(window.proxy.summary_at(r).path).parent for r in range(7)} == {copy}


def test_label_rename_fork_and_trash_on_the_demo_leave_the_shipped_files_unchanged(
    qtbot, shown_demo: tuple[MainWindow, Path], trash_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    shipped = digests(DEMO)
    window, copy = shown_demo
    linear, branched = copy / LINEAR, copy / BRANCHED
    open_session(qtbot, window, linear)
    assert window.editing.set_label(TARGET, "tried in the demo")
    assert window.editing.rename(str(linear), "Renamed in the demo")
    assert window.opened.reveal_entry(TARGET)  # fork at the entry just labelled
    with qtbot.waitSignal(window.context.session_changed, timeout=TIMEOUT) as created:
        window.editing.fork_action.trigger()
    assert Path(created.args[0].path).parent == copy

    qtbot.waitUntil(lambda: window.list_model.row_of(str(branched)) >= 0, timeout=TIMEOUT)
    proxy = window.proxy
    window.table.selectRow(
        next(r for r in range(proxy.rowCount()) if proxy.summary_at(r).path == str(branched))
    )
    assert window.editing.selected_paths() == [str(branched)]
    data = branched.read_bytes()
    monkeypatch.setattr(QMessageBox, "question", lambda *_args: QMessageBox.StandardButton.Yes)
    with qtbot.waitSignal(window.context.session_changed, timeout=TIMEOUT):
        window.editing.trash_action.trigger()
    # (send2trash records a file under XDG_DATA_HOME by its path relative to it, which in_trash does not read)
    assert not branched.exists() and (trash_home / "files" / BRANCHED).read_bytes() == data

    edited = load_session(linear)
    assert edited.labels[TARGET] == "tried in the demo" and edited.name == "Renamed in the demo"
    assert digests(DEMO) == shipped  # the shipped demo, byte for byte
    assert digests(copy) != shipped

    # Following the link again opens the same copy as the user left it, not a fresh one.
    copied = digests(copy)
    window.transcript.anchorClicked.emit(QUrl("action:open/demo"))
    qtbot.waitUntil(lambda: not window.catalogue.refreshing, timeout=TIMEOUT)
    assert window.catalogue.roots == [copy] and digests(copy) == copied
    assert digests(DEMO) == shipped


def test_a_demo_copy_that_cannot_be_made_is_one_sentence_in_the_status_bar(
    qtbot, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    blocker = tmp_path / "data-home"
    blocker.write_text("a file where the data folder would be\n", encoding="utf-8")
    monkeypatch.setenv("XDG_DATA_HOME", str(blocker))
    window = make_window(qtbot, [tmp_path / "no-sessions"], tmp_path / "catalogue")
    window.transcript.anchorClicked.emit(QUrl("action:open/demo"))
    message = window.statusBar().currentMessage()
    assert message.startswith("The demo sessions cannot be copied to ") and message.endswith(".")
    assert window.catalogue.roots == [tmp_path / "no-sessions"]
