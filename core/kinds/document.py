"""The document model: an entry's content as a card of blocks, which every back-end renders.

A kind (:mod:`core.kinds`) turns an entry into a :class:`Card`: a heading (a title, facts such as the
model or the usage, a time) and blocks in order: Markdown, code, a tool call with its result, an image,
a notice... The message view (:mod:`core.render.view`), the HTML export (:mod:`core.export.html`) and the
Markdown export (:mod:`core.export.markdown`, and so the PDF) render the same cards, so an entry says
the same words wherever it is shown; a back-end decides only how a block looks (a collapsed fold, a
``<details>``, a block quote) and what it leaves out on request (thinking, tools).

Blocks are plain tuples holding the session's values as they are: nothing is escaped or cut here (each
back-end escapes for its format and cuts what it cannot show). Text in a block is never raw HTML.

Inline text (a line, a notice, a tool call's head) is a tuple of pieces: a ``str`` is plain text, a
:class:`Span` styled text (bold, code, a link to another entry...).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple, TypeAlias

if TYPE_CHECKING:
    from core.session import Entry

__all__ = [
    "BOLD",
    "CODE",
    "ENTRY",
    "ERROR",
    "ITALIC",
    "NOTE",
    "OK",
    "SESSION",
    "WARN",
    "Block",
    "Bullets",
    "Card",
    "Code",
    "Diff",
    "Fold",
    "Image",
    "Inline",
    "Markdown",
    "Output",
    "Para",
    "Result",
    "Span",
    "Table",
    "Thinking",
    "ToolCall",
    "bold",
    "code",
    "entry_link",
    "inline_text",
    "session_link",
]

# Span styles, and the tones of a paragraph or an output.
BOLD = "b"
ITALIC = "i"
CODE = "code"
ENTRY = "entry"
"""A span that names another entry of the session by id (a link where the back-end can make one)."""
SESSION = "session"
"""A span that names another session by its file (a child session): a link in the view, the file's name in
the exports (a page made for someone else has no use for a path on this machine)."""
OK = "ok"
WARN = "warn"
ERROR = "error"
NOTE = "note"
"""A quiet remark about the entry (muted and small in the view, in italics in the exports)."""


class Span(NamedTuple):
    """A piece of inline text with a style.

    The style is :data:`BOLD`, :data:`ITALIC`, :data:`CODE`, :data:`ENTRY` (``text`` is an entry id),
    :data:`SESSION` (``text`` is a session file), or a
    tone (:data:`OK`, :data:`WARN`, :data:`ERROR`: coloured words where the back-end has colours).
    """

    text: str
    style: str


Inline: TypeAlias = tuple["str | Span", ...]
"""Inline text: plain strings and styled spans, in order."""


def bold(text: str) -> Span:
    """Bold text."""
    return Span(text, BOLD)


def code(text: str) -> Span:
    """Inline code (an id, a path, a model name)."""
    return Span(text, CODE)


def entry_link(entry_id: str) -> Span:
    """A reference to another entry of the session."""
    return Span(entry_id, ENTRY)


def session_link(path: str) -> Span:
    """A reference to another session file (a child session the entry launched)."""
    return Span(path, SESSION)


def inline_text(pieces: Inline) -> str:
    """The words of inline text without their styles."""
    return "".join(piece if isinstance(piece, str) else piece.text for piece in pieces)


class Para(NamedTuple):
    """A paragraph of inline text (a sentence about the entry, a status line).

    Attributes:
        inline: the text.
        tone: ``""`` for ordinary text, :data:`NOTE` for a remark, :data:`WARN` for a warning (a
            stopped reply, an edit made later), :data:`ERROR` for an error.
    """

    inline: Inline
    tone: str = ""


class Markdown(NamedTuple):
    """Text its author wrote as Markdown (a message, a summary)."""

    text: str


class Code(NamedTuple):
    """Source code or a file's content, coloured by its language or by the file it comes from.

    Attributes:
        text: the code.
        language: a fence language or Pygments alias (``"python"``, ``"sh"``, ``"json"``); ``""`` to go
            by ``path``.
        path: the file the code is from (its extension chooses the colours), or ``""``.
        key: the fold key: a long block is shown in part until opened (see :mod:`core.render.links`).
    """

    text: str
    language: str = ""
    path: str = ""
    key: str = ""


class Output(NamedTuple):
    """What a tool or a command printed: plain preformatted text, shown in part past a few lines.

    Attributes:
        text: the output.
        key: the fold key.
        tone: ``""``, :data:`ERROR` (a failed tool) or :data:`NOTE` (quiet: the output of an edit).
    """

    text: str
    key: str
    tone: str = ""


class Diff(NamedTuple):
    """A unified diff (``-``/``+`` lines), coloured by the back-end."""

    text: str
    key: str


class Thinking(NamedTuple):
    """A model's reasoning: folded away in the view and the HTML page, quoted in Markdown.

    Attributes:
        text: the reasoning (``""`` when the provider redacted it).
        redacted: the provider withheld the text (``redacted: true``).
        key: the fold key.
    """

    text: str
    redacted: bool
    key: str


class Image(NamedTuple):
    """An image block of the session (base64 data), by the entry that holds it and its number there.

    Attributes:
        entry_id: the entry whose content holds the image.
        number: its position among that entry's image blocks (what ``image:ENTRY/N`` sources count).
        block: the image block itself (``data``, ``mimeType``).
    """

    entry_id: str
    number: int
    block: dict[str, object]


class Bullets(NamedTuple):
    """A list of one-line items (the tools a system message adds, the calls a tool made)."""

    items: tuple[Inline, ...]
    tone: str = ""


class Table(NamedTuple):
    """Facts as a two-column table: ``(name, value)`` rows."""

    rows: tuple[tuple[str, Inline], ...]


class Fold(NamedTuple):
    """Blocks a reader opens when they want them (a system prompt, an unknown entry's JSON).

    Attributes:
        title: what the closed fold says (``"System prompt (12,400 characters)"``).
        blocks: its content.
        key: the fold key.
        role: ``"system"`` or ``"raw"``: how the HTML page styles it.
    """

    title: str
    blocks: tuple[Block, ...]
    key: str
    role: str = "system"


class Result(NamedTuple):
    """A tool result shown under its call.

    Attributes:
        blocks: its diff, output, images and how it ran.
        error: the tool reported an error (``isError``).
        entry_id: the toolResult entry's id (an anchor inside the call's box), or ``""``.
        notes: what other entries say about the result (a later context edit), as paragraphs.
    """

    blocks: tuple[Block, ...]
    error: bool
    entry_id: str = ""
    notes: tuple[Block, ...] = ()


class ToolCall(NamedTuple):
    """A tool call of an assistant message with its result.

    Attributes:
        name: the tool's name.
        head: the one-line head (``read src/app.py:10-40``, ``grep pattern in src``).
        blocks: what the call does (a command, an edit as a diff, the content written, JSON arguments),
            and ``(no result recorded)`` when a result was looked for and none found.
        result: the result that answers it, None when there is none.
        key: the fold key of its output.
    """

    name: str
    head: Inline
    blocks: tuple[Block, ...]
    result: Result | None
    key: str

    @property
    def error(self) -> bool:
        """Whether the tool reported an error."""
        return self.result is not None and self.result.error


Block: TypeAlias = (
    Para | Markdown | Code | Output | Diff | Thinking | Image | Bullets | Table | Fold | ToolCall
)
"""One block of a card."""


class Card(NamedTuple):
    """One entry as every back-end shows it.

    Attributes:
        entry: the entry.
        kind: the name of its kind (``user``, ``assistant``, ``compaction``...; see :mod:`core.kinds`).
        family: how it is styled: ``user``, ``assistant``, ``tool``, ``bash``, ``custom``, ``summary``,
            ``meta`` or ``other`` (the box colour in the view, the CSS class on the page).
        title: the heading's title (``"Assistant"``); ``""`` for a one-line card.
        facts: what the heading says besides the title and time (a model, usage, a tool name).
        moment: the time to show (a message's own ms timestamp, else the entry's), or None.
        blocks: the content, in order.
        line: a one-line card (a model change, a label): its one paragraph, shown with its time;
            None for a card with a heading.
        model: the model that wrote it (an assistant reply's ``provider/model``), else ``""``.
    """

    entry: Entry
    kind: str
    family: str
    title: str
    facts: tuple[str, ...]
    moment: object
    blocks: tuple[Block, ...]
    line: Inline | None = None
    model: str = ""
