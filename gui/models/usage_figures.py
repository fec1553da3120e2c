"""What the Usage view shows, worked out in a worker from the catalogue's usage overview.

Everything here is plain Python over :mod:`core.usage` (no Qt): the view's query (a
:class:`~core.usage.UsageFilter` plus the period and what the bars are stacked by), the date-range
presets, and :func:`compute_figures`, which shapes a :class:`~core.usage.UsageOverview` (every report
of one filter, added up at once by the catalogue) into the cards, bars and tables, so every number the
view shows is a report's number for the same filter.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from datetime import date, timedelta
from typing import Literal

from core.usage import UsageFilter, UsageOverview, UsageRow

__all__ = [
    "PERIODS",
    "PRESETS",
    "STACKS",
    "Card",
    "StackSeries",
    "UsageFigures",
    "UsageQuery",
    "compute_figures",
    "preset_range",
    "summary_cards",
]

Metric = Literal["cost", "tokens"]
PERIODS = {"daily": "Day", "weekly": "Week", "monthly": "Month"}
STACKS = {"model": "Model", "project": "Project"}
PRESETS = {
    "7": "Last 7 days",
    "30": "Last 30 days",
    "90": "Last 90 days",
    "month": "This month",
    "all": "All time",
}
STACKED = 6  # the most expensive keys get a colour of their own; the rest are "Other"
TOP_SESSIONS = 50
OTHER = "Other"


def preset_range(preset: str, today: date) -> tuple[date | None, date | None]:
    """``(since, until)`` of a date-range preset (see :data:`PRESETS`) as of ``today``."""
    if preset == "all":
        return None, None
    if preset == "month":
        return today.replace(day=1), today
    return today - timedelta(days=int(preset) - 1), today


@dataclass(frozen=True)
class UsageQuery:
    """What the view asks for: which records (``filt``), the bars' period and what they are stacked by."""

    filt: UsageFilter = field(default_factory=UsageFilter)
    period: str = "daily"
    stack: str = "model"


@dataclass
class StackSeries:
    """One colour of the stacked bars: a model or project (or "Other"), one value per period."""

    name: str
    cost: list[float]
    tokens: list[int]


@dataclass
class UsageFigures:
    """Every figure of the view for one query.

    Attributes:
        query: what was asked.
        totals: the report's totals (cost, tokens, sessions, abandoned cost).
        days: the daily report's rows (active days only), oldest first.
        periods: the keys of the bars (days, weeks' Mondays or months), oldest first.
        stacks: the stacked series, most expensive first, "Other" last.
        grid: cost by weekday (Monday first) and hour, 7 x 24.
        models, projects: the model and project reports' rows, most expensive first.
        sessions: the most expensive sessions (session report rows with titles).
        all_projects, all_models: every project and model in the records, for the filters' choices.
        listed: how many sessions the main window lists (the Sessions card explains a difference), or
            None when unknown.
        undated: what usage dated outside the years 1 to 9999 adds up to: in the totals and tables, on
            no day, bar or hour (None when there is none).
    """

    query: UsageQuery
    totals: UsageRow
    days: list[UsageRow]
    periods: list[str]
    stacks: list[StackSeries]
    grid: list[list[float]]
    models: list[UsageRow]
    projects: list[UsageRow]
    sessions: list[UsageRow]
    all_projects: list[str]
    all_models: list[str]
    listed: int | None = None
    undated: UsageRow | None = None


@dataclass(frozen=True)
class Card:
    """One summary card: a caption, the figure and a line of detail."""

    caption: str
    value: str
    detail: str = ""
    tip: str = ""


def _stacks(overview: UsageOverview, query: UsageQuery) -> tuple[list[str], list[StackSeries]]:
    periods = [row.key for row in overview.periods]
    position = {key: i for i, key in enumerate(periods)}
    parts: dict[str, list[UsageRow]] = {}
    if query.stack == "model":
        for row in overview.periods:
            for part in row.model_breakdowns:
                parts.setdefault(part.key, []).append(replace(part, key=row.key))
    else:
        parts = overview.project_periods
    ranked = sorted(parts, key=lambda key: (-sum(r.total_cost for r in parts[key]), key))
    series: list[StackSeries] = []
    other = StackSeries(OTHER, [0.0] * len(periods), [0] * len(periods))
    for rank, key in enumerate(ranked):
        target = other
        if rank < STACKED or len(ranked) == STACKED + 1:
            target = StackSeries(key, [0.0] * len(periods), [0] * len(periods))
            series.append(target)
        for row in parts[key]:
            at = position[row.key]
            target.cost[at] += row.total_cost
            target.tokens[at] += row.total_tokens
    if any(other.tokens) or any(other.cost):
        series.append(other)
    return periods, series


