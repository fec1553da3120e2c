"""Prime Agent's own extension messages: eight ``customType`` values, each with a card of its own.

Prime Agent (``packages/coding-agent/src/core/messages.ts``) writes these as ``custom_message`` entries
(``appendCustomMessageEntry``: ``customType``, ``content``, ``display``, ``details``), so on disk they are
extension messages; its own screen draws each with a card of its own, from ``details``:

==============================  ===============================================  ===================
customType                      details                                          sent to the model
==============================  ===============================================  ===================
``heartbeat_prompt``            jobId, schedule, status, runCount, next/lastRun  yes (the prompt)
``ipython_state_restored``      restored                                         yes
``session_slash_command``       command {name, args, text}, commandEntryId?      no
``session_slash_command_result`` command, success, severity, error?               no
``compaction_outcome``          reason (threshold/overflow/requested), outcome   no
                                (skipped/cancelled/failed)
``refinement_outcome``          refinementId, summary, scope, rollbackOf?, edits  no
``rlm_child_failure``           childId, sessionName, error                      yes
``rlm_child_terminal_notice``   kind (cancelled/completed_without_reply),        yes
                                childId, sessionName, reason? / last text?
==============================  ===============================================  ===================

(Prime Agent's ``convertToLlm`` drops the four marked "no" before a request.) A message whose
``details`` are not of its shape is shown as any extension message is (its content): Prime Agent's own
screen does the same. :func:`prime_card` is what :class:`core.kinds.extensions.CustomMessageKind` asks.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import TYPE_CHECKING, ClassVar

from core.kinds.common import content_parts, one_line
from core.kinds.document import (
    ERROR,
    NOTE,
    WARN,
    Block,
    Bullets,
    Inline,
    Markdown,
    Para,
    Span,
    Table,
    bold,
    code,
    entry_link,
)
from core.session.content import as_dict, as_number, as_text, message_text
from core.timefmt import js_date_ms

if TYPE_CHECKING:
    from core.session import Entry

__all__ = ["NOT_SENT", "PRIME_MESSAGES", "PrimeMessage", "prime_message", "prime_preview"]

NOT_SENT = "not sent to the model"
"""The fact of the four messages Prime Agent keeps from the model."""


class PrimeMessage:
    """One of Prime Agent's message types: its title, its facts and its blocks, made from ``details``.

    Attributes:
        custom_type: the ``customType`` it stands for.
        title: its card's title.
        sent: Prime Agent sends it to the model (``convertToLlm`` keeps it).
    """

    custom_type: ClassVar[str] = ""
    title: ClassVar[str] = ""
    sent: ClassVar[bool] = True

    def heading(self, details: dict[str, object]) -> str:
        """The card's title for these details (a few types say their outcome in it)."""
        return self.title

    def facts(self, details: dict[str, object]) -> list[str]:
        """What the heading says besides the title and time."""
        return []

    def blocks(self, entry: Entry, content: object, details: dict[str, object]) -> list[Block] | None:
        """The card's blocks; None when ``details`` are not of this type's shape."""
        return content_parts(content, entry.id)

    def preview(self, content: object, details: dict[str, object]) -> str:
        """The words after ``[title]`` in the tree's one-line preview."""
        return message_text(content)


class HeartbeatPrompt(PrimeMessage):
    """A scheduled job's prompt, sent as the user's next turn (``/loop``, heartbeats)."""

    custom_type = "heartbeat_prompt"
    title = "Heartbeat prompt"

    def facts(self, details: dict[str, object]) -> list[str]:
        """Its schedule and how many runs."""
        facts = []
        schedule = as_text(details.get("schedule"))
        if schedule:
            facts.append(f"schedule {schedule}")
        runs = as_number(details.get("runCount"))
        if runs is not None:
            facts.append(f"run {int(runs):,}")
        status = as_text(details.get("status"))
        if status and status != "active":
            facts.append(status)
        return facts

    def blocks(self, entry: Entry, content: object, details: dict[str, object]) -> list[Block] | None:
        """The prompt, and the job's id and times."""
        rows: list[tuple[str, Inline]] = []
        if job := as_text(details.get("jobId")):
            rows.append(("Job", (code(job),)))
        for name, key in (("Last run", "lastRunAt"), ("Next run", "nextRunAt")):
            if when := _when(details.get(key)):
                rows.append((name, (when,)))
        table: list[Block] = [Table(tuple(rows))] if rows else []
        return [*content_parts(content, entry.id), *table]


