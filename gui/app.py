"""The desktop app: ``python -m gui [FOLDER | FILE.jsonl] [OPTION]``.

One window per user: a start while a window runs hands its path to that window (``gui.single_instance``)
and exits, unless ``--new-window`` is given.

``--smoke-test`` checks that a build works end to end without touching anything of the user's: it builds
the window on a private copy of the bundled demo sessions (or on the folder or file given) with a private
catalogue folder and private settings, waits for the session list, loads one session and renders one of its
messages, then quits. Exit code 0 and one line on stdout when all of that worked; 1 and one sentence on
stderr when any failed.

``--scripted-check OUT`` goes further, as a user would: it also compares two leaves of a session with
branches in a diff window, exports that session through the export dialog as HTML and as PDF into the
folder OUT (which the check never writes anything else to), and opens the Usage window's charts. It
checks that Qt can read every image format a session may hold, too (the frozen bundle's image plugins).
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QCoreApplication, QSettings, Qt, QTimer
from PySide6.QtGui import QGuiApplication, QIcon, QImageReader
from PySide6.QtWidgets import QApplication

from core.errors import PrimeSessionsError
from gui.leaving import close_on_termination, leave
from gui.main_window import DEMO_DIR, MainWindow
from gui.settings import APPLICATION, ORGANIZATION
from gui.single_instance import InstanceServer, forward_to_running

if TYPE_CHECKING:
    from core.session import Session
    from gui.models.usage_figures import UsageFigures
    from gui.widgets.diff_window import DiffWindow

__all__ = ["ICON_DIR", "ICON_SIZES", "app_icon", "main", "run", "window_target"]

ICON_DIR = Path(__file__).resolve().parent.parent / "resources" / "icons"  # also in the PyInstaller bundle
ICON_SIZES = (16, 32, 48, 64, 128, 256)  # prime-sessions-<N>.png, rendered by packaging/render_icons.py
_SMOKE_TIMEOUT_MSECS = 120_000
# The image types a session may hold (core.render.images) and the icons' SVG: the frozen bundle must carry
# a Qt plugin for each (PNG is built into QtGui).
_IMAGE_FORMATS = ("png", "jpeg", "gif", "webp", "svg")
_PROG = "prime-sessions"


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="prime-sessions-gui", description="Browse Prime Agent sessions.")
    parser.add_argument("path", nargs="?", type=Path, help="a session folder or a .jsonl session file")
    parser.add_argument(
        "--demo",
        action="store_true",
        help="open the demo sessions: your own copy in your data folder, made the first time (Help > "
        "Reset Demo Sessions makes it new); the shipped files are never changed",
    )
    checks = parser.add_mutually_exclusive_group()
    checks.add_argument(
        "--smoke-test",
        action="store_true",
        help="open the window on the demo sessions (or PATH) with a private catalogue, load a session, "
        "render a message and quit (exit code 0 on success)",
    )
    checks.add_argument(
        "--scripted-check",
        metavar="OUT",
        type=Path,
        help="as --smoke-test, then compare two leaves of a session and export it through the export dialog "
        "as HTML and PDF into the folder OUT, and quit (exit code 0 on success)",
    )
    checks.add_argument(
        "--new-window",
        action="store_true",
        help="open a window of its own even when one is running (the default hands PATH to that one)",
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


def main(argv: list[str] | None = None, *, leave_process: bool = False) -> int:
    """Run the app; returns the process exit code.

    With ``leave_process`` (the entry points), the process ends as soon as the window has closed, without
    waiting for cancelled work or tearing the interpreter down (:func:`gui.leaving.leave`).
    """
    args_in = sys.argv[1:] if argv is None else list(argv)
    checking = "--smoke-test" in args_in or any(a.startswith("--scripted-check") for a in args_in)
    if QApplication.instance() is None and _no_display() and not checking:
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

    if args.demo and args.path is not None:
        print(f"{_PROG}: give a folder or --demo, not both.", file=sys.stderr)
        return 2
    try:
        target = window_target(
            args.path, demo=args.demo, checking=args.smoke_test or bool(args.scripted_check)
        )
    except FileNotFoundError:
        print(f"prime-sessions-gui: {args.path}: no such folder or file", file=sys.stderr)
        return 2
    except PrimeSessionsError as err:
        print(f"{_PROG}: {err}", file=sys.stderr)
        return 1
    roots, open_path = _roots_and_file(target)

    if args.smoke_test or args.scripted_check is not None:
        return _check(app, roots, open_path, args.scripted_check)
    asked = str(target) if target is not None else None
    if not args.new_window:
        forwarded = forward_to_running(asked)
        if forwarded.delivered:  # the running window has it: no second window
            if not forwarded.ok:
                print(f"{_PROG}: {forwarded.sentence}", file=sys.stderr)
            return 0 if forwarded.ok else 1
    window = MainWindow(roots=roots, open_path=open_path)
    # Before the socket appears: a start that finds the socket may count on the window closing on SIGTERM.
    termination = close_on_termination(window)
    server = InstanceServer(lambda path: _open_in(window, path), parent=window)
    if not args.new_window:
        server.listen()  # False when another window listens already (started at the same moment)
    window.show()
    try:
        code = app.exec()
    finally:
        server.close()
        termination.restore()
    if leave_process:
        leave(code)  # the window has closed: nothing left is worth waiting for (gui.leaving)
    return code


def window_target(path: Path | None, *, demo: bool = False, checking: bool = False) -> Path | None:
    """What the window opens: the folder or file asked for, absolute; None for the session folders.

    The demo sessions (``--demo``, or the shipped ``resources/demo`` folder or one of its files named
    as ``path``) are always the user's own copy of them, made on first use (``core.writing.demo``): the
    shipped files are never edited. A check (``--smoke-test``) makes its own private copy, so the shipped
    folder is left to it.

    Raises:
        FileNotFoundError: ``path`` names neither a folder nor a file.
        PrimeSessionsError: the copy of the demo cannot be made (one sentence).
    """
    from core.writing import demo_copy, in_demo_copy

    if demo:
        return None if checking else demo_copy(DEMO_DIR)  # a check makes a private copy of its own
    if path is None:
        return None
    target = path.expanduser().resolve()
    if not target.exists():
        raise FileNotFoundError(target)
    if checking:
        return target
    return in_demo_copy(target, DEMO_DIR) or target


def _roots_and_file(target: Path | None) -> tuple[list[Path] | None, Path | None]:
    """The folders to list and the session file to show for :func:`window_target`'s answer."""
    if target is None:
        return None, None
    if target.is_dir():
        return [target], None
    return [target.parent], target


