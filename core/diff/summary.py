"""What each side of a diff did, as labelled rows: messages, tool calls, tokens, cost, duration, files."""

from __future__ import annotations

from collections.abc import Callable

from core.diff.types import BranchDiff, SideSummary
from core.formatting import duration, total_cost, whole_tokens

__all__ = ["summary_fields", "summary_lines"]


def summary_lines(diff: BranchDiff) -> list[tuple[str, str, str]]:
    """The per-side summary as ``(label, left, right)`` rows (messages, tool calls, tokens, cost, ...)."""
    return [(label, value(diff.left), value(diff.right)) for label, value in summary_fields()]


def summary_fields() -> list[tuple[str, Callable[[SideSummary], str]]]:
    """The summary's rows: a label and how one side's value is written."""

    def files(s: SideSummary) -> str:
        return ", ".join(s.files_touched) if s.files_touched else "-"

    def ended(s: SideSummary) -> str:
        value = s.ended or "-"
        if s.last_role == "user":
            value += " (no answer to the last user message)"
        if s.error:
            value += f": {' '.join(s.error.split())[:80]}"
        return value

    return [
        ("entry", lambda s: str(s.entry_id)),
        ("messages", lambda s: str(s.messages)),
        ("tool calls", lambda s: str(s.tool_calls)),
        ("tokens", lambda s: whole_tokens(s.tokens)),
        ("cost", lambda s: total_cost(s.cost)),
        ("duration", lambda s: duration(s.duration_ms)),
        ("models", lambda s: ", ".join(s.models) or "-"),
        ("files changed", files),  # edited or written (core.kinds.touches.CHANGES)
        ("ended", ended),
    ]
