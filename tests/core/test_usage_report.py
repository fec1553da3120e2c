"""core.usage: the counting rules per entry, the reports, the branch split, and the catalogue's reports."""

from __future__ import annotations

import json
from dataclasses import asdict
from datetime import UTC, date
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from core import load_session, summarize
from core.catalogue import Catalogue
from core.session.subagents import family_heads
from core.usage import (
    UsageFilter,
    UsageRow,
    deduplicate,
    hour_weekday_grid,
    iter_usage,
    path_split,
    report,
    subtree_usage,
)
from tests.conftest import SHARED

SAMPLES = SHARED / "reference"  # PRIME_SHARED_DIR, else beside the checkout
SAMPLE_ROOTS = [
    SAMPLES / "samples" / "pi-layout" / "sessions",
    SAMPLES / "samples" / "spec-layout",
    SAMPLES / "samples-latest" / "pi-layout" / "sessions",
    SAMPLES / "samples-latest" / "spec-layout",
]


def usage(tokens: int, cost: float, **parts: int) -> dict:
    return {"input": parts.get("input", tokens), "output": parts.get("output", 0),
            "cacheRead": parts.get("cacheRead", 0), "cacheWrite": parts.get("cacheWrite", 0),
            **({"cacheWrite1h": parts["cacheWrite1h"]} if "cacheWrite1h" in parts else {}),
            "totalTokens": tokens, "cost": {"total": cost}}  # fmt: skip


def ts(hour: int, minute: int = 0, day: int = 1) -> str:
    return f"2026-05-{day:02d}T{hour:02d}:{minute:02d}:00.000Z"


def message(entry_id: str, parent: str | None, when: str, role: str, **fields: object) -> dict:
    return {"type": "message", "id": entry_id, "parentId": parent, "timestamp": when,
            "message": {"role": role, "content": [], "timestamp": 0, **fields}}  # fmt: skip


def write(path: Path, header: dict, rows: list[dict]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r) + "\n" for r in [header, *rows]))
    return path


HEADER = {"type": "session", "version": 3, "id": "s1", "timestamp": ts(9), "cwd": "/work/app"}


def five_places(path: Path) -> Path:
    """A session recording usage in all five places, with an abandoned branch and a child attribution."""
    return write(
        path,
        HEADER,
        [
            message("u1", None, ts(10), "user", content="go"),
            message("a1", "u1", ts(10, 1), "assistant", provider="anthropic", model="opus",
                    usage=usage(100, 1.0, input=60, output=20, cacheRead=10, cacheWrite=10, cacheWrite1h=4)),
            message("t1", "a1", ts(10, 2), "toolResult", toolCallId="c", usage=usage(7, 0.07)),
            {"type": "usage", "id": "w1", "parentId": "t1", "timestamp": ts(10, 3), "kind": "cache_warm",
             "provider": "anthropic", "model": "haiku", "usage": usage(5, 0.05)},
            {"type": "compaction", "id": "c1", "parentId": "w1", "timestamp": ts(23, 50), "summary": "s",
             "firstKeptEntryId": "w1", "tokensBefore": 9, "usage": usage(3, 0.03)},
            message("a2", "u1", ts(11), "assistant", provider="openai", model="gpt", usage=usage(50, 0.5)),
            {"type": "branch_summary", "id": "b1", "parentId": "c1", "timestamp": ts(1, day=2),
             "fromId": "a2", "summary": "x", "usage": usage(2, 0.02)},
            {"type": "child_usage_attributed", "id": "k1", "parentId": "b1", "timestamp": ts(2, day=2),
             "targetId": "a1", "childUsage": usage(30, 0.3), "aggregateUsage": usage(130, 1.3)},
        ],
    )  # fmt: skip


