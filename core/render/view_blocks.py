"""The message view's blocks: each block of a card (:mod:`core.kinds.document`) as HTML for Qt's rich text.

Qt's rich text ignores backgrounds on ``div``s, so a box is a one-cell table; colours are written inline
from the palette (what Qt honours reliably, and cheaply: Qt matches each element against every rule of a
stylesheet), coloured code's too. A long output or file is shown in part until its fold is opened; a
fold is a toggle link (:mod:`core.render.links`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from core.kinds.document import (
    BOLD,
    CODE,
    ENTRY,
    ERROR,
    ITALIC,
    NOTE,
    OK,
    SESSION,
    WARN,
    Block,
    Bullets,
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
from core.render.highlight import Highlighter
from core.render.images import decode_image, image_size
from core.render.links import entry_href, file_name, image_src, session_href, toggle_href
from core.render.markdown import render_markdown
from core.render.text import esc

if TYPE_CHECKING:
    from core.render.palette import Palette
    from core.render.view import RenderOptions

__all__ = ["BlockHtml"]

MAX_IMAGE_WIDTH = 480  # px; larger images are scaled down in the view
MAX_MARKDOWN_CHARS = 200_000  # one text block; more is cut with a note
COLLAPSED_CHARS = 4_000  # a folded output shows at most this much, whatever its line count
MAX_EXPANDED_CHARS = 400_000  # an opened output shows at most this much
MAX_CODE_LINES = 400  # lines of one code block coloured in the view (more is shown plain)
MAX_CODE_CHARS = 60_000
CARD_BUDGET = 200_000  # characters of code coloured in one card
_QT_TABLE = (
    '<table border="1" cellspacing="0" cellpadding="4" style="border-collapse:collapse; border-color:{}">'
)


class BlockHtml:
    """Renders the blocks of one card with one palette, one set of options and one highlighter.

    Attributes:
        pal: the colours.
        options: what to show.
    """

    def __init__(self, pal: Palette, options: RenderOptions) -> None:
        self.pal = pal
        self.options = options
        self._highlighter = Highlighter(
            CARD_BUDGET if options.colours else 0,
            MAX_CODE_CHARS,
            None if options.expand_all else MAX_CODE_LINES,
            inline=pal.pygments_style,
            background=pal.code_bg,
        )

    def block(self, block: Block) -> str:
        """One block's HTML (``""`` for a block the options leave out)."""
        method = _BLOCKS.get(type(block))
        return method(self, block) if method is not None else ""

    # ----------------------------------------------------------------- small pieces
    def inline(self, pieces: Inline) -> str:
        """Inline text: plain strings escaped, spans styled."""
        out = []
        for piece in pieces:
            if isinstance(piece, str):
                out.append(esc(piece))
            else:
                out.append(self._span(piece.text, piece.style))
        return "".join(out)

    def _span(self, text: str, style: str) -> str:
        pal = self.pal
        if style == BOLD:
            return f"<b>{esc(text)}</b>"
        if style == ITALIC:
            return f"<i>{esc(text)}</i>"
        if style == CODE:
            return f"<code>{esc(text)}</code>"
        if style == ENTRY:
            if not text or text == "?":
                return f"<code>{esc(text or '?')}</code>"
            return f'<a href="{esc(entry_href(text))}"><code>{esc(text)}</code></a>'
        if style == SESSION:
            return f'<a href="{esc(session_href(text))}"><code>{esc(file_name(text))}</code></a>'
        color = {OK: pal.ok, WARN: pal.warn, ERROR: pal.error}.get(style)
        return f'<span style="color:{color}"><b>{esc(text)}</b></span>' if color else esc(text)

    def box(self, inner: str, background: str) -> str:
        """A full-width box with a background (a table: Qt's rich text ignores backgrounds on divs)."""
        return (
            f'<table width="100%" border="0" cellspacing="0" cellpadding="6" '
            f'style="background-color:{background}; margin-top:4px; margin-bottom:4px">'
            f"<tr><td>{inner}</td></tr></table>"
        )

    def note(self, text: str, color: str | None = None) -> str:
        """A small line of plain text."""
        return f'<p style="color:{color or self.pal.muted}"><small>{esc(text)}</small></p>'

    def toggle(self, key: str, label: str) -> str:
        """The link that opens or closes the fold ``key``."""
        return f'<a href="{esc(toggle_href(key))}">{esc(label)}</a>'

    def is_open(self, key: str) -> bool:
        """Whether the fold ``key`` is shown open."""
        return self.options.expand_all or key in self.options.expanded

    def pre(self, text: str, color: str | None = None) -> str:
        """Preformatted plain text."""
        style = f' style="color:{color}"' if color else ""
        return f"<pre{style}>{esc(text)}</pre>"

    def markdown(self, text: str) -> str:
        """Message Markdown through cmark (tables with Qt's borders), cut with a note past a size."""
        note = ""
        if len(text) > MAX_MARKDOWN_CHARS and not self.options.expand_all:
            note = self.note(f"(text cut: {len(text) - MAX_MARKDOWN_CHARS:,} more characters not shown)")
            text = text[:MAX_MARKDOWN_CHARS]
        html = render_markdown(text, self._highlighter, data_images=False)
        if "<table>" in html:
            html = html.replace("<table>", _QT_TABLE.format(self.pal.border))
        return html + note

    def clipped(self, text: str, key: str) -> tuple[str, str]:
        """Cut an output to its folded size unless ``key`` is open; returns (text, footer HTML)."""
        if text.endswith("\n"):
            text = text[:-1]
        if self.options.expand_all:
            return text, ""
        limit = max(1, self.options.max_result_lines)
        line_count = text.count("\n") + 1
        if not key or (line_count <= limit and len(text) <= COLLAPSED_CHARS):
            if len(text) > MAX_EXPANDED_CHARS:
                hidden = len(text) - MAX_EXPANDED_CHARS
                return text[:MAX_EXPANDED_CHARS], self.note(f"({hidden:,} more characters not shown)")
            return text, ""
        if key in self.options.expanded:
            footer = ""
            if len(text) > MAX_EXPANDED_CHARS:
                footer = self.note(f"({len(text) - MAX_EXPANDED_CHARS:,} more characters not shown)")
                text = text[:MAX_EXPANDED_CHARS]
            return text, footer + f"<p><small>{self.toggle(key, 'show less')}</small></p>"
        shown = "\n".join(text.split("\n", limit)[:limit]) if line_count > limit else text
        if len(shown) > COLLAPSED_CHARS:
            shown = shown[:COLLAPSED_CHARS]
        hidden_lines = line_count - (shown.count("\n") + 1)
        if hidden_lines > 0:
            label = f"… {hidden_lines:,} more line{'s' if hidden_lines != 1 else ''} (show all)"
        else:
            label = f"… {len(text) - len(shown):,} more characters (show all)"
        return shown, f"<p><small>{self.toggle(key, label)}</small></p>"

    # ----------------------------------------------------------------- blocks
    def para(self, block: Para) -> str:
        """A paragraph; a remark small and muted, a warning in its colour, an error in a red box."""
        pal = self.pal
        inner = self.inline(block.inline)
        if block.tone == ERROR:
            return self.box(f'<span style="color:{pal.error}">{inner}</span>', pal.error_bg)
        color = {NOTE: pal.muted, WARN: pal.warn, OK: pal.ok}.get(block.tone)
        if color is None:
            return f"<p>{inner}</p>"
        return f'<p style="color:{color}"><small>{inner}</small></p>'

    def markdown_block(self, block: Markdown) -> str:
        """Message text as Markdown."""
        return self.markdown(block.text)

    def code(self, block: Code) -> str:
        """Code coloured by its language or file, shown in part until opened."""
        shown, footer = self.clipped(block.text, block.key)
        if len(shown) > MAX_CODE_CHARS or shown.count("\n") >= MAX_CODE_LINES:
            return self.pre(shown) + footer  # opened and large: all of it, without colours (or cut)
        return self._highlighter.block(shown, block.language, block.path) + footer

    def output(self, block: Output) -> str:
        """A tool's or command's output, shown in part until opened."""
        shown, footer = self.clipped(block.text, block.key)
        color = {ERROR: self.pal.error, NOTE: self.pal.muted}.get(block.tone)
        return self.pre(shown, color) + footer

    def diff(self, block: Diff) -> str:
        """A unified diff with added and deleted lines coloured, shown in part until opened."""
        shown, footer = self.clipped(block.text, block.key)
        pal = self.pal
        lines = []
        for line in shown.split("\n"):
            if line.startswith("@@"):
                lines.append(f'<span style="color:{pal.muted}">{esc(line)}</span>')
            elif line.startswith(("+++", "---")):
                lines.append(f'<span style="color:{pal.muted}"><b>{esc(line)}</b></span>')
            elif line.startswith("+"):
                lines.append(
                    f'<span style="color:{pal.add}; background-color:{pal.add_bg}">{esc(line)}</span>'
                )
            elif line.startswith("-"):
                lines.append(
                    f'<span style="color:{pal.delete}; background-color:{pal.delete_bg}">{esc(line)}</span>'
                )
            else:
                lines.append(esc(line))
        return '<pre class="diff">' + "\n".join(lines) + "</pre>" + footer

    def thinking(self, block: Thinking) -> str:
        """A thinking block: a toggle link, and the text when it is open."""
        if not self.options.show_thinking:
            return ""
        pal = self.pal
        if not self.is_open(block.key):
            label = "Thinking (redacted)" if block.redacted and not block.text.strip() else "Thinking…"
            return (
                f'<p class="thinking" style="color:{pal.thinking}"><i>{self.toggle(block.key, label)}</i></p>'
            )
        link = self.toggle(block.key, "▾ Thinking")
        if not block.text.strip():
            return f'<p class="thinking" style="color:{pal.thinking}"><i>{link}</i></p>' + self.note(
                "(redacted by the provider)"
            )
        # Reasoning is draft text: shown as written (its line breaks kept), as the HTML page shows it.
        text = esc(block.text.strip("\n"))
        style = f"color:{pal.thinking}; font-style:italic; white-space:pre-wrap"
        return (
            f'<p class="thinking" style="color:{pal.thinking}"><i>{link}</i></p>'
            f'<p class="thinking" style="{style}">{text}</p>'
        )

    def image(self, block: Image) -> str:
        """An image block as an ``image:`` reference sized for the view, or a note when it is invalid."""
        decoded = decode_image(block.block)
        if decoded is None:
            mime = block.block.get("mimeType")
            shown = mime if isinstance(mime, str) and mime else "unknown type"
            return self.note(
                f"[image ({shown}): not shown, the data is invalid or not an allowed image type]"
            )
        size = image_size(decoded[0])
        if size is None:
            dims = f'width="{MAX_IMAGE_WIDTH}"'
        else:
            width, height = size
            if width > MAX_IMAGE_WIDTH:
                height = max(1, round(height * MAX_IMAGE_WIDTH / width))
                width = MAX_IMAGE_WIDTH
            dims = f'width="{width}" height="{height}"'
        return f'<p><img src="{esc(image_src(block.entry_id, block.number))}" {dims}></p>'

    def bullets(self, block: Bullets) -> str:
        """A list; a quiet one small and muted."""
        if block.tone == NOTE:
            items = "".join(f"<li><small>{self.inline(item)}</small></li>" for item in block.items)
            return f'<ul style="color:{self.pal.muted}; margin-top:0">{items}</ul>'
        return "<ul>" + "".join(f"<li>{self.inline(item)}</li>" for item in block.items) + "</ul>"

    def table(self, block: Table) -> str:
        """Facts as a two-column table."""
        rows = "".join(
            f"<tr><th>{esc(name)}</th><td>{self.inline(value)}</td></tr>" for name, value in block.rows
        )
        return _QT_TABLE.format(self.pal.border) + rows + "</table>"

    def fold(self, block: Fold) -> str:
        """A fold: a toggle link, and its blocks when it is open."""
        pal = self.pal
        if not self.is_open(block.key):
            return f'<p style="color:{pal.thinking}"><i>{self.toggle(block.key, block.title + "…")}</i></p>'
        link = f'<p style="color:{pal.thinking}"><i>{self.toggle(block.key, "▾ " + block.title)}</i></p>'
        return link + "".join(self.block(b) for b in block.blocks)

    def tool_call(self, block: ToolCall) -> str:
        """A tool call with its result in one box; one line when tools are not shown in full."""
        pal = self.pal
        result = block.result
        error = " " + _badge("✗ error", pal) if block.error else ""
        anchor = f'<a name="{esc(result.entry_id)}"></a>' if result is not None and result.entry_id else ""
        head = self.inline(block.head)
        if not self.options.show_tools:
            return f'<p style="color:{pal.muted}">{anchor}🔧 {head}{error}</p>'
        parts = [f"{anchor}<p>{head}{error}</p>", *(self.block(b) for b in block.blocks)]
        if result is not None:
            label = "Error:" if result.error else "Result:"
            parts.append(self.note(label, pal.error if result.error else None))
            parts.extend(self.block(b) for b in result.blocks)
            parts.extend(self.block(b) for b in result.notes)
        return self.box("".join(parts), pal.error_bg if block.error else pal.tool_bg)


def _badge(text: str, pal: Palette) -> str:
    return f'<span style="color:{pal.error}; background-color:{pal.error_bg}">&nbsp;{esc(text)}&nbsp;</span>'


_BLOCKS: dict[type, Callable[[Any, Any], str]] = {
    Para: BlockHtml.para,
    Markdown: BlockHtml.markdown_block,
    Code: BlockHtml.code,
    Output: BlockHtml.output,
    Diff: BlockHtml.diff,
    Thinking: BlockHtml.thinking,
    Image: BlockHtml.image,
    Bullets: BlockHtml.bullets,
    Table: BlockHtml.table,
    Fold: BlockHtml.fold,
    ToolCall: BlockHtml.tool_call,
}
