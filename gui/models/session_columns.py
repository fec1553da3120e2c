"""The session list's columns and what a row says.

Its text, sort keys and tooltip, and what tells apart rows with the same title: pure functions of
``SessionSummary`` records, for :mod:`gui.models.session_list_model`.
"""

from __future__ import annotations

import html
import os
import re
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import datetime
from enum import IntEnum
from typing import TYPE_CHECKING

from core.formatting import dollars, one_line, whole_tokens

if TYPE_CHECKING:  # typing only: importing the model must not load core's I/O modules
    from core.notes.note import Note
    from core.session import SessionSummary

__all__ = [
    "COLUMNS",
    "FAILED_STOP_REASONS",
    "Column",
    "SessionColumn",
    "distinctions",
    "format_modified",
    "last_folder",
    "modified_sort_key",
    "row_tooltip",
    "short_id",
]

# Stop reasons of a last assistant reply that deserve a hint in the list.
FAILED_STOP_REASONS = frozenset({"error", "aborted"})
_TOOLTIP_TITLE_LIMIT = 1000  # a first message can be a whole pasted file; keep tooltips readable
_SEPARATORS = re.compile(r"[\\/]")  # in paths from any system (a Windows cwd arrives too)


def _parse_iso(value: str | None) -> datetime | None:
    if not value:
        return None
    try:
        return datetime.fromisoformat(value)
    except ValueError:
        return None


def format_modified(value: str | None) -> str:
    """The ISO timestamp as a local ``YYYY-MM-DD HH:MM``; ``""`` when missing or unreadable."""
    parsed = _parse_iso(value)
    if parsed is None:
        return ""
    if parsed.tzinfo is not None:  # a naive value is shown as written
        try:
            parsed = parsed.astimezone()
        except (OverflowError, OSError):  # year 1 or 9999 moved into the local zone: as written
            pass
    return parsed.strftime("%Y-%m-%d %H:%M")


def modified_sort_key(value: str | None) -> float:
    """Epoch seconds of the ISO timestamp; missing or unreadable values sort first (``-1.0``)."""
    parsed = _parse_iso(value)
    if parsed is None:
        return -1.0
    return parsed.timestamp()


@dataclass(frozen=True, slots=True)
class Column:
    """One column of the session list: how it is titled, shown and sorted.

    ``sort_key`` returns one type per column (str, int or float) so that the proxy's default
    ``QVariant`` comparison is well defined.
    """

    title: str
    display: Callable[[SessionSummary], str]
    sort_key: Callable[[SessionSummary], str | int | float]
    numeric: bool = False


class SessionColumn(IntEnum):
    """Column numbers of :class:`SessionListModel`."""

    TITLE = 0
    PROJECT = 1
    MODIFIED = 2
    MESSAGES = 3
    TOKENS = 4
    COST = 5


COLUMNS: tuple[Column, ...] = (
    Column("Title", lambda s: one_line(s.title), lambda s: one_line(s.title).casefold()),
    Column("Project", lambda s: s.cwd, lambda s: s.cwd.casefold()),
    Column("Modified", lambda s: format_modified(s.modified), lambda s: modified_sort_key(s.modified)),
    Column("Messages", lambda s: str(s.messageCount), lambda s: int(s.messageCount), numeric=True),
    Column("Tokens", lambda s: whole_tokens(s.totalTokens), lambda s: float(s.totalTokens), numeric=True),
    # A parent's figure holds its children's cost, each counted once (the tooltip splits it).
    Column("Cost", lambda s: dollars(s.family_cost), lambda s: float(s.family_cost), numeric=True),
)
assert len(COLUMNS) == len(SessionColumn)


