"""What extensions add: messages (a ``custom_message`` entry, or a message of the ``custom`` role) and data.

A custom message may be hidden from the agent's screen (``display`` false) and still be sent to the
model; a ``custom`` entry is data an extension keeps for itself, never sent to the model.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from core.kinds.common import content_parts, diff_text, json_excerpt, message_ms, one_line
from core.kinds.derived import DiffMessage, SearchWords
from core.kinds.document import Card, Code
from core.kinds.kind import CUSTOM as CUSTOM_PART
from core.kinds.kind import DEFAULT_MODE, Kind
from core.kinds.prime_messages import NOT_SENT, prime_message, prime_preview
from core.kinds.wording import attribution_text
from core.session.content import as_text, joined_text, message_of, message_text
from core.session.vocabulary import CUSTOM, CUSTOM_MESSAGE, HOOK_MESSAGE, spellings

if TYPE_CHECKING:
    from core.kinds.notes import EntryNotes
    from core.kinds.pairing import Results
    from core.session import Entry
    from core.session.content import Body

__all__ = ["CustomMessageKind", "CustomRoleKind", "ExtensionDataKind"]

_HIDDEN = "hidden from the agent's screen"


class CustomMessageKind(Kind):
    """A ``custom_message`` entry: a message an extension added to the conversation."""

    name = CUSTOM_MESSAGE
    types = spellings(CUSTOM_MESSAGE)
    title = "Extension message"
    family = "custom"
    export_part = CUSTOM_PART
    in_diff = True

    def source(self, body: Body) -> dict[str, object]:
        """Where its fields are: the entry itself (the role form overrides this)."""
        return body

    def preview(self, entry: Entry, body: Body, width: int = 100) -> str:
        """``[customType] text`` (``(hidden)`` when the agent's screen hides it).

        Prime Agent's own message types say their title instead: ``[Compaction skipped] …``.
        """
        prime = prime_preview(body, width)
        if prime is not None:
            return prime
        hidden = "" if body.get("display") else " (hidden)"
        return one_line(f"[{body.get('customType')}{hidden}] {message_text(body.get('content'))}", width)

    def search_words(self, entry: Entry, body: Body) -> SearchWords | None:
        """Its text; its custom type as the "tool"."""
        custom_type = body.get("customType")
        tools = custom_type if isinstance(custom_type, str) else ""
        return SearchWords([joined_text(body.get("content"))], CUSTOM_MESSAGE, tools)

    def diff_record(self, entry: Entry, body: Body, usage_override: dict[str, object] | None) -> DiffMessage:
        """Its text and custom type."""
        custom_type = body.get("customType")
        return DiffMessage(
            entry.id,
            entry.kind,
            CUSTOM_MESSAGE,
            text=diff_text(body.get("content")),
            tool_name=custom_type if isinstance(custom_type, str) else None,
            ts_ms=entry.ts_ms,
        )

    def card(
        self, entry: Entry, body: Body, results: Results | None = None, notes: EntryNotes | None = None
    ) -> Card:
        """Its custom type (and whether the agent's screen hides it) in the heading; its content.

        Prime Agent's own message types (:mod:`core.kinds.prime_messages`) have their title, facts and
        blocks, made from their ``details``.
        """
        source = self.source(body)
        moment = source.get("timestamp") if source is not body else None
        made = _prime_card(self, entry, source, moment)
        if made is not None:
            return made
        facts = [as_text(source.get("customType")) or "custom"]
        if source.get("display") is not True:
            facts.append(_HIDDEN)
        started = attribution_text(source.get("attribution"))  # oh-my-pi's
        if started:
            facts.append(started)
        blocks = content_parts(source.get("content"), entry.id)
        return self.heading_card(entry, blocks, facts, moment)


def _prime_card(kind: Kind, entry: Entry, source: dict[str, object], moment: object) -> Card | None:
    """The card of one of Prime Agent's own message types, None for any other (or a wrong shape)."""
    shape = prime_message(source.get("customType"))
    if shape is None:
        return None
    details = source.get("details")
    if not isinstance(details, dict):
        return None
    blocks = shape.blocks(entry, source.get("content"), details)
    if blocks is None:
        return None
    facts = shape.facts(details)
    if not shape.sent:
        facts.append(NOT_SENT)
    if source.get("display") is not True:
        facts.append(_HIDDEN)
    return kind.heading_card(entry, blocks, facts, moment, title=shape.heading(details))


class CustomRoleKind(CustomMessageKind):
    """A message of the ``custom`` role (``hookMessage`` before version 3): an extension's message."""

    name = CUSTOM
    types = ()
    roles = (CUSTOM, HOOK_MESSAGE)

    def source(self, body: Body) -> dict[str, object]:
        """The message."""
        return message_of(body)

    def preview(self, entry: Entry, body: Body, width: int = 100) -> str:
        """``[customType] text`` (Prime Agent's own types by their title)."""
        message = message_of(body)
        prime = prime_preview(message, width)
        if prime is not None:
            return prime
        return one_line(
            f"[{message.get('customType', 'custom')}] {message_text(message.get('content'))}", width
        )

    def search_words(self, entry: Entry, body: Body) -> SearchWords | None:
        """Its text."""
        message = message_of(body)
        return SearchWords(
            [joined_text(message.get("content"))], entry.role or CUSTOM, ts_ms=message_ms(message)
        )

    def diff_record(self, entry: Entry, body: Body, usage_override: dict[str, object] | None) -> DiffMessage:
        """Its text."""
        content = message_of(body).get("content")
        return DiffMessage(
            entry.id, entry.kind, entry.role or CUSTOM, text=diff_text(content), ts_ms=entry.ts_ms
        )


class ExtensionDataKind(Kind):
    """A ``custom`` entry: an extension's own data, never sent to the model (shown as its JSON)."""

    name = CUSTOM
    types = spellings(CUSTOM)
    title = "Extension data"
    family = "custom"
    hidden_in = frozenset({DEFAULT_MODE})
    export_part = CUSTOM_PART

    def preview(self, entry: Entry, body: Body, width: int = 100) -> str:
        """``[custom: customType]``."""
        return f"[custom: {body.get('customType')}]"

    def card(
        self, entry: Entry, body: Body, results: Results | None = None, notes: EntryNotes | None = None
    ) -> Card:
        """Its custom type, and its data as JSON."""
        facts = (as_text(body.get("customType")) or "custom", "extension data, not sent to the model")
        blocks = (Code(json_excerpt(body.get("data")), "json"),) if "data" in body else ()
        return self.heading_card(entry, blocks, facts)
