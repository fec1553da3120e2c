"""Code coloured by Pygments, which is loaded on first use (importing this module does not load it).

The Pygments calls the message view and the HTML export share (lexers by language or file name, the
HTML formatters) and the message view's code block. Pygments ships no type information: its lexers and
formatters are opaque values here, and only the strings it returns are typed. Its imports stay plain
``from pygments... import`` statements inside the functions, so PyInstaller's analysis still sees them.
"""

from __future__ import annotations

import re
from functools import lru_cache

from core.render.palette import Palette
from core.render.text import esc

__all__ = [
    "class_formatter",
    "code_html",
    "highlight",
    "inline_formatter",
    "lexer_by_name",
    "lexer_for_file",
    "style_defs",
]

MAX_CODE_LINES = 400  # one code block in the message view
MAX_CODE_CHARS = 60_000
_WHITESPACE_SPAN = re.compile(r'<span style="[^"<>]*">([ \t]+)</span>')


def highlight(code: str, lexer: object, formatter: object) -> str:
    """``pygments.highlight``: ``code`` lexed by ``lexer`` (from :func:`lexer_by_name`) and formatted."""
    from pygments import highlight as run

    result: str = run(code, lexer, formatter)
    return result


@lru_cache(maxsize=4)
def inline_formatter(style: str) -> object:
    """A Pygments ``HtmlFormatter`` writing the colours of ``style`` inline (for Qt's rich text)."""
    from pygments.formatters import HtmlFormatter

    formatter: object = HtmlFormatter(noclasses=True, nowrap=True, style=style)
    return formatter


@lru_cache(maxsize=1)
def class_formatter() -> object:
    """A Pygments ``HtmlFormatter`` writing CSS classes (see :func:`style_defs`), without a wrapper."""
    from pygments.formatters import HtmlFormatter

    formatter: object = HtmlFormatter(nowrap=True)
    return formatter


def style_defs(style: str, selector: str) -> str:
    """The CSS of a Pygments style for the class-based formatter, its rules under ``selector``."""
    from pygments.formatters import HtmlFormatter

    css: str = HtmlFormatter(style=style).get_style_defs(selector)
    return css


@lru_cache(maxsize=256)
def lexer_by_name(name: str) -> object | None:
    """The Pygments lexer for a language name or alias (``"python"``, ``"ts"``), None when unknown."""
    if not name or len(name) > 40:
        return None
    return _find_lexer("get_lexer_by_name", name)


def lexer_for_file(path: str) -> object | None:
    """The Pygments lexer for a file by its extension (or its whole name, like ``Makefile``)."""
    base = re.split(r"[\\/]", path)[-1]
    dot = base.rfind(".")
    return _lexer_for_name_key(base[dot:].lower() if dot > 0 else base)


@lru_cache(maxsize=256)
def _lexer_for_name_key(key: str) -> object | None:
    if not key or len(key) > 60:
        return None
    return _find_lexer("get_lexer_for_filename", "file" + key if key.startswith(".") else key)


def _find_lexer(finder: str, name: str) -> object | None:
    """``pygments.lexers.<finder>(name)`` keeping the code's newlines as they are; None when not found."""
    from pygments import lexers
    from pygments.util import ClassNotFound

    try:
        lexer: object = getattr(lexers, finder)(name, stripnl=False, ensurenl=False)
    except ClassNotFound:
        return None
    return lexer


def code_html(code: str, language: str | None, pal: Palette, path: str = "") -> str:
    """A code block for the message view, highlighted (lexer by fence language or file name), capped.

    Args:
        code: the code.
        language: a fence's language; when empty the lexer is chosen by ``path``.
        pal: the palette (its Pygments style and code background).
        path: the file the code is from, or ``""``.

    Returns:
        A ``<pre>`` with inline colours, followed by a note when the code was cut.
    """
    note = ""
    if code.endswith("\n"):
        code = code[:-1]
    lines = code.split("\n", MAX_CODE_LINES)
    if len(lines) > MAX_CODE_LINES:
        hidden = code.count("\n") + 1 - MAX_CODE_LINES
        code = "\n".join(lines[:MAX_CODE_LINES])
        note = f"… {hidden:,} more lines not shown"
    if len(code) > MAX_CODE_CHARS:
        note = note or f"… {len(code) - MAX_CODE_CHARS:,} more characters not shown"
        code = code[:MAX_CODE_CHARS]
    lexer = lexer_by_name(language.lower()) if language else lexer_for_file(path) if path else None
    if lexer is None:
        inner = esc(code)
    else:
        # Pygments colours whitespace runs too; dropping those spans halves the HTML Qt has to lay out.
        formatted = highlight(code, lexer, inline_formatter(pal.pygments_style))
        inner = _WHITESPACE_SPAN.sub(r"\1", formatted)
        if inner.endswith("\n"):
            inner = inner[:-1]
    tail = f'<p style="color:{pal.muted}"><small>{esc(note)}</small></p>' if note else ""
    return f'<pre class="code" style="background-color:{pal.code_bg}">{inner}</pre>{tail}'