class IpythonRestored(PrimeMessage):
    """After a restart: whether the IPython kernel's variables were revived."""

    custom_type = "ipython_state_restored"
    title = "IPython state restored"

    def heading(self, details: dict[str, object]) -> str:
        """``IPython state restored`` or ``IPython state not restored``."""
        return self.title if details.get("restored") is not False else "IPython state not restored"

    def blocks(self, entry: Entry, content: object, details: dict[str, object]) -> list[Block] | None:
        """Its text, without the ``<ipython_state_restored>`` tags it is wrapped in for the model."""
        return content_parts(_unwrapped(content, self.custom_type), entry.id)

    def preview(self, content: object, details: dict[str, object]) -> str:
        """Its text without the tags."""
        return message_text(_unwrapped(content, self.custom_type))


class SlashCommand(PrimeMessage):
    """A session command the user typed (``/compact``, ``/refine``, ``/goal``, ``/autonomous``)."""

    custom_type = "session_slash_command"
    title = "Slash command"
    sent = False

    def facts(self, details: dict[str, object]) -> list[str]:
        """The command's name."""
        name = as_text(as_dict(details.get("command")).get("name"))
        return [f"/{name}"] if name else []

    def blocks(self, entry: Entry, content: object, details: dict[str, object]) -> list[Block] | None:
        """The command as typed."""
        command = as_dict(details.get("command"))
        text = as_text(command.get("text")) or message_text(content)
        return [Para((code(text),))] if text else []


class SlashCommandResult(PrimeMessage):
    """What a session command did: done, or failed with its error."""

    custom_type = "session_slash_command_result"
    title = "Command result"
    sent = False

    def heading(self, details: dict[str, object]) -> str:
        """``Command done`` or ``Command failed``."""
        return "Command failed" if details.get("success") is False else "Command done"

    def facts(self, details: dict[str, object]) -> list[str]:
        """The command's name, and a warning's severity."""
        name = as_text(as_dict(details.get("command")).get("name"))
        facts = [f"/{name}"] if name else []
        if details.get("severity") == "warning":
            facts.append("warning")
        return facts

    def blocks(self, entry: Entry, content: object, details: dict[str, object]) -> list[Block] | None:
        """Its message (in the tone of its severity), and the command it answers."""
        tone = {"error": ERROR, "warning": WARN}.get(as_text(details.get("severity")), "")
        if details.get("success") is False:
            tone = ERROR
        text = message_text(content)
        out: list[Block] = [Para((text,), tone)] if tone and text else content_parts(content, entry.id)
        target = as_text(details.get("commandEntryId"))
        if target:
            out.append(Para(("Answers the command ", entry_link(target)), NOTE))
        return out


# Why Prime Agent started a compaction, and what became of it.
_REASONS = {
    "threshold": "the context passed its threshold",
    "overflow": "the context overflowed",
    "requested": "asked for",
}
_OUTCOMES = {
    "skipped": "Compaction skipped",
    "cancelled": "Compaction cancelled",
    "failed": "Compaction failed",
}


