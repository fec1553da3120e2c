"""The entries of an export that are not conversation turns, and what other entries say about a turn.

Settings changes (model, thinking level, service tier), labels and names, pi 1.6's usage records, context
edits and system messages, Prime Agent's child-run usage, session state, agent status and git snapshots;
and the lines a turn gets from :class:`~core.render.notes.EntryNotes` (edited in the context later, child
runs included in its usage) and from its own newer fields (how long a tool ran, the calls it made). Written
once against the :class:`~core.export.markup.MarkdownMarkup` primitives, so the HTML export shows the same.
The wording is :mod:`core.render.wording`, shared with the message view.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from core.export.markup import MarkdownMarkup
from core.render.notes import EntryNotes, SessionNotes
from core.render.wording import (
    agent_status_text,
    child_runs_text,
    child_usage_text,
    git_text,
    model_change_name,
    nested_call_lines,
    retained_text,
    session_state_text,
    system_facts,
    tool_run_facts,
    usage_entry_text,
    usage_text,
)
from core.session.content import Body, as_dict, as_text, joined_text

if TYPE_CHECKING:
    from core.session import Entry

__all__ = ["RecordEntries"]

MAX_TOOL_DESCRIPTION = 200  # characters of a tool's description where a system message adds the tool


class RecordEntries(MarkdownMarkup):
    """Renders the record entries and the notes of a turn with the markup primitives.

    Attributes:
        notes: the session's context edits and child-usage attributions (None: none are shown).
    """

    notes: SessionNotes | None = None

    def record(self, entry: Entry, body: Body) -> str | None:
        """A one-line record entry (settings, label, name, usage, Prime Agent state), None for other kinds."""
        kind = entry.kind
        if kind == "model_change":
            return self.line(self.esc("Switched to model") + " " + self.code(model_change_name(body)), entry)
        if kind == "thinking_level_change":
            level = as_text(body.get("thinkingLevel"))
            return self.line(self.esc("Thinking level:") + " " + self.code(level), entry)
        if kind == "service_tier_change":
            tier = as_text(body.get("serviceTier"))
            return self.line(self.esc("Service tier:") + " " + self.code(tier), entry)
        if kind == "label":
            target = self.code(as_text(body.get("targetId")))
            label = body.get("label")
            if isinstance(label, str) and label:
                return self.line(f"Label {self.bold(self.esc(label))} set on {target}", entry)
            return self.line(f"Label cleared on {target}", entry)
        if kind == "session_info":
            name = body.get("name")
            if isinstance(name, str) and name.strip():
                return self.line(f"Session named {self.bold(self.esc(name.strip()))}", entry)
            return self.line("Session name cleared", entry)
        if kind == "usage":
            note = as_text(body.get("note"))
            text = self.esc("Usage record:") + " " + self.esc(usage_entry_text(body))
            return self.line(text + (" · " + self.esc(note) if note.strip() else ""), entry)
        if kind == "child_usage_attributed":
            target = self.entry_link(as_text(body.get("targetId")) or "?")
            words = self.esc(child_usage_text(body))
            return self.line(self.esc("Child run usage added to") + f" {target}: {words}", entry)
        if kind == "session_state":
            return self.line(self.esc("Session state:") + " " + self.code(session_state_text(body)), entry)
        if kind == "agent_status":
            status = agent_status_text(body)
            facts = f" ({self.esc(' · '.join(status.facts))})" if status.facts else ""
            return self.line(
                self.esc("Agent status") + facts + ": " + self.esc(status.summary or "(none)"), entry
            )
        if kind == "git_state":
            return self.line(self.esc("Git:") + " " + self.esc(git_text(body.get("git"))), entry)
        return None

    def context_edit(self, entry: Entry, body: Body) -> str:
        """A context edit: the entry it changes in what the model sees from here on, and the new content."""
        target = self.entry_link(as_text(body.get("targetId")) or "?")
        head = self.heading("Context edit", entry)
        replacement = body.get("replacement")
        if replacement is None:
            return head + self.para(f"Drops entry {target} from what the model sees from here on.")
        words = f"Replaces the content of entry {target} in what the model sees from here on with:"
        content = self.content(as_dict(replacement).get("content"), entry.id)
        return head + self.para(words) + (content or self.para(self.italic("(empty content)")))

    def system_message(
        self, entry: Entry | None, message: dict[str, object], title: str = "System message"
    ) -> str:
        """A system message: a heading with what it changes, its text folded away (like thinking).

        Args:
            entry: the entry, for the heading; None for a compaction's system message (no heading).
            message: the system message.
            title: the fold's title when there is no heading.
        """
        text = joined_text(message.get("content"))
        parts = [self.markdown(text) if text.strip() else self.para(self.italic("(no instruction text)"))]
        sections = message.get("sections")
        for name, value in sections.items() if isinstance(sections, dict) else ():
            parts.append(self.para(self.bold(self.esc(f"Section {name}"))))
            if isinstance(value, str) and value.strip():
                parts.append(self.markdown(value))
            else:
                parts.append(self.para(self.italic("(removed)" if value is None else "(empty)")))
        added = message.get("toolsAdded")
        if isinstance(added, list) and added:
            items = []
            for tool in added:
                record = as_dict(tool)
                description = " ".join(as_text(record.get("description")).split())[:MAX_TOOL_DESCRIPTION]
                name = self.code(as_text(record.get("name")) or "tool")
                items.append(name + (": " + self.esc(description) if description else ""))
            parts.append(self.para(self.bold("Tools added")) + self.bullets(items))
        removed = message.get("toolsRemoved")
        if isinstance(removed, list) and removed:
            names = ", ".join(self.code(as_text(as_dict(t).get("name")) or "?") for t in removed)
            parts.append(self.para(self.bold("Tools removed:") + " " + names))
        size = f" ({len(text):,} characters)" if text else ""
        if entry is None:
            return self.fold(title + size, "".join(parts))
        facts = " · ".join(system_facts(message))
        return self.heading("System message", entry, message, facts) + self.fold(
            "System prompt" + size, "".join(parts)
        )

    def summary_facts(self, source: dict[str, object], entry: Entry) -> str:
        """What a summary adds after its text: its instructions, an empty kept range, its system message."""
        parts = []
        if "role" not in source and source.get("firstKeptEntryId") == entry.id:
            parts.append(
                self.para(
                    self.italic("Keeps no earlier message: the model sees only the summary and what follows.")
                )
            )
        kept = retained_text(source)
        if kept:
            parts.append(self.para(self.italic(self.esc(kept))))
        instructions = as_text(source.get("customInstructions"))
        if instructions.strip():
            parts.append(
                self.para(
                    self.italic(self.esc("Instructions for the summary:")) + " " + self.esc(instructions)
                )
            )
        system = source.get("systemMessage")
        if isinstance(system, dict):
            parts.append(self.system_message(None, system, "System message at the compaction"))
        return "".join(parts)

    def summary_usage(self, source: dict[str, object]) -> str:
        """``summarised for 2.2k in · 200 out · $0.0263`` for a summary that records its cost, else ``""``."""
        usage = usage_text(source.get("usage"))
        return f"summarised for {usage}" if usage else ""

    def run_facts(self, message: dict[str, object]) -> str:
        """How long a tool ran, what it spent and the calls it made to other tools (``""`` when unknown)."""
        facts = tool_run_facts(message)
        if not facts:
            return ""
        lines = [self.esc(line) for line in nested_call_lines(message)]
        return self.para(self.italic(self.esc(" · ".join(facts)))) + self.bullets(lines)

    def entry_notes(self, entry: Entry) -> EntryNotes | None:
        """What other entries say about ``entry`` (None when nothing, or when the renderer has no notes)."""
        return self.notes.get(entry.id) if self.notes is not None else None

    def note_lines(self, notes: EntryNotes | None) -> str:
        """The lines other entries add to a turn: its later context edits and the child runs in its usage."""
        if notes is None:
            return ""
        out = []
        for edit in notes.edits:
            how = "dropped it from" if edit.dropped else "replaced its content in"
            link = self.entry_link(edit.edit_id)
            out.append(
                self.para(self.italic(f"Edited in the context later: entry {link} {how} what the model sees"))
            )
        runs = notes.children
        if runs is not None:
            words = "Usage includes " + child_runs_text(runs.runs, runs.origins, runs.usage)
            aggregate = usage_text(runs.aggregate)
            if aggregate:
                words += f"; with them the message used {aggregate}"
            out.append(self.para(self.italic(self.esc(words))))
        return "".join(out)

    def content(self, content: object, entry_id: str) -> str:
        """Message content (text and images); :class:`~core.export.markdown.MarkdownRenderer` writes it."""
        raise NotImplementedError
