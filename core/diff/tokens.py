"""Word- and line-level changes between two texts (:func:`word_ops`, :func:`line_ops`).

Short token lists go to difflib directly; long ones are anchored on unique pieces first (a patience
diff), and the result is tidied for reading (whitespace between changes joins them, pieces of one tag
are merged).
"""

from __future__ import annotations

import re
from difflib import SequenceMatcher

from core.diff.patience import matching_blocks
from core.diff.types import Op

__all__ = ["line_ops", "word_ops"]

_WORD_TOKENS = 20_000  # texts with more word tokens than this get a line-level diff instead
_DIFF_LINES = 200_000  # texts with more lines than this are shown as replaced whole
_SMALL_CELLS = (
    90_000  # token lists up to about 300 x 300 go to difflib directly; longer ones are anchored first
)
# A word or a punctuation mark with the whitespace after it: half the tokens of splitting whitespace apart,
# and no ubiquitous " " token for difflib to chase (that made a 5,000-word diff quadratic).
_TOKEN = re.compile(r"\w+\s*|[^\w\s]\s*|\s+")


def word_ops(left: str, right: str) -> tuple[Op, ...]:
    """Word-level changes from ``left`` to ``right``.

    A token is a word or a punctuation mark with the whitespace after it. Long texts of several lines
    are compared line by line first, and the changed groups of lines word by word where they are short;
    texts beyond :data:`_WORD_TOKENS` tokens get line-level changes only.
    """
    if left == right:
        return (Op("equal", left),) if left else ()
    a, b = _TOKEN.findall(left), _TOKEN.findall(right)
    if len(a) + len(b) > _WORD_TOKENS:
        return line_ops(left, right)
    if len(a) * len(b) <= _SMALL_CELLS or ("\n" not in left and "\n" not in right):
        return _merge(_ops(a, b, words=True), words=True)
    refined: list[Op] = []
    lines = line_ops(left, right)
    index = 0
    while index < len(lines):
        op = lines[index]
        following = lines[index + 1] if index + 1 < len(lines) else None
        if op.tag == "delete" and following is not None and following.tag == "insert":
            old, new = _TOKEN.findall(op.text), _TOKEN.findall(following.text)
            if len(old) * len(new) <= _SMALL_CELLS:
                refined.extend(_ops(old, new, words=True))
            else:
                refined.extend((op, following))
            index += 2
            continue
        refined.append(op)
        index += 1
    return _merge(refined, words=True)


def line_ops(left: str, right: str) -> tuple[Op, ...]:
    r"""Line-level changes from ``left`` to ``right`` (each op's text keeps its line breaks).

    Lines are split on ``\n`` only (U+2028 and friends are text).
    """
    if left == right:
        return (Op("equal", left),) if left else ()
    a, b = _lines(left), _lines(right)
    if len(a) + len(b) > _DIFF_LINES:
        return tuple(op for op in (Op("delete", left), Op("insert", right)) if op.text)
    return _merge(_ops(a, b))


def _lines(text: str) -> list[str]:
    parts = text.split("\n")
    lines = [p + "\n" for p in parts[:-1]]
    if parts[-1]:
        lines.append(parts[-1])
    return lines


def _ops(a: list[str], b: list[str], words: bool = False) -> list[Op]:
    """Changes from tokens ``a`` to tokens ``b``.

    With ``words``, tokens match on the word whatever whitespace follows it (``cache.`` and ``cache headers``
    share ``cache``); a changed whitespace is still reported exactly.
    """
    key_a = [t.rstrip() for t in a] if words else a
    key_b = [t.rstrip() for t in b] if words else b
    # The common head and tail are cut off first: most changed messages differ in a few places, and
    # the diff then works on the middle only.
    head = 0
    limit = min(len(a), len(b))
    while head < limit and key_a[head] == key_b[head]:
        head += 1
    tail = 0
    while tail < limit - head and key_a[-1 - tail] == key_b[-1 - tail]:
        tail += 1
    ops: list[Op] = _equal(a[:head], b[:head])
    a_end, b_end = len(a) - tail, len(b) - tail
    if (a_end - head) * (b_end - head) <= _SMALL_CELLS:
        ops.extend(_small_ops(a, b, key_a, key_b, (head, a_end, head, b_end)))
    else:
        # Large: anchor on unique pieces first (linear), then difflib inside the gaps that are small.
        interned: dict[str, int] = {}
        ids_a = [interned.setdefault(x, len(interned)) for x in key_a[head:a_end]]
        ids_b = [interned.setdefault(x, len(interned)) for x in key_b[head:b_end]]
        i = j = 0
        for block_i, block_j, size in matching_blocks(ids_a, ids_b):
            gap = (head + i, head + block_i, head + j, head + block_j)
            if (gap[1] - gap[0]) * (gap[3] - gap[2]) <= _SMALL_CELLS:
                ops.extend(_small_ops(a, b, key_a, key_b, gap))
            else:
                ops.extend(
                    (Op("delete", "".join(a[gap[0] : gap[1]])), Op("insert", "".join(b[gap[2] : gap[3]])))
                )
            start_a, start_b = head + block_i, head + block_j
            ops.extend(_equal(a[start_a : start_a + size], b[start_b : start_b + size]))
            i, j = block_i + size, block_j + size
    ops.extend(_equal(a[a_end:], b[b_end:]))
    return [op for op in ops if op.text]


