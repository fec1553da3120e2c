"""A status line redrawn in place on a terminal, and the catalogue pass's progress bar drawn on it."""

from __future__ import annotations

import sys


class StatusLine:
    """One line redrawn in place on a terminal's stderr, at most ten times a second.

    Nothing is written when stderr is not a terminal: a pipe or a log gets no carriage returns.
    """

    def __init__(self) -> None:
        self.enabled = sys.stderr.isatty()
        self._last = 0.0
        self._shown = False

    def show(self, text: str, final: bool = False) -> None:
        """Draw ``text`` over the line, unless one was drawn under 0.1 s ago (``final`` always draws)."""
        import time

        now = time.monotonic()
        if not self.enabled or (not final and self._shown and now - self._last < 0.1):
            return
        self._last = now
        self._shown = True
        sys.stderr.write(f"\r{text}")
        sys.stderr.flush()

    def finish(self) -> None:
        """End the line, if anything was drawn."""
        if self._shown:
            sys.stderr.write("\n")
            sys.stderr.flush()


class ProgressBar(StatusLine):
    """A catalogue pass as ``[####    ] 12/40 files  3.1/9.9 MB`` (a progress callback for a refresh)."""

    def __call__(self, files_done: int, files_total: int, bytes_done: int, bytes_total: int) -> None:
        """Draw the pass's progress (the last file's is always drawn)."""
        share = bytes_done / bytes_total if bytes_total else 1.0
        bar = "#" * int(share * 30)
        sizes = f"{bytes_done / 1e6:,.1f}/{bytes_total / 1e6:,.1f} MB"
        self.show(f"[{bar:<30}] {files_done}/{files_total} files  {sizes}", final=files_done >= files_total)
