"""Comparing two branches of one session, or two sessions: alignment, word and line changes, summaries.

Two paths are compared from where they part: :func:`diff_paths` finds the lowest common ancestor of
two entries of one session; :func:`diff_sessions` finds the common part of two sessions by shared entry
ids (a fork or clone keeps them) and falls back to identical content when the ids differ. What follows
is aligned message by message:

1. Every message gets a key: its role, model, text, tool calls and result, with whitespace
   normalised (tool call ids, timestamps and thinking are left out, so a retried step with the same
   content is recognised). A patience diff over the keys (:func:`matching_blocks`) finds the
   identical messages that anchor the alignment, so one inserted tool call does not shift everything
   after it. (``difflib.SequenceMatcher`` goes quadratic on repeated keys: minutes for two unrelated
   5,000-message branches.)
2. Between two anchors, a small dynamic programme pairs the remaining messages of the same role by
   word similarity (a rewritten answer is one *changed* row, not a deletion and an insertion). Gaps
   too large for it are paired in one linear walk that matches roles.
3. Within a changed pair, text and tool-call arguments get word-level changes, tool results and
   command output line-level changes (difflib on short token lists, anchored first when long).

Everything is iterative (paths can be 100,000 entries deep) and bodies are read once, with one open
file per session. Only entries that carry content take part (messages, compactions, branch summaries,
custom messages); model and thinking changes, labels and names do not.

The work is split by what it holds: ``core/diff/types.py`` (the records), ``core/diff/messages.py``
(entries as messages), ``core/diff/patience.py`` (the patience diff), ``core/diff/align.py`` (steps 1
and 2) and ``core/diff/tokens.py`` (step 3). This module holds the entry points, the helpers for callers
and the building of the result, and re-exports the rest, so callers import from ``core.diff.compare`` only.
"""

from __future__ import annotations

import os

from core.diff.align import align
from core.diff.messages import compared, messages
from core.diff.types import (
    BranchDiff,
    CommonPart,
    DiffMessage,
    SideSummary,
    counts,
)
from core.errors import InvalidRequestError
from core.formatting import title
from core.kinds import kind_of
from core.kinds.touches import CHANGES
from core.session import Entry
from core.session.lineage import file_name_ids, recorded_name_keys
from core.session.session import Session
from core.usage.totals import entries_usage

__all__ = [
    "diff_paths",
    "diff_sessions",
    "find_parent_file",
    "resolve_entry",
    "resolve_parent_session",
]

COMMON_TAIL = 3  # messages of the common part kept for display (the rest is only counted)


# ---------------------------------------------------------------------------- entry points
def diff_paths(session: Session, left_id: str, right_id: str) -> BranchDiff:
    """Compare the paths to two entries of one session from their lowest common ancestor.

    Args:
        session: the loaded session.
        left_id: the end of the left branch (any entry, normally a leaf).
        right_id: the end of the right branch.

    Returns:
        The aligned rows after the common ancestor, the common part and a summary per side.

    Raises:
        InvalidRequestError: an id names no entry of the session.
    """
    left_path = _path(session, left_id)
    right_path = _path(session, right_id)
    shared = 0
    for a, b in zip(left_path, right_path, strict=False):
        if a.id != b.id:
            break
        shared += 1
    return _build(
        session,
        left_path,
        shared,
        session,
        right_path,
        shared,
        "tree" if shared else "none",
        left_id,
        right_id,
    )


