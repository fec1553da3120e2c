"""HTML fragments of session entries, for Qt's rich-text viewer (``QTextBrowser``).

Everything here is a pure function of the entry and the options: no Qt, no file access beyond the
:class:`~core.session.session.Session` methods a caller hands in. The output is the HTML 4 subset that
``QTextDocument`` understands (tables, ``div``/``span``/``pre``, inline colours); there is no
JavaScript and no ``<details>``, so a collapsed block is a link the caller answers by rendering again
with the block's key added to :attr:`RenderOptions.expanded` (the links are in :mod:`core.render.links`).

Safety: every string from the session is escaped. Markdown is parsed with raw HTML disabled
(:mod:`core.render.markdown`), so rendering never loads a remote resource. Session images are
referenced as ``image:ENTRYID/INDEX`` and decoded on demand with :func:`core.render.links.image_bytes`.

Entries are anchored by id (``<a name="ENTRYID">``) for ``QTextBrowser.scrollToAnchor``; a tool
result shown under its call carries its own id as an anchor inside the call's box.

This module dispatches by entry kind and renders the messages; the pieces are in
:mod:`core.render.blocks` and the tool views in :mod:`core.render.tools`.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from core.formatting import short_tokens
from core.kinds.pairing import Results, results_in_window
from core.render.blocks import MAX_RAW_JSON
from core.render.cards import EntryCards
from core.render.links import block_key
from core.render.notes import EntryNotes, session_notes
from core.render.palette import palette
from core.render.text import esc, json_excerpt, time_html
from core.render.wording import (
    GENERIC_MARK,
    assistant_facts,
    model_change_name,
    retained_text,
    stop_note,
    usage_text,
)
from core.session.content import Block, Body, as_number, as_text, numbered_blocks

if TYPE_CHECKING:
    from core.session import Entry, Session

__all__ = ["RenderOptions", "render_entries", "render_entry"]


@dataclass(frozen=True)
class RenderOptions:
    """How entries are rendered.

    Attributes:
        expanded: keys (see :func:`~core.render.links.block_key`) of the collapsible blocks shown in full.
        show_thinking: False leaves thinking blocks out entirely.
        show_tools: False shows each tool call as one line, without its arguments or result.
        max_result_lines: tool outputs longer than this are collapsed to their first lines.
        dark: use the dark colour palette.
    """

    expanded: frozenset[str] = frozenset()
    show_thinking: bool = True
    show_tools: bool = True
    max_result_lines: int = 20
    dark: bool = False


def render_entry(
    entry: Entry,
    body: Body,
    results: Results | None = None,
    options: RenderOptions | None = None,
    notes: EntryNotes | None = None,
) -> str:
    """Render one entry as an HTML fragment.

    Args:
        entry: the entry's index record.
        body: the full entry (``Session.body(entry)``).
        results: for an assistant message, toolCallId -> the body of the toolResult entry that
            answers it (see :func:`core.kinds.pairing.tool_results_for`); each call is shown together
            with its result. None when the caller did not look; ``{}`` when it looked and found none
            (calls are then marked as having no result).
        options: what to show; the defaults when None.
        notes: what other entries say about this one (later context edits, child runs; see
            :func:`core.render.notes.session_notes`), or in a rendering of what the model saw the edit
            whose content the card shows; None for nothing.

    Returns:
        HTML for ``QTextBrowser``; every string from the session escaped.
    """
    options = options or RenderOptions()
    pal = palette(options.dark)
    r = EntryRenderer(entry, body if isinstance(body, dict) else {}, options, pal)
    r.notes = notes
    try:
        inner = r.notes_html() + r.render(results)
    except RecursionError:  # a pathologically nested markdown or JSON value
        inner = r.generic(entry.type or "entry")
    return f'<div class="entry" style="color:{pal.text}"><a name="{esc(entry.id)}"></a>{inner}</div>\n'


def render_entries(session: Session, entries: Iterable[Entry], options: RenderOptions | None = None) -> str:
    """Render several entries (normally a stretch of one path) as one HTML fragment.

    Tool calls are shown with their results; a toolResult entry shown under its call is not rendered
    again on its own. A result that belongs to a call before the first entry given is left out too
    (the stretch before shows it), and the calls of the last assistant message look for results past
    the last entry given, so a path rendered in consecutive windows shows every result exactly once
    (see :func:`core.kinds.pairing.results_in_window`).

    Args:
        session: the session the entries belong to.
        entries: the entries, in order.
        options: what to show; the defaults when None.

    Returns:
        The concatenated fragments of :func:`render_entry`.
    """
    items = list(entries)
    if not items:
        return ""
    bodies = list(session.bodies(items))
    results, shown_under_call = results_in_window(session, items, bodies)
    notes = session_notes(session)
    return "".join(
        render_entry(entry, bodies[i], results.get(i), options, notes.for_card(entry.id, results.get(i)))
        for i, entry in enumerate(items)
        if i not in shown_under_call
    )


class EntryRenderer(EntryCards):
    """Renders one entry: dispatches by kind and role, and renders the messages."""

    def render(self, results: Results | None) -> str:
        """The entry's HTML (without the wrapper :func:`render_entry` adds)."""
        kind = self.entry.kind
        body = self.body
        if kind == "message":
            message = body.get("message")
            if not isinstance(message, dict):
                return self.generic("message")
            role = message.get("role")
            if role == "user":
                return self.user(message)
            if role == "assistant":
                return self.assistant(message, results)
            if role == "toolResult":
                return self.tool_result(message)
            if role == "bashExecution":
                return self.bash_execution(message)
            if role in ("custom", "hookMessage"):
                return self.custom_message(message, "Extension message")
            if role == "branchSummary":
                return self.branch_summary(message)
            if role == "compactionSummary":
                return self.compaction(message)
            if role == "system":
                return self.system_message(message, self.system_key())
            return self.generic(f"message {role}" if isinstance(role, str) else "message")
        if kind == "compaction":
            return self.compaction(body)
        if kind == "branch_summary":
            return self.branch_summary(body)
        if kind == "custom_message":
            return self.custom_message(body, "Extension message")
        if kind == "custom":
            return self.custom(body)
        if kind == "model_change":
            return self.line(f"Switched to model <b>{esc(model_change_name(body))}</b>")
        if kind == "thinking_level_change":
            return self.line(f"Thinking level: <b>{esc(as_text(body.get('thinkingLevel')))}</b>")
        if kind == "service_tier_change":
            return self.line(f"Service tier: <b>{esc(as_text(body.get('serviceTier')))}</b>")
        if kind == "label":
            target = f"<code>{esc(as_text(body.get('targetId')))}</code>"
            label = body.get("label")
            if isinstance(label, str) and label:
                return self.line(f"Label <b>{esc(label)}</b> set on {target}")
            return self.line(f"Label cleared on {target}")
        if kind == "session_info":
            name = body.get("name")
            if isinstance(name, str) and name.strip():
                return self.line(f"Session named <b>{esc(name.strip())}</b>")
            return self.line("Session name cleared")
        card = self.record_card(kind, body)
        return card if card is not None else self.generic(self.entry.type or "entry")

    def user(self, message: dict[str, object]) -> str:
        """A user message: its text and images."""
        inner = self.header("User", moment=message.get("timestamp")) + self.content(
            message.get("content"), self.entry.id
        )
        return self.box(inner, self.pal.user_bg)

    def assistant(self, message: dict[str, object], results: Results | None) -> str:
        """An assistant message: text, thinking, tool calls with their results, and how it stopped."""
        pal = self.pal
        extras = []
        model = as_text(message.get("model"))
        provider = as_text(message.get("provider"))
        if model:
            extras.append(esc(f"{provider}/{model}" if provider else model))
        extras.extend(esc(fact) for fact in assistant_facts(message))
        children = self.notes.children if self.notes is not None else None
        # With child runs attributed, the message's usage is the aggregate (as Prime Agent reloads it).
        usage = usage_text(
            children.aggregate if children is not None and children.aggregate else message.get("usage")
        )
        if usage:
            extras.append(esc(usage))
        out = [self.header("Assistant", extras, message.get("timestamp"))]
        for index, (block, image_index) in enumerate(numbered_blocks(message.get("content"))):
            kind = block.get("type")
            if kind == "thinking":
                if self.options.show_thinking:
                    out.append(self.thinking(index, block))
            elif kind == "toolCall":
                call_id = block.get("id")
                result = None
                if results is not None and isinstance(call_id, str):
                    result = results.get(call_id)
                out.append(self.tool_call(index, block, result, results is not None))
            else:
                out.append(self.part(block, image_index, self.entry.id))
        stop = message.get("stopReason")
        error = message.get("errorMessage")
        error_text = error if isinstance(error, str) and error else ""
        if stop == "aborted":
            detail = f": {esc(error_text)}" if error_text else ""
            out.append(f'<p style="color:{pal.warn}"><b>⏹ Aborted</b>{detail}</p>')
        elif stop == "error" or error_text:
            shown = esc(error_text or "the request failed")
            out.append(
                self.box(f'<span style="color:{pal.error}"><b>Error</b>: {shown}</span>', pal.error_bg)
            )
        elif stop == "length":
            out.append(self.note("Stopped: the reply reached the output length limit.", pal.warn))
        elif stop_note(stop):
            out.append(self.note(stop_note(stop), pal.warn))
        return "".join(out)

    def thinking(self, index: int, block: Block) -> str:
        """A thinking block: a toggle link, and the text when it is expanded."""
        pal = self.pal
        key = block_key(self.entry.id, "thinking", index)
        text = as_text(block.get("thinking"))
        redacted = block.get("redacted") is True
        if not text.strip() and not redacted:
            return ""
        if key not in self.options.expanded:
            label = "Thinking (redacted)" if redacted and not text.strip() else "Thinking…"
            return f'<p class="thinking" style="color:{pal.thinking}"><i>{self.toggle(key, label)}</i></p>'
        link = self.toggle(key, "▾ Thinking")
        body = self.markdown(text) if text.strip() else self.note("(redacted by the provider)")
        return (
            f'<p class="thinking" style="color:{pal.thinking}"><i>{link}</i></p>'
            f'<div class="thinking" style="color:{pal.thinking}; font-style:italic">{body}</div>'
        )

    def custom_message(self, source: dict[str, object], role: str) -> str:
        """A message an extension added (a custom_message entry, or a message of a custom role)."""
        pal = self.pal
        extras = [self.badge(as_text(source.get("customType")) or "custom")]
        if source.get("display") is not True:
            extras.append(f'<span style="color:{pal.warn}">hidden from the TUI</span>')
        moment = source.get("timestamp") if "role" in source else None
        inner = self.header(role, extras, moment) + self.content(source.get("content"), self.entry.id)
        return self.box(inner, pal.note_bg)

    def custom(self, body: Body) -> str:
        """An extension's data entry (never sent to the model): its type and JSON."""
        extras = [
            self.badge(as_text(body.get("customType")) or "custom"),
            "extension data, not sent to the model",
        ]
        parts = [self.header("Extension data", extras)]
        if "data" in body:
            parts.append(self.pre(json_excerpt(body.get("data"), MAX_RAW_JSON), self.pal.muted))
        return "".join(parts)

    def branch_summary(self, source: dict[str, object]) -> str:
        """A branch summary (an entry, or a message of that role)."""
        summary = source.get("summary")
        moment = source.get("timestamp") if "role" in source else None
        usage = usage_text(source.get("usage"))
        inner = self.header("Branch summary", [esc(f"summarised for {usage}")] if usage else [], moment)
        if isinstance(summary, str) and summary.strip():
            inner += self.markdown(summary)
        else:
            inner += self.note("(empty summary)")
        return self.box(inner, self.pal.note_bg)

    def compaction(self, source: dict[str, object]) -> str:
        """A compaction (an entry, or a message of that role): how many tokens it replaced, its summary."""
        tokens = as_number(source.get("tokensBefore"))
        extras = [f"compacted from {short_tokens(tokens)} tokens"] if tokens is not None else []
        if source.get("fromHook") is True:
            extras.append("summary by an extension")
        usage = usage_text(source.get("usage"))
        if usage:
            extras.append(esc(f"summarised for {usage}"))
        moment = source.get("timestamp") if "role" in source else None
        inner = self.header("Compaction", extras, moment)
        if "role" not in source and source.get("firstKeptEntryId") == self.entry.id:
            inner += self.note("Keeps no earlier message: the model sees only the summary and what follows.")
        kept = retained_text(source)
        if kept:
            inner += self.note(kept)
        instructions = as_text(source.get("customInstructions"))
        if instructions.strip():
            inner += self.note(f"Instructions for the summary: {instructions}")
        summary = source.get("summary")
        if isinstance(summary, str) and summary.strip():
            inner += self.markdown(summary)
        else:
            inner += self.note("(empty summary)")
        system = source.get("systemMessage")
        if isinstance(system, dict):
            inner += self.system_message(system, self.system_key(), "System message at the compaction")
        return self.box(inner, self.pal.note_bg)

    def generic(self, type_name: str) -> str:
        """An entry this view does not know: its type and time, its JSON behind a toggle."""
        pal = self.pal
        when = time_html(self.entry.ts_ms)
        tail = f" <small>· {when}</small>" if when else ""
        key = block_key(self.entry.id, "json")
        head = (
            f'<p class="generic" style="color:{pal.muted}"><b>[{esc(type_name)}]</b>{tail} · '
            f"<small>{esc(GENERIC_MARK[0].upper() + GENERIC_MARK[1:])}</small></p>"
        )
        if key not in self.options.expanded:
            return head + f"<p><small>{self.toggle(key, 'Show its JSON')}</small></p>"
        link = f"<p><small>{self.toggle(key, 'Hide its JSON')}</small></p>"
        return head + link + self.pre(json_excerpt(self.body, MAX_RAW_JSON), pal.muted)