def run() -> int:
    """The ``prime-sessions-gui`` entry point: :func:`main`, and the process ends when the window closes."""
    return main(leave_process=True)


def _open_in(window: MainWindow, path: str | None) -> str | None:
    """Open what a later start of the app was given, in this window, and bring it to the front."""
    if path is not None and not window.files.open_path(path):
        return f"{path} is neither a folder nor a session file."
    window.setWindowState(window.windowState() & ~Qt.WindowState.WindowMinimized)
    window.show()
    window.raise_()
    window.activateWindow()
    return None


def _check(app: QCoreApplication, roots: list[Path] | None, open_path: Path | None, out: Path | None) -> int:
    """Run ``--smoke-test`` (``out`` None) or ``--scripted-check OUT`` (module docstring): the exit code."""
    if out is not None:
        out = out.expanduser().resolve()
        if not out.is_dir():
            return _smoke_failed(f"{out} is not a folder to export into.", _ScriptedRun.what)
    what = _SmokeRun.what if out is None else _ScriptedRun.what
    with tempfile.TemporaryDirectory(prefix="prime-sessions-smoke-") as private:
        # Settings too: the window saves its geometry on close, and the user's must stay as they are.
        settings = str(Path(private) / "settings")
        QSettings.setDefaultFormat(QSettings.Format.IniFormat)
        QSettings.setPath(QSettings.Format.IniFormat, QSettings.Scope.UserScope, settings)
        if roots is None:
            if not any(DEMO_DIR.glob("*.jsonl")):
                return _smoke_failed(f"The bundled demo sessions are missing from {DEMO_DIR}.", what)
            from core.errors import PrimeSessionsError
            from core.writing import demo_copy

            try:  # a private copy, as the window's demo link opens the user's: the bundle is never written
                roots = [demo_copy(DEMO_DIR, Path(private))]
            except PrimeSessionsError as err:
                return _smoke_failed(str(err), what)
        try:
            window = MainWindow(roots=roots, catalogue_dir=Path(private) / "catalogue", open_path=open_path)
        except Exception as err:
            return _smoke_failed(f"The window could not be built ({type(err).__name__}: {err}).", what)
        run = (
            _SmokeRun(window, roots, open_path)
            if out is None
            else _ScriptedRun(window, roots, open_path, out)
        )
        window.show()
        deadline = QTimer(window)  # never hang a build pipeline; goes away with the window
        deadline.setSingleShot(True)
        deadline.timeout.connect(run.timed_out)
        deadline.start(_SMOKE_TIMEOUT_MSECS)
        QGuiApplication.setQuitOnLastWindowClosed(True)
        app.exec()
        window.deleteLater()
        if run.failure is not None:
            return _smoke_failed(run.failure, run.what)
        if run.passed is None:
            return _smoke_failed(f"The window closed before the {run.what} finished.")
        print(run.passed)
        return 0


