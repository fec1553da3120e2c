"""Editing from the window (pytest-qt, offscreen): labels, names, undo/redo, fork, clone, trash, copy, reveal.

Every test checks the file itself: the bytes that were there before are unchanged, and the reference
implementation (the oracle) reads the label, name or branch the user saw.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Callable
from pathlib import Path

import orjson
import pytest
from PySide6.QtCore import QItemSelectionModel, QModelIndex, Qt
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QAbstractItemView, QFileDialog, QLineEdit, QMenu, QMessageBox

import gui.controllers.editing as editing_module
from core import load_session
from core.export import entry_to_markdown
from core.writing import SetLabel, SetName
from gui.main_window import MainWindow
from gui.models.roles import Role
from gui.models.session_list_model import SessionColumn
from tests.conftest import DEMO
from tests.core import test_trash
from tests.core.test_trash import in_trash
from tests.core.test_writer import lines_of, oracle
from tests.gui.windows import TIMEOUT, make_window
from tests.helpers import agent_ids, start_agent

LINEAR = "019cadd3-8790-76fa-8ab0-c952ebef2dfd.jsonl"  # named "Fix double submit on login form"
FIRST_USER_ID = "acf526b8"  # labelled "bug-report"
TARGET = "5f6ba966"  # an assistant reply without a label

trash_home = test_trash.trash_home  # fixtures shared with the core trash tests
read_only_copy = test_trash.read_only_copy


@pytest.fixture
def messages(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every warning box's text (answered at once); tests fail on one they do not expect."""
    shown: list[str] = []

    def warning(_parent, _title: str, text: str, *_args) -> QMessageBox.StandardButton:
        shown.append(text)
        return QMessageBox.StandardButton.Ok

    monkeypatch.setattr(QMessageBox, "warning", warning)
    return shown


def row_of(window: MainWindow, path: Path) -> int:
    proxy = window.proxy
    rows = [r for r in range(proxy.rowCount()) if proxy.summary_at(r).path == str(path)]
    assert rows, f"{path} not listed"
    return rows[0]


def open_session(qtbot, window: MainWindow, path: Path) -> None:
    with qtbot.waitSignal(window.context.session_loaded, timeout=TIMEOUT):
        window.table.selectRow(row_of(window, path))


def reference(oracle_dir: Path, file: Path) -> dict:
    return oracle(oracle_dir, file, "--messages", "none", "--tree", "none")


def answer_dialog(monkeypatch: pytest.MonkeyPatch, text: str, asked: list[str] | None = None) -> None:
    def get_text(_parent, _title, _label, current):
        if asked is not None:
            asked.append(current)
        return text, True

    monkeypatch.setattr(editing_module, "ask_text", get_text)


def type_into_editor(qtbot, view, index, text: str) -> None:
    """Open the view's editor on ``index``, type ``text`` and press Return, as a user would."""
    view.edit(index)
    editor = view.indexWidget(index)
    assert isinstance(editor, QLineEdit), editor
    editor.selectAll()
    qtbot.keyClicks(editor, text)
    qtbot.keyClick(editor, Qt.Key.Key_Return)
    # The delegate commits with a queued call once the editor has seen the key.
    qtbot.waitUntil(lambda: view.state() != QAbstractItemView.State.EditingState, timeout=TIMEOUT)


# ---------------------------------------------------------------------------- labels
def test_inline_label_in_the_tree(
    qtbot, window: MainWindow, sessions: Path, oracle_dir: Path, messages
) -> None:
    file = sessions / LINEAR
    open_session(qtbot, window, file)
    before = file.read_bytes()
    assert window.opened.select_entry(TARGET)
    index = window.tree.currentIndex()
    assert window.tree_model.flags(index) & Qt.ItemFlag.ItemIsEditable
    assert window.tree_model.data(index, Qt.ItemDataRole.EditRole) == ""
    type_into_editor(qtbot, window.tree, index, "checkpoint")

    after = file.read_bytes()
    assert after.startswith(before) and after.count(b"\n") == before.count(b"\n") + 1
    added = orjson.loads(after[len(before) :])
    assert added["type"] == "label" and added["targetId"] == TARGET and added["label"] == "checkpoint"
    assert reference(oracle_dir, file)["labels"][TARGET] == "checkpoint"
    index = window.tree_model.index_for_entry(TARGET)
    assert window.tree_model.data(index, Role.LABEL) == "checkpoint"
    assert window.tree_model.data(index).startswith("[checkpoint] ")
    assert window.tree_model.leaf_id == added["id"] == window.opened.session.leaf_id  # the view read it back
    assert window.editing.undo_stack.count() == 1 and not messages


