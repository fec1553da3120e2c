"""Find in a transcript: the text a card shows, how often a string occurs in it, the folds to open.

What a reader searches is what the message view shows with every fold open: the card rendered by the
view's own back-end (:func:`core.render.view.render_card`, with ``expand_all`` and without colours, at a
tenth of the cost of coloured code) and read back as plain text the way ``QTextDocument.toPlainText``
reads it (one line per paragraph, line break or table cell; spaces collapsed outside ``<pre>``). So the
count of a string in a card is the count the reader would make over the rendered text, without a
separate text back-end to keep in step.

Matching is case-insensitive and line by line (Qt's ``QTextDocument.find`` never matches across a
paragraph), counting occurrences that do not overlap, as a find that moves on past each match does.
"""

from __future__ import annotations

import html
import re
from typing import TYPE_CHECKING

from core.kinds.document import Fold, ToolCall
from core.render.palette import palette
from core.render.view import RenderOptions, render_card
from core.render.view_blocks import BlockHtml

if TYPE_CHECKING:
    from core.kinds.document import Block, Card

__all__ = ["card_text", "count_matches", "folds_matching", "html_text", "needle_of"]

_TEXT_OPTIONS = RenderOptions(expand_all=True, colours=False)
# Tags that start a new line in Qt's plain text: paragraphs, line breaks, table cells and rows, list
# items, headings, pre blocks. Anything else (a span, a link, bold) joins its text to its neighbours.
_BREAK = re.compile(
    r"<(?:/?(?:p|div|pre|table|tr|td|th|li|ul|ol|h[1-6]|blockquote|hr)\b[^>]*|br\s*/?)>", re.I
)
# Text laid out as written: a <pre> block, or a paragraph styled ``white-space:pre-wrap`` (thinking).
_PRE = re.compile(r"<pre\b[^>]*>(.*?)</pre>|<p\b[^>]*white-space:\s*pre[^>]*>(.*?)</p>", re.I | re.S)
_TAG = re.compile(r"<[^>]*>")
_SPACE = re.compile(r"[ \t\r\n\f]+")
_HOLE = re.compile("\x00pre([0-9]+)\x00")  # stands for a <pre> block's text while the rest is collapsed


def html_text(fragment: str) -> str:
    """The plain text of an HTML fragment of the view, as Qt reads it back: one line per paragraph.

    Inside ``<pre>`` (and a paragraph styled ``white-space:pre-wrap``) the text keeps its spaces and
    lines; elsewhere runs of white space are one space and each line is stripped of them. Entities are
    decoded and a no-break space is a space.
    """
    kept: list[str] = []

    def hold(match: re.Match[str]) -> str:
        inner = match.group(1) if match.group(1) is not None else match.group(2)
        kept.append(html.unescape(_TAG.sub("", inner)))
        return f"<p>\x00pre{len(kept) - 1}\x00</p>"

    held = _PRE.sub(hold, fragment)
    lines: list[str] = []
    for part in _BREAK.split(held):
        # A no-break space is kept apart from the spaces collapsed around it, then read as a space.
        text = _SPACE.sub(" ", html.unescape(_TAG.sub("", part))).strip(" ").replace("\xa0", " ")
        if not text:
            continue
        hole = _HOLE.fullmatch(text)
        if hole is not None:
            lines.extend(kept[int(hole.group(1))].replace("\xa0", " ").split("\n"))
        else:
            lines.append(text)
    return "\n".join(lines)


def card_text(made: Card) -> str:
    """The text of a card as the view shows it with every fold open (what find searches)."""
    return html_text(render_card(made, _TEXT_OPTIONS))


def needle_of(query: str) -> str:
    """The form of a query that is matched: lower case, one line (a find never spans lines)."""
    return query.splitlines()[0].lower() if query.strip() else ""


def count_matches(text: str, needle: str) -> int:
    """How often ``needle`` (see :func:`needle_of`) occurs in ``text``, line by line, never overlapping."""
    if not needle:
        return 0
    lowered = text.lower()
    if needle not in lowered:
        return 0
    return sum(line.count(needle) for line in lowered.split("\n"))


def folds_matching(made: Card, needle: str) -> frozenset[str]:
    """The fold keys of a card's blocks whose text (opened) holds ``needle``: the folds find opens.

    A fold inside another (a tool call's result, the blocks of a system prompt's fold) is looked at
    too; the walk keeps its own stack (a card's nesting is shallow, but no recursion over content).
    """
    if not needle:
        return frozenset()
    out = BlockHtml(palette(False), _TEXT_OPTIONS)
    keys: set[str] = set()
    stack: list[Block] = list(made.blocks)
    while stack:
        block = stack.pop()
        key = getattr(block, "key", "")
        if isinstance(block, Fold):
            stack.extend(block.blocks)
        elif isinstance(block, ToolCall):
            stack.extend(block.blocks)
            if block.result is not None:
                stack.extend(block.result.blocks)
        if key and key not in keys and needle in html_text(out.block(block)).lower():
            keys.add(key)
    return frozenset(keys)
