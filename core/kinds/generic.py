"""The kind of an entry whose type nobody declared: its type and time, the words saying so, its JSON."""

from __future__ import annotations

from typing import TYPE_CHECKING

from core.kinds.common import raw_json
from core.kinds.document import NOTE, Card, Para
from core.kinds.kind import Kind
from core.kinds.wording import GENERIC_MARK

if TYPE_CHECKING:
    from core.kinds.notes import EntryNotes
    from core.kinds.pairing import Results
    from core.session import Entry
    from core.session.content import Body

__all__ = ["GenericKind"]


class GenericKind(Kind):
    """An entry of a type this app does not know: kept, shown as ``[type]`` with its JSON folded away."""

    name = "entry"
    title = "Entry"
    family = "meta"
    known = False

    def card(
        self, entry: Entry, body: Body, results: Results | None = None, notes: EntryNotes | None = None
    ) -> Card:
        """``[type]``, the words for an unknown kind, and the JSON on request."""
        words = Para((GENERIC_MARK[0].upper() + GENERIC_MARK[1:] + ".",), NOTE)
        return self.heading_card(entry, (words, raw_json(entry, body)), title=f"[{entry.type or 'entry'}]")
