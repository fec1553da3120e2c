"""Code coloured by Pygments for every HTML back-end: ``<pre>`` blocks, within a budget.

The message view and the HTML export colour code the same way, with one :class:`Highlighter` each. The
page carries CSS classes under ``.hl``, styled by :func:`pygments_css`; the view writes the colours
inline, because Qt's rich text matches every element against every rule of a stylesheet: Pygments'
eighty rules made a card three times slower to lay out (62 against 19 ms for 60 cards). Pygments
is loaded on first use (importing this module does not load it) and ships no type information: its
lexers and formatters are opaque values here, and only the strings it returns are typed. Its imports stay
plain ``from pygments... import`` statements inside the functions, so PyInstaller's analysis sees them.
"""

from __future__ import annotations

import html
import re
from functools import lru_cache

from core.render.text import esc_text

__all__ = [
    "HIGHLIGHT_BUDGET",
    "LT",
    "MAX_HIGHLIGHT",
    "Highlighter",
    "language_of",
    "lexer_by_name",
    "page_pygments_css",
    "pygments_css",
]

MAX_HIGHLIGHT = 20_000  # characters; a larger code block is shown escaped, without colours
# Characters Pygments colours per export, in the order they appear. Pygments manages about 0.3 MB/s,
# so the 20,000-message benchmark session (11 MB of code) would take 40 seconds; a session of a few
# hundred messages is coloured throughout. From the first block the budget cannot take on, code is
# shown without colours (see Highlighter.closed).
HIGHLIGHT_BUDGET = 60_000
LT = "\ue000"
"""What stands for ``<`` in the Markdown handed to cmark (see :mod:`core.render.markdown`)."""
_WHITESPACE_SPAN = re.compile(r'<span style="[^"<>]*">([ \t]+)</span>')
PLAIN = "text"
"""The language of plain output: never coloured; it spends and closes nothing."""


class Highlighter:
    """Turns code into ``<pre>`` blocks, coloured by Pygments until a budget of characters is spent.

    Attributes:
        budget: characters that may still be coloured.
        max_block: the largest block that is coloured at all.
        max_lines: the most lines of one block shown (the message view; the rest is counted in a note),
            None for all of them (the exports).
        inline: a Pygments style whose colours are written into each span (the message view), or
            ``""`` for CSS classes (the exports).
        background: the code's background colour, written on each ``<pre>`` with ``inline``.
        closed: a block with a language did not fit in what was left of the budget, so nothing after
            it is coloured. The budget once closed never changes again: what a block looks like then
            no longer depends on the blocks before it, which lets the page's second half be rendered
            in another process (:mod:`core.export.parallel`) with the same bytes as one process makes.
    """

    def __init__(
        self,
        budget: int = HIGHLIGHT_BUDGET,
        max_block: int = MAX_HIGHLIGHT,
        max_lines: int | None = None,
        inline: str = "",
        background: str = "",
    ) -> None:
        self.budget = budget
        self.max_block = max_block
        self.max_lines = max_lines
        self.inline = inline
        self.closed = False
        style = f' style="background-color:{background}"' if inline and background else ""
        self._plain_open = f"<pre{style}><code>"
        self._coloured_open = f"<pre{style}><code>" if inline else '<pre class="hl"><code>'

    def block(self, text: str, language: str = "", path: str = "") -> str:
        """A ``<pre>`` block, coloured (CSS classes under ``.hl``) when its language is known.

        Args:
            text: the code.
            language: a fence language or Pygments alias; ``""`` to go by ``path``.
            path: the file the code is from (its extension or name chooses the lexer), or ``""``.
        """
        if text.endswith("\n"):
            text = text[:-1]
        note = ""
        if self.max_lines is not None and text.count("\n") >= self.max_lines:
            hidden = text.count("\n") + 1 - self.max_lines
            text = "\n".join(text.split("\n", self.max_lines)[: self.max_lines])
            note = f'<p class="muted"><small>… {hidden:,} more lines not shown</small></p>'
        lexer = None
        name = language.lower()
        if (name or path) and name != PLAIN and not self.closed and len(text) <= self.max_block:
            if len(text) > self.budget:
                self.closed = True
            else:
                lexer = lexer_by_name(name or language_of(path))
        if lexer is None:
            # Element text, not an attribute: quotes need no escaping (two fewer passes over the code).
            return f"{self._plain_open}{esc_text(text)}</code></pre>{note}"
        self.budget -= len(text)
        if self.inline:
            # Pygments colours whitespace runs too; without those spans Qt lays out half the HTML.
            inner = _WHITESPACE_SPAN.sub(r"\1", _highlight(text, lexer, self.inline))
        else:
            inner = _highlight(text, lexer)
        if inner.endswith("\n"):
            inner = inner[:-1]
        return f"{self._coloured_open}{inner}</code></pre>{note}"

    def escaped_block(self, escaped: str, language: str = "") -> str:
        """:meth:`block` for code cmark has escaped (``&amp; &lt; &gt; &quot;``, ``<`` as :data:`LT`).

        Code that will not be coloured keeps cmark's escaping (quotes put back: element text leaves
        them as they are) instead of being unescaped and escaped again; :data:`LT` becomes ``&lt;``
        with the rest of the fragment.
        """
        # Each entity stands for one character and is at most six long: a lower bound of the length
        # of the unescaped text (without a final newline), enough to rule out most blocks.
        least = len(escaped) - 1 - 5 * escaped.count("&")
        if (language and not self.closed and least <= self.max_block) or self.max_lines is not None:
            return self.block(html.unescape(escaped.replace(LT, "<")), language)
        if escaped.endswith("\n"):
            escaped = escaped[:-1]
        return self._plain_open + escaped.replace("&quot;", '"') + "</code></pre>"


