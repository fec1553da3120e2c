"""What a kind of entry declares, and the defaults a kind without anything special gets.

A kind is one class here, instantiated once in :mod:`core.kinds.registry`. It says which entries it is
(type names with their variant spellings, or message roles), how the tree and the exports treat them
(filter modes, export options, icon), and what each derived view of such an entry is: its one-line
preview, the words the catalogue indexes, its diff record, where it records usage, and its card of
blocks (:mod:`core.kinds.document`). Every method takes the entry's index record and its body (the JSON
object of its line), and none raises on a body of the wrong shape: a field of an unexpected type is
left out.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from core.kinds.common import one_line
from core.kinds.derived import DiffMessage, SearchWords
from core.kinds.document import Block, Card, Inline, Para

if TYPE_CHECKING:
    from collections.abc import Mapping

    from core.kinds.notes import EntryNotes
    from core.kinds.pairing import Results
    from core.kinds.touches import Touch
    from core.session import Entry
    from core.session.content import Body
    from core.session.usage import UsageSource

__all__ = ["BOOKKEEPING", "CUSTOM", "DEFAULT_MODE", "NO_TOOLS_MODE", "TOOLS", "Kind"]

# The filter modes a kind may be hidden in (the others look at labels or at user turns; core.visible).
DEFAULT_MODE = "default"
NO_TOOLS_MODE = "no-tools"
# The export options that keep a kind (core.export.common.ExportOptions).
TOOLS = "tools"
CUSTOM = "custom"
BOOKKEEPING = "bookkeeping"


class Kind:
    """One kind of entry. Subclasses set the class attributes and override what they show differently.

    Attributes:
        name: the kind's name: the message role for a message kind (``user``, ``toolResult``), else the
            entry type (``compaction``). The tree's kind column and icon key show it.
        types: the entry types it stands for: the canonical name first, then variant spellings.
        roles: for a message kind, the message roles it stands for (``types`` is then empty).
        title: the heading of its card.
        family: how its card and row are styled: ``user``, ``assistant``, ``tool``, ``bash``, ``custom``,
            ``summary``, ``meta`` or ``other``.
        icon: the colour key of its icon in the tree (its family unless set).
        hidden_in: the filter modes that hide it (:data:`DEFAULT_MODE`, :data:`NO_TOOLS_MODE`).
        user_turn: the "User messages" filter shows it and Alt+Up/Down step to it.
        turn: a turn of the conversation (what the user said, what the model answered): a transcript
            opens at the last one.
        activity: its time is the conversation's: a session's durations, first and last entries count it.
            False for labels and names, which may be appended long after (by this app, months later).
        export_part: the export option that keeps it (:data:`TOOLS`, :data:`CUSTOM`,
            :data:`BOOKKEEPING`), ``""`` when it is always exported.
        in_diff: a branch diff compares it (it holds what the model saw or what was spent).
        has_usage: it may record usage (:meth:`usage_source` may find some).
        usage_in_body: the usage it records is only in its body (the index keeps an assistant's).
        attributes_usage: it gives a child run's usage to another entry (Prime Agent's attribution).
        shown_under_call: it answers a tool call and is shown under it (a tool result).
        touches_files: its entries may name files a tool read, edited, wrote or ran on (:meth:`touches`).
        known: False only for the generic kinds of entries nobody declared.
    """

    name: ClassVar[str] = "entry"
    types: ClassVar[tuple[str, ...]] = ()
    roles: ClassVar[tuple[str, ...]] = ()
    title: ClassVar[str] = "Entry"
    family: ClassVar[str] = "meta"
    icon: ClassVar[str] = ""
    hidden_in: ClassVar[frozenset[str]] = frozenset()
    user_turn: ClassVar[bool] = False
    turn: ClassVar[bool] = False
    activity: ClassVar[bool] = True
    export_part: ClassVar[str] = ""
    in_diff: ClassVar[bool] = False
    has_usage: ClassVar[bool] = False
    usage_in_body: ClassVar[bool] = False
    attributes_usage: ClassVar[bool] = False
    shown_under_call: ClassVar[bool] = False
    touches_files: ClassVar[bool] = False
    known: ClassVar[bool] = True

    def __repr__(self) -> str:
        return f"<kind {self.name}>"

    @property
    def icon_key(self) -> str:
        """The colour key of the tree's icon."""
        return self.icon or self.family

    # ----------------------------------------------------------------- derived views
    def preview(self, entry: Entry, body: Body, width: int = 100) -> str:
        """A one-line description, as the reference's tree shows it (``[compaction: 148k tokens]``)."""
        return one_line(f"[{entry.type or 'entry'}]", width)

    def search_words(self, entry: Entry, body: Body) -> SearchWords | None:
        """The words the catalogue indexes for the entry, None when it holds none worth searching."""
        return None

    def diff_record(self, entry: Entry, body: Body, usage_override: dict[str, object] | None) -> DiffMessage:
        """The entry as a branch diff compares it (only asked of kinds with :attr:`in_diff`).

        Args:
            entry: the entry.
            body: its body.
            usage_override: the aggregate usage a child run attributed to it (Prime Agent), or None.
        """
        return DiffMessage(entry.id, entry.kind, self.name, ts_ms=entry.ts_ms)

    def usage_source(self, body: Mapping[str, object]) -> UsageSource | None:
        """Where the entry records usage (see :mod:`core.session.usage`), None when it records none."""
        return None

    def touches(self, entry: Entry, body: Body) -> list[Touch]:
        """The files the entry's tool calls or commands touched, in order (:mod:`core.kinds.touches`).

        Only asked of kinds with :attr:`touches_files`.
        """
        return []

    def card(
        self,
        entry: Entry,
        body: Body,
        results: Results | None = None,
        notes: EntryNotes | None = None,
    ) -> Card:
        """The entry's card: its heading and blocks (see :mod:`core.kinds.document`).

        Args:
            entry: the entry.
            body: its body.
            results: for an assistant message, toolCallId -> the body of the toolResult entry answering
                it (None when nobody looked, ``{}`` when none was found).
            notes: what other entries say about this one (context edits, child runs), or None.
        """
        return self.heading_card(entry, (), self.facts(entry, body))

    # ----------------------------------------------------------------- helpers for subclasses
    def facts(self, entry: Entry, body: Body) -> tuple[str, ...]:
        """What the heading says besides the title and the time."""
        return ()

    def heading_card(
        self,
        entry: Entry,
        blocks: tuple[Block, ...] | list[Block],
        facts: tuple[str, ...] | list[str] = (),
        moment: object = None,
        title: str | None = None,
        model: str = "",
    ) -> Card:
        """A card with a heading (the title, ``facts`` and the time) above ``blocks``.

        Args:
            entry: the entry.
            blocks: the content.
            facts: what the heading says besides the title and time.
            moment: a message's own ms timestamp (``message.timestamp``); the entry's time when absent.
            title: the heading's title; the kind's :attr:`title` when None.
            model: the model that wrote it (an assistant reply), else ``""``.
        """
        if type(moment) is not int and type(moment) is not float:  # a message's own ms time, or the entry's
            moment = entry.ts_ms
        return Card(
            entry,
            self.name,
            self.family,
            self.title if title is None else title,
            facts if type(facts) is tuple else tuple(facts),
            moment,
            blocks if type(blocks) is tuple else tuple(blocks),
            None,
            model,
        )

    def line_card(self, entry: Entry, line: Inline, blocks: tuple[Block, ...] = ()) -> Card:
        """A one-line card (a setting changed, a label set), shown with the entry's time."""
        return Card(entry, self.name, self.family, "", (), entry.ts_ms, (Para(line), *blocks), line)
