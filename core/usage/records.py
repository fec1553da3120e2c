"""Usage records: one per entry that records usage, where its kind says it is (:mod:`core.kinds`).

:class:`UsageCollector` turns entries in file order into records; it is fed either by
:func:`iter_usage` (one loaded session, bodies read back) or by the catalogue's reader (the objects it
parses anyway), so both count alike. A ``child_usage_attributed`` entry replaces its target's counters by
the aggregate (the last one in file order wins) and adds its ``childUsage`` to the target's child share.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, NamedTuple

from core.kinds.registry import kind_of
from core.session.entry import Entry
from core.session.jsonl import decode_line
from core.session.usage import ASSISTANT_USAGE, unusable_figure, usage_parts
from core.timefmt import js_time

if TYPE_CHECKING:
    from core.session.session import Session


class UsageRecord(NamedTuple):
    """The usage one entry records.

    Attributes:
        path: the session file.
        session_id: the header id (``""`` without one).
        entry_id: the entry's id.
        timestamp: the entry's time in epoch seconds (UTC); the message's own time when the entry's
            does not parse, else the session's creation time, else 0.
        model: ``provider/model`` (``Tools/summaries`` for tool results and summaries).
        project: the session's cwd.
        kind: ``assistant``, ``tool_result``, ``usage``, ``compaction`` or ``branch_summary``.
        input, output, cache_read: the counters as recorded.
        cache_write: ``cacheWrite`` as recorded (it includes ``cacheWrite1h``).
        total: ``totalTokens`` (or the sum of the counters).
        cost: ``cost.total`` as recorded, never re-priced.
        current: the entry lies on the path to the session's current leaf (its last entry).
        child_tokens, child_cost: the child runs' share inside an attributed aggregate (0 otherwise).
    """

    path: str
    session_id: str
    entry_id: str
    timestamp: float
    model: str
    project: str
    kind: str
    input: int
    output: int
    cache_read: int
    cache_write: int
    total: int
    cost: float
    current: bool
    child_tokens: int = 0
    child_cost: float = 0.0


class EntryUsage(NamedTuple):
    """A record as the catalogue stores it: what one file alone says (no path, project or leaf).

    ``ts_ms`` is None when neither the entry nor its message carries a time (the session's creation
    time stands in, see :class:`UsageRecord`).
    """

    line: int
    entry_id: str
    ts_ms: float | None
    model: str
    kind: str
    input: int
    output: int
    cache_read: int
    cache_write: int
    total: int | float
    cost: float
    child_tokens: int
    child_cost: float


def _int(value: float) -> int:
    return value if type(value) is int else int(value)


@dataclass(slots=True)
class UsageCollector:
    """Collects :class:`EntryUsage` rows from entries seen in file order.

    Attributes:
        rows: the rows so far, by line (assistant messages without usage are kept until the end,
            a later attribution may give them some).
        aggregates: target id -> the latest ``aggregateUsage`` attributed to it.
        children: target id -> the ``childUsage`` attributed to it, summed (tokens, cost).
        written: line -> the id an assistant message was written with, where the index gave it another
            (legacy v1 files get ids in memory; Prime Agent applies attributions by the written ids,
            before that migration).
        attributions: one row per ``child_usage_attributed`` entry (kind ``attribution``, the target's
            id, the aggregate's counters, the child's share), which the catalogue keeps so that an
            append can apply them to a target it brings later.
        unusable: line -> a figure of its usage left out of the sums for its size (``name value``,
            :func:`core.session.usage.unusable_figure`), for a diagnostic.
    """

    rows: dict[int, EntryUsage] = field(default_factory=dict)
    aggregates: dict[str, object] = field(default_factory=dict)
    children: dict[str, tuple[int, float]] = field(default_factory=dict)
    attributions: list[EntryUsage] = field(default_factory=list)
    written: dict[int, str] = field(default_factory=dict)
    unusable: dict[int, str] = field(default_factory=dict)

    def add(self, entry: Entry, obj: Mapping[str, object]) -> None:
        """Take one entry and the object parsed from its line."""
        kind = kind_of(entry)
        if kind.attributes_usage:
            target, aggregate = obj.get("targetId"), obj.get("aggregateUsage")
            if type(target) is str and type(aggregate) is dict:
                self.aggregates[target] = aggregate
                child = usage_parts(obj.get("childUsage"))
                share = (_int(child.total), child.cost) if child is not None else (0, 0.0)
                tokens, cost = self.children.get(target, (0, 0.0))
                self.children[target] = (tokens + share[0], cost + share[1])
                base = EntryUsage(
                    entry.line, target, entry.ts_ms, "", "attribution", 0, 0, 0, 0, 0, 0.0, *share
                )
                self.attributions.append(attributed(base, aggregate, share))
            return
        if not kind.has_usage:
            return
        source = kind.usage_source(obj)
        if source is None:
            return
        parts = usage_parts(source.usage)
        unusable = unusable_figure(source.usage)
        if unusable is not None:
            self.unusable[entry.line] = unusable
        ts_ms = entry.ts_ms
        if ts_ms is None:
            message = obj.get("message")
            ts_ms = js_time(message.get("timestamp")) if isinstance(message, dict) else None
        if parts is None:
            if source.kind != ASSISTANT_USAGE:
                return
            parts = usage_parts({})
            assert parts is not None
        written = obj.get("id")
        if source.kind == ASSISTANT_USAGE and type(written) is str and written != entry.id:
            self.written[entry.line] = written
        self.rows[entry.line] = EntryUsage(
            entry.line,
            entry.id,
            None if ts_ms is None else float(ts_ms),
            source.model,
            source.kind,
            _int(parts.input),
            _int(parts.output),
            _int(parts.cache_read),
            _int(parts.cache_write),
            parts.total,
            parts.cost,
            0,
            0.0,
        )

    def finish(self, keep_empty: bool = False) -> list[EntryUsage]:
        """The rows in file order, with attributed aggregates applied.

        Args:
            keep_empty: keep assistant rows that record nothing (the catalogue keeps them for an
                attribution a later append may bring); dropped otherwise.
        """
        out: list[EntryUsage] = []
        for row in self.rows.values():
            target = self.written.get(row.line, row.entry_id)
            if row.kind == ASSISTANT_USAGE and target in self.aggregates:
                row = attributed(row, self.aggregates[target], self.children.get(target))
            if keep_empty or any(row[5:11]):  # input ... cost: something recorded
                out.append(row)
        out.sort(key=lambda r: r.line)
        return out


def attributed(row: EntryUsage, aggregate: object, child: tuple[int, float] | None) -> EntryUsage:
    """``row`` with its counters replaced by an attributed aggregate and its child share set."""
    parts = usage_parts(aggregate)
    if parts is None:
        return row
    tokens, cost = child if child is not None else (0, 0.0)
    return row._replace(
        input=_int(parts.input),
        output=_int(parts.output),
        cache_read=_int(parts.cache_read),
        cache_write=_int(parts.cache_write),
        total=parts.total,
        cost=parts.cost,
        child_tokens=tokens,
        child_cost=cost,
    )


def _candidates(session: Session) -> list[Entry]:
    return [e for e in session.entries if (kind := kind_of(e)).has_usage or kind.attributes_usage]


def entry_usages(session: Session) -> list[EntryUsage]:
    """The :class:`EntryUsage` rows of a loaded session (bodies of the entries that may record usage)."""
    collector = UsageCollector()
    candidates = _candidates(session)
    # The lines as written, not Session.bodies: an attribution names its target by the id written
    # (a legacy file's entries get other ids in memory), and nothing else here needs the migration.
    for entry, raw in zip(candidates, session.raw_lines(candidates), strict=True):
        obj, _note = decode_line(raw)
        if isinstance(obj, dict):
            collector.add(entry, obj)
    return collector.finish()


def iter_usage(session: Session) -> Iterator[UsageRecord]:
    """Every usage record of one session file, on every branch, in file order.

    Args:
        session: a loaded session.

    Yields:
        One :class:`UsageRecord` per entry recording usage (the five places; an attributed aggregate
        in place of its target's own usage).
    """
    on_path = {e.id for e in session.path_to(session.leaf_id)}
    created = session.created_ms
    fallback = float(created) / 1000 if created is not None else 0.0
    path, sid, project = session.path, session.session_id or "", session.cwd
    for row in entry_usages(session):
        yield UsageRecord(
            path,
            sid,
            row.entry_id,
            row.ts_ms / 1000 if row.ts_ms is not None else fallback,
            row.model,
            project,
            row.kind,
            row.input,
            row.output,
            row.cache_read,
            row.cache_write,
            _int(row.total),
            row.cost,
            row.entry_id in on_path,
            row.child_tokens,
            row.child_cost,
        )