def test_every_place_counts_once_with_the_attributed_aggregate(tmp_path: Path) -> None:
    session = load_session(five_places(tmp_path / "s.jsonl"))
    records = {r.entry_id: r for r in iter_usage(session)}
    assert {e: (r.kind, r.total, r.cost) for e, r in records.items()} == {
        "a1": ("assistant", 130, 1.3),  # the aggregate replaces the message's own 100
        "t1": ("tool_result", 7, 0.07),
        "w1": ("usage", 5, 0.05),
        "c1": ("compaction", 3, 0.03),
        "a2": ("assistant", 50, 0.5),
        "b1": ("branch_summary", 2, 0.02),
    }
    assert (records["a1"].child_tokens, records["a1"].child_cost) == (30, 0.3)
    assert records["w1"].model == "anthropic/haiku" and records["t1"].model == "Tools/summaries"
    assert not records["a2"].current and records["b1"].current  # a2 is on an abandoned branch
    # The session list and header say the same as the records.
    summary = summarize(session)
    assert summary.totalTokens == sum(r.total for r in records.values()) == 197
    assert summary.cost == pytest.approx(sum(r.cost for r in records.values()))


def test_cache_write_includes_the_one_hour_writes_as_recorded(tmp_path: Path) -> None:
    path = write(tmp_path / "s.jsonl", HEADER, [message("a", None, ts(1), "assistant", model="m",
                 usage=usage(10, 0.1, input=2, cacheWrite=8, cacheWrite1h=5))])  # fmt: skip
    [record] = iter_usage(load_session(path))
    assert record.cache_write == 8  # pi-ai: cacheWrite already holds the 1-hour part


def test_subtrees_and_the_split_between_current_and_abandoned(tmp_path: Path) -> None:
    session = load_session(five_places(tmp_path / "s.jsonl"))
    tree = subtree_usage(session)
    assert tree["u1"] == (197, pytest.approx(1.97))
    assert tree["a2"] == (50, 0.5)
    assert tree["t1"] == (17, pytest.approx(0.17))
    (cur_tokens, cur_cost), (ab_tokens, ab_cost) = path_split(session, session.leaf_id)
    assert (cur_tokens, ab_tokens) == (147, 50)
    assert (cur_cost, ab_cost) == (pytest.approx(1.47), 0.5)


def test_subtree_usage_walks_a_deep_chain_without_recursion(tmp_path: Path) -> None:
    rows = [message("e0", None, ts(1), "assistant", model="m", usage=usage(1, 0.0))]
    rows += [
        message(f"e{i}", f"e{i - 1}", ts(1), "assistant", model="m", usage=usage(1, 0.0))
        for i in range(1, 5000)
    ]
    session = load_session(write(tmp_path / "deep.jsonl", HEADER, rows))
    assert subtree_usage(session)["e0"] == (5000, 0.0)


def test_reports_by_day_in_the_users_zone_week_month_model_and_blocks(tmp_path: Path) -> None:
    records = list(iter_usage(load_session(five_places(tmp_path / "s.jsonl"))))
    utc = report(records, "daily", UsageFilter(timezone=UTC), breakdown=True)
    assert [(r.key, r.total_tokens) for r in utc.rows] == [("2026-05-01", 195), ("2026-05-02", 2)]
    assert utc.totals.total_tokens == 197 and utc.totals.sessions == 1
    first = utc.rows[0]
    assert [m.key for m in first.model_breakdowns] == ["anthropic/opus", "openai/gpt", "Tools/summaries",
                                                        "anthropic/haiku"]  # fmt: skip
    assert first.abandoned_cost == 0.5
    # In Tokyo (UTC+9) the compaction at 23:50 UTC and the summary fall on the 2nd.
    tokyo = report(records, "daily", UsageFilter(timezone=ZoneInfo("Asia/Tokyo")))
    assert [(r.key, r.total_tokens) for r in tokyo.rows] == [("2026-05-01", 192), ("2026-05-02", 5)]
    assert [r.key for r in report(records, "weekly", UsageFilter(timezone=UTC)).rows] == ["2026-04-27"]
    assert [r.key for r in report(records, "monthly", UsageFilter(timezone=UTC)).rows] == ["2026-05"]
    blocks = report(records, "blocks", UsageFilter(timezone=UTC))
    assert [(r.key, r.total_tokens) for r in blocks.rows] == [
        ("2026-05-01T10:00", 192),
        ("2026-05-01T23:00", 5),
    ]
    models = report(records, "model", UsageFilter(timezone=UTC))
    assert models.rows[0].key == "anthropic/opus"  # most expensive first