def test_label_dialog_undo_and_redo_round_trip(
    qtbot, window: MainWindow, sessions: Path, oracle_dir: Path, monkeypatch, messages
) -> None:
    file = sessions / LINEAR
    open_session(qtbot, window, file)
    before = file.read_bytes()
    assert window.opened.select_entry(TARGET)
    asked: list[str] = []
    answer_dialog(monkeypatch, "first", asked)
    window.editing.label_action.trigger()
    answer_dialog(monkeypatch, "second", asked)
    window.editing.label_action.trigger()
    assert asked == ["", "first"]  # the dialog starts from the current label
    stack = window.editing.undo_stack
    assert stack.count() == 2 and stack.undoText() == 'Label "second"'

    expected = [("undo", "first"), ("undo", None), ("redo", "first"), ("redo", "second")]
    lines = before.count(b"\n") + 2
    for step, label in expected:
        previous = file.read_bytes()
        (stack.undo if step == "undo" else stack.redo)()
        lines += 1
        data = file.read_bytes()
        assert data.startswith(previous) and data.count(b"\n") == lines  # undo appends, never removes
        assert reference(oracle_dir, file)["labels"].get(TARGET) == label
        shown = window.tree_model.data(window.tree_model.index_for_entry(TARGET), Role.LABEL)
        assert shown == label
    assert file.read_bytes().startswith(before) and not messages
    assert stack.count() == 2 and not stack.canRedo()


def test_clear_label_from_the_context_menu(
    qtbot, window: MainWindow, sessions: Path, oracle_dir: Path
) -> None:
    file = sessions / LINEAR
    open_session(qtbot, window, file)
    window.editing.set_label(TARGET, "to clear")
    menu = QMenu()
    window.editing._fill_tree_menu(menu, window.tree_model.index_for_entry(TARGET))
    texts = [a.text() for a in menu.actions()]
    assert "&Label Entry…" in texts and "&Fork from Entry" in texts and "Copy Entry &ID" in texts
    next(a for a in menu.actions() if a.text() == "C&lear Label").trigger()
    assert "label" not in lines_of(file)[-1]
    assert TARGET not in reference(oracle_dir, file)["labels"]
    window.editing.undo_stack.undo()
    assert reference(oracle_dir, file)["labels"][TARGET] == "to clear"


# ---------------------------------------------------------------------------- names
def test_rename_inline_in_the_list_and_undo(
    qtbot, window: MainWindow, sessions: Path, oracle_dir: Path, messages
) -> None:
    file = sorted(p for p in sessions.glob("*.jsonl") if not load_session(p).name)[0]
    before = file.read_bytes()
    index = window.proxy.index(row_of(window, file), SessionColumn.TITLE)
    assert window.proxy.flags(index) & Qt.ItemFlag.ItemIsEditable
    assert not window.proxy.flags(window.proxy.index(index.row(), SessionColumn.PROJECT)) & (
        Qt.ItemFlag.ItemIsEditable
    )
    window.table.setCurrentIndex(index)
    with qtbot.waitSignal(window.context.session_changed, timeout=TIMEOUT):  # written in a worker
        type_into_editor(qtbot, window.table, index, "Renamed in the list")
    assert reference(oracle_dir, file)["sessionName"] == "Renamed in the list"
    assert file.read_bytes().startswith(before)
    assert (
        window.proxy.data(window.proxy.index(row_of(window, file), SessionColumn.TITLE))
        == "Renamed in the list"
    )
    with qtbot.waitSignal(window.context.session_changed, timeout=TIMEOUT):
        window.editing.stack_for(str(file)).undo()  # that session's stack, open or not
    assert reference(oracle_dir, file)["sessionName"] is None
    assert lines_of(file)[-1]["name"] == ""
    qtbot.waitUntil(lambda: not window.catalogue.refreshing, timeout=TIMEOUT)
    qtbot.waitUntil(
        lambda: window.list_model.summary_at(window.list_model.row_of(str(file))).name is None,
        timeout=TIMEOUT,
    )
    assert file.read_bytes().startswith(before) and not messages


