"""The Usage view's figures: compacted records give the same reports, presets, cards."""

from __future__ import annotations

from datetime import UTC, date, timedelta, timezone

import pytest

from core.session import load_session
from core.usage import UsageFilter, hour_weekday_grid, iter_usage, report
from gui.models.usage_figures import UsageQuery, compact, compute_figures, preset_range, summary_cards
from tests.conftest import DEMO


def _records() -> list:
    return [r for path in sorted(DEMO.glob("*.jsonl")) for r in iter_usage(load_session(str(path)))]


def _rows(rep) -> list:
    return [
        (
            r.key,
            r.input_tokens,
            r.output_tokens,
            r.cache_read_tokens,
            r.cache_creation_tokens,
            r.total_tokens,
            round(r.total_cost, 9),
            r.sessions,
            round(r.abandoned_cost, 9),
            r.models_used,
            r.last,
        )
        for r in [*rep.rows, rep.totals]
    ]


@pytest.mark.parametrize("zone", [None, UTC, timezone(timedelta(hours=5, minutes=45))])
@pytest.mark.parametrize("kind", ["daily", "weekly", "monthly", "session", "model", "project"])
def test_compacted_records_give_the_same_reports(kind: str, zone) -> None:
    records = _records()
    fewer = compact(records)
    assert len(fewer) < len(records)
    for filt in (UsageFilter(timezone=zone), UsageFilter(timezone=zone, branches="abandoned")):
        assert _rows(report(fewer, kind, filt)) == _rows(report(records, kind, filt))
    grid, expected = (hour_weekday_grid(r, UsageFilter(timezone=zone)) for r in (fewer, records))
    assert [v for row in grid for v in row] == pytest.approx([v for row in expected for v in row])


def test_presets() -> None:
    today = date(2026, 3, 6)
    assert preset_range("all", today) == (None, None)
    assert preset_range("7", today) == (date(2026, 2, 28), today)
    assert preset_range("90", today) == (date(2025, 12, 7), today)
    assert preset_range("month", today) == (date(2026, 3, 1), today)


def test_cards_say_the_reports_figures() -> None:
    records = _records()
    figures = compute_figures(records, UsageQuery())
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
        figures = compute_figures(records, UsageQuery(period="weekly", stack=stack))
        weekly = report(records, "weekly", UsageFilter())
        assert figures.periods == [row.key for row in weekly.rows]
        for i, row in enumerate(weekly.rows):
            assert sum(s.cost[i] for s in figures.stacks) == pytest.approx(row.total_cost)
            assert sum(s.tokens[i] for s in figures.stacks) == row.total_tokens
