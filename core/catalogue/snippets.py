"""Showing search hits: the words of a query, and a snippet of text with those words marked.

The catalogue's full-text index is contentless, so snippets are cut here from the entry text read
back from the session file, with words cut and folded the way the index's tokenizer does.
"""

from __future__ import annotations

import re
import unicodedata

OPERATORS = {"AND", "OR", "NOT", "NEAR"}
# The index's tokenizer (unicode61) keeps letters and digits together and splits on everything else,
# "_" included; highlighting must cut words the same way or "cache" would not show in "lru_cache".
_TOKEN = r"[^\W_]"


def query_terms(query: str) -> list[tuple[str, bool]]:
    """The words of an FTS5 query as ``(word, is_prefix)``, operators left out (for highlighting).

    Words are cut as the index cuts them (``x_y`` is two words) and folded like it (lower case,
    diacritics removed).
    """
    terms = []
    for match in re.finditer(rf"({_TOKEN}+)(\*?)", query):
        word = match.group(1)
        if word in OPERATORS:
            continue
        terms.append((_fold(word).lower(), bool(match.group(2))))
    return terms


def _fold_char(char: str) -> str:
    if char.isascii():
        return char
    base = "".join(c for c in unicodedata.normalize("NFD", char) if not unicodedata.combining(c))
    return base if len(base) == 1 else char


def _fold(text: str) -> str:
    """``text`` without diacritics, one character for one, so offsets into it are offsets into ``text``."""
    return text if text.isascii() else "".join(map(_fold_char, text))


def make_snippet(
    text: str, terms: list[tuple[str, bool]], width: int = 160
) -> tuple[str, list[tuple[int, int]]]:
    """About ``width`` characters of ``text`` around the first match, and the matched spans in it.

    Matching follows the index: whole words (a ``prefix*`` term: word starts), any case, diacritics
    ignored.

    Returns:
        ``(snippet, spans)``: whitespace is collapsed, an ellipsis marks cut ends, and ``spans`` are
        ``(start, end)`` offsets of matched words within ``snippet`` (for highlighting by the caller,
        who knows how: ``«»`` in a terminal, ``<mark>`` in HTML after escaping).
    """
    flat = " ".join(text.split())
    if not terms:
        return flat[:width], []
    pattern = re.compile(
        "|".join(
            rf"(?<!{_TOKEN}){re.escape(w)}{_TOKEN}*"
            if prefix
            else rf"(?<!{_TOKEN}){re.escape(w)}(?!{_TOKEN})"
            for w, prefix in terms
        ),
        re.IGNORECASE,
    )
    folded = _fold(flat)
    first = pattern.search(folded)
    start = 0
    if first is not None and first.start() > width // 3:
        cut = first.start() - width // 3
        space = flat.rfind(" ", max(0, cut - width // 3), cut)
        start = space + 1 if space >= 0 else cut  # at a word start when there is one nearby
    lead = "…" if start > 0 else ""
    window = lead + flat[start : start + width] + ("…" if start + width < len(flat) else "")
    spans = [(m.start(), m.end()) for m in pattern.finditer(_fold(window))]
    return window, spans


def mark_spans(snippet: str, spans: list[tuple[int, int]], before: str = "«", after: str = "»") -> str:
    """``snippet`` with each span wrapped in ``before``/``after``."""
    out, last = [], 0
    for start, end in spans:
        out += [snippet[last:start], before, snippet[start:end], after]
        last = end
    out.append(snippet[last:])
    return "".join(out)


# ---------------------------------------------------------------------------- query errors
