"""Aligning two message lists into diff rows (:func:`align`).

Identical messages anchor the alignment (a patience diff over the message keys); between two anchors,
messages of the same role are paired by word similarity (a small dynamic programme, or one linear walk
for gaps too large for it); each changed pair gets its word and line changes.
"""

from __future__ import annotations

from core.diff.patience import matching_blocks
from core.diff.tokens import line_ops, word_ops
from core.diff.types import CHANGED, DELETED, INSERTED, SAME, DiffMessage, DiffRow, Section, ToolCall

__all__ = ["align"]

_DP_CELLS = 40_000  # a gap larger than this (e.g. 200 x 200) is paired by role sequence instead
_LOOKAHEAD = 8  # messages looked ahead for a role match in a gap too large for the DP
_PAIR_BONUS = 0.25  # same-role messages in one gap pair up even when their words differ much


def align(left: list[DiffMessage], right: list[DiffMessage]) -> list[DiffRow]:
    """Align two message lists into rows: identical anchors first, then similar pairs inside the gaps.

    Args:
        left: the left side's messages after the common part, in path order.
        right: the right side's messages after the common part, in path order.

    Returns:
        Rows in order; every message of each side appears exactly once.
    """
    interned: dict[tuple[object, ...], int] = {}
    left_keys = [interned.setdefault(m.key, len(interned)) for m in left]
    right_keys = [interned.setdefault(m.key, len(interned)) for m in right]
    rows: list[DiffRow] = []
    i = j = 0
    for a, b, size in matching_blocks(left_keys, right_keys):
        rows.extend(_pair_gap(left[i:a], right[j:b]))
        rows.extend(DiffRow(SAME, left[a + k], right[b + k], (), 1.0) for k in range(size))
        i, j = a + size, b + size
    return rows


def _pair_gap(left: list[DiffMessage], right: list[DiffMessage]) -> list[DiffRow]:
    """Rows for the messages between two anchors: pairs of similar messages, the rest one-sided."""
    if not left or not right:
        return [DiffRow(DELETED, m, None) for m in left] + [DiffRow(INSERTED, None, m) for m in right]
    if len(left) * len(right) <= _DP_CELLS:
        pairs = _best_pairs(left, right)
    else:
        pairs = _role_pairs(left, right)
    rows: list[DiffRow] = []
    i = j = 0
    for a, b, similarity in pairs:
        rows.extend(DiffRow(DELETED, m, None) for m in left[i:a])
        rows.extend(DiffRow(INSERTED, None, m) for m in right[j:b])
        if left[a].key == right[b].key:  # a repeated message the anchors could not place
            rows.append(DiffRow(SAME, left[a], right[b], (), 1.0))
        else:
            rows.append(_changed(left[a], right[b], similarity))
        i, j = a + 1, b + 1
    rows.extend(DiffRow(DELETED, m, None) for m in left[i:])
    rows.extend(DiffRow(INSERTED, None, m) for m in right[j:])
    return rows


def _words(message: DiffMessage) -> frozenset[str]:
    parts = [message.text, message.result, *(c.name + " " + c.arguments for c in message.calls)]
    return frozenset(" ".join(parts).split())


def _similarity(a: frozenset[str], b: frozenset[str]) -> float:
    if not a and not b:
        return 1.0
    shared = len(a & b)  # one set operation: |a ∪ b| = |a| + |b| - |a ∩ b|
    return shared / (len(a) + len(b) - shared)


def _best_pairs(left: list[DiffMessage], right: list[DiffMessage]) -> list[tuple[int, int, float]]:
    """Order-keeping pairs of same-role messages with the largest total similarity (a small DP table)."""
    n, m = len(left), len(right)
    left_words = [_words(x) for x in left]
    right_words = [_words(x) for x in right]
    sim = [
        [
            _similarity(left_words[i], right_words[j]) if left[i].role == right[j].role else -1.0
            for j in range(m)
        ]
        for i in range(n)
    ]
    score = [[0.0] * (m + 1) for _ in range(n + 1)]
    for i in range(n - 1, -1, -1):
        row, below = score[i], score[i + 1]
        sim_row = sim[i]
        for j in range(m - 1, -1, -1):
            best = below[j] if below[j] >= row[j + 1] else row[j + 1]
            s = sim_row[j]
            if s >= 0:
                paired = below[j + 1] + _PAIR_BONUS + s
                if paired > best:
                    best = paired
            row[j] = best
    pairs = []
    i = j = 0
    while i < n and j < m:
        s = sim[i][j]
        if s >= 0 and score[i][j] == score[i + 1][j + 1] + _PAIR_BONUS + s:
            pairs.append((i, j, s))
            i += 1
            j += 1
        elif score[i][j] == score[i + 1][j]:
            i += 1
        else:
            j += 1
    return pairs


def _role_pairs(left: list[DiffMessage], right: list[DiffMessage]) -> list[tuple[int, int, float]]:
    """Pairs for a gap too large for the DP, in linear time: walk both sides and pair equal roles.

    Where the roles differ, the nearest message of the same role within a few steps on either side is
    looked for, and what lies before it stays unpaired.
    """
    pairs = []
    i = j = 0
    n, m = len(left), len(right)
    while i < n and j < m:
        if left[i].role == right[j].role:
            pairs.append((i, j, _similarity(_words(left[i]), _words(right[j]))))
            i += 1
            j += 1
            continue
        for step in range(1, _LOOKAHEAD + 1):
            if j + step < m and right[j + step].role == left[i].role:
                j += step
                break
            if i + step < n and left[i + step].role == right[j].role:
                i += step
                break
        else:
            i += 1
            j += 1
    return pairs


def _changed(left: DiffMessage, right: DiffMessage, similarity: float) -> DiffRow:
    sections: list[Section] = []
    if left.text or right.text:
        sections.append(Section("text", "word", word_ops(left.text, right.text)))
    call_count = max(len(left.calls), len(right.calls))
    for index in range(call_count):
        a = left.calls[index] if index < len(left.calls) else None
        b = right.calls[index] if index < len(right.calls) else None
        names = {c.name for c in (a, b) if c is not None}
        name = f"call {index + 1}: {' / '.join(sorted(names))}"
        sections.append(Section(name, "word", word_ops(_call_text(a), _call_text(b))))
    if left.result or right.result:
        sections.append(Section("result", "line", line_ops(left.result, right.result)))
    if left.meta != right.meta:
        sections.append(Section("meta", "word", word_ops(left.meta, right.meta)))
    return DiffRow(CHANGED, left, right, tuple(sections), similarity)


def _call_text(call: ToolCall | None) -> str:
    if call is None:
        return ""
    return f"{call.name}\n{call.arguments}" if call.arguments else call.name