def test_rename_dialog_on_the_open_session_and_clear(
    qtbot, window: MainWindow, sessions: Path, oracle_dir: Path, monkeypatch, messages
) -> None:
    file = sessions / LINEAR
    open_session(qtbot, window, file)
    before = file.read_bytes()
    asked: list[str] = []
    answer_dialog(monkeypatch, "New title", asked)
    window.editing.rename_action.trigger()
    assert asked == ["Fix double submit on login form"]
    assert reference(oracle_dir, file)["sessionName"] == "New title"
    assert window.windowTitle().startswith("New title")
    assert window.opened.session.name == "New title"
    answer_dialog(monkeypatch, "")
    window.editing.rename_action.trigger()
    assert reference(oracle_dir, file)["sessionName"] is None
    window.editing.undo_stack.undo()
    window.editing.undo_stack.undo()
    assert reference(oracle_dir, file)["sessionName"] == "Fix double submit on login form"
    assert file.read_bytes().startswith(before) and not messages


# ---------------------------------------------------------------------------- fork and clone
def test_fork_opens_the_new_session_at_the_entry(
    qtbot, window: MainWindow, sessions: Path, oracle_dir: Path, messages
) -> None:
    file = sessions / LINEAR
    open_session(qtbot, window, file)
    window.editing.set_label(TARGET, "carried")
    before = file.read_bytes()
    source = load_session(file)
    at = source.path_to(source.leaf_id)[6].id
    assert window.opened.select_entry(at) or window.opened.reveal_entry(at)
    with qtbot.waitSignal(window.context.session_loaded, timeout=TIMEOUT) as loaded:
        window.editing.fork_action.trigger()
    forked = Path(loaded.args[0].path)
    assert forked != file and forked.parent == sessions
    assert window.opened.session.path == str(forked)
    assert window.tree_model.entry_for_index(window.tree.currentIndex()).id == at
    header = lines_of(forked)[0]
    assert header["parentSession"] == str(file) and header["id"] != source.session_id
    ref = reference(oracle_dir, forked)
    path_ids = [e.id for e in source.path_to(at) if e.kind != "label"]
    assert ref["branch"][: len(path_ids)] == path_ids
    assert ref["labels"] == {FIRST_USER_ID: "bug-report", TARGET: "carried"}
    assert file.read_bytes() == before and not messages
    qtbot.waitUntil(lambda: window.list_model.row_of(str(forked)) >= 0, timeout=TIMEOUT)


def test_clone_and_clone_into_another_project(
    qtbot, window: MainWindow, sessions: Path, tmp_path: Path, oracle_dir: Path, monkeypatch, messages
) -> None:
    file = sessions / LINEAR
    open_session(qtbot, window, file)
    before = file.read_bytes()
    source_ref = reference(oracle_dir, file)
    with qtbot.waitSignal(window.context.session_changed, timeout=TIMEOUT) as created:
        window.editing.clone_action.trigger()
    clone = Path(created.args[0].path)
    qtbot.waitUntil(
        lambda: window.opened.session is not None and window.opened.session.path == str(clone),
        timeout=TIMEOUT,
    )
    clone_ref = reference(oracle_dir, clone)
    assert clone_ref["leafId"] == source_ref["leafId"] and clone_ref["labels"] == source_ref["labels"]
    assert clone_ref["sessionName"] == source_ref["sessionName"]
    assert lines_of(clone)[0]["parentSession"] == str(file)

    project = tmp_path / "other-project"
    project.mkdir()
    monkeypatch.setattr(QFileDialog, "getExistingDirectory", lambda *_args: str(project))
    # Once listed, the clone's row becomes the current one; then picking the source's row opens it again.
    qtbot.waitUntil(lambda: window.editing.selected_paths() == [str(clone)], timeout=TIMEOUT)
    open_session(qtbot, window, file)
    with qtbot.waitSignal(window.context.session_changed, timeout=TIMEOUT) as created:
        window.editing.clone_into_action.trigger()
    moved = Path(created.args[0].path)
    header = lines_of(moved)[0]
    assert header["cwd"] == str(project) and header["parentSession"] == str(file)
    assert reference(oracle_dir, moved)["leafId"] == source_ref["leafId"]
    assert file.read_bytes() == before and not messages


