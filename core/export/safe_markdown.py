r"""Safe Markdown: message text that renders the same in a forge or editor, minus raw HTML and script links.

The Markdown export carries message text as its author (a model, a user, a tool) wrote it. A renderer
that passes HTML through (a forge's preview, many editors) would then run a ``<script>``, an
``onerror`` attribute or a ``javascript:`` link from a session. :func:`safe_markdown` changes exactly
two things, outside code:

* every ``<`` becomes ``&lt;``, so no raw HTML (tag, comment, declaration) can exist; it shows as the
  ``<`` it was. Kept: the ``<`` of an ``http``/``https``/``mailto`` autolink and of a link destination
  in angle brackets, neither of which can carry markup;
* a link or image destination (inline ``](…)`` or a reference definition ``]: …``) whose scheme is
  ``javascript:``, ``vbscript:`` or ``data:`` — also when spelt with entities, backslashes, control
  characters or capitals, as browsers read it — gets an ``unsafe:`` prefix: its text stays, its target
  goes nowhere.

Code is left as written: fenced and indented code blocks (found by markdown-it's CommonMark block
parser) and code spans (backtick runs, as CommonMark pairs them), where ``<`` is already text. Code spans
are looked for block by block (a paragraph, a heading, a table row), as a renderer pairs backticks, and
kept only within one line, without a ``|``, in a block without ``\``` and when markdown-it then finds no
raw HTML and no script link in the block (a link destination or title can take a backtick before a span
does). (A span across lines may not be one: the next line can start a block, an HTML block among them; a
table splits cells at ``|`` even inside spans.) Any other span is escaped like text, so a ``<`` in it
shows as ``&lt;``. A fence a message leaves open is closed, so that it cannot run on into the next
message.
Escaping can change the block structure (an HTML block becomes a paragraph, which a fence can then
interrupt), so the text is parsed again and the pass repeated until nothing changes: what the last
parse calls code is what stays unescaped. Everything else (emphasis, links, lists, tables, headings)
renders as before.
"""

from __future__ import annotations

import html
import re
from functools import lru_cache
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from markdown_it import MarkdownIt

__all__ = ["UNSAFE_PREFIX", "safe_markdown"]

UNSAFE_PREFIX = "unsafe:"
_DANGEROUS = ("javascript:", "vbscript:", "data:")
# The "<" kept: an autolink to a safe scheme (no backtick, so it cannot hide a code span's end), and a
# link destination in angle brackets.
_KEPT_LT = re.compile(r"<(?:https?://|mailto:)[^<>\s`]*>|(?<=\]\()<[^<>\n`]*>")
# Where a destination starts: after "](" or a reference definition's "]:", spaces and an optional "<".
_DESTINATION = re.compile(r"\](?:\(|:)\s*<?")
_DESTINATION_END = re.compile(r"[\s>)]")
_CONTROL = re.compile(r"[\x00-\x20\x7f]+")
_PROTECTS_NOTHING = re.compile(r"[\r\n|]")
_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+\Z")
_MAX_PASSES = 8  # each pass only escapes more; more than two was never seen
_MAX_PARSED = 1 << 20  # characters: a longer text without code blocks is not parsed for its blocks


def safe_markdown(text: str) -> str:
    """``text`` with raw HTML escaped and script links neutralised, outside code (see the module).

    Args:
        text: Markdown as written in a session.

    Returns:
        Markdown that renders the same wherever it rendered no HTML and followed no script link.
    """
    safe = _safe(text)
    if "```" in safe or "~~~" in safe:
        # A fence left open would run on into what the export writes next (the next message), and the
        # next fence line there would close it: code the parse of that message saw would be live text.
        return safe + _closing_fence(safe)
    return safe


def _safe(text: str) -> str:
    if "<" not in text and "](" not in text and "]:" not in text:
        return text  # nothing to escape and no link destination: the common case, no parse
    if not _may_hold_code(text) and not _protecting_spans(text):
        # No code block before, none after (escaping adds neither fences nor indentation), and no code
        # span that would keep a "<" or a destination as written: one pass is the fixed point.
        return _inline(text, spans=False)
    if len(text) > _MAX_PARSED and not _may_hold_code(text):
        # Finding the blocks of a huge text costs a parse; its code spans show "&lt;" instead.
        return _inline(text, spans=False)
    for _ in range(_MAX_PASSES):
        safer = _one_pass(text)
        if safer == text:
            return text
        text = safer
    # Still changing (it never has): escape every "<" but the kept ones, code or not.
    return _escape_lt(text)


