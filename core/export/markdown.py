"""Sessions as Markdown (CommonMark with GFM tables) for bug reports, reviews and write-ups.

The document is a title, a metadata table, then a heading per message. Message text is Markdown
already and is kept as written; everything else from the session (tool names, arguments, outputs,
file paths) goes into code fences longer than any backtick run inside, or is backslash-escaped, so
it cannot change the document's structure. Images become data URIs or links to files written
beside the export (:class:`core.export.common.ImageSink`).

:func:`entry_to_markdown` gives one entry exactly as it appears in the full export (the app's
"Copy message as Markdown" uses it).
"""

from __future__ import annotations

import base64
from dataclasses import dataclass, field
from typing import TYPE_CHECKING
from urllib.parse import quote

from core.export.common import (
    ExportOptions,
    ImageSink,
    code_span,
    md_inline,
    metadata,
    select_entries,
    wanted,
)
from core.export.markup import json_excerpt, json_text, language_of
from core.export.records import RecordEntries
from core.formatting import whole_tokens
from core.kinds.pairing import Results, edits_as_diff, paired, tool_results_for
from core.render.images import decode_image
from core.render.notes import session_notes
from core.render.wording import GENERIC_MARK, assistant_facts, stop_note
from core.session.content import Block, Body, as_dict, as_text, joined_text, message_of, numbered_blocks

if TYPE_CHECKING:
    from core.export.redact import Redactor
    from core.session import Entry, Session

__all__ = ["MarkdownExport", "MarkdownRenderer", "entry_to_markdown", "session_to_markdown"]


@dataclass
class MarkdownExport:
    """A rendered Markdown export.

    Attributes:
        text: the document.
        images: files to write beside it (empty unless images go beside the export).
        entries: how many entries were covered.
    """

    text: str
    images: ImageSink = field(default_factory=ImageSink)
    entries: int = 0


def entry_to_markdown(session: Session, entry_id: str) -> str:
    """One entry as Markdown, exactly as it appears in a full export; images as data URIs.

    An assistant message comes with its tool calls and their results; a tool result shown alone
    gets its own heading. Nothing is redacted and nothing is left out.

    Args:
        session: the loaded session.
        entry_id: the entry to render.

    Returns:
        The Markdown text, ending with a newline. Raises :class:`core.errors.InvalidRequestError`
        for an unknown id.
    """
    from core.errors import InvalidRequestError

    entry = session.get(entry_id)
    if entry is None:
        raise InvalidRequestError(f"There is no entry {entry_id} in {session.path}.")
    body = session.body(entry)
    results = tool_results_for(session, entry) if entry.role == "assistant" else None
    renderer = MarkdownRenderer(ExportOptions(), None, None, session.labels)
    renderer.notes = session_notes(session)
    return renderer.entry(entry, body, results)


def session_to_markdown(
    session: Session,
    options: ExportOptions | None = None,
    *,
    leaf_id: str | None = None,
    whole_tree: bool = False,
    redactor: Redactor | None = None,
    image_folder: str = "images",
) -> MarkdownExport:
    """Render a session (one path, or the whole tree) as a Markdown document.

    Args:
        session: the loaded session.
        options: what to include; the defaults when None.
        leaf_id: export the path from the root to this entry; the current leaf when None.
        whole_tree: export every branch instead (each branch is introduced by a note saying where it
            starts).
        redactor: replaces secrets in every string taken from the session; None for none.
        image_folder: where images go, relative to the export, when ``options.images == "beside"``.

    Returns:
        The document and the image files to write beside it.
    """
    options = options or ExportOptions()
    entries = select_entries(session, leaf_id, whole_tree)
    sink = ImageSink(image_folder) if options.images == "beside" else None
    renderer = MarkdownRenderer(options, redactor, sink, session.labels)
    renderer.notes = session_notes(session)
    parts = renderer.document(session, entries, whole_tree)
    scope = "whole tree (every branch)" if whole_tree else f"path to entry {entries[-1].id}"
    meta = metadata(session, entries, redactor, scope, renderer.models)
    head = [f"# {md_inline(meta.title)}\n", "\n| | |\n|---|---|\n"]
    head.extend(f"| {label} | {_cell(value)} |\n" for label, value in meta.rows)
    head.append("\n")
    head.extend(parts)  # one join: joining each and adding the two copied the whole document again
    return MarkdownExport("".join(head), sink or ImageSink(image_folder), len(entries))


