"""The main window over temporary copies of the demo sessions (pytest-qt, offscreen)."""

from __future__ import annotations

import re
import threading
import time
from pathlib import Path

import orjson
from PySide6.QtCore import QSettings, QThreadPool, QUrl
from PySide6.QtGui import QImage, QTextDocument

import core.catalogue.catalogue as catalogue_module
import gui.widgets.transcript_view as transcript_view_module
from core.catalogue.reading import WholeRead
from core.render import image_bytes
from gui.app import main
from gui.main_window import MainWindow
from gui.models.roles import Role
from gui.models.session_list_model import SessionColumn
from gui.scheduling import Priority
from gui.settings import APPLICATION, ORGANIZATION
from gui.workers import TaskContext
from tests.gui.windows import TIMEOUT, make_window, marked_entry_id

LINEAR = "019cadd3-8790-76fa-8ab0-c952ebef2dfd.jsonl"  # named "Fix double submit on login form"
FIRST_USER_ID = "acf526b8"
FIRST_USER_PHRASE = "The login form submits twice when I press Enter"
THINKING_ID = "28cf9f89"
SCREENSHOT = Path("/tmp/prime-window.png")


def open_linear(qtbot, window: MainWindow, sessions: Path) -> None:
    """Select the linear demo session in the list and wait for the tree."""
    target = str(sessions / LINEAR)
    proxy = window.proxy
    rows = [r for r in range(proxy.rowCount()) if proxy.summary_at(r).path == target]
    assert rows, f"{target} not listed"
    with qtbot.waitSignal(window.context.session_loaded, timeout=TIMEOUT):
        window.table.selectRow(rows[0])


def test_the_list_fills_and_filters(qtbot, window: MainWindow, sessions: Path) -> None:
    qtbot.waitUntil(lambda: window.proxy.rowCount() == 7, timeout=TIMEOUT)
    assert window.list_model.rowCount() == 7
    window.filter_edit.setText("double submit")
    shown = [window.proxy.summary_at(r).path for r in range(window.proxy.rowCount())]
    assert 1 <= len(shown) < 7
    assert str(sessions / LINEAR) in shown
    window.filter_edit.setText("")
    assert window.proxy.rowCount() == 7
    window.named_only.setChecked(True)
    assert 1 <= window.proxy.rowCount() < 7
    assert all(window.proxy.summary_at(r).name for r in range(window.proxy.rowCount()))


def test_the_list_is_sorted_newest_first(window: MainWindow) -> None:
    proxy = window.proxy
    keys = [proxy.data(proxy.index(r, SessionColumn.MODIFIED), Role.SORT) for r in range(proxy.rowCount())]
    assert len(keys) == 7
    assert keys == sorted(keys, reverse=True)


def test_selecting_a_session_fills_the_tree_and_selects_the_leaf(
    qtbot, window: MainWindow, sessions: Path
) -> None:
    open_linear(qtbot, window, sessions)
    session = window.opened.session
    assert session is not None and session.path == str(sessions / LINEAR)
    assert window.tree_model.rowCount() > 0
    current = window.tree_model.entry_for_index(window.tree.currentIndex())
    assert current is not None and current.id == session.leaf_id
    assert marked_entry_id(window) == current.id
    assert "Fix double submit" in window.windowTitle()


def test_an_entry_shows_its_text_and_thinking_toggles(qtbot, window: MainWindow, sessions: Path) -> None:
    open_linear(qtbot, window, sessions)
    assert window.opened.select_entry(FIRST_USER_ID)
    assert FIRST_USER_PHRASE in window.transcript.toPlainText()

    assert window.opened.select_entry(THINKING_ID)
    view = window.transcript
    assert "Thinking…" in view.toPlainText()
    hrefs = re.findall(r'href="(action:toggle/[^"]*thinking[^"]*)"', view.toHtml())
    assert hrefs
    view.anchorClicked.emit(QUrl(hrefs[0]))
    assert any("/thinking/" in key for key in view.expanded)
    assert "▾ Thinking" in view.toPlainText()
    view.anchorClicked.emit(QUrl(hrefs[0]))  # and collapsed again
    assert not view.expanded
    assert "▾ Thinking" not in view.toPlainText()

    window.filter_mode.set_mode("user")
    assert window.tree_model.filter_mode == "user"
    assert window.tree.currentIndex().isValid()
    window.jump_button.click()
    assert window.tree_model.entry_for_index(window.tree.currentIndex()).id == window.opened.session.leaf_id