class CompactionOutcome(PrimeMessage):
    """A compaction that did not happen: skipped, cancelled or failed, and why it was started."""

    custom_type = "compaction_outcome"
    title = "Compaction outcome"
    sent = False

    def heading(self, details: dict[str, object]) -> str:
        """``Compaction skipped``, ``Compaction cancelled`` or ``Compaction failed``."""
        return _OUTCOMES.get(as_text(details.get("outcome")), self.title)

    def facts(self, details: dict[str, object]) -> list[str]:
        """Why it was started."""
        reason = as_text(details.get("reason"))
        return [_REASONS.get(reason, reason)] if reason else []

    def blocks(self, entry: Entry, content: object, details: dict[str, object]) -> list[Block] | None:
        """Its message (a failure's as an error)."""
        text = message_text(content)
        if not text:
            return []
        return [Para((text,), ERROR if details.get("outcome") == "failed" else WARN)]


class RefinementOutcome(PrimeMessage):
    """``/refine``: the edits Prime Agent made to its harness (prompt notes, memories, skills, subagents)."""

    custom_type = "refinement_outcome"
    title = "Refinement"
    sent = False

    def heading(self, details: dict[str, object]) -> str:
        """``Refinement``, or ``Refinement rolled back`` for a rollback."""
        return "Refinement rolled back" if as_text(details.get("rollbackOf")) else self.title

    def facts(self, details: dict[str, object]) -> list[str]:
        """Its scope, and how many edits were applied."""
        listed = details.get("edits")
        edits = [e for e in listed if isinstance(e, dict)] if isinstance(listed, list) else []
        applied = sum(1 for e in edits if e.get("applied") is True)
        scope = as_text(details.get("scope"))
        facts = [f"{scope} harness"] if scope else []
        if len(edits) == applied:
            facts.append(_count(len(edits), "edit"))
        else:
            facts.append(f"{applied:,} of {_count(len(edits), 'edit')} applied")
        return facts

    def blocks(self, entry: Entry, content: object, details: dict[str, object]) -> list[Block] | None:
        """Its summary, each edit (what, which, applied or its error), the refinement it rolls back."""
        edits = details.get("edits")
        if not isinstance(edits, list):
            return None
        summary = as_text(details.get("summary")) or message_text(content)
        out: list[Block] = [Markdown(summary)] if summary.strip() else []
        items: list[Inline] = [_edit_line(as_dict(edit)) for edit in edits]
        if items:
            out.append(Bullets(tuple(items)))
        rows: list[tuple[str, Inline]] = []
        for name, key in (("Refinement", "refinementId"), ("Rolls back", "rollbackOf")):
            if value := as_text(details.get(key)):
                rows.append((name, (code(value),)))
        if rows:
            out.append(Table(tuple(rows)))
        return out

    def preview(self, content: object, details: dict[str, object]) -> str:
        """Its summary."""
        return as_text(details.get("summary")) or message_text(content)


def _count(n: int, word: str) -> str:
    """``1 edit``, ``3 edits``."""
    return f"{n:,} {word}{'' if n == 1 else 's'}"


def _edit_line(edit: dict[str, object]) -> Inline:
    """``create memory “Build with uv” (mem-3)``, ``not applied: …`` after an edit that failed."""
    action, kind = as_text(edit.get("action")) or "?", as_text(edit.get("kind")) or "entry"
    after, before = as_dict(edit.get("after")), as_dict(edit.get("before"))
    title = as_text(edit.get("title")) or as_text(after.get("title")) or as_text(before.get("title"))
    line: list[str | Span] = [f"{action} {kind} "]
    if title:
        line += [bold(title), " "]
    entry_id = as_text(edit.get("id"))
    if entry_id:
        line.append(code(entry_id))
    if edit.get("applied") is not True:
        error = as_text(edit.get("error"))
        line.append(f" (not applied{': ' + error if error else ''})")
    return tuple(line)


class ChildFailure(PrimeMessage):
    """A child agent (an RLM subagent) failed; its parent is told."""

    custom_type = "rlm_child_failure"
    title = "Child agent failed"

    def facts(self, details: dict[str, object]) -> list[str]:
        """The child's name."""
        name = as_text(details.get("sessionName"))
        return [name] if name else []

    def blocks(self, entry: Entry, content: object, details: dict[str, object]) -> list[Block] | None:
        """The child and its error."""
        child, error = as_text(details.get("childId")), as_text(details.get("error"))
        if not error and not child:
            return None
        out: list[Block] = [Para(_child_line(details, "failed"))]
        if error:
            out.append(Para((error,), ERROR))
        return out


