"""Summaries: compactions and branch summaries, as entries and as messages of those roles.

A compaction replaces the conversation before it (up to its kept range) with a summary; a branch
summary says what an abandoned branch did. Both may record what the summarising call cost (pi 1.6), and
a compaction may carry the system message in force (pi 1.6) and its instructions (Prime Agent).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from core.formatting import short_tokens
from core.kinds.common import message_ms, one_line
from core.kinds.conversation import system_blocks
from core.kinds.derived import DiffMessage, SearchWords
from core.kinds.document import NOTE, Block, Card, Markdown, Para
from core.kinds.kind import Kind
from core.kinds.wording import retained_text, usage_text
from core.session.content import as_number, as_text, message_of
from core.session.usage import BRANCH_SUMMARY_USAGE, COMPACTION_USAGE, MODEL_LESS, UsageSource
from core.session.vocabulary import (
    BRANCH_SUMMARY,
    BRANCH_SUMMARY_ROLE,
    COMPACTION,
    COMPACTION_SUMMARY_ROLE,
    spellings,
)

if TYPE_CHECKING:
    from collections.abc import Mapping

    from core.kinds.notes import EntryNotes
    from core.kinds.pairing import Results
    from core.session import Entry
    from core.session.content import Body

__all__ = ["BranchSummaryKind", "BranchSummaryMessageKind", "CompactionKind", "CompactionMessageKind"]


class _Summary(Kind):
    """What compactions and branch summaries share: the summary as Markdown, the call's cost, their notes."""

    family = "summary"
    in_diff = True
    usage_kind = ""  # the UsageSource kind of the entry form (the message forms record none)

    def source(self, body: Body) -> dict[str, object]:
        """Where the summary's fields are: the entry itself (the message form overrides this)."""
        return body

    def search_words(self, entry: Entry, body: Body) -> SearchWords | None:
        """The summary and its instructions."""
        source = self.source(body)
        parts = [
            text for key in ("summary", "customInstructions") if isinstance(text := source.get(key), str)
        ]
        return SearchWords(parts, self.name, ts_ms=message_ms(source) if source is not body else None)

    def diff_record(self, entry: Entry, body: Body, usage_override: dict[str, object] | None) -> DiffMessage:
        """The summary's text."""
        return DiffMessage(
            entry.id, entry.kind, self.name, text=as_text(self.source(body).get("summary")), ts_ms=entry.ts_ms
        )

    def usage_source(self, body: Mapping[str, object]) -> UsageSource | None:
        """What the summarising call cost, when the entry records it (pi 1.6)."""
        usage = body.get("usage")
        if not self.usage_kind or not isinstance(usage, dict):
            return None
        return UsageSource(self.usage_kind, usage, MODEL_LESS)

    def facts(self, entry: Entry, body: Body) -> tuple[str, ...]:
        """``compacted from 148,120 tokens``, ``summary by an extension``, ``summarised for ...``."""
        source = self.source(body)
        facts = []
        tokens = as_number(source.get("tokensBefore"))
        if tokens is not None:
            facts.append(f"compacted from {short_tokens(tokens)} tokens")
        if source.get("fromHook") is True:
            facts.append("summary by an extension")
        usage = usage_text(source.get("usage"))
        if usage:
            facts.append(f"summarised for {usage}")
        return tuple(facts)

    def card(
        self, entry: Entry, body: Body, results: Results | None = None, notes: EntryNotes | None = None
    ) -> Card:
        """What it keeps and its instructions, the summary, and the system message in force."""
        source = self.source(body)
        blocks: list[Block] = []
        if source is body and source.get("firstKeptEntryId") == entry.id:
            blocks.append(
                Para(("Keeps no earlier message: the model sees only the summary and what follows.",), NOTE)
            )
        kept = retained_text(source)
        if kept:
            blocks.append(Para((kept,), NOTE))
        instructions = as_text(source.get("customInstructions"))
        if instructions.strip():
            blocks.append(Para(("Instructions for the summary: " + instructions,), NOTE))
        summary = source.get("summary")
        if isinstance(summary, str) and summary.strip():
            blocks.append(Markdown(summary))
        else:
            blocks.append(Para(("(empty summary)",), NOTE))
        system = source.get("systemMessage")
        if isinstance(system, dict):
            from core.kinds.common import fold_key

            blocks.append(
                system_blocks(system, fold_key(entry.id, "system"), "System message at the compaction")
            )
        moment = source.get("timestamp") if source is not body else None
        return self.heading_card(entry, blocks, self.facts(entry, body), moment)


class CompactionKind(_Summary):
    """A compaction entry."""

    name = COMPACTION
    types = spellings(COMPACTION)
    title = "Compaction"
    usage_kind = COMPACTION_USAGE
    has_usage = True
    usage_in_body = True

    def preview(self, entry: Entry, body: Body, width: int = 100) -> str:
        """``[compaction: 148k tokens]``."""
        return f"[compaction: {short_tokens(as_number(self.source(body).get('tokensBefore')))} tokens]"


class CompactionMessageKind(CompactionKind):
    """A compaction summary as a message (``compactionSummary`` role, as the context holds it)."""

    name = COMPACTION_SUMMARY_ROLE
    types = ()
    roles = (COMPACTION_SUMMARY_ROLE,)
    title = "Compaction summary"
    usage_kind = ""  # the summarising call's cost is the entry's, not the message's
    has_usage = False
    usage_in_body = False

    def source(self, body: Body) -> dict[str, object]:
        """The message."""
        return message_of(body)


class BranchSummaryKind(_Summary):
    """A summary of an abandoned branch."""

    name = BRANCH_SUMMARY
    types = spellings(BRANCH_SUMMARY)
    title = "Branch summary"
    usage_kind = BRANCH_SUMMARY_USAGE
    has_usage = True
    usage_in_body = True

    def preview(self, entry: Entry, body: Body, width: int = 100) -> str:
        """``[branch summary] what the branch did``."""
        summary = self.source(body).get("summary")
        return one_line(f"[branch summary] {summary if isinstance(summary, str) else ''}", width).rstrip()


class BranchSummaryMessageKind(BranchSummaryKind):
    """A branch summary as a message (``branchSummary`` role)."""

    name = BRANCH_SUMMARY_ROLE
    types = ()
    roles = (BRANCH_SUMMARY_ROLE,)
    usage_kind = ""
    has_usage = False
    usage_in_body = False

    def source(self, body: Body) -> dict[str, object]:
        """The message."""
        return message_of(body)
