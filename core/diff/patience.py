"""The patience diff (:func:`matching_blocks`) of the branch diff.

It anchors both the message alignment (``core/diff/align.py``) and long word and line diffs
(``core/diff/tokens.py``).
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Sequence

__all__ = ["matching_blocks"]


def matching_blocks(a: Sequence[int], b: Sequence[int]) -> list[tuple[int, int, int]]:
    """Runs of equal items of ``a`` and ``b`` as ``(i, j, size)`` in order, then ``(len(a), len(b), 0)``.

    A patience diff (as git and Bazaar use): the common head and tail are matched first, then items that
    occur exactly once in both remaining ranges anchor the match (their longest increasing sequence),
    and the ranges between anchors are treated the same way, with a work list instead of recursion.
    Unlike :class:`difflib.SequenceMatcher` it never goes quadratic on repeated items (a thousand
    "ok" tool results, or a role sequence): what cannot be anchored is left to the caller's pairing.
    """
    singles: list[tuple[int, int]] = []
    work = [(0, len(a), 0, len(b))]
    while work:
        a0, a1, b0, b1 = work.pop()
        while a0 < a1 and b0 < b1 and a[a0] == b[b0]:
            singles.append((a0, b0))
            a0 += 1
            b0 += 1
        while a0 < a1 and b0 < b1 and a[a1 - 1] == b[b1 - 1]:
            a1 -= 1
            b1 -= 1
            singles.append((a1, b1))
        if a0 == a1 or b0 == b1:
            continue
        once_a = _once(a, a0, a1)
        once_b = _once(b, b0, b1)
        candidates = [(once_a[key], j) for key, j in once_b.items() if key in once_a]
        if not candidates:
            continue
        candidates.sort()
        previous_i, previous_j = a0, b0
        for i, j in _increasing(candidates):
            singles.append((i, j))
            work.append((previous_i, i, previous_j, j))
            previous_i, previous_j = i + 1, j + 1
        work.append((previous_i, a1, previous_j, b1))
    singles.sort()
    blocks: list[tuple[int, int, int]] = []
    for i, j in singles:
        if blocks and blocks[-1][0] + blocks[-1][2] == i and blocks[-1][1] + blocks[-1][2] == j:
            start_i, start_j, size = blocks[-1]
            blocks[-1] = (start_i, start_j, size + 1)
        else:
            blocks.append((i, j, 1))
    blocks.append((len(a), len(b), 0))
    return blocks


def _once(items: Sequence[int], start: int, end: int) -> dict[int, int]:
    """Items that occur exactly once in ``items[start:end]``, with their position."""
    seen: dict[int, int] = {}
    repeated: set[int] = set()
    for index in range(start, end):
        item = items[index]
        if item in seen:
            repeated.add(item)
        else:
            seen[item] = index
    for item in repeated:
        del seen[item]
    return seen


def _increasing(pairs: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """The longest run of ``pairs`` (sorted by first value) whose second values increase (patience sort)."""
    tops: list[int] = []  # the second value on top of each pile
    top_index: list[int] = []  # the index into pairs of that top
    back: list[int] = [-1] * len(pairs)
    for index, (_i, j) in enumerate(pairs):
        pile = bisect_left(tops, j)
        if pile == len(tops):
            tops.append(j)
            top_index.append(index)
        else:
            tops[pile] = j
            top_index[pile] = index
        back[index] = top_index[pile - 1] if pile else -1
    run = []
    index = top_index[-1] if top_index else -1
    while index >= 0:
        run.append(pairs[index])
        index = back[index]
    run.reverse()
    return run
