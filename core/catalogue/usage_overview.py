"""The usage overview over the catalogue: every figure of the Usage window in one pass over grouped usage.

SQL adds the ``usage_groups`` the filter keeps up by local day, session, model and branch side (a few
thousand rows for the 2,000-session benchmark history: sessions mostly live within a day); one Python
pass adds those up per session, per model and per day and project, and the daily, period, project and
total rows are sums of these sums; a second query gives the weekday-by-hour grid. The figures are those
:func:`core.usage.overview_of` makes from the records, one report per figure, without reading a record.
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Iterable
from datetime import date, timedelta
from typing import TypeVar

from core.catalogue.usage_query import (
    UNDATED,
    family_tops,
    grid_of_groups,
    group_source,
    restricted,
    session_files,
)
from core.usage.overview import PERIOD_KINDS, UsageOverview
from core.usage.reports import UsageFilter, UsageRow

_INF = float("inf")


class _Sum:
    """A row being added up: counters, time span, sessions and (when asked) one part per model."""

    __slots__ = ("counts", "files", "first", "last", "models", "parts")

    def __init__(self, parts: bool) -> None:
        # input, output, cache write, cache read, total, cost, abandoned cost, child cost
        self.counts = [0, 0, 0, 0, 0, 0.0, 0.0, 0.0]
        self.first = _INF
        self.last = -_INF
        self.files: set[int] = set()
        self.models: set[str] = set()
        self.parts: dict[str, _Sum] | None = {} if parts else None

    def add(self, values: tuple[float, ...], file_id: int, model: str, first: float, last: float) -> None:
        c = self.counts
        c[0] += values[0]
        c[1] += values[1]
        c[2] += values[2]
        c[3] += values[3]
        c[4] += values[4]
        c[5] += values[5]
        c[6] += values[6]
        c[7] += values[7]
        if first < self.first:
            self.first = first
        if last > self.last:
            self.last = last
        self.files.add(file_id)
        self.models.add(model)
        if self.parts is not None:
            part = self.parts.get(model)
            if part is None:
                part = self.parts[model] = _Sum(False)
            part.add(values, file_id, model, first, last)

    def merge(self, other: _Sum) -> None:
        """Add another sum (its parts too, if both have parts)."""
        c, d = self.counts, other.counts
        for j in range(8):
            c[j] += d[j]
        if other.first < self.first:
            self.first = other.first
        if other.last > self.last:
            self.last = other.last
        self.files |= other.files
        self.models |= other.models
        if self.parts is not None and other.parts is not None:
            for model, part in other.parts.items():
                _into(self.parts, model, False).merge(part)

    def row(self, key: str) -> UsageRow:
        c = self.counts
        row = UsageRow(
            key,
            input_tokens=int(c[0]),
            output_tokens=int(c[1]),
            cache_creation_tokens=int(c[2]),
            cache_read_tokens=int(c[3]),
            total_tokens=int(c[4]),
            total_cost=float(c[5]),
            abandoned_cost=float(c[6]),
            child_cost=float(c[7]),
            models_used=sorted(self.models),
            sessions=len(self.files),
        )
        if self.files:
            row.first, row.last = self.first, self.last
        if self.parts is not None:
            parts = [part.row(model) for model, part in self.parts.items()]
            row.model_breakdowns = sorted(parts, key=lambda p: (-p.total_cost, p.key))
        return row


def _key_of(period: str, day: str) -> str:
    if period == "daily":
        return day
    if period == "monthly":
        return day[:7]
    moment = date.fromisoformat(day)
    return (moment - timedelta(days=moment.weekday())).isoformat()


_K = TypeVar("_K")


def _into(sums: dict[_K, _Sum], key: _K, parts: bool) -> _Sum:
    found = sums.get(key)
    if found is None:
        found = sums[key] = _Sum(parts)
    return found


def _ranked(sums: dict[str, _Sum]) -> list[UsageRow]:
    rows = [s.row(key) for key, s in sums.items()]
    rows.sort(key=lambda row: (-row.total_cost, row.key))
    return rows


def _timed(sums: dict[str, _Sum]) -> list[UsageRow]:
    return [sums[key].row(key) for key in sorted(sums)]


def usage_overview(
    conn: sqlite3.Connection,
    filt: UsageFilter,
    period: str = "daily",
    roots: Iterable[str | os.PathLike[str]] | None = None,
    top: int | None = None,
) -> UsageOverview:
    """The :class:`~core.usage.overview.UsageOverview` of the catalogued sessions (under ``roots`` if given).

    Args:
        conn: the catalogue's connection.
        filt: which usage counts.
        period: ``daily``, ``weekly`` or ``monthly``: the kind of the period rows.
        roots: only sessions under these folders (None: every catalogued session).
        top: keep only this many session rows, the most expensive (None: all).

    Raises:
        ValueError: ``period`` is not a period kind.
    """
    if period not in PERIOD_KINDS:
        raise ValueError(f"unknown usage period {period!r}")
    files = session_files(conn, roots)
    narrow = restricted(conn, files, roots)
    grain, _row_key, source, args = group_source(conn, "daily", filt, files, narrow)
    # Each row is added three times: to its session, its model and its (day, project), split by model;
    # days, periods, projects and the totals are sums of those sums.
    sessions: dict[int, _Sum] = {}
    models: dict[str, _Sum] = {}
    day_projects: dict[tuple[str, str], _Sum] = {}
    undated = _Sum(False)  # usage without a calendar date: counted, but on no day
    rows = conn.execute(
        "SELECT k.key, g.file_id, g.model, g.on_path, total(g.input), total(g.output), total(g.cache_write),"
        " total(g.cache_read), total(g.total), sum(g.cost), sum(g.child_cost), min(g.first), max(g.last)"
        f"{source} GROUP BY 1, 2, 3, 4",
        args,
    )
    for day, file_id, model, on_path, i, o, cw, cr, total, cost, child, first, last in rows:
        values = (i, o, cw, cr, total, cost, 0.0 if on_path else cost, child)
        _into(sessions, file_id, False).add(values, file_id, model, first, last)
        _into(models, model, False).add(values, file_id, model, first, last)
        if day == UNDATED:
            undated.add(values, file_id, model, first, last)
        else:
            _into(day_projects, (day, files[file_id].project), True).add(values, file_id, model, first, last)
    days: dict[str, _Sum] = {}
    periods: dict[str, _Sum] = days if period == "daily" else {}
    by_project: dict[tuple[str, str], _Sum] = {}
    keys: dict[str, str] = {}
    for (day, project), summed in day_projects.items():
        _into(days, day, True).merge(summed)
        key = keys.get(day)
        if key is None:
            key = keys[day] = _key_of(period, day)
        _into(by_project, (project, key), False).merge(summed)
    if periods is not days:
        for day, summed in days.items():
            _into(periods, keys[day], True).merge(summed)
    projects: dict[str, _Sum] = {}
    totals = _Sum(False)
    for file_id, summed in sessions.items():
        _into(projects, files[file_id].project, False).merge(summed)
    for summed in projects.values():
        totals.merge(summed)
    project_periods: dict[str, list[UsageRow]] = {}
    for (project, key), summed in sorted(by_project.items()):
        project_periods.setdefault(project, []).append(summed.row(key))
    # A session's row holds its children's usage too (each counted once): their cost is its child cost.
    tops = dict(family_tops(conn, files))
    families: dict[int, _Sum] = {}
    for file_id, summed in sessions.items():
        head = tops.get(file_id, file_id)
        family = _into(families, head, False)
        family.merge(summed)
        if head != file_id:
            family.counts[7] += summed.counts[5] - summed.counts[7]
    ranked = sorted(families, key=lambda i: (-families[i].counts[5], files[i].path))
    session_rows = []
    for file_id in ranked if top is None else ranked[:top]:
        row = families[file_id].row(files[file_id].path)
        found = files[file_id]
        row.title, row.project, row.session_id = found.title, found.project, found.session_id
        session_rows.append(row)
    if filt == UsageFilter(timezone=filt.timezone):  # nothing left out: the choices are what was added
        every_model, every_project = set(models), set(projects)
    else:
        every_model, every_project = set(), set()
        for file_id, model in conn.execute(
            "SELECT file_id, model FROM usage_groups WHERE grain = ? GROUP BY 1, 2", (grain,)
        ):
            if file_id in files:
                every_model.add(model)
                every_project.add(files[file_id].project)
    return UsageOverview(
        filt=filt,
        period=period,
        totals=totals.row("total"),
        days=_timed(days),
        periods=_timed(periods),
        project_periods=project_periods,
        grid=grid_of_groups(conn, filt, grain, source, args),
        models=_ranked(models),
        projects=_ranked(projects),
        sessions=session_rows,
        all_projects=sorted(every_project),
        all_models=sorted(every_model),
        undated=undated.row("undated") if undated.files else None,
    )