def compute_figures(overview: UsageOverview, query: UsageQuery) -> UsageFigures:
    """Every figure of the Usage view for ``query``, from the overview of its filter and period.

    Args:
        overview: :meth:`core.catalogue.Catalogue.usage_overview` (or :func:`core.usage.overview_of`) of
            ``query.filt`` and ``query.period``, with at least :data:`TOP_SESSIONS` session rows.
        query: the filter, the bars' period and what they are stacked by.
    """
    periods, stacks = _stacks(overview, query)
    return UsageFigures(
        query=query,
        totals=overview.totals,
        days=overview.days,
        periods=periods,
        stacks=stacks,
        grid=overview.grid,
        models=overview.models,
        projects=overview.projects,
        sessions=overview.sessions[:TOP_SESSIONS],
        all_projects=overview.all_projects,
        all_models=overview.all_models,
        undated=overview.undated,
    )


def _tokens(value: float) -> str:
    from core.formatting import short_tokens

    return short_tokens(value)


def _money(value: float) -> str:
    from core.formatting import dollars

    return dollars(value)


def _share(part: float, whole: float) -> str:
    return f"{100 * part / whole:.1f}%" if whole else "–"


def _sessions_card(figures: UsageFigures) -> Card:
    """The sessions with usage, and why that may be fewer than the main window lists."""
    sessions, listed = figures.totals.sessions, figures.listed
    projects = f"{len(figures.projects):,} {'project' if len(figures.projects) == 1 else 'projects'}"
    if listed is None or listed <= sessions:
        return Card("Sessions", f"{sessions:,}", projects)
    missing = listed - sessions
    filtered = figures.query.filt != UsageFilter()
    where = " in the days, project, model and branches chosen" if filtered else ""
    tip = (
        f"{sessions:,} of the {listed:,} sessions listed have usage{where} ({projects}). The other "
        f"{missing:,} have none: no reply recorded tokens or cost (a session that never got an answer, "
        "one only named or labelled), or what they copied from the session they were forked from is "
        "counted there" + (", or their usage falls outside these filters." if filtered else ".")
    )
    return Card("Sessions", f"{sessions:,}", f"of {listed:,} listed; {missing:,} without usage", tip)


def summary_cards(figures: UsageFigures, metric: Metric = "cost") -> list[Card]:
    """The summary cards: cost, tokens, sessions, active days, mean and peak day, cache reads, abandoned."""
    totals, days = figures.totals, figures.days
    amount = (lambda row: row.total_cost) if metric == "cost" else (lambda row: float(row.total_tokens))
    shown = _money if metric == "cost" else _tokens
    prompt = totals.input_tokens + totals.cache_read_tokens + totals.cache_creation_tokens
    peak = max(days, key=amount, default=None)
    mean = sum(amount(row) for row in days) / len(days) if days else 0.0
    period = f"{days[0].key} to {days[-1].key}" if days else "no usage"
    return [
        Card("Cost", _money(totals.total_cost), f"{_tokens(totals.total_tokens)} tokens"),
        Card(
            "Tokens",
            _tokens(totals.total_tokens),
            f"{_tokens(totals.input_tokens)} in · {_tokens(totals.output_tokens)} out",
        ),
        _sessions_card(figures),
        Card("Active days", f"{len(days):,}", period),
        Card("Mean day", shown(mean), "over active days"),
        Card("Peak day", shown(amount(peak)) if peak else "–", peak.key if peak else ""),
        Card("Cache reads", _share(totals.cache_read_tokens, prompt), "of prompt tokens"),
        Card(
            "Abandoned branches",
            _share(totals.abandoned_cost, totals.total_cost),
            f"{_money(totals.abandoned_cost)} off the current path",
        ),
    ]
