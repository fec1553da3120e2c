"""Opening one session after another frees the one before: no garbage is frozen for good.

The load freezes what it made (``gc.freeze()``), so that later full collections skip a big session's
objects. It used to unfreeze everything first and freeze again at once, with no collection between: a
garbage cycle an earlier session left (one holding that session) went back into the permanent generation,
where the collector never looks, and stayed there for as long as the window lived.
"""

from __future__ import annotations

import gc
import weakref
from pathlib import Path

from gui.main_window import MainWindow
from tests.gui.windows import open_session


def test_alternate_opens_free_the_sessions_before(qtbot, window: MainWindow, sessions: Path) -> None:
    files = sorted(sessions.glob("*.jsonl"))
    seen: list[weakref.ref[object]] = []
    for path in [files[0], files[1]] * 4:
        open_session(qtbot, window, path)
        seen.append(weakref.ref(window.opened.session))
    gc.collect()  # the garbage the collector can see goes: what is left lives, or is frozen for good
    alive = [i for i, ref in enumerate(seen) if ref() is not None]
    assert alive == [len(seen) - 1]  # only the session shown; before, every one opened
    gc.unfreeze()
    frozen_garbage = gc.collect()  # what the collector could not see
    gc.freeze()
    assert frozen_garbage <= 50  # 993 objects before, among them each session opened and its entries
