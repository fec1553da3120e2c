"""``prime-sessions`` starts the window or the CLI; the list follows the folders; context mode (offscreen)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import orjson

from core.render.reading import ContextCards, PathCards
from gui.main_window import MainWindow
from tests.conftest import DEMO, REPO
from tests.gui.windows import current_entry_id, marked_entry_id
from tests.helpers import append_entries

LINEAR = "019cadd3-8790-76fa-8ab0-c952ebef2dfd.jsonl"
BRANCHED = "019cb402-3c88-737c-a54e-8f5201941e04.jsonl"
COMPACTION = "019cb7f7-db40-74db-9a60-0d769809d8ec.jsonl"
TIMEOUT = 30_000


# ---------------------------------------------------------------------------- launcher
def _run(*args: str, tmp_path: Path, code: str | None = None) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ)
    env.update(
        QT_QPA_PLATFORM="offscreen",
        PRIME_SESSIONS_CATALOGUE=str(tmp_path / "catalogue"),
        XDG_CONFIG_HOME=str(tmp_path / "config"),
        HOME=str(tmp_path / "home"),
        PYTHONPATH=str(REPO),
    )
    command = [sys.executable, "-c", code, *args] if code else [sys.executable, "-m", "gui.launcher", *args]
    return subprocess.run(command, capture_output=True, text=True, cwd=REPO, env=env, timeout=180)


_QT_FREE_MAIN = (
    "import sys, gui.launcher\n"
    "status = gui.launcher.main(sys.argv[1:])\n"
    "qt = sorted(m for m in sys.modules if m.startswith(('PySide6', 'shiboken6')))\n"
    "print('QT-MODULES:', qt)\n"
    "sys.exit(status)\n"
)


def test_importing_the_launcher_imports_no_qt(tmp_path: Path) -> None:
    code = "import gui.launcher, sys; assert not any(m.startswith('PySide6') for m in sys.modules)"
    done = _run(tmp_path=tmp_path, code=code)
    assert done.returncode == 0, done.stderr


def test_a_cli_command_runs_without_qt(tmp_path: Path) -> None:
    done = _run("list", str(DEMO), "--no-catalogue", tmp_path=tmp_path, code=_QT_FREE_MAIN)
    assert done.returncode == 0, done.stderr
    assert "Fix double submit" in done.stdout or "login form" in done.stdout
    assert len([line for line in done.stdout.splitlines() if "msgs" in line]) == len(
        list(DEMO.glob("*.jsonl"))
    )
    assert "QT-MODULES: []" in done.stdout


def test_the_module_runs_the_cli_list(tmp_path: Path) -> None:
    done = _run("list", "resources/demo", "--no-catalogue", tmp_path=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "msgs" in done.stdout


def test_a_bad_command_is_one_line_and_status_2(tmp_path: Path) -> None:
    done = _run("frobnicate", tmp_path=tmp_path, code=_QT_FREE_MAIN)
    assert done.returncode == 2
    assert len(done.stderr.strip().splitlines()) == 1
    assert "frobnicate" in done.stderr
    assert "QT-MODULES: []" in done.stdout


def test_a_folder_opens_the_window(tmp_path: Path) -> None:
    done = _run("resources/demo", "--smoke-test", tmp_path=tmp_path)
    assert done.returncode == 0, done.stderr


def test_a_session_file_opens_the_window(tmp_path: Path) -> None:
    done = _run(str(DEMO / LINEAR), "--smoke-test", tmp_path=tmp_path, code=_QT_FREE_MAIN)
    assert done.returncode == 0, done.stderr
    assert "PySide6" in done.stdout  # the window path did import Qt


def test_wants_window_decides_by_the_first_argument(tmp_path: Path, monkeypatch) -> None:
    from gui.launcher import wants_window

    monkeypatch.chdir(tmp_path)
    (tmp_path / "list").mkdir()  # a folder named like a command: the command wins
    assert wants_window([])
    assert wants_window([str(DEMO)])
    assert wants_window([str(DEMO / LINEAR)])
    assert wants_window(["--smoke-test"])
    assert not wants_window(["list"])
    assert not wants_window(["--version"])
    assert not wants_window(["--help"])
    assert not wants_window(["no-such-thing"])


def test_the_console_script_points_at_the_launcher() -> None:
    import tomllib

    scripts = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    assert scripts["scripts"]["prime-sessions"] == "gui.launcher:main"
    assert scripts["gui-scripts"]["prime-sessions-gui"] == "gui.app:run"


# ---------------------------------------------------------------------------- live list
def _summary_of(window: MainWindow, path: Path):
    row = window.list_model.row_of(str(path))
    return window.list_model.summary_at(row) if row >= 0 else None


def _selected_path(window: MainWindow) -> str | None:
    summary = window.proxy.summary_at(window.table.currentIndex().row())
    return os.path.abspath(summary.path) if summary is not None else None


def _append_user_message(path: Path, text: str) -> None:
    last_id = orjson.loads(path.read_bytes().splitlines()[-1])["id"]
    entry = {
        "type": "message",
        "id": "live0001",
        "parentId": last_id,
        "timestamp": "2026-03-09T10:00:00.000Z",
        "message": {"role": "user", "content": text, "timestamp": 1773050400000},
    }
    append_entries(path, [entry])


def test_new_sessions_appear_and_appends_update_the_row(qtbot, tmp_path: Path) -> None:
    folder = tmp_path / "sessions"
    project = folder / "project"
    project.mkdir(parents=True)
    shutil.copy2(DEMO / LINEAR, folder / LINEAR)
    window = MainWindow(roots=[folder], catalogue_dir=tmp_path / "catalogue")
    qtbot.addWidget(window)
    window.show()
    qtbot.waitUntil(
        lambda: not window.catalogue.refreshing and window.list_model.rowCount() == 1, timeout=TIMEOUT
    )
    open_path = os.path.abspath(folder / LINEAR)
    with qtbot.waitSignal(window.context.session_loaded, timeout=TIMEOUT):
        window.table.selectRow(0)
    assert _selected_path(window) == open_path
    assert str(project) in window.catalogue.folder_watcher.directories()

    # A new session in a sub-folder (as the agent writes them) shows up; the selection stays.
    shutil.copy2(DEMO / BRANCHED, project / BRANCHED)
    qtbot.waitUntil(lambda: window.list_model.rowCount() == 2, timeout=TIMEOUT)
    assert _summary_of(window, project / BRANCHED) is not None
    assert _selected_path(window) == open_path
    assert window.opened.session is not None and window.opened.session.path == open_path

    # A live append to the open session: the tree follows and the row's message count grows.
    before = _summary_of(window, folder / LINEAR).messageCount
    qtbot.waitUntil(lambda: not window.catalogue.refreshing, timeout=TIMEOUT)
    _append_user_message(folder / LINEAR, "A message written while the window was open")
    qtbot.waitUntil(lambda: _summary_of(window, folder / LINEAR).messageCount == before + 1, timeout=TIMEOUT)
    assert _selected_path(window) == open_path
    assert window.opened.session.get("live0001") is not None


# ---------------------------------------------------------------------------- context mode
def _show_context(qtbot, window: MainWindow) -> int:
    with qtbot.waitSignal(window.messages.context_shown, timeout=TIMEOUT) as blocker:
        window.context_toggle.setChecked(True)
    return blocker.args[0]


def _window_on(qtbot, tmp_path: Path, session: Path) -> MainWindow:
    window = MainWindow(roots=[session.parent], catalogue_dir=tmp_path / "catalogue", open_path=session)
    qtbot.addWidget(window)
    window.show()
    qtbot.waitUntil(
        lambda: not window.catalogue.refreshing and window.opened.session is not None, timeout=TIMEOUT
    )
    return window


def test_context_mode_starts_with_the_compaction_summary(qtbot, tmp_path: Path) -> None:
    folder = tmp_path / "sessions"
    folder.mkdir()
    shutil.copy2(DEMO / COMPACTION, folder / COMPACTION)
    window = _window_on(qtbot, tmp_path, folder / COMPACTION)
    assert window.context_toggle.text() == "What the model saw"
    count = _show_context(qtbot, window)
    source = window.transcript.card_source
    assert isinstance(source, ContextCards) and len(source.messages) == count > 1
    assert source.messages[0]["role"] == "compactionSummary"
    window.transcript.go_home()
    text = window.transcript.toPlainText()
    assert "earlier messages" not in text  # no paging: the transcript scrolls through all of it
    assert "Speed up the nightly ingest" in text

    # Off again: the conversation, the selected entry's card marked.
    window.context_toggle.setChecked(False)
    source = window.transcript.card_source
    assert isinstance(source, PathCards)
    assert marked_entry_id(window) == current_entry_id(window)


def _generate(path: Path, count: int) -> None:
    lines = [{"type": "session", "version": 3, "id": "gen-session", "timestamp": "2026-03-01T00:00:00.000Z"}]
    parent = None
    for i in range(count):
        entry_id = f"g{i:07d}"
        lines.append(
            {
                "type": "message",
                "id": entry_id,
                "parentId": parent,
                "timestamp": "2026-03-01T00:00:01.000Z",
                "message": {"role": "user", "content": f"msg-{i:04d}", "timestamp": 1772323201000},
            }
        )
        parent = entry_id
    path.write_bytes(b"".join(orjson.dumps(line) + b"\n" for line in lines))


def test_a_long_context_renders_in_windows(qtbot, tmp_path: Path) -> None:
    folder = tmp_path / "sessions"
    folder.mkdir()
    session = folder / "long.jsonl"
    _generate(session, 1000)
    window = _window_on(qtbot, tmp_path, session)
    assert _show_context(qtbot, window) == 1000
    view = window.transcript
    first, last = view.rendered
    assert last == 1000 and last - first < 200  # the cards near the end only, not all 1,000
    text = view.toPlainText()
    assert "msg-0999" in text and "msg-0000" not in text and "earlier messages" not in text

    view.go_home()  # Ctrl+Home: the first message, the end let go
    first, last = view.rendered
    assert first == 0 and last < 200
    text = view.toPlainText()
    assert "msg-0000" in text and "msg-0999" not in text

    # Another entry: the context up to it, shown from its end.
    with qtbot.waitSignal(window.messages.context_shown, timeout=TIMEOUT) as blocker:
        window.opened.select_entry("g0000499")
    assert blocker.args == [500]
    assert view.rendered[1] == 500
    assert "msg-0499" in view.toPlainText() and "msg-0500" not in view.toPlainText()


def test_a_stale_context_result_is_dropped(qtbot, tmp_path: Path) -> None:
    folder = tmp_path / "sessions"
    folder.mkdir()
    session = folder / "long.jsonl"
    _generate(session, 300)
    window = _window_on(qtbot, tmp_path, session)
    window.context_toggle.setChecked(True)
    window.opened.select_entry("g0000010")  # supersedes the request for the leaf
    qtbot.waitUntil(lambda: isinstance(window.transcript.card_source, ContextCards), timeout=TIMEOUT)
    qtbot.waitUntil(lambda: not window.runner.busy, timeout=TIMEOUT)
    source = window.transcript.card_source
    assert isinstance(source, ContextCards) and len(source.messages) == 11
