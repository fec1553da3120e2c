"""Code in the HTML export: ``<pre>`` blocks coloured by Pygments within a budget, and their stylesheet.

Pygments is loaded on first use through :mod:`core.render.highlight` (the message view colours code
the same way); the page's code carries CSS classes under ``.hl`` and :func:`pygments_css` styles them.
"""

from __future__ import annotations

import html
import re
from functools import lru_cache

from core.export.common import esc_text
from core.render.highlight import class_formatter, highlight, lexer_by_name, style_defs

__all__ = ["HIGHLIGHT_BUDGET", "LT", "Highlighter", "pygments_css"]

_MAX_HIGHLIGHT = 20_000  # characters; larger code blocks are shown escaped, without colours
# Characters Pygments colours per export, in the order they appear. Pygments manages about 0.3 MB/s,
# so the 20,000-message benchmark session (11 MB of code) would take 40 seconds; a session of a few
# hundred messages is coloured throughout. From the first block the budget cannot take on, code is
# shown without colours (see Highlighter.closed).
HIGHLIGHT_BUDGET = 60_000
LT = "\ue000"
"""What stands for ``<`` in the Markdown handed to cmark (see :mod:`core.export.cmark`)."""


class Highlighter:
    """Turns code into ``<pre>`` blocks, coloured by Pygments until a budget of characters is spent.

    Attributes:
        budget: characters that may still be coloured.
        closed: a block with a language did not fit in what was left of the budget, so nothing after
            it is coloured. The budget once closed never changes again: what a block looks like then
            no longer depends on the blocks before it, which lets the page's second half be rendered
            in another process (:mod:`core.export.parallel`) with the same bytes as one process makes.
            (Before, the small blocks after the first refused one kept spending the rest.)
    """

    def __init__(self, budget: int = HIGHLIGHT_BUDGET) -> None:
        self.budget = budget
        self.closed = False

    def block(self, text: str, language: str = "") -> str:
        """A ``<pre>`` block, highlighted (CSS classes under ``.hl``) when the language is known."""
        if text.endswith("\n"):
            text = text[:-1]
        lexer = None
        name = language.lower()
        # "text" is what the export writes for plain output: never coloured, it spends and closes nothing.
        if name and name != "text" and not self.closed and len(text) <= _MAX_HIGHLIGHT:
            if len(text) > self.budget:
                self.closed = True
            else:
                lexer = _lexer(name)
        if lexer is None:
            # Element text, not an attribute: quotes need no escaping (two fewer passes over the code).
            return f"<pre><code>{esc_text(text)}</code></pre>"
        self.budget -= len(text)
        inner = highlight(text, lexer, class_formatter())
        if inner.endswith("\n"):
            inner = inner[:-1]
        return f'<pre class="hl"><code>{inner}</code></pre>'

    def escaped_block(self, escaped: str, language: str = "") -> str:
        """:meth:`block` for code cmark has escaped (``&amp; &lt; &gt; &quot;``, ``<`` as :data:`LT`).

        Code that will not be coloured keeps cmark's escaping (quotes put back: element text leaves
        them as they are) instead of being unescaped and escaped again; :data:`LT` becomes ``&lt;``
        with the rest of the fragment.
        """
        # Each entity stands for one character and is at most six long: a lower bound of the length
        # of the unescaped text (without a final newline), enough to rule out most blocks.
        least = len(escaped) - 1 - 5 * escaped.count("&")
        if language and not self.closed and least <= _MAX_HIGHLIGHT:
            return self.block(html.unescape(escaped.replace(LT, "<")), language)
        if escaped.endswith("\n"):
            escaped = escaped[:-1]
        return "<pre><code>" + escaped.replace("&quot;", '"') + "</code></pre>"


def _lexer(name: str) -> object | None:
    return None if name == "text" else lexer_by_name(name)


def pygments_css(dark: bool | None = None) -> str:
    """The stylesheet for highlighted code: light, dark, or (None) both with a prefers-color-scheme switch."""
    if dark is None:
        return page_pygments_css()
    return _pygments_style("github-dark" if dark else "default")


@lru_cache(maxsize=2)
def _pygments_style(style: str) -> str:
    # The style's own background would fight the page's code background.
    return re.sub(r"^\.hl\s*\{[^}]*\}\n?", "", style_defs(style, ".hl"), flags=re.M)


@lru_cache(maxsize=1)
def page_pygments_css() -> str:
    """Pygments colours for ``.hl``: the default style, and github-dark for readers in dark mode."""
    light, dark = _pygments_style("default"), _pygments_style("github-dark")
    return f"{light}\n@media (prefers-color-scheme: dark) {{\n{dark}\n}}\n"
