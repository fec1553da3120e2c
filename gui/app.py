"""Entry point of the desktop app: ``python -m gui [FOLDER | FILE.jsonl] [--smoke-test]``.

``--smoke-test`` checks that a build works end to end without touching anything of the user's: it builds
the window on the bundled demo sessions (or on the folder or file given) with a private catalogue folder and
private settings, waits for the session list, loads one session and renders one of its messages, then quits.
Exit code 0 and one line on stdout when all of that worked; 1 and one sentence on stderr when any failed.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QCoreApplication, QSettings, QTimer
from PySide6.QtGui import QGuiApplication, QIcon
from PySide6.QtWidgets import QApplication

from gui.main_window import DEMO_DIR, MainWindow
from gui.settings import APPLICATION, ORGANIZATION

__all__ = ["ICON_DIR", "ICON_SIZES", "app_icon", "main"]

ICON_DIR = Path(__file__).resolve().parent.parent / "resources" / "icons"  # also in the PyInstaller bundle
ICON_SIZES = (16, 32, 48, 64, 128, 256)  # prime-sessions-<N>.png, rendered by packaging/render_icons.py
_SMOKE_TIMEOUT_MSECS = 120_000
_PROG = "prime-sessions"


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="prime-sessions-gui", description="Browse Prime Agent sessions.")
    parser.add_argument("path", nargs="?", type=Path, help="a session folder or a .jsonl session file")
    parser.add_argument(
        "--smoke-test",
        action="store_true",
        help="open the window on the demo sessions (or PATH) with a private catalogue, load a session, "
        "render a message and quit (exit code 0 on success)",
    )
    return parser


def app_icon() -> QIcon:
    """The application icon, one PNG per size (a null icon when the files are missing)."""
    icon = QIcon()
    for size in ICON_SIZES:
        path = ICON_DIR / f"prime-sessions-{size}.png"
        if path.is_file():
            icon.addFile(str(path))
    return icon


def _no_display() -> bool:
    """On Linux and other X11/Wayland systems: no display server to talk to, and no platform chosen."""
    if sys.platform in ("win32", "darwin"):
        return False
    return not any(os.environ.get(name) for name in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM"))


def main(argv: list[str] | None = None) -> int:
    """Run the app; returns the process exit code."""
    args_in = sys.argv[1:] if argv is None else list(argv)
    if QApplication.instance() is None and _no_display() and "--smoke-test" not in args_in:
        # Qt would abort with a core dump ("could not connect to display"); say it in one sentence.
        print(
            f"{_PROG}: there is no display to open the window on (neither DISPLAY nor WAYLAND_DISPLAY is "
            f"set); start it from a desktop session, or use a command such as `{_PROG} list`.",
            file=sys.stderr,
        )
        return 1
    QCoreApplication.setOrganizationName(ORGANIZATION)
    QCoreApplication.setApplicationName(APPLICATION)
    QGuiApplication.setDesktopFileName(APPLICATION)  # Wayland finds the icon through prime-sessions.desktop
    app = QApplication.instance() or QApplication([sys.argv[0] if sys.argv else APPLICATION, *args_in])
    QGuiApplication.setWindowIcon(app_icon())
    args = _parser().parse_args(args_in)

    roots: list[Path] | None = None
    open_path: Path | None = None
    if args.path is not None:
        target = args.path.expanduser().resolve()
        if target.is_dir():
            roots = [target]
        elif target.is_file():
            roots, open_path = [target.parent], target
        else:
            print(f"prime-sessions-gui: {args.path}: no such folder or file", file=sys.stderr)
            return 2

    if args.smoke_test:
        return _smoke_test(app, roots, open_path)
    window = MainWindow(roots=roots, open_path=open_path)
    window.show()
    return app.exec()


def _smoke_test(app: QCoreApplication, roots: list[Path] | None, open_path: Path | None) -> int:
    """Run the ``--smoke-test`` checks (see the module docstring); the exit code."""
    with tempfile.TemporaryDirectory(prefix="prime-sessions-smoke-") as private:
        # Settings too: the window saves its geometry on close, and the user's must stay as they are.
        settings = str(Path(private) / "settings")
        QSettings.setDefaultFormat(QSettings.Format.IniFormat)
        QSettings.setPath(QSettings.Format.IniFormat, QSettings.Scope.UserScope, settings)
        if roots is None:
            if not any(DEMO_DIR.glob("*.jsonl")):
                return _smoke_failed(f"The bundled demo sessions are missing from {DEMO_DIR}.")
            roots = [DEMO_DIR]
        try:
            window = MainWindow(roots=roots, catalogue_dir=Path(private) / "catalogue", open_path=open_path)
        except Exception as err:
            return _smoke_failed(f"The window could not be built ({type(err).__name__}: {err}).")
        run = _SmokeRun(window, roots, open_path)
        window.show()
        deadline = QTimer(window)  # never hang a build pipeline; goes away with the window
        deadline.setSingleShot(True)
        deadline.timeout.connect(run.timed_out)
        deadline.start(_SMOKE_TIMEOUT_MSECS)
        QGuiApplication.setQuitOnLastWindowClosed(True)
        app.exec()
        window.deleteLater()
        if run.failure is not None:
            return _smoke_failed(run.failure)
        if run.passed is None:
            return _smoke_failed("The window closed before the smoke test finished.")
        print(run.passed)
        return 0


def _smoke_failed(sentence: str) -> int:
    print(f"{_PROG}: smoke test failed: {sentence}", file=sys.stderr)
    return 1


class _SmokeRun:
    """The steps of ``--smoke-test`` on a shown window: list, load one session, render one message, close."""

    def __init__(self, window: MainWindow, roots: list[Path], open_path: Path | None) -> None:
        self.window = window
        self.roots = roots
        self.open_path = open_path
        self.failure: str | None = None
        self.passed: str | None = None
        self._listed = False
        self._rendered: str | None = None  # what was rendered, once it was
        window.catalogue.refresh_finished.connect(self._guarded(self._on_refresh_finished))
        window.context.session_loaded.connect(self._guarded(self._on_session_loaded))
        window.context.load_failed.connect(self._guarded(self._on_load_failed))

    def _guarded(self, slot: Callable[..., None]) -> Callable[..., None]:
        # An exception in a slot would only be printed by Qt; here it fails the smoke test in one sentence.
        def call(*args: object) -> None:
            if self.failure is not None or self.passed is not None:
                return
            try:
                slot(*args)
            except Exception as err:
                self.fail(f"{type(err).__name__}: {err}.")

        return call

    def fail(self, sentence: str) -> None:
        """Record the first failure and close the window."""
        if self.failure is None and self.passed is None:
            self.failure = sentence
            QTimer.singleShot(0, self.window.close)

    def timed_out(self) -> None:
        """The deadline passed before every step finished."""
        self.fail(f"The window did not finish within {_SMOKE_TIMEOUT_MSECS / 1000:g} seconds.")

    def _on_refresh_finished(self, ok: bool) -> None:
        if self._listed:
            return
        window = self.window
        if not ok:
            self.fail(f"The session list could not be read ({window.statusBar().currentMessage()}).")
            return
        rows = window.list_model.rowCount()
        if rows == 0:
            where = ", ".join(str(root) for root in self.roots)
            self.fail(f"No sessions were found in {where}.")
            return
        self._listed = True
        if self.open_path is None and window.opened.session is None:
            window.table.selectRow(0)  # loads that session in a worker
        self._finish_if_done()

    def _on_load_failed(self, sentence: str) -> None:
        self.fail(f"The session could not be loaded: {sentence}")

    def _on_session_loaded(self, session: object) -> None:
        window = self.window
        current = window.opened.session
        if current is None:
            self.fail("The window reported a loaded session but shows none.")
            return
        on_branch = current.path_to(current.leaf_id)
        candidates = [*reversed(on_branch), *reversed(current.entries)]
        entry = next((e for e in candidates if e.kind == "message"), None)
        if entry is None:
            self.fail(f"{current.path} has no message to render.")
            return
        if not window.opened.reveal_entry(entry.id):
            self.fail(f"Message {entry.id} of {current.path} is not in the tree.")
            return
        shown = window.message_view.entry
        text = window.message_view.toPlainText().strip()
        if shown is None or shown.id != entry.id or not text:
            self.fail(f"Message {entry.id} of {current.path} was not rendered.")
            return
        title = current.name or Path(current.path).name
        self._rendered = f"{title!r} loaded ({len(current.entries)} entries), message {entry.id} rendered"
        self._finish_if_done()

    def _finish_if_done(self) -> None:
        if self._listed and self._rendered is not None:
            rows = self.window.list_model.rowCount()
            self.passed = f"Smoke test passed: {rows} sessions listed, {self._rendered}."
            QTimer.singleShot(0, self.window.close)
