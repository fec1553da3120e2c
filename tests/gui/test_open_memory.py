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

import pytest

from gui.controllers import opened
from gui.main_window import MainWindow
from tests.gui.windows import open_session


@pytest.mark.parametrize("small", [True, False], ids=["frozen-walked", "frozen-left"])
def test_alternate_opens_free_the_sessions_before(
    qtbot, window: MainWindow, sessions: Path, monkeypatch: pytest.MonkeyPatch, small: bool
) -> None:
    """Both ways: frozen objects few enough to walk before a load (small sessions), or too many (big ones)."""
    monkeypatch.setattr(opened, "_WALK_FROZEN_ENTRIES", 10**9 if small else -1)
    files = sorted(sessions.glob("*.jsonl"))
    _collect_frozen()  # what earlier tests left frozen is not this test's
    seen: list[weakref.ref[object]] = []
    for path in [files[0], files[1]] * 4:
        open_session(qtbot, window, path)
        seen.append(weakref.ref(window.opened.session))
    gc.collect()  # the garbage the collector can see goes: what is left lives, or is frozen for good
    alive = [i for i, ref in enumerate(seen) if ref() is not None]
    assert alive == [len(seen) - 1]  # only the session shown; before, every one opened
    frozen_garbage = _collect_frozen()  # what the collector could not see
    assert frozen_garbage <= 50  # 993 objects before, among them each session opened and its entries


def _collect_frozen() -> int:
    """Collect the garbage of the permanent generation (the rest first); returns how much there was."""
    gc.collect()
    gc.unfreeze()
    found = gc.collect()
    gc.freeze()
    return found
