"""The diff window and its controller: selection to diff, navigation, folding, swap, jump to the tree."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import QItemSelectionModel, QModelIndex, Qt
from PySide6.QtWidgets import QMenu

from core.diff import CHANGED, DELETED, INSERTED, SAME, diff_paths
from core.errors import SessionWriteError
from core.session import load_session
from gui.main_window import MainWindow
from gui.models.diff_model import ENTRY_ROLE, HTML_ROLE, DiffModel
from gui.widgets.diff_window import DiffWindow
from tests.core.test_diff import Builder, assistant, result, user
from tests.gui.windows import TIMEOUT, current_entry_id, marked_entry_id, open_session

BRANCHED = "019cb402-3c88-737c-a54e-8f5201941e04.jsonl"  # three branches from the first answer
BRANCH_LEAVES = ("8b38ce88", "aeb61a52", "52c02f53")  # last messages of A, B, C (C ends the session)
LINEAR = "019cadd3-8790-76fa-8ab0-c952ebef2dfd.jsonl"
FORK = "019cbd70-9d00-7654-b79e-0404ef27578f.jsonl"  # a fork of LINEAR with one new turn


def constructed_diff(tmp_path: Path):
    """Two branches after a 2-message common part: a change, 12 unchanged rows, an insertion, a change."""
    b = Builder()
    b.add(user("Refactor the parser"))
    point = b.add(assistant("Plan: split it in two."))
    b.add(assistant("Left: start with the lexer."))
    for index in range(12):
        b.add(user(f"continue {index}"))
    b.add(assistant("Left ending <b>bold</b>"))
    left = b.last
    b.at(point)
    b.add(assistant("Right: start with the grammar."))
    for index in range(12):
        b.add(user(f"continue {index}"))
    b.add(assistant("", [("read", {"path": "grammar.txt"})]))
    b.add(result("read", "expr := term"))
    b.add(assistant("Right ending"))
    right = b.last
    path = b.write(tmp_path / "constructed.jsonl")
    return diff_paths(load_session(path), left, right)


def diff_window(qtbot, diff) -> DiffWindow:
    view = DiffWindow(diff)
    qtbot.addWidget(view)
    view.show()
    qtbot.waitExposed(view)
    return view


def top_kinds(model: DiffModel) -> list[str]:
    return [model.item_kind(model.index(row, 0)) for row in range(model.rowCount())]


# ---------------------------------------------------------------------------- the model
def test_the_model_passes_the_model_tester(qtmodeltester, tmp_path: Path) -> None:
    diff = constructed_diff(tmp_path)
    model = DiffModel(diff)
    qtmodeltester.check(model)
    assert top_kinds(model) == [
        "common",
        CHANGED,
        SAME,
        SAME,
        "fold",
        SAME,
        SAME,
        INSERTED,
        INSERTED,
        CHANGED,
    ]
    fold = model.index(4, 0)
    assert model.rowCount(fold) == 8 and model.data(fold) == "⋯ 8 unchanged messages"
    assert model.change_rows() == [1, 7]
    model.set_only_changes(True)
    qtmodeltester.check(model)
    assert top_kinds(model) == [CHANGED, INSERTED, INSERTED, CHANGED]
    model.swap()
    qtmodeltester.check(model)
    assert top_kinds(model) == [CHANGED, DELETED, DELETED, CHANGED]


def test_cells_are_escaped_rich_text_with_highlighted_words(tmp_path: Path) -> None:
    model = DiffModel(constructed_diff(tmp_path))
    last = model.rowCount() - 1
    left, right = model.index(last, 0), model.index(last, 1)
    assert "&lt;b&gt;bold&lt;/b&gt;" in left.data(HTML_ROLE) and "<b>bold</b>" not in left.data(HTML_ROLE)
    assert "line-through" in left.data(HTML_ROLE)  # the words only the left side has
    assert "background-color" in right.data(HTML_ROLE)
    assert left.data(Qt.ItemDataRole.BackgroundRole) is not None
    inserted = model.index(7, 0)
    assert inserted.data(ENTRY_ROLE) is None and model.index(7, 1).data(ENTRY_ROLE) is not None


# ---------------------------------------------------------------------------- the window
def test_f7_and_shift_f7_move_between_changes(qtbot, tmp_path: Path) -> None:
    view = diff_window(qtbot, constructed_diff(tmp_path))
    view.activateWindow()
    qtbot.waitUntil(view.isActiveWindow, timeout=TIMEOUT)
    view.view.setFocus()
    qtbot.keyClick(view.view, Qt.Key.Key_F7)
    assert view.view.currentIndex().row() == 1
    qtbot.keyClick(view.view, Qt.Key.Key_F7)
    assert view.view.currentIndex().row() == 7
    assert not view.next_change()  # nothing after the last change
    qtbot.keyClick(view.view, Qt.Key.Key_F7, Qt.KeyboardModifier.ShiftModifier)
    assert view.view.currentIndex().row() == 1
    view.previous_action.trigger()
    assert view.view.currentIndex().row() == 1  # nothing before the first
    assert view.next_action.shortcut().toString() == "F7"
    assert view.previous_action.shortcut().toString() == "Shift+F7"


def test_a_click_unfolds_and_folds_unchanged_runs(qtbot, tmp_path: Path) -> None:
    view = diff_window(qtbot, constructed_diff(tmp_path))
    fold = view.model.index(4, 0)
    common = view.model.index(0, 0)
    assert not view.view.isExpanded(fold) and not view.view.isExpanded(common)
    assert view.view.isFirstColumnSpanned(4, QModelIndex())
    view.view.scrollTo(fold)
    rect = view.view.visualRect(fold)
    qtbot.mouseClick(view.view.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    assert view.view.isExpanded(fold)
    child = view.model.index(0, 1, fold)
    assert view.view.visualRect(child).height() > 0  # laid out as a row of its own
    qtbot.mouseClick(view.view.viewport(), Qt.MouseButton.LeftButton, pos=view.view.visualRect(fold).center())
    assert not view.view.isExpanded(fold)
    view.unfold(0)
    assert view.view.isExpanded(common) and view.model.rowCount(common) == 2


def test_swap_and_only_changes(qtbot, tmp_path: Path) -> None:
    diff = constructed_diff(tmp_path)
    view = diff_window(qtbot, diff)
    left_header = view.model.headerData(0, Qt.Orientation.Horizontal)
    view.next_change()
    view.swap_action.trigger()
    assert view.diff.left.entry_id == diff.right.entry_id
    assert view.model.headerData(1, Qt.Orientation.Horizontal).replace("Right", "Left") == left_header
    assert top_kinds(view.model)[7:9] == [DELETED, DELETED]
    assert view.view.currentIndex().row() == 1  # the current row stays
    view.only_changes_action.trigger()
    assert view.model.only_changes and top_kinds(view.model) == [CHANGED, DELETED, DELETED, CHANGED]
    view.only_changes_action.trigger()
    assert not view.model.only_changes and "fold" in top_kinds(view.model)


def test_export_writes_a_page_and_never_replaces_a_file_unasked(qtbot, tmp_path: Path) -> None:
    view = diff_window(qtbot, constructed_diff(tmp_path))
    target = tmp_path / "diff.html"
    with qtbot.waitSignal(view.exported):
        view.export_html(str(target))
    page = target.read_text(encoding="utf-8")
    assert "Content-Security-Policy" in page and "&lt;b&gt;bold" in page
    with pytest.raises(SessionWriteError):
        view.export_html(str(target))
    assert target.read_text(encoding="utf-8") == page


def test_export_never_writes_over_a_session_compared_even_when_replacing_was_confirmed(
    qtbot, tmp_path: Path
) -> None:
    diff = constructed_diff(tmp_path)
    session = Path(diff.left.file)
    before = session.read_bytes()
    (tmp_path / "link.html").symlink_to(session)
    view = diff_window(qtbot, diff)
    for target in (session, tmp_path / "link.html"):
        with pytest.raises(SessionWriteError, match="is the session being read"):
            view.export_html(str(target), overwrite=True)  # what the file dialog's "Replace?" yes gives
    assert session.read_bytes() == before


# ---------------------------------------------------------------------------- from the main window
def select_entries(window: MainWindow, entry_ids: tuple[str, ...]) -> None:
    selection = window.tree.selectionModel()
    selection.clearSelection()
    for entry_id in entry_ids:
        index = window.tree_model.index_for_entry(entry_id)
        assert index.isValid()
        selection.select(
            index, QItemSelectionModel.SelectionFlag.Select | QItemSelectionModel.SelectionFlag.Rows
        )


def test_two_selected_leaves_open_a_diff_and_a_cell_jumps_to_the_tree(
    qtbot, window: MainWindow, sessions: Path
) -> None:
    open_session(qtbot, window, sessions / BRANCHED)
    controller = window.diff_controller
    assert window.tree.selectionMode() == window.tree.SelectionMode.ExtendedSelection
    select_entries(window, (BRANCH_LEAVES[0], BRANCH_LEAVES[2]))
    assert controller.compare_entries_action.isEnabled()
    with qtbot.waitSignal(controller.diff_opened, timeout=TIMEOUT) as opened:
        controller.compare_entries_action.trigger()
    view: DiffWindow = opened.args[0]
    qtbot.addWidget(view)
    assert {view.diff.left.entry_id, view.diff.right.entry_id} == {BRANCH_LEAVES[0], BRANCH_LEAVES[2]}
    assert view.diff.common.ancestor_id == "21229440"
    assert view.view.currentIndex().isValid()  # opened at the first change
    # jump from a cell of the right side to the branch tree
    row = view.model.change_rows()[0]
    view.view.setCurrentIndex(view.model.index(row, 1))
    entry_id = view.model.index(row, 1).data(ENTRY_ROLE)
    assert view.show_in_tree()
    assert current_entry_id(window) == entry_id
    assert marked_entry_id(window) == entry_id  # and the transcript is at it, on that branch
    assert window.messages.transcript.on_path(entry_id)
    slot = window.messages.transcript.nearest_slot(entry_id)
    card = max(s for s in window.transcript.rendered_slots if s <= slot)  # its own, or its call's
    assert card in window.transcript.visible_slots()
    view.close()


def test_compare_with_a_marked_entry_from_the_context_menu(qtbot, window: MainWindow, sessions: Path) -> None:
    open_session(qtbot, window, sessions / BRANCHED)
    controller = window.diff_controller

    def menu_for(entry_id: str) -> QMenu:
        menu = QMenu()
        window.registry.fill_context_menu("tree", menu, window.tree_model.index_for_entry(entry_id))
        return menu

    def action(menu: QMenu, text: str):
        found = [a for a in menu.actions() if a.text().startswith(text)]
        assert found, [a.text() for a in menu.actions()]
        return found[0]

    menu = menu_for(BRANCH_LEAVES[1])  # kept: the menu owns its actions
    action(menu, "Mark as Left Side").trigger()
    assert controller.marked == (str(sessions / BRANCHED), BRANCH_LEAVES[1])
    menu = menu_for(BRANCH_LEAVES[1])
    assert not [a for a in menu.actions() if a.text().startswith("Compare with")]  # not with itself
    with qtbot.waitSignal(controller.diff_opened, timeout=TIMEOUT) as opened:
        other = menu_for(BRANCH_LEAVES[2])
        action(other, f"Compare with {BRANCH_LEAVES[1]}").trigger()
    view: DiffWindow = opened.args[0]
    qtbot.addWidget(view)
    assert (view.diff.left.entry_id, view.diff.right.entry_id) == BRANCH_LEAVES[1:]
    view.close()


def test_a_fork_against_its_parent_session(qtbot, window: MainWindow, sessions: Path) -> None:
    open_session(qtbot, window, sessions / FORK)
    controller = window.diff_controller
    assert controller.compare_parent_action.isEnabled()
    with qtbot.waitSignal(controller.diff_opened, timeout=TIMEOUT) as opened:
        controller.compare_parent_action.trigger()
    view: DiffWindow = opened.args[0]
    qtbot.addWidget(view)
    assert view.diff.left.file == str(sessions / LINEAR) and view.diff.right.file == str(sessions / FORK)
    assert view.diff.common.matched_by == "ids"
    assert top_kinds(view.model) == ["common"] + [INSERTED] * 6
    # a cell of the other session: "Show in tree" opens that session at the entry
    view.view.setCurrentIndex(view.model.index(0, 0))
    view.unfold(0)
    view.view.setCurrentIndex(view.model.index(0, 0, view.model.index(0, 0)))
    with qtbot.waitSignal(window.context.session_loaded, timeout=TIMEOUT):
        assert view.show_in_tree()
    assert window.opened.session.path == str(sessions / LINEAR)
    qtbot.waitUntil(lambda: current_entry_id(window) == view.diff.common.tail[0].entry_id, timeout=TIMEOUT)
    qtbot.waitUntil(lambda: marked_entry_id(window) == view.diff.common.tail[0].entry_id, timeout=TIMEOUT)
    view.close()


def test_two_selected_sessions_in_the_list(qtbot, window: MainWindow, sessions: Path) -> None:
    controller = window.diff_controller
    selection = window.table.selectionModel()
    rows = []
    for name in (LINEAR, FORK):
        source = window.list_model.index_of(str(sessions / name))
        rows.append(window.proxy.mapFromSource(source))
    for index in rows:
        selection.select(
            index, QItemSelectionModel.SelectionFlag.Select | QItemSelectionModel.SelectionFlag.Rows
        )
    assert controller.compare_sessions_action.isEnabled()
    with qtbot.waitSignal(controller.diff_opened, timeout=TIMEOUT) as opened:
        controller.compare_sessions_action.trigger()
    view: DiffWindow = opened.args[0]
    qtbot.addWidget(view)
    assert {view.diff.left.file, view.diff.right.file} == {str(sessions / LINEAR), str(sessions / FORK)}
    view.close()


# ---------------------------------------------------------------------------- the window's conventions
def test_the_diff_window_has_menus_closes_with_escape_and_ctrl_w_and_keeps_its_size(
    qtbot, tmp_path: Path, monkeypatch
) -> None:
    from PySide6.QtWidgets import QFileDialog

    from gui.settings import remember_export_folder

    diff = constructed_diff(tmp_path)
    view = diff_window(qtbot, diff)
    menus = [a.text() for a in view.menuBar().actions()]
    assert menus == ["&File", "&View", "&Go"]
    assert [k.toString() for k in view.close_action.shortcuts()] == ["Ctrl+W", "Esc"]
    view.resize(700, 480)
    view.close_action.trigger()
    assert not view.isVisible()
    again = diff_window(qtbot, diff)
    assert (again.width(), again.height()) == (700, 480)  # remembered
    # The export proposes the folder of the last export, whatever session the diff is of.
    exports = tmp_path / "exports"
    exports.mkdir()
    remember_export_folder(str(exports))
    proposed: list[str] = []
    monkeypatch.setattr(
        QFileDialog, "getSaveFileName", lambda _p, _t, start, _f: (proposed.append(start), ("", ""))[1]
    )
    again.export_action.trigger()
    assert Path(proposed[0]).parent == exports
