"""Entry point of the desktop app: ``python -m gui [FOLDER | FILE.jsonl] [--smoke-test]``."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from PySide6.QtCore import QCoreApplication, QTimer
from PySide6.QtWidgets import QApplication

from gui.main_window import APPLICATION, ORGANIZATION, MainWindow

__all__ = ["main"]

_SMOKE_TIMEOUT_MSECS = 120_000


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="prime-sessions-gui", description="Browse Prime Agent sessions.")
    parser.add_argument("path", nargs="?", type=Path, help="a session folder or a .jsonl session file")
    parser.add_argument(
        "--smoke-test",
        action="store_true",
        help="quit once the window is shown and the first refresh finished (exit code 0 on success)",
    )
    return parser


def main(argv: list[str] | None = None) -> int:
    """Run the app; returns the process exit code."""
    args_in = sys.argv[1:] if argv is None else list(argv)
    QCoreApplication.setOrganizationName(ORGANIZATION)
    QCoreApplication.setApplicationName(APPLICATION)
    app = QApplication.instance() or QApplication([sys.argv[0] if sys.argv else APPLICATION, *args_in])
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

    window = MainWindow(roots=roots, open_path=open_path)
    window.show()
    if not args.smoke_test:
        return app.exec()

    outcome = {"code": 1}

    def finished(ok: bool) -> None:
        outcome["code"] = 0 if ok else 1
        QTimer.singleShot(0, window.close)

    window.refresh_finished.connect(finished)
    QTimer.singleShot(_SMOKE_TIMEOUT_MSECS, window.close)  # never hang a build pipeline
    app.setQuitOnLastWindowClosed(True)
    app.exec()
    return outcome["code"]