def _one_pass(text: str) -> str:
    # Lines as CommonMark counts them (\r\n, \r or \n): splitlines() would also cut at \x1c, \x85,
    # U+2028... and number the lines differently from the parser, leaving the wrong lines unescaped.
    lines = _LINE.findall(text)
    code, blocks, references = _structure(text, len(lines))
    out: list[str] = []
    region: list[str] = []  # consecutive lines outside code and outside any block: inline text
    number = 0
    while number < len(lines):
        if number in code:
            out.append(lines[number])
            number += 1
        elif number in blocks:
            end = blocks[number]
            out.append(_inline("".join(lines[number:end]), spans=True, references=references))
            number = end
        else:
            region.append(lines[number])
            number += 1
            if number in code or number in blocks or number == len(lines):
                out.append(_inline("".join(region), spans=False))
                region = []
    return "".join(out)


def _closing_fence(text: str) -> str:
    """The line that closes a fence ``text`` leaves open at its end, ``""`` when it leaves none open.

    Only a fence outside any block quote or list: one inside them ends with its container, which what
    the export writes next (a heading, a rule, a paragraph at the margin) always closes.
    """
    lines = _LINE.findall(text)
    last = None
    for token in _parser().parse(text):
        if token.type == "fence" and token.level == 0 and token.map is not None:
            last = token
    if last is None or last.map is None or last.map[1] < len(lines):
        return ""
    start, end = last.map[0], min(last.map[1], len(lines))
    closer = lines[end - 1].strip()
    marks = last.markup
    if end - 1 > start and closer and set(closer) == {marks[0]} and len(closer) >= len(marks):
        return ""  # closed on the last line
    return ("" if text.endswith(("\n", "\r")) else "\n") + marks + "\n"


def _may_hold_code(text: str) -> bool:
    """False when ``text`` cannot hold a code block (no fence, no indentation): no parse needed."""
    return "```" in text or "~~~" in text or "    " in text or "\t" in text


def _structure(text: str, count: int) -> tuple[set[int], dict[int, int], dict[str, object]]:
    """Where code blocks and inline text are, as CommonMark parses ``text``.

    Returns the line numbers (from 0) inside fenced or indented code blocks, and the blocks holding
    inline text (paragraphs, headings, table rows) as first line -> line after the last. A code span
    can only be within one such block: a renderer pairs backticks block by block. And the link
    reference definitions, which the inline text's reference links point to.
    """
    code: set[int] = set()
    blocks: dict[int, int] = {}
    env: dict[str, dict[str, object]] = {}
    for token in _parser().parse(text, env):
        if token.map is None:
            continue
        start, end = token.map[0], min(token.map[1], count)
        if token.type in ("fence", "code_block"):
            code.update(range(start, end))
        elif token.type == "inline" and start < end:
            blocks[start] = max(end, blocks.get(start, end))  # table cells share their row's lines
    return code, blocks, env.get("references", {})


@lru_cache(maxsize=1)
def _parser() -> MarkdownIt:
    """markdown-it's CommonMark block parser with GFM tables (the inline pass is not needed here)."""
    from markdown_it import MarkdownIt

    parser = MarkdownIt("commonmark").enable("table")
    parser.disable("inline")
    return parser


@lru_cache(maxsize=1)
def _checker() -> MarkdownIt:
    """markdown-it as an editor that renders HTML uses it, every link kept, to check a result with."""
    from markdown_it import MarkdownIt

    class Checker(MarkdownIt):
        def validateLink(self, url: str) -> bool:
            return True  # every target kept, so that a script link is seen

    return Checker("commonmark", {"html": True}).enable("table")


def _inline(text: str, spans: bool, references: dict[str, object] | None = None) -> str:
    """Text outside code blocks: ``<`` escaped and script links neutralised, outside code spans.

    Args:
        text: inline text; with ``spans``, exactly one block of it (see :func:`_structure`).
        spans: whether code spans in ``text`` are kept as written (see :func:`_trusted_spans`); only
            when a renderer then sees no raw HTML and no script link in the block.
        references: the document's link reference definitions (see :func:`_structure`).
    """
    kept = _trusted_spans(text) if spans else []
    pieces: list[str] = []
    done = 0
    for start, end in kept:
        pieces.append(_outside_code(text[done:start]))
        pieces.append(text[start:end])
        done = end
    pieces.append(_outside_code(text[done:]))
    safe = "".join(pieces)
    if kept and not _renders_inert(safe, references or {}):
        return _inline(text, spans=False)  # a renderer saw one of the spans as text: no span then
    return safe


def _renders_inert(block: str, references: dict[str, object]) -> bool:
    """Whether markdown-it finds no raw HTML and no script link in ``block`` (inline text).

    Args:
        block: one block of inline text, after escaping.
        references: the document's link reference definitions, as markdown-it's block parse found
            them (a reference link's target is one of them).
    """
    for token in _checker().parseInline(block, {"references": references}):
        for child in token.children or ():
            if child.type in ("html_inline", "html_block"):
                return False
            target = child.attrGet("href") if child.type == "link_open" else child.attrGet("src")
            if isinstance(target, str) and _is_dangerous(target):
                return False
    return True