class ChildNotice(PrimeMessage):
    """A child agent ended without a reply: cancelled, or done without sending one."""

    custom_type = "rlm_child_terminal_notice"
    title = "Child agent ended"

    def heading(self, details: dict[str, object]) -> str:
        """``Child agent cancelled`` or ``Child agent ended without a reply``."""
        kind = details.get("kind")
        if kind == "cancelled":
            return "Child agent cancelled"
        return "Child agent ended without a reply" if kind == "completed_without_reply" else self.title

    def facts(self, details: dict[str, object]) -> list[str]:
        """The child's name."""
        name = as_text(details.get("sessionName"))
        return [name] if name else []

    def blocks(self, entry: Entry, content: object, details: dict[str, object]) -> list[Block] | None:
        """The child, and the reason it was cancelled or the last thing it wrote."""
        if not as_text(details.get("childId")):
            return None
        cancelled = details.get("kind") == "cancelled"
        out: list[Block] = [Para(_child_line(details, "was cancelled" if cancelled else "sent no reply"))]
        reason = as_text(details.get("reason"))
        if cancelled and reason:
            out.append(Para(("Reason: ", reason), WARN))
        last = as_text(details.get("lastAssistantTextPreview"))
        if not cancelled and last.strip():
            out += [Para(("Its last text:",), NOTE), Markdown(last)]
        return out


def _child_line(details: dict[str, object], what: str) -> Inline:
    """``Child worker-2 (rlm-child-7) failed``."""
    name, child = as_text(details.get("sessionName")), as_text(details.get("childId"))
    line: list[str | Span] = ["Child "]
    if name:
        line += [bold(name), " "]
    if child:
        line += ["(", code(child), ") "]
    line.append(what)
    return tuple(line)


def _when(value: object) -> str:
    """``2026-11-04 09:40 UTC`` for an ISO time; other text as it is; ``""`` for anything else."""
    ms = js_date_ms(value)
    if ms is None:
        return as_text(value)
    try:
        return datetime.fromtimestamp(ms / 1000, UTC).strftime("%Y-%m-%d %H:%M UTC")
    except (OverflowError, OSError, ValueError):  # beyond the calendar
        return as_text(value)


def _unwrapped(content: object, tag: str) -> object:
    """A text wrapped in ``<tag>`` … ``</tag>`` lines for the model, without those lines."""
    if not isinstance(content, str):
        return content
    text = content.strip()
    opening, closing = f"<{tag}>", f"</{tag}>"
    if text.startswith(opening) and text.endswith(closing):
        return text[len(opening) : -len(closing)].strip()
    return content


PRIME_MESSAGES: dict[str, PrimeMessage] = {
    shape.custom_type: shape
    for shape in (
        HeartbeatPrompt(),
        IpythonRestored(),
        SlashCommand(),
        SlashCommandResult(),
        CompactionOutcome(),
        RefinementOutcome(),
        ChildFailure(),
        ChildNotice(),
    )
}
"""customType -> its shape, for Prime Agent's eight message types."""


def prime_message(custom_type: object) -> PrimeMessage | None:
    """The shape of a Prime Agent message type, None for any other ``customType``."""
    return PRIME_MESSAGES.get(custom_type) if isinstance(custom_type, str) else None


def prime_preview(source: dict[str, object], width: int) -> str | None:
    """``[Refinement] summary``: a Prime Agent message's one-line preview; None for any other message.

    Args:
        source: the message's fields (a ``custom_message`` entry, or a ``custom`` message).
        width: the most characters of the line.
    """
    shape = prime_message(source.get("customType"))
    details = source.get("details")
    if shape is None or not isinstance(details, dict):
        return None  # shown as any extension message is, as its card is
    return one_line(f"[{shape.heading(details)}] {shape.preview(source.get('content'), details)}", width)