def test_filters(tmp_path: Path) -> None:
    records = list(iter_usage(load_session(five_places(tmp_path / "s.jsonl"))))
    zone = {"timezone": UTC}
    assert report(records, "daily", UsageFilter(**zone, branches="abandoned")).totals.total_tokens == 50
    assert report(records, "daily", UsageFilter(**zone, branches="current")).totals.total_tokens == 147
    assert report(records, "daily", UsageFilter(**zone, model="OPUS")).totals.total_tokens == 130
    assert report(records, "daily", UsageFilter(**zone, since=date(2026, 5, 2))).totals.total_tokens == 2
    assert report(records, "daily", UsageFilter(**zone, until=date(2026, 5, 1))).totals.total_tokens == 195
    assert report(records, "daily", UsageFilter(**zone, project="/elsewhere")).rows == []
    grid = hour_weekday_grid(records, UsageFilter(**zone))
    assert grid[4][10] == pytest.approx(1.42)  # 2026-05-01 is a Friday
    with pytest.raises(ValueError):
        report(records, "yearly")


def test_deduplicate_follows_parent_links_transitively(tmp_path: Path) -> None:
    base = [message("a", None, ts(1), "assistant", model="m", usage=usage(10, 0.1))]
    one = write(tmp_path / "one.jsonl", {**HEADER, "id": "one"}, base)
    two = write(tmp_path / "two.jsonl", {**HEADER, "id": "two", "parentSession": str(one)}, base)
    three = write(tmp_path / "three.jsonl", {**HEADER, "id": "three", "parentSession": str(two)}, base)
    records = [r for p in (one, two, three) for r in iter_usage(load_session(p))]
    kept = deduplicate(records, {str(two): str(one), str(three): str(two)})
    assert [Path(r.path).name for r in kept] == ["one.jsonl"]


@pytest.mark.parametrize(
    "filt",
    [
        UsageFilter(timezone=UTC),
        UsageFilter(timezone=ZoneInfo("America/St_Johns")),  # half an hour off, with daylight saving
        UsageFilter(timezone=ZoneInfo("Asia/Kathmandu"), branches="abandoned"),
        UsageFilter(timezone=UTC, since=date(2026, 3, 3), until=date(2026, 3, 5), model="sonnet"),
        UsageFilter(timezone=UTC, project="/home/dev/acme-webapp", branches="current"),
    ],
)
@pytest.mark.parametrize("kind", ["daily", "weekly", "monthly", "session", "model", "project", "blocks"])
def test_the_catalogue_gives_the_rows_report_gives(
    tmp_path_factory: pytest.TempPathFactory, filt: UsageFilter, kind: str
) -> None:
    folder = tmp_path_factory.getbasetemp() / "usage-samples-catalogue"
    catalogue = Catalogue(folder)
    try:
        catalogue.refresh(SAMPLE_ROOTS)
        got = catalogue.usage_report(kind, filt, True, SAMPLE_ROOTS)
        records = catalogue.usage_records(SAMPLE_ROOTS)
        summaries = catalogue.summaries(SAMPLE_ROOTS)
        titles = {s.path: s.title for s in summaries}
        grid = catalogue.usage_grid(filt, SAMPLE_ROOTS)
    finally:
        catalogue.close()
    want = report(records, kind, filt, True, titles, family_heads(summaries))
    assert len(got.rows) == len(want.rows)
    assert [_plain(r) for r in got.rows] == [_plain(r) for r in want.rows]
    assert _plain(got.totals) == _plain(want.totals)
    want_grid = hour_weekday_grid(records, filt)
    assert [c for row in grid for c in row] == pytest.approx([c for row in want_grid for c in row])