def _smoke_failed(sentence: str, what: str = "smoke test") -> int:
    print(f"{_PROG}: {what} failed: {sentence}", file=sys.stderr)
    return 1


class _SmokeRun:
    """The steps of ``--smoke-test`` on a shown window: list, load one session, render one message, close."""

    what = "smoke test"

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
        # An exception in a slot would only be printed by Qt; here it fails the check in one sentence.
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
        entry = next((e for e in candidates if e.role is not None), None)  # a message
        if entry is None:
            self.fail(f"{current.path} has no message to render.")
            return
        if not window.opened.reveal_entry(entry.id):
            self.fail(f"Message {entry.id} of {current.path} is not in the tree.")
            return
        transcript = window.transcript
        source, slot = transcript.card_source, transcript.current_slot
        shown = source.entry_id(slot) if source is not None and slot is not None else None
        card = transcript.span_range(slot) if slot is not None else None
        text = transcript.toPlainText().strip()
        if shown != entry.id or card is None or not text:
            self.fail(f"Message {entry.id} of {current.path} was not rendered in the transcript.")
            return
        title = current.name or Path(current.path).name
        self._rendered = f"{title!r} loaded ({len(current.entries)} entries), message {entry.id} rendered"
        self._finish_if_done()

    def _finish_if_done(self) -> None:
        if self._listed and self._rendered is not None:
            rows = self.window.list_model.rowCount()
            self.passed = f"Smoke test passed: {rows} sessions listed, {self._rendered}."
            QTimer.singleShot(0, self.window.close)