def test_links_and_resources(qtbot, window: MainWindow, sessions: Path, monkeypatch) -> None:
    opened: list[str] = []

    class FakeDesktop:
        @staticmethod
        def openUrl(url: QUrl) -> bool:
            opened.append(url.toString())
            return True

    monkeypatch.setattr(transcript_view_module, "QDesktopServices", FakeDesktop)
    open_linear(qtbot, window, sessions)
    view = window.transcript
    image = QTextDocument.ResourceType.ImageResource
    for url in ("http://example.com/a.png", "https://example.com/a.png", "file:///etc/passwd", "image:x/0"):
        assert view.loadResource(image, QUrl(url)) is None
    assert not opened  # nothing was fetched or opened by rendering

    session = window.opened.session
    with_image = next(e for e in session.entries if image_bytes(session.body(e), 0) is not None)
    assert window.opened.select_entry(with_image.id)
    sources = re.findall(r'src="(image:[^"]+)"', view.toHtml())
    assert sources
    loaded = view.loadResource(image, QUrl(sources[0]))
    assert isinstance(loaded, QImage) and not loaded.isNull()
    assert loaded.width() <= 480

    view.anchorClicked.emit(QUrl("https://example.com/docs"))
    assert opened == ["https://example.com/docs"]
    view.anchorClicked.emit(QUrl("file:///etc/passwd"))
    assert opened == ["https://example.com/docs"]


def test_a_live_append_shows_a_new_row(qtbot, window: MainWindow, sessions: Path) -> None:
    open_linear(qtbot, window, sessions)
    session = window.opened.session
    leaf = session.leaf_id
    line = {
        "type": "message",
        "id": "feedbeef",
        "parentId": leaf,
        "timestamp": "2026-03-02T10:00:00.000Z",
        "message": {"role": "user", "content": "A live line about zebras", "timestamp": 1772445600000},
    }
    with open(session.path, "ab") as handle:
        handle.write(orjson.dumps(line) + b"\n")
    with qtbot.waitSignal(window.context.session_updated, timeout=TIMEOUT) as blocker:
        window.opened.on_file_changed(session.path)
    assert blocker.args[0].appended
    assert session.leaf_id == "feedbeef"
    index = window.tree_model.index_for_entry("feedbeef")
    assert index.isValid()
    assert window.tree.currentIndex() == index  # the view follows a live session's leaf
    assert "zebras" in window.transcript.toPlainText()
    assert "zebras" in window.tree_model.data(index)
    assert window.grab().save(str(SCREENSHOT))


def test_closing_cancels_and_waits_for_workers(
    qtbot, sessions: Path, tmp_path: Path, _private_settings
) -> None:
    window = MainWindow(roots=[sessions], catalogue_dir=tmp_path / "catalogue")
    qtbot.addWidget(window)
    window.show()
    started = threading.Event()
    seen: list[threading.Event] = []

    def slow(task: TaskContext) -> str:
        seen.append(task.cancel_event)
        started.set()
        task.cancel_event.wait(TIMEOUT / 1000)
        return "late"

    results: list[object] = []
    window.runner.start("slow", slow, results.append, priority=Priority.FOREGROUND)
    assert started.wait(TIMEOUT / 1000)
    window.close()
    assert window.runner.closed
    assert seen[0].is_set()
    assert QThreadPool.globalInstance().activeThreadCount() == 0
    # The task's result is on its way as a queued signal: once it was delivered (the runner is no longer
    # busy), it must have been dropped.
    qtbot.waitUntil(lambda: not window.runner.busy, timeout=TIMEOUT)
    assert results == []  # a result after shutdown is dropped
    settings = QSettings(QSettings.defaultFormat(), QSettings.Scope.UserScope, ORGANIZATION, APPLICATION)
    assert settings.value("main_window/splitter") is not None
    assert settings.value("main_window/geometry") is not None


def test_the_start_up_refresh_with_reader_processes(
    qtbot, sessions: Path, tmp_path: Path, monkeypatch, _private_settings
) -> None:
    # A cold build of a big history reads in spawned processes, from the window's worker thread.
    monkeypatch.setenv("PRIME_SESSIONS_READERS", "1")
    taken: list[str] = []

    class Counted(catalogue_module.Readers):
        def take(self, path: str) -> WholeRead:
            taken.append(path)
            return super().take(path)

    monkeypatch.setattr(catalogue_module, "Readers", Counted)
    window = make_window(qtbot, [sessions], tmp_path / "catalogue")
    qtbot.waitUntil(lambda: window.proxy.rowCount() == 7, timeout=TIMEOUT)
    assert len(taken) == 7  # every file came from the reader process
    assert "error" not in window.statusBar().currentMessage().lower()
    names = {window.proxy.summary_at(r).name for r in range(window.proxy.rowCount())}
    assert "Fix double submit on login form" in names
    window.close()


def test_a_long_first_refresh_lists_the_newest_sessions_as_they_are_read(
    qtbot, sessions: Path, tmp_path: Path, monkeypatch, _private_settings
) -> None:
    import gui.controllers.catalogue as catalogue_controller

    monkeypatch.setenv("PRIME_SESSIONS_READERS", "0")
    monkeypatch.setattr(catalogue_controller, "_PARTIAL_LIST_SECONDS", 0.0)
    monkeypatch.setattr(catalogue_module._Batch, "SECONDS", 0.0)  # a commit after every file
    _slow_reads(monkeypatch, 0.3)  # a big history
    window = MainWindow(roots=[sessions], catalogue_dir=tmp_path / "catalogue")
    qtbot.addWidget(window)
    window.show()
    seen: list[int] = []

    def some_listed() -> bool:
        if window.catalogue.refreshing:
            seen.append(window.list_model.rowCount())
        return any(0 < n < 7 for n in seen)

    qtbot.waitUntil(some_listed, timeout=TIMEOUT)  # rows while the refresh is still reading
    qtbot.waitUntil(lambda: not window.catalogue.refreshing, timeout=TIMEOUT)
    assert window.list_model.rowCount() == 7
    window.close()


