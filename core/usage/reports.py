"""Usage reports in ccusage's shapes: rows by day, week, month, session, model, project or 5-hour block.

Records come from :func:`core.usage.iter_usage` or the catalogue (already counted once across forks);
this module only filters and adds them up. Days and hours are the user's: the filter's time zone, else
the machine's.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta, tzinfo
from typing import Literal

from core.timefmt import on_calendar
from core.usage.records import UsageRecord

KINDS = ("daily", "weekly", "monthly", "session", "model", "project", "blocks")
TIMED_KINDS = ("daily", "weekly", "monthly", "blocks")
"""The reports whose rows are times: usage without a calendar date is left out of them (with a note)."""
"""The report kinds, as ccusage names its commands."""

Branches = Literal["all", "current", "abandoned"]

BLOCK_SECONDS = 5 * 3600  # ccusage's billing block: five hours from the hour of its first entry
_BUCKET = 900  # every time zone's offset is a multiple of 15 minutes: one local time per bucket


@dataclass(slots=True)
class UsageFilter:
    """Which records a report counts.

    Attributes:
        since, until: the first and last local day counted (inclusive); None for no bound.
        timezone: the zone days and hours are in; None for the machine's.
        project: only sessions whose cwd is this (exactly).
        model: only models whose name contains this (case-insensitive).
        branches: ``all``, ``current`` (on the path to each session's leaf) or ``abandoned``.
    """

    since: date | None = None
    until: date | None = None
    timezone: tzinfo | None = None
    project: str | None = None
    model: str | None = None
    branches: Branches = "all"


@dataclass(slots=True)
class UsageRow:
    """One row of a report, or its totals.

    Attributes:
        key: the date (``2026-11-30``), the week's Monday (``2026-11-23``), the month (``2026-11``), the
            session path, the model, the project, or the block's local start (``2026-11-30T14:00``).
        input_tokens, output_tokens, cache_creation_tokens, cache_read_tokens, total_tokens: summed
            counters (``total_tokens`` as recorded, ``totalTokens``).
        total_cost: summed ``cost.total``.
        models_used: the models in the row, by name.
        model_breakdowns: one row per model (key = model), most expensive first, when asked for.
        sessions: distinct sessions in the row.
        abandoned_cost: the part of ``total_cost`` off the current path.
        first, last: the first and last record's timestamp (epoch seconds; 0 for an empty row).
        title, project, session_id: a session row's title, cwd and header id (empty otherwise).
        child_cost: the part of ``total_cost`` that child runs were attributed.
    """

    key: str
    input_tokens: int = 0
    output_tokens: int = 0
    cache_creation_tokens: int = 0
    cache_read_tokens: int = 0
    total_tokens: int = 0
    total_cost: float = 0.0
    models_used: list[str] = field(default_factory=list)
    model_breakdowns: list[UsageRow] = field(default_factory=list)
    sessions: int = 0
    abandoned_cost: float = 0.0
    first: float = 0.0
    last: float = 0.0
    title: str = ""
    project: str = ""
    session_id: str = ""
    child_cost: float = 0.0


@dataclass(slots=True)
class UsageReport:
    """A report: its kind, its rows in order, and the totals over them.

    ``undated`` is what usage dated outside the calendar (:func:`core.timefmt.on_calendar`: a hostile
    time of year 33,658) adds up to, left out of the rows and totals of a report by time (days,
    weeks, months, blocks); None when there is none. Session, model and project reports count it.
    """

    kind: str
    rows: list[UsageRow]
    totals: UsageRow
    undated: UsageRow | None = None


class LocalClock:
    """Local dates and hours of timestamps in one zone, worked out once per 15 minutes of time."""

    def __init__(self, zone: tzinfo | None) -> None:
        self.zone = zone
        self._cache: dict[int, tuple[date, int]] = {}

    def at(self, ts: float) -> tuple[date, int]:
        """``(local date, local hour)`` of epoch seconds ``ts``."""
        bucket = int(ts // _BUCKET)
        found = self._cache.get(bucket)
        if found is None:
            start = bucket * _BUCKET
            if self.zone is None:
                t = time.localtime(start)
                found = (date(t.tm_year, t.tm_mon, t.tm_mday), t.tm_hour)
            else:
                moment = datetime.fromtimestamp(start, self.zone)
                found = (moment.date(), moment.hour)
            self._cache[bucket] = found
        return found

    def offset(self, ts: float) -> float:
        """The zone's offset from UTC at ``ts``, in seconds."""
        if self.zone is None:
            return float(time.localtime(ts).tm_gmtoff)
        delta = datetime.fromtimestamp(ts, self.zone).utcoffset()
        return delta.total_seconds() if delta is not None else 0.0

    def local(self, ts: float) -> datetime:
        """``ts`` as a local wall-clock time (naive)."""
        if self.zone is None:
            return datetime.fromtimestamp(ts)
        return datetime.fromtimestamp(ts, self.zone).replace(tzinfo=None)


def select(records: Iterable[UsageRecord], filt: UsageFilter, clock: LocalClock) -> list[UsageRecord]:
    """The records ``filt`` keeps."""
    model = filt.model.lower() if filt.model else None
    out = []
    for r in records:
        if filt.branches == "current" and not r.current:
            continue
        if filt.branches == "abandoned" and r.current:
            continue
        if filt.project is not None and r.project != filt.project:
            continue
        if model is not None and model not in r.model.lower():
            continue
        if filt.since is not None or filt.until is not None:
            if not on_calendar(r.timestamp):
                continue  # no date: in no range of dates
            day = clock.at(r.timestamp)[0]
            if (filt.since is not None and day < filt.since) or (filt.until is not None and day > filt.until):
                continue
        out.append(r)
    return out


def add_counts(
    row: UsageRow, tokens: tuple[int, int, int, int, int], cost: float, abandoned: float, child: float
) -> None:
    """Add counters to ``row``: tokens (input, output, cache write, cache read, total), cost and its parts."""
    row.input_tokens += tokens[0]
    row.output_tokens += tokens[1]
    row.cache_creation_tokens += tokens[2]
    row.cache_read_tokens += tokens[3]
    row.total_tokens += tokens[4]
    row.total_cost += cost
    row.abandoned_cost += abandoned
    row.child_cost += child


class _Sum:
    """A row being added up."""

    __slots__ = ("first", "last", "models", "paths", "project", "row", "session_id")

    def __init__(self, key: str) -> None:
        self.row = UsageRow(key)
        self.models: dict[str, _Sum] = {}
        self.paths: set[str] = set()
        self.project = ""
        self.session_id = ""
        self.first = float("inf")
        self.last = float("-inf")

    def add(self, r: UsageRecord, breakdown: bool, last: float | None = None) -> None:
        """Add a record, or a group of them (``last``: its latest timestamp; ``r.timestamp``: its first)."""
        abandoned = 0.0 if r.current else r.cost
        add_counts(
            self.row,
            (r.input, r.output, r.cache_write, r.cache_read, r.total),
            r.cost,
            abandoned,
            r.child_cost,
        )
        self.paths.add(r.path)
        self.project = r.project
        self.session_id = r.session_id
        if r.timestamp < self.first:
            self.first = r.timestamp
        latest = r.timestamp if last is None else last
        if latest > self.last:
            self.last = latest
        part = self.models.get(r.model)
        if part is None:
            part = self.models[r.model] = _Sum(r.model)
        if breakdown:
            part.add(r, False, last)

    def done(self, breakdown: bool) -> UsageRow:
        row = self.row
        row.models_used = sorted(self.models)
        row.sessions = len(self.paths)
        if self.paths:
            row.first, row.last = self.first, self.last
        if breakdown:
            parts = [m.done(False) for m in self.models.values()]
            row.model_breakdowns = sorted(parts, key=lambda p: (-p.total_cost, p.key))
        return row


def key_function(kind: str, clock: LocalClock) -> Callable[[UsageRecord], str]:
    """The row key of a record in a report of ``kind`` (any kind but ``blocks``)."""

    def daily(r: UsageRecord) -> str:
        return clock.at(r.timestamp)[0].isoformat()

    def weekly(r: UsageRecord) -> str:
        day = clock.at(r.timestamp)[0]
        return (day - timedelta(days=day.weekday())).isoformat()

    def monthly(r: UsageRecord) -> str:
        return clock.at(r.timestamp)[0].isoformat()[:7]

    keys: dict[str, Callable[[UsageRecord], str]] = {
        "daily": daily,
        "weekly": weekly,
        "monthly": monthly,
        "session": lambda r: r.path,
        "model": lambda r: r.model,
        "project": lambda r: r.project,
    }
    return keys[kind]


def _blocks(records: Sequence[UsageRecord], clock: LocalClock) -> list[tuple[str, list[UsageRecord]]]:
    """The 5-hour blocks ccusage bills by: from the hour of a block's first record for five hours.

    A record five hours after the block's start, or five hours after the previous record, starts a new one.
    """
    blocks: list[tuple[str, list[UsageRecord]]] = []
    start = last = float("-inf")
    for r in sorted(records, key=lambda r: r.timestamp):
        if r.timestamp - start >= BLOCK_SECONDS or r.timestamp - last >= BLOCK_SECONDS:
            start = r.timestamp - r.timestamp % 3600
            blocks.append((clock.local(start).strftime("%Y-%m-%dT%H:%M"), []))
        blocks[-1][1].append(r)
        last = r.timestamp
    return blocks


def report(
    records: Iterable[UsageRecord],
    kind: str,
    filt: UsageFilter | None = None,
    breakdown: bool = False,
    titles: Mapping[str, str] | None = None,
    families: Mapping[str, str] | None = None,
) -> UsageReport:
    """Add up usage records into a report.

    Args:
        records: the records (counted once across forks already: see :func:`core.usage.deduplicate`).
        kind: one of :data:`KINDS`.
        filt: which records count (None: all of them, in the machine's time zone).
        breakdown: fill each row's ``model_breakdowns``.
        titles: session path -> title, for session rows (the catalogue knows them; records do not).
        families: child session path -> the top session of its family: a session row holds its
            children's records, whose cost is then its child cost (issue 28).

    Returns:
        The report: date, week, month and block rows in time order; session, model and project rows
        most expensive first.

    Raises:
        ValueError: ``kind`` is not a report kind.
    """
    if kind not in KINDS:
        raise ValueError(f"unknown usage report {kind!r}")
    filt = filt or UsageFilter()
    clock = LocalClock(filt.timezone)
    records = list(records)
    chosen = select(records, filt, clock)
    undated = None
    if kind in TIMED_KINDS:
        left_out = [(r.path, r, r.timestamp) for r in chosen if not on_calendar(r.timestamp)]
        if left_out:
            undated = fold(left_out, "session", False).totals
            chosen = [r for r in chosen if on_calendar(r.timestamp)]
    if kind == "blocks":
        keyed = [(key, r, r.timestamp) for key, members in _blocks(chosen, clock) for r in members]
    elif kind == "session" and families:
        # A child's records go to the top session of its family, their cost its child cost; the row says
        # whose it is (the top's id and project, from every record, as the catalogue has them).
        keyed = [
            (families[r.path], r._replace(child_cost=r.cost), r.timestamp)
            if r.path in families
            else (r.path, r, r.timestamp)
            for r in chosen
        ]
        tops = {r.path: (r.session_id, r.project) for r in records if r.path not in families}
        folded = fold(keyed, kind, breakdown, titles)
        for row in folded.rows:
            row.session_id, row.project = tops.get(row.key, (row.session_id, row.project))
        return folded
    else:
        key_of = key_function(kind, clock)
        keyed = [(key_of(r), r, r.timestamp) for r in chosen]
    result = fold(keyed, kind, breakdown, titles)
    result.undated = undated
    return result


def fold(
    keyed: Iterable[tuple[str, UsageRecord, float]],
    kind: str,
    breakdown: bool,
    titles: Mapping[str, str] | None = None,
) -> UsageReport:
    """A report from records (or groups of records) already chosen and given their row keys.

    Args:
        keyed: ``(row key, record, latest timestamp)``; a record may stand for a group of records
            of one session, model and branch side, with its counters summed, ``timestamp`` the
            group's first and the third value its last.
        kind: the report kind (it decides the order of the rows).
        breakdown: fill each row's ``model_breakdowns``.
        titles: session path -> title, for session rows.
    """
    sums: dict[str, _Sum] = {}
    totals = _Sum("total")
    for key, r, last in keyed:
        found = sums.get(key)
        if found is None:
            found = sums[key] = _Sum(key)
        found.add(r, breakdown, last)
        totals.add(r, False, last)
    rows = [s.done(breakdown) for s in sums.values()]
    if kind == "session":
        for row, summed in zip(rows, sums.values(), strict=True):
            row.title = (titles or {}).get(row.key, "")
            row.project = summed.project
            row.session_id = summed.session_id
    if kind in ("session", "model", "project"):
        rows.sort(key=lambda row: (-row.total_cost, row.key))
    else:
        rows.sort(key=lambda row: row.key)
    return UsageReport(kind, rows, totals.done(False))


def hour_weekday_grid(records: Iterable[UsageRecord], filt: UsageFilter | None = None) -> list[list[float]]:
    """Cost by local weekday (rows, Monday first) and hour (columns): a 7 x 24 grid for a heatmap."""
    filt = filt or UsageFilter()
    clock = LocalClock(filt.timezone)
    grid = [[0.0] * 24 for _ in range(7)]
    for r in select(records, filt, clock):
        if not on_calendar(r.timestamp):
            continue
        day, hour = clock.at(r.timestamp)
        grid[day.weekday()][hour] += r.cost
    return grid