def _cell(value: str) -> str:
    # md_inline escapes the pipe too, which is all a GFM table cell needs beyond one line.
    return md_inline(value)


class MarkdownRenderer(RecordEntries):
    """Renders entries as Markdown with one set of options.

    The logic (what an entry shows, in which order) is written once against the formatting
    primitives of :class:`~core.export.markup.MarkdownMarkup` (:meth:`esc`, :meth:`code`,
    :meth:`block`, :meth:`para`...); the HTML export subclasses this and swaps the primitives, so both
    formats always show the same content.
    """

    # ----------------------------------------------------------------- document
    def document(self, session: Session, entries: list[Entry], whole_tree: bool) -> list[str]:
        """Every entry kept by the options, in order (a list of parts to join)."""
        parts: list[str] = []
        previous: Entry | None = None
        bodies = session.bodies(entries)
        position = 0  # where the next entry paired() yields is in ``entries``
        for entry, body, results in paired(entries, bodies):
            if whole_tree and previous is not None and entry.parent_id != previous.id:
                parts.append(self.branch_note(entry))
            # The tool results handed over with their call come right after it in ``entries``: the entry
            # after them continues from the last one, not from the call.
            position += 1 + len(results or ())
            previous = entries[position - 1]
            if not wanted(entry, self.options):
                continue
            parts.append(self.entry(entry, body, results))
        return parts

    def branch_note(self, entry: Entry) -> str:
        """The line that starts another branch in a whole-tree export."""
        if entry.parent_id is None:
            return "\n---\n\n**Another root** (an entry without a parent)\n\n"
        return f"\n---\n\n**Another branch**, continuing from entry {code_span(entry.parent_id)}\n\n"

    # ----------------------------------------------------------------- one entry
    def entry(self, entry: Entry, body: Body, results: Results | None, *, redacted: bool = False) -> str:
        """One entry (an assistant message with its tool results), ending in a blank line.

        Args:
            entry: the entry.
            body: its body.
            results: an assistant message's tool results (see :func:`core.kinds.pairing.paired`).
            redacted: the body, the results and :attr:`labels` are redacted already (the HTML export
                redacts once for the entry and its sidebar row, so a secret is counted once).
        """
        redactor = None if redacted else self.redactor
        if redactor is not None:
            body = redactor.value(body)
            if results:
                results = {k: redactor.value(v) for k, v in results.items()}
        try:
            text = self._entry(entry, body, results)
        except RecursionError:  # a pathologically nested value
            text = self.heading(entry.type or "entry", entry) + self.para("(nested too deeply to show)")
        text += self.note_lines(self.entry_notes(entry))
        label = self.labels.get(entry.id)
        if label:
            shown = redactor.text(label) if redactor is not None else label
            text += self.para(self.italic("Label:") + " " + self.esc(shown))
        return self.entry_box(entry, text) + "\n"

    def _entry(self, entry: Entry, body: Body, results: Results | None) -> str:
        kind = entry.kind
        if kind == "message":
            message = body.get("message")
            if not isinstance(message, dict):
                return self.generic(entry, body)
            role = message.get("role")
            if role == "user":
                return self.heading("User", entry, message) + self.content(message.get("content"), entry.id)
            if role == "assistant":
                return self.assistant(entry, message, results)
            if role == "toolResult":
                return self.tool_result(entry, message)
            if role == "bashExecution":
                return self.bash_execution(entry, message)
            if role in ("custom", "hookMessage"):
                return self.custom_message(entry, message)
            if role == "branchSummary":
                return self.summary("Branch summary", entry, message)
            if role == "compactionSummary":
                return self.summary("Compaction summary", entry, message)
            if role == "system":
                return self.system_message(entry, message)
            return self.generic(entry, body)
        if kind == "compaction":
            return self.summary("Compaction", entry, body)
        if kind == "branch_summary":
            return self.summary("Branch summary", entry, body)
        if kind == "custom_message":
            return self.custom_message(entry, body)
        if kind == "custom":
            head = self.heading("Extension data", entry, extra=as_text(body.get("customType")) or "custom")
            return head + self.block(json_excerpt(body.get("data")), "json")
        if kind == "context_edit":
            return self.context_edit(entry, body)
        record = self.record(entry, body)
        return record if record is not None else self.generic(entry, body)

    # ----------------------------------------------------------------- pieces
    def generic(self, entry: Entry, body: Body) -> str:
        """An entry this renderer does not know: its type, and its JSON (folded away where the format can)."""
        head = self.heading(f"[{entry.type or 'entry'}]", entry)
        words = self.para(self.italic(self.esc(GENERIC_MARK[0].upper() + GENERIC_MARK[1:] + ".")))
        return head + words + self.raw_json(json_excerpt(body))

    def raw_block(self, block: Block) -> str:
        """A content block of an unknown type, as its JSON."""
        name = as_text(block.get("type")) or "block"
        return self.para(self.italic(self.esc(f"[{name}]"))) + self.block(json_excerpt(block), "json")

    def content(self, content: object, entry_id: str) -> str:
        """Text blocks as Markdown and images, in order."""
        return "".join(
            self.part(block, image_index, entry_id) for block, image_index in numbered_blocks(content)
        )

    def part(self, block: Block, image_index: int, entry_id: str) -> str:
        """One block of a message in the export: its text (none when blank), its image, or its JSON.

        ``image_index`` numbers the images of the message (:func:`core.session.content.numbered_blocks`);
        ``entry_id`` names the files of images written beside the export.
        """
        kind = block.get("type")
        if kind == "text":
            text = block.get("text")
            return self.markdown(text) if isinstance(text, str) and text.strip() else ""
        if kind == "image":
            return self.image(entry_id, image_index, block)
        return self.raw_block(block)

    def image(self, entry_id: str, index: int, block: Block) -> str:
        """An image block: a data URI, a file beside the export, or a note."""
        mode = self.options.images
        if mode == "omit":
            return self.para(self.italic(self.esc("[image omitted]")))
        decoded = decode_image(block)
        if decoded is None:
            mime = as_text(block.get("mimeType")) or "unknown type"
            note = f"[image ({mime}): not included, the data is invalid or not an allowed image type]"
            return self.para(self.italic(self.esc(note)))
        data, mime = decoded
        if mode == "beside" and self.images is not None:
            # Percent-encoded, so a folder name with spaces or brackets stays one link destination.
            target = quote(self.images.add(entry_id, index, data, mime), safe="/")
        else:
            target = f"data:{mime};base64,{base64.b64encode(data).decode('ascii')}"
        return self.image_ref(target, index)

    def assistant(self, entry: Entry, message: dict[str, object], results: Results | None) -> str:
        """An assistant message: thinking, text, tool calls with results, and how it stopped."""
        model = as_text(message.get("model"))
        provider = as_text(message.get("provider"))
        name = f"{provider}/{model}" if provider and model else model
        if name and name not in self.models:
            self.models.append(name)
        extra = " · ".join(part for part in (name, *assistant_facts(message)) if part)
        out = [self.heading("Assistant", entry, message, extra)]
        content = message.get("content")
        for block, image_index in numbered_blocks(content):
            kind = block.get("type")
            if kind == "thinking":
                if self.options.thinking:
                    out.append(self.thinking(block))
            elif kind == "toolCall":
                if self.options.tools:
                    call_id = block.get("id")
                    result = (
                        results.get(call_id) if results is not None and isinstance(call_id, str) else None
                    )
                    out.append(self.tool_call(block, result, results is not None))
            else:
                out.append(self.part(block, image_index, entry.id))
        stop = message.get("stopReason")
        error = as_text(message.get("errorMessage"))
        if stop == "aborted":
            out.append(self.para(self.bold("Aborted") + (": " + self.esc(error) if error else "")))
        elif stop == "error" or error:
            out.append(self.para(self.bold("Error:") + " " + self.esc(error or "the request failed")))
        elif stop == "length":
            out.append(self.para(self.italic("Stopped: the reply reached the output length limit.")))
        elif stop_note(stop):
            out.append(self.para(self.italic(self.esc(stop_note(stop)))))
        return "".join(out)

    def thinking(self, block: Block) -> str:
        """A thinking block."""
        text = as_text(block.get("thinking")).replace("\r\n", "\n")
        if not text.strip():
            return (
                self.quote("Thinking (redacted by the provider)", "") if block.get("redacted") is True else ""
            )
        return self.quote("Thinking", self.markdown(text))

    def tool_call(self, block: Block, result: Body | None, looked: bool) -> str:
        """A tool call: a bold title, its arguments (a command, a diff, JSON), then its result."""
        name = as_text(block.get("name")) or "tool"
        raw_args = block.get("arguments")
        args = as_dict(raw_args)
        path = as_text(args.get("path")) or as_text(args.get("file_path"))
        title = self.bold(self.esc(f"Tool call: {name}"))
        if path:
            title += " " + self.code(path)
        parts = []
        bad_args = as_text(block.get("argumentsError"))
        if bad_args:
            parts.append(
                self.para(self.bold(self.esc("Arguments not valid JSON:")) + " " + self.esc(bad_args))
            )
        if name == "bash" and isinstance(command := args.get("command"), str):
            parts.append(self.block(command, "sh"))
        elif name == "edit" and (args.get("edits") or args.get("oldText") is not None):
            parts.append(self.block(edits_as_diff(args), "diff"))
        elif name == "write" and isinstance(content := args.get("content"), str):
            parts.append(self.block(content, language_of(path)))
        elif name != "read":  # a read's path says it all; its result is the file
            parts.append(self.block(json_text(raw_args), "json"))
        error = False
        if result is not None:
            message = message_of(result)
            error = message.get("isError") is True
            parts.append(self.result_body(message, result.get("id"), name, path))
            result_id = result.get("id")  # its own notes (a later context edit), shown where it is shown
            if isinstance(result_id, str):
                parts.append(self.note_lines(self.notes.get(result_id) if self.notes is not None else None))
        elif looked:
            parts.append("\n" + self.para(self.italic("(no result recorded)")))
        return self.tool_box(title, parts, error)

    def result_body(self, message: dict[str, object], entry_id: object, name: str, path: str = "") -> str:
        """A tool result's text, diff and images under ``Result:`` or ``Error:``."""
        error = message.get("isError") is True
        parts = []
        details = message.get("details")
        diff = details.get("diff") if isinstance(details, dict) else None
        if isinstance(diff, str) and diff:
            parts.append(self.block(diff, "diff"))
        text = joined_text(message.get("content"))
        if text:
            parts.append(self.block(text, language_of(path) if name == "read" and not error else "text"))
        elif not parts:
            parts.append(self.para(self.italic("(empty)")))
        owner = entry_id if isinstance(entry_id, str) else "result"
        for block, image_index in numbered_blocks(message.get("content")):
            if image_index >= 0:
                parts.append(self.image(owner, image_index, block))
        facts = self.run_facts(message)
        if facts:
            parts.append(facts)
        return self.result_box("Error:" if error else "Result:", parts, error)

    def tool_result(self, entry: Entry, message: dict[str, object]) -> str:
        """A tool result shown on its own (its call is not in the export)."""
        name = as_text(message.get("toolName")) or "tool"
        return self.heading("Tool result", entry, message, name) + self.result_body(message, entry.id, name)

    def bash_execution(self, entry: Entry, message: dict[str, object]) -> str:
        """A command the user ran in the agent's shell, with its output and exit status."""
        out = [self.heading("Shell (run by the user)", entry, message)]
        out.append(self.block("$ " + as_text(message.get("command")), "sh"))
        output = as_text(message.get("output"))
        if output:
            out.append("\n" + self.block(output, "text"))
        status = []
        code = message.get("exitCode")
        if message.get("cancelled") is True:
            status.append("cancelled")
        elif isinstance(code, int | float) and not isinstance(code, bool):
            status.append(f"exit code {code:g}")
        if message.get("truncated") is True:
            status.append("output truncated")
        if message.get("excludeFromContext") is True:
            status.append("not sent to the model")
        if status:
            out.append("\n" + self.para(self.italic(self.esc(", ".join(status)))))
        return "".join(out)

    def custom_message(self, entry: Entry, source: dict[str, object]) -> str:
        """A message an extension added (custom_message entry or custom role)."""
        kind = as_text(source.get("customType")) or "custom"
        message = source if "role" in source else None
        head = self.heading("Extension message", entry, message, kind)
        if source.get("display") is not True:
            head += self.para(self.italic("(hidden from the agent's screen)"))
        return head + self.content(source.get("content"), entry.id)

    def summary(self, title: str, entry: Entry, source: dict[str, object]) -> str:
        """A compaction or branch summary."""
        extras = []
        tokens = source.get("tokensBefore")
        if isinstance(tokens, int | float) and not isinstance(tokens, bool):
            extras.append(f"from {whole_tokens(tokens)} tokens")
        usage = self.summary_usage(source)
        if usage:
            extras.append(usage)
        message = source if "role" in source else None
        summary = as_text(source.get("summary"))
        text = self.markdown(summary) if summary.strip() else self.para(self.italic("(empty summary)"))
        heading = self.heading(title, entry, message, " · ".join(extras))
        return heading + text + self.summary_facts(source, entry)
