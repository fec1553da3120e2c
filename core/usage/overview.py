"""A usage overview: every report a dashboard shows for one filter, worked out together.

:class:`UsageOverview` holds the daily rows, the rows of a period (days, weeks or months) split by model
and by project, the weekday-by-hour grid, the model, project and top session rows, and the models and
projects there are to filter by. The catalogue adds them all up in one pass over its grouped usage
(:func:`core.catalogue.usage_overview.usage_overview`); :func:`overview_of` makes the same figures from
records with :func:`core.usage.report`, one report per figure (the definition the catalogue's pass is
tested against).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from core.usage.records import UsageRecord
from core.usage.reports import UsageFilter, UsageRow, hour_weekday_grid, report

PERIOD_KINDS = ("daily", "weekly", "monthly")
"""The report kinds an overview's periods may be."""


@dataclass(slots=True)
class UsageOverview:
    """Every figure of a usage overview for one filter.

    Attributes:
        filt: the filter the figures are for.
        period: ``daily``, ``weekly`` or ``monthly``: the kind of :attr:`periods`.
        totals: the totals over everything the filter keeps (cost, tokens, sessions, abandoned cost...).
        days: the daily report's rows (days with usage), oldest first, each split by model.
        periods: the report rows of :attr:`period`, oldest first, each split by model (``model_breakdowns``).
        project_periods: project -> its report rows of :attr:`period` (no split), projects in no order.
        grid: cost by local weekday (rows, Monday first) and hour (columns), 7 x 24.
        models, projects: the model and project reports' rows, most expensive first.
        sessions: the session report's rows (with titles and projects), most expensive first, at most
            the number asked for.
        all_projects, all_models: every project and model with usage in the roots, whatever the
            filter (the choices of a dashboard's filters), sorted.
        undated: what usage dated outside the calendar adds up to (see
            :attr:`core.usage.reports.UsageReport.undated`): in the totals, the sessions, models and
            projects, but on no day, period or hour; None when there is none.
    """

    filt: UsageFilter
    period: str
    totals: UsageRow
    days: list[UsageRow]
    periods: list[UsageRow]
    project_periods: dict[str, list[UsageRow]]
    grid: list[list[float]]
    models: list[UsageRow]
    projects: list[UsageRow]
    sessions: list[UsageRow]
    all_projects: list[str]
    all_models: list[str]
    undated: UsageRow | None = None


def overview_of(
    records: Sequence[UsageRecord],
    filt: UsageFilter | None = None,
    period: str = "daily",
    titles: Mapping[str, str] | None = None,
    top: int | None = None,
    families: Mapping[str, str] | None = None,
) -> UsageOverview:
    """The overview of ``records``: one :func:`core.usage.report` per figure.

    Args:
        records: the records (counted once across forks already).
        filt: which records count (None: all, in the machine's time zone).
        period: the kind of the period rows, one of :data:`PERIOD_KINDS`.
        titles: session path -> title, for the session rows.
        top: keep only this many session rows (None: all).
        families: child session path -> the top session of its family, whose row holds it.

    Raises:
        ValueError: ``period`` is not a period kind.
    """
    if period not in PERIOD_KINDS:
        raise ValueError(f"unknown usage period {period!r}")
    filt = filt or UsageFilter()
    daily = report(records, "daily", filt, breakdown=True)
    by_period = daily if period == "daily" else report(records, period, filt, breakdown=True)
    members: dict[str, list[UsageRecord]] = {}
    for record in records:
        members.setdefault(record.project, []).append(record)
    project_periods = {}
    for project, chosen in members.items():
        rows = report(chosen, period, filt).rows
        if rows:
            project_periods[project] = rows
    by_session = report(records, "session", filt, titles=titles, families=families)
    sessions = by_session.rows
    return UsageOverview(
        filt=filt,
        period=period,
        totals=by_session.totals,  # the daily report's leaves out usage without a calendar date
        days=daily.rows,
        periods=by_period.rows,
        project_periods=project_periods,
        grid=hour_weekday_grid(records, filt),
        models=report(records, "model", filt).rows,
        projects=report(records, "project", filt).rows,
        sessions=sessions if top is None else sessions[:top],
        all_projects=sorted({r.project for r in records}),
        all_models=sorted({r.model for r in records}),
        undated=daily.undated,
    )