# ---------------------------------------------------------------------------- trash
def test_trash_a_multi_selection_after_a_confirmation(
    qtbot, window: MainWindow, sessions: Path, trash_home: Path, monkeypatch, messages
) -> None:
    qtbot.waitUntil(lambda: window.proxy.rowCount() == 7, timeout=TIMEOUT)
    files = [Path(window.proxy.summary_at(r).path) for r in (1, 3)]
    data = {f: f.read_bytes() for f in files}
    window.table.selectRow(1)
    selection = window.table.selectionModel()
    selection.select(
        window.proxy.index(3, 0),
        QItemSelectionModel.SelectionFlag.Select | QItemSelectionModel.SelectionFlag.Rows,
    )
    assert window.editing.selected_paths() == [str(f) for f in files]
    asked: list[str] = []
    answers = [QMessageBox.StandardButton.Cancel, QMessageBox.StandardButton.Yes]

    def question(_parent, _title, text, *_args):
        asked.append(text)
        return answers.pop(0)

    monkeypatch.setattr(QMessageBox, "question", question)
    window.editing.trash_action.trigger()  # cancelled: nothing happens
    assert all(f.exists() for f in files) and window.list_model.rowCount() == 7
    with qtbot.waitSignal(window.context.session_changed, timeout=TIMEOUT):
        window.editing.trash_action.trigger()
    assert "these 2 sessions" in asked[1]
    for file in files:
        title = window_title_of(file, data[file])
        assert title in asked[1]
        assert not file.exists() and in_trash(trash_home, file).read_bytes() == data[file]
    assert window.list_model.rowCount() == 5
    assert all(window.list_model.row_of(str(f)) < 0 for f in files)
    qtbot.waitUntil(lambda: not window.catalogue.refreshing, timeout=TIMEOUT)
    assert window.list_model.rowCount() == 5 and not messages


def window_title_of(file: Path, data: bytes) -> str:
    """The start of how the confirmation names a session: its name, else its first message."""
    copy = file.with_suffix(".copy")
    copy.write_bytes(data)
    try:
        session = load_session(copy)
        return (session.name or session.first_message)[:30]
    finally:
        copy.unlink()


# ---------------------------------------------------------------------------- safety
def test_an_agent_appending_while_the_app_labels(
    qtbot, window: MainWindow, sessions: Path, oracle_dir: Path, messages
) -> None:
    file = sessions / LINEAR
    open_session(qtbot, window, file)
    before = file.read_bytes()
    agent = start_agent(file, 300, "2026-03-05T16:00:00.000Z")
    for i in range(20):
        assert window.editing.set_label(TARGET, f"label {i}")
    agent.wait(timeout=60)
    assert agent.returncode == 0
    data = file.read_bytes()
    assert data.startswith(before)
    ids = [e["id"] for e in lines_of(file)[1:]]
    assert len(ids) == before.count(b"\n") - 1 + 300 + 20
    assert agent_ids(300) <= set(ids)
    assert not [d for d in load_session(file).diagnostics if d.is_problem]
    assert reference(oracle_dir, file)["labels"][TARGET] == "label 19"
    fresh = load_session(file)
    qtbot.waitUntil(lambda: len(window.opened.session.entries) == len(fresh.entries), timeout=TIMEOUT)
    qtbot.waitUntil(lambda: window.tree_model.leaf_id == fresh.leaf_id, timeout=TIMEOUT)
    assert not messages


def test_a_change_that_is_not_an_append_is_refused_and_reloads(
    qtbot, window: MainWindow, sessions: Path, monkeypatch, messages
) -> None:
    file = sessions / LINEAR
    open_session(qtbot, window, file)
    assert window.opened.select_entry(TARGET)
    window.opened.watcher.blockSignals(True)  # the edit must meet the change, not the window's own reload
    data = bytearray(file.read_bytes())
    at = data.index(b"twice")
    data[at : at + 5] = b"TWICE"
    with open(file, "r+b") as handle:  # same size, same inode: only the checksum notices
        handle.write(data)
    old_session = window.opened.session
    answer_dialog(monkeypatch, "refused")
    with qtbot.waitSignal(window.context.session_loaded, timeout=TIMEOUT):
        window.editing.label_action.trigger()
    window.opened.watcher.blockSignals(False)
    assert file.read_bytes() == bytes(data)
    assert len(messages) == 1 and "not an append" in messages[0] and "\n" not in messages[0]
    assert window.opened.session is not old_session and window.opened.session.path == str(file)
    assert window.editing.undo_stack.count() == 0
    assert window.tree_model.entry_for_index(window.tree.currentIndex()).id == TARGET


