"""Token and cost totals over entries, counted in the five places pi records usage, child usage applied.

Each kind of entry says where it records usage (``Kind.usage_source``, :mod:`core.kinds`). The index
keeps the figures of all five places as it reads each line (an assistant message's
:class:`~core.session.entry.AssistantInfo`; a tool result's, a usage record's and a summary's
:func:`~core.session.entry.body_usage`), so adding usage up never reads a line again. Prime Agent's
``child_usage_attributed`` replaces its target assistant message's usage by the aggregate (file order,
last wins), as its loader does. These rules are the same for the session list, the session header, the
exports, the diff, the branch tree's subtrees and the usage reports.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from core.kinds.registry import kind_of
from core.session.entry import AssistantInfo, Entry, body_usage
from core.session.session import Session
from core.session.usage import usage_totals

__all__ = ["entries_usage", "entry_totals"]


def entry_totals(session: Session, entries: Iterable[Entry]) -> Iterator[tuple[Entry, int | float, float]]:
    """``(entry, tokens, cost)`` of each of ``entries`` recording usage, in the order given, from the index.

    An assistant message is given even when it records nothing (0, 0.0); an attributed aggregate
    replaces its own usage, as in :func:`entries_usage`. No line is read.
    """
    # Keyed by the ids the entries have here: the session maps a legacy file's written ids already.
    overrides = session.usage_overrides
    for entry in entries:
        info = entry.info
        if isinstance(info, AssistantInfo):
            usage = overrides.get(entry.id) if overrides else None
            if usage is not None:
                yield (entry, *usage_totals(usage))
            else:
                yield entry, info.tokens, info.cost
        elif info is not None and kind_of(entry).usage_in_body:
            found = body_usage(entry)
            if found is not None:
                yield entry, found.tokens, found.cost


def entries_usage(session: Session, entries: Iterable[Entry]) -> tuple[int | float, float]:
    """``(tokens, cost)`` summed in file order over the usage ``entries`` of ``session`` record.

    All five places count (see the module); a ``child_usage_attributed`` aggregate recorded for an
    assistant message replaces that message's own usage, as the reference does.
    """
    tokens: int | float = 0
    cost = 0.0
    for _entry, entry_tokens, entry_cost in entry_totals(session, entries):
        tokens += entry_tokens
        cost += entry_cost
    return tokens, cost
