"""What people type into the search box, as an FTS5 query.

Plain text is the default: ``LoginForm.tsx``, ``foo(bar)``, ``user@host`` and ``--force`` find what they
say. Each word becomes an FTS5 phrase of the tokens it holds (the index splits ``LoginForm.tsx`` into
``loginform`` and ``tsx``; the phrase wants them side by side, as they were written), so punctuation is
never read as FTS5 syntax. What FTS5 adds keeps working: ``"exact phrases"``, ``prefix*``, the operators
``AND``, ``OR`` and ``NOT`` (in capitals, between words), and brackets that group them: a ``(`` that
opens a word and a ``)`` that closes one after it. Words side by side must all match.
"""

from __future__ import annotations

import re

from core.errors import InvalidRequestError

__all__ = ["OPERATORS", "invalid_query", "to_fts"]

OPERATORS = frozenset({"AND", "OR", "NOT"})
_WORD = re.compile(r"[^\W_]")  # what the index's tokenizer keeps (letters and digits)
_HOW = 'type words as they are written, or use "exact phrases", prefix* and AND, OR, NOT between words'


def invalid_query(query: str, why: str) -> str:
    """The one sentence that says why ``query`` cannot be searched for, and how to write it."""
    return f"The search {query!r} is not a valid query: {why}; {_HOW}."


def _phrase(text: str, prefix: bool = False) -> str:
    return '"' + text.replace('"', '""') + '"' + ("*" if prefix else "")


def to_fts(query: str) -> str:
    """The FTS5 expression for ``query`` (see the module docstring).

    Raises:
        InvalidRequestError: a double quote is not closed, or nothing in the query can be searched for
            (the sentence says which). The catalogue turns it into its ``QueryError``.
    """
    parts: list[str] = []
    depth = 0  # brackets opened by "(word" and not yet closed by "word)"
    position, length = 0, len(query)
    while position < length:
        char = query[position]
        if char.isspace():
            position += 1
            continue
        if char == '"':
            end = query.find('"', position + 1)
            if end < 0:
                raise InvalidRequestError(invalid_query(query, 'a double quote (") is not closed'))
            prefix = end + 1 < length and query[end + 1] == "*"
            inner = query[position + 1 : end]
            if _WORD.search(inner):
                parts.append(_phrase(inner, prefix))
            position = end + (2 if prefix else 1)
            continue
        end = position
        while end < length and not query[end].isspace() and query[end] != '"':
            end += 1
        word = query[position:end]
        position = end
        if word in OPERATORS:
            parts.append(word)
            continue
        opened = len(word) - len(word.lstrip("("))
        word = word[opened:]
        parts.extend("(" * opened)
        depth += opened
        closed = 0
        while depth > closed and word.endswith(")"):  # only brackets that close one opened before
            word = word[:-1]
            closed += 1
        prefix = word.endswith("*")
        stem = word.rstrip("*") if prefix else word
        if _WORD.search(stem):
            parts.append(_phrase(stem, prefix))
        parts.extend(")" * closed)
        depth -= closed
    if not any(part not in OPERATORS and part not in "()" for part in parts):
        raise InvalidRequestError(invalid_query(query, "it has no letters or digits to look for"))
    return " ".join(parts)  # an operator without a word on each side is FTS5's to refuse