def _plain(row: UsageRow) -> dict:
    """A row as a dict, floats compared to 1e-9 (SQL adds them up in another order)."""
    values = {k: pytest.approx(v, abs=1e-9) if isinstance(v, float) else v for k, v in asdict(row).items()}
    values["model_breakdowns"] = [_plain(m) for m in row.model_breakdowns]
    return values


def test_the_catalogue_keeps_usage_current_as_a_session_grows(tmp_path: Path) -> None:
    sessions = tmp_path / "s"
    path = five_places(sessions / "s.jsonl")
    catalogue = Catalogue(tmp_path / "c")
    try:
        catalogue.refresh([sessions])
        with path.open("a") as handle:  # the agent goes on from a2's branch, and attributes more to a1
            for row in [
                message("a3", "a2", ts(3, day=2), "assistant", model="m", usage=usage(40, 0.4)),
                {"type": "child_usage_attributed", "id": "k2", "parentId": "a3", "timestamp": ts(4, day=2),
                 "targetId": "a1", "childUsage": usage(20, 0.2), "aggregateUsage": usage(150, 1.5)},
                message("t2", "a3", ts(5, day=2), "toolResult", usage=usage(1, 0.01)),
            ]:  # fmt: skip
                handle.write(json.dumps(row) + "\n")
        assert catalogue.refresh([sessions]).files_appended == 1
        got = {r.entry_id: r for r in catalogue.usage_records([sessions])}
        fresh = {r.entry_id: r for r in iter_usage(load_session(path))}
        [summary] = catalogue.summaries([sessions])
    finally:
        catalogue.close()
    assert got == fresh
    assert (got["a1"].total, got["a1"].child_tokens) == (150, 50)
    assert got["a2"].current and not got["b1"].current  # the leaf moved to a2's branch
    assert (
        summary.totalTokens
        == summarize(load_session(path)).totalTokens
        == sum(r.total for r in fresh.values())
    )


def test_the_cli_reports_in_ccusage_json_and_fits_100_columns(tmp_path: Path) -> None:
    from tests.helpers import run_cli

    sessions = tmp_path / "s"
    five_places(sessions / "s.jsonl")
    env = {"PRIME_SESSIONS_CATALOGUE": str(tmp_path / "c")}
    done = run_cli("usage", "daily", sessions, "--json", "--breakdown", "-z", "UTC", env=env)
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert [d["date"] for d in data["daily"]] == ["2026-05-01", "2026-05-02"]
    day = data["daily"][0]
    assert {"inputTokens", "outputTokens", "cacheCreationTokens", "cacheReadTokens", "totalTokens",
            "totalCost", "modelsUsed", "modelBreakdowns"} <= set(day)  # fmt: skip
    assert day["modelBreakdowns"][0]["modelName"] == "anthropic/opus"
    assert data["totals"]["totalTokens"] == 197
    table = run_cli("usage", "session", sessions, "-b", "--timezone", "UTC", env=env)
    assert table.returncode == 0 and "Total" in table.stdout
    assert max(len(line) for line in table.stdout.splitlines()) <= 100
    csv_out = run_cli("usage", "model", sessions, "--csv", env=env).stdout.splitlines()
    assert csv_out[0].startswith("model,model,inputTokens") and csv_out[-1].startswith("total,")
    bad = run_cli("usage", "daily", sessions, "--since", "yesterday", env=env)
    assert bad.returncode == 2 and "not a date" in bad.stderr
    wrong_zone = run_cli("usage", "daily", sessions, "--timezone", "Mars/Olympus", env=env)
    assert wrong_zone.returncode == 2 and "unknown time zone" in wrong_zone.stderr
