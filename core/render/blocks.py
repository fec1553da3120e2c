"""The pieces an entry is rendered from in the message view: boxes, headers, text, outputs, diffs, images.

:class:`Blocks` holds what every piece needs (the entry, its body, the options and the palette); the
tool views (:mod:`core.render.tools`) and the entry renderer (:mod:`core.render.message`) build on it.
Every string from the session is escaped here.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from core.render.highlight import MAX_CODE_CHARS, MAX_CODE_LINES, code_html
from core.render.images import decode_image, image_size
from core.render.links import image_src, toggle_href
from core.render.markdown import render_markdown
from core.render.palette import Palette
from core.render.text import esc, json_excerpt, time_html
from core.session.content import Block, Body, as_number, as_text, numbered_blocks

if TYPE_CHECKING:
    from core.render.message import RenderOptions
    from core.session import Entry

__all__ = ["MAX_RAW_JSON", "Blocks"]

MAX_IMAGE_WIDTH = 480  # px; larger images are scaled down in the view
MAX_MARKDOWN_CHARS = 200_000  # one text block; more is cut with a note
COLLAPSED_CHARS = 4_000  # a collapsed output shows at most this much, whatever its line count
MAX_EXPANDED_CHARS = 400_000  # an expanded output shows at most this much
MAX_RAW_JSON = 4_000  # the generic view of an unknown entry or block


class Blocks:
    """Renders the pieces of one entry.

    Attributes:
        entry: the entry's index record.
        body: its full body.
        options: what to show.
        pal: the colours.
    """

    def __init__(self, entry: Entry, body: Body, options: RenderOptions, pal: Palette) -> None:
        self.entry = entry
        self.body = body
        self.options = options
        self.pal = pal

    def header(self, role: str, extras: Iterable[str] = (), moment: object = None) -> str:
        """The small line above a message: role, extras (already HTML), local time and date."""
        parts = [f'<b style="color:{self.pal.text}">{esc(role)}</b>', *extras]
        when = time_html(moment if as_number(moment) is not None else self.entry.ts_ms)
        if when:
            parts.append(when)
        return f'<p class="hdr" style="color:{self.pal.muted}"><small>{" · ".join(parts)}</small></p>'

    def line(self, inner: str) -> str:
        """A one-line bookkeeping entry (model change, label...) with its time."""
        when = time_html(self.entry.ts_ms)
        tail = f" <small>· {when}</small>" if when else ""
        return f'<p class="muted" style="color:{self.pal.muted}">{inner}{tail}</p>'

    def box(self, inner: str, background: str) -> str:
        """A full-width box with a background (a table: Qt's rich text ignores backgrounds on divs)."""
        return (
            f'<table width="100%" border="0" cellspacing="0" cellpadding="6" '
            f'style="background-color:{background}; margin-top:4px; margin-bottom:4px">'
            f"<tr><td>{inner}</td></tr></table>"
        )

    def badge(self, text: str, color: str | None = None, background: str | None = None) -> str:
        """A short label on a coloured background."""
        style = f"color:{color or self.pal.text}; background-color:{background or self.pal.badge_bg}"
        return f'<span style="{style}">&nbsp;{esc(text)}&nbsp;</span>'

    def toggle(self, key: str, label: str) -> str:
        """The link that expands or collapses the block ``key``."""
        return f'<a href="{esc(toggle_href(key))}">{esc(label)}</a>'

    def markdown(self, text: str) -> str:
        """Message text as Markdown, cut with a note past :data:`MAX_MARKDOWN_CHARS`."""
        note = ""
        if len(text) > MAX_MARKDOWN_CHARS:
            note = self.note(f"(text cut: {len(text) - MAX_MARKDOWN_CHARS:,} more characters not shown)")
            text = text[:MAX_MARKDOWN_CHARS]
        return render_markdown(text, self.options.dark) + note

    def note(self, text: str, color: str | None = None) -> str:
        """A small line of plain text."""
        return f'<p style="color:{color or self.pal.muted}"><small>{esc(text)}</small></p>'

    def pre(self, text: str, color: str | None = None) -> str:
        """Preformatted plain text."""
        style = f' style="color:{color}"' if color else ""
        return f"<pre{style}>{esc(text)}</pre>"

    def image(self, entry_id: object, index: int, block: Block) -> str:
        """An image block as an ``image:`` reference sized for the view, or a note when it is invalid."""
        decoded = decode_image(block)
        mime = as_text(block.get("mimeType")) or "unknown type"
        if decoded is None or not isinstance(entry_id, str):
            return self.note(f"[image ({mime}): not shown, the data is invalid or not an allowed image type]")
        data, _mime = decoded
        size = image_size(data)
        if size is None:
            dims = f'width="{MAX_IMAGE_WIDTH}"'
        else:
            width, height = size
            if width > MAX_IMAGE_WIDTH:
                height = max(1, round(height * MAX_IMAGE_WIDTH / width))
                width = MAX_IMAGE_WIDTH
            dims = f'width="{width}" height="{height}"'
        return f'<p><img src="{esc(image_src(entry_id, index))}" {dims}></p>'

    def content(self, content: object, entry_id: object) -> str:
        """Text blocks as markdown and image blocks as image references, in order."""
        return "".join(
            self.part(block, image_index, entry_id) for block, image_index in numbered_blocks(content)
        )

    def part(self, block: Block, image_index: int, entry_id: object) -> str:
        """One block of a message in the view: text as markdown, an image reference, or unknown JSON.

        Args:
            block: the content block (an empty text block gives ``""``).
            image_index: its number among the message's images, for its ``image:`` source.
            entry_id: the entry the images belong to.
        """
        kind = block.get("type")
        if kind == "text":
            text = block.get("text")
            return self.markdown(text) if isinstance(text, str) and text else ""
        if kind == "image":
            return self.image(entry_id, image_index, block)
        return self.raw_block(block)

    def raw_block(self, block: Block) -> str:
        """A content block of a type this view does not know: its type and JSON."""
        label = block.get("type")
        name = label if isinstance(label, str) else "block"
        return f'<p class="muted" style="color:{self.pal.muted}">[{esc(name)}]</p>' + self.pre(
            json_excerpt(block, MAX_RAW_JSON), self.pal.muted
        )

    def clipped(self, text: str, key: str) -> tuple[str, str]:
        """Cut an output to the collapsed size unless ``key`` is expanded; returns (text, footer HTML)."""
        limit = max(1, self.options.max_result_lines)
        if text.endswith("\n"):
            text = text[:-1]
        line_count = text.count("\n") + 1
        collapsible = line_count > limit or len(text) > COLLAPSED_CHARS
        if not collapsible:
            return text, ""
        if key in self.options.expanded:
            footer = ""
            if len(text) > MAX_EXPANDED_CHARS:
                footer = self.note(f"({len(text) - MAX_EXPANDED_CHARS:,} more characters not shown)")
                text = text[:MAX_EXPANDED_CHARS]
            link = self.toggle(key, "show less")
            return text, footer + f"<p><small>{link}</small></p>"
        shown = text
        if line_count > limit:
            shown = "\n".join(text.split("\n", limit)[:limit])
        if len(shown) > COLLAPSED_CHARS:
            shown = shown[:COLLAPSED_CHARS]
        hidden_lines = line_count - (shown.count("\n") + 1)
        if hidden_lines > 0:
            label = f"… {hidden_lines:,} more line{'s' if hidden_lines != 1 else ''} (show all)"
        else:
            label = f"… {len(text) - len(shown):,} more characters (show all)"
        return shown, f"<p><small>{self.toggle(key, label)}</small></p>"

    def output(self, text: str, key: str, color: str | None = None) -> str:
        """A tool's or command's output, clipped (see :meth:`clipped`)."""
        shown, footer = self.clipped(text, key)
        return self.pre(shown, color) + footer

    def code(self, text: str, key: str, path: str) -> str:
        """An output highlighted by the file's extension (read, write), clipped like any output."""
        shown, footer = self.clipped(text, key)
        if len(shown) > MAX_CODE_CHARS or shown.count("\n") >= MAX_CODE_LINES:
            return self.pre(shown) + footer  # expanded and large: all of it, without colours
        return code_html(shown, None, self.pal, path) + footer

    def diff(self, diff: str, key: str) -> str:
        """A unified diff with added and deleted lines coloured, clipped like any output."""
        shown, footer = self.clipped(diff, key)
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

    def generic(self, type_name: str) -> str:
        """An entry this view does not know: its type, time and JSON."""
        when = time_html(self.entry.ts_ms)
        tail = f" <small>· {when}</small>" if when else ""
        return (
            f'<p class="muted" style="color:{self.pal.muted}"><b>[{esc(type_name)}]</b>{tail}</p>'
            + self.pre(json_excerpt(self.body, MAX_RAW_JSON), self.pal.muted)
        )