def test_undo_after_the_file_vanished_is_an_error_and_dropped(
    qtbot, window: MainWindow, sessions: Path, messages
) -> None:
    file = sessions / LINEAR
    open_session(qtbot, window, file)
    window.editing.set_label(TARGET, "x")
    file.unlink()
    with qtbot.waitSignal(window.editing.edit_failed, timeout=TIMEOUT) as failed:
        window.editing.undo_stack.undo()
    assert str(file) in failed.args[0] and "\n" not in failed.args[0]
    assert window.editing.undo_stack.count() == 0  # the command that cannot be undone is dropped
    qtbot.waitUntil(lambda: len(messages) == 1, timeout=TIMEOUT)  # shown once the stack is done
    assert not file.exists()


def test_read_only_folder_is_one_sentence_and_the_app_keeps_running(
    qtbot,
    tmp_path: Path,
    read_only_copy: Callable[[list[Path]], Path],
    trash_home: Path,
    monkeypatch,
    messages,
) -> None:
    folder = read_only_copy([DEMO / LINEAR])
    file = folder / LINEAR
    before = file.read_bytes()
    window = make_window(qtbot, [folder], tmp_path / "catalogue")
    qtbot.waitUntil(lambda: window.proxy.rowCount() == 1, timeout=TIMEOUT)
    open_session(qtbot, window, file)
    assert not window.editing.set_label(TARGET, "nope")
    assert messages == [f"{file} or its folder is read-only; nothing was written."]
    assert not window.editing.rename(str(file), "nope")
    monkeypatch.setattr(QMessageBox, "question", lambda *_args: QMessageBox.StandardButton.Yes)
    window.table.selectRow(0)
    window.editing.trash_action.trigger()
    assert messages[2] == f"{file} or its folder is read-only, so it could not be moved to the trash."
    with qtbot.waitSignal(window.editing.edit_failed, timeout=TIMEOUT):
        window.editing.fork_action.trigger()
    assert len(messages) == 4 and "read-only" in messages[3]
    assert file.read_bytes() == before and sorted(os.listdir(folder)) == [LINEAR]
    assert window.editing.undo_stack.count() == 0
    assert window.opened.select_entry(TARGET)  # still running and usable
    assert window.isVisible()


# ---------------------------------------------------------------------------- copy, reveal, models
def test_copy_id_markdown_and_reveal(
    qtbot, window: MainWindow, sessions: Path, monkeypatch, messages
) -> None:
    file = sessions / LINEAR
    open_session(qtbot, window, file)
    assert window.opened.select_entry(FIRST_USER_ID)
    window.editing.copy_id_action.trigger()
    assert QGuiApplication.clipboard().text() == FIRST_USER_ID
    window.editing.copy_markdown_action.trigger()
    assert QGuiApplication.clipboard().text() == entry_to_markdown(window.opened.session, FIRST_USER_ID)
    assert "The login form submits twice" in QGuiApplication.clipboard().text()
    revealed: list[str] = []
    monkeypatch.setattr(editing_module, "reveal_in_file_manager", revealed.append)
    window.editing.reveal_action.trigger()
    assert revealed == [str(file)] and not messages


def test_models_pass_the_model_tester_with_editing(
    qtmodeltester, qtbot, window: MainWindow, sessions: Path
) -> None:
    file = sessions / LINEAR
    open_session(qtbot, window, file)
    window.editing.set_label(TARGET, "tested")
    window.editing.rename(str(file), "Tested")
    qtmodeltester.check(window.tree_model)
    qtmodeltester.check(window.list_model)
    assert window.tree_model.setData(window.tree_model.index_for_entry(TARGET), "tested") is False
    assert window.list_model.setData(window.list_model.index_of(str(file), SessionColumn.COST), "x") is False
    assert isinstance(window.editing.undo_stack.command(0).edit, SetLabel)
    assert isinstance(window.editing.undo_stack.command(1).edit, SetName)


