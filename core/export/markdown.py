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
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any
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
from core.export.markup import MarkdownMarkup
from core.kinds.cards import card
from core.kinds.document import (
    BOLD,
    CODE,
    ENTRY,
    ITALIC,
    NOTE,
    SESSION,
    WARN,
    Block,
    Bullets,
    Card,
    Code,
    Diff,
    Fold,
    Image,
    Inline,
    Markdown,
    Output,
    Para,
    Table,
    Thinking,
    ToolCall,
)
from core.kinds.notes import SessionNotes, session_notes
from core.kinds.pairing import Results, paired, tool_results_for
from core.render.images import decode_image
from core.render.links import file_name
from core.session.content import Body

if TYPE_CHECKING:
    from core.export.redact import Redactor
    from core.session import Entry, Session

__all__ = [
    "MarkdownExport",
    "MarkdownRenderer",
    "card_to_markdown",
    "entry_to_markdown",
    "session_to_markdown",
]


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
    results = tool_results_for(session, entry)  # {} for an entry that makes no tool calls
    renderer = MarkdownRenderer(ExportOptions(), None, None, session.labels)
    renderer.notes = session_notes(session)
    return renderer.entry(entry, body, results)


def card_to_markdown(made: Card) -> str:
    """A card as the Markdown export writes it (one message of what the model saw, copied); images inline.

    Args:
        made: the card (:func:`core.kinds.cards.card`).
    """
    return MarkdownRenderer(ExportOptions(), None, None, {}).card(made)


