"""Token and cost totals over entries, counted in the five places pi records usage, child usage applied.

Each kind of entry says where it records usage (``Kind.usage_source``, :mod:`core.kinds`). An assistant
message's figures are in the index already; the other places (tool results, usage records, compaction
and branch summary entries) are in bodies, worked out once per entry and kept on the session
(:attr:`core.session.Session.usage_memo`), so a file is not read twice for them. Prime Agent's
``child_usage_attributed`` replaces its target assistant message's usage by the aggregate (file order,
last wins), as its loader does. These rules are the same for the session list, the session header, the
exports, the diff and the usage reports.
"""

from __future__ import annotations

from collections.abc import Iterable

from core.kinds.registry import kind_of
from core.session.entry import AssistantInfo, Entry
from core.session.jsonl import decode_line
from core.session.session import Session
from core.session.usage import usage_totals

__all__ = ["entries_usage", "may_record_usage", "remember_totals"]


def may_record_usage(entry: Entry) -> bool:
    """True when ``entry`` may record usage outside an assistant message (its body must be read to know)."""
    return kind_of(entry).usage_in_body


def remember_totals(session: Session, entry: Entry, tokens: int | float, cost: float) -> None:
    """Note the ``(tokens, cost)`` of one non-assistant entry, worked out by a reader that parsed it."""
    session.usage_memo[entry.line] = (entry, tokens, cost)


def _body_usage(session: Session, entries: list[Entry]) -> dict[int, tuple[Entry, int | float, float]]:
    """The session's memo of usage recorded in bodies, with ``entries`` read into it if missing."""
    known = session.usage_memo
    missing = [e for e in entries if (found := known.get(e.line)) is None or found[0] is not e]
    if missing:
        for entry, raw in zip(missing, session.raw_lines(missing), strict=True):
            tokens: int | float = 0
            cost = 0.0
            if b'"usage"' in raw:  # most tool results record none: skip parsing their output
                obj, _note = decode_line(raw)  # deep values folded, as every body is
                if isinstance(obj, dict):
                    source = kind_of(entry).usage_source(obj)
                    if source is not None:
                        tokens, cost = usage_totals(source.usage)
            known[entry.line] = (entry, tokens, cost)
    return known


def entries_usage(session: Session, entries: Iterable[Entry]) -> tuple[int | float, float]:
    """``(tokens, cost)`` summed in file order over the usage ``entries`` of ``session`` record.

    All five places count (see the module); a ``child_usage_attributed`` aggregate recorded for an
    assistant message replaces that message's own usage, as the reference does.
    """
    items = list(entries)
    in_bodies = [e for e in items if not isinstance(e.info, AssistantInfo) and kind_of(e).usage_in_body]
    extra = _body_usage(session, in_bodies)
    counted = {id(e) for e in in_bodies}  # summed below in file order, with the assistants' figures
    tokens: int | float = 0
    cost = 0.0
    # Keyed by the ids the entries have here: the session maps a legacy file's written ids already.
    overrides = session.usage_overrides
    for entry in items:
        info = entry.info
        if isinstance(info, AssistantInfo):
            usage = overrides.get(entry.id)
            if usage is not None:
                entry_tokens, entry_cost = usage_totals(usage)
                tokens += entry_tokens
                cost += entry_cost
            else:
                tokens += info.tokens
                cost += info.cost
        elif id(entry) in counted:
            _entry, entry_tokens, entry_cost = extra[entry.line]
            tokens += entry_tokens
            cost += entry_cost
    return tokens, cost