def row_tooltip(s: SessionSummary, parent: SessionSummary | None = None, note: Note | None = None) -> str:
    """Rich-text tooltip; every value is escaped (titles are user text and may look like HTML).

    ``parent`` is the listed session a fork or clone came from, when it is listed; ``note`` what the user
    noted about the session (pinned, archived, tags).
    """
    title = s.title
    if len(title) > _TOOLTIP_TITLE_LIMIT:
        title = title[:_TOOLTIP_TITLE_LIMIT] + "…"
    lines = [f"<b>{html.escape(title)}</b>" if s.name else html.escape(title)]
    if s.subagentDepth:
        lines.append(f"Subagent session of {html.escape(_parent_name(s, parent))}")
    elif s.parentSessionPath:
        lines.append(f"Fork of {html.escape(_parent_name(s, parent))}")
    if s.subagents or s.childCost:
        count = f"{s.subagents} subagent{'s' if s.subagents != 1 else ''}"
        lines.append(
            f"Cost {dollars(s.family_cost)}: own {dollars(s.own_cost)} + subagents {dollars(s.childCost)}"
            f" ({count}, each counted once)"
        )
    if s.problems:
        why = f": {html.escape(one_line(s.firstProblem)[:200])}" if s.firstProblem else ""
        more = f" (and {s.problems - 1} more)" if s.problems > 1 else ""
        lines.append(f"<b>Damaged file</b>{why}{more}; what is readable is shown")
    if s.name:
        lines.append(f"First message: {html.escape(one_line(s.firstMessage)[:200])}")
    lines.append(f"Path: {html.escape(s.path)}")
    lines.append(f"Project: {html.escape(s.cwd)}")
    lines.append(f"ID: {html.escape(s.id or '(none)')}")
    if s.parentSessionPath:
        how = "Started by" if s.subagentDepth else "Forked from"
        lines.append(f"{how}: {html.escape(s.parentSessionPath)}")
    lines.append(f"Models: {html.escape(', '.join(s.models) or '(none)')}")
    if s.lastStopReason in FAILED_STOP_REASONS:
        lines.append(f"<b>Last reply: {html.escape(s.lastStopReason)}</b>")
    if note is not None:
        marks = [word for word, on in (("Pinned", note.pinned), ("Archived", note.archived)) if on]
        if marks:
            lines.append(f"<b>{' · '.join(marks)}</b>")
        if note.tags:
            lines.append(f"Tags: {html.escape(', '.join(note.tags))}")
    # white-space:pre keeps long paths on one line; <br> separates the fields.
    return "<p style='white-space:pre'>" + "<br>".join(lines) + "</p>"


def _parent_name(s: SessionSummary, parent: SessionSummary | None) -> str:
    """How a fork's or child's tooltip names its parent: “its title” (its file), else the file recorded."""
    if parent is not None:
        title = one_line(parent.title)
        if len(title) > 80:
            title = title[:79] + "…"
        return f"“{title}” ({os.path.basename(parent.path)})"
    recorded = s.parentSessionPath or ""
    if not recorded:
        return "a session not listed"
    name = _SEPARATORS.split(recorded)[-1] or recorded
    return f"{name} (not listed)"


def short_id(s: SessionSummary) -> str:
    """The first 8 characters of the session id (of the file name without one): what a person compares."""
    return (s.id or os.path.splitext(os.path.basename(s.path))[0])[:8]


def last_folder(cwd: str) -> str:
    """The project's last folder (``acme-webapp`` of ``/home/dev/acme-webapp``, Windows paths too)."""
    parts = [part for part in _SEPARATORS.split(cwd) if part]
    return parts[-1] if parts else cwd


def distinctions(summaries: Iterable[SessionSummary]) -> dict[str, str]:
    """For sessions that share their title with another: what tells each apart, by path.

    The project's last folder when no other session of that title has it; else, with several folders
    among them, the folder and the short id; else the short id; the file name where even that is shared
    (copies of one file).
    """
    groups: dict[str, list[SessionSummary]] = {}
    for summary in summaries:
        groups.setdefault(one_line(summary.title), []).append(summary)
    found: dict[str, str] = {}
    for group in groups.values():
        if len(group) < 2:
            continue
        folders = Counter(last_folder(s.cwd) for s in group)
        tags: dict[str, str] = {}
        for s in group:
            folder = last_folder(s.cwd)
            if folder and folders[folder] == 1:
                tags[s.path] = folder
            elif len(folders) > 1 and folder:
                tags[s.path] = f"{folder} · {short_id(s)}"
            else:
                tags[s.path] = short_id(s)
        seen = Counter(tags.values())
        for path, tag in tags.items():  # copies of one file (same id, same folder): their file names
            found[path] = tag if seen[tag] == 1 else os.path.basename(path).removesuffix(".jsonl")
    return found
