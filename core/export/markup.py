"""The formatting primitives of the Markdown export, which the HTML export swaps for its own.

:class:`MarkdownMarkup` says how a heading, a code block, a paragraph, a tool box... is written in
Markdown; :class:`core.export.markdown.MarkdownRenderer` writes an entry's card (:mod:`core.kinds.document`)
with only these; :class:`core.export.html.HtmlRenderer` overrides them with HTML. Both formats so always
show the same content, the content the message view shows.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from core.export.common import ExportOptions, ImageSink, code_span, fence, md_inline, utc_time
from core.render.highlight import language_of

if TYPE_CHECKING:
    from core.export.redact import Redactor
    from core.session import Entry

__all__ = ["MarkdownMarkup"]


class MarkdownMarkup:
    """Markdown primitives, and the state an export's renderer keeps.

    Attributes:
        options: what the export contains.
        redactor: applied to every value taken from the session; None for none.
        images: where images go when they are written beside the export; None to embed them.
        labels: entry id -> its label.
        models: ``provider/model`` names seen in rendered assistant messages, in order.
    """

    def __init__(
        self,
        options: ExportOptions,
        redactor: Redactor | None,
        images: ImageSink | None,
        labels: dict[str, str] | None = None,
    ) -> None:
        self.options = options
        self.redactor = redactor
        self.images = images
        self.labels = labels or {}
        self.models: list[str] = []

    def esc(self, text: str) -> str:
        """Plain text on one line."""
        return md_inline(text)

    def text(self, text: str) -> str:
        """A piece of inline text: :meth:`esc`, keeping a space at either end (pieces are joined)."""
        inner = md_inline(text)
        if not inner:
            return " " if text[:1].isspace() else ""
        return (" " if text[:1].isspace() else "") + inner + (" " if text[-1:].isspace() else "")

    def code(self, text: str) -> str:
        """Inline code."""
        return code_span(text)

    def code_block(self, text: str, language: str = "", path: str = "") -> str:
        """A code block, its fence's language from ``language`` or from the file ``path``."""
        return fence(text, language or language_of(path)) + "\n"

    def bold(self, inner: str) -> str:
        """Strong emphasis around already formatted text."""
        return f"**{inner}**"

    def italic(self, inner: str) -> str:
        """Emphasis around already formatted text."""
        return f"*{inner}*"

    def para(self, inner: str) -> str:
        """A paragraph of already formatted text."""
        return inner + "\n\n"

    def markdown(self, text: str) -> str:
        """Message text, which is Markdown as the author wrote it (raw HTML escaped in safe mode)."""
        text = text.replace("\r\n", "\n").replace("\x00", "\ufffd")
        if not self.options.remote_images and "![" in text:
            from core.export.remote_images import remote_images_as_links

            text = remote_images_as_links(text)
        if self.options.safe_markdown:
            from core.export.safe_markdown import safe_markdown

            text = safe_markdown(text)
        return text.rstrip("\n") + "\n\n"

    def image_ref(self, target: str, index: int) -> str:
        """An image, by data URI or relative path."""
        return f"![image {index + 1}]({target})\n\n"

    def heading(self, title: str, entry: Entry, moment: object, facts: Sequence[str]) -> str:
        """``### Title · facts · time`` followed by a blank line."""
        return "### " + " · ".join(self.heading_parts(title, moment, facts)) + "\n\n"

    def heading_parts(self, title: str, moment: object, facts: Sequence[str]) -> list[str]:
        """The title, the facts (a model, a tool name) and the time, each formatted."""
        parts = [self.esc(title), *(self.esc(fact) for fact in facts if fact)]
        when = utc_time(moment)
        if when:
            parts.append(when)  # digits, "-", ":" and "UTC": nothing to escape in Markdown or HTML
        return parts

    def line(self, inner: str, moment: object) -> str:
        """A one-line bookkeeping entry (``inner`` already formatted) with its time."""
        when = utc_time(moment)
        return self.para(self.italic(inner) + (" · " + when if when else ""))

    def quote(self, title: str, inner: str) -> str:
        """A thinking block: a titled block quote around already formatted Markdown."""
        lines = inner.strip("\n").split("\n") if inner.strip() else []
        quoted = "\n".join(("> " + line).rstrip() for line in lines)
        return f"> {self.italic(self.esc(title))}\n" + (f">\n{quoted}\n" if quoted else "") + "\n"

    def fold(self, title: str, inner: str, role: str) -> str:
        """Blocks a reader opens when they want them: a quoted system prompt, an unknown entry's JSON."""
        if role == "raw":
            return self.para(self.italic(self.esc(title))) + inner
        return self.quote(title, inner)

    def bullets(self, items: list[str]) -> str:
        """A list of already formatted one-line items."""
        return "".join(f"- {item}\n" for item in items) + "\n" if items else ""

    def table(self, rows: list[tuple[str, str]]) -> str:
        """A two-column table of ``(name, already formatted value)`` rows."""
        lines = "".join(f"| {self.esc(name)} | {value} |\n" for name, value in rows)
        return "| | |\n|---|---|\n" + lines + "\n"

    def entry_link(self, entry_id: str) -> str:
        """Another entry of the session, by id (a Markdown heading has no anchor to link to)."""
        return self.code(entry_id)

    def tool_box(self, head: str, parts: list[str], error: bool) -> str:
        """A tool call with its arguments and result (each part already formatted, ending in a blank line)."""
        return self.para(head) + "".join(parts)

    def result_box(self, label: str, parts: list[str], error: bool) -> str:
        """A tool result's output under a label (``Result:`` or ``Error:``)."""
        return self.para(self.bold(self.esc(label))) + "".join(parts)

    def entry_box(self, entry: Entry, family: str, inner: str) -> str:
        """What wraps one entry (nothing in Markdown)."""
        return inner
