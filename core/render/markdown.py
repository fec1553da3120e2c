"""Message Markdown as HTML that is safe for Qt's rich text, through markdown-it (loaded on first use).

CommonMark with tables, strikethrough and hard line breaks. Raw HTML is off; only ``http``, ``https``
and ``mailto`` links stay links; a Markdown image never becomes an ``<img>`` (it is shown as a link
or as its text), so rendering never loads a remote resource. Fenced code is coloured by
:func:`core.render.highlight.code_html`.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from typing import TYPE_CHECKING

from core.render.highlight import code_html
from core.render.palette import palette
from core.render.text import esc

if TYPE_CHECKING:
    from markdown_it import MarkdownIt
    from markdown_it.renderer import RendererHTML
    from markdown_it.token import Token
    from markdown_it.utils import EnvType, OptionsDict

__all__ = ["SAFE_SCHEMES", "render_markdown", "safe_href"]

SAFE_SCHEMES = ("http://", "https://", "mailto:")


def safe_href(href: str) -> bool:
    """Whether a link target may stay clickable (``http``, ``https`` or ``mailto``)."""
    return href.strip().lower().startswith(SAFE_SCHEMES)


def render_markdown(text: str, dark: bool) -> str:
    """``text`` (CommonMark) as an HTML fragment for Qt, every character escaped or markup.

    Args:
        text: the Markdown.
        dark: code is coloured for the dark palette.
    """
    html: str = _markdown(dark).render(text, {})
    return html


@lru_cache(maxsize=2)
def _markdown(dark: bool) -> MarkdownIt:
    """A CommonMark parser (tables, strikethrough, hard line breaks) whose output is safe for Qt."""
    from markdown_it import MarkdownIt

    pal = palette(dark)
    md = MarkdownIt("commonmark", {"html": False, "breaks": True, "xhtmlOut": False}).enable(
        ["table", "strikethrough"]
    )

    # The rules keep markdown-it's signature: (renderer, tokens, index, options, env).
    def link_open(
        self: RendererHTML, tokens: Sequence[Token], idx: int, options: OptionsDict, env: EnvType
    ) -> str:
        href = tokens[idx].attrGet("href") or ""
        safe = safe_href(str(href))
        env.setdefault("links", []).append(safe)
        return f'<a href="{esc(str(href))}">' if safe else ""

    def link_close(
        self: RendererHTML, tokens: Sequence[Token], idx: int, options: OptionsDict, env: EnvType
    ) -> str:
        stack = env.get("links") or [False]
        return "</a>" if stack.pop() else ""

    def image(
        self: RendererHTML, tokens: Sequence[Token], idx: int, options: OptionsDict, env: EnvType
    ) -> str:
        token = tokens[idx]
        alt = self.renderInlineAsText(token.children or [], options, env)
        label = f"[image: {alt}]" if alt else "[image]"
        src = str(token.attrGet("src") or "")
        inside_link = any(env.get("links") or [])
        if safe_href(src) and not src.lower().startswith("mailto:") and not inside_link:
            return f'<a href="{esc(src)}">{esc(label)}</a>'
        return esc(label)

    def fence(
        self: RendererHTML, tokens: Sequence[Token], idx: int, options: OptionsDict, env: EnvType
    ) -> str:
        token = tokens[idx]
        info = token.info.strip().split(maxsplit=1)
        return code_html(token.content, info[0] if info else "", pal)

    def code_block(
        self: RendererHTML, tokens: Sequence[Token], idx: int, options: OptionsDict, env: EnvType
    ) -> str:
        return code_html(tokens[idx].content, "", pal)

    def code_inline(
        self: RendererHTML, tokens: Sequence[Token], idx: int, options: OptionsDict, env: EnvType
    ) -> str:
        return f'<code style="background-color:{pal.code_bg}">{esc(tokens[idx].content)}</code>'

    def raw_html(
        self: RendererHTML, tokens: Sequence[Token], idx: int, options: OptionsDict, env: EnvType
    ) -> str:
        return esc(tokens[idx].content)  # never produced with html disabled; escaped if it ever is

    def table_open(
        self: RendererHTML, tokens: Sequence[Token], idx: int, options: OptionsDict, env: EnvType
    ) -> str:
        return (
            f'<table border="1" cellspacing="0" cellpadding="4" '
            f'style="border-collapse:collapse; border-color:{pal.border}">\n'
        )

    for name, rule in (
        ("link_open", link_open),
        ("link_close", link_close),
        ("image", image),
        ("fence", fence),
        ("code_block", code_block),
        ("code_inline", code_inline),
        ("html_block", raw_html),
        ("html_inline", raw_html),
        ("table_open", table_open),
    ):
        md.add_render_rule(name, rule)
    return md