def _highlight(code: str, lexer: object, inline: str = "") -> str:
    """``pygments.highlight`` of ``code``: CSS classes, or the colours of style ``inline`` in each span."""
    from pygments import highlight as run

    result: str = run(code, lexer, _inline_formatter(inline) if inline else _class_formatter())
    return result


@lru_cache(maxsize=4)
def _inline_formatter(style: str) -> object:
    """A Pygments ``HtmlFormatter`` writing the colours of ``style`` into each span, without a wrapper."""
    from pygments.formatters import HtmlFormatter

    formatter: object = HtmlFormatter(noclasses=True, nowrap=True, style=style)
    return formatter


@lru_cache(maxsize=1)
def _class_formatter() -> object:
    """A Pygments ``HtmlFormatter`` writing CSS classes (see :func:`pygments_css`), without a wrapper."""
    from pygments.formatters import HtmlFormatter

    formatter: object = HtmlFormatter(nowrap=True)
    return formatter


@lru_cache(maxsize=256)
def lexer_by_name(name: str) -> object | None:
    """The Pygments lexer for a language name or alias (``"python"``, ``"ts"``), None when unknown."""
    if not name or len(name) > 40 or name == PLAIN:
        return None
    return _find_lexer("get_lexer_by_name", name)


def _find_lexer(finder: str, name: str) -> object | None:
    """``pygments.lexers.<finder>(name)`` keeping the code's newlines as they are; None when not found."""
    from pygments import lexers
    from pygments.util import ClassNotFound

    try:
        lexer: object = getattr(lexers, finder)(name, stripnl=False, ensurenl=False)
    except ClassNotFound:
        return None
    return lexer


def pygments_css(dark: bool | None = None) -> str:
    """The stylesheet for coloured code: light, dark, or (None) both with a prefers-color-scheme switch."""
    if dark is None:
        return page_pygments_css()
    return _pygments_style("github-dark" if dark else "default")


@lru_cache(maxsize=2)
def _pygments_style(style: str) -> str:
    from pygments.formatters import HtmlFormatter

    css: str = HtmlFormatter(style=style).get_style_defs(".hl")
    # The style's own background would fight the page's code background.
    return re.sub(r"^\.hl\s*\{[^}]*\}\n?", "", css, flags=re.M)


@lru_cache(maxsize=1)
def page_pygments_css() -> str:
    """Pygments colours for ``.hl``: the default style, and github-dark for readers in dark mode."""
    light, dark = _pygments_style("default"), _pygments_style("github-dark")
    return f"{light}\n@media (prefers-color-scheme: dark) {{\n{dark}\n}}\n"


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
    "scala": "scala",
    "lua": "lua",
    "r": "r",
    "pl": "perl",
    "ex": "elixir",
    "exs": "elixir",
    "erl": "erlang",
    "hs": "haskell",
    "dart": "dart",
    "zig": "zig",
    "vue": "html",
    "svelte": "html",
    "xml": "xml",
    "ini": "ini",
    "cfg": "ini",
    "proto": "protobuf",
    "tf": "terraform",
    "dockerfile": "docker",
    "makefile": "make",
    "mk": "make",
    "cmake": "cmake",
    "gradle": "groovy",
    "groovy": "groovy",
    "zsh": "zsh",
    "fish": "fish",
    "ps1": "powershell",
    "bat": "batch",
    "diff": "diff",
    "patch": "diff",
    "hpp": "cpp",
    "cc": "cpp",
    "cxx": "cpp",
    "m": "objective-c",
    "mm": "objective-c",
    "fs": "fsharp",
    "clj": "clojure",
    "jl": "julia",
    "nim": "nim",
    "graphql": "graphql",
    "scss": "scss",
    "less": "less",
    "txt": "text",
    "log": "text",
    "csv": "text",
    "lock": "text",
}
# Whole file names that say their language.
_FILE_NAMES = {"makefile": "make", "dockerfile": "docker", "cmakelists.txt": "cmake", "gemfile": "ruby"}


def language_of(path: str) -> str:
    """The language of a file by its extension (or its whole name), ``""`` when this table does not know it.

    A table, not Pygments' own search by file name: that search imports and asks every lexer the first
    time an extension is seen (30 to 80 ms each; half a second of the 20,000-message export).
    """
    base = path.replace("\\", "/").rsplit("/", 1)[-1].lower()
    known = _FILE_NAMES.get(base)
    if known is not None:
        return known
    if "." not in base:
        return ""
    return _LANGUAGES.get(base.rsplit(".", 1)[-1], "")
