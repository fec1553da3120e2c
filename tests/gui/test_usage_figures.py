"""The Usage view's figures: shaped from a usage overview, they say the reports' figures; presets, cards."""

from __future__ import annotations

from datetime import date

import pytest

from core.session import load_session
from core.usage import UsageFilter, iter_usage, overview_of, report
from gui.models.usage_figures import (
    OTHER,
    STACKED,
    TOP_SESSIONS,
    UsageQuery,
    compute_figures,
    preset_range,
    summary_cards,
)
from tests.conftest import DEMO


def _records() -> list:
    return [r for path in sorted(DEMO.glob("*.jsonl")) for r in iter_usage(load_session(str(path)))]


def test_presets() -> None:
    today = date(2026, 3, 6)
    assert preset_range("all", today) == (None, None)
    assert preset_range("7", today) == (date(2026, 2, 28), today)
    assert preset_range("90", today) == (date(2025, 12, 7), today)
    assert preset_range("month", today) == (date(2026, 3, 1), today)


def test_cards_say_the_reports_figures() -> None:
    records = _records()
    figures = compute_figures(overview_of(records), UsageQuery())
    daily = report(records, "daily", UsageFilter())
    cards = {card.caption: card for card in summary_cards(figures)}
    assert cards["Active days"].value == str(len(daily.rows))
    peak = max(daily.rows, key=lambda row: row.total_cost)
    assert cards["Peak day"].detail == peak.key
    assert cards["Sessions"].value == str(daily.totals.sessions)
    share = 100 * daily.totals.abandoned_cost / daily.totals.total_cost
    assert cards["Abandoned branches"].value == f"{share:.1f}%"
    tokens = {card.caption: card for card in summary_cards(figures, "tokens")}
    assert tokens["Peak day"].detail == max(daily.rows, key=lambda row: row.total_tokens).key


def test_stacks_add_up_and_group_the_rest_as_other() -> None:
    records = _records()
    for stack in ("model", "project"):
        query = UsageQuery(period="weekly", stack=stack)
        figures = compute_figures(overview_of(records, query.filt, query.period), query)
        weekly = report(records, "weekly", UsageFilter())
        assert figures.periods == [row.key for row in weekly.rows]
        for i, row in enumerate(weekly.rows):
            assert sum(s.cost[i] for s in figures.stacks) == pytest.approx(row.total_cost)
            assert sum(s.tokens[i] for s in figures.stacks) == row.total_tokens


def test_the_figures_are_the_overviews_and_the_rest_is_other() -> None:
    records = _records()
    query = UsageQuery(UsageFilter(branches="abandoned"), "daily", "project")
    source = overview_of(records, query.filt, query.period, top=TOP_SESSIONS + 5)
    figures = compute_figures(source, query)
    assert (figures.totals, figures.days, figures.grid) == (source.totals, source.days, source.grid)
    assert figures.sessions == source.sessions[:TOP_SESSIONS]
    assert figures.periods == [row.key for row in source.periods]
    names = [s.name for s in figures.stacks]
    assert len(names) <= STACKED + 1 and (OTHER not in names or names[-1] == OTHER)
    ranked = sorted(
        source.project_periods, key=lambda p: -sum(r.total_cost for r in source.project_periods[p])
    )
    assert names[: min(STACKED, len(ranked))] == ranked[: min(STACKED, len(names))]
