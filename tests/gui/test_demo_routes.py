"""Every way of opening the demo works on the user's copy, never on ``resources/demo`` (issue 26, item 1).

The README's run command (``prime-sessions resources/demo``) opened the repository's own folder, and one
rename changed a tracked file. Now the README says ``prime-sessions --demo``, and the shipped folder (or a
file in it) named on the command line, in File ▸ Open or in Open Recent opens the copy too. Help ▸ Reset
Demo Sessions makes the copy as shipped again, the user's changes in the trash.
"""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

import pytest
from PySide6.QtCore import QUrl
from PySide6.QtWidgets import QMessageBox

from core.session import load_session
from gui.app import window_target
from gui.launcher import wants_window
from gui.main_window import MainWindow
from tests.conftest import DEMO, REPO
from tests.core import test_trash
from tests.gui.windows import TIMEOUT, make_window, open_session

LINEAR = "019cadd3-8790-76fa-8ab0-c952ebef2dfd.jsonl"
BRANCHES = "019cb402-3c88-737c-a54e-8f5201941e04.jsonl"

trash_home = test_trash.trash_home  # XDG_DATA_HOME in tmp_path: the demo copy and the trash go there


def digests(folder: Path) -> dict[str, str]:
    return {
        p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(folder.iterdir()) if p.is_file()
    }


@pytest.fixture
def copy(trash_home: Path) -> Path:
    """Where the user's copy of the demo goes (it does not exist yet)."""
    folder = trash_home.parent / "prime-sessions" / "demo"
    assert not folder.exists()
    return folder


def test_the_readmes_run_command_opens_the_demo_as_a_copy() -> None:
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    first_block = re.search(r"```bash\n(.*?)```", readme, re.S)
    assert first_block is not None
    command = first_block.group(1)
    assert "prime-sessions --demo" in command and "resources/demo" not in command
    assert wants_window(["--demo"])


def _route_window(qtbot, route: str, tmp_path: Path) -> MainWindow:
    """The window as each route opens it (the command line's arguments go through gui.app.window_target)."""
    catalogue = tmp_path / "catalogue"
    if route == "--demo":
        return make_window(qtbot, [window_target(None, demo=True)], catalogue)
    if route == "prime-sessions resources/demo":
        return make_window(
            qtbot, [window_target(Path("resources/demo") if Path.cwd() == REPO else DEMO)], catalogue
        )
    if route == "prime-sessions resources/demo/FILE":
        target = window_target(DEMO / LINEAR)
        window = make_window(qtbot, [target.parent], catalogue, open_path=target)
        qtbot.waitUntil(lambda: window.opened.session is not None, timeout=TIMEOUT)
        return window
    window = make_window(qtbot, [tmp_path / "no-sessions"], catalogue)
    if route == "the empty state's link":
        window.transcript.anchorClicked.emit(QUrl("action:open/demo"))
    elif route == "File ▸ Open":
        assert window.files.open_path(DEMO)
    qtbot.waitUntil(
        lambda: not window.catalogue.refreshing and window.list_model.rowCount() == 7, timeout=TIMEOUT
    )
    return window


@pytest.mark.parametrize(
    "route",
    [
        "--demo",
        "prime-sessions resources/demo",
        "prime-sessions resources/demo/FILE",
        "the empty state's link",
        "File ▸ Open",
    ],
)
def test_a_rename_through_every_route_leaves_the_shipped_demo_byte_for_byte(
    qtbot, route: str, copy: Path, tmp_path: Path
) -> None:
    shipped = digests(DEMO)
    window = _route_window(qtbot, route, tmp_path)
    assert window.catalogue.roots == [copy]
    if window.opened.session is None:
        open_session(qtbot, window, copy / LINEAR)
    assert window.opened.session.path == str(copy / LINEAR)
    assert window.editing.rename(str(copy / LINEAR), f"Renamed through {route}")
    assert load_session(copy / LINEAR).name == f"Renamed through {route}"
    assert digests(DEMO) == shipped  # resources/demo, byte for byte
    assert digests(copy) != shipped


def test_other_paths_are_opened_as_they_are(tmp_path: Path, copy: Path) -> None:
    elsewhere = tmp_path / "mine"
    elsewhere.mkdir()
    assert window_target(elsewhere) == elsewhere
    assert window_target(None) is None
    with pytest.raises(FileNotFoundError):
        window_target(tmp_path / "missing")
    assert not copy.exists()  # nothing copied for them
    assert window_target(DEMO, checking=True) == DEMO  # --smoke-test copies to a private folder itself


def test_reset_demo_sessions_makes_the_copy_new_and_keeps_the_changes_in_the_trash(
    qtbot, copy: Path, trash_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    shipped = digests(DEMO)
    window = make_window(qtbot, [window_target(None, demo=True)], tmp_path / "catalogue")
    open_session(qtbot, window, copy / LINEAR)
    assert window.editing.rename(str(copy / LINEAR), "Mine now")
    renamed = (copy / LINEAR).read_bytes()
    asked: list[str] = []

    def question(_parent, _title, text, *_args):
        asked.append(text)
        return QMessageBox.StandardButton.Yes

    monkeypatch.setattr(QMessageBox, "question", question)
    with qtbot.waitSignal(window.catalogue.refresh_finished, timeout=TIMEOUT):
        assert window.help.reset_demo()
    assert asked and "trash" in asked[0]
    assert digests(copy) == shipped and window.catalogue.roots == [copy]
    assert window.opened.session is None  # the renamed session is not shown any more
    assert (trash_home / "files" / LINEAR).read_bytes() == renamed  # the user's rename, kept
    assert not (trash_home / "files" / BRANCHES).exists()  # unchanged files are made again, not trashed
    assert digests(DEMO) == shipped
    assert window.list_model.rowCount() == 7
