"""Handing memory the process freed back to the system, after the passes that free a lot of it.

A catalogue pass that read a 38 MB session in process, or a session load that replaced another, frees
tens of megabytes that the C allocator keeps for later: the window's resident size stayed 155 MiB after
such a pass where 118 MiB were in use (benchmarks/README.md, "Reopening a gigabyte session"). glibc's
``malloc_trim`` returns the free pages at the top of each heap and unused whole pages inside them. It walks
the heaps (milliseconds for hundreds of megabytes) with the interpreter lock released (a ctypes call), so it
runs in a short thread of its own, never on the GUI thread. Elsewhere than glibc it does nothing.
"""

from __future__ import annotations

import ctypes
import sys
import threading
import time

__all__ = ["give_back"]

_INTERVAL = 5.0  # seconds between two trims at most: a burst of loads or passes needs one
_last = 0.0
_trim: ctypes._NamedFuncPointer | None = None
_looked = False


def _malloc_trim() -> ctypes._NamedFuncPointer | None:
    global _looked, _trim
    if not _looked:
        _looked = True
        try:  # the process's own symbols: the C library it runs on (found the same way when frozen)
            _trim = ctypes.CDLL(None).malloc_trim if sys.platform.startswith("linux") else None
        except (OSError, AttributeError):  # not glibc (musl): nothing to do
            _trim = None
    return _trim


def give_back() -> bool:
    """Return freed memory to the system in a background thread; False when there is nothing to call."""
    global _last
    trim = _malloc_trim()
    now = time.monotonic()
    if trim is None or now - _last < _INTERVAL:
        return False
    _last = now
    threading.Thread(target=trim, args=(0,), name="malloc-trim", daemon=True).start()
    return True