def test_delete_and_f2_act_on_the_list_only(qtbot, window: MainWindow, monkeypatch, messages) -> None:
    qtbot.waitUntil(lambda: window.proxy.rowCount() == 7, timeout=TIMEOUT)
    asked: list[str] = []
    renames: list[str] = []
    monkeypatch.setattr(
        QMessageBox, "question", lambda *args: asked.append(args[2]) or QMessageBox.StandardButton.No
    )
    answer_dialog(monkeypatch, "", renames)
    window.activateWindow()
    qtbot.waitUntil(window.isActiveWindow, timeout=TIMEOUT)
    window.table.selectRow(0)
    window.table.setFocus()
    qtbot.waitUntil(window.table.hasFocus, timeout=TIMEOUT)
    qtbot.keyClick(window.table, Qt.Key.Key_Delete)
    qtbot.keyClick(window.table, Qt.Key.Key_F2)
    assert len(asked) == 1 and len(renames) == 1
    window.filter_edit.setFocus()
    qtbot.waitUntil(window.filter_edit.hasFocus, timeout=TIMEOUT)
    window.filter_edit.setText("abc")
    window.filter_edit.setCursorPosition(0)
    qtbot.keyClick(window.filter_edit, Qt.Key.Key_Delete)
    qtbot.keyClick(window.filter_edit, Qt.Key.Key_F2)
    assert window.filter_edit.text() == "bc"  # Delete edited the text, and trashed nothing
    assert len(asked) == 1 and len(renames) == 1
    assert all(Path(window.proxy.summary_at(r).path).exists() for r in range(window.proxy.rowCount()))


def test_group_rows_are_not_editable(qtbot) -> None:
    from gui.models.branch_tree_model import BranchTreeModel

    model = BranchTreeModel(load_session(DEMO / LINEAR), filter_mode="all", group_size=2)
    requests: list[tuple[str, str]] = []
    model.label_edit_requested.connect(lambda *args: requests.append(args))
    stack = [QModelIndex()]
    groups = []
    while stack:  # every row the model shows, fetched as a view would
        parent = stack.pop()
        while model.canFetchMore(parent):
            model.fetchMore(parent)
        for row in range(model.rowCount(parent)):
            index = model.index(row, 0, parent)
            stack.append(index)
            if model.entry_for_index(index) is None:
                groups.append(index)
    assert groups, "expected group rows with group_size=2"
    for index in groups:
        assert not model.flags(index) & Qt.ItemFlag.ItemIsEditable
        assert model.setData(index, "label") is False
    entry_index = model.index_for_entry(TARGET)
    assert model.setData(entry_index, "label") is True
    assert requests == [(TARGET, "label")]


@pytest.fixture
def full_disk(tmp_path: Path):
    """A folder on a tiny file system (a tmpfs mount, root only) holding the linear session, filled up."""
    if not test_trash.IS_ROOT:
        pytest.skip("a full file system needs a tmpfs mount (root)")
    folder = tmp_path / "full"
    folder.mkdir()
    if subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", str(folder)], check=False
    ).returncode:
        pytest.skip("cannot mount a tmpfs")
    try:
        (folder / LINEAR).write_bytes((DEMO / LINEAR).read_bytes())
        fd = os.open(folder / "filler", os.O_WRONLY | os.O_CREAT)
        try:
            while os.write(fd, b"\0" * 4096):
                pass
        except OSError:  # ENOSPC: full
            pass
        finally:
            os.close(fd)
        yield folder
    finally:
        subprocess.run(["umount", "-l", str(folder)], check=False)


def test_a_full_disk_is_one_sentence_and_nothing_changes(
    qtbot, tmp_path: Path, full_disk: Path, messages
) -> None:
    file = full_disk / LINEAR
    before = file.read_bytes()
    listing = sorted(os.listdir(full_disk))
    window = make_window(qtbot, [full_disk], tmp_path / "catalogue")
    open_session(qtbot, window, file)
    assert window.opened.select_entry(TARGET)
    with qtbot.waitSignal(window.editing.edit_failed, timeout=TIMEOUT) as failed:
        window.editing.fork_action.trigger()
    assert (
        failed.args[0].startswith("The disk is full; nothing was written to ") and "\n" not in failed.args[0]
    )
    assert messages == [failed.args[0]]
    assert file.read_bytes() == before and sorted(os.listdir(full_disk)) == listing  # no temporary file left
    assert window.opened.session.path == str(file) and window.isVisible()


def test_the_label_and_rename_prompts_show_the_current_value_selected(qtbot) -> None:
    from gui.widgets.text_prompt import text_prompt

    dialog = text_prompt(None, "Rename Session", "Session name (empty clears it):", "Fix double submit")
    qtbot.addWidget(dialog)
    dialog.show()
    edit = dialog.findChild(QLineEdit)
    qtbot.waitUntil(edit.hasSelectedText, timeout=TIMEOUT)
    assert edit.text() == "Fix double submit" and edit.selectedText() == "Fix double submit"
    title_width = dialog.fontMetrics().horizontalAdvance("Rename Session")
    assert dialog.width() >= 2 * title_width  # the title bar has room for the title and its buttons
