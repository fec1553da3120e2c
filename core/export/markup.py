"""The formatting primitives of the Markdown export, which the HTML export swaps for its own.

:class:`MarkdownMarkup` says how a heading, a code block, a paragraph, a tool box... is written in
Markdown; :class:`core.export.markdown.MarkdownRenderer` decides what an entry shows, in which order,
using only these; :class:`core.export.html.HtmlRenderer` overrides them with HTML. Both formats so
always show the same content. Also the value helpers both use (JSON excerpts, fence languages).
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from core.export.common import ExportOptions, ImageSink, code_span, entry_time, fence, md_inline

if TYPE_CHECKING:
    from core.export.redact import Redactor
    from core.session import Entry

__all__ = ["MAX_RAW_JSON", "MarkdownMarkup", "json_excerpt", "json_text", "language_of"]

MAX_RAW_JSON = 20_000  # unknown entries and blocks are shown as JSON up to this size


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

    def code(self, text: str) -> str:
        """Inline code."""
        return code_span(text)

    def block(self, text: str, language: str = "") -> str:
        """A code block."""
        return fence(text, language)

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
        if self.options.safe_markdown:
            from core.export.safe_markdown import safe_markdown

            text = safe_markdown(text)
        return text.rstrip("\n") + "\n\n"

    def image_ref(self, target: str, index: int) -> str:
        """An image, by data URI or relative path."""
        return f"![image {index + 1}]({target})\n\n"

    def heading(
        self, role: str, entry: Entry, message: dict[str, object] | None = None, extra: str = ""
    ) -> str:
        """``### Role · extra · time`` followed by a blank line."""
        return "### " + " · ".join(self.heading_parts(role, entry, message, extra)) + "\n\n"

    def heading_parts(
        self, role: str, entry: Entry, message: dict[str, object] | None, extra: str
    ) -> list[str]:
        """The role, the extra (a model, a tool name) and the time, each formatted."""
        parts = [self.esc(role)]
        if extra:
            parts.append(self.esc(extra))
        when = entry_time(entry, message)
        if when:
            parts.append(when)  # digits, "-", ":" and "UTC": nothing to escape in Markdown or HTML
        return parts

    def line(self, inner: str, entry: Entry) -> str:
        """A one-line bookkeeping entry (``inner`` already formatted) with its time."""
        when = entry_time(entry)
        return self.para(self.italic(inner) + (" · " + when if when else ""))

    def quote(self, title: str, inner: str) -> str:
        """A thinking block: a titled block quote around already formatted Markdown."""
        lines = inner.strip("\n").split("\n") if inner.strip() else []
        quoted = "\n".join(("> " + line).rstrip() for line in lines)
        return f"> {self.italic(self.esc(title))}\n" + (f">\n{quoted}\n" if quoted else "") + "\n"

    def fold(self, title: str, inner: str) -> str:
        """Text a reader opens when they want it (a system prompt): a titled block quote in Markdown."""
        return self.quote(title, inner)

    def bullets(self, items: list[str]) -> str:
        """A list of already formatted one-line items."""
        return "".join(f"- {item}\n" for item in items) + "\n" if items else ""

    def entry_link(self, entry_id: str) -> str:
        """Another entry of the session, by id (a Markdown heading has no anchor to link to)."""
        return self.code(entry_id)

    def raw_json(self, text: str) -> str:
        """The JSON of an entry of an unknown type."""
        return self.block(text, "json")

    def tool_box(self, title: str, parts: list[str], error: bool) -> str:
        """A tool call with its arguments and result (each part already formatted)."""
        return self.para(title) + "".join(parts) + "\n"

    def result_box(self, label: str, parts: list[str], error: bool) -> str:
        """A tool result's output under a label (``Result:`` or ``Error:``)."""
        return "\n" + self.para(self.bold(self.esc(label))) + "\n".join(parts)

    def entry_box(self, entry: Entry, inner: str) -> str:
        """What wraps one entry (nothing in Markdown)."""
        return inner


def json_text(value: object) -> str:
    """``value`` as indented JSON; a string as it is; a note when it cannot be written."""
    if isinstance(value, str):
        return value
    try:
        return json.dumps(value, indent=2, ensure_ascii=False, default=str)
    except (ValueError, TypeError):
        return "(cannot be shown)"


def json_excerpt(value: object) -> str:
    """:func:`json_text` cut to :data:`MAX_RAW_JSON` characters, with a note of how many more there are."""
    text = json_text(value)
    if len(text) <= MAX_RAW_JSON:
        return text
    return text[:MAX_RAW_JSON] + f"\n… ({len(text) - MAX_RAW_JSON:,} more characters)"


_LANGUAGES = {
    "py": "python",
    "js": "javascript",
    "mjs": "javascript",
    "ts": "typescript",
    "tsx": "tsx",
    "jsx": "jsx",
    "rs": "rust",
    "go": "go",
    "rb": "ruby",
    "java": "java",
    "c": "c",
    "h": "c",
    "cpp": "cpp",
    "cs": "csharp",
    "sh": "sh",
    "bash": "bash",
    "json": "json",
    "yml": "yaml",
    "yaml": "yaml",
    "toml": "toml",
    "md": "markdown",
    "html": "html",
    "css": "css",
    "sql": "sql",
    "kt": "kotlin",
    "swift": "swift",
    "php": "php",
}


def language_of(path: str) -> str:
    """A fence language for a file path (by extension), ``""`` when unknown."""
    base = path.replace("\\", "/").rsplit("/", 1)[-1]
    if "." not in base:
        return ""
    return _LANGUAGES.get(base.rsplit(".", 1)[-1].lower(), "")
