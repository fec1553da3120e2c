"""Walking the rows of a diff: which runs of unchanged rows fold away, where each change begins.

Apart from ``compare`` so that the window's diff model and the renderings need only the records, not the
diff engine (which loads the session reader).
"""

from __future__ import annotations

from collections.abc import Sequence

from core.diff.types import SAME, DiffRow

__all__ = ["change_starts", "fold_runs"]


def fold_runs(rows: Sequence[DiffRow], context: int = 2, min_run: int = 6) -> list[tuple[int, int]]:
    """Runs of unchanged rows worth folding away, as ``(start, end)`` index ranges (end excluded).

    ``context`` same rows stay visible next to each change; a run is folded only when at least
    ``min_run`` rows would disappear.
    """
    runs: list[tuple[int, int]] = []
    start = None
    count = len(rows)
    for index in range(count + 1):
        same = index < count and rows[index].kind == SAME
        if same and start is None:
            start = index
        elif not same and start is not None:
            first = start + (context if start > 0 else 0)
            last = index - (context if index < count else 0)
            if last - first >= min_run:
                runs.append((first, last))
            start = None
    return runs


def change_starts(rows: Sequence[DiffRow]) -> list[int]:
    """Indexes of the rows where a run of changed, inserted or deleted rows begins (for next/previous)."""
    starts = []
    previous_same = True
    for index, row in enumerate(rows):
        same = row.kind == SAME
        if not same and previous_same:
            starts.append(index)
        previous_same = same
    return starts