def session_to_markdown(
    session: Session,
    options: ExportOptions | None = None,
    *,
    leaf_id: str | None = None,
    whole_tree: bool = False,
    redactor: Redactor | None = None,
    image_folder: str = "images",
    entries: list[Entry] | None = None,
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
        entries: the entries of one path to render instead, in order (what a transcript shows in its
            filter mode: copying a whole transcript); ``leaf_id`` and ``whole_tree`` are then unused.

    Returns:
        The document and the image files to write beside it.
    """
    options = options or ExportOptions()
    if not entries:
        entries = select_entries(session, leaf_id, whole_tree)
    else:
        whole_tree = False
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


class MarkdownRenderer(MarkdownMarkup):
    """Renders entries as Markdown with one set of options.

    What an entry shows is its card (:func:`core.kinds.cards.card`, the message view's too); how each block
    of it is written here uses only the formatting primitives of :class:`~core.export.markup.MarkdownMarkup`
    (:meth:`esc`, :meth:`code`, :meth:`code_block`, :meth:`para`...); the HTML export subclasses this and
    swaps the primitives, so both formats always show the same content.

    Attributes:
        notes: the session's context edits and child-usage attributions (None: none are shown).
    """

    notes: SessionNotes | None = None

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
        label = self.labels.get(entry.id)
        if label and redactor is not None:
            label = redactor.text(label)
        notes = self.notes.for_card(entry.id, results) if self.notes is not None else None
        made = card(entry, body, results, notes, label)
        if made.model and made.model not in self.models:
            self.models.append(made.model)
        try:
            text = self.card(made)
        except RecursionError:  # a pathologically nested value
            text = self.heading(made.title or "entry", entry, made.moment, []) + self.para(
                "(nested too deeply to show)"
            )
        return self.entry_box(entry, made.family, text) + "\n"

    def card(self, made: Card) -> str:
        """A card: its heading (or its one line with the time), then its blocks."""
        if made.line is not None:
            head = self.line(self.inline(made.line), made.moment)
            blocks = made.blocks[1:]
        else:
            head = self.heading(made.title, made.entry, made.moment, made.facts)
            blocks = made.blocks
        parts = [head]
        for block in blocks:  # self.block, inlined: a card has a few blocks, an export 10,000 cards
            method = _BLOCKS.get(type(block))
            if method is not None:
                parts.append(method(self, block))
        return "".join(parts)

    def block(self, block: Block) -> str:
        """One block of a card (``""`` for one the options leave out)."""
        method = _BLOCKS.get(type(block))
        return method(self, block) if method is not None else ""

    # ----------------------------------------------------------------- inline text
    def inline(self, pieces: Inline) -> str:
        """Inline text: plain strings escaped, spans styled."""
        out = []
        for piece in pieces:
            if isinstance(piece, str):
                out.append(self.text(piece))
                continue
            text, style = piece
            if style == CODE:
                out.append(self.code(text))
            elif style == ENTRY:
                out.append(self.entry_link(text) if text and text != "?" else self.code(text or "?"))
            elif style == SESSION:  # another session: its file's name (a path here means nothing there)
                out.append(self.code(file_name(text)))
            elif style == ITALIC:
                out.append(self.italic(self.text(text)))
            elif style == BOLD:
                out.append(self.bold(self.text(text)))
            else:
                out.append(self.text(text))  # the coloured tones (ok, warn, error): colour is the view's
        return "".join(out)

    # ----------------------------------------------------------------- blocks
    def para_block(self, block: Para) -> str:
        """A paragraph; a remark or a warning in italics."""
        inner = self.inline(block.inline)
        return self.para(self.italic(inner) if block.tone in (NOTE, WARN) else inner)

    def markdown_block(self, block: Markdown) -> str:
        """Message text, as its author wrote it."""
        return self.markdown(block.text)

    def code_part(self, block: Code) -> str:
        """Code in a block, its language from the fence or the file."""
        return self.code_block(block.text, block.language, block.path)

    def output_part(self, block: Output) -> str:
        """A tool's or a command's output, as plain text."""
        return self.code_block(block.text, "text")

    def diff_part(self, block: Diff) -> str:
        """A diff."""
        return self.code_block(block.text, "diff")

    def thinking_part(self, block: Thinking) -> str:
        """A thinking block (left out when the export leaves thinking out)."""
        if not self.options.thinking:
            return ""
        return self.thinking(block)

    def thinking(self, block: Thinking) -> str:
        """A thinking block, quoted."""
        if not block.text.strip():
            return self.quote("Thinking (redacted by the provider)", "") if block.redacted else ""
        return self.quote("Thinking", self.markdown(block.text))

    def image_part(self, block: Image) -> str:
        """An image block: a data URI, a file beside the export, or a note."""
        return self.image(block.entry_id, block.number, block.block)

    def image(self, entry_id: str, index: int, block: dict[str, object]) -> str:
        """An image block: a data URI, a file beside the export, or a note."""
        mode = self.options.images
        if mode == "omit":
            return self.para(self.italic(self.esc("[image omitted]")))
        decoded = decode_image(block)
        if decoded is None:
            mime = block.get("mimeType")
            shown = mime if isinstance(mime, str) and mime else "unknown type"
            note = f"[image ({shown}): not included, the data is invalid or not an allowed image type]"
            return self.para(self.italic(self.esc(note)))
        data, mime = decoded
        if mode == "beside" and self.images is not None:
            # Percent-encoded, so a folder name with spaces or brackets stays one link destination.
            target = quote(self.images.add(entry_id, index, data, mime), safe="/")
        else:
            target = f"data:{mime};base64,{base64.b64encode(data).decode('ascii')}"
        return self.image_ref(target, index)

    def bullets_part(self, block: Bullets) -> str:
        """A list."""
        return self.bullets([self.inline(item) for item in block.items])

    def table_part(self, block: Table) -> str:
        """Facts as a two-column table."""
        return self.table([(name, self.inline(value)) for name, value in block.rows])

    def fold_part(self, block: Fold) -> str:
        """A system prompt or an unknown entry's JSON, folded away where the format can."""
        return self.fold(block.title, "".join(self.block(b) for b in block.blocks), block.role)

    def tool_call(self, block: ToolCall) -> str:
        """A tool call: its head, what it did, then its result (left out when the export leaves tools out)."""
        if not self.options.tools:
            return ""
        parts = [self.block(b) for b in block.blocks]
        result = block.result
        if result is not None:
            inner = [self.block(b) for b in result.blocks]
            parts.append(self.result_box("Error:" if result.error else "Result:", inner, result.error))
            parts.extend(self.block(b) for b in result.notes)
        return self.tool_box(self.inline(block.head), parts, block.error)


_BLOCKS: dict[type, Callable[[Any, Any], str]] = {
    Para: MarkdownRenderer.para_block,
    Markdown: MarkdownRenderer.markdown_block,
    Code: MarkdownRenderer.code_part,
    Output: MarkdownRenderer.output_part,
    Diff: MarkdownRenderer.diff_part,
    Thinking: MarkdownRenderer.thinking_part,
    Image: MarkdownRenderer.image_part,
    Bullets: MarkdownRenderer.bullets_part,
    Table: MarkdownRenderer.table_part,
    Fold: MarkdownRenderer.fold_part,
    ToolCall: MarkdownRenderer.tool_call,
}