def _protecting_spans(text: str) -> bool:
    """Whether a code span in ``text`` would keep a ``<`` or a link destination as written."""
    return bool(_trusted_spans(text))


def _trusted_spans(text: str) -> list[tuple[int, int]]:
    r"""The code spans of one block that keep their text as written.

    None in a block with ``\``` (the scan here reads it as an escape even inside a span, a renderer
    does not). Of the rest, only those within one line and without ``|``, that hold something the
    outside's changes would touch. Whether a renderer pairs the backticks the same way (a link
    destination or title can take one first) is checked on the result (:func:`_renders_inert`).
    """
    if "`" not in text or "\\`" in text:
        return []
    kept = []
    for start, end in _code_spans(text):
        if text.find("<", start, end) < 0 and text.find("]", start, end) < 0:
            continue  # nothing in it the outside's changes would touch: no need to set it apart
        if _PROTECTS_NOTHING.search(text, start, end) is not None:
            # Across a line end the span may not exist (the next line can start a block that ends the
            # paragraph, an HTML block among them), and a table splits cells at "|" even inside
            # one: such a span is treated as text, so its "<" is escaped too.
            continue
        kept.append((start, end))
    return kept


def _code_spans(text: str) -> list[tuple[int, int]]:
    r"""Where CommonMark's code spans are: a backtick run up to the next run of the same length.

    Outside code a backslash escapes the character after it (so ``\``` opens nothing); a run with
    no closing run of its length is literal backticks. Linear: a length once looked for in vain is
    not looked for again (the search only moves forward, so it would fail again).
    """
    if "`" not in text:
        return []
    spans: list[tuple[int, int]] = []
    missing: set[int] = set()  # run lengths with no run of that length left in the text
    size = len(text)
    slash = -1  # the next backslash at or after the search point (size: none left)
    at = 0
    while (tick := text.find("`", at)) >= 0:
        if slash < at:
            slash = text.find("\\", at)
            slash = size if slash < 0 else slash
        if slash < tick:
            at = slash + 2  # an escaped character, perhaps this backtick
            continue
        end = tick + 1
        while end < size and text[end] == "`":
            end += 1
        at, length = end, end - tick
        if length in missing:
            continue
        close = _closing_run(text, end, length)
        if close < 0:
            missing.add(length)
            continue
        spans.append((tick, close + length))
        at = close + length
    return spans


def _closing_run(text: str, start: int, length: int) -> int:
    """Where the next run of exactly ``length`` backticks at or after ``start`` begins, or -1."""
    marks = "`" * length
    at = text.find(marks, start)
    while at >= 0:
        end = at + length
        if end < len(text) and text[end] == "`":
            while end < len(text) and text[end] == "`":
                end += 1  # a longer run: skip it whole
            at = text.find(marks, end)
            continue
        if at > start and text[at - 1] == "`":
            at = text.find(marks, at + 1)  # the tail of a longer run
            continue
        return at
    return -1


def _outside_code(text: str) -> str:
    """Text outside code: ``<`` escaped but where kept, dangerous destinations prefixed."""
    if "](" in text or "]:" in text:
        text = _neutralise_links(text)
    return _escape_lt(text) if "<" in text else text


def _escape_lt(text: str) -> str:
    if "<http" not in text and "<mailto:" not in text and "](<" not in text:
        return text.replace("<", "&lt;")  # nothing kept: one pass in C
    pieces: list[str] = []
    done = 0
    for match in _KEPT_LT.finditer(text):
        pieces.append(text[done : match.start()].replace("<", "&lt;"))
        pieces.append(match.group(0))
        done = match.end()
    pieces.append(text[done:].replace("<", "&lt;"))
    return "".join(pieces)


def _neutralise_links(text: str) -> str:
    pieces: list[str] = []
    done = 0
    for match in _DESTINATION.finditer(text):
        start = match.end()
        end_match = _DESTINATION_END.search(text, start)
        raw = text[start : end_match.start() if end_match is not None else len(text)]
        if _is_dangerous(raw):
            pieces.append(text[done:start])
            pieces.append(UNSAFE_PREFIX)
            done = start
    pieces.append(text[done:])
    return "".join(pieces)


def _is_dangerous(destination: str) -> bool:
    """Whether a browser would read ``destination`` as a ``javascript:``, ``vbscript:`` or ``data:`` URL.

    Markdown decodes entities and backslash escapes in a destination, and browsers drop tabs, line
    breaks and other control characters inside a URL and ignore case in its scheme.
    """
    plain = _CONTROL.sub("", html.unescape(destination.replace("\\", ""))).lower()
    return plain.startswith(_DANGEROUS)
