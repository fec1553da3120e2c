"""The Files view beside the tree, and the session list's ``touched:`` filter."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest

from core.catalogue.summary import summarize
from core.kinds.touches import session_touches, touched_files
from core.session import load_session
from gui.main_window import MainWindow
from gui.models.roles import Role
from gui.models.session_filter_proxy import SessionFilterProxy, touched_terms
from gui.models.session_list_model import SessionListModel
from gui.models.touched_files_model import TouchedFilesModel
from tests.conftest import DEMO
from tests.gui.windows import TIMEOUT, current_entry_id, open_session

CACHE = "019cb402-3c88-737c-a54e-8f5201941e04.jsonl"  # writes src/server/cache/lru.ts and redis.ts
LRU = "019cbdc3-02c0-73a8-8574-a995f558347e.jsonl"  # edits src/server/cache/lru.ts
LOGIN = "019cadd3-8790-76fa-8ab0-c952ebef2dfd.jsonl"  # src/components/LoginForm.tsx


def _demo_files(name: str) -> list:
    session = load_session(DEMO / name)
    return touched_files(session_touches(session), "/home/dev/acme-webapp")


# ---------------------------------------------------------------------------- the model
def test_the_files_model_passes_the_model_tester(qtmodeltester) -> None:
    model = TouchedFilesModel()
    qtmodeltester.check(model)
    model.set_files(_demo_files(CACHE))
    qtmodeltester.check(model)
    assert model.rowCount() == 3 and model.columnCount() == 2
    index = model.index(2, 0)
    assert model.data(index) == "src/server/routes/products.ts"
    assert model.data(model.index(2, 1)) == "edit 2, read 1"
    assert "/home/dev/acme-webapp/src/server/routes/products.ts" in model.data(index, 3)  # its tooltip
    assert model.data(index, Role.ID) == model.file_at(2).first_entry
    model.set_files([])
    qtmodeltester.check(model)


def test_touched_words_of_a_filter_text() -> None:
    assert touched_terms("touched: src/auth/ login") == (("src/auth/",), "  login")
    assert touched_terms('x touched:"my dir/a b" y')[0] == ("my dir/a b",)
    assert touched_terms("Touched:A/B.py")[0] == ("A/B.py",)  # the path keeps its case
    assert touched_terms("untouched:x touched:")[0] == ()


def test_the_proxy_hides_every_row_until_the_answer_for_its_terms(qtbot, qtmodeltester) -> None:
    paths = [str(DEMO / name) for name in (CACHE, LRU, LOGIN)]
    model = SessionListModel([summarize(load_session(p)) for p in paths])
    proxy = SessionFilterProxy()
    proxy.setSourceModel(model)
    asked: list[tuple[str, ...]] = []
    proxy.touched_requested.connect(asked.append)
    proxy.set_filter_text("touched: src/")
    assert asked == [("src/",)] and proxy.rowCount() == 0
    proxy.set_touched_sessions(("other/",), frozenset(paths))  # an answer to an older question
    assert proxy.rowCount() == 0
    proxy.set_touched_sessions(("src/",), frozenset(paths[:2]))
    assert sorted(proxy.summary_at(r).path for r in range(proxy.rowCount())) == sorted(paths[:2])
    proxy.set_filter_text("touched: src/ 019cb402")  # words narrow the answer further, without asking again
    assert asked == [("src/",)] and [proxy.summary_at(r).path for r in range(proxy.rowCount())] == paths[:1]
    qtmodeltester.check(proxy)
    proxy.clear_filters()
    assert proxy.rowCount() == 3 and asked[-1] == ()


# ---------------------------------------------------------------------------- the window
def _wait_files(qtbot, window: MainWindow, count: int) -> None:
    qtbot.waitUntil(lambda: window.files_pane.model.rowCount() == count, timeout=TIMEOUT)


def test_the_files_view_lists_the_open_sessions_files_and_a_click_shows_the_first_touch(
    qtbot, window: MainWindow, sessions: Path
) -> None:
    with qtbot.waitSignal(window.touched.files_shown, timeout=TIMEOUT):
        open_session(qtbot, window, sessions / CACHE)
    model = window.files_pane.model
    assert [f.shown for f in model.files()] == [f.shown for f in _demo_files(CACHE)]
    assert "3 files touched, 3 changed" in window.files_pane.status.text()
    window.session_tabs.setCurrentWidget(window.files_pane)
    products = model.file_at(2)
    assert products is not None and products.shown == "src/server/routes/products.ts"
    view = window.files_pane.view
    rect = view.visualRect(model.index(2, 0))
    from PySide6.QtCore import Qt

    with qtbot.waitSignal(window.context.selection_changed, timeout=TIMEOUT):
        qtbot.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    qtbot.waitUntil(lambda: current_entry_id(window) == products.first_entry, timeout=TIMEOUT)
    assert window.session_tabs.currentWidget() is window.files_pane  # the list stays for the next click
    assert len(products.entries) > 1
    # clicked again: the next entry that touched it; Enter does what a click does
    qtbot.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    qtbot.waitUntil(lambda: current_entry_id(window) == products.entries[1], timeout=TIMEOUT)
    view.setFocus()
    view.setCurrentIndex(model.index(0, 0))
    qtbot.keyClick(view, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: current_entry_id(window) == model.file_at(0).first_entry, timeout=TIMEOUT)


def test_a_files_menu_lists_the_sessions_that_touched_the_file(
    qtbot, window: MainWindow, sessions: Path
) -> None:
    with qtbot.waitSignal(window.touched.files_shown, timeout=TIMEOUT):
        open_session(qtbot, window, sessions / CACHE)
    products = window.files_pane.model.file_at(2)
    menu = window.files_pane.menu_for(products)
    actions = [a.text() for a in menu.actions()]
    assert actions == ["Sessions That Touched This File", "Copy Path"]
    menu.actions()[1].trigger()
    from PySide6.QtGui import QGuiApplication

    assert QGuiApplication.clipboard().text() == "/home/dev/acme-webapp/src/server/routes/products.ts"
    with qtbot.waitSignal(window.touched.filter_answered, timeout=TIMEOUT):
        menu.actions()[0].trigger()
    assert window.filter_edit.text() == 'touched:"/home/dev/acme-webapp/src/server/routes/products.ts"'
    shown = {Path(window.proxy.summary_at(r).path).name for r in range(window.proxy.rowCount())}
    assert shown == {CACHE, LRU}


def test_what_the_agent_appends_joins_the_files_view(qtbot, window: MainWindow, sessions: Path) -> None:
    path = sessions / CACHE
    with qtbot.waitSignal(window.touched.files_shown, timeout=TIMEOUT):
        open_session(qtbot, window, path)
    leaf = load_session(path).leaf_id
    entry = {
        "type": "message",
        "id": "app00001",
        "parentId": leaf,
        "timestamp": "2026-03-05T16:00:00.000Z",
        "message": {
            "role": "assistant",
            "content": [
                {"type": "toolCall", "id": "c1", "name": "write", "arguments": {"path": "docs/cache.md"}}
            ],
            "stopReason": "toolUse",
            "timestamp": 1772726400000,
        },
    }
    view = window.files_pane.view
    view.setCurrentIndex(window.files_pane.model.index(2, 0))  # the user is on a file
    with qtbot.waitSignal(window.touched.files_shown, timeout=TIMEOUT):
        with open(path, "ab") as handle:
            handle.write(orjson.dumps(entry) + b"\n")
    assert "docs/cache.md" in [f.shown for f in window.files_pane.model.files()]
    current = window.files_pane.model.file_at(view.currentIndex().row())
    assert current is not None and current.shown == "src/server/routes/products.ts"  # and stays on it


def test_ctrl_4_goes_to_the_files(qtbot, window: MainWindow) -> None:
    window.tree_toggle.setChecked(False)
    window.registry["view.focus_files"].trigger()
    assert window.session_tabs.isVisible() and window.session_tabs.currentWidget() is window.files_pane
    assert window.registry["view.focus_files"].shortcut().toString() == "Ctrl+4"
    window.registry["view.focus_tree"].trigger()
    assert window.session_tabs.currentWidget() is window.tree_pane


def test_closing_the_session_empties_the_files_view(qtbot, window: MainWindow, sessions: Path) -> None:
    with qtbot.waitSignal(window.touched.files_shown, timeout=TIMEOUT):
        open_session(qtbot, window, sessions / CACHE)
    with qtbot.waitSignal(window.context.session_closed, timeout=TIMEOUT):
        window.opened.clear()
    assert window.files_pane.model.rowCount() == 0


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("touched: src/server/cache", {CACHE, LRU}),
        ("touched:src/server/cache/redis.ts", {CACHE}),
        ("touched: /home/dev/acme-webapp/src/server/cache/lru.ts", {CACHE, LRU}),
        ("touched: nowhere/at/all.py", set()),
    ],
)
def test_the_list_filter_touched(qtbot, window: MainWindow, text: str, expected: set[str]) -> None:
    qtbot.waitUntil(lambda: window.proxy.rowCount() == 7, timeout=TIMEOUT)
    with qtbot.waitSignal(window.touched.filter_answered, timeout=TIMEOUT):
        window.filter_edit.setText(text)
    shown = {Path(window.proxy.summary_at(r).path).name for r in range(window.proxy.rowCount())}
    assert shown == expected
    window.filter_edit.setText("")
    assert window.proxy.rowCount() == 7
