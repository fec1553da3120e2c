"""Huge message Markdown cut into pieces that cmark renders one at a time, so its memory stays bounded.

cmark-gfm's parse tree takes about 27 bytes for every byte of Markdown: a 50 MB message peaked at 1.4 GB
and a 200 MB one near 6.9 GB. A text longer than :data:`SPLIT_ABOVE` is therefore rendered piece by
piece, each about :data:`PIECE` long, and the pieces' HTML put together.

Most cuts change nothing: they fall at a *block boundary*, a line that starts with a letter after a
blank line outside any fenced code. Such a line can only begin a new paragraph (or heading): it cannot
continue a list item or a block quote (those need indentation or ``>``), and everything before it is
closed by the blank line, so the HTML of the two halves put together is the HTML of the whole. The one
document-wide construct of CommonMark, a link reference definition (``[name]: url``), would be cut from
the links that use it: a text holding ``]:`` anywhere is never cut at a block boundary. Nor is a text
holding a lone carriage return, which cmark takes for a line end too.

A block with no such line in :data:`LINE_PIECE` characters (a pasted log of a million lines, one
paragraph) is cut at a *line boundary* instead, before a line starting with a letter outside fenced
code, and the two paragraph halves are joined with the ``<br />`` a hard line break makes: the same
HTML, unless inline Markdown (a code span, emphasis, a link) runs across that line break, which then
shows as the characters written. Only texts of many megabytes are cut at all.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

__all__ = ["LINE_PIECE", "PIECE", "SPLIT_ABOVE", "append_rendered", "markdown_pieces"]

SPLIT_ABOVE = 2 * 1024 * 1024  # characters; shorter texts are rendered whole, as they always were
PIECE = 1024 * 1024  # a piece is cut at the first block boundary past this many characters
LINE_PIECE = 4 * 1024 * 1024  # ... or at the first line boundary past this many, when no block boundary came
_FENCE = re.compile(r" {0,3}(`{3,}|~{3,})")
_LONE_CR = re.compile(r"\r(?!\n)")
_PARAGRAPH_END = "</p>\n"
_PARAGRAPH_START = "<p>"
_HARD_BREAK = "<br />\n"


def markdown_pieces(text: str) -> Iterator[tuple[str, bool]]:
    """``text`` in pieces to render one by one: ``(piece, joined by a line break to the one before)``.

    A text of at most :data:`SPLIT_ABOVE` characters comes back whole. Iterative and line by line,
    without a list of the text's lines (a 200 MB message has millions).
    """
    if len(text) <= SPLIT_ABOVE:
        yield text, False
        return
    if _LONE_CR.search(text) is not None:
        # cmark ends a line at a lone "\r" too: the lines seen here would not be its lines.
        yield text, False
        return
    blocks = "]:" not in text  # no link reference definition, nor anything like one
    start = pos = 0
    joined = False  # the piece being gathered continues the paragraph the one before ended
    fence = ""  # the opening fence while inside fenced code
    blank = False  # the line before was blank
    size = len(text)
    while pos < size:
        newline = text.find("\n", pos)
        end = size if newline < 0 else newline + 1
        first = text[pos]
        if fence:
            if first in " `~" and _closes(text, pos, end, fence):
                fence = ""
            blank = False
        elif first.isalpha():
            length = pos - start
            if (blank and blocks and length >= PIECE) or (not blank and length >= LINE_PIECE):
                yield text[start:pos], joined
                start, joined = pos, not blank
            blank = False
        elif first in " \t\r\n":
            blank = text[pos:end].strip(" \t\r\n") == ""
            if not blank:
                fence = _opens(text, pos)
        else:
            fence = _opens(text, pos) if first in "`~" else ""
            blank = False
        pos = end
    yield text[start:], joined


def append_rendered(out: list[str], html: str, line_break: bool) -> None:
    """Add a piece's HTML to ``out`` (``line_break``: cut inside a paragraph, see the module)."""
    if line_break and out and out[-1].endswith(_PARAGRAPH_END) and html.startswith(_PARAGRAPH_START):
        out[-1] = out[-1][: -len(_PARAGRAPH_END)] + _HARD_BREAK
        html = html[len(_PARAGRAPH_START) :]
    out.append(html)


def _opens(text: str, pos: int) -> str:
    """The fence a line opens (its backticks or tildes), ``""`` when it opens none."""
    match = _FENCE.match(text, pos)
    if match is None:
        return ""
    marks = match.group(1)
    if marks[0] == "`":
        line_end = text.find("\n", match.end())
        info = text[match.end() : line_end if line_end >= 0 else len(text)]
        if "`" in info:
            return ""  # a backtick in a backtick fence's info string: an inline code span, not a fence
    return marks


def _closes(text: str, pos: int, end: int, fence: str) -> bool:
    """Whether ``text[pos:end]`` closes ``fence`` (the same mark, at least as long, nothing after it)."""
    match = _FENCE.match(text, pos)
    if match is None:
        return False
    marks = match.group(1)
    return marks[0] == fence[0] and len(marks) >= len(fence) and text[match.end() : end].strip() == ""
