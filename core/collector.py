"""Pausing Python's cyclic garbage collector while a bulk read builds many objects that hold no cycles.

A session index is hundreds of thousands of small objects (entries, their ids, small records), none of
them in a reference cycle. Every 700 allocations the collector looks at the young ones, and now and
then at everything alive: on a 520,000-entry file that is 1.4 of 4.7 s of ``check``
(benchmarks/README.md, "Time and memory against session size"). Nothing is freed by it meanwhile, so
pausing it for the read loses nothing; collection resumes, where it was on, when the read ends.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["collection_paused"]


@contextmanager
def collection_paused() -> Iterator[None]:
    """Automatic cyclic collection off inside the block; on again after it if it was on before.

    The switch is process-wide. The GUI keeps automatic collection off while its workers run anyway
    (``gui.workers``), so a read in a worker finds it off and leaves it so.
    """
    was_on = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_on:
            gc.enable()
