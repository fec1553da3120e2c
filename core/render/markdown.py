"""Message Markdown as safe HTML, for the message view and the export pages, through GitHub's cmark-gfm (C).

One engine for every back-end, so a message reads the same in the window and in its export.
markdown-it-py, pure Python, spent 15 of 20 seconds on the 20,000-message benchmark session. Raw HTML
is never passed through: cmark's safe mode would drop it instead of showing it, so every ``<`` is
swapped for a private-use character (:data:`~core.render.highlight.LT`) before parsing, no raw HTML
can exist then, and it is turned back into ``&lt;`` afterwards: tags in a message show as the text they
are, as the app shows them. Only ``http``, ``https`` and ``mailto`` links survive, and a Markdown image
becomes a link (only inline data of an image type stays an image), so nothing remote is ever loaded.
Code blocks are coloured by the :class:`~core.render.highlight.Highlighter`.
"""

from __future__ import annotations

import html
import re
from collections.abc import Callable
from functools import lru_cache

from core.render.highlight import LT, Highlighter
from core.render.pieces import SPLIT_ABOVE, append_rendered, markdown_pieces
from core.render.text import without_surrogates

__all__ = ["SAFE_SCHEMES", "markdown_to_html", "render_markdown", "safe_href"]

SAFE_SCHEMES = ("http://", "https://", "mailto:")
# GitHub's extensions but autolink (a third of the parse time; <https://...> autolinks still work),
# tagfilter (no raw HTML reaches cmark) and tasklist (no form inputs).
_EXTENSIONS = ("table", "strikethrough")
_PRE_OPEN = re.compile(r'<pre(?: lang="([^"]*)")?><code>')
_PRE_CLOSE = "</code></pre>"
_IMG = re.compile(r'<img src="([^"]*)" alt="([^"]*)"(?: title="[^"]*")? />')
# Where "<" is Markdown, not HTML, it is put back: a link destination in angle brackets, an autolink.
_KEEP_LT = re.compile(r"(?<=\]\()\ue000(?=[^\ue000>\n]*>)|\ue000(?=(?:https?://|mailto:)[^\ue000>\s]*>)")
_DATA_IMAGE = re.compile(r"data:image/(?:png|jpeg|gif|webp);base64,[A-Za-z0-9+/=]+$")
_LINK = re.compile(r'<a href="([^"]*)"((?: title="[^"]*")?)>')
_LINK_SPAN = re.compile(r"<a [^>]*>.*?</a>", re.S)


def markdown_to_html(text: str, highlighter: Highlighter | None = None) -> str:
    """Markdown as safe HTML: raw HTML off, only http(s)/mailto links, code highlighted (``.hl`` classes).

    Args:
        text: CommonMark with GFM tables and strikethrough.
        highlighter: colours code blocks (and counts down its budget); a fresh one when None.

    Returns:
        An HTML fragment in which every character of ``text`` is escaped or Markdown markup.
    """
    return render_markdown(text, highlighter or Highlighter())


def safe_href(href: str) -> bool:
    """Whether a link target may stay clickable (``http``, ``https`` or ``mailto``)."""
    return href.strip().lower().startswith(SAFE_SCHEMES)


def render_markdown(text: str, highlighter: Highlighter, data_images: bool = True) -> str:
    """GFM to HTML: no raw HTML, links only to http(s)/mailto, images as links, code highlighted.

    Args:
        text: the Markdown.
        highlighter: colours the code blocks within its budget.
        data_images: keep an inline ``data:`` image of an image type as an image (the exports: the
            PDF's images come this way); False makes it a label like any other image (the message view,
            which loads nothing it was not asked for).
    """
    if len(text) <= SPLIT_ABOVE:
        return _render_piece(text, highlighter, data_images)
    # Many megabytes: a piece at a time, so cmark's parse tree (27 times the text) stays small.
    out: list[str] = []
    for piece, line_break in markdown_pieces(text):
        append_rendered(out, _render_piece(piece, highlighter, data_images), line_break)
    return "".join(out)


def _render_piece(text: str, highlighter: Highlighter, data_images: bool) -> str:
    """:func:`render_markdown` of one piece (all of a text under :data:`SPLIT_ABOVE`)."""
    from cmarkgfm.cmark import Options

    source = text.replace(LT, "\ufffd").replace("\x00", "\ufffd")
    if "<" in source:
        source = source.replace("<", LT)  # one pass in C; the rare Markdown uses are put back below
        if "](" + LT in source or LT + "http" in source or LT + "mailto:" in source:
            source = _KEEP_LT.sub("<", source)
    options = Options.CMARK_OPT_HARDBREAKS | Options.CMARK_OPT_GITHUB_PRE_LANG
    try:
        out = _cmark(source, options)
    except UnicodeEncodeError:  # a lone surrogate: cmark takes UTF-8 only, so it is shown as U+FFFD
        out = _cmark(without_surrogates(source), options)
    # Links and images need a "]" in the source ([text](url), [ref], ![alt]...) or an autolink's "<"
    # (the only "<" left in it): without either, the two searches of the output are skipped.
    if "]" in source or "<" in source:
        if "<img" in out:
            if "<a " in out:  # an image inside a link is only its label: a link holds no link
                out = _LINK_SPAN.sub(lambda link: _IMG.sub(_label, link.group(0)), out)
            out = _IMG.sub(_image_as_link if data_images else _image_as_label, out)
        if "<a " in out:
            out = _LINK.sub(_safe_link, out)
    return _code_blocks(out, highlighter).replace(LT, "&lt;")