def _slow_reads(monkeypatch, seconds: float) -> None:
    """Every whole-file read of the catalogue takes ``seconds`` longer."""
    read = catalogue_module.read_whole

    def slow_read(path: str, st: object, *args: object, **kwargs: object) -> WholeRead:
        time.sleep(seconds)
        return read(path, st, *args, **kwargs)

    monkeypatch.setattr(catalogue_module, "read_whole", slow_read)


def test_a_first_start_lists_the_newest_session_after_the_first_file_is_read(
    qtbot, sessions: Path, tmp_path: Path, monkeypatch, _private_settings
) -> None:
    # Issue 18: the list usable within a second of start while a cold build of 5 GB runs. The pass
    # commits its first file at once and the list reads it at the first progress, not a second later.
    monkeypatch.setenv("PRIME_SESSIONS_READERS", "0")
    _slow_reads(monkeypatch, 0.4)
    window = MainWindow(roots=[sessions], catalogue_dir=tmp_path / "catalogue")
    qtbot.addWidget(window)
    window.show()
    qtbot.waitUntil(lambda: window.list_model.rowCount() > 0, timeout=TIMEOUT)
    assert window.catalogue.refreshing
    assert window.list_model.rowCount() <= 2  # after the first file or two of 7, not a batch later
    assert re.fullmatch(r"Reading sessions: \d of 7 files \(\d+%\)", window.statusBar().currentMessage())
    qtbot.waitUntil(lambda: not window.catalogue.refreshing, timeout=TIMEOUT)
    assert window.list_model.rowCount() == 7
    window.close()


def test_latest_request_wins(qtbot, window: MainWindow) -> None:
    results: list[str] = []
    gate = threading.Event()
    window.runner.start(
        "test",
        lambda _task: gate.wait(TIMEOUT / 1000) and "first",
        results.append,
        priority=Priority.FOREGROUND,
    )
    window.runner.start("test", lambda _task: "second", results.append, priority=Priority.FOREGROUND)
    gate.set()
    qtbot.waitUntil(lambda: not window.runner.busy, timeout=TIMEOUT)
    assert results == ["second"]

    failures: list[Exception] = []
    window.runner.start(
        "test", lambda _task: 1 / 0, results.append, failures.append, priority=Priority.FOREGROUND
    )
    qtbot.waitUntil(lambda: bool(failures), timeout=TIMEOUT)
    assert isinstance(failures[0], ZeroDivisionError)  # the exception itself, for gui.errors.user_sentence


def test_an_empty_history_says_where_sessions_are_looked_for(qtbot, tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))  # the demo link copies the demo there
    empty = tmp_path / "no-sessions"
    window = make_window(qtbot, [empty], tmp_path / "catalogue")
    assert window.list_model.rowCount() == 0
    text = window.transcript.toPlainText()
    assert "Sessions are looked for in" in text
    assert str(empty) in text
    assert "Open the demo sessions" in text
    assert 'href="action:open/demo"' in window.transcript.toHtml()

    window.transcript.anchorClicked.emit(QUrl("action:open/demo"))
    qtbot.waitUntil(
        lambda: not window.catalogue.refreshing and window.list_model.rowCount() == 7, timeout=TIMEOUT
    )
    assert window.catalogue.roots == [tmp_path / "data" / "prime-sessions" / "demo"]  # the user's copy


def test_default_roots_are_shown_when_none_are_given(qtbot, tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("PRIME_AGENT_DIR", str(tmp_path / "agent"))
    window = make_window(qtbot, None, tmp_path / "catalogue")
    assert window.catalogue.roots == [tmp_path / "agent" / "sessions"]
    assert str(tmp_path / "agent" / "sessions") in window.transcript.toPlainText()


def test_opening_a_file_selects_it(qtbot, sessions: Path, tmp_path: Path) -> None:
    target = sessions / LINEAR
    window = MainWindow(roots=[sessions], catalogue_dir=tmp_path / "catalogue", open_path=target)
    qtbot.addWidget(window)
    qtbot.waitUntil(
        lambda: window.opened.session is not None and not window.catalogue.refreshing, timeout=TIMEOUT
    )
    assert window.opened.session.path == str(target)
    assert window.proxy.summary_at(window.table.currentIndex().row()).path == str(target)


def test_the_smoke_test_option(qtbot, sessions: Path, tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("PRIME_SESSIONS_CATALOGUE", str(tmp_path / "catalogue"))
    assert main([str(sessions / LINEAR), "--smoke-test"]) == 0
    assert main([str(tmp_path / "missing")]) == 2