def diff_sessions(
    left_session: Session, left_id: str | None, right_session: Session, right_id: str | None
) -> BranchDiff:
    """Compare a path of one session with a path of another (a fork against its parent, or any two).

    The common part is the longest run of content entries, from the start, with the same ids on both
    paths (forks and clones keep ids; label entries a fork drops do not count). When not even the
    first ids match, it is the longest run of identical messages instead.

    Args:
        left_session: the session of the left side.
        left_id: the entry whose path is the left side; None for the session's leaf.
        right_session: the session of the right side (may be the same object).
        right_id: the entry whose path is the right side; None for the session's leaf.

    Returns:
        The aligned rows after the common part, the common part and a summary per side.

    Raises:
        InvalidRequestError: an id names no entry of its session.
    """
    left_path = _path(left_session, left_id if left_id is not None else left_session.leaf_id)
    right_path = _path(right_session, right_id if right_id is not None else right_session.leaf_id)
    left_content = [e for e in left_path if compared(e)]
    right_content = [e for e in right_path if compared(e)]
    shared = 0
    for a, b in zip(left_content, right_content, strict=False):
        if a.id != b.id:
            break
        shared += 1
    matched_by = "ids" if shared else "none"
    left_messages = right_messages = None
    if not shared and left_content and right_content:
        left_messages = messages(left_session, left_content)
        right_messages = messages(right_session, right_content)
        for left_message, right_message in zip(left_messages, right_messages, strict=False):
            if left_message.key != right_message.key:
                break
            shared += 1
        matched_by = "content" if shared else "none"
    left_cut = _cut_after(left_path, left_content, shared)
    right_cut = _cut_after(right_path, right_content, shared)
    return _build(
        left_session,
        left_path,
        left_cut,
        right_session,
        right_path,
        right_cut,
        matched_by,
        left_path[-1].id if left_path else left_id,
        right_path[-1].id if right_path else right_id,
        (left_messages, right_messages),
    )


# ---------------------------------------------------------------------------- helpers for callers
def resolve_entry(session: Session, ref: str) -> str:
    """An entry id from what a user typed: a full id, a unique id prefix, or ``leaf``.

    Raises:
        InvalidRequestError: nothing or more than one entry matches.
    """
    if ref == "leaf":
        if session.leaf_id is None:
            raise InvalidRequestError(f"{session.path} has no entries.")
        return session.leaf_id
    if ref in session.by_id:
        return ref
    matches = [entry_id for entry_id in session.by_id if entry_id.startswith(ref)] if ref else []
    if len(matches) == 1:
        return matches[0]
    if len(matches) > 1:
        raise InvalidRequestError(
            f"{ref} matches {len(matches)} entries in {session.path}; give more of the id."
        )
    raise InvalidRequestError(f"There is no entry {ref} in {session.path}.")


def resolve_parent_session(session: Session) -> str | None:
    """The file of a session's ``parentSession``, or None when it is not found (:func:`find_parent_file`)."""
    return find_parent_file(session.path, session.parent_session)


def find_parent_file(session_path: str, recorded: str | None) -> str | None:
    """Where a recorded ``parentSession`` path is now, or None.

    The recorded path when it exists, else the same file name beside the session (sessions copied or
    moved together, like the demo sessions, whose headers name a home folder that is not there), else
    the one file beside it whose name carries the id the recorded name carries (a history moved between
    pi's ``<time>_<id>.jsonl`` and Prime Agent's ``<id>.jsonl``). The id is the file name's, which for
    a Prime Agent checkpoint file is not the session id in its header (:mod:`core.session.lineage`).
    """
    if not recorded:
        return None
    if os.path.isfile(recorded):
        return os.path.abspath(recorded)
    name, ids = recorded_name_keys(recorded)
    folder = os.path.dirname(os.path.abspath(session_path))
    beside = os.path.join(folder, name)
    if name and os.path.isfile(beside):
        return beside
    wanted = set(ids)
    try:
        names = [n for n in os.listdir(folder) if n.endswith(".jsonl") and wanted & set(file_name_ids(n))]
    except OSError:
        return None
    found = [os.path.join(folder, n) for n in names if os.path.isfile(os.path.join(folder, n))]
    own = os.path.abspath(session_path)
    found = [path for path in found if path != own]
    return found[0] if len(found) == 1 else None


# ---------------------------------------------------------------------------- building
def _path(session: Session, entry_id: str | None) -> list[Entry]:
    if entry_id is None:
        raise InvalidRequestError(f"{session.path} has no entries to compare.")
    if session.get(entry_id) is None:
        raise InvalidRequestError(f"There is no entry {entry_id} in {session.path}.")
    return session.path_to(entry_id)