def _code_blocks(out: str, highlighter: Highlighter) -> str:
    """The ``<pre><code>`` blocks of cmark's ``out`` replaced by the highlighter's.

    Found with ``str.find`` rather than one regular expression: a lazy ``(.*?)</code></pre>`` stepped
    through every block a character at a time (55 ms of the 20,000-message export). Code inside a
    block is escaped, so its first ``</code></pre>`` ends it, as the expression's shortest match did.
    """
    start = out.find("<pre")
    if start < 0:
        return out
    pieces = []
    done = 0
    while start >= 0:
        opening = _PRE_OPEN.match(out, start)
        if opening is None:
            start = out.find("<pre", start + 1)
            continue
        end = out.find(_PRE_CLOSE, opening.end())
        if end < 0:
            break
        pieces.append(out[done:start])
        language = html.unescape(opening.group(1) or "")
        pieces.append(highlighter.escaped_block(out[opening.end() : end], language))
        done = end + len(_PRE_CLOSE)
        start = out.find("<pre", done)
    pieces.append(out[done:])
    return "".join(pieces)


@lru_cache(maxsize=1)
def _cmark_extensions() -> list[object]:
    from cmarkgfm import cmark

    cmark.core_extensions_ensure_registered()
    return [cmark.find_syntax_extension(name) for name in _EXTENSIONS]


def _cmark(text: str, options: int) -> str:
    """cmark-gfm with our extensions, looked up once (not on every call, as the library does).

    The library's C functions are called directly, not through its Python wrappers (eight wrapper
    calls per message, 10,190 messages in the 20,000-message export). The bindings never free the
    parsed tree nor the rendered string (about 40 MB for every MB of Markdown with tables): the app
    exports again and again in one process, so both are freed here through the library's own
    ``cmark_node_free`` and allocator.
    """
    from cmarkgfm import _cmark as compiled

    ffi, lib = compiled.ffi, compiled.lib
    freeing = _cmark_freeing()
    data = text.encode("utf-8")  # a lone surrogate raises UnicodeEncodeError here, as the wrapper did
    parser = lib.cmark_parser_new(options)
    try:
        for extension in _cmark_extensions():
            lib.cmark_parser_attach_syntax_extension(parser, extension)
        lib.cmark_parser_feed(parser, data, len(data))
        root = lib.cmark_parser_finish(parser)
        try:
            raw = lib.cmark_render_html(root, options, lib.cmark_parser_get_syntax_extensions(parser))
            try:
                rendered: str = ffi.string(raw).decode("utf-8")
                return rendered
            finally:
                if freeing is not None and raw != ffi.NULL:
                    freeing[1](raw)
        finally:
            if freeing is not None and root != ffi.NULL:
                freeing[0](root)
    finally:
        lib.cmark_parser_free(parser)


@lru_cache(maxsize=1)
def _cmark_freeing() -> tuple[Callable[[object], None], Callable[[object], None]] | None:
    """``cmark_node_free`` and the default allocator's ``free`` as cffi function pointers.

    cffi's ``lib`` of cmarkgfm does not expose them, but the shared library exports both; dlopen of
    the same file returns the library already loaded, and ctypes gives their addresses. They are called
    through cffi (a tenth of a ctypes call: twice per message of an export). None (a leak, as before)
    when that fails.
    """
    import ctypes

    from cmarkgfm import _cmark as compiled

    class Allocator(ctypes.Structure):
        _fields_ = (
            ("calloc", ctypes.c_void_p),
            ("realloc", ctypes.c_void_p),
            ("free", ctypes.CFUNCTYPE(None, ctypes.c_void_p)),
        )

    try:
        library = ctypes.CDLL(compiled.__file__)
        node_free = library.cmark_node_free
        allocator = library.cmark_get_default_mem_allocator
    except (OSError, AttributeError):
        return None
    allocator.argtypes = ()
    allocator.restype = ctypes.POINTER(Allocator)
    node_free_at = ctypes.cast(node_free, ctypes.c_void_p).value
    free_at = ctypes.cast(allocator().contents.free, ctypes.c_void_p).value
    if not node_free_at or not free_at:
        return None
    ffi = compiled.ffi
    return ffi.cast("void(*)(void *)", node_free_at), ffi.cast("void(*)(void *)", free_at)


def _image_as_link(match: re.Match[str]) -> str:
    # A Markdown image never loads from anywhere (the policy would refuse it anyway): it becomes a link,
    # or its text. Only inline data of an image type stays an image (the PDF's images come this way).
    src, alt = match.group(1), match.group(2)
    if _DATA_IMAGE.match(src):
        return match.group(0)
    label = f"[image: {alt}]" if alt else "[image]"
    if src.lower().startswith(("http://", "https://")):
        return f'<a href="{src}" rel="noopener noreferrer nofollow">{label}</a>'
    return label


def _label(match: re.Match[str]) -> str:
    alt = match.group(2)
    return f"[image: {alt}]" if alt else "[image]"


def _image_as_label(match: re.Match[str]) -> str:
    # The message view: no image from a message's Markdown at all, only a link to a web address.
    src, alt = match.group(1), match.group(2)
    label = f"[image: {alt}]" if alt else "[image]"
    if src.lower().startswith(("http://", "https://")):
        return f'<a href="{src}">{label}</a>'
    return label


def _safe_link(match: re.Match[str]) -> str:
    href = html.unescape(match.group(1)).replace(LT, "<").strip().lower()
    if href.startswith(SAFE_SCHEMES):
        return f'<a href="{match.group(1)}"{match.group(2)} rel="noopener noreferrer nofollow">'
    return '<a class="unsafe-link">'  # the text stays, the target goes