class _ScriptedRun(_SmokeRun):
    """``--scripted-check``: the smoke test's steps on a session with branches, then a diff and two exports.

    Sessions are loaded from the top of the list until one has two leaves; its leaves are compared in a
    diff window, then the session is exported through the export dialog, as HTML and then as PDF.
    """

    what = "scripted check"

    def __init__(self, window: MainWindow, roots: list[Path], open_path: Path | None, out: Path) -> None:
        super().__init__(window, roots, open_path)
        self.out = out
        self._row = 0
        self._session: Session | None = None
        self._steps: list[str] = []
        window.diff_controller.diff_opened.connect(self._guarded(self._on_diff_opened))
        window.diff_controller.diff_failed.connect(
            self._guarded(lambda s: self.fail(f"The diff failed: {s}"))
        )
        missing = [f for f in _IMAGE_FORMATS if f.encode() not in QImageReader.supportedImageFormats()]
        if missing:
            QTimer.singleShot(
                0, lambda: self.fail(f"Qt cannot read {', '.join(missing)} images (no plugin).")
            )

    def fail(self, sentence: str) -> None:
        """Record the first failure and close every window (a message box or the diff window too)."""
        if self.failure is None and self.passed is None:
            QTimer.singleShot(0, QApplication.closeAllWindows)
        super().fail(sentence)

    def _on_session_loaded(self, session: object) -> None:
        current = self.window.opened.session
        if self._session is not None or current is None:
            return  # a session is chosen: later loads (none are asked for) change nothing
        leaves = _leaves(current)
        if len(leaves) < 2:
            self._row += 1
            if self.open_path is not None or self._row >= self.window.proxy.rowCount():
                if self.open_path is not None:
                    self.fail(f"{current.path} has fewer than two leaves to compare.")
                else:
                    self.fail("No session in the list has two leaves to compare.")
            else:
                self.window.table.selectRow(self._row)
            return
        super()._on_session_loaded(session)
        if self._rendered is not None:
            self._session = current
            self._steps.append(f"leaves {leaves[0]} and {leaves[1]} compared")
            self.window.diff_controller.compare(current.path, leaves[0], current.path, leaves[1])

    def _finish_if_done(self) -> None:
        pass  # the steps go on from the diff window and the exports

    def _on_diff_opened(self, view: DiffWindow) -> None:
        diff = view.diff
        if not diff.rows:
            self.fail("The diff window shows no rows.")
            return
        self._steps[-1] += f" ({len(diff.rows)} diff rows)"
        view.close()
        self._export("html")

    def _export(self, fmt: str) -> None:
        session = self._session
        dialog = self.window.export_controller.open_dialog()
        if session is None or dialog is None:
            self.fail("The export dialog did not open.")
            return
        target = self.out / f"{Path(session.path).stem}.{fmt}"
        if target.exists():
            self.fail(f"{target} exists already; the check writes only new files.")
            return
        # A failure is shown in a message box, whose own event loop would hold the check until the deadline:
        # fail() closes every window, the box included.
        dialog.failed.connect(
            self._guarded(lambda sentence: self.fail(f"The {fmt.upper()} export failed: {sentence}"))
        )
        dialog.exported.connect(self._guarded(lambda path: self._exported(fmt, Path(path))))
        dialog.format_combo.setCurrentIndex(dialog.format_combo.findData(fmt))
        dialog.target_edit.setText(str(target))
        dialog.start_export()

    def _exported(self, fmt: str, path: Path) -> None:
        magic = {"html": b"<!DOCTYPE html>", "pdf": b"%PDF-"}[fmt]
        with path.open("rb") as file:
            start = file.read(len(magic))
        if start != magic:
            self.fail(f"{path} does not start as an {fmt.upper()} file should.")
            return
        self._steps.append(f"{path.name} exported ({path.stat().st_size:,} bytes)")
        if fmt == "html":
            self._export("pdf")
            return
        self._show_usage()

    def _show_usage(self) -> None:
        """Open the Usage window (Qt Charts in the bundle) and wait for its figures."""
        self.window.usage.figures_shown.connect(self._guarded(self._usage_shown))
        self.window.usage.show_window()

    def _usage_shown(self, figures: UsageFigures) -> None:
        usage = self.window.usage.window
        if usage is None or not usage.bars.bar_sets() or figures.totals.total_tokens <= 0:
            self.fail("The Usage window shows no usage.")
            return
        self._steps.append(f"the Usage window shown ({figures.totals.sessions} sessions with usage)")
        usage.close()
        rows = self.window.list_model.rowCount()
        self.passed = (
            f"Scripted check passed: {rows} sessions listed, {self._rendered}, {', '.join(self._steps)}."
        )
        QTimer.singleShot(0, self.window.close)


def _leaves(session: Session) -> list[str]:
    """The ids of the entries nothing hangs off (file order): the ends of the session's branches."""
    parents = {entry.parent_id for entry in session.entries}
    return [entry.id for entry in session.entries if entry.id not in parents and entry.role is not None]
