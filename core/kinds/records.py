"""Records of pi 1.x and Prime Agent that are not conversation.

pi 1.x's usage outside the conversation and context edits; Prime Agent's child-run usage, session
state, agent status and git snapshots.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from core.formatting import short_cost
from core.kinds.common import content_parts, diff_text, one_line
from core.kinds.derived import DiffMessage, SearchWords
from core.kinds.document import NOTE, Block, Card, Para, code, entry_link
from core.kinds.kind import BOOKKEEPING, Kind
from core.kinds.wording import (
    agent_status_text,
    child_usage_text,
    git_text,
    session_state_text,
    usage_entry_text,
)
from core.session.content import as_dict, as_number, as_text, joined_text, message_text
from core.session.usage import USAGE_RECORD, UsageSource, model_key, usage_totals
from core.session.vocabulary import (
    AGENT_STATUS,
    CHILD_USAGE_ATTRIBUTED,
    CONTEXT_EDIT,
    GIT_STATE,
    SESSION_STATE,
    USAGE,
    spellings,
)

if TYPE_CHECKING:
    from collections.abc import Mapping

    from core.kinds.notes import EntryNotes
    from core.kinds.pairing import Results
    from core.session import Entry
    from core.session.content import Body

__all__ = [
    "AgentStatusKind",
    "ChildUsageKind",
    "ContextEditKind",
    "GitStateKind",
    "SessionStateKind",
    "UsageKind",
]


def _fields(obj: object, *keys: str) -> list[str]:
    """The string values of ``keys`` in a JSON object (nothing for anything else)."""
    if not isinstance(obj, dict):
        return []
    return [text for key in keys if isinstance(text := obj.get(key), str)]


class UsageKind(Kind):
    """pi 1.x's usage record: what a call outside the conversation cost (a cache warm-up...)."""

    name = USAGE
    types = spellings(USAGE)
    title = "Usage record"
    export_part = BOOKKEEPING
    in_diff = True
    has_usage = True
    usage_in_body = True

    def preview(self, entry: Entry, body: Body, width: int = 100) -> str:
        """``[usage: cache_warm · claude-opus-4-5 · $0.0361]``."""
        parts = [as_text(body.get("kind")) or "usage", as_text(body.get("model"))]
        cost = as_number(as_dict(as_dict(body.get("usage")).get("cost")).get("total"))
        parts.append(short_cost(cost) if cost is not None else "")
        return one_line(f"[usage: {' · '.join(p for p in parts if p)}]", width)

    def search_words(self, entry: Entry, body: Body) -> SearchWords | None:
        """Its note."""
        return SearchWords(_fields(body, "note"), USAGE)

    def diff_record(self, entry: Entry, body: Body, usage_override: dict[str, object] | None) -> DiffMessage:
        """Its kind and note, the model, tokens and cost."""
        maker, model_id = as_text(body.get("provider")), as_text(body.get("model"))
        tokens, cost = usage_totals(body.get("usage"))
        words = " · ".join(part for part in (as_text(body.get("kind")), as_text(body.get("note"))) if part)
        name = (f"{maker}/{model_id}" if maker else model_id) or None
        return DiffMessage(
            entry.id, entry.kind, USAGE, text=words, model=name, tokens=tokens, cost=cost, ts_ms=entry.ts_ms
        )

    def usage_source(self, body: Mapping[str, object]) -> UsageSource | None:
        """Its usage, billed to the model it names."""
        usage = body.get("usage")
        if not isinstance(usage, dict):
            return None
        return UsageSource(USAGE_RECORD, usage, model_key(body.get("provider"), body.get("model")))

    def card(
        self, entry: Entry, body: Body, results: Results | None = None, notes: EntryNotes | None = None
    ) -> Card:
        """``Usage record: cache_warm · anthropic/claude-opus-4-5 · 3.8k in · $0.0361 · note``."""
        note = as_text(body.get("note"))
        return self.line_card(
            entry, ("Usage record: " + usage_entry_text(body) + (" · " + note if note.strip() else ""),)
        )


