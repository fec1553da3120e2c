"""A loaded session summarised for the session list, with the reference's rules (``buildSessionInfo``).

Its totals count usage wherever each kind of entry records it (:mod:`core.usage.totals`), so it sits
above the kinds; the :class:`~core.session.summary.SessionSummary` record it fills is the session
layer's.
"""

from __future__ import annotations

from core.session.entry import AssistantInfo
from core.session.session import Session
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
