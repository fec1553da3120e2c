"""A loaded session summarised for the session list, with the reference's rules (``buildSessionInfo``).

Its totals count usage wherever each kind of entry records it (:mod:`core.usage.totals`), so it sits
above the kinds; the :class:`~core.session.summary.SessionSummary` record it fills is the session
layer's.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

from core.errors import PrimeSessionsError
from core.session.discovery import find_session_files
from core.session.entry import AssistantInfo
from core.session.session import Session, load_session
from core.session.summary import SessionSummary, problem_sentence
from core.timefmt import iso_from_ms
from core.usage.totals import entries_usage

__all__ = ["summarize"]


def summarize(session: Session, mtime_ms: float | None = None) -> SessionSummary:
    """Summarise a loaded session. ``mtime_ms`` is the last resort for ``modified``, as in the reference."""
    created = session.created_ms
    modified = session.last_activity_ms
    if modified is None or modified <= 0:
        modified = created if created is not None else mtime_ms
    tokens, cost = entries_usage(session, session.entries)
    problems = [d for d in session.diagnostics if d.is_problem]
    last_stop = None
    leaf = session.leaf
    if leaf is not None:
        for entry in reversed(session.path_to(leaf.id)):
            if isinstance(entry.info, AssistantInfo):
                stop = entry.info.stop_reason
                last_stop = stop if isinstance(stop, str) else None
                break
    return SessionSummary(
        path=session.path,
        id=session.session_id,
        cwd=session.cwd,
        name=session.name,
        parentSessionPath=session.parent_session,
        created=iso_from_ms(created),
        modified=iso_from_ms(modified),
        messageCount=session.message_count,
        firstMessage=session.first_message or "(no messages)",
        version=session.version,
        entryCount=len(session.entries),
        models=list(session.models),
        totalTokens=tokens,
        cost=round(cost, 10),
        leafId=session.leaf_id,
        fileSize=session.size,
        problems=len(problems),
        lastStopReason=last_stop,
        firstProblem=problem_sentence(problems[0].line, problems[0].message) if problems else None,
    )


def scan_summaries(
    roots: list[Path], problems: list[str], each: Callable[[Session], None] | None = None
) -> list[SessionSummary]:
    """Summaries made by reading every session file under ``roots``, without the catalogue, newest first.

    What ``list`` and the window show when the catalogue cannot be used (another process holds it, it
    cannot be opened). Each file once, by its real path; a file that cannot be read adds its sentence
    to ``problems``. ``each`` is given every session read (``list`` notes child sessions with it).
    """
    summaries: list[SessionSummary] = []
    seen: set[str] = set()
    for root in roots:
        for path in find_session_files(root):
            key = os.path.realpath(path)
            if key in seen:
                continue
            seen.add(key)
            try:
                session = load_session(path, checksum=False)
            except PrimeSessionsError as err:
                problems.append(str(err))
                continue
            if session.header is None:
                continue  # not a session file (the reference hides these too)
            summaries.append(summarize(session, path.stat().st_mtime_ns / 1e6))  # as the catalogue does
            if each is not None:
                each(session)
    summaries.sort(key=lambda s: s.path)  # ties in path order, as the catalogue gives them
    summaries.sort(key=lambda s: s.modified or "", reverse=True)
    return summaries
