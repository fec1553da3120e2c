"""Freed memory goes back to the system after the passes that free a lot of it (issue 27)."""

from __future__ import annotations

import threading

import pytest

import gui.memory as memory


def _resident_mib() -> float:
    with open("/proc/self/statm") as handle:
        return int(handle.read().split()[1]) * 4096 / 2**20


def _trimmed() -> None:
    for thread in threading.enumerate():
        if thread.name == "malloc-trim":
            thread.join()


@pytest.mark.skipif(memory._malloc_trim() is None, reason="not glibc: nothing to hand back")
def test_memory_a_pass_freed_goes_back_to_the_system_once_in_a_while(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(memory, "_last", 0.0)
    _trimmed()
    blocks = [bytes(2000) for _ in range(60_000)]  # 120 MB through malloc, like a parse's line copies
    kept = blocks[::50]  # what lives on, scattered through the heap: its top cannot shrink by itself
    del blocks
    before = _resident_mib()
    assert memory.give_back()
    _trimmed()
    assert before - _resident_mib() > 60  # most of the 117 MB freed is the system's again
    assert not memory.give_back()  # not twice in a burst of passes
    assert len(kept) == 1200
