"""The message view's cards for pi 1.6's and Prime Agent's entries, and what other entries say about one.

System messages (collapsed, like thinking), usage records, context edits (with a link to the entry they
change), child-run usage, Prime Agent's session state, agent status and git snapshots; and the lines a
card gets from :class:`~core.render.notes.EntryNotes`: "edited in the context later", "this is the edited
content", the child runs an assistant message's usage includes. The wording is :mod:`core.render.wording`.
"""

from __future__ import annotations

from collections.abc import Callable

from core.render.links import block_key, entry_href
from core.render.notes import EntryNotes
from core.render.text import esc
from core.render.tools import ToolBlocks
from core.render.wording import (
    agent_status_text,
    child_runs_text,
    child_usage_text,
    git_text,
    session_state_text,
    system_facts,
    usage_entry_text,
)
from core.session.content import Body, as_dict, as_text, joined_text

__all__ = ["EntryCards"]

MAX_TOOL_DESCRIPTION = 200  # characters of a tool's description shown where a system message adds it


class EntryCards(ToolBlocks):
    """:class:`~core.render.tools.ToolBlocks` with the newer entry cards.

    Attributes:
        notes: what other entries say about the entry being rendered (None for nothing).
    """

    notes: EntryNotes | None = None

    def entry_link(self, entry_id: object) -> str:
        """A link that shows another entry (``action:entry/ID``), its id as code."""
        if not isinstance(entry_id, str) or not entry_id:
            return "<code>?</code>"
        return f'<a href="{esc(entry_href(entry_id))}"><code>{esc(entry_id)}</code></a>'

    def system_message(self, message: dict[str, object], key: str, title: str = "System message") -> str:
        """A system message: its header and facts, its text behind a toggle (collapsed like thinking).

        Args:
            message: the system message.
            key: the toggle's block key.
            title: the heading (a compaction's system message is introduced differently).
        """
        pal = self.pal
        facts = [esc(fact) for fact in system_facts(message)]
        inner = self.header(title, facts, message.get("timestamp"))
        text = joined_text(message.get("content"))
        size = f" ({len(text):,} characters)" if text else ""
        if key not in self.options.expanded:
            inner += f'<p style="color:{pal.thinking}"><i>{self.toggle(key, "System prompt…" + size)}</i></p>'
        else:
            inner += f'<p style="color:{pal.thinking}"><i>{self.toggle(key, "▾ System prompt")}</i></p>'
            inner += self.system_parts(message, text)
        return self.box(inner, pal.note_bg)

    def system_parts(self, message: dict[str, object], text: str) -> str:
        """A system message's text, named sections and tool changes, in full."""
        parts = [self.markdown(text) if text.strip() else self.note("(no instruction text)")]
        sections = message.get("sections")
        for name, value in sections.items() if isinstance(sections, dict) else ():
            parts.append(f"<p><b>Section {esc(str(name))}</b></p>")
            if isinstance(value, str):
                parts.append(self.markdown(value) if value.strip() else self.note("(empty)"))
            else:
                parts.append(self.note("(removed)"))
        added = message.get("toolsAdded")
        if isinstance(added, list) and added:
            items = []
            for tool in added:
                record = as_dict(tool)
                name = as_text(record.get("name")) or "tool"
                description = " ".join(as_text(record.get("description")).split())[:MAX_TOOL_DESCRIPTION]
                items.append(
                    f"<li><code>{esc(name)}</code>{': ' + esc(description) if description else ''}</li>"
                )
            parts.append("<p><b>Tools added</b></p><ul>" + "".join(items) + "</ul>")
        removed = message.get("toolsRemoved")
        if isinstance(removed, list) and removed:
            names = ", ".join(f"<code>{esc(as_text(as_dict(t).get('name')) or '?')}</code>" for t in removed)
            parts.append(f"<p><b>Tools removed</b>: {names}</p>")
        return "".join(parts)

    def record_card(self, kind: str, body: Body) -> str | None:
        """The card of a pi 1.6 or Prime Agent record entry of ``kind``, None for any other kind."""
        method = _RECORD_CARDS.get(kind)
        return method(self, body) if method is not None else None

    def usage_entry(self, body: Body) -> str:
        """A usage record: the cost of a call outside the conversation (a cache warm-up...)."""
        note = as_text(body.get("note"))
        tail = f" · <i>{esc(note)}</i>" if note else ""
        return self.line(f"Usage record: <b>{esc(usage_entry_text(body))}</b>{tail}")

    def context_edit(self, body: Body) -> str:
        """A context edit: which entry it changes in what the model sees from here on, and how."""
        pal = self.pal
        target = self.entry_link(body.get("targetId"))
        replacement = body.get("replacement")
        inner = self.header("Context edit")
        if replacement is None:
            inner += f"<p>Drops entry {target} from what the model sees from here on.</p>"
        else:
            inner += (
                f"<p>Replaces the content of entry {target} in what the model sees from here on with:</p>"
            )
            content = as_dict(replacement).get("content")
            shown = self.content(content, None)
            inner += shown or self.note("(empty content)")
        return self.box(inner, pal.note_bg)

    def child_usage(self, body: Body) -> str:
        """A child run's usage, added to the assistant message that started it."""
        target = self.entry_link(body.get("targetId"))
        return self.line(f"Child run usage added to {target}: {esc(child_usage_text(body))}")

    def session_state(self, body: Body) -> str:
        """Prime Agent's lifecycle state of the session."""
        return self.line(f"Session state: <b>{esc(session_state_text(body))}</b>")

    def agent_status(self, body: Body) -> str:
        """Prime Agent's short status of the agent (what the agents view shows)."""
        status = agent_status_text(body)
        extra = f" ({esc(' · '.join(status.facts))})" if status.facts else ""
        return self.line(f"Agent status{extra}: <b>{esc(status.summary) or '(none)'}</b>")

    def git_state(self, body: Body) -> str:
        """Prime Agent's snapshot of the repository state."""
        return self.line(f"Git: <b>{esc(git_text(body.get('git')))}</b>")

    def result_notes(self, call_id: object) -> str:
        """The lines other entries add to the tool result shown under ``call_id`` (a later edit of it)."""
        notes = self.notes.of_result(call_id) if self.notes is not None else None
        return self.notes_html(notes) if notes is not None else ""

    def notes_html(self, notes: EntryNotes | None = None) -> str:
        """The lines other entries add to a card: later context edits, the edit shown, child runs.

        Args:
            notes: the notes; this card's own (:attr:`notes`) when None.
        """
        notes = notes if notes is not None else self.notes
        if notes is None:
            return ""
        pal = self.pal
        lines = []
        shown = notes.shown_edit
        if shown is not None:
            editor, original = self.entry_link(shown.edit_id), self.entry_link(shown.target_id)
            lines.append(
                f"✎ <b>Edited content</b>: entry {editor} replaced this message in what the model saw "
                f"(the original is entry {original})"
            )
        for edit in notes.edits:
            if shown is not None and edit.edit_id == shown.edit_id:
                continue
            how = "dropped it from" if edit.dropped else "replaced its content in"
            link = self.entry_link(edit.edit_id)
            lines.append(f"✎ Edited in the context later: entry {link} {how} what the model sees")
        if notes.children is not None:
            runs = notes.children
            lines.append(esc("Usage includes " + child_runs_text(runs.runs, runs.origins, runs.usage)))
        return "".join(f'<p style="color:{pal.warn}"><small>{line}</small></p>' for line in lines)

    def system_key(self) -> str:
        """The toggle key of this entry's system message (a system message entry, or a compaction's)."""
        return block_key(self.entry.id, "system")


_RECORD_CARDS: dict[str, Callable[[EntryCards, Body], str]] = {
    "usage": EntryCards.usage_entry,
    "context_edit": EntryCards.context_edit,
    "child_usage_attributed": EntryCards.child_usage,
    "session_state": EntryCards.session_state,
    "agent_status": EntryCards.agent_status,
    "git_state": EntryCards.git_state,
}