def _cut_after(path: list[Entry], content: list[Entry], shared: int) -> int:
    """How many entries of ``path`` belong to the common part when its first ``shared`` content entries do."""
    if not shared:
        return 0
    last = content[shared - 1]
    for index in range(len(path) - 1, -1, -1):
        if path[index] is last:
            return index + 1
    return 0


def _build(
    left_session: Session,
    left_path: list[Entry],
    left_cut: int,
    right_session: Session,
    right_path: list[Entry],
    right_cut: int,
    matched_by: str,
    left_id: str | None,
    right_id: str | None,
    parsed: tuple[list[DiffMessage] | None, list[DiffMessage] | None] = (None, None),
) -> BranchDiff:
    left_content = [e for e in left_path if compared(e)]
    right_content = [e for e in right_path if compared(e)]
    left_shared = sum(1 for e in left_path[:left_cut] if compared(e))
    right_shared = sum(1 for e in right_path[:right_cut] if compared(e))
    tail_start = max(0, left_shared - COMMON_TAIL)
    # Bodies are read for the divergent parts and the displayed tail only: a 100,000-entry common part
    # costs an index walk, not 100,000 body reads.
    if parsed[0] is not None:
        left_all = parsed[0][tail_start:]
    else:
        left_all = messages(left_session, left_content[tail_start:])
    right_messages = (
        parsed[1][right_shared:]
        if parsed[1] is not None
        else messages(right_session, right_content[right_shared:])
    )
    tail = tuple(left_all[: left_shared - tail_start])
    left_messages = left_all[left_shared - tail_start :]
    rows = tuple(align(left_messages, right_messages))
    left_anchor = left_path[left_cut - 1] if left_cut else None
    right_anchor = right_path[right_cut - 1] if right_cut else None
    common = CommonPart(
        left_anchor.id if left_anchor else None,
        right_anchor.id if right_anchor else None,
        left_cut,
        left_shared,
        matched_by,
        tail,
    )
    left_summary = _summarise(left_session, left_id, left_path[left_cut:], left_messages, left_anchor)
    right_summary = _summarise(right_session, right_id, right_path[right_cut:], right_messages, right_anchor)
    return BranchDiff(left_summary, right_summary, common, rows, counts(rows))


def _duration(anchor: Entry | None, entries: list[Entry]) -> float | None:
    """From the common ancestor (or the side's first entry) to its last conversation entry, in ms.

    Only entries of the conversation count (``Kind.activity``): a label or a name appended today to an
    October session would otherwise stretch its twenty minutes to months.
    """
    active = [entry for entry in entries if kind_of(entry).activity and entry.ts_ms is not None]
    start = anchor if anchor is not None else (active[0] if active else None)
    if start is None or start.ts_ms is None or not active:
        return None
    end = active[-1].ts_ms
    assert end is not None  # filtered above
    return end - start.ts_ms


def _summarise(
    session: Session,
    entry_id: str | None,
    entries: list[Entry],
    messages: list[DiffMessage],
    anchor: Entry | None,
) -> SideSummary:
    tokens, cost = entries_usage(session, entries)
    files: dict[str, None] = {}
    models: dict[str, None] = {}
    calls = 0
    ended = error = None
    for message in messages:
        calls += len(message.calls)
        for call in message.calls:
            for touch in call.touches:  # the files the catalogue and the Files view list, changed ones
                if touch.how in CHANGES:
                    files[touch.path] = None
        if message.is_reply:
            if message.model:
                models[message.model] = None
            ended = message.stop_reason
            error = message.error if message.failed else None
    duration = _duration(anchor, entries)
    return SideSummary(
        title=title(session.name, session.first_message or "", 60) or os.path.basename(session.path),
        file=session.path,
        entry_id=entry_id,
        messages=len(messages),
        tool_calls=calls,
        tokens=tokens,
        cost=round(cost, 10),
        duration_ms=duration,
        files_touched=tuple(files),
        models=tuple(models),
        ended=ended,
        last_role=messages[-1].role if messages else None,
        error=error,
    )
