"""Session entries as :class:`~core.diff.types.DiffMessage` records, for the branch diff.

A record holds the visible text, the tool calls (arguments flattened to ``key: value`` lines), a tool
result's or command's output, the model, stop reason and usage: what each kind of entry says it is in a
diff (``Kind.diff_record``, :mod:`core.kinds`). The diff compares the kinds that hold what the model saw
or what was spent (``Kind.in_diff``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from core.diff.types import DiffMessage
from core.kinds.registry import kind_of

if TYPE_CHECKING:
    from core.session import Entry, Session

__all__ = ["compared", "messages"]


def compared(entry: Entry) -> bool:
    """Whether a branch diff compares ``entry`` (messages, summaries, extension messages, usage, edits)."""
    return kind_of(entry).in_diff


def messages(session: Session, entries: list[Entry]) -> list[DiffMessage]:
    """The diff records of ``entries`` (content entries of ``session``), their bodies read in one pass."""
    if not entries:
        return []
    overrides = session.usage_overrides
    return [
        kind_of(entry).diff_record(entry, body if isinstance(body, dict) else {}, overrides.get(entry.id))
        for entry, body in zip(entries, session.bodies(entries), strict=True)
    ]
