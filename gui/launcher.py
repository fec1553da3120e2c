"""``prime-sessions``: the command-line tool, or the window when started without a command.

Only :mod:`core.cli` is imported here; PySide6 is imported only when the window is opened, so every CLI
command keeps starting fast and works where Qt is not available.
"""

from __future__ import annotations

import multiprocessing
import os
import sys
from collections.abc import Sequence

import core.cli
from core.cli.program import COMMANDS

__all__ = ["main", "wants_window"]


# The window's own options (gui.app): with one of them, the arguments are the window's, not a command's.
_WINDOW_OPTIONS = ("--smoke-test", "--scripted-check", "--new-window", "--demo")


def wants_window(argv: Sequence[str]) -> bool:
    """Whether ``argv`` asks for the window rather than a CLI command."""
    if not argv or any(arg.split("=", 1)[0] in _WINDOW_OPTIONS for arg in argv):
        return True
    first = argv[0]
    if first.startswith("-") or first in COMMANDS:
        return False
    return os.path.exists(os.path.expanduser(first))


def main(argv: Sequence[str] | None = None) -> int:
    """Open the window (no arguments, a folder or a ``.jsonl`` file) or run a CLI command."""
    # In the frozen bundle, a catalogue reader process (core.catalogue.pool) starts this same
    # binary; PyInstaller's freeze_support turns it into the worker and never returns there.
    multiprocessing.freeze_support()
    args = list(sys.argv[1:] if argv is None else argv)
    if wants_window(args):
        from gui.app import main as app_main

        return app_main(args, leave_process=argv is None)  # a test calling main() keeps its process
    if args[0] == "export":  # the only command that may need Qt; the others need not import it
        from core.cli import export as export_command

        export_command.pdf_writer = _pdf_writer  # PDF export needs Qt, which core must not import
    return core.cli.main(args)


def _pdf_writer(markdown: str, title: str) -> bytes:
    """``gui.pdf_export.markdown_to_pdf``, imported only when a PDF is asked for (Qt loads slowly)."""
    try:
        from gui.pdf_export import markdown_to_pdf
    except ImportError as err:
        from core.errors import InvalidRequestError

        raise InvalidRequestError(f"PDF export needs the Qt libraries, which cannot load ({err}).") from err
    # A long conversation makes thousands of pages (20 s or more): on a terminal, say how far it is.
    line = core.cli.StatusLine()

    def progress(stage: str, done: int, total: int) -> None:
        text = "Laying out the PDF…" if stage == "layout" else f"Page {done:,} of {total:,}"
        line.show(f"{text:<30}", final=stage == "layout" or done == total)

    try:
        return markdown_to_pdf(markdown, title, progress if line.enabled else None)
    finally:
        line.finish()


if __name__ == "__main__":
    sys.exit(main())