class ContextEditKind(Kind):
    """pi 1.x's context edit: replaces or drops an earlier entry's content in what the model sees later."""

    name = CONTEXT_EDIT
    types = spellings(CONTEXT_EDIT)
    title = "Context edit"
    family = "summary"
    in_diff = True

    def preview(self, entry: Entry, body: Body, width: int = 100) -> str:
        """``[context edit: drop ID]`` or ``[context edit: replace ID] new text``."""
        target = body.get("targetId")
        replacement = body.get("replacement")
        if replacement is None:
            return f"[context edit: drop {target}]"
        text = message_text(as_dict(replacement).get("content"))
        return one_line(f"[context edit: replace {target}] {text}", width).rstrip()

    def search_words(self, entry: Entry, body: Body) -> SearchWords | None:
        """The replacement's text."""
        return SearchWords([joined_text(as_dict(body.get("replacement")).get("content"))], CONTEXT_EDIT)

    def diff_record(self, entry: Entry, body: Body, usage_override: dict[str, object] | None) -> DiffMessage:
        """``drops ID`` or ``replaces ID: new text``."""
        target = as_text(body.get("targetId")) or "?"
        replacement = body.get("replacement")
        if replacement is None:
            text = f"drops {target}"
        else:
            text = f"replaces {target}: {diff_text(as_dict(replacement).get('content'))}"
        return DiffMessage(entry.id, entry.kind, CONTEXT_EDIT, text=text, ts_ms=entry.ts_ms)

    def card(
        self, entry: Entry, body: Body, results: Results | None = None, notes: EntryNotes | None = None
    ) -> Card:
        """Which entry it changes, how, and the new content."""
        target = entry_link(as_text(body.get("targetId")) or "?")
        replacement = body.get("replacement")
        if replacement is None:
            blocks: list[Block] = [Para(("Drops entry ", target, " from what the model sees from here on."))]
        else:
            words = ("Replaces the content of entry ", target, " in what the model sees from here on with:")
            content = content_parts(as_dict(replacement).get("content"), entry.id)
            blocks = [Para(words), *(content or [Para(("(empty content)",), NOTE)])]
        return self.heading_card(entry, blocks)


class ChildUsageKind(Kind):
    """Prime Agent's child-run usage, added to the assistant message that started the child."""

    name = CHILD_USAGE_ATTRIBUTED
    types = spellings(CHILD_USAGE_ATTRIBUTED)
    title = "Child run usage"
    export_part = BOOKKEEPING
    attributes_usage = True

    def preview(self, entry: Entry, body: Body, width: int = 100) -> str:
        """``[child usage → ID: $0.0019]``."""
        cost = as_number(as_dict(as_dict(body.get("childUsage")).get("cost")).get("total"))
        return f"[child usage → {body.get('targetId')}{': ' + short_cost(cost) if cost is not None else ''}]"

    def card(
        self, entry: Entry, body: Body, results: Results | None = None, notes: EntryNotes | None = None
    ) -> Card:
        """``Child run usage added to ID: spawn task · child 11k in · $0.0019 · message now $0.0090``."""
        target = entry_link(as_text(body.get("targetId")) or "?")
        return self.line_card(entry, ("Child run usage added to ", target, ": " + child_usage_text(body)))


class SessionStateKind(Kind):
    """Prime Agent's lifecycle state of the session (active, archived, crash)."""

    name = SESSION_STATE
    types = spellings(SESSION_STATE)
    title = "Session state"
    export_part = BOOKKEEPING

    def preview(self, entry: Entry, body: Body, width: int = 100) -> str:
        """``[session state: archived]``."""
        return f"[session state: {session_state_text(body)}]"

    def card(
        self, entry: Entry, body: Body, results: Results | None = None, notes: EntryNotes | None = None
    ) -> Card:
        """``Session state: archived``."""
        return self.line_card(entry, ("Session state: ", code(session_state_text(body))))


class AgentStatusKind(Kind):
    """Prime Agent's short status of the agent (what its agents view shows)."""

    name = AGENT_STATUS
    types = spellings(AGENT_STATUS)
    title = "Agent status"
    export_part = BOOKKEEPING

    def preview(self, entry: Entry, body: Body, width: int = 100) -> str:
        """``[agent status: needs input] summary``."""
        agent = agent_status_text(body)
        head = f"[agent status: {agent.task}]" if agent.task else "[agent status]"
        return one_line(f"{head} {agent.summary}", width).rstrip()

    def search_words(self, entry: Entry, body: Body) -> SearchWords | None:
        """Its summary."""
        return SearchWords(_fields(body.get("status"), "summary"), AGENT_STATUS)

    def card(
        self, entry: Entry, body: Body, results: Results | None = None, notes: EntryNotes | None = None
    ) -> Card:
        """``Agent status (needs input · after 12 messages): summary``."""
        status = agent_status_text(body)
        facts = f" ({' · '.join(status.facts)})" if status.facts else ""
        return self.line_card(entry, (f"Agent status{facts}: " + (status.summary or "(none)"),))


class GitStateKind(Kind):
    """Prime Agent's snapshot of the repository: branch, commit, remote."""

    name = GIT_STATE
    types = spellings(GIT_STATE)
    title = "Git"
    export_part = BOOKKEEPING

    def preview(self, entry: Entry, body: Body, width: int = 100) -> str:
        """``[git: branch main · commit 141986b61970 · URL]``."""
        return one_line(f"[git: {git_text(body.get('git'))}]", width)

    def search_words(self, entry: Entry, body: Body) -> SearchWords | None:
        """The branch and the repository's address."""
        return SearchWords(_fields(body.get("git"), "branch", "repoUrl"), GIT_STATE)

    def card(
        self, entry: Entry, body: Body, results: Results | None = None, notes: EntryNotes | None = None
    ) -> Card:
        """``Git: branch main · commit 141986b61970 · URL``."""
        return self.line_card(entry, ("Git: " + git_text(body.get("git")),))
