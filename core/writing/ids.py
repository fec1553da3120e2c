"""Identifiers the way the reference makes them: 8-hex entry ids and UUIDv7 session ids."""

from __future__ import annotations

import os
import time
import uuid
from collections.abc import Container


def new_entry_id(taken: Container[str]) -> str:
    """A random 8-hex-digit id not in ``taken`` (the reference's ``generateId``, collision-checked)."""
    for _ in range(100):
        candidate = uuid.uuid4().hex[:8]
        if candidate not in taken:
            return candidate
    return str(uuid.uuid4())  # the reference's fallback after 100 collisions


def new_session_id() -> str:
    """A UUIDv7 string (time-ordered), as the reference uses for session ids."""
    ms = time.time_ns() // 1_000_000
    rand_a = int.from_bytes(os.urandom(2), "big") & 0x0FFF
    rand_b = int.from_bytes(os.urandom(8), "big") & ((1 << 62) - 1)
    value = ((ms & ((1 << 48) - 1)) << 80) | (0x7 << 76) | (rand_a << 64) | (0b10 << 62) | rand_b
    return str(uuid.UUID(int=value))
