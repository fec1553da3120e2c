"""The usage overview: the catalogue's one pass over grouped usage gives the figures of one report each."""

from __future__ import annotations

from dataclasses import asdict, fields
from datetime import UTC, date
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from core.catalogue import Catalogue
from core.session.subagents import family_heads
from core.usage import UsageFilter, UsageOverview, UsageRow, overview_of
from tests.core.test_usage_report import SAMPLE_ROOTS

FILTERS = [
    UsageFilter(),  # the machine's zone
    UsageFilter(timezone=UTC),
    UsageFilter(timezone=ZoneInfo("America/St_Johns")),  # half an hour off, with daylight saving
    UsageFilter(timezone=ZoneInfo("Asia/Kathmandu"), branches="abandoned"),
    UsageFilter(timezone=UTC, since=date(2026, 3, 3), until=date(2026, 3, 5), model="sonnet"),
    UsageFilter(timezone=UTC, project="/home/dev/acme-webapp", branches="current"),
    UsageFilter(timezone=UTC, since=date(2030, 1, 1)),  # nothing at all
]


def _plain(value: object) -> object:
    """Rows and figures as plain data, floats compared to 1e-9 (SQL and Python add in other orders)."""
    if isinstance(value, UsageRow):
        return _plain(asdict(value))
    if isinstance(value, float):
        return pytest.approx(value, abs=1e-9)
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    return value


def _figures(result: UsageOverview) -> dict[str, object]:
    return {f.name: _plain(getattr(result, f.name)) for f in fields(result) if f.name != "filt"}


@pytest.fixture(scope="module")
def catalogue(tmp_path_factory: pytest.TempPathFactory) -> Catalogue:
    folder = tmp_path_factory.mktemp("overview") / "catalogue"
    catalogue = Catalogue(folder)
    catalogue.refresh(SAMPLE_ROOTS)
    yield catalogue
    catalogue.close()


@pytest.mark.parametrize("period", ["daily", "weekly", "monthly"])
@pytest.mark.parametrize("filt", FILTERS)
def test_the_catalogue_gives_the_figures_of_the_reports(
    catalogue: Catalogue, filt: UsageFilter, period: str
) -> None:
    records = catalogue.usage_records(SAMPLE_ROOTS)
    summaries = catalogue.summaries(SAMPLE_ROOTS)
    titles = {s.path: s.title for s in summaries}
    got = catalogue.usage_overview(filt, period, SAMPLE_ROOTS)
    want = overview_of(records, filt, period, titles, families=family_heads(summaries))
    assert got.filt == filt and got.period == period
    assert _figures(got) == _figures(want)
    if filt.since == date(2030, 1, 1):
        assert not got.days and got.totals.total_cost == 0 and got.all_models  # the choices remain
    else:
        assert got.days and got.sessions and got.totals.total_cost > 0


def test_some_roots_only_and_the_top_sessions(catalogue: Catalogue) -> None:
    roots = SAMPLE_ROOTS[:1]
    records = catalogue.usage_records(roots)
    summaries = catalogue.summaries(roots)
    titles = {s.path: s.title for s in summaries}
    got = catalogue.usage_overview(UsageFilter(timezone=UTC), "weekly", roots, top=3)
    want = overview_of(
        records, UsageFilter(timezone=UTC), "weekly", titles, top=3, families=family_heads(summaries)
    )
    assert _figures(got) == _figures(want)
    assert len(got.sessions) == 3
    everything = catalogue.usage_overview(UsageFilter(timezone=UTC), "weekly", SAMPLE_ROOTS)
    assert got.totals.sessions < everything.totals.sessions
    assert {Path(row.key).parent for row in got.sessions} <= {
        Path(p).parent for p in (r.path for r in records)
    }


def test_the_filters_choices_do_not_depend_on_the_filter(catalogue: Catalogue) -> None:
    every = catalogue.usage_overview(UsageFilter(), "daily", SAMPLE_ROOTS)
    narrowed = catalogue.usage_overview(
        UsageFilter(model="sonnet", branches="current"), "daily", SAMPLE_ROOTS
    )
    assert narrowed.models and all("sonnet" in row.key for row in narrowed.models)
    assert (narrowed.all_models, narrowed.all_projects) == (every.all_models, every.all_projects)
    assert set(every.all_models) == {row.key for row in every.models}


def test_periods_and_projects_add_up_to_the_totals(catalogue: Catalogue) -> None:
    result = catalogue.usage_overview(UsageFilter(timezone=UTC), "monthly", SAMPLE_ROOTS)
    cost = result.totals.total_cost
    assert sum(row.total_cost for row in result.periods) == pytest.approx(cost)
    assert sum(r.total_cost for rows in result.project_periods.values() for r in rows) == pytest.approx(cost)
    assert sum(map(sum, result.grid)) == pytest.approx(cost)
    for row in result.periods:
        assert sum(part.total_tokens for part in row.model_breakdowns) == row.total_tokens


def test_an_unknown_period_is_refused(catalogue: Catalogue) -> None:
    with pytest.raises(ValueError, match="period"):
        catalogue.usage_overview(UsageFilter(), "session", SAMPLE_ROOTS)
    with pytest.raises(ValueError, match="period"):
        overview_of([], UsageFilter(), "blocks")