def _equal(a: list[str], b: list[str]) -> list[Op]:
    """Ops for tokens that match: one equal piece, unless the whitespace after some words differs."""
    text_a = "".join(a)
    if text_a == "".join(b):
        return [Op("equal", text_a)] if text_a else []
    ops: list[Op] = []
    for token_a, token_b in zip(a, b, strict=True):
        if token_a == token_b:
            ops.append(Op("equal", token_a))
            continue
        word = token_a.rstrip()
        ops.extend(
            (Op("equal", word), Op("delete", token_a[len(word) :]), Op("insert", token_b[len(word) :]))
        )
    return ops


def _small_ops(
    a: list[str], b: list[str], key_a: list[str], key_b: list[str], bounds: tuple[int, int, int, int]
) -> list[Op]:
    """The changes difflib finds within ``bounds`` (its cost grows with the product of the lengths)."""
    a0, a1, b0, b1 = bounds
    if a0 == a1 or b0 == b1:
        return [Op("delete", "".join(a[a0:a1])), Op("insert", "".join(b[b0:b1]))]
    ops: list[Op] = []
    matcher = SequenceMatcher(None, key_a[a0:a1], key_b[b0:b1], autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            ops.extend(_equal(a[a0 + i1 : a0 + i2], b[b0 + j1 : b0 + j2]))
            continue
        if i2 > i1:
            ops.append(Op("delete", "".join(a[a0 + i1 : a0 + i2])))
        if j2 > j1:
            ops.append(Op("insert", "".join(b[b0 + j1 : b0 + j2])))
    return ops


def _merge(ops: list[Op], words: bool = False) -> tuple[Op, ...]:
    """Tidy ops for reading.

    Whitespace-only equal pieces between changes join the changes, and neighbouring pieces of one tag
    are merged (deletions before insertions within a change).
    """
    tidy: list[Op] = []
    for index, op in enumerate(ops):
        between = 0 < index < len(ops) - 1 and ops[index - 1].tag != "equal" and ops[index + 1].tag != "equal"
        if op.tag == "equal" and between and op.text.isspace():
            tidy.append(Op("delete", op.text))
            tidy.append(Op("insert", op.text))
        else:
            tidy.append(op)
    merged: list[Op] = []
    pending_delete: list[str] = []
    pending_insert: list[str] = []
    for op in tidy:
        if op.tag == "delete":
            pending_delete.append(op.text)
        elif op.tag == "insert":
            pending_insert.append(op.text)
        else:
            if pending_delete:
                merged.append(Op("delete", "".join(pending_delete)))
            if pending_insert:
                merged.append(Op("insert", "".join(pending_insert)))
            pending_delete, pending_insert = [], []
            if merged and merged[-1].tag == "equal":
                merged[-1] = Op("equal", merged[-1].text + op.text)
            else:
                merged.append(op)
    if pending_delete:
        merged.append(Op("delete", "".join(pending_delete)))
    if pending_insert:
        merged.append(Op("insert", "".join(pending_insert)))
    return tuple(_shift_whitespace(merged)) if words else tuple(merged)


def _shift_whitespace(ops: list[Op]) -> list[Op]:
    """Move whitespace that a deletion and its insertion both end with into the equal piece after them.

    Tokens carry their trailing whitespace, so ``42 `` -> ``43 `` would otherwise mark the space as changed.
    """
    out: list[Op] = []
    index = 0
    while index < len(ops):
        op = ops[index]
        pair = index + 1 < len(ops) and op.tag == "delete" and ops[index + 1].tag == "insert"
        if not pair:
            out.append(op)
            index += 1
            continue
        old, new = op.text, ops[index + 1].text
        shared = 0
        while (
            shared < min(len(old), len(new)) - 1
            and old[-1 - shared] == new[-1 - shared]
            and old[-1 - shared].isspace()
        ):
            shared += 1
        index += 2
        if not shared:
            out.extend((op, Op("insert", new)))
            continue
        out.extend((Op("delete", old[:-shared]), Op("insert", new[:-shared])))
        moved = old[-shared:]
        if index < len(ops) and ops[index].tag == "equal":
            out.append(Op("equal", moved + ops[index].text))
            index += 1
        else:
            out.append(Op("equal", moved))
    # a moved space may now touch an earlier equal piece: join neighbours of one tag
    joined: list[Op] = []
    for op in out:
        if joined and joined[-1].tag == op.tag == "equal":
            joined[-1] = Op("equal", joined[-1].text + op.text)
        else:
            joined.append(op)
    return joined
